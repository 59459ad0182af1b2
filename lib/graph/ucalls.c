/* ucalls.c - user functions' entries and exits (uprobes) to what the
 * call-graph engine (callgraph.c) reads: a depth and, for an exit, when its call began.
 * The kernel gives neither (function_graph does): each task's open calls
 * are kept here, each with the stack pointer of its entry (an exit's is
 * 8 above it on every machine: events.h). An exit closes the open call at its stack pointer;
 * matching by function alone put every return of an 80-deep recursion on
 * the wrong call. A call still open below the stack pointer of a later
 * entry or exit of its task was unwound (an exception, a longjmp): it is
 * closed there, timed to that moment and marked so.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "graph/graph.h"

struct utask {
	int pid;
	long root; /* with roots: the depth of the root call it is in; -1: none */
	/* a forked child of a task inside a root: all of it is inside one,
	 * its first calls at depth 0, and the calls it was made in (its
	 * parent's) return in it unseen, not counted */
	bool forked;
	size_t n, cap;
	/* args: its --args ("TEXT\0JSON\0", owned), shown with its entry or
	 * as a leaf at its exit: the decoder's buffer is the next entry's */
	struct { unsigned long long key, ts, sp; char *args; } *open;
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
	for (size_t i = 0; i < u->n; i++) {
		for (size_t k = 0; k < u->t[i].n; k++)
			free(u->t[i].open[k].args);
		free(u->t[i].open);
	}
	free(u->t);
	free(u);
}

static __attribute__((noinline)) struct utask *task_slot(struct nop_ucalls *u, int pid)
{
	bool added;
	struct utask *t = nop_task_slot((void **)&u->t, &u->n, &u->cap, sizeof(*u->t), pid, &u->last, &added);

	if (t && added)
		t->root = -1;
	return t;
}

/* pid's task: most often the last event's, found without a call */
static inline __attribute__((always_inline)) struct utask *task(struct nop_ucalls *u, int pid)
{
	return u->last < u->n && u->t[u->last].pid == pid ? &u->t[u->last] : task_slot(u, pid);
}

/* -D: as max_graph_depth does for the kernel's, N levels from the root */
static bool too_deep(const struct nop_ucalls *u, const struct nop_event *ev)
{
	return u->max_depth > 0 && ev->depth >= u->max_depth;
}

/* with roots: the depth in t's stack that its shown calls start at, or
 * -1 outside every root */
static long base(const struct utask *t)
{
	return t->root >= 0 ? t->root : t->forked ? 0 : -1;
}

/* open call i of t has ended at ts: to fn (unless outside every root or
 * too deep), and t's stack cut to i */
static int close_call(struct nop_ucalls *u, struct utask *t, size_t i, const struct nop_event *ev,
		      bool unwound, nop_ucall_fn fn, void *ctx)
{
	struct nop_event e = { .type = NOP_EV_EXIT, .cpu = ev->cpu, .pid = ev->pid, .ts = ev->ts,
			       .ip = t->open[i].key, .unwound = unwound, .calltime = t->open[i].ts,
			       .rettime = ev->ts, .usp = t->open[i].sp + 8 };

	bool outside = u->is_root && (base(t) < 0 || (long)i < base(t));
	int ret;

	/* its own exit's value (decode.c carries it in rettime) */
	if (ev->type == NOP_EV_EXIT && ev->has_retval && !unwound && t->open[i].key == ev->ip) {
		e.retval = (long long)ev->rettime;
		e.has_retval = true;
		e.rvtype = ev->rvtype;
	}
	if (ev->type == NOP_EV_EXIT && !unwound && t->open[i].key == ev->ip)
		e.usite = ev->usite;
	/* calls above it that end unseen with it (an exit matched by function
	 * alone): their --args go */
	for (size_t k = i + 1; k < t->n; k++) {
		free(t->open[k].args);
		t->open[k].args = NULL;
	}
	t->n = i;
	e.depth = (int)i - (u->is_root && base(t) >= 0 ? (int)base(t) : 0);
	if (u->is_root && (long)i == t->root)
		t->root = -1; /* the root returned */
	ret = outside || too_deep(u, &e) ? 0 : fn(ctx, &e);
	if (t->open[i].args) { /* --args only */
		free(t->open[i].args);
		t->open[i].args = NULL;
	}
	return ret;
}

/* an entry's --args, kept with its open call */
static char *args_dup(const char *a)
{
	size_t n = strlen(a) + 1;
	char *d;

	n += strlen(a + n) + 1;
	if ((d = malloc(n)))
		memcpy(d, a, n);
	return d;
}

/* the calls open at a stack pointer below sp: an exception or a longjmp
 * took their frames (a live call's callees run below its entry's stack
 * pointer, and a call ends by popping its return address) */
static int unwind_below(struct nop_ucalls *u, struct utask *t, unsigned long long sp,
			const struct nop_event *ev, nop_ucall_fn fn, void *ctx)
{
	int ret = 0;

	while (!ret && t->n && t->open[t->n - 1].sp < sp)
		ret = close_call(u, t, t->n - 1, ev, true, fn, ctx);
	return ret;
}

/* With roots (graph ./app:main), only calls inside a root call are
 * shown, the root at depth 0: what set_graph_function does for the
 * kernel's functions. */
int nop_ucalls_place(struct nop_ucalls *u, const struct nop_event *ev, nop_ucall_fn fn, void *ctx)
{
	struct utask *t = task(u, ev->pid);
	unsigned long long sp = ev->usp ? ev->usp - (ev->type == NOP_EV_EXIT ? 8 : 0) : 0;
	size_t i;
	int ret;

	if (!t)
		return -ENOMEM;
	if (ev->type == NOP_EV_ENTRY) {
		struct nop_event e = *ev;

		/* a call at this stack pointer or below it has ended: by a
		 * jump here (a tail call nopctl could not see leave), or
		 * unwound */
		if (sp && (ret = unwind_below(u, t, sp + 1, ev, fn, ctx)))
			return ret;
		if (nop_grow((void **)&t->open, &t->cap, t->n + 1, sizeof(*t->open)))
			return -ENOMEM;
		t->open[t->n].key = ev->ip;
		t->open[t->n].ts = ev->ts;
		t->open[t->n].sp = sp;
		t->open[t->n].args = ev->args ? args_dup(ev->args) : NULL;
		e.args = t->open[t->n].args;
		if (u->is_root && base(t) < 0 && u->is_root(u->ctx, ev->ip))
			t->root = (long)t->n;
		e.depth = (int)t->n++ - (u->is_root ? (int)base(t) : 0);
		return (u->is_root && base(t) < 0) || too_deep(u, &e) ? 0 : fn(ctx, &e);
	}
	if (!sp) { /* no stack pointer (a probe without it): the newest call */
		for (i = t->n; i > 0 && t->open[i - 1].key != ev->ip; i--)
			;
		if (i)
			return close_call(u, t, i - 1, ev, false, fn, ctx);
	} else {
		if ((ret = unwind_below(u, t, sp, ev, fn, ctx)))
			return ret;
		/* the call at this stack pointer returns, and any that reached
		 * it by a jump (an indirect tail call) with it */
		for (i = t->n; i > 0 && t->open[i - 1].sp == sp; i--)
			;
		if (i < t->n) {
			for (ret = 0; !ret && t->n > i;)
				ret = close_call(u, t, t->n - 1, ev, false, fn, ctx);
			return ret;
		}
	}
	/* its entry came before the probes (a -p task inside it) */
	u->unmatched += (!u->is_root || base(t) >= 0) && !t->forked;
	return 0;
}

int nop_ucalls_process(struct nop_ucalls *u, const struct nop_event *ev, nop_ucall_fn fn, void *ctx)
{
	struct utask *t = task(u, ev->pid), *c;
	bool inside;
	int ret = 0;

	if (!t)
		return -ENOMEM;
	if (ev->type == NOP_EV_EXEC) {
		/* the image and its calls are gone: a new one starts */
		while (!ret && t->n)
			ret = close_call(u, t, t->n - 1, ev, true, fn, ctx);
		t->root = -1;
		t->forked = false;
		return ret;
	}
	if (ev->type != NOP_EV_FORK || ev->thread)
		return 0; /* a thread starts on a stack of its own, in no call */
	inside = base(t) >= 0 || !u->is_root;
	if (!(c = task(u, ev->child)))
		return -ENOMEM;
	while (c->n) /* a slot of an earlier task of that pid */
		free(c->open[--c->n].args);
	c->root = -1;
	c->forked = inside;
	return 0;
}

unsigned long long nop_ucalls_unmatched(const struct nop_ucalls *u)
{
	return u ? u->unmatched : 0;
}
