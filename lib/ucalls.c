/* ucalls.c - user functions' entries and returns (uprobes, uretprobes)
 * to what the call-graph engine reads: a depth and, for a return, when
 * its call began. The kernel gives neither (function_graph does): each
 * task's open calls are kept here. A return closes the open call whose
 * entry's stack pointer it follows (8 bytes above: the return address
 * popped), else the newest open call of its function; calls opened after
 * it lost their returns (the kernel probes at most 64 nested returns per
 * task, and a longjmp or an exception unwinds past them) and the engine
 * closes them untimed. Matching by function alone put every return of an
 * 80-deep recursion on the wrong call (the outermost 18 had no return
 * probe, found in a test).
 */
#include <errno.h>
#include <stdlib.h>

#include "internal.h"

struct utask {
	int pid;
	long root; /* with roots: the depth of the root call it is in; -1: none */
	size_t n, cap;
	struct { unsigned long long key, ts, sp; } *open;
};

struct nop_ucalls {
	struct utask *t;
	size_t n, cap;
	size_t last;
	unsigned long long unmatched;
	nop_uroot_fn is_root;
	void *ctx;
	int max_depth; /* calls at this depth or deeper left out (0: none) */
};

void nop_ucalls_max_depth(struct nop_ucalls *u, int depth)
{
	u->max_depth = depth;
}

struct nop_ucalls *nop_ucalls_new(nop_uroot_fn is_root, void *ctx)
{
	struct nop_ucalls *u = calloc(1, sizeof(struct nop_ucalls));

	if (u) {
		u->is_root = is_root;
		u->ctx = ctx;
	}
	return u;
}

void nop_ucalls_free(struct nop_ucalls *u)
{
	if (!u)
		return;
	for (size_t i = 0; i < u->n; i++)
		free(u->t[i].open);
	free(u->t);
	free(u);
}

static struct utask *task(struct nop_ucalls *u, int pid)
{
	bool added;
	struct utask *t = nop_task_slot((void **)&u->t, &u->n, &u->cap, sizeof(*u->t), pid, &u->last, &added);

	if (t && added)
		t->root = -1;
	return t;
}

/* -D: as max_graph_depth does for the kernel's, N levels from the root */
static bool too_deep(const struct nop_ucalls *u, const struct nop_event *ev)
{
	return u->max_depth > 0 && ev->depth >= u->max_depth;
}

/* With roots (graph ./app:main), only calls inside a root call are
 * shown, the root at depth 0: what set_graph_function does for the
 * kernel's functions. */
int nop_ucalls_place(struct nop_ucalls *u, struct nop_event *ev)
{
	struct utask *t = task(u, ev->pid);
	size_t i;

	if (!t)
		return -ENOMEM;
	if (ev->type == NOP_EV_ENTRY) {
		if (nop_grow((void **)&t->open, &t->cap, t->n + 1, sizeof(*t->open)))
			return -ENOMEM;
		t->open[t->n].key = ev->ip;
		t->open[t->n].ts = ev->ts;
		t->open[t->n].sp = ev->usp;
		if (u->is_root && t->root < 0 && u->is_root(u->ctx, ev->ip))
			t->root = (long)t->n;
		ev->depth = (int)t->n++ - (u->is_root ? (int)t->root : 0);
		return (u->is_root && t->root < 0) || too_deep(u, ev);
	}
	for (i = t->n; ev->usp && i > 0 && !(t->open[i - 1].key == ev->ip && t->open[i - 1].sp + 8 == ev->usp); i--)
		;
	if (!ev->usp) /* no stack pointer (a probe without it): the newest call */
		for (i = t->n; i > 0 && t->open[i - 1].key != ev->ip; i--)
			;
	if (!i) {
		/* its entry came before the probes (a -p task inside it) */
		u->unmatched += !u->is_root || t->root >= 0;
		return 1;
	}
	t->n = i - 1;
	ev->calltime = t->open[t->n].ts;
	ev->rettime = ev->ts;
	if (!u->is_root)
		ev->depth = (int)t->n;
	else if (t->root < 0 || (long)t->n < t->root)
		return 1; /* outside every root */
	else
		ev->depth = (int)(t->n - (size_t)t->root);
	if (u->is_root && (long)t->n == t->root)
		t->root = -1; /* the root returned */
	return too_deep(u, ev);
}

unsigned long long nop_ucalls_unmatched(const struct nop_ucalls *u)
{
	return u ? u->unmatched : 0;
}
