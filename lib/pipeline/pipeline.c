/* pipeline.c - where each decoded event goes: function hits to the sink,
 * function_graph events through the call-graph engine, then the root and
 * traced-task filters and the counters, to the sink; losses to both; when
 * recording, only counted. One end-of-run sequence for live runs and
 * reports. */
#include <errno.h>
#include <fnmatch.h>
#include <limits.h>
#include <stdarg.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "pipeline/pipeline.h"

struct nop_pipeline {
	struct nop_pipeline_cfg cfg;
	struct nop_sink sink;
	struct nop_graph *graph;
	/* user functions' calls: their own engine (their depths are not the
	 * kernel's), fed through the per-task stacks of ucalls.c */
	struct nop_graph *ugraph;
	bool ufed;	/* a user call went to ugraph: only then has it tasks */
	struct nop_ucalls *ucalls;
	struct nop_join *join;	/* kernel probes' values to their calls */
	struct nop_errf *errf;	/* --errors */
	/* a kernel call under a task's open user calls: one path of both */
	unsigned long long jpath[2 * NOP_GRAPH_MAX_DEPTH + 2];
	struct nop_summary sum; /* events, lost_pages, other_tasks */
	enum nop_stop stop;
	bool saw_graph;		/* function_graph events came: the summary counts calls */
	bool saw_entry;		/* and entries (with tracing_thresh only exits come) */
	bool counted;		/* -c reached: nothing more is counted or shown */
	bool saw_func;		/* function tracer hits came */
	bool graph_only;	/* a graph with no probes joined, not recording */
	bool out_closed;	/* the output's reader went away (EPIPE) */
	char why[32];		/* the stop reason as the summary says it */
	struct nop_error err;	/* what failed inside a callback */
	bool failed;
	struct nop_span span; /* first: the events' earliest; a rotated part's whole span */
	unsigned long long last; /* the events' latest */
	struct { unsigned long long addr; int wanted; } root_cache[256];
	struct nop_tasks tasks; /* cfg.by_task: whose calls are shown */
};

static bool root_name(struct nop_pipeline *p, unsigned long long addr);
static int on_summary_call(void *ctx, const struct nop_gcall *c);
static int on_catch(void *ctx, const struct nop_caught *c);

static const char *func_name(void *ctx, unsigned long long addr)
{
	struct nop_pipeline *p = ctx;

	return nop_sink_func(&p->sink, addr);
}

static bool has_kernel_probes(const struct nop_uprobes *u)
{
	for (size_t i = 0; u && i < u->n; i++)
		if (u->v[i].kind != NOP_PROBE_USER)
			return true;
	return false;
}

/* a user function a root pattern names (ucalls.c) */
static bool user_root(void *ctx, unsigned long long key)
{
	return root_name(ctx, key);
}

int nop_pipeline_new(struct nop_pipeline **pp, const struct nop_pipeline_cfg *cfg,
		     struct nop_error *err)
{
	struct nop_pipeline *p = nop_zalloc(sizeof(*p), err);

	*pp = NULL;
	if (!p)
		return -1;
	p->cfg = *cfg;
	nop_tasks_init(&p->tasks, cfg->by_task, cfg->gated);
	if (nop_sink_init(&p->sink, &cfg->sink, err) || (cfg->graph && !(p->graph = nop_graph_new(err)))) {
		nop_pipeline_free(p);
		return -1;
	}
	if (cfg->graph && (!(p->ugraph = nop_graph_new(err)) ||
			   !(p->ucalls = nop_ucalls_new(cfg->nroots ? user_root : NULL, p)))) {
		if (p->ugraph)
			nop_error_set(err, NOP_EINTERNAL, ENOMEM, "out of memory");
		nop_pipeline_free(p);
		return -1;
	}
	if (!p->cfg.probes) /* a recording's, as its reader found them */
		p->cfg.probes = nop_resolver_probes(cfg->sink.res);
	if ((has_kernel_probes(p->cfg.probes) && !cfg->recording &&
	     !(p->join = nop_join_new(p->cfg.probes, cfg->graph, func_name, p))) ||
	    ((cfg->errors || cfg->why || cfg->catching) && cfg->graph &&
	     !(p->errf = nop_errf_new(cfg->catching, cfg->slower_ns, cfg->errors)))) {
		nop_error_set(err, NOP_EINTERNAL, ENOMEM, "out of memory");
		nop_pipeline_free(p);
		return -1;
	}
	if (p->ucalls)
		nop_ucalls_max_depth(p->ucalls, cfg->max_depth);
	if (p->errf && cfg->why)
		nop_errf_why(p->errf);
	if (p->errf && cfg->catching) {
		nop_errf_on_catch(p->errf, on_catch, p);
		if (nop_errf_outliers(p->errf, cfg->outliers)) {
			nop_error_set(err, NOP_EINTERNAL, ENOMEM, "out of memory");
			nop_pipeline_free(p);
			return -1;
		}
	}
	p->graph_only = p->graph && !p->join && !cfg->recording;
	/* a table of every call, of kernel functions only: no item to make */
	if (p->graph_only && p->sink.ops == &nop_stats_ops && !cfg->nroots && !cfg->count &&
	    !cfg->by_task && !p->errf && !cfg->thresh_ns && (!p->cfg.probes || !p->cfg.probes->n))
		nop_graph_summarize(p->graph, on_summary_call, p);
	if (p->graph && cfg->thresh_ns) {
		nop_graph_exits_only(p->graph);
		nop_graph_exits_only(p->ugraph);
	}
	else if (p->graph && cfg->recorded)
		nop_graph_find_exits_only(p->graph);
	*pp = p;
	return 0;
}

void nop_pipeline_free(struct nop_pipeline *p)
{
	if (!p)
		return;
	nop_sink_free(&p->sink);
	nop_graph_free(p->graph);
	nop_tasks_free(&p->tasks);
	nop_graph_free(p->ugraph);
	nop_ucalls_free(p->ucalls);
	nop_join_free(p->join);
	nop_errf_free(p->errf);
	free(p);
}

static const char *stop_name(enum nop_stop why, int signo, char *buf, size_t len)
{
	static const char *const names[] = {
		[NOP_STOP_COMMAND] = "command exit",	 [NOP_STOP_DURATION] = "duration",
		[NOP_STOP_COUNT] = "count",		 [NOP_STOP_OUTPUT_CLOSED] = "output closed",
		[NOP_STOP_OUTPUT_ERROR] = "output error", [NOP_STOP_END] = "end of file",
		[NOP_STOP_PROCESS_EXIT] = "process exit", [NOP_STOP_QUIT] = "quit",
		[NOP_STOP_FULL] = "size limit",
	};

	if (why == NOP_STOP_SIGNAL) {
		snprintf(buf, len, "SIG%s", sigabbrev_np(signo) ? sigabbrev_np(signo) : "?");
		return buf;
	}
	return why > NOP_STOP_NONE && (size_t)why < ARRAY_SIZE(names) ? names[why] : NULL;
}

bool nop_pipeline_catch_running(const struct nop_pipeline *p)
{
	return p->errf && nop_errf_passing(p->errf) > 0;
}

void nop_pipeline_catch_now(struct nop_pipeline *p)
{
	if (p->errf && p->cfg.catching)
		nop_errf_catch_now(p->errf);
}

void nop_pipeline_stop(struct nop_pipeline *p, enum nop_stop why, int signo)
{
	if (p->stop)
		return;
	p->stop = why;
	p->sum.stop_reason = stop_name(why, signo, p->why, sizeof(p->why));
}

enum nop_stop nop_pipeline_stopped(const struct nop_pipeline *p)
{
	return p->stop;
}

bool nop_pipeline_output_closed(const struct nop_pipeline *p)
{
	return p->out_closed;
}

bool nop_pipeline_count_reached(const struct nop_pipeline *p)
{
	return p->counted;
}

unsigned long long nop_pipeline_span(const struct nop_pipeline *p)
{
	return p->last - p->span.first;
}

const struct nop_summary *nop_pipeline_summary(const struct nop_pipeline *p)
{
	return &p->sum;
}

/* A failure inside a callback: kept for nop_pipeline_drain to return. */
static int fail(struct nop_pipeline *p, int e, const char *fmt, ...)
{
	char what[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	nop_error_set(&p->err, NOP_EINTERNAL, e, "%s: %s", what, strerror(e));
	p->failed = true;
	return NOP_FLOW_FAIL;
}

/* EPIPE: whoever read our output is gone, a normal way to end (| head).
 * Anything else (ENOSPC, EIO) is an error. */
static int output_failed(struct nop_pipeline *p)
{
	int e = errno ? errno : EIO;

	if (e == EPIPE) {
		p->out_closed = true;
		nop_pipeline_stop(p, NOP_STOP_OUTPUT_CLOSED, 0);
		return NOP_FLOW_STOP;
	}
	nop_pipeline_stop(p, NOP_STOP_OUTPUT_ERROR, 0);
	return fail(p, e, "cannot write output%s%s", p->cfg.out_name ? " to " : "",
		    p->cfg.out_name ? p->cfg.out_name : "");
}

/* how far function_graph's call times and the buffer's may run apart */
#define CLOCKS_APART_NS 1000000ULL

/* A part of a rotated recording holds every CPU's events only from
 * complete_from to complete_to: a call missing its entry or exit is a gap
 * only if it began after complete_from (its entry is in no earlier part)
 * and the entry, or for a missing exit the event that proved the call's
 * end, came by complete_to (nothing of it is in a later part: a task
 * that moved to a CPU cut sooner has its next events there) */
static bool in_span(const struct nop_span *s, unsigned long long began, unsigned long long seen)
{
	return began > s->complete_from + (s->complete_from ? CLOCKS_APART_NS : 0) &&
	       (!s->complete_to || seen + CLOCKS_APART_NS <= s->complete_to);
}

/* an exit whose call began inside the capture (its start is its exit's
 * time less its duration, which the kernel measures on a clock of its
 * own: 0.1-0.25 ms apart from the buffer's were seen under emulation, on
 * 6.12 and 6.19), or a call whose end another event proved while its exit
 * never came: an event lost, whether or not a counter of the kernel says
 * so. Not a user function's missing return: the kernel probes at most 64
 * nested returns per task, a longjmp or exception unwinds past them;
 * nothing was lost (an entry it misses is one of the function_graph kind,
 * counted as ever) */
bool nop_pipeline_gap(const struct nop_span *s, const struct nop_gitem *gi)
{
	if (gi->no_entry)
		return gi->began > s->first + CLOCKS_APART_NS && in_span(s, gi->began, gi->began);
	return !gi->timed && !gi->at_end && (gi->func & NOP_UKEY_MASK) != NOP_UKEY && in_span(s, gi->began, gi->ts);
}

/* A sink's -1: out of memory for its own state, or the output failed */
static int sink_failed(struct nop_pipeline *p)
{
	return errno == ENOMEM ? fail(p, ENOMEM, "preparing the output") : output_failed(p);
}

/* With graph roots asked for, only their trees: around a context switch
 * 6.1 also records switch_mm_irqs_off and finish_task_switch, outside any
 * root. Decided once per outermost address. */
static bool root_wanted(struct nop_pipeline *p, const struct nop_gitem *gi)
{
	return root_name(p, gi->path[0]);
}

static bool root_name(struct nop_pipeline *p, unsigned long long addr)
{
	size_t slot = (addr >> NOP_KFUNC_ALIGN_SHIFT) % ARRAY_SIZE(p->root_cache);
	const struct nop_uprobe *up;
	const char *name;

	if (!p->cfg.nroots)
		return true;
	if (p->root_cache[slot].addr == addr && p->root_cache[slot].wanted)
		return p->root_cache[slot].wanted > 0;
	name = nop_sink_func(&p->sink, addr);
	/* a user function: by the name shown, or as its symbol table has it
	 * (a mangled C++ name), as its probes were matched */
	up = (addr & NOP_UKEY_MASK) == NOP_UKEY ? nop_resolve_uprobe(p->cfg.sink.res, addr) : NULL;
	p->root_cache[slot].addr = addr;
	p->root_cache[slot].wanted = -1;
	for (size_t i = 0; i < p->cfg.nroots; i++)
		if (fnmatch(p->cfg.roots[i], name, 0) == 0 || (up && fnmatch(p->cfg.roots[i], up->sym, 0) == 0))
			p->root_cache[slot].wanted = 1;
	return p->root_cache[slot].wanted > 0;
}

/* -c N: after the Nth, nothing more, whatever stopped the run first (a
 * COMMAND that exited before the first read still has all its events in
 * the final drain; one graph event can close several calls) */
static int count_reached(struct nop_pipeline *p)
{
	unsigned long long n = p->sum.events;

	if (p->cfg.catching && p->errf) /* catch: trees caught, each out whole */
		n = nop_errf_out_whole(p->errf);
	else if (p->cfg.why) /* why: failures explained */
		n = p->sum.origins;
	if (p->cfg.count && n >= p->cfg.count) {
		p->counted = true;
		nop_pipeline_stop(p, NOP_STOP_COUNT, 0);
		return NOP_FLOW_STOP;
	}
	return NOP_FLOW_GO;
}

static int show_call(void *ctx, const struct nop_gitem *gi);
static int on_call(void *ctx, const struct nop_gitem *gi);

/* One timeline: a kernel call made while user functions of its task are
 * open (the system call of a traced program) nests under them, its depth
 * and path after theirs; the user call not yet shown is shown first, as
 * a call with callees */
static int under_user_calls(struct nop_pipeline *p, const struct nop_gitem *gi, struct nop_gitem *joined)
{
	const unsigned long long *up;
	int nu, ret;

	if (!p->ugraph || (gi->func & NOP_UKEY_MASK) == NOP_UKEY)
		return 0;
	if ((ret = nop_graph_show_pending_of(p->ugraph, gi->pid, on_call, p)))
		return ret;
	if (!(nu = nop_graph_open_calls(p->ugraph, gi->pid, &up)) ||
	    nu + gi->npath > (int)ARRAY_SIZE(p->jpath))
		return 0;
	*joined = *gi;
	memcpy(p->jpath, up, (size_t)nu * sizeof(*up));
	memcpy(p->jpath + nu, gi->path, (size_t)gi->npath * sizeof(*up));
	joined->path = p->jpath;
	joined->npath = gi->npath + nu;
	joined->depth = gi->depth + nu;
	return 1;
}

/* on_call's item when it has user calls to join, roots, tasks or failed
 * calls to filter by */
static __attribute__((noinline)) int on_call_filtered(struct nop_pipeline *p, const struct nop_gitem *gi)
{
	struct nop_gitem other, joined;
	int ret;

	if (p->counted)
		return NOP_FLOW_STOP;
	if ((ret = under_user_calls(p, gi, &joined)) < 0)
		return ret;
	if (ret)
		gi = &joined;
	/* user calls come from ucalls.c inside their roots only (a forked
	 * child's from the fork point, under no root of its own); an event
	 * outside any call is in no root's tree */
	if (p->cfg.nroots && (!gi->npath || ((gi->path[0] & NOP_UKEY_MASK) != NOP_UKEY && !root_wanted(p, gi))))
		return NOP_FLOW_GO;
	if (p->cfg.by_task && !nop_tasks_traced(&p->tasks, gi->pid)) {
		/* shown, marked, in the tree view; left out of sums and pictures */
		if (nop_gi_ends_call(gi))
			p->sum.other_tasks++;
		if (!p->cfg.show_others || p->errf)
			return NOP_FLOW_GO;
		other = *gi;
		other.other_task = true;
		return p->sink.ops->graph(&p->sink, &other) ? sink_failed(p) : NOP_FLOW_GO;
	}
	if (p->errf) {
		ret = nop_errf_item(p->errf, gi, show_call, p);
		if (ret == NOP_FLOW_FAIL && !p->failed)
			return fail(p, ENOMEM, p->cfg.catching ? "keeping the trees" : "keeping the failed calls");
		return ret == NOP_FLOW_GO && p->cfg.catching ? count_reached(p) : ret;
	}
	return show_call(p, gi);
}

/* catch: its line, before its tree */
static int on_catch(void *ctx, const struct nop_caught *c)
{
	struct nop_pipeline *p = ctx;

	char path[4200] = "";

	if (p->counted)
		return NOP_FLOW_STOP;
	if (p->cfg.catch_file) {
		if (p->cfg.catch_file(p->cfg.catch_ctx, c->seq, c->from, path, sizeof(path)))
			return fail(p, errno, "cannot write catch %llu", c->seq);
	}
	/* no file named: none written for it (its name skipped) */
	return nop_catch_write(&p->sink, c, path[0] ? path : NULL) ? sink_failed(p) : NOP_FLOW_GO;
}

/* a root call's time, and its task's off-CPU time in it (NULL: none), to
 * the summary */
static void root_time(struct nop_pipeline *p, unsigned long long duration, const unsigned long long *off)
{
	p->sum.root_ns += duration;
	for (int i = 0; off && i < NOP_OFF_STATES; i++)
		p->sum.root_off[i] += off[i];
}

/* a call to show: counted, to the sink */
NOP_HOT static int show_call(void *ctx, const struct nop_gitem *gi)
{
	struct nop_pipeline *p = ctx;

	if (p->counted)
		return NOP_FLOW_STOP;
	if (gi->kind == NOP_GI_ORIGIN) { /* why: a failure explained (-c counts them) */
		p->sum.origins++;
		if (p->cfg.sink.view == NOP_VIEW_WHY && p->sink.ops->graph(&p->sink, gi))
			return sink_failed(p);
		return count_reached(p);
	}
	if (gi->kind == NOP_GI_EVENT) {
		p->sum.kevents++;
	} else if (gi->kind != NOP_GI_ENTER) {
		p->sum.events++;
		if (!gi->depth && gi->timed)
			root_time(p, gi->duration, gi->off);
		p->sum.no_entry += gi->no_entry;
		p->sum.no_exit += !gi->timed;
		p->sum.gaps += nop_pipeline_gap(&p->span, gi);
	}
	/* catch -o DIR: the trees are in their files */
	if (!p->cfg.catch_file && p->sink.ops->graph(&p->sink, gi))
		return sink_failed(p);
	/* catch: counted once its tree is out whole (on_call); why: by its
	 * origins */
	return p->cfg.catching || p->cfg.why ? NOP_FLOW_GO : count_reached(p);
}

/* A call out of the call-graph engine: filtered, counted, then to the
 * sink; with nothing to filter by (most reports), shown at once
 * (no user call fed, the user engine has no calls to join: ufed) */
NOP_HOT static int on_call(void *ctx, const struct nop_gitem *gi)
{
	struct nop_pipeline *p = ctx;

	if (!p->ufed && !p->cfg.nroots && !p->cfg.by_task && !p->errf)
		return show_call(p, gi);
	return on_call_filtered(p, gi);
}

/* a call of a summary (nop_graph_summarize): counted, to the table, as
 * show_call would take its item */
NOP_HOT static int on_summary_call(void *ctx, const struct nop_gcall *c)
{
	struct nop_pipeline *p = ctx;

	p->sum.events++;
	if (!c->depth)
		root_time(p, c->duration, c->off);
	return nop_stats_call(&p->sink, c) ? sink_failed(p) : NOP_FLOW_GO;
}

/* what the call-graph engine returned: its own errors are -errno, the
 * callbacks' results are flows */
static int engine_result(struct nop_pipeline *p, int ret)
{
	return ret < NOP_FLOW_FAIL ? fail(p, -ret, "building the call trees") : ret;
}

static bool user_call(const struct nop_event *ev)
{
	return (ev->type == NOP_EV_ENTRY || ev->type == NOP_EV_EXIT) &&
	       (ev->ip & NOP_UKEY_MASK) == NOP_UKEY;
}

/* a user call's entry or exit, placed (ucalls.c), to the user engine */
static int on_placed_call(void *ctx, struct nop_event *e)
{
	struct nop_pipeline *p = ctx;

	/* -t: as tracing_thresh does for the kernel's calls, only the returns
	 * of calls that lasted that long, trees built from them */
	if (p->cfg.thresh_ns && (e->type == NOP_EV_ENTRY || e->rettime - e->calltime < p->cfg.thresh_ns))
		return NOP_FLOW_GO;
	p->ufed = true;
	return nop_graph_feed(p->ugraph, e, on_call, p);
}

/* a user function's entry or exit (returns probed: graph views), placed
 * in its task's stack, to the user engine */
static int on_user_call(struct nop_pipeline *p, const struct nop_event *ev)
{
	if (!p->graph)
		return NOP_FLOW_GO; /* trace and record place no return probes */
	p->saw_graph = true;
	p->saw_entry |= ev->type == NOP_EV_ENTRY;
	return engine_result(p, nop_ucalls_place(p->ucalls, ev, on_placed_call, p));
}

static int route(void *ctx, const struct nop_event *ev);

/* pid has calls open on either timeline */
static bool in_calls(struct nop_pipeline *p, int pid)
{
	const unsigned long long *path;

	return (p->graph && nop_graph_open_calls(p->graph, pid, &path)) ||
	       (p->ugraph && nop_graph_open_calls(p->ugraph, pid, &path));
}

/* A kernel event (-e): in call trees where its task is, else a line of
 * its own. One that concerns a traced task (a switch to it, its wakeup)
 * goes to that task's tree when the task it came from is not traced, or
 * is in no call */
static int on_kevent(struct nop_pipeline *p, const struct nop_event *ev)
{
	struct nop_event moved;

	if (p->cfg.by_task && ev->about && nop_tasks_traced(&p->tasks, ev->about) &&
	    (!nop_tasks_traced(&p->tasks, ev->pid) || (p->graph && !in_calls(p, ev->pid)))) {
		moved = *ev;
		moved.pid = ev->about;
		ev = &moved;
	}
	/* a recording is a graph's once a call came (before, events are
	 * outside any tree either way); the pictures take them as items */
	if (p->graph && (!p->cfg.recorded || p->saw_graph || !p->sink.ops->event))
		return engine_result(p, nop_graph_feed(p->graph, ev, on_call, p));
	p->sum.kevents++;
	return p->sink.ops->event && p->sink.ops->event(&p->sink, ev) ? sink_failed(p) : NOP_FLOW_GO;
}

/* the events' time span (a damaged page's mark has no time: 0) */
static inline void note_time(struct nop_pipeline *p, unsigned long long ts)
{
	if (ts && (!p->span.first || ts < p->span.first))
		p->span.first = ts;
	if (ts > p->last)
		p->last = ts;
}

/* on_event's events but a kernel function's entry or exit in a graph:
 * a user function's placed first (graph only), the rest joined and routed */
static __attribute__((noinline)) int other_event(struct nop_pipeline *p, const struct nop_event *ev)
{
	if (p->graph_only && (ev->type == NOP_EV_ENTRY || ev->type == NOP_EV_EXIT)) {
		note_time(p, ev->ts);
		return on_user_call(p, ev);
	}
	if (p->join && !p->cfg.recording)
		return nop_join_event(p->join, ev, route, p);
	return route(p, ev);
}

/* Every decoded event: hits to the sink, graph events through the call
 * engine, losses to both; when recording, only counted. Kernel probes'
 * values first join their calls' events. */
NOP_HOT static int on_event(void *ctx, const struct nop_event *ev)
{
	struct nop_pipeline *p = ctx;

	if (p->counted)
		return NOP_FLOW_STOP;
	/* most events of a graph capture: a kernel function's entry or exit,
	 * to the engine as route() would send it, without its checks in
	 * turn (the rest: other_event) */
	if (p->graph_only && (ev->type == NOP_EV_ENTRY || ev->type == NOP_EV_EXIT) &&
	    (ev->ip & NOP_UKEY_MASK) != NOP_UKEY) {
		note_time(p, ev->ts);
		p->saw_graph = true;
		p->saw_entry |= ev->type == NOP_EV_ENTRY;
		return engine_result(p, nop_graph_feed(p->graph, ev, on_call, p));
	}
	return other_event(p, ev);
}

NOP_HOT static int route(void *ctx, const struct nop_event *ev)
{
	struct nop_pipeline *p = ctx;
	int ret;

	if (p->counted)
		return NOP_FLOW_STOP;
	note_time(p, ev->ts);
	if (ev->type == NOP_EV_LOST && p->cfg.by_task)
		nop_tasks_unsure(&p->tasks);
	/* a page header's count is the file's word: their sum stops at the
	 * largest count rather than wrap */
	if (ev->type == NOP_EV_LOST && !p->cfg.gated &&
	    __builtin_add_overflow(p->sum.lost_pages, ev->lost > 0 ? ev->lost : 1, &p->sum.lost_pages))
		p->sum.lost_pages = LLONG_MAX;
	if (p->cfg.recording) {
		p->sum.events += ev->type == NOP_EV_COUNTS ? ev->nfunc + ev->nexit
							    : ev->type == NOP_EV_FUNC || ev->type == NOP_EV_EXIT;
		p->sum.kevents += ev->type == NOP_EV_COUNTS ? ev->nkev : ev->type == NOP_EV_KEVENT;
		return count_reached(p);
	}
	if (ev->type == NOP_EV_ARGS || (ev->type == NOP_EV_RETVAL && p->graph))
		return NOP_FLOW_GO; /* not joined to a call: nothing to show them on */
	if (ev->type == NOP_EV_KEVENT)
		return on_kevent(p, ev);
	if (ev->type == NOP_EV_SWITCH) { /* off-CPU time, to the calls open on both timelines */
		if (p->graph && (ret = nop_graph_feed(p->graph, ev, on_call, p)) != 0)
			return engine_result(p, ret);
		return p->ugraph ? engine_result(p, nop_graph_feed(p->ugraph, ev, on_call, p)) : NOP_FLOW_GO;
	}
	if (ev->type == NOP_EV_LOST && !p->cfg.gated && p->sink.ops->event && p->sink.ops->event(&p->sink, ev))
		return sink_failed(p);
	if (user_call(ev))
		return on_user_call(p, ev);
	if (ev->type == NOP_EV_FORK || ev->type == NOP_EV_EXEC || ev->type == NOP_EV_RENAME) {
		if (ev->type == NOP_EV_FORK && p->cfg.by_task)
			nop_tasks_born(&p->tasks, ev->pid, ev->child);
		ret = p->ucalls && ev->type != NOP_EV_RENAME ? nop_ucalls_process(p->ucalls, ev, on_placed_call, p) : 0;
		/* the task's name from here on: the lines before it keep the
		 * name it had (read later from /proc, all would take the last) */
		if (ev->args && p->cfg.sink.res) {
			nop_resolver_set_comm(p->cfg.sink.res, ev->type == NOP_EV_FORK ? ev->child : ev->pid,
					      ev->args);
			p->sink.renames++;
		}
		return engine_result(p, ret);
	}
	if (ev->type == NOP_EV_LOST && p->ugraph &&
	    (ret = nop_graph_feed(p->ugraph, ev, on_call, p)) != 0)
		return engine_result(p, ret);
	if (p->graph && ev->type != NOP_EV_FUNC && ev->type != NOP_EV_STACK) {
		p->saw_graph |= ev->type == NOP_EV_ENTRY || ev->type == NOP_EV_EXIT;
		p->saw_entry |= ev->type == NOP_EV_ENTRY;
		return engine_result(p, nop_graph_feed(p->graph, ev, on_call, p));
	}
	p->saw_func |= ev->type == NOP_EV_FUNC;
	if (ev->type == NOP_EV_LOST || !p->sink.ops->event)
		return NOP_FLOW_GO; /* pictures are made of calls, not hits */
	if (p->cfg.by_task && !nop_tasks_traced(&p->tasks, ev->pid)) {
		p->sum.other_tasks += ev->type == NOP_EV_FUNC;
		return NOP_FLOW_GO;
	}
	/* --errors: only the returns that failed */
	if (p->cfg.errors && (ev->type != NOP_EV_RETVAL || !nop_is_errno(ev->retval)))
		return NOP_FLOW_GO;
	p->sum.events += ev->type == NOP_EV_FUNC || ev->type == NOP_EV_RETVAL;
	if (p->sink.ops->event(&p->sink, ev))
		return sink_failed(p);
	return count_reached(p);
}

enum nop_flow nop_pipeline_count_saved(struct nop_pipeline *p, struct nop_source *src,
				       struct nop_dat *dat, struct nop_error *err)
{
	unsigned long long count = p->cfg.count;
	int ret;

	/* every saved page, from none: -c's count as pages came may have
	 * stopped short of them. Without -c nothing was counted as pages
	 * came: a recording in several files adds each one's */
	if (count) {
		p->sum.events = 0;
		p->sum.lost_pages = 0;
	}
	p->counted = false;
	p->cfg.count = 0;
	ret = nop_source_count_saved(src, dat, on_event, p, err);
	p->cfg.count = count;
	p->counted = count && p->sum.events >= count;

	if (p->failed) {
		*err = p->err;
		return NOP_FLOW_FAIL;
	}
	return ret < 0 ? NOP_FLOW_FAIL : p->stop ? NOP_FLOW_STOP : NOP_FLOW_GO;
}

enum nop_flow nop_pipeline_drain(struct nop_pipeline *p, struct nop_source *src, bool *more,
				 struct nop_error *err)
{
	int ret;

	/* a part of a rotated recording: an entry before complete_from may be
	 * in the part before, an exit after complete_to in the next; no loss */
	if (src->complete_from > p->span.complete_from)
		p->span.complete_from = src->complete_from;
	if (src->complete_to)
		p->span.complete_to = src->complete_to;
	ret = src->ops->drain(src, on_event, p, more, err);

	if (p->failed) {
		*err = p->err;
		return NOP_FLOW_FAIL;
	}
	if (ret < 0)
		return NOP_FLOW_FAIL; /* the source's own error, in err */
	/* catch, asked: what the buffers held by now is in, the open trees go */
	if (!*more && p->errf && nop_errf_caught_open(p->errf, show_call, p) < 0) {
		if (!p->failed)
			fail(p, ENOMEM, "keeping the trees");
		*err = p->err;
		return NOP_FLOW_FAIL;
	}
	if (!*more && !p->stop && src->ops->finite)
		nop_pipeline_stop(p, NOP_STOP_END, 0);
	return p->stop ? NOP_FLOW_STOP : NOP_FLOW_GO;
}

int nop_pipeline_drain_all(struct nop_pipeline *p, struct nop_source *src, struct nop_error *err)
{
	for (bool more = true; more && !nop_pipeline_count_reached(p);)
		if (nop_pipeline_drain(p, src, &more, err) == NOP_FLOW_FAIL)
			return -1;
	return 0;
}

enum nop_flow nop_pipeline_flush(struct nop_pipeline *p, struct nop_error *err)
{
	if (p->stop == NOP_STOP_OUTPUT_CLOSED || nop_sink_flush(&p->sink) == 0)
		return p->stop ? NOP_FLOW_STOP : NOP_FLOW_GO;
	if (output_failed(p) == NOP_FLOW_STOP)
		return NOP_FLOW_STOP;
	*err = p->err;
	return NOP_FLOW_FAIL;
}

int nop_pipeline_tick(struct nop_pipeline *p, const struct nop_tick *t, struct nop_error *err)
{
	if (!p->sink.ops->tick || p->stop == NOP_STOP_OUTPUT_CLOSED)
		return 0;
	if (p->sink.ops->tick(&p->sink, t) && sink_failed(p) == NOP_FLOW_FAIL) {
		*err = p->err;
		return -1;
	}
	return 0;
}

const struct nop_stat_row *nop_pipeline_rows(const struct nop_pipeline *p, size_t *n)
{
	return nop_stats_rows(&p->sink, n);
}

bool nop_pipeline_func(const struct nop_pipeline *p, const char *name, struct nop_stat_row *row,
		       unsigned long long log2[NOP_LOG2_BUCKETS])
{
	return nop_stats_func(&p->sink, name, row, log2);
}

int nop_pipeline_finish(struct nop_pipeline *p, struct nop_summary *sum, struct nop_error *err)
{
	bool out_ok = p->stop != NOP_STOP_OUTPUT_CLOSED && !p->failed;
	int ret;

	if (p->failed) {
		*err = p->err;
		return -1;
	}
	/* a function tracer recording has hits, no calls: the views made of
	 * calls would be empty, and an empty success misleads */
	if (p->saw_func && !p->saw_graph && !p->sink.ops->event) {
		nop_error_set(err, NOP_EUSAGE, 0, "this recording holds the function tracer's hits"
			      " (as trace-cmd record -p function writes them), no"
			      " function_graph calls: the table, folded stacks, DOT and Chrome are made of"
			      " calls and their times");
		err->remedy = NOP_REMEDY_RECORD_GRAPH;
		return -1;
	}
	/* and the callers view is made of hits' stacks */
	if (p->saw_graph && !p->saw_func && p->sink.ops == &nop_callers_ops) {
		nop_error_set(err, NOP_EUSAGE, 0, "this recording holds function_graph calls, no function tracer"
			      " hits with their stacks: callers are counted from the stacks");
		err->remedy = NOP_REMEDY_RECORD_STACKS;
		return -1;
	}
	if (p->join && out_ok && nop_join_finish(p->join, route, p) < 0 && !p->failed)
		fail(p, ENOMEM, "joining return values");
	if (p->graph && out_ok && ((ret = nop_graph_finish(p->graph, on_call, p)) < 0 ||
				   (ret = nop_graph_finish(p->ugraph, on_call, p)) < 0 ||
				   (p->errf && (ret = nop_errf_finish(p->errf, show_call, p)) < 0))) {
		if (!p->failed)
			fail(p, ret < NOP_FLOW_FAIL ? -ret : ENOMEM, "building the call trees");
		*err = p->err;
		return -1;
	}
	if (out_ok && p->cfg.sink.stats.hist_func && !nop_stats_has(&p->sink, p->cfg.sink.stats.hist_func)) {
		nop_error_set(err, NOP_EUSAGE, 0, "the histogram of %s: no call of %s was recorded, so there is no"
			      " histogram to draw: give a function of the table (one called in the"
			      " traced trees)", p->cfg.sink.stats.hist_func, p->cfg.sink.stats.hist_func);
		return -1;
	}
	sum->events = p->sum.events;
	sum->kevents = p->sum.kevents;
	sum->root_ns = p->sum.root_ns;
	memcpy(sum->root_off, p->sum.root_off, sizeof(sum->root_off));
	sum->lost_pages = p->sum.lost_pages;
	sum->offcpu_unpaired = nop_graph_unpaired(p->graph) + nop_graph_unpaired(p->ugraph);
	sum->offcpu_unpaired_out = nop_graph_unpaired_out(p->graph) + nop_graph_unpaired_out(p->ugraph);
	sum->other_tasks = p->sum.other_tasks;
	sum->no_entry = p->sum.no_entry + nop_ucalls_unmatched(p->ucalls);
	sum->no_exit = p->sum.no_exit;
	sum->gaps = p->saw_entry ? p->sum.gaps : 0;
	sum->joined = p->join != NULL;
	nop_join_misses(p->join, &sum->values_missing, &sum->values_unclaimed);
	sum->graph = p->saw_graph || (p->cfg.graph && !p->saw_func);
	sum->by_task = p->cfg.by_task != NULL;
	sum->stop_reason = p->sum.stop_reason;
	sum->thresh_ns = p->cfg.graph ? p->cfg.thresh_ns : 0;
	sum->returns_only = p->graph && p->saw_graph && nop_graph_returns_only(p->graph);
	if ((sum->catching = p->cfg.catching && p->errf)) {
		unsigned long long roots;

		nop_errf_counts(p->errf, &roots, &sum->caught);
		if (!sum->gated)
			sum->roots = roots;
		sum->not_whole = nop_errf_not_whole(p->errf);
		sum->warmup = p->cfg.outliers;
		sum->warming = nop_errf_warming(p->errf);
	}
	if (sum->gated) { /* the windows between snapshots are not read */
		sum->lost_pages = 0;
		sum->no_entry = sum->no_exit = sum->gaps = 0;
		/* -c N: the calls after the Nth were not asked for */
		sum->missed = !p->counted && sum->hits > sum->caught + sum->not_whole
				      ? sum->hits - sum->caught - sum->not_whole : 0;
	}
	if (p->stop == NOP_STOP_OUTPUT_CLOSED)
		return 0;
	/* the events out before anything on stderr: both may go to one file
	 * (2>&1), where the summary ends the run */
	if (p->sink.out != p->sink.diag && nop_sink_flush(&p->sink) != 0 && output_failed(p) != NOP_FLOW_STOP) {
		*err = p->err;
		return -1;
	}
	if (p->stop == NOP_STOP_OUTPUT_CLOSED)
		return 0;
	if (sum->by_task && !(sum->catching ? sum->roots : sum->events) && !p->cfg.recording) {
		sum->warning = "no call of the traced tasks arrived";
		if (p->sink.diag)
			fprintf(p->sink.diag, "nopctl: no call of the traced tasks arrived%s: they made none"
				" while tracing was on, or were not running\n",
				sum->other_tasks ? " (only other tasks' halves of context switches)" : "");
	}
	if ((p->sink.ops->summary(&p->sink, sum) < 0 && sink_failed(p) != NOP_FLOW_STOP) ||
	    (nop_sink_flush(&p->sink) != 0 && output_failed(p) != NOP_FLOW_STOP)) {
		*err = p->err;
		return -1;
	}
	return 0;
}
