/* callgraph.c - function_graph entry/exit events to calls.
 *
 * Each task has its own stack of open calls, so a task that migrates
 * between CPUs keeps one tree. An entry is held back one event: if the
 * task's next event is its exit, the call is a leaf. After lost events the
 * kernel's depth (in both events) puts the stack right: frames at or below
 * the depth of a new entry lost their exits; an exit that matches no open
 * frame had its entry before the capture or in the gap.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

struct frame {
	unsigned long long entry_ts, child_ns;
	int kdepth;
	int cpu; /* of the entry */
};

/* A task's stack grows as deep as its calls go: most tasks of a
 * system-wide graph stay shallow, and a fixed NOP_GRAPH_MAX_DEPTH stack
 * was 8.2 KB each (a 1.6 MB file naming 58,000 pids took 470 MB). */
#define FIRST_DEPTH 4

/* exits only (tracing_thresh): a return held until its caller's */
struct held {
	unsigned long long func, began, end, duration;
	unsigned long long calltime, rettime; /* as the kernel gave them */
	long long retval;
	int kdepth, cpu;
	bool has_retval;
};

struct task {
	int pid; /* 0: empty slot */
	int n, cap;
	struct held *held; /* exits only: returns in the order they came */
	int nheld, capheld;
	/* the open calls' functions, outermost first: a call's path as the
	 * sinks see it, never copied (cap + 1 slots: one more for an exit
	 * whose entry was not seen) */
	unsigned long long *func;
	struct frame *f;
};

/* room for need open calls (need <= NOP_GRAPH_MAX_DEPTH) */
static int task_room(struct task *t, int need)
{
	int cap = t->cap ? t->cap : FIRST_DEPTH;
	unsigned long long *func;
	struct frame *f;

	if (need <= t->cap)
		return 0;
	while (cap < need)
		cap *= 2;
	if (cap > NOP_GRAPH_MAX_DEPTH)
		cap = NOP_GRAPH_MAX_DEPTH;
	if (!(func = realloc(t->func, ((size_t)cap + 1) * sizeof(*func))))
		return -1;
	t->func = func;
	if (!(f = realloc(t->f, (size_t)cap * sizeof(*f))))
		return -1;
	t->f = f;
	t->cap = cap;
	return 0;
}

static void task_free(struct task *t)
{
	if (t) {
		free(t->held);
		free(t->func);
		free(t->f);
		free(t);
	}
}

struct nop_graph {
	struct task **slots; /* open addressing on pid */
	size_t cap, used;
	struct task *pending;	/* its top frame is an entry not yet shown */
	struct task *last;	/* the task of the last event: most often the next's */
	int pend_cpu; /* of the held entry */
	unsigned long long pend_ts, pend_ip;
	bool exits_only; /* tracing_thresh: no entries come */
	/* a recording: returns are held until the first entry shows it is
	 * not a tracing_thresh capture; if none ever comes, it was one */
	bool find_exits_only, seen_entry, returns_only;
};

void nop_graph_find_exits_only(struct nop_graph *g)
{
	g->find_exits_only = true;
}

bool nop_graph_returns_only(const struct nop_graph *g)
{
	return g->exits_only || g->returns_only;
}

void nop_graph_exits_only(struct nop_graph *g)
{
	g->exits_only = true;
}

struct nop_graph *nop_graph_new(struct nop_error *err)
{
	struct nop_graph *g = calloc(1, sizeof(*g));

	if (g && !(g->slots = calloc(g->cap = 64, sizeof(*g->slots)))) {
		free(g);
		g = NULL;
	}
	if (!g)
		nop_error_set(err, NOP_EINTERNAL, ENOMEM, "out of memory");
	return g;
}

void nop_graph_free(struct nop_graph *g)
{
	if (!g)
		return;
	for (size_t i = 0; i < g->cap; i++)
		task_free(g->slots[i]);
	free(g->slots);
	free(g);
}

static struct task **slot(struct task **slots, size_t cap, int pid)
{
	size_t i = ((unsigned)pid * 2654435761u) & (cap - 1);

	while (slots[i] && slots[i]->pid != pid)
		i = (i + 1) & (cap - 1);
	return &slots[i];
}

/* The task's stack: most often the last event's, checked inline. */
static struct task *task_lookup(struct nop_graph *g, int pid);

static inline struct task *task(struct nop_graph *g, int pid)
{
	return g->last && g->last->pid == pid ? g->last : task_lookup(g, pid);
}

static __attribute__((noinline)) struct task *task_lookup(struct nop_graph *g, int pid)
{
	struct task **t = slot(g->slots, g->cap, pid);

	if (*t)
		return g->last = *t;
	if ((g->used + 1) * 4 > g->cap * 3) {
		size_t ncap = g->cap * 2;
		struct task **ns = calloc(ncap, sizeof(*ns));

		if (!ns)
			return NULL;
		for (size_t i = 0; i < g->cap; i++)
			if (g->slots[i])
				*slot(ns, ncap, g->slots[i]->pid) = g->slots[i];
		free(g->slots);
		g->slots = ns;
		g->cap = ncap;
		t = slot(g->slots, g->cap, pid);
	}
	if (!(*t = calloc(1, sizeof(**t))) || task_room(*t, 1)) {
		task_free(*t);
		*t = NULL;
		return NULL;
	}
	(*t)->pid = pid;
	g->used++;
	return g->last = *t;
}

static int emit(struct nop_graph *g, struct task *t, struct nop_gitem *gi, int n,
		nop_gitem_fn fn, void *ctx)
{
	t->func[n] = gi->func; /* already there, but for an exit without entry */
	gi->pid = t->pid;
	gi->path = t->func;
	gi->npath = n + 1;
	gi->depth = n;
	return fn(ctx, gi);
}

/* Credit a finished call to its caller's callee time. */
static void credit(struct task *t, const struct nop_gitem *gi)
{
	if (t->n > 0 && gi->timed)
		t->f[t->n - 1].child_ns += gi->duration;
}

static int show_pending(struct nop_graph *g, nop_gitem_fn fn, void *ctx)
{
	struct task *t = g->pending;
	struct nop_gitem gi = { .kind = NOP_GI_ENTER };

	if (!t)
		return 0;
	g->pending = NULL;
	gi.cpu = g->pend_cpu;
	gi.ts = g->pend_ts;
	gi.func = g->pend_ip;
	return emit(g, t, &gi, t->n - 1, fn, ctx);
}

/* Close frames down to (not including) index keep: their exits were lost;
 * cpu -1: the capture ended first (shown on their entries' CPU) */
static int drop_to(struct nop_graph *g, struct task *t, int keep, int cpu, unsigned long long ts,
		   nop_gitem_fn fn, void *ctx)
{
	int ret = 0;

	while (t->n > keep && !ret) {
		struct nop_gitem gi = { .kind = NOP_GI_RETURN, .cpu = cpu, .ts = ts,
					.at_end = cpu < 0 };

		t->n--;
		if (cpu < 0)
			gi.cpu = t->f[t->n].cpu;
		gi.func = t->func[t->n];
		ret = emit(g, t, &gi, t->n, fn, ctx);
	}
	return ret;
}

static int graph_entry(struct nop_graph *g, const struct nop_event *ev, nop_gitem_fn fn, void *ctx)
{
	struct task *t = task(g, ev->pid);
	int keep, ret;

	if (!t)
		return -ENOMEM;
	/* frames deeper than the new entry lost their exits. One at its very
	 * depth is kept once: 6.1 lowers the task's depth before it records
	 * a return, so an interrupt in between records its calls at the
	 * returning function's depth, before that function's exit (seen in
	 * 'graph -p' on 6.1: get_timespec64 at depth 2, then irq_enter_rcu at
	 * depth 2, then get_timespec64's exit). The interrupt's calls nest
	 * under it; the exit then finds its frame. A second frame at that
	 * depth is a lost exit after all. */
	for (keep = t->n; keep > 0 && t->f[keep - 1].kdepth > ev->depth; keep--)
		;
	if (keep >= 2 && t->f[keep - 1].kdepth == ev->depth && t->f[keep - 2].kdepth == ev->depth)
		keep--;
	if (keep < t->n && (ret = drop_to(g, t, keep, ev->cpu, ev->ts, fn, ctx)))
		return ret;
	if (t->n == NOP_GRAPH_MAX_DEPTH) /* deeper than we follow: drop */
		return 0;
	if (task_room(t, t->n + 1))
		return -ENOMEM;
	t->func[t->n] = ev->ip;
	t->f[t->n++] = (struct frame){ .entry_ts = ev->ts, .kdepth = ev->depth, .cpu = ev->cpu };
	g->pending = t;
	g->pend_cpu = ev->cpu;
	g->pend_ts = ev->ts;
	g->pend_ip = ev->ip;
	return 0;
}

static int graph_exit(struct nop_graph *g, const struct nop_event *ev, nop_gitem_fn fn, void *ctx)
{
	struct task *t = task(g, ev->pid);
	struct nop_gitem gi = {
		.cpu = ev->cpu, .func = ev->ip, .timed = true,
		.duration = ev->rettime > ev->calltime ? ev->rettime - ev->calltime : 0,
		.retval = ev->retval, .has_retval = ev->has_retval,
	};
	int i, ret;

	if (!t)
		return -ENOMEM;
	for (i = t->n - 1; i >= 0; i--)
		if (t->func[i] == ev->ip && t->f[i].kdepth == ev->depth)
			break;
	if (i >= 0 && g->pending == t && i == t->n - 1) {
		/* the held entry's own exit: a leaf */
		g->pending = NULL;
		gi.kind = NOP_GI_LEAF;
		gi.ts = t->f[i].entry_ts;
		gi.self = gi.duration;
		t->n--;
		ret = emit(g, t, &gi, t->n, fn, ctx);
		credit(t, &gi);
		return ret;
	}
	if ((ret = show_pending(g, fn, ctx)))
		return ret;
	if (i < 0) {
		/* no entry seen: frames as deep or deeper lost their exits; the
		 * call itself is shown as a leaf, timed by the kernel */
		int keep;

		for (keep = t->n; keep > 0 && t->f[keep - 1].kdepth >= ev->depth; keep--)
			;
		if ((ret = drop_to(g, t, keep, ev->cpu, ev->rettime, fn, ctx)))
			return ret;
		gi.kind = NOP_GI_LEAF;
		gi.no_entry = true;
		gi.ts = ev->calltime;
		gi.began = ev->ts > gi.duration ? ev->ts - gi.duration : 0;
		gi.self = gi.duration;
		ret = emit(g, t, &gi, t->n, fn, ctx);
		credit(t, &gi);
		return ret;
	}
	if ((ret = drop_to(g, t, i + 1, ev->cpu, ev->rettime, fn, ctx)))
		return ret;
	gi.kind = NOP_GI_RETURN;
	gi.ts = ev->rettime;
	gi.self = gi.duration > t->f[i].child_ns ? gi.duration - t->f[i].child_ns : 0;
	t->n--;
	ret = emit(g, t, &gi, t->n, fn, ctx);
	credit(t, &gi);
	return ret;
}

/* The held returns h[lo..i] are call i and, before it, its callees at or
 * above the threshold (children return first): shown caller first, at
 * the depth the task's stack gives it. Its self time is what its known
 * callees leave; callees under the threshold are not recorded, and count
 * as its own (the summary says so). */
static int show_held(struct nop_graph *g, struct task *t, int lo, int i, nop_gitem_fn fn, void *ctx)
{
	const struct held *h = &t->held[i];
	struct nop_gitem gi = { .cpu = h->cpu, .func = h->func, .timed = true, .ts = h->began,
				.duration = h->duration, .retval = h->retval,
				.has_retval = h->has_retval };
	unsigned long long known = 0;
	int ret, top = 1 << 30, start = lo;

	if (lo == i || t->n >= NOP_GRAPH_MAX_DEPTH - 1) {
		gi.kind = NOP_GI_LEAF;
		gi.self = gi.duration;
		return emit(g, t, &gi, t->n, fn, ctx);
	}
	if (task_room(t, t->n + 1))
		return -ENOMEM;
	gi.kind = NOP_GI_ENTER;
	t->func[t->n] = h->func;
	t->f[t->n++] = (struct frame){ .entry_ts = h->began, .kdepth = h->kdepth, .cpu = h->cpu };
	if ((ret = emit(g, t, &gi, t->n - 1, fn, ctx)))
		return ret;
	/* its direct callees: the shallowest returns in between */
	for (int k = lo; k < i; k++)
		if (t->held[k].kdepth < top)
			top = t->held[k].kdepth;
	for (int k = lo; k < i; k++)
		if (t->held[k].kdepth == top) {
			if ((ret = show_held(g, t, start, k, fn, ctx)))
				return ret;
			known += t->held[k].duration;
			start = k + 1;
		}
	gi.kind = NOP_GI_RETURN;
	gi.ts = h->end;
	gi.self = gi.duration > known ? gi.duration - known : 0;
	t->n--;
	return emit(g, t, &gi, t->n, fn, ctx);
}

/* every held return, as trees: a return that no later one is shallower
 * than has no caller held (the caller returns after it), so it is one
 * tree's outermost call, its callees the returns before it */
static int show_all_held(struct nop_graph *g, struct task *t, nop_gitem_fn fn, void *ctx)
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

static int graph_exit(struct nop_graph *g, const struct nop_event *ev, nop_gitem_fn fn, void *ctx);

/* The first entry of a recording: what was held goes the way every exit
 * without entry goes, in the order it came, task by task */
static int replay_held(struct nop_graph *g, nop_gitem_fn fn, void *ctx)
{
	int ret = 0;

	g->seen_entry = true;
	for (size_t i = 0; i < g->cap && !ret; i++) {
		struct task *t = g->slots[i];

		for (int k = 0; t && k < t->nheld && !ret; k++) {
			const struct held *h = &t->held[k];
			struct nop_event ev = {
				.type = NOP_EV_EXIT, .pid = t->pid, .cpu = h->cpu, .ts = h->end,
				.ip = h->func, .depth = h->kdepth, .calltime = h->calltime,
				.rettime = h->rettime, .retval = h->retval, .has_retval = h->has_retval,
			};

			ret = graph_exit(g, &ev, fn, ctx);
		}
		if (t)
			t->nheld = 0;
	}
	return ret;
}

static int held_exit(struct nop_graph *g, const struct nop_event *ev, nop_gitem_fn fn, void *ctx)
{
	struct task *t = task(g, ev->pid);
	unsigned long long d = ev->rettime > ev->calltime ? ev->rettime - ev->calltime : 0;

	if (!t)
		return -ENOMEM;
	if (t->nheld == t->capheld) {
		int cap = t->capheld ? t->capheld * 2 : 16;
		struct held *nh = realloc(t->held, (size_t)cap * sizeof(*nh));

		if (!nh)
			return -ENOMEM;
		t->held = nh;
		t->capheld = cap;
	}
	t->held[t->nheld++] = (struct held){
		.func = ev->ip, .began = ev->ts > d ? ev->ts - d : 0, .end = ev->ts, .duration = d,
		.retval = ev->retval, .kdepth = ev->depth, .cpu = ev->cpu, .has_retval = ev->has_retval,
		.calltime = ev->calltime, .rettime = ev->rettime,
	};
	if (!g->exits_only)
		return 0; /* a recording, until its first entry or its end */
	/* the outermost call returned: its tree is complete */
	return ev->depth == 0 ? show_all_held(g, t, fn, ctx) : 0;
}

int nop_graph_feed(struct nop_graph *g, const struct nop_event *ev, nop_gitem_fn fn, void *ctx)
{
	int ret = 0;

	if (ev->type == NOP_EV_EXIT)
		return g->exits_only || (g->find_exits_only && !g->seen_entry) ? held_exit(g, ev, fn, ctx)
										 : graph_exit(g, ev, fn, ctx);
	if (g->pending && (ret = show_pending(g, fn, ctx)))
		return ret;
	if (ev->type == NOP_EV_ENTRY && g->find_exits_only && !g->seen_entry &&
	    (ret = replay_held(g, fn, ctx)))
		return ret;
	if (ev->type == NOP_EV_ENTRY)
		return graph_entry(g, ev, fn, ctx);
	return 0; /* LOST: the next events' depths resynchronize each task */
}

int nop_graph_finish(struct nop_graph *g, nop_gitem_fn fn, void *ctx)
{
	int ret = show_pending(g, fn, ctx);

	/* a recording with returns and no entry: a tracing_thresh capture */
	for (size_t i = 0; i < g->cap && g->find_exits_only && !g->seen_entry; i++)
		g->returns_only |= g->slots[i] && g->slots[i]->nheld;

	for (size_t i = 0; i < g->cap && !ret; i++)
		if (g->slots[i] && !(ret = show_all_held(g, g->slots[i], fn, ctx)))
			ret = drop_to(g, g->slots[i], 0, -1, 0, fn, ctx);
	return ret;
}
