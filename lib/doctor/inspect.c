/* inspect.c - ftrace's patch site of one function: where it is, its first
 * bytes as the CPU sees them now, what they are (the 5-byte NOP of an idle
 * site, or a call into an ftrace trampoline), and its enabled_functions
 * record. x86-64. */
#include <stdlib.h>
#include <string.h>

#include "doctor/doctor.h"

static const unsigned char endbr64[4] = { 0xf3, 0x0f, 0x1e, 0xfa };
static const unsigned char nop5[5] = { 0x0f, 0x1f, 0x44, 0x00, 0x00 };
/* objtool "seals" an endbr64 no indirect call can reach: a 4-byte NOP */
static const unsigned char sealed[4] = { 0x66, 0x0f, 0x1f, 0x00 };

const char *nop_site_state_name(enum nop_site_state s)
{
	static const char *const names[] = { "nop", "call", "jmp", "int3", "other" };

	return names[s];
}

/* the patch site from available_filter_functions_addrs ("addr name [mod]"),
 * which kernels from 6.5 list; 0 where absent */
static unsigned long long listed_site(const char *tdir, const char *func)
{
	char path[4200], line[600];
	unsigned long long a, found = 0;
	FILE *f = fopen(nop_path(path, sizeof(path), tdir, "available_filter_functions_addrs"), "re");

	while (f && !found && fgets(line, sizeof(line), f)) {
		char name[512];

		if (sscanf(line, "%llx %511s", &a, name) == 2 && !strcmp(name, func))
			found = a;
	}
	if (f)
		fclose(f);
	return found;
}

static void enabled_record(const char *tdir, const char *func, char *out, size_t len)
{
	char path[4200], line[1024];
	size_t n = strlen(func);
	FILE *f = fopen(nop_path(path, sizeof(path), tdir, "enabled_functions"), "re");

	*out = 0;
	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, func, n) && (line[n] == ' ' || line[n] == '\t')) {
			snprintf(out, len, "%s", nop_trim(line));
			break;
		}
	if (f)
		fclose(f);
}

static void decode(struct nop_site *s)
{
	const unsigned char *p = s->bytes + (s->site - s->addr);
	int32_t rel;

	s->endbr = !memcmp(s->bytes, endbr64, 4);
	s->sealed = !memcmp(s->bytes, sealed, 4) && s->site == s->addr + 4;
	if (!memcmp(p, nop5, 5)) {
		s->state = NOP_SITE_NOP;
		return;
	}
	if (p[0] == 0xcc) {
		s->state = NOP_SITE_INT3; /* being patched right now */
		return;
	}
	if (p[0] != 0xe8 && p[0] != 0xe9) {
		s->state = NOP_SITE_OTHER;
		return;
	}
	s->state = p[0] == 0xe8 ? NOP_SITE_CALL : NOP_SITE_JMP;
	memcpy(&rel, p + 1, 4);
	s->target = s->site + 5 + (long long)rel;
	{
		char name[160], *t;
		unsigned long long off;

		if (nop_ksym_at(s->target, name, sizeof(name), &off) == 0)
			snprintf(s->target_sym, sizeof(s->target_sym), "%.120s+%#llx", name, off);
		/* a trampoline ftrace allocated for this function's ops, which
		 * enabled_functions names ("tramp: 0x...") */
		else if ((t = strstr(s->enabled, "tramp: ")) && strtoull(t + 7, NULL, 16) == s->target)
			snprintf(s->target_sym, sizeof(s->target_sym), "a dynamic ftrace trampoline");
	}
}

int nop_inspect(const char *tdir, const char *func, struct nop_site *s, struct nop_error *err)
{
	struct nop_ksym k;

	memset(s, 0, sizeof(*s));
	if (nop_pattern_check(func, err))
		return -1;
	if (nop_pattern_is_glob(func)) {
		nop_error_set(err, NOP_EUSAGE, 0, "inspect takes one function name, not a glob ('%s')",
			      func);
		return -1;
	}
	snprintf(s->func, sizeof(s->func), "%s", func);
	if (nop_ksym_lookup(func, &k, err))
		return -1;
	if (!k.found || !strchr("tTwW", k.type)) {
		nop_error_set(err, NOP_EUSAGE, 0, "'%s' is not a function in %s%s", func,
			      nop_kallsyms_path, k.found ? " (it is data)" : "");
		return -1;
	}
	if (!k.addr) {
		nop_error_set(err, NOP_EKERNEL, 0,
			      "%s hides addresses (kptr_restrict): run nopctl as root", nop_kallsyms_path);
		return -1;
	}
	s->addr = k.addr;
	snprintf(s->module, sizeof(s->module), "%s", k.module);
	if (nop_kcore_read(s->addr, s->bytes, sizeof(s->bytes), err))
		return -1;
	if ((s->site = listed_site(tdir, func))) {
		s->site_from = "available_filter_functions_addrs";
	} else {
		/* older kernels: the site is the first instruction, after an
		 * endbr64 where the kernel is built with IBT */
		s->site = s->addr + (memcmp(s->bytes, endbr64, 4) && memcmp(s->bytes, sealed, 4) ? 0 : 4);
		s->site_from = "kallsyms";
	}
	if (s->site < s->addr || s->site + 5 > s->addr + sizeof(s->bytes)) {
		nop_error_set(err, NOP_EKERNEL, 0, "%s's patch site %#llx is not at its start (%#llx)",
			      func, s->site, s->addr);
		return -1;
	}
	enabled_record(tdir, func, s->enabled, sizeof(s->enabled));
	decode(s);
	return 0;
}
