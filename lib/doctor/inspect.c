/* inspect.c - ftrace's patch site of one function: where it is, its first
 * bytes as the CPU sees them now, what they are (the NOP of an idle site,
 * or a call into an ftrace trampoline), and its enabled_functions record.
 * The machine's instructions are arch.h's. */
#include <stdlib.h>
#include <string.h>

#include "doctor/doctor.h"

const char *nop_site_state_name(enum nop_site_state s)
{
	static const char *const names[] = { "nop", "call", "jmp", "int3", "other", "brk" };

	return names[s];
}

const char *nop_site_meaning(enum nop_site_state s)
{
	switch (s) {
	case NOP_SITE_NOP:
		return nop_arch.site_idle;
	case NOP_SITE_CALL:
		return "a call into ftrace: something traces it";
	case NOP_SITE_JMP:
		return "a jump (a livepatch or a direct trampoline)";
	case NOP_SITE_INT3:
		return "int3: ftrace is patching it right now";
	case NOP_SITE_BRK:
		return "brk: a breakpoint in the call site (a kprobe on the function's entry)";
	default:
		return "not an ftrace site";
	}
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
			/* 6.x parts a record's fields with tabs ("\ttramp: ...",
			 * "\tops: ..."): one line, shown as the kernel spaces it */
			for (char *t = line; (t = strchr(t, '\t')); )
				*t = ' ';
			snprintf(out, len, "%s", nop_trim(line));
			break;
		}
	if (f)
		fclose(f);
}

/* the site decoded (arch.h), and a call's target named */
static void decode(struct nop_site *s)
{
	char name[160], *t;
	unsigned long long off;

	nop_arch_patch_site(s);
	if (s->state != NOP_SITE_CALL && s->state != NOP_SITE_JMP)
		return;
	if (nop_ksym_at(s->target, name, sizeof(name), &off) == 0)
		snprintf(s->target_sym, sizeof(s->target_sym), "%.120s+%#llx", name, off);
	/* a trampoline ftrace allocated for this function's ops, which
	 * enabled_functions names ("tramp: 0x...") */
	else if ((t = strstr(s->enabled, "tramp: ")) && strtoull(t + 7, NULL, 16) == s->target)
		snprintf(s->target_sym, sizeof(s->target_sym), "a dynamic ftrace trampoline");
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
		/* older kernels: where the machine's functions have it */
		s->site = s->addr + nop_arch_site_offset(s->bytes);
		s->site_from = "kallsyms";
	}
	if (s->site < s->addr || s->site + nop_arch.site_len > s->addr + sizeof(s->bytes)) {
		nop_error_set(err, NOP_EKERNEL, 0, "%s's patch site %#llx is not at its start (%#llx)",
			      func, s->site, s->addr);
		return -1;
	}
	enabled_record(tdir, func, s->enabled, sizeof(s->enabled));
	decode(s);
	return 0;
}
