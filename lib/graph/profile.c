/* profile.c - calls merged into a calling-context tree: one node per
 * distinct path of names from a root, children in the order first seen,
 * each keeping its calls' durations. A loop's thousand calls are one node
 * with a count, so two runs' trees line up path by path whatever the
 * number of iterations (nopctl diff). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "graph/graph.h"

struct nop_profile *nop_profile_new(void)
{
	struct nop_profile *p = calloc(1, sizeof(*p));

	if (!p)
		return NULL;
	if (!(p->names = nop_strmap_new(sizeof(const char *))) || nop_grow((void **)&p->node, &p->cap, 64, sizeof(*p->node))) {
		nop_profile_free(p);
		return NULL;
	}
	memset(&p->node[0], 0, sizeof(p->node[0]));
	p->node[0].name = "";
	p->nnodes = 1;
	return p;
}

static size_t slot_hash(size_t parent, const char *name)
{
	size_t h = parent * 0x9e3779b97f4a7c15ULL;

	/* names are interned: the pointer is the name */
	h ^= (size_t)(uintptr_t)name * 0xff51afd7ed558ccdULL;
	return h ^ (h >> 29);
}

static int slots_grow(struct nop_profile *p)
{
	size_t n = p->nslot ? p->nslot * 2 : 1024;
	__typeof__(p->slot) t = calloc(n, sizeof(*t));

	if (!t)
		return -1;
	for (size_t i = 0; i < p->nslot; i++) {
		size_t j = slot_hash(p->slot[i].parent, p->slot[i].name) & (n - 1);

		if (!p->slot[i].child)
			continue;
		while (t[j].child)
			j = (j + 1) & (n - 1);
		t[j] = p->slot[i];
	}
	free(p->slot);
	p->slot = t;
	p->nslot = n;
	return 0;
}

/* the profile's copy of name (its map's key), NULL if new and !add or
 * out of memory */
static const char *intern(struct nop_profile *p, const char *name, bool add)
{
	const char **v = add ? nop_strmap_get(p->names, name) : nop_strmap_find(p->names, name);

	if (v && !*v) /* new: the map appends it, its key is the copy */
		nop_strmap_at(p->names, nop_strmap_size(p->names) - 1, v);
	return v ? *v : NULL;
}

const char *nop_profile_name(struct nop_profile *p, const char *name)
{
	return intern(p, name, true);
}

size_t nop_profile_child(struct nop_profile *p, size_t parent, const char *name, bool add)
{
	const char *key = intern(p, name, add);
	struct nop_pnode *n;
	size_t i;

	if (!key || (!add && !p->nslot))
		return 0;
	if (add && (p->used + 1) * 2 > p->nslot && slots_grow(p))
		return 0;
	for (i = slot_hash(parent, key) & (p->nslot - 1); p->slot[i].child; i = (i + 1) & (p->nslot - 1))
		if (p->slot[i].parent == parent && p->slot[i].name == key)
			return p->slot[i].child;
	if (!add || nop_grow((void **)&p->node, &p->cap, p->nnodes + 1, sizeof(*p->node)))
		return 0;
	n = &p->node[p->nnodes];
	memset(n, 0, sizeof(*n));
	n->name = key;
	n->parent = parent;
	if (p->node[parent].last)
		p->node[p->node[parent].last].next = p->nnodes;
	else
		p->node[parent].first = p->nnodes;
	p->node[parent].last = p->nnodes;
	p->slot[i].parent = parent;
	p->slot[i].name = key;
	p->slot[i].child = p->nnodes;
	p->used++;
	return p->nnodes++;
}

/* a negative errno, as the kernel returns them */
static bool is_errno(long long v)
{
	return v < 0 && v >= -4095;
}

int nop_profile_add(struct nop_profile *p, size_t at, bool timed, unsigned long long duration,
		    unsigned long long self, bool has_retval, long long retval)
{
	struct nop_pnode *n = &p->node[at];

	n->calls++;
	if (timed) {
		size_t cap = n->cap;

		if (n->timed + 1 > cap) {
			cap = cap ? cap * 2 : 4;
			unsigned long long *d = realloc(n->dur, cap * sizeof(*d)), *s;

			if (!d)
				return -1;
			n->dur = d;
			if (!(s = realloc(n->selfs, cap * sizeof(*s))))
				return -1;
			n->selfs = s;
			n->cap = cap;
		}
		n->dur[n->timed] = duration;
		n->selfs[n->timed++] = self;
		n->total += duration;
		n->self += self;
	}
	if (has_retval && is_errno(retval)) {
		int k;

		n->errors++;
		for (k = 0; k < 4 && n->errn[k] && n->errv[k] != retval; k++)
			;
		if (k < 4) {
			n->errv[k] = retval;
			n->errn[k]++;
		}
	}
	return 0;
}

void nop_profile_free(struct nop_profile *p)
{
	if (!p)
		return;
	for (size_t i = 0; i < p->nnodes; i++) {
		free(p->node[i].dur);
		free(p->node[i].selfs);
	}
	free(p->node);
	free(p->slot);
	nop_strmap_free(p->names);
	free(p);
}
