/* util.c - small helpers every part of libnopctl uses: growing arrays,
 * joining paths, trimming lines, reading list files, counting CPUs. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"

void *nop_zalloc(size_t size, struct nop_error *err)
{
	void *p = calloc(1, size);

	if (!p)
		nop_error_set(err, NOP_EINTERNAL, ENOMEM, "out of memory");
	return p;
}

int nop_grow(void **v, size_t *cap, size_t need, size_t sz)
{
	size_t ncap = *cap ? *cap : 16;
	void *nv;

	if (need <= *cap)
		return 0;
	while (ncap < need)
		ncap *= 2;
	nv = realloc(*v, ncap * sz);
	if (!nv)
		return -1;
	*v = nv;
	*cap = ncap;
	return 0;
}

char *nop_path(char *buf, size_t len, const char *dir, const char *rel)
{
	int n = snprintf(buf, len, "%s/%s", dir, rel);

	return n < 0 || (size_t)n >= len ? NULL : buf;
}

char *nop_trim(char *s)
{
	size_t n;

	while (*s == ' ' || *s == '\t' || *s == '\n')
		s++;
	n = strlen(s);
	while (n && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\n'))
		s[--n] = 0;
	return s;
}

bool nop_list_entry(const char *l)
{
	return *l && *l != '#' && strcmp(l, "no pid") != 0;
}

int nop_ncpus(void)
{
	long n = sysconf(_SC_NPROCESSORS_CONF);

	return n < 1 ? 1 : (int)n;
}
