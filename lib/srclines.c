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

#include "internal.h"

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
