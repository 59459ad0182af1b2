/* ksyms.c - /proc/kallsyms by name: where a function is, and the
 * compiler's clones of it (name.isra.0, name.constprop.0, name.part.0,
 * name.cold) that ftrace lists under their own names. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

const char *nop_kallsyms_path = "/proc/kallsyms";

/* Is sym a clone of name: name followed by ".something"? */
static bool clone_of(const char *sym, const char *name, size_t nlen)
{
	return !strncmp(sym, name, nlen) && sym[nlen] == '.' && sym[nlen + 1];
}

int nop_ksym_lookup(const char *name, struct nop_ksym *out, struct nop_error *err)
{
	FILE *f = fopen(nop_kallsyms_path, "re");
	size_t nlen = strlen(name);
	char line[1024];

	memset(out, 0, sizeof(*out));
	if (!f) {
		nop_error_io(err, "read", nop_kallsyms_path, errno);
		return -1;
	}
	while (fgets(line, sizeof(line), f)) {
		unsigned long long addr;
		char type, sym[512], mod[256] = "";

		if (sscanf(line, "%llx %c %511s [%255[^]]]", &addr, &type, sym, mod) < 3)
			continue;
		if (!strcmp(sym, name) && !out->found) {
			out->found = true;
			out->addr = addr;
			out->type = type;
			snprintf(out->module, sizeof(out->module), "%s", mod);
		} else if (clone_of(sym, name, nlen) && out->nclones < NOP_KSYM_CLONES) {
			bool dup = false;

			for (int i = 0; i < out->nclones; i++)
				dup |= !strcmp(out->clones[i], sym);
			if (!dup)
				snprintf(out->clones[out->nclones++], sizeof(out->clones[0]), "%.127s", sym);
		}
	}
	fclose(f);
	return 0;
}

/* The text symbol at or below addr (within 1 MB), module symbols and
 * ftrace's own trampolines ("[__builtin__ftrace]") included. */
int nop_ksym_at(unsigned long long addr, char *name, size_t len, unsigned long long *off)
{
	FILE *f = fopen(nop_kallsyms_path, "re");
	unsigned long long best = 0;
	char line[1024];

	*name = 0;
	while (f && fgets(line, sizeof(line), f)) {
		unsigned long long a;
		char type, sym[512];

		if (sscanf(line, "%llx %c %511s", &a, &type, sym) == 3 && a <= addr && a >= best &&
		    addr - a < (1ULL << 20) && strchr("tTwW", type)) {
			best = a;
			snprintf(name, len, "%s", sym);
		}
	}
	if (f)
		fclose(f);
	*off = addr - best;
	return *name ? 0 : -1;
}
