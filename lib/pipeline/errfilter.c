/* errfilter.c - --errors: which function failed, and from where. A
 * task's items are held from its tree's first call until the outermost
 * one ends; then only the calls that returned a negative errno, and the
 * calls they were made from, go on. A tree with no failure shows nothing.
 * why: only the calls from a failed root down to where its error began.
 * catch holds the same way and judges the tree whole (catchtrees.c).
 */
#include <stdlib.h>
#include <string.h>

#include "pipeline/held.h"

struct nop_errf *nop_errf_new(bool whole, unsigned long long slower_ns, bool errors)
{
	struct nop_errf *e = calloc(1, sizeof(struct nop_errf));

	if (e) {
		e->whole = whole;
		e->slower_ns = slower_ns;
		e->errors = errors;
		e->max_held = MAX_HELD;
	}
	return e;
}

void nop_errf_why(struct nop_errf *e)
{
	e->why = true;
	e->errors = true;
}

void nop_held_clear(struct etask *t)
{
	for (size_t i = 0; i < t->n; i++) {
		free((void *)t->v[i].gi.path);
		free((void *)t->v[i].gi.args);
	}
	t->n = 0;
}

void nop_errf_free(struct nop_errf *e)
{
	if (!e)
		return;
	for (size_t i = 0; i < e->n; i++) {
		nop_held_clear(&e->t[i]);
		free(e->t[i].v);
	}
	free(e->t);
	free(e->chain);
	nop_p99s_free(e->outliers);
	free(e);
}

static struct etask *task(struct nop_errf *e, int pid)
{
	bool added;

	return nop_task_slot((void **)&e->t, &e->n, &e->cap, sizeof(*e->t), pid, &e->last, &added);
}

bool nop_held_failed(const struct nop_gitem *gi)
{
	return nop_gi_ends_call(gi) && gi->has_retval && nop_is_errno(gi->retval);
}

/* why: a call's value is a failure: a user function's by its type (a
 * NULL pointer, a negative signed number), a kernel function's (or one
 * of no known type) a negative errno; an unwound call returned nothing */
static bool why_failed(void *ctx, const struct nop_gitem *g)
{
	(void)ctx;
	if (!g->has_retval || g->unwound)
		return false;
	if (g->rvtype & NOP_RV_POINTER)
		return g->retval == 0;
	if (g->rvtype)
		return (g->rvtype & NOP_RV_SIGNED) && g->retval < 0;
	return nop_is_errno(g->retval);
}

/* why: a kernel function called by the call at l returned no value nopctl
 * saw (only the functions named get return probes) */
static bool unknown_below(const struct etask *t, const struct nop_origin_link *l)
{
	for (size_t i = l->start + 1; i < l->end; i++) {
		const struct nop_gitem *g = &t->v[i].gi;

		if (g->depth == t->v[l->start].gi.depth + 1 && nop_gi_ends_call(g) && !g->has_retval &&
		    (g->func & NOP_UKEY_MASK) != NOP_UKEY)
			return true;
	}
	return false;
}

/* why: a failed tree's chain, its items in their order, then its origin */
static int why_flush(struct nop_errf *e, struct etask *t, nop_gitem_fn out, void *ctx)
{
	size_t n = 0;
	unsigned long long *path = NULL;
	int ret = 0, found;

	if (nop_grow((void **)&e->chain, &e->chain_cap, t->n, sizeof(*e->chain))) {
		nop_held_clear(t);
		return -1;
	}
	found = nop_origin_find(t->v, t->n, sizeof(*t->v), why_failed, NULL, e->chain, &n);
	if (found > 0 && !(path = malloc(n * sizeof(*path))))
		found = -1;
	for (size_t i = 0; found > 0 && i < n && !ret; i++) /* down to it */
		ret = out(ctx, &t->v[e->chain[i].start].gi);
	for (size_t i = n; found > 0 && i-- > 0 && !ret;) { /* and back up */
		path[i] = t->v[e->chain[i].start].gi.func;
		if (e->chain[i].end != e->chain[i].start)
			ret = out(ctx, &t->v[e->chain[i].end].gi);
	}
	if (found > 0 && !ret) {
		struct nop_gitem o = t->v[e->chain[n - 1].end].gi;

		o.kind = NOP_GI_ORIGIN;
		o.maybe_below = unknown_below(t, &e->chain[n - 1]);
		o.depth = 0;
		o.path = path;
		o.npath = (int)n;
		o.args = NULL;
		ret = out(ctx, &o);
	}
	free(path);
	nop_held_clear(t);
	return found < 0 ? -1 : ret;
}

/* the tree is complete: mark, then pass on what is kept */
static int flush(struct nop_errf *e, struct etask *t, nop_gitem_fn out, void *ctx)
{
	size_t *open, depth = 0;
	int ret = 0;

	if (e->whole)
		return nop_catch_flush(e, t, out, ctx);
	if (e->why)
		return why_flush(e, t, out, ctx);
	if (!(open = malloc((t->n + 1) * sizeof(*open)))) {
		nop_held_clear(t);
		return -1;
	}
	for (size_t i = 0; i < t->n; i++) {
		struct held_item *h = &t->v[i];

		if (h->gi.kind == NOP_GI_ENTER) {
			open[depth++] = i;
			continue;
		}
		if (h->gi.kind == NOP_GI_RETURN && depth) {
			size_t o = open[--depth];

			h->keep = t->v[o].keep;
			if (nop_held_failed(&h->gi))
				h->keep = t->v[o].keep = true;
		} else {
			h->keep = nop_held_failed(&h->gi);
		}
		if (h->keep) /* and every call it was made from */
			for (size_t k = 0; k < depth; k++)
				t->v[open[k]].keep = true;
	}
	free(open);
	for (size_t i = 0; i < t->n && !ret; i++)
		if (t->v[i].keep)
			ret = out(ctx, &t->v[i].gi);
	nop_held_clear(t);
	return ret;
}

static const char *dup_args(const char *a)
{
	size_t n;
	char *c;

	if (!a)
		return NULL;
	n = nop_args_size(a);
	if ((c = malloc(n)))
		memcpy(c, a, n);
	return c;
}

int nop_errf_item(struct nop_errf *e, const struct nop_gitem *gi, nop_gitem_fn out, void *ctx)
{
	struct held_item *h;
	unsigned long long *path;
	bool root_end = gi->depth == 0 && nop_gi_ends_call(gi);
	struct etask *t = task(e, gi->pid);

	if (t && t->passing) { /* caught while open: counted a root at its end */
		if (root_end) {
			t->passing = false;
			e->passing--;
			e->roots++;
		}
		return out(ctx, gi);
	}
	if (gi->kind == NOP_GI_EVENT && (!gi->depth || !e->whole))
		return 0; /* outside any tree; --errors shows failed calls alone */
	if (t && e->whole && t->n >= e->max_held && !root_end) {
		t->over = true; /* the root's return alone is kept, to judge it */
		return 0;
	}
	if (!t || nop_grow((void **)&t->v, &t->cap, t->n + 1, sizeof(*t->v)) ||
	    !(path = malloc((size_t)(gi->npath ? gi->npath : 1) * sizeof(*path))))
		return -1;
	h = &t->v[t->n++];
	h->gi = *gi;
	h->keep = false;
	memcpy(path, gi->path, (size_t)gi->npath * sizeof(*path));
	h->gi.path = path;
	h->gi.args = dup_args(gi->args);
	/* the outermost call ended (or a call of no tree: a lone return) */
	if (root_end)
		return flush(e, t, out, ctx);
	return 0;
}

int nop_errf_finish(struct nop_errf *e, nop_gitem_fn out, void *ctx)
{
	int ret = 0;

	for (size_t i = 0; i < e->n && !ret; i++)
		ret = flush(e, &e->t[i], out, ctx);
	return ret;
}
