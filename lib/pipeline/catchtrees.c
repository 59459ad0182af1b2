/* catchtrees.c - catch's judging of a held tree (errfilter.c holds it):
 * the whole tree goes on when its root (the outermost call) lasted
 * longer than slower_ns, failed (errors), was slower than its function's
 * running p99 (outliers.c), or was open when asked (nop_errf_catch_now);
 * otherwise nothing of it. A tree with a call whose entry or exit was
 * lost inside it is not whole, and counted so.
 */
#include "pipeline/held.h"

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

/* the calls in a task's held items: each one's ENTER or LEAF */
static size_t ncalls(const struct etask *t)
{
	size_t n = 0;

	for (size_t i = 0; i < t->n; i++)
		n += t->v[i].gi.kind == NOP_GI_ENTER || t->v[i].gi.kind == NOP_GI_LEAF;
	return n;
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
int nop_catch_flush(struct nop_errf *e, struct etask *t, nop_gitem_fn out, void *ctx)
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
		} else if (e->errors && nop_held_failed(root)) {
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
	nop_held_clear(t);
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
		nop_held_clear(t);
		t->passing = true;
		e->passing++;
	}
	return ret;
}

int nop_errf_caught_open(struct nop_errf *e, nop_gitem_fn out, void *ctx)
{
	return e->now && e->whole ? catch_open(e, out, ctx) : 0;
}
