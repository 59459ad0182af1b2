/* pattern.c - function patterns are data, never filter syntax.
 *
 * set_ftrace_filter reads "!name" as removal, "name:cmd[:arg]" as a command
 * and whitespace as a separator; a pattern here may only hold what a kernel
 * symbol holds plus the glob characters the kernel matches ('*', '?', [...]).
 */
#include <ctype.h>
#include <string.h>

#include "base/base.h"

static bool sym_char(unsigned char c)
{
	return isalnum(c) || c == '_' || c == '.' || c == '$';
}

bool nop_pattern_is_glob(const char *pat)
{
	return strpbrk(pat, "*?[") != NULL;
}

/* what: "function pattern" or "module name"; may: what one may hold */
static void bad_char(struct nop_error *err, const char *what, const char *may, const char *s, size_t i)
{
	unsigned char c = (unsigned char)s[i];
	char shown[16];

	if (c == '\n')
		strcpy(shown, "a newline");
	else if (c == '\t' || c == ' ')
		strcpy(shown, "white space");
	else if (c < 0x20 || c >= 0x7f)
		snprintf(shown, sizeof(shown), "byte 0x%02x", c);
	else
		snprintf(shown, sizeof(shown), "'%c'", c);
	nop_error_set(err, NOP_EUSAGE, 0, "invalid %s: %s at position %zu; a %s may hold %s", what, shown,
		      i + 1, what, may);
}

int nop_pattern_check(const char *pat, struct nop_error *err)
{
	size_t len, i;
	bool in_class = false;

	if (!pat || !*pat) {
		nop_error_set(err, NOP_EUSAGE, 0,
			      "empty function pattern; give a name like do_sys_openat2 or a glob like 'vfs_*'");
		return -1;
	}
	len = strnlen(pat, NOP_NAME_MAX + 1);
	if (len > NOP_NAME_MAX) {
		nop_error_set(err, NOP_EUSAGE, 0,
			      "function pattern too long (%zu bytes or more); kernel symbols have at most %d",
			      strlen(pat), NOP_NAME_MAX);
		return -1;
	}
	for (i = 0; i < len; i++) {
		unsigned char c = (unsigned char)pat[i];

		if (sym_char(c) || c == '*' || c == '?')
			continue;
		if (c == '[' && !in_class) {
			in_class = true;
			continue;
		}
		if (c == ']' && in_class) {
			in_class = false;
			continue;
		}
		if (c == '-' && in_class)
			continue;
		bad_char(err, "function pattern",
			 "letters, digits, '_', '.', '$' and the globs '*', '?', '[...]' (filter commands"
			 " like ':mod:' or '!' are not accepted)", pat, i);
		err->remedy = NOP_REMEDY_MODULE;
		return -1;
	}
	if (in_class) {
		nop_error_set(err, NOP_EUSAGE, 0, "invalid function pattern '%s': unclosed '['", pat);
		return -1;
	}
	if (pat[0] == '.' ) {
		nop_error_set(err, NOP_EUSAGE, 0, "invalid function pattern '%s': starts with '.'", pat);
		return -1;
	}
	return 0;
}

int nop_module_check(const char *mod, struct nop_error *err)
{
	size_t i, len;

	if (!mod || !*mod) {
		nop_error_set(err, NOP_EUSAGE, 0, "empty module name");
		return -1;
	}
	len = strnlen(mod, 65);
	if (len > 64) {
		nop_error_set(err, NOP_EUSAGE, 0, "module name too long (at most 64 bytes)");
		return -1;
	}
	for (i = 0; i < len; i++) {
		unsigned char c = (unsigned char)mod[i];

		if (!isalnum(c) && c != '_' && c != '-') {
			bad_char(err, "module name", "letters, digits, '_' and '-'", mod, i);
			return -1;
		}
	}
	return 0;
}
