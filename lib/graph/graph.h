/* graph/graph.h - the graph area of libnopctl: function_graph events to
 * calls per task: the call-graph engine. Its header includes the one of
 * the area before it (lib/README.md: the order): a file sees its own area
 * and those below, never one above. */
#ifndef NOPCTL_AREA_GRAPH_H
#define NOPCTL_AREA_GRAPH_H

#include "events/events.h"

/* User functions' entries and exits given a depth and their call's start
 * (ucalls.c), to fn: the event, after the exits of the calls it shows
 * ended (unwound ones marked). Returns 0, fn's first non-zero result, or
 * -errno; an exit whose entry was not seen is left out, counted */
struct nop_ucalls;

typedef bool (*nop_uroot_fn)(void *ctx, unsigned long long key);

typedef int (*nop_ucall_fn)(void *ctx, struct nop_event *ev);

/* is_root NULL: every call; else only calls inside a root's */
struct nop_ucalls *nop_ucalls_new(nop_uroot_fn is_root, void *ctx);

int nop_ucalls_place(struct nop_ucalls *u, const struct nop_event *ev, nop_ucall_fn fn, void *ctx);

/* a FORK (the child inside its parent's root, if the parent is) or an
 * EXEC (the task's open calls end, unwound) */
int nop_ucalls_process(struct nop_ucalls *u, const struct nop_event *ev, nop_ucall_fn fn, void *ctx);

void nop_ucalls_max_depth(struct nop_ucalls *u, int depth); /* -D (0: no limit) */

unsigned long long nop_ucalls_unmatched(const struct nop_ucalls *u);

void nop_ucalls_free(struct nop_ucalls *u);

/* Per-task stacks (a task that migrates keeps one tree); an entry whose
 * exit follows at once is a leaf; the kernel's depth resynchronizes the
 * stack after lost events, so a gap never mis-nests what follows. */
enum nop_gi_kind {
	NOP_GI_ENTER,  /* a call that has callees: opens a level */
	NOP_GI_LEAF,   /* a call with no callees, entry and exit at once */
	NOP_GI_RETURN, /* the end of an ENTER */
	/* a kernel event (-e), at the depth of its task's open calls (path:
	 * them, npath = depth; 0: outside any call): func 0, args its
	 * fields, event its name */
	NOP_GI_EVENT,
	/* why: where a failed root call's error began (origin.c), after that
	 * chain's ENTER and RETURN items: func, retval, rvtype and usite the
	 * origin's, ts its return, path the chain (the root first, npath
	 * calls), depth 0 */
	NOP_GI_ORIGIN,
};

/* Off-CPU time by the state a task left the CPU in (sched_switch's
 * prev_state): preempted (still runnable), sleeping, uninterruptible
 * (D: disk, lock), anything else (stopped, idle) */
enum nop_off_state { NOP_OFF_R, NOP_OFF_S, NOP_OFF_D, NOP_OFF_OTHER, NOP_OFF_STATES };
/* the letter a state is shown as */
static inline char nop_off_letter(int st)
{
	return "RSD?"[st & 3];
}

/* the total of a call's off-CPU time */
static inline unsigned long long nop_off_total(const unsigned long long *off)
{
	return off[0] + off[1] + off[2] + off[3];
}

struct nop_gitem {
	enum nop_gi_kind kind;
	int pid, cpu;
	int depth; /* in this task's tree, 0 outermost */
	int npath;
	bool timed; /* duration known (false: the exit was lost) */
	bool at_end; /* not timed: still running when the capture ended */
	bool unwound; /* RETURN, timed: a user call an exception or a longjmp
			 ended (to when its task was next seen) */
	bool no_entry; /* an exit whose entry was not seen (began before the
			  capture, or lost): timed, from the kernel's calltime */
	/* no_entry: when it began on the buffer's clock (the exit's time stamp
	 * less its duration): calltime is function_graph's own clock, which
	 * can run apart from the buffer's (6.1); not timed: its entry's time */
	unsigned long long began;
	bool has_retval;
	unsigned char rvtype; /* LEAF, RETURN of a user function: retval's type (NOP_RV_*; 0: not known) */
	/* ORIGIN: a kernel callee of the origin returned no value nopctl saw
	 * (no return probe on it): the error may have begun below */
	bool maybe_below;
	bool other_task; /* under -p: a task not traced, in its half of a
			    context switch (the kernel records those calls) */
	unsigned long long ts; /* entry time; RETURN: return time */
	unsigned long long func;
	unsigned long long duration, self; /* ns, when timed */
	long long retval;
	const char *args; /* ENTER, LEAF, EVENT: as nop_event's (NULL: none) */
	const char *event; /* EVENT: "system:event" (the decoder's, as long as it lives) */
	const unsigned long long *path; /* outermost .. func */
	/* a user function (ENTER, LEAF, RETURN): the address its entry ran at
	 * and its return address, as the process had them (0: not known) */
	unsigned long long uip, ucaller;
	/* LEAF, RETURN of a user function: the probe its exit was seen by
	 * (nop_event's usite; 0: not known); ORIGIN: the origin's */
	unsigned long long usite;
	/* LEAF, RETURN: the time its task was off CPU during the call, by
	 * state (sched_switch recorded; 0 otherwise), and of that the time
	 * no callee of it was open (its own wait) */
	unsigned long long off[NOP_OFF_STATES], off_self[NOP_OFF_STATES];
};

/* the item ends a call (a LEAF or a RETURN): it has a duration and is counted */
static inline bool nop_gi_ends_call(const struct nop_gitem *gi)
{
	return gi->kind == NOP_GI_LEAF || gi->kind == NOP_GI_RETURN;
}

#define NOP_GRAPH_MAX_DEPTH 256

struct nop_graph;

typedef int (*nop_gitem_fn)(void *ctx, const struct nop_gitem *gi);

struct nop_graph *nop_graph_new(struct nop_error *err);

/* Feed ENTRY/EXIT/LOST/KEVENT/SWITCH events in time order; items go to
 * fn. A SWITCH makes no item: the time its task is off CPU goes to the
 * calls it has open. */
int nop_graph_feed(struct nop_graph *g, const struct nop_event *ev, nop_gitem_fn fn, void *ctx);

/* tracing_thresh: the kernel records only the returns of calls at or
 * above it, children before their caller; the trees are built from
 * those returns' depths, held per task until the outermost returns. */
void nop_graph_exits_only(struct nop_graph *g);

/* A recording, which may be such a capture: returns are held until the
 * first entry; a stream with none was one (nop_graph_returns_only) */
void nop_graph_find_exits_only(struct nop_graph *g);

bool nop_graph_returns_only(const struct nop_graph *g);
/* off-CPU intervals whose switch back the kernel did not record (those
 * that ended on another CPU credited up to the task's first event there,
 * the others not at all) */
unsigned long long nop_graph_unpaired(const struct nop_graph *g);
/* off-CPU intervals whose switch out the kernel did not record (credited
 * from the task's last event on the CPU it left, in state ?) */
unsigned long long nop_graph_unpaired_out(const struct nop_graph *g);

/* End of the stream: calls still open are returned untimed. */
int nop_graph_finish(struct nop_graph *g, nop_gitem_fn fn, void *ctx);

void nop_graph_free(struct nop_graph *g);

/* Where a failed call's error began (origin.c, nopctl why). v: one
 * task's finished tree, items stride bytes apart (each a nop_gitem first),
 * its root's ENTER or LEAF first. failed(ctx, end): the call the end item
 * (LEAF or RETURN) ends returned a failure. From the root down, at each
 * failed call: of its direct callees that failed, the last that returned
 * the call's own value (passed up unchanged), else the last that failed
 * (translated on the way up); a failed call none of whose callees failed
 * is the origin. chain (the caller's, room for n links): each link's
 * start and end item, the root first and the origin last, *nchain of
 * them. Returns 1, 0 when the root did not fail (or did not end in v),
 * -1 when out of memory. */
typedef bool (*nop_failed_fn)(void *ctx, const struct nop_gitem *end);

struct nop_origin_link {
	size_t start, end;
};

int nop_origin_find(const void *v, size_t n, size_t stride, nop_failed_fn failed, void *ctx,
		    struct nop_origin_link *chain, size_t *nchain);

/* A call as a summary takes it: report --stats of a capture it filters
 * nothing of (callgraph_summary.c) */
struct nop_gcall {
	unsigned long long func, duration, self;
	/* as nop_gitem's off and off_self, for the call of fn only; NULL:
	 * none (no switch of its task seen yet) */
	const unsigned long long *off, *off_self;
	long long retval;
	int depth; /* in its task's tree, 0 outermost */
	bool has_retval;
};

typedef int (*nop_gcall_fn)(void *ctx, const struct nop_gcall *c);

/* Calls whose entry and exit come in their task's order go to fn as they
 * return, and their entries nowhere (every frame an entry opens is closed
 * by a call or an item at its depth, so the deepest stack still shows);
 * every other event still makes items */
void nop_graph_summarize(struct nop_graph *g, nop_gcall_fn fn, void *ctx);

/* pid's entry not shown yet (it has callees after all: the kernel's) */
int nop_graph_show_pending_of(struct nop_graph *g, int pid, nop_gitem_fn fn, void *ctx);

/* pid's open calls, outermost first: how many (path valid until the next feed) */
int nop_graph_open_calls(struct nop_graph *g, int pid, const unsigned long long **path);

/* A profile (profile.c): calls merged into a calling-context tree, one
 * node per distinct path from a root (children in the order first seen),
 * each with its calls, times, failures and every timed call's durations;
 * what nopctl diff compares. Node 0 is the root above every root call. */
struct nop_pnode {
	const char *name; /* the profile's copy */
	bool user;	  /* a user-space function (a kernel one: false) */
	size_t parent, first, last, next; /* children: first..next (0: none) */
	unsigned long long calls, timed, total, self, errors;
	/* the first four errnos its calls returned, and how often */
	long long errv[4];
	unsigned long long errn[4];
	/* per timed call: its duration and its self time, ns */
	unsigned long long *dur, *selfs;
	size_t cap;
	/* a summary's row (no calls of its own, only their figures) */
	unsigned long long p50, p99;
};

struct nop_profile {
	struct nop_pnode *node;
	size_t nnodes, cap;
	struct nop_strmap *names; /* function name -> nothing: the names, interned */
	struct { size_t parent, child; const char *name; } *slot; /* (parent, name) -> child */
	size_t nslot, used;
	bool aggregate; /* from a per-function summary: no tree, no durations */
	/* calls whose time is not known (entry or exit missing), and events
	 * the recording lost */
	unsigned long long untimed, lost;
};

struct nop_profile *nop_profile_new(void);
/* the child of parent named name, 0 if none (add: made; 0 also when out
 * of memory). A call's node: the root's child by its outermost caller's
 * name, and so on down to its own. */
size_t nop_profile_child(struct nop_profile *p, size_t parent, const char *name, bool add);
/* the profile's copy of name (made if new; NULL: out of memory), valid
 * as long as the profile */
const char *nop_profile_name(struct nop_profile *p, const char *name);
/* one call of node at: timed, duration and self are known; retval when
 * has_retval. 0, or -1 when out of memory. */
int nop_profile_add(struct nop_profile *p, size_t at, bool timed, unsigned long long duration,
		    unsigned long long self, bool has_retval, long long retval);
void nop_profile_free(struct nop_profile *p);

#endif
