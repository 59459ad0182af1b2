/* ksyms.c - /proc/kallsyms by name: where a function is, and the
 * compiler's clones of it (name.isra.0, name.constprop.0, name.part.0,
 * name.cold) that ftrace lists under their own names; and kallsyms' line
 * format, which the resolver reads too. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

const char *nop_kallsyms_path = "/proc/kallsyms";

/* hex digit values, -1 for anything else */
static signed char hexval[256];

static void hex_init(void)
{
	for (int c = 0; c < 256; c++)
		hexval[c] = (signed char)(c >= '0' && c <= '9' ? c - '0'
					  : (c | 32) >= 'a' && (c | 32) <= 'f' ? (c | 32) - 'a' + 10 : -1);
}

bool nop_kallsyms_line(const char **pp, const char *end, struct nop_kline *l)
{
	const char *p = *pp, *nl = memchr(p, '\n', (size_t)(end - p)), *tab, *digits = p;
	int v;

	if (hexval['x'] == 0)
		hex_init();
	if (!nl)
		nl = end;
	*pp = nl < end ? nl + 1 : end;
	l->addr = 0;
	while (p < nl && (v = hexval[(unsigned char)*p]) >= 0)
		l->addr = l->addr << 4 | (unsigned)v, p++;
	if (p == digits || p + 3 > nl || *p != ' ' || p[2] != ' ')
		return false;
	l->type = p[1];
	l->name = p + 3;
	/* the name ends at the line's end or at the tab before [module] */
	tab = memchr(l->name, '\t', (size_t)(nl - l->name));
	l->nlen = (size_t)((tab ? tab : nl) - l->name);
	l->mod = "";
	l->mlen = 0;
	if (tab && tab + 2 < nl && tab[1] == '[' && nl[-1] == ']') {
		l->mod = tab + 2;
		l->mlen = (size_t)(nl - 1 - l->mod);
	}
	return true;
}

/* kallsyms whole, parsed by hand: read with fgets and sscanf line by line
 * it was 62 % of `doctor do_sys_openat2 no_such_fn`'s 1,153M instructions
 * (callgrind; 121,867 lines, Linux 6.18 host), 357 ms of CPU (perf stat -r
 * 5) and 6.0 s under valgrind; now 123M, 170 ms and 2.3 s. NULL and err
 * set if it cannot be read. */
static char *kallsyms(size_t *len, struct nop_error *err)
{
	return nop_read_file(nop_kallsyms_path, len, err);
}

/* Is sym (len bytes) a clone of name: name followed by ".something"? */
static bool clone_of(const char *sym, size_t len, const char *name, size_t nlen)
{
	return len > nlen + 1 && !memcmp(sym, name, nlen) && sym[nlen] == '.';
}

int nop_ksym_lookup(const char *name, struct nop_ksym *out, struct nop_error *err)
{
	size_t nlen = strlen(name), len;
	char *text;
	const char *p, *end;
	struct nop_kline l;

	memset(out, 0, sizeof(*out));
	if (!(text = kallsyms(&len, err)))
		return -1;
	for (p = text, end = text + len; p < end;) {
		if (!nop_kallsyms_line(&p, end, &l) || !l.nlen || l.nlen > 511)
			continue;
		if (l.nlen == nlen && !memcmp(l.name, name, nlen) && !out->found) {
			out->found = true;
			out->addr = l.addr;
			out->type = l.type;
			snprintf(out->module, sizeof(out->module), "%.*s", (int)l.mlen, l.mod);
		} else if (clone_of(l.name, l.nlen, name, nlen) && out->nclones < NOP_KSYM_CLONES) {
			bool dup = false;

			for (int i = 0; i < out->nclones; i++)
				dup |= strlen(out->clones[i]) == l.nlen && !memcmp(out->clones[i], l.name, l.nlen);
			if (!dup)
				snprintf(out->clones[out->nclones++], sizeof(out->clones[0]), "%.*s",
					 (int)(l.nlen < 127 ? l.nlen : 127), l.name);
		}
	}
	free(text);
	return 0;
}

/* The text symbol at or below addr (within 1 MB), module symbols and
 * ftrace's own trampolines ("[__builtin__ftrace]") included. */
int nop_ksym_at(unsigned long long addr, char *name, size_t len, unsigned long long *off)
{
	size_t tlen;
	char *text = kallsyms(&tlen, NULL);
	unsigned long long best = 0;
	const char *p, *end;
	struct nop_kline l;

	*name = 0;
	for (p = text, end = text ? text + tlen : NULL; p && p < end;)
		if (nop_kallsyms_line(&p, end, &l) && l.nlen && l.nlen <= 511 && l.addr <= addr &&
		    l.addr >= best && addr - l.addr < (1ULL << 20) && nop_ksym_is_text(l.type)) {
			best = l.addr;
			snprintf(name, len, "%.*s", (int)l.nlen, l.name);
		}
	free(text);
	*off = addr - best;
	return *name ? 0 : -1;
}
