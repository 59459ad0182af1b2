/* callgraph_summary.c - the engine's short way for a summary (report
 * --stats of a capture it filters nothing of): a call whose entry and
 * exit come in its task's order is pushed, then popped and timed straight
 * into the table, with no item for either. Every other event (a lost
 * exit, an exit without its entry, 6.1's interrupt at a returning call's
 * depth, the first entry of a recording that may hold returns only, an
 * entry held back to find a leaf) takes the items' way, on the same
 * stacks: where the two ways meet they agree, since a summary counts an
 * entry only by its depth and a leaf as a call without callees. */
#include <errno.h>

#include "graph/callgraph.h"

void nop_graph_summarize(struct nop_graph *g, nop_gcall_fn fn, void *ctx)
{
	g->sum_fn = fn;
	g->sum_ctx = ctx;
}

_Static_assert(sizeof(struct nop_gcall) == 56, "cg_summary_feed sets every field of nop_gcall");
NOP_HOT bool cg_summary_feed(struct nop_graph *g, const struct nop_event *ev, int *ret)
{
	struct nop_gcall c;
	struct task *t;
	struct frame *f;

	/* an entry held back is shown by the items' way first; so are the
	 * returns a recording holds until its first entry (an entry or an
	 * exit: nop_graph_feed sends no other event here) */
	if (g->pending || g->holding)
		return false;
	if (!(t = cg_task(g, ev->pid))) {
		*ret = -ENOMEM;
		return true;
	}
	if (ev->type == NOP_EV_ENTRY) {
		/* one level deeper than the task's last open call, as graph_entry
		 * would keep every frame it has */
		if ((t->n && t->f[t->n - 1].kdepth >= ev->depth) || t->n == NOP_GRAPH_MAX_DEPTH ||
		    cg_task_room(t, t->n + 1))
			return false;
		cg_push(t, ev);
		*ret = 0;
		return true;
	}
	/* the return of the task's last open call, as cg_graph_exit finds it */
	if (!t->n || t->func[t->n - 1] != ev->ip || t->f[t->n - 1].kdepth != ev->depth)
		return false;
	f = &t->f[--t->n];
	/* each field set once; the off-CPU time where the frame keeps it,
	 * not copied (the frame's slot stays as it is until the next entry) */
	c.func = ev->ip;
	c.duration = cg_duration(ev->calltime, ev->rettime);
	c.self = cg_self(f, c.duration);
	c.off = t->off ? t->off[t->n].off : NULL;
	c.off_self = t->off ? t->off[t->n].self : NULL;
	c.retval = ev->retval;
	c.depth = t->n;
	c.has_retval = ev->has_retval;
	if (t->n)
		t->f[t->n - 1].child_ns += c.duration;
	*ret = g->sum_fn(g->sum_ctx, &c);
	return true;
}
