/* addrset.c - a set of nonzero 64-bit values: an open-addressing table,
 * kept at most half full, grown by doubling (0 marks an empty slot). */
#include <stdlib.h>
#include <string.h>

#include "base/base.h"

/* a's slot in a table of cap (a power of 2): where it is, or the empty
 * one (0) where it goes */
static unsigned long long *addr_slot(unsigned long long *v, size_t cap, unsigned long long a)
{
	size_t i = (a * 0x9e3779b97f4a7c15ULL >> 20) & (cap - 1);

	while (v[i] && v[i] != a)
		i = (i + 1) & (cap - 1);
	return &v[i];
}

int nop_addrset_add(struct nop_addrset *s, unsigned long long a)
{
	unsigned long long *p;

	if (!a)
		return 0;
	if ((s->n + 1) * 2 > s->cap) {
		size_t ncap = s->cap ? s->cap * 2 : 1024;
		unsigned long long *nv = calloc(ncap, sizeof(*nv));

		if (!nv) {
			s->failed = true;
			return -1;
		}
		for (size_t k = 0; k < s->cap; k++)
			if (s->v[k])
				*addr_slot(nv, ncap, s->v[k]) = s->v[k];
		free(s->v);
		s->v = nv;
		s->cap = ncap;
	}
	if (!*(p = addr_slot(s->v, s->cap, a))) {
		*p = a;
		s->n++;
	}
	return 0;
}

bool nop_addrset_has(const struct nop_addrset *s, unsigned long long a)
{
	return a && s->cap && *addr_slot(s->v, s->cap, a) == a;
}

void nop_addrset_free(struct nop_addrset *s)
{
	free(s->v);
	memset(s, 0, sizeof(*s));
}
