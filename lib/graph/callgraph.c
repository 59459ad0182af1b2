/* callgraph.c - function_graph entry/exit events to calls.
 *
 * Each task has its own stack of open calls, so a task that migrates
 * between CPUs keeps one tree. An entry is held back one event: if the
 * task's next event is its exit, the call is a leaf. After lost events the
 * kernel's depth (in both events) puts the stack right: frames at or below
 * the depth of a new entry lost their exits; an exit that matches no open
 * frame had its entry before the capture or in the gap. Returns without
 * entries (tracing_thresh) are callgraph_returns.c's.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "graph/callgraph.h"

int cg_task_grow(struct task *t, int need)
{
	int cap = t->cap ? t->cap : FIRST_DEPTH;
	unsigned long long *func;
	struct frame *f;

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
	if (t->off) {
		struct frame_off *o = realloc(t->off, (size_t)cap * sizeof(*o));

		if (!o)
			return -1;
		t->off = o;
	}
	t->cap = cap;
	return 0;
}

static void task_free(struct task *t)
{
	if (t) {
		free(t->held);
		free(t->off);
		free(t->func);
		free(t->f);
		free(t);
	}
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
	free(g->cpus);
	free(g);
}

static struct task **slot(struct task **slots, size_t cap, int pid)
{
	size_t i = ((unsigned)pid * 2654435761u) & (cap - 1);

	while (slots[i] && slots[i]->pid != pid)
		i = (i + 1) & (cap - 1);
	return &slots[i];
}

NOP_HOT __attribute__((noinline)) struct task *cg_task_lookup(struct nop_graph *g, int pid)
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
	if (!(*t = calloc(1, sizeof(**t))) || cg_task_room(*t, 1)) {
		task_free(*t);
		*t = NULL;
		return NULL;
	}
	(*t)->pid = pid;
	(*t)->ran = !g->switches; /* before any switch, each event is its own */
	g->used++;
	return g->last = *t;
}

NOP_HOT int cg_emit(struct nop_graph *g, struct task *t, struct nop_gitem *gi, int n,
		nop_gitem_fn fn, void *ctx)
{
	t->func[n] = gi->func; /* already there, but for an exit without entry */
	gi->pid = t->pid;
	gi->path = t->func;
	gi->npath = n + 1;
	gi->depth = n;
	return fn(ctx, gi);
}

/* An item of kind at ts on cpu: every field a consumer reads set once
 * (pid, path, npath and depth by cg_emit), the ones its kind fills later
 * cleared, the off-CPU arrays left to from_frame or gi_no_off: the item
 * is not zeroed whole first (the assertion: a field added to nop_gitem
 * is added here) */
_Static_assert(sizeof(struct nop_gitem) == 192, "gi_init sets every field of nop_gitem");
static inline void gi_init(struct nop_gitem *gi, enum nop_gi_kind kind, int cpu, unsigned long long ts,
			   unsigned long long func)
{
	gi->kind = kind;
	gi->cpu = cpu;
	gi->ts = ts;
	gi->func = func;
	gi->timed = gi->at_end = gi->unwound = gi->no_entry = gi->has_retval = gi->other_task = false;
	gi->began = gi->duration = gi->self = 0;
	gi->retval = 0;
	gi->args = gi->event = NULL;
	gi->uip = gi->ucaller = gi->usite = 0;
	gi->rvtype = 0;
	gi->maybe_below = false;
}

/* an item's off-CPU time: none */
static inline void gi_no_off(struct nop_gitem *gi)
{
	memset(gi->off, 0, sizeof(gi->off));
	memset(gi->off_self, 0, sizeof(gi->off_self));
}

/* a user function's entry address and return address, and the call's
 * off-CPU time, from its frame */
static void from_frame(struct nop_gitem *gi, const struct task *t, int i)
{
	const struct frame *f = &t->f[i];

	gi->uip = f->uip;
	gi->ucaller = f->ucaller;
	gi->args = f->args;
	cg_off(gi->off, gi->off_self, t, i);
}

/* Credit a finished call to its caller's callee time. */
static void credit(struct task *t, const struct nop_gitem *gi)
{
	if (t->n > 0 && gi->timed)
		t->f[t->n - 1].child_ns += gi->duration;
}

NOP_HOT static int show_pending(struct nop_graph *g, nop_gitem_fn fn, void *ctx)
{
	struct task *t = g->pending;
	struct nop_gitem gi;

	if (!t)
		return 0;
	g->pending = NULL;
	gi_init(&gi, NOP_GI_ENTER, g->pend_cpu, g->pend_ts, g->pend_ip);
	from_frame(&gi, t, t->n - 1);
	return cg_emit(g, t, &gi, t->n - 1, fn, ctx);
}

int nop_graph_show_pending_of(struct nop_graph *g, int pid, nop_gitem_fn fn, void *ctx)
{
	return g->pending && g->pending->pid == pid ? show_pending(g, fn, ctx) : 0;
}

int nop_graph_open_calls(struct nop_graph *g, int pid, const unsigned long long **path)
{
	struct task *t = g->used ? cg_task(g, pid) : NULL;

	*path = t ? t->func : NULL;
	return t ? t->n : 0;
}

/* Close frames down to (not including) index keep: their exits were lost;
 * cpu -1: the capture ended first (shown on their entries' CPU) */
static int drop_to(struct nop_graph *g, struct task *t, int keep, int cpu, unsigned long long ts,
		   nop_gitem_fn fn, void *ctx)
{
	int ret = 0;

	while (t->n > keep && !ret) {
		struct nop_gitem gi;

		t->n--;
		gi_init(&gi, NOP_GI_RETURN, cpu < 0 ? t->f[t->n].cpu : cpu, ts, t->func[t->n]);
		gi.at_end = cpu < 0;
		gi.began = t->f[t->n].entry_ts;
		from_frame(&gi, t, t->n);
		ret = cg_emit(g, t, &gi, t->n, fn, ctx);
	}
	return ret;
}

NOP_HOT static int graph_entry(struct nop_graph *g, const struct nop_event *ev, nop_gitem_fn fn, void *ctx)
{
	struct task *t = cg_task(g, ev->pid);
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
	if (cg_task_room(t, t->n + 1))
		return -ENOMEM;
	cg_push(t, ev);
	g->pending = t;
	g->pend_cpu = ev->cpu;
	g->pend_ts = ev->ts;
	g->pend_ip = ev->ip;
	return 0;
}

NOP_HOT int cg_graph_exit(struct nop_graph *g, const struct nop_event *ev, nop_gitem_fn fn, void *ctx)
{
	struct task *t = cg_task(g, ev->pid);
	struct nop_gitem gi;
	int i, ret;
	long long lag = (long long)(ev->ts - ev->rettime);

	if (!t)
		return -ENOMEM;
	gi_init(&gi, NOP_GI_RETURN, ev->cpu, ev->rettime, ev->ip);
	gi.timed = true;
	gi.duration = cg_duration(ev->calltime, ev->rettime);
	gi.retval = ev->retval;
	gi.has_retval = ev->has_retval;
	gi.rvtype = ev->rvtype;
	gi.usite = ev->usite;
	gi.unwound = ev->unwound;
	if (ev->rettime && (!g->lag_known || lag < g->lag)) {
		g->lag = lag;
		g->lag_known = true;
	}
	for (i = t->n - 1; i >= 0; i--)
		if (t->func[i] == ev->ip && t->f[i].kdepth == ev->depth)
			break;
	if (i >= 0 && g->pending == t && i == t->n - 1) {
		/* the held entry's own exit: a leaf */
		g->pending = NULL;
		gi.kind = NOP_GI_LEAF;
		gi.ts = t->f[i].entry_ts;
		gi.self = gi.duration;
		from_frame(&gi, t, i);
		t->n--;
		ret = cg_emit(g, t, &gi, t->n, fn, ctx);
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
		/* the exit's time stamp less its duration, less what this exit
		 * lagged more than the least lag (a stall between the return
		 * and its stamp) */
		gi.began = cg_began(ev->rettime && lag > g->lag ? ev->ts - (unsigned long long)(lag - g->lag) : ev->ts,
				    gi.duration);
		gi.self = gi.duration;
		gi_no_off(&gi);
		ret = cg_emit(g, t, &gi, t->n, fn, ctx);
		credit(t, &gi);
		return ret;
	}
	if (t->n > i + 1 && (ret = drop_to(g, t, i + 1, ev->cpu, ev->rettime, fn, ctx)))
		return ret;
	gi.self = cg_self(&t->f[i], gi.duration);
	from_frame(&gi, t, i);
	t->n--;
	ret = cg_emit(g, t, &gi, t->n, fn, ctx);
	credit(t, &gi);
	return ret;
}

/* A kernel event where its task is: inside its open calls (the held
 * entry, if the task's, shown first: the call has something inside it) */
static int graph_event(struct nop_graph *g, const struct nop_event *ev, nop_gitem_fn fn, void *ctx)
{
	struct task *t = cg_task(g, ev->pid);
	struct nop_gitem gi;
	int ret;

	if (!t)
		return -ENOMEM;
	gi_init(&gi, NOP_GI_EVENT, ev->cpu, ev->ts, 0);
	gi.pid = ev->pid;
	gi.args = ev->args;
	gi.event = ev->ename;
	gi_no_off(&gi);
	if (g->pending == t && (ret = show_pending(g, fn, ctx)))
		return ret;
	gi.path = t->func;
	gi.npath = gi.depth = t->n;
	return fn(ctx, &gi);
}

/* the kernel's prev_state (TASK_REPORT bits; TASK_REPORT_MAX, 0x100:
 * preempted) as the states off-CPU time is told by */
static int off_state(long long state)
{
	switch (state & 0xff) {
	case 0: return NOP_OFF_R;
	case 1: return NOP_OFF_S;
	case 2: return NOP_OFF_D;
	default: return NOP_OFF_OTHER;
	}
}

static struct task *task_if_any(struct nop_graph *g, int pid)
{
	struct task *t = g->used ? *slot(g->slots, g->cap, pid) : NULL;

	return t && t->pid == pid ? t : NULL;
}

/* t back on a CPU at ts: the time since it left goes to each call it
 * has open, and as its own to the innermost */
static void back_on(struct task *t, unsigned long long ts)
{
	if (t->off_since && ts > t->off_since && t->n &&
	    (t->off || (t->off = calloc((size_t)t->cap, sizeof(*t->off))))) {
		unsigned long long d = ts - t->off_since;

		for (int i = 0; i < t->n; i++)
			t->off[i].off[t->off_state] += d;
		t->off[t->n - 1].self[t->off_state] += d;
	}
	t->off_since = 0;
}

/* CPU cpu's tasks, room made; NULL for a CPU number no kernel has, or
 * with -ENOMEM in *ret */
static struct cpu_tasks *cpu_tasks(struct nop_graph *g, int cpu, int *ret)
{
	if (cpu < 0 || cpu >= NOP_MAX_CPUS)
		return NULL;
	if (cpu >= g->ncpus) {
		int n = cpu < 32 ? 32 : cpu < NOP_MAX_CPUS / 2 ? 2 * cpu : NOP_MAX_CPUS;
		struct cpu_tasks *c = realloc(g->cpus, (size_t)n * sizeof(*c));

		if (!c) {
			*ret = -ENOMEM;
			return NULL;
		}
		memset(c + g->ncpus, 0, (size_t)(n - g->ncpus) * sizeof(*c));
		g->cpus = c;
		g->ncpus = n;
	}
	return &g->cpus[cpu];
}

/* t, believed on CPU run_cpu - 1, had left it unseen (the kernel did not
 * record that switch out): it ran up to its last event there, so its
 * time off is counted from then, at the most, in a state not known; the
 * interval is counted */
static void lost_out(struct nop_graph *g, struct task *t)
{
	if (t->ran && t->n && t->seen) {
		g->unpaired_out++;
		t->off_since = t->seen;
		t->off_state = NOP_OFF_OTHER;
	}
	t->out = true;
	t->off_cpu = t->run_cpu - 1;
	t->run_cpu = 0;
}

/* t seen on cpu (c: its tasks, if known) at ts: believed on another CPU,
 * it left that one unseen; off, and on another CPU than it left, it came
 * back unseen before ts (the calls that switch a task out are recorded on
 * the CPU it leaves: those say nothing). True if t is on cpu. */
static bool seen_on(struct nop_graph *g, struct task *t, const struct cpu_tasks *c, int cpu,
		    unsigned long long ts)
{
	/* its first event since switches are seen, after a switch took it
	 * off cpu: the calls that switch it */
	if (!t->out && !t->run_cpu && c && c->left == t->pid && c->run != t->pid) {
		t->out = true;
		t->off_cpu = cpu;
	}
	if (!t->out && t->run_cpu && t->run_cpu - 1 != cpu)
		lost_out(g, t);
	if (t->out && cpu != t->off_cpu) {
		g->unpaired += t->ran && t->off_since;
		back_on(t, ts);
		t->out = false;
	}
	return !t->out;
}

/* A context switch on a CPU: the task that left it is off from now (in
 * calls it has open); the one that took it was off since it left. The
 * kernel now and then records no switch back or no switch out (a run in
 * ten on the guests, with set_event_pid and without); what each switch
 * and event proves is taken (seen_on), never more:
 * - a task that leaves a CPU while off already came back unseen, at a
 *   time not known (nothing credited, the interval counted);
 * - one seen on another CPU than it left came back before (credited up
 *   to there);
 * - one believed on a CPU that another task leaves, or that is switched
 *   in or seen elsewhere, left it unseen after its last event there
 *   (credited from there: lost_out). */
static int graph_switch(struct nop_graph *g, const struct nop_event *ev)
{
	struct task *out = ev->pid ? task_if_any(g, ev->pid) : NULL, *in = ev->next ? task_if_any(g, ev->next) : NULL;
	struct task *was;
	int ret = 0;
	struct cpu_tasks *c = cpu_tasks(g, ev->cpu, &ret);

	if (ret)
		return ret;
	g->switches = true;
	if (c && c->run && c->run != ev->pid && (was = task_if_any(g, c->run)) && !was->out &&
	    was->run_cpu - 1 == ev->cpu)
		lost_out(g, was);
	/* the idle task (pid 0) is no task of a tree */
	if (out) {
		seen_on(g, out, c, ev->cpu, ev->ts);
		if (out->n) {
			g->unpaired += out->ran && out->off_since;
			out->off_since = ev->ts;
			out->off_state = off_state(ev->state);
		}
		out->out = true;
		out->off_cpu = ev->cpu;
		out->run_cpu = 0;
	}
	if (in) {
		if (!in->out && in->run_cpu)
			lost_out(g, in);
		back_on(in, ev->ts);
		in->out = false;
		in->run_cpu = c ? ev->cpu + 1 : 0;
		in->seen = ev->ts;
	}
	if (c) {
		c->run = ev->next;
		c->left = ev->pid;
	}
	return 0;
}

unsigned long long nop_graph_unpaired(const struct nop_graph *g)
{
	return g ? g->unpaired : 0;
}

unsigned long long nop_graph_unpaired_out(const struct nop_graph *g)
{
	return g ? g->unpaired_out : 0;
}

/* A traced task's entry or exit once switches are seen: where it runs */
static int task_seen(struct nop_graph *g, const struct nop_event *ev)
{
	struct task *t = cg_task(g, ev->pid);
	int ret = 0;
	struct cpu_tasks *c = cpu_tasks(g, ev->cpu, &ret);

	if (ret)
		return ret;
	/* on a CPU no kernel has (a damaged file), not placed */
	if (t && seen_on(g, t, c, ev->cpu, ev->ts) && c) {
		t->run_cpu = ev->cpu + 1;
		t->seen = ev->ts;
		t->ran = true;
		c->run = t->pid;
	}
	return 0;
}

NOP_HOT int nop_graph_feed(struct nop_graph *g, const struct nop_event *ev, nop_gitem_fn fn, void *ctx)
{
	int ret;

	/* entries and exits first: nearly every event of a graph is one */
	if (__builtin_expect(ev->type == NOP_EV_ENTRY || ev->type == NOP_EV_EXIT, 1)) {
		if (g->switches && ev->pid && (ret = task_seen(g, ev)))
			return ret;
		/* (a summary takes no other kind of event) */
		if (g->sum_fn && cg_summary_feed(g, ev, &ret))
			return ret;
		if (ev->type == NOP_EV_EXIT)
			return g->holding ? cg_held_exit(g, ev, fn, ctx) : cg_graph_exit(g, ev, fn, ctx);
		if (g->pending && (ret = show_pending(g, fn, ctx)))
			return ret;
		if (g->find_exits_only && !g->seen_entry && (ret = cg_replay_held(g, fn, ctx)))
			return ret;
		return graph_entry(g, ev, fn, ctx);
	}
	if (ev->type == NOP_EV_KEVENT)
		return graph_event(g, ev, fn, ctx);
	if (ev->type == NOP_EV_SWITCH)
		return graph_switch(g, ev);
	/* LOST: the next events' depths resynchronize each task */
	return g->pending ? show_pending(g, fn, ctx) : 0;
}

int nop_graph_finish(struct nop_graph *g, nop_gitem_fn fn, void *ctx)
{
	int ret = show_pending(g, fn, ctx);

	/* a recording with returns and no entry: a tracing_thresh capture */
	for (size_t i = 0; i < g->cap && g->find_exits_only && !g->seen_entry; i++)
		g->returns_only |= g->slots[i] && g->slots[i]->nheld;

	for (size_t i = 0; i < g->cap && !ret; i++)
		if (g->slots[i] && !(ret = cg_show_all_held(g, g->slots[i], fn, ctx)))
			ret = drop_to(g, g->slots[i], 0, -1, 0, fn, ctx);
	return ret;
}
