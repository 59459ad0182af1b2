/* pidset.c - a set of pids kept sorted: the children a traced task was
 * seen to fork. Pids are handed out rising until they wrap, so an
 * insertion is at the end until then. */
#include <stdlib.h>
#include <string.h>

#include "base/base.h"

/* the first index whose pid is not below pid */
static size_t lower_bound(const struct nop_pidset *s, int pid)
{
	size_t lo = 0, hi = s->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (s->v[mid] < pid)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

bool nop_pidset_has(const struct nop_pidset *s, int pid)
{
	size_t i = lower_bound(s, pid);

	return i < s->n && s->v[i] == pid;
}

int nop_pidset_add(struct nop_pidset *s, int pid)
{
	size_t i = s->n && s->v[s->n - 1] < pid ? s->n : lower_bound(s, pid);

	if (i < s->n && s->v[i] == pid)
		return 0;
	if (s->n == s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 64;
		int *v = realloc(s->v, cap * sizeof(*v));

		if (!v)
			return -1;
		s->v = v;
		s->cap = cap;
	}
	memmove(s->v + i + 1, s->v + i, (s->n - i) * sizeof(*s->v));
	s->v[i] = pid;
	s->n++;
	return 0;
}

void nop_pidset_free(struct nop_pidset *s)
{
	free(s->v);
	*s = (struct nop_pidset){ 0 };
}
