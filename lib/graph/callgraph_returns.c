/* callgraph_returns.c - call trees from returns alone. Under
 * tracing_thresh the kernel records only the returns of calls at or above
 * it (no entries), a caller's after its callees'; each return carries its
 * depth. They are held per task until the outermost call returns, then
 * shown caller first. A recording is checked for this by its events: its
 * returns are held until its first entry, which shows it is not such a
 * capture. */
#include <errno.h>
#include <stdlib.h>

#include "graph/callgraph.h"

void nop_graph_find_exits_only(struct nop_graph *g)
{
	g->find_exits_only = true;
	cg_holding(g);
}

bool nop_graph_returns_only(const struct nop_graph *g)
{
	return g->exits_only || g->returns_only;
}

void nop_graph_exits_only(struct nop_graph *g)
{
	g->exits_only = true;
	cg_holding(g);
}

/* The held returns h[lo..i] are call i and, before it, its callees at or
 * above the threshold (children return first): shown caller first, at
 * the depth the task's stack gives it. Its self time is what its known
 * callees leave; callees under the threshold are not recorded, and count
 * as its own (the summary says so). */
static int show_held(struct nop_graph *g, struct task *t, int lo, int i, nop_gitem_fn fn, void *ctx)
{
	const struct held *h = &t->held[i];
	unsigned long long d = cg_duration(h->calltime, h->rettime);
	struct nop_gitem gi = { .cpu = h->cpu, .func = h->func, .timed = true,
				.ts = cg_began(h->end, d), .duration = d, .retval = h->retval,
				.has_retval = h->has_retval };
	unsigned long long known = 0;
	int ret, top = 1 << 30, start = lo;

	if (lo == i || t->n >= NOP_GRAPH_MAX_DEPTH - 1) {
		gi.kind = NOP_GI_LEAF;
		gi.self = gi.duration;
		return cg_emit(g, t, &gi, t->n, fn, ctx);
	}
	if (cg_task_room(t, t->n + 1))
		return -ENOMEM;
	gi.kind = NOP_GI_ENTER;
	t->func[t->n] = h->func;
	t->f[t->n++] = (struct frame){ .entry_ts = gi.ts, .kdepth = h->kdepth, .cpu = h->cpu };
	if ((ret = cg_emit(g, t, &gi, t->n - 1, fn, ctx)))
		return ret;
	/* its direct callees: the shallowest returns in between */
	for (int k = lo; k < i; k++)
		if (t->held[k].kdepth < top)
			top = t->held[k].kdepth;
	for (int k = lo; k < i; k++)
		if (t->held[k].kdepth == top) {
			if ((ret = show_held(g, t, start, k, fn, ctx)))
				return ret;
			known += cg_duration(t->held[k].calltime, t->held[k].rettime);
			start = k + 1;
		}
	gi.kind = NOP_GI_RETURN;
	gi.ts = h->end;
	gi.self = gi.duration > known ? gi.duration - known : 0;
	t->n--;
	return cg_emit(g, t, &gi, t->n, fn, ctx);
}

/* every held return, as trees: a return that no later one is shallower
 * than has no caller held (the caller returns after it), so it is one
 * tree's outermost call, its callees the returns before it */
int cg_show_all_held(struct nop_graph *g, struct task *t, nop_gitem_fn fn, void *ctx)
{
	int ret = 0, start = 0, low = 1 << 30;
	bool *outer;

	if (!t->nheld)
		return 0;
	if (!(outer = malloc((size_t)t->nheld)))
		return -ENOMEM;
	for (int k = t->nheld - 1; k >= 0; k--) {
		outer[k] = t->held[k].kdepth <= low;
		if (t->held[k].kdepth < low)
			low = t->held[k].kdepth;
	}
	for (int k = 0; k < t->nheld && !ret; k++)
		if (outer[k]) {
			ret = show_held(g, t, start, k, fn, ctx);
			start = k + 1;
		}
	free(outer);
	t->nheld = 0;
	return ret;
}

/* The first entry of a recording: what was held goes the way every exit
 * without entry goes, in the order it came, task by task */
int cg_replay_held(struct nop_graph *g, nop_gitem_fn fn, void *ctx)
{
	int ret = 0;

	g->seen_entry = true;
	cg_holding(g);
	for (size_t i = 0; i < g->cap && !ret; i++) {
		struct task *t = g->slots[i];

		for (int k = 0; t && k < t->nheld && !ret; k++) {
			const struct held *h = &t->held[k];
			struct nop_event ev = {
				.type = NOP_EV_EXIT, .pid = t->pid, .cpu = h->cpu, .ts = h->end,
				.ip = h->func, .depth = h->kdepth, .calltime = h->calltime,
				.rettime = h->rettime, .retval = h->retval, .has_retval = h->has_retval,
			};

			ret = cg_graph_exit(g, &ev, fn, ctx);
		}
		if (t)
			t->nheld = 0;
	}
	return ret;
}

int cg_held_exit(struct nop_graph *g, const struct nop_event *ev, nop_gitem_fn fn, void *ctx)
{
	struct task *t = cg_task(g, ev->pid);

	if (!t || nop_grow((void **)&t->held, &t->capheld, (size_t)t->nheld + 1, sizeof(*t->held)))
		return -ENOMEM;
	t->held[t->nheld++] = (struct held){
		.func = ev->ip, .end = ev->ts, .calltime = ev->calltime, .rettime = ev->rettime,
		.retval = ev->retval, .kdepth = ev->depth, .cpu = ev->cpu, .has_retval = ev->has_retval,
	};
	if (!g->exits_only)
		return 0; /* a recording, until its first entry or its end */
	/* the outermost call returned: its tree is complete */
	return ev->depth == 0 ? cg_show_all_held(g, t, fn, ctx) : 0;
}

