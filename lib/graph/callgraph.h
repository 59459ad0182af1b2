/* callgraph.h - the call-graph engine's state, shared by callgraph.c
 * (entries and exits) and callgraph_returns.c (returns alone); nothing
 * outside the two sees it. */
#ifndef NOPCTL_CALLGRAPH_H
#define NOPCTL_CALLGRAPH_H

#include <string.h>

#include "graph/graph.h"

struct frame {
	unsigned long long entry_ts, child_ns;
	int kdepth;
	int cpu; /* of the entry */
	unsigned long long uip, ucaller; /* a user function's entry (uprobe) */
	const char *args; /* a kernel function's, joined to its entry (--args) */
};

/* a frame's time off CPU while the call was open, and while it was the
 * task's innermost; kept apart, for the tasks that were switched out
 * inside a call only (most tasks of a system-wide graph never are) */
struct frame_off {
	unsigned long long off[NOP_OFF_STATES], self[NOP_OFF_STATES];
};

/* A task's stack grows as deep as its calls go: most tasks of a
 * system-wide graph stay shallow, and a fixed NOP_GRAPH_MAX_DEPTH stack
 * was 8.2 KB each (a 1.6 MB file naming 58,000 pids took 470 MB). */
#define FIRST_DEPTH 4

/* exits only (tracing_thresh): a return held until its caller's */
struct held {
	unsigned long long func, end; /* end: the return's time stamp */
	unsigned long long calltime, rettime; /* as the kernel gave them */
	long long retval;
	int kdepth, cpu;
	bool has_retval;
};

/* A return's duration, as the kernel timed it */
static inline unsigned long long cg_duration(unsigned long long calltime, unsigned long long rettime)
{
	return rettime > calltime ? rettime - calltime : 0;
}

/* When a returned call began on the buffer's clock: its return's time
 * stamp less its duration (calltime is function_graph's own clock, which
 * can run apart from the buffer's: 6.1) */
static inline unsigned long long cg_began(unsigned long long ts, unsigned long long duration)
{
	return ts > duration ? ts - duration : 0;
}

struct task {
	int pid; /* 0: empty slot */
	int n, cap;
	struct held *held; /* exits only: returns in the order they came */
	int nheld;
	size_t capheld;
	/* the open calls' functions, outermost first: a call's path as the
	 * sinks see it, never copied (cap + 1 slots: one more for an exit
	 * whose entry was not seen) */
	unsigned long long *func;
	struct frame *f;
	/* switched out at off_since (0: on CPU, or not known), in off_state;
	 * off: by frame, as f (NULL until the first such switch) */
	unsigned long long off_since;
	int off_state, off_cpu; /* off_cpu: the CPU it left */
	struct frame_off *off;
	/* where it is, as the switches and its own events tell (once switches
	 * are seen): out (switched out of off_cpu, its calls that switch it
	 * recorded there after), or on CPU run_cpu - 1 (0: not known) since
	 * its last event there at seen; ran: an event of its own while on a
	 * CPU (another task's calls in its half of a switch to a traced one,
	 * recorded on 6.1, come only after that switch: such a task, whose
	 * other switches a pid filter leaves out, is never judged) */
	unsigned long long seen;
	int run_cpu;
	bool out, ran;
};

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
	/* exits_only, or find_exits_only before seen_entry: returns are held
	 * (kept so by cg_holding at each change of the three) */
	bool holding;
	/* the least lag of an exit's time stamp after its return time (the
	 * buffer's clock less function_graph's, without a stall between) */
	long long lag;
	bool lag_known;
	/* off-CPU intervals whose switch back, and whose switch out, the
	 * kernel did not record; switches seen at all (only then is a task's
	 * next event looked at) */
	unsigned long long unpaired, unpaired_out;
	bool switches;
	/* by CPU (below ncpus): the task its last switch left running (run)
	 * and the one it took off (left) */
	struct cpu_tasks {
		int run, left;
	} *cpus;
	int ncpus;
	/* a summary's calls (callgraph_summary.c) */
	nop_gcall_fn sum_fn;
	void *sum_ctx;
};

/* returns held or not, after a change of exits_only, find_exits_only or
 * seen_entry */
static inline void cg_holding(struct nop_graph *g)
{
	g->holding = g->exits_only || (g->find_exits_only && !g->seen_entry);
}

/* an entry's frame on its task's stack (room made for it) */
static inline void cg_push(struct task *t, const struct nop_event *ev)
{
	t->func[t->n] = ev->ip;
	t->f[t->n++] = (struct frame){ .entry_ts = ev->ts, .kdepth = ev->depth, .cpu = ev->cpu,
				       .uip = ev->uip, .ucaller = ev->ucaller, .args = ev->args };
	/* (off_since stays: after the sched_switch that takes a task off
	 * its CPU, function_graph still records the calls that switch it,
	 * under its pid; its time off CPU ends at the switch back) */
	if (t->off)
		memset(&t->off[t->n - 1], 0, sizeof(*t->off));
}

/* what a returned call of frame f took itself: its duration less its
 * callees' (clamped: the kernel can time an interrupt's callees longer) */
static inline unsigned long long cg_self(const struct frame *f, unsigned long long duration)
{
	return duration > f->child_ns ? duration - f->child_ns : 0;
}

/* a returned call's off-CPU time, from its frame: none before the
 * task's first switch (t->off NULL) */
static inline void cg_off(unsigned long long *off, unsigned long long *self, const struct task *t, int i)
{
	if (t->off) {
		memcpy(off, t->off[i].off, sizeof(t->off[i].off));
		memcpy(self, t->off[i].self, sizeof(t->off[i].self));
	} else {
		memset(off, 0, sizeof(t->off[i].off));
		memset(self, 0, sizeof(t->off[i].self));
	}
}

/* room for need open calls (need <= NOP_GRAPH_MAX_DEPTH) */
int cg_task_grow(struct task *t, int need);
static inline int cg_task_room(struct task *t, int need)
{
	return need <= t->cap ? 0 : cg_task_grow(t, need);
}
/* The task's stack: most often the last event's, checked inline. */
struct task *cg_task_lookup(struct nop_graph *g, int pid);
static inline struct task *cg_task(struct nop_graph *g, int pid)
{
	return g->last && g->last->pid == pid ? g->last : cg_task_lookup(g, pid);
}
/* an item of t at depth n (its path: t's open calls) to fn */
int cg_emit(struct nop_graph *g, struct task *t, struct nop_gitem *gi, int n, nop_gitem_fn fn,
	    void *ctx);
int cg_graph_exit(struct nop_graph *g, const struct nop_event *ev, nop_gitem_fn fn, void *ctx);
/* callgraph_summary.c: true if the event was a summary's, its result in *ret */
bool cg_summary_feed(struct nop_graph *g, const struct nop_event *ev, int *ret);
/* callgraph_returns.c */
int cg_held_exit(struct nop_graph *g, const struct nop_event *ev, nop_gitem_fn fn, void *ctx);
int cg_replay_held(struct nop_graph *g, nop_gitem_fn fn, void *ctx);
int cg_show_all_held(struct nop_graph *g, struct task *t, nop_gitem_fn fn, void *ctx);

#endif
