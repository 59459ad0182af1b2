/* srclines.c - source files and lines of a binary's addresses, from its
 * DWARF debug info (elfutils libdw): where a function is defined, and the
 * line of a call site. One libdw handle per binary, opened at the first
 * question; a binary without debug info answers nothing. */
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "symbols/symbols.h"

struct dwbin {
	char *path;
	int fd;
	Dwarf *dw; /* NULL: no debug info */
};

struct nop_srclines {
	struct dwbin *v;
	size_t n, cap;
};

struct nop_srclines *nop_srclines_new(void)
{
	return calloc(1, sizeof(struct nop_srclines));
}

void nop_srclines_free(struct nop_srclines *sl)
{
	if (!sl)
		return;
	for (size_t i = 0; i < sl->n; i++) {
		if (sl->v[i].dw)
			dwarf_end(sl->v[i].dw);
		if (sl->v[i].fd >= 0)
			close(sl->v[i].fd);
		free(sl->v[i].path);
	}
	free(sl->v);
	free(sl);
}

static Dwarf *dwarf_of(struct nop_srclines *sl, const char *path)
{
	struct dwbin *b;

	for (size_t i = 0; i < sl->n; i++)
		if (!strcmp(sl->v[i].path, path))
			return sl->v[i].dw;
	if (nop_grow((void **)&sl->v, &sl->cap, sl->n + 1, sizeof(*sl->v)))
		return NULL;
	b = &sl->v[sl->n];
	if (!(b->path = strdup(path)))
		return NULL;
	sl->n++;
	b->fd = open(path, O_RDONLY | O_CLOEXEC);
	b->dw = b->fd >= 0 ? dwarf_begin(b->fd, DWARF_C_READ) : NULL;
	return b->dw;
}

bool nop_srclines_has(struct nop_srclines *sl, const char *path)
{
	return dwarf_of(sl, path) != NULL;
}

bool nop_srclines_at(struct nop_srclines *sl, const char *path, unsigned long long vaddr,
		     const char **file, int *line);

bool nop_srclines_decl(struct nop_srclines *sl, const char *path, unsigned long long vaddr,
		       const char **file, int *line)
{
	Dwarf *dw = dwarf_of(sl, path);
	Dwarf_Die cu, *scopes = NULL;
	int n;
	bool found = false;

	if (!dw || !dwarf_addrdie(dw, vaddr, &cu))
		return false;
	n = dwarf_getscopes(&cu, vaddr, &scopes);
	for (int i = 0; i < n && !found; i++)
		if (dwarf_tag(&scopes[i]) == DW_TAG_subprogram) {
			*file = dwarf_decl_file(&scopes[i]);
			found = *file && dwarf_decl_line(&scopes[i], line) == 0;
		}
	free(scopes);
	/* no declaration line (GCC gives a lambda's operator() and its _FUN
	 * none): the line its code begins at */
	return found || nop_srclines_at(sl, path, vaddr, file, line);
}

bool nop_srclines_source(struct nop_srclines *sl, const char *path, unsigned long long vaddr, char *file,
			 size_t len, int *line)
{
	Dwarf *dw = dwarf_of(sl, path);
	Dwarf_Die cu;
	Dwarf_Attribute a;
	const char *f, *dir;

	if (!dw || !dwarf_addrdie(dw, vaddr, &cu) || !nop_srclines_decl(sl, path, vaddr, &f, line))
		return false;
	/* a name relative to the compilation's directory (DW_AT_comp_dir) */
	dir = f[0] == '/' ? NULL : dwarf_formstring(dwarf_attr(&cu, DW_AT_comp_dir, &a));
	return (size_t)snprintf(file, len, "%s%s%s", dir ? dir : "", dir ? "/" : "", f) < len;
}

bool nop_srclines_at(struct nop_srclines *sl, const char *path, unsigned long long vaddr,
		     const char **file, int *line)
{
	Dwarf *dw = dwarf_of(sl, path);
	Dwarf_Die cu;
	Dwarf_Line *l;

	if (!dw || !dwarf_addrdie(dw, vaddr, &cu) || !(l = dwarf_getsrc_die(&cu, vaddr)))
		return false;
	*file = dwarf_linesrc(l, NULL, NULL);
	return *file && dwarf_lineno(l, line) == 0;
}

/* The type a function returns, from its DWARF subprogram: NOP_RV_VOID,
 * or its size in bytes with NOP_RV_SIGNED (a signed integer or char) or
 * NOP_RV_POINTER; 0 where the debug info does not say (no DWARF, a
 * struct or a floating-point value, which are not returned in the return register) */
unsigned char nop_srclines_rettype(struct nop_srclines *sl, const char *path, unsigned long long vaddr)
{
	Dwarf *dw = dwarf_of(sl, path);
	Dwarf_Die cu, *scopes = NULL, t;
	Dwarf_Attribute a;
	unsigned char rv = 0;
	int n;

	if (!dw || !dwarf_addrdie(dw, vaddr, &cu))
		return 0;
	n = dwarf_getscopes(&cu, vaddr, &scopes);
	for (int i = 0; i < n; i++) {
		if (dwarf_tag(&scopes[i]) != DW_TAG_subprogram)
			continue;
		if (!dwarf_attr_integrate(&scopes[i], DW_AT_type, &a)) {
			rv = NOP_RV_VOID;
			break;
		}
		if (!dwarf_formref_die(&a, &t))
			break;
		/* through typedefs and qualifiers to the type itself */
		for (int k = 0; k < 16; k++) {
			int tag = dwarf_tag(&t);

			if (tag != DW_TAG_typedef && tag != DW_TAG_const_type && tag != DW_TAG_volatile_type &&
			    tag != DW_TAG_restrict_type)
				break;
			if (!dwarf_attr_integrate(&t, DW_AT_type, &a) || !dwarf_formref_die(&a, &t)) {
				tag = -1;
				break;
			}
		}
		switch (dwarf_tag(&t)) {
		case DW_TAG_pointer_type:
		case DW_TAG_reference_type:
		case DW_TAG_rvalue_reference_type:
			rv = 8 | NOP_RV_POINTER;
			break;
		case DW_TAG_base_type:
		case DW_TAG_enumeration_type: {
			Dwarf_Word enc = DW_ATE_signed;
			int size = dwarf_bytesize(&t);

			if (dwarf_attr_integrate(&t, DW_AT_encoding, &a))
				dwarf_formudata(&a, &enc);
			if ((size == 1 || size == 2 || size == 4 || size == 8) && enc != DW_ATE_float)
				rv = (unsigned char)size | (enc == DW_ATE_signed || enc == DW_ATE_signed_char ? NOP_RV_SIGNED : 0);
			break;
		}
		}
		break;
	}
	free(scopes);
	return rv;
}

/* a parameter's type, through typedefs and qualifiers */
static bool param_type(Dwarf_Die *die, Dwarf_Die *t)
{
	Dwarf_Attribute a;

	if (!dwarf_attr_integrate(die, DW_AT_type, &a) || !dwarf_formref_die(&a, t))
		return false;
	for (int k = 0; k < 16; k++) {
		int tag = dwarf_tag(t);

		if (tag != DW_TAG_typedef && tag != DW_TAG_const_type && tag != DW_TAG_volatile_type &&
		    tag != DW_TAG_restrict_type)
			return true;
		if (!dwarf_attr_integrate(t, DW_AT_type, &a) || !dwarf_formref_die(&a, t))
			return false;
	}
	return false;
}

/* a char type: what a char * points at, shown as a string */
static bool is_char(Dwarf_Die *ptr)
{
	Dwarf_Die t;
	Dwarf_Attribute a;
	Dwarf_Word enc = 0;

	if (!param_type(ptr, &t) || dwarf_tag(&t) != DW_TAG_base_type || dwarf_bytesize(&t) != 1)
		return false;
	if (dwarf_attr_integrate(&t, DW_AT_encoding, &a))
		dwarf_formudata(&a, &enc);
	return enc == DW_ATE_signed_char || enc == DW_ATE_unsigned_char;
}

int nop_srclines_params(struct nop_srclines *sl, const char *path, unsigned long long vaddr, char *out,
			size_t len)
{
	const char *const *regs = nop_arch.arg_regs;
	Dwarf *dw = dwarf_of(sl, path);
	Dwarf_Die cu, *scopes = NULL, c, t;
	size_t off = 0, nreg = 0;
	int n, found = -1;

	out[0] = 0;
	if (!dw || !dwarf_addrdie(dw, vaddr, &cu))
		return -1;
	n = dwarf_getscopes(&cu, vaddr, &scopes);
	for (int i = 0; i < n && found < 0; i++)
		if (dwarf_tag(&scopes[i]) == DW_TAG_subprogram)
			found = i;
	if (found < 0 || dwarf_child(&scopes[found], &c) != 0) {
		free(scopes);
		return found < 0 ? -1 : 0;
	}
	do {
		const char *name = dwarf_diename(&c), *fetch = NULL;
		char type[8] = "x64", nm[40];
		Dwarf_Attribute a;
		Dwarf_Word enc = DW_ATE_signed;
		int size;

		if (dwarf_tag(&c) != DW_TAG_formal_parameter)
			continue;
		if (!param_type(&c, &t) || nreg >= nop_arch.narg_regs)
			break;
		switch (dwarf_tag(&t)) {
		case DW_TAG_pointer_type:
		case DW_TAG_reference_type:
		case DW_TAG_rvalue_reference_type:
			fetch = is_char(&t) ? "string" : "x64";
			break;
		case DW_TAG_base_type:
		case DW_TAG_enumeration_type:
			size = dwarf_bytesize(&t);
			if (dwarf_attr_integrate(&t, DW_AT_encoding, &a))
				dwarf_formudata(&a, &enc);
			if (enc == DW_ATE_float)
				continue; /* in an %xmm register: no integer register used */
			if (size != 1 && size != 2 && size != 4 && size != 8)
				break;
			snprintf(type, sizeof(type), "%c%d", enc == DW_ATE_signed || enc == DW_ATE_signed_char ? 's' : 'u',
				 size * 8);
			fetch = type;
			break;
		}
		if (!fetch)
			break; /* a struct by value: where the rest go is not followed */
		/* a name the fetch syntax takes and nopctl's own do not use */
		snprintf(nm, sizeof(nm), "%s%.30s", !name || !*name || !strcmp(name, "sp") || !strcmp(name, "caller") ||
			 !strcmp(name, "id") || !strncmp(name, "rv", 2) || !strncmp(name, "common_", 7) ? "arg_" : "",
			 name && *name ? name : "");
		if (!name || !*name)
			snprintf(nm, sizeof(nm), "arg%zu", nreg + 1);
		for (char *q = nm; *q; q++)
			if (!((*q >= 'a' && *q <= 'z') || (*q >= 'A' && *q <= 'Z') || (*q >= '0' && *q <= '9') || *q == '_'))
				*q = '_';
		if (!strcmp(fetch, "string"))
			off += (size_t)snprintf(out + off, off < len ? len - off : 0, " %s=+0(%s):string", nm, regs[nreg]);
		else
			off += (size_t)snprintf(out + off, off < len ? len - off : 0, " %s=%s:%s", nm, regs[nreg], fetch);
		nreg++;
	} while (dwarf_siblingof(&c, &c) == 0);
	free(scopes);
	if (off >= len) {
		out[0] = 0;
		return -1;
	}
	return (int)nreg;
}
