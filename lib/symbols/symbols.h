/* symbols/symbols.h - the symbols area of libnopctl: names of addresses:
 * kernel symbols, a binary's functions, source lines and types from DWARF.
 * Its header includes the one of the area before it (lib/README.md: the
 * order): a file sees its own area and those below, never one above. */
#ifndef NOPCTL_AREA_SYMBOLS_H
#define NOPCTL_AREA_SYMBOLS_H

#include "session/session.h"

/* a kernel symbol as kallsyms names it (nop_ksym_lookup) */
#define NOP_KSYM_CLONES 8
struct nop_ksym {
	bool found;
	unsigned long long addr; /* 0 when kptr_restrict hides it */
	char type;		 /* kallsyms type: t/T text */
	char module[64];	 /* "" for the core kernel */
	int nclones;		 /* name.isra.0, name.constprop.0, ... */
	char clones[NOP_KSYM_CLONES][128];
};

int nop_ksym_lookup(const char *name, struct nop_ksym *out, struct nop_error *err);

/* a C++ name demangled (malloc'd), NULL if it is not one (usyms.c) */
char *nop_demangle(const char *name);

/* a GCC .cold fragment (NAME.cold, NAME.cold.N): reached by a jump from
 * NAME, never called; its exits are NAME's */
bool nop_usym_fragment(const struct nop_usym *s);

/* Source files and lines from a binary's DWARF (srclines.c): where the
 * function at vaddr is defined, the line of an address; false without
 * debug info. Names stay valid until the srclines are freed. */
struct nop_srclines;

struct nop_srclines *nop_srclines_new(void);

bool nop_srclines_has(struct nop_srclines *sl, const char *path);

bool nop_srclines_decl(struct nop_srclines *sl, const char *path, unsigned long long vaddr,
		       const char **file, int *line);

bool nop_srclines_at(struct nop_srclines *sl, const char *path, unsigned long long vaddr,
		     const char **file, int *line);

/* the source file of the function at vaddr, as a path to open (its
 * compilation's directory prefixed to a relative name), and the line it
 * is declared at */
bool nop_srclines_source(struct nop_srclines *sl, const char *path, unsigned long long vaddr, char *file,
			 size_t len, int *line);

/* The return statements of a function's source text (srcreturns.c):
 * text, its body from the first '{' at or after line decl to the brace
 * that closes it. Of them, the lines whose expression can give value:
 * one with that constant (a number, -ERRNO by its name, NULL, nullptr
 * or 0 for a pointer), or one that computes (names a variable, calls);
 * one whose only constants are others cannot. Up to max lines into
 * lines, in order, each with how[i]: NOP_SRC_LITERAL, it names the value
 * as a constant; NOP_SRC_CALL, it calls a function (whose value it may
 * pass on); how many there were (0: none, or no body found). */
enum { NOP_SRC_LITERAL = 1, NOP_SRC_CALL = 2 };
size_t nop_src_returns(const char *text, int decl, long long value, bool pointer, int *lines, unsigned char *how,
		       size_t max);

/* a function's return type (its probe's address vaddr): NOP_RV_* (base.h) */

unsigned char nop_srclines_rettype(struct nop_srclines *sl, const char *path, unsigned long long vaddr);

/* the uprobe fetch arguments of a function's integer, pointer and
 * string parameters by their DWARF names (" a=%di:s32 s=+0(%si):string"),
 * in the ABI's registers, up to a parameter passed otherwise: how many,
 * -1 with no DWARF */
int nop_srclines_params(struct nop_srclines *sl, const char *path, unsigned long long vaddr, char *out,
			size_t len);

void nop_srclines_free(struct nop_srclines *sl);

int nop_ksym_at(unsigned long long addr, char *name, size_t len, unsigned long long *off);

/* one line of kallsyms text, "ADDR TYPE NAME[\t[MODULE]]": name and mod
 * point into the text (not terminated; mod "" for the core kernel) */
struct nop_kline {
	unsigned long long addr;
	char type;
	const char *name, *mod;
	size_t nlen, mlen;
};

/* the line at *p (text up to end) into *l, *p moved past it; false: a
 * line of another form, skipped (ksyms.c) */
bool nop_kallsyms_line(const char **p, const char *end, struct nop_kline *l);
/* The line at *p if it is surely no text symbol's (a 64-bit kernel's
 * address, a type nop_ksym_is_text refuses): skipped, *p past it as
 * nop_kallsyms_line would put it, true; else false, *p unchanged. Most
 * of the cost of reading kallsyms is in the lines then left out. */
bool nop_kallsyms_skip_other(const char **p, const char *end);

static inline bool nop_ksym_is_text(char type)
{
	return type == 't' || type == 'T' || type == 'w' || type == 'W';
}

#endif
