/* route.c - where each decoded event goes: function hits to the sink,
 * function_graph events through the call-graph engine, losses to both;
 * when recording, only counted. */
#include <errno.h>
#include <fnmatch.h>
#include <string.h>

#include "run.h"

/* EPIPE: whoever read our output is gone, a normal way to end (| head).
 * Anything else (ENOSPC, EIO) is an error. */
int output_failed(struct run *r)
{
	if (errno == EPIPE) {
		r->out_closed = true;
		r->stop = "output closed";
	} else {
		r->out_errno = errno ? errno : EIO;
		r->stop = "output error";
	}
	return 2;
}

/* With graph roots asked for, only their trees: around a context switch
 * 6.1 also records switch_mm_irqs_off and finish_task_switch, outside any
 * root. Decided once per outermost address. */
static bool root_wanted(struct run *r, const struct nop_gitem *gi)
{
	unsigned long long addr = gi->path[0];
	size_t slot = (addr >> 4) % (sizeof(r->root_cache) / sizeof(r->root_cache[0]));
	const char *name;

	if (!r->nroots)
		return true;
	if (r->root_cache[slot].addr == addr && r->root_cache[slot].wanted)
		return r->root_cache[slot].wanted > 0;
	name = nop_sink_func(&r->sink, addr);
	r->root_cache[slot].addr = addr;
	r->root_cache[slot].wanted = -1;
	for (size_t i = 0; i < r->nroots; i++)
		if (fnmatch(r->roots[i], name, 0) == 0)
			r->root_cache[slot].wanted = 1;
	return r->root_cache[slot].wanted > 0;
}

/* Under -p or COMMAND: is pid one of the traced tasks (or a child the
 * kernel follows)? The kernel also records the calls another task makes
 * between the sched_switch that hands the CPU to a traced task and the
 * switch itself (switch_mm_irqs_off, finish_task_switch, ...). */
static bool traced_task(struct run *r, int pid)
{
	size_t slot = (size_t)pid % (sizeof(r->task_cache) / sizeof(r->task_cache[0]));

	if (!r->by_task || !r->sess)
		return true;
	if (r->task_cache[slot].traced == 0 || r->task_cache[slot].pid != pid) {
		r->task_cache[slot].pid = pid;
		r->task_cache[slot].traced = nop_session_traces(r->sess, pid) ? 1 : -1;
	}
	return r->task_cache[slot].traced > 0;
}

/* A call out of the call-graph engine: counted, then to the sink. */
int on_call(void *ctx, const struct nop_gitem *gi)
{
	struct run *r = ctx;
	struct nop_gitem other;

	if (!root_wanted(r, gi))
		return 0;
	if (!traced_task(r, gi->pid)) {
		/* shown, marked, in the tree view; left out of sums and pictures */
		if (gi->kind != NOP_GI_ENTER)
			r->sum.other_tasks++;
		if (!r->show_others)
			return 0;
		other = *gi;
		other.other_task = true;
		return r->sink.ops->graph(&r->sink, &other) ? output_failed(r) : 0;
	}

	if (gi->kind != NOP_GI_ENTER)
		r->sum.events++;
	if (r->sink.ops->graph(&r->sink, gi))
		return output_failed(r);
	if (r->o->count && r->sum.events >= r->o->count && !r->stop) {
		r->stop = "count";
		return 1;
	}
	return 0;
}

static int count_reached(struct run *r)
{
	if (r->o->count && r->sum.events >= r->o->count) {
		r->stop = "count";
		return 1;
	}
	return 0;
}

/* Every decoded event: hits to the sink, graph events through the call
 * engine, losses to both; when recording, only counted. */
int on_event(void *ctx, const struct nop_event *ev)
{
	struct run *r = ctx;

	if (r->stop && !strcmp(r->stop, "count"))
		return 1;
	if (ev->type == NOP_EV_LOST)
		r->sum.lost_pages += ev->lost > 0 ? ev->lost : 1;
	if (r->recording) {
		r->sum.events += ev->type == NOP_EV_COUNTS ? ev->nfunc + ev->nexit
							    : ev->type == NOP_EV_FUNC || ev->type == NOP_EV_EXIT;
		return count_reached(r);
	}
	if (ev->type == NOP_EV_LOST && r->sink.ops->event && r->sink.ops->event(&r->sink, ev))
		return output_failed(r);
	if (r->graph && ev->type != NOP_EV_FUNC && ev->type != NOP_EV_STACK)
		return nop_graph_feed(r->graph, ev, on_call, r);
	if (ev->type == NOP_EV_LOST || !r->sink.ops->event)
		return 0; /* pictures are made of calls, not hits */
	if (!traced_task(r, ev->pid)) {
		r->sum.other_tasks += ev->type == NOP_EV_FUNC;
		return 0;
	}
	r->sum.events += ev->type == NOP_EV_FUNC;
	if (r->sink.ops->event(&r->sink, ev))
		return output_failed(r);
	return count_reached(r);
}


int setup_output(struct run *r, enum run_mode mode, FILE *out, struct nop_resolver *res,
			struct nop_error *err)
{
	if (mode == RUN_STATS) {
		struct nop_stats_cfg sc = { .sort = r->o->sort, .hist_func = r->o->hist };

		if (nop_sink_init_stats(&r->sink, &sc, out, stderr, res, err))
			return -1;
		r->sink.fmt = r->o->fmt; /* text or json */
	} else if (nop_sink_init(&r->sink, r->o->fmt, out, stderr, res, err)) {
		return -1;
	}
	if ((mode == RUN_GRAPH || mode == RUN_STATS || mode == RUN_REPORT) &&
	    !(r->graph = nop_graph_new(err)))
		return -1;
	r->recording = mode == RUN_RECORD;
	r->show_others = mode == RUN_GRAPH && (r->o->fmt == NOP_FMT_TEXT || r->o->fmt == NOP_FMT_JSON);
	r->sink.quiet = r->o->quiet;
	/* glibc ignores the size without a buffer: it took st_blksize, 4 KB
	 * for a pipe or /dev/null, a write per 4 KB (bench B5 on 6.1: 61,000
	 * writes while tracing the opener) */
	static char buf[1 << 18];
	bool tty = isatty(fileno(out));

	setvbuf(out, tty ? NULL : buf, tty ? _IOLBF : _IOFBF, sizeof(buf));
	return 0;
}

