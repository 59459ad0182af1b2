/* errfilter.c - --errors: which function failed, and from where. A
 * task's items are held from its tree's first call until the outermost
 * one ends; then only the calls that returned a negative errno, and the
 * calls they were made from, go on. A tree with no failure shows nothing.
 * catch: the same holding, then the whole tree goes on when its root (the
 * outermost call) lasted longer than slower_ns, failed (errors), was slower
 * than its function's running p99 (outliers.c), or was open when asked
 * (nop_errf_catch_now).
 */
#include <stdlib.h>
#include <string.h>

#include "pipeline/pipeline.h"

struct held_item {
	struct nop_gitem gi; /* path and args: owned copies */
	bool keep;
};

struct etask {
	int pid;
	struct held_item *v;
	size_t n, cap;
	bool over; /* catch: its tree outgrew MAX_HELD, items dropped */
	bool passing; /* caught while open: its items go on until its root ends */
};


/* catch: at most this many items held per task (a root call that runs
 * for hours would hold its whole life); a tree past it is not kept, and
 * if its root is caught, it is counted as not kept whole */
#define MAX_HELD (1u << 20)

struct nop_errf {
	struct etask *t;
	size_t n, cap, last;
	bool whole; /* catch */
	unsigned long long slower_ns;
	bool errors;
	unsigned long long roots, caught, not_whole;
	size_t max_held;
	struct nop_p99s *outliers; /* --outliers (outliers.c); NULL: not */
	unsigned long long warming; /* outliers: roots not judged, their function still warming up */
	bool now; /* catch the open trees at the next item */
	unsigned long long passing; /* tasks whose caught tree is still going on */
	nop_caught_fn on_catch;
	void *on_catch_ctx;
};

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

void nop_errf_limit(struct nop_errf *e, size_t max_held)
{
	e->max_held = max_held;
}

void nop_errf_counts(const struct nop_errf *e, unsigned long long *roots, unsigned long long *caught)
{
	*roots = e->roots;
	*caught = e->caught;
}

unsigned long long nop_errf_out_whole(const struct nop_errf *e)
{
	return e->caught - e->passing;
}

unsigned long long nop_errf_passing(const struct nop_errf *e)
{
	return e->passing;
}

unsigned long long nop_errf_not_whole(const struct nop_errf *e)
{
	return e->not_whole;
}

int nop_errf_outliers(struct nop_errf *e, unsigned long long warmup)
{
	nop_p99s_free(e->outliers);
	e->outliers = NULL;
	return warmup && !(e->outliers = nop_p99s_new(warmup)) ? -1 : 0;
}

unsigned long long nop_errf_warming(const struct nop_errf *e)
{
	return e->warming;
}

void nop_errf_on_catch(struct nop_errf *e, nop_caught_fn fn, void *ctx)
{
	e->on_catch = fn;
	e->on_catch_ctx = ctx;
}

void nop_errf_catch_now(struct nop_errf *e)
{
	e->now = true;
}

static void clear(struct etask *t)
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
		clear(&e->t[i]);
		free(e->t[i].v);
	}
	free(e->t);
	nop_p99s_free(e->outliers);
	free(e);
}

static struct etask *task(struct nop_errf *e, int pid)
{
	bool added;

	return nop_task_slot((void **)&e->t, &e->n, &e->cap, sizeof(*e->t), pid, &e->last, &added);
}

/* the calls in a task's held items: each one's ENTER or LEAF */
static size_t ncalls(const struct etask *t)
{
	size_t n = 0;

	for (size_t i = 0; i < t->n; i++)
		n += t->v[i].gi.kind == NOP_GI_ENTER || t->v[i].gi.kind == NOP_GI_LEAF;
	return n;
}

static bool failed(const struct nop_gitem *gi)
{
	return nop_gi_ends_call(gi) && gi->has_retval && nop_is_errno(gi->retval);
}

/* a caught tree: numbered, told of (its calls, and its first item's
 * stamp: an entry's is its event's, on the buffer's clock, where a
 * return's is function_graph's own rettime), then its items passed on */
static int pass_caught(struct nop_errf *e, const struct etask *t, struct nop_caught *c, nop_gitem_fn out,
		       void *ctx)
{
	int ret = 0;

	c->seq = ++e->caught;
	c->calls = ncalls(t);
	c->from = t->v[0].gi.ts;
	if (e->on_catch)
		ret = e->on_catch(e->on_catch_ctx, c);
	for (size_t i = 0; i < t->n && !ret; i++)
		ret = out(ctx, &t->v[i].gi);
	return ret;
}

/* catch: the tree is complete (its root's return last), or cut short
 * by the end of the capture (no return at depth 0: never caught) */
static int flush_whole(struct nop_errf *e, struct etask *t, nop_gitem_fn out, void *ctx)
{
	const struct nop_gitem *root = t->n ? &t->v[t->n - 1].gi : NULL;
	struct nop_caught c = { .why = NOP_CATCH_NONE, .root = root };
	unsigned long long p99 = 0;
	bool slow_too;
	int ret = 0;

	if (root && root->depth == 0 && nop_gi_ends_call(root)) {
		e->roots++;
		/* each root joins its function's durations, caught or not */
		slow_too = e->outliers && root->timed && root->func &&
			   nop_p99s_judge(e->outliers, root->func, root->duration, &p99, &e->warming);
		if (e->slower_ns && root->timed && root->duration > e->slower_ns) {
			c.why = NOP_CATCH_SLOWER;
			c.limit_ns = e->slower_ns;
		} else if (e->errors && failed(root)) {
			c.why = NOP_CATCH_ERROR;
		} else if (slow_too) {
			c.why = NOP_CATCH_OUTLIER;
			c.limit_ns = p99;
		}
	}
	/* a call whose entry or exit was lost inside it: not whole */
	for (size_t i = 0; i < t->n && c.why && !t->over; i++)
		t->over = t->v[i].gi.no_entry || (nop_gi_ends_call(&t->v[i].gi) && !t->v[i].gi.timed);
	if (c.why && t->over) {
		e->not_whole++;
		c.why = NOP_CATCH_NONE;
	}
	t->over = false;
	if (c.why)
		ret = pass_caught(e, t, &c, out, ctx);
	clear(t);
	return ret;
}

/* asked (a signal): every tree open now is caught, its items so far go
 * on, and the rest as they come, until its root ends */
static int catch_open(struct nop_errf *e, nop_gitem_fn out, void *ctx)
{
	int ret = 0;

	e->now = false;
	for (size_t k = 0; k < e->n && !ret; k++) {
		struct etask *t = &e->t[k];
		struct nop_caught c = { .why = NOP_CATCH_ASKED };

		if (!t->n || t->passing || t->over || t->v[0].gi.depth != 0)
			continue;
		c.root = &t->v[0].gi;
		ret = pass_caught(e, t, &c, out, ctx);
		clear(t);
		t->passing = true;
		e->passing++;
	}
	return ret;
}

/* the tree is complete: mark, then pass on what is kept */
static int flush(struct nop_errf *e, struct etask *t, nop_gitem_fn out, void *ctx)
{
	size_t *open, depth = 0;
	int ret = 0;

	if (e->whole)
		return flush_whole(e, t, out, ctx);
	if (!(open = malloc((t->n + 1) * sizeof(*open)))) {
		clear(t);
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
			if (failed(&h->gi))
				h->keep = t->v[o].keep = true;
		} else {
			h->keep = failed(&h->gi);
		}
		if (h->keep) /* and every call it was made from */
			for (size_t k = 0; k < depth; k++)
				t->v[open[k]].keep = true;
	}
	free(open);
	for (size_t i = 0; i < t->n && !ret; i++)
		if (t->v[i].keep)
			ret = out(ctx, &t->v[i].gi);
	clear(t);
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

int nop_errf_caught_open(struct nop_errf *e, nop_gitem_fn out, void *ctx)
{
	return e->now && e->whole ? catch_open(e, out, ctx) : 0;
}

int nop_errf_finish(struct nop_errf *e, nop_gitem_fn out, void *ctx)
{
	int ret = 0;

	for (size_t i = 0; i < e->n && !ret; i++)
		ret = flush(e, &e->t[i], out, ctx);
	return ret;
}
