/* runner.c - one live capture in named steps: check what can be checked
 * without the kernel, set up the session, the source and the pipeline,
 * start COMMAND if any, stream events until a stop condition (COMMAND
 * exit, -d, -c, a signal, a closed output pipe), then tear down in one
 * place, which restores everything whatever step was reached. */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio_ext.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <time.h>
#include <unistd.h>

#include "run.h"

static unsigned long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (unsigned long long)ts.tv_sec * 1000000000ULL + (unsigned long long)ts.tv_nsec;
}

/* ms, or fewer to wake by at (ns; 0: no such time), t being now */
static int sooner(int ms, unsigned long long at, unsigned long long t)
{
	if (!at)
		return ms;
	if (t >= at)
		return 0;
	return (at - t) / 1000000 < (unsigned long long)ms ? (int)((at - t) / 1000000) + 1 : ms;
}

/* Wait for a signal (only: nfd 1) or for data too, at most ms; by -d's
 * deadline and (-i) the interval's end at the latest. */
static int wait_for(struct run *r, struct pollfd *pfd, int nfd, int ms, unsigned long long deadline)
{
	unsigned long long t = now_ns();

	if (deadline && t >= deadline) {
		nop_pipeline_stop(r->pipe, NOP_STOP_DURATION, 0);
		return 0;
	}
	ms = sooner(sooner(ms, deadline, t), r->tick_at, t);
	if (poll(pfd, (nfds_t)nfd, ms) < 0 && errno != EINTR) {
		nop_error_set(&r->err, NOP_EINTERNAL, errno, "poll: %s", strerror(errno));
		return -1;
	}
	handle_signals(r);
	return 0;
}

/* Time for a look that is made at most once per ms: *at is when the last
 * was (0: never, or forced) */
static bool due(unsigned long long *at, unsigned ms)
{
	unsigned long long t = now_ns();

	if (*at && t - *at < ms * 1000000ULL)
		return false;
	*at = t;
	return true;
}

/* How full the buffers are, read from two files per CPU: under load a
 * round is a few pages, so at most once per FILL_MS, not every round */
#define FILL_MS 20
static void sample_fill(struct run *r)
{
	int fill;

	if (!due(&r->fill_at, FILL_MS))
		return;
	fill = nop_buffer_fill(nop_session_dir(r->sess), r->cpusp);
	if (fill > r->peak_fill)
		r->peak_fill = fill;
}

/* Rounds of reading: at once while the last one left data behind;
 * otherwise a rest of REST_MS, woken only by signals, then until data is
 * ready or TICK_MS in all, or sooner when a buffer fills fast
 * (nop_source_wait_ms). A kernel that makes trace_pipe_raw ready as
 * soon as one event is in it (not waiting for buffer_percent) would
 * otherwise have a round, and a flush of the output, every few events at
 * slow rates. A partly filled page never wakes poll, hence the tick. */
#define REST_MS 20
#define TICK_MS 100

/* -p: the run ends when no traced task runs any more (the pid list holds
 * the followed children too), like strace and perf; looked at once per
 * TICK_MS. A task that died during set-up ends it at the first look. */
static void tasks_ended(struct run *r)
{
	if (r->o->npids && !r->o->command && due(&r->alive_at, TICK_MS) &&
	    !nop_session_tasks_alive(r->sess))
		nop_pipeline_stop(r->pipe, NOP_STOP_PROCESS_EXIT, 0);
}

/* the signalfd and the source's files (CPUs come online: more of them) */
static struct pollfd *poll_set(struct run *r, struct pollfd *pfd, int *nfd)
{
	int n = nop_source_nfds(r->src);
	struct pollfd *p = pfd;

	if (pfd && n == *nfd)
		return pfd;
	if (!(p = realloc(pfd, ((size_t)n + 1) * sizeof(*p)))) {
		free(pfd);
		nop_error_set(&r->err, NOP_EINTERNAL, ENOMEM, "out of memory");
		return NULL;
	}
	p[0] = (struct pollfd){ .fd = r->sigfd, .events = POLLIN };
	for (int i = 0; i < n; i++)
		p[i + 1] = (struct pollfd){ .fd = nop_source_fd(r->src, i), .events = POLLIN };
	*nfd = n;
	return p;
}

/* catch's gate: a look every GATE_TICK_MS (gated.c) */
#define GATE_TICK_MS 10

/* what the kernel wrote by now, read (an interval's or a file's end) */
#define CATCH_UP_ROUNDS 64
static int catch_up(struct run *r)
{
	bool more = true;

	nop_source_catch_up(r->src);
	/* a round decodes a bounded number of pages: the rest, in rounds
	 * (while the kernel writes on, at most CATCH_UP_ROUNDS) */
	for (int i = 0; more && i < CATCH_UP_ROUNDS && !nop_pipeline_stopped(r->pipe); i++) {
		more = false;
		if (nop_pipeline_drain(r->pipe, r->src, &more, &r->err) == NOP_FLOW_FAIL)
			return -1;
	}
	return 0;
}

/* why a file name was skipped (nop_dat_skipped) */
static const char *skip_why(int e)
{
	return e == ELOOP ? "a symbolic link there" : e == EEXIST ? "a file made there meanwhile"
								   : "not a regular file there";
}

/* record: the file at its size (the capture ends), or --split's time */
static int bounded(struct run *r)
{
	const char *name;
	int why;
	unsigned long long skipped = nop_dat_skipped(r->dat, &name, &why);

	/* a name refused ends one file, not the run: said as it happens */
	if (skipped > r->dat_skipped && !r->o->quiet)
		fprintf(stderr, "nopctl: skipped %s: %s; the recording goes on\n", name, skip_why(why));
	r->dat_skipped = skipped;
	if (nop_dat_full(r->dat)) {
		/* what is lost after the file is full was not to be kept:
		 * the kernel's counts now are the run's */
		nop_buffer_counts(nop_session_dir(r->sess), r->cpusp, &r->at_full);
		nop_pipeline_stop(r->pipe, NOP_STOP_FULL, 0);
		return 0;
	}
	/* TIME after the last new file: a backlog read in several rounds
	 * makes one file of it, not one a round */
	if (r->split_at && now_ns() >= r->split_at) {
		r->split_at = now_ns() + r->o->split_ns;
		return catch_up(r) || nop_dat_next(r->dat, &r->err) ? -1 : 0;
	}
	return 0;
}

/* events the buffers' counters c say were overwritten and not written
 * since tracing began (r->at0) */
static void lost_since_start(const struct run *r, const struct nop_cpu_stats *c, unsigned long long *overrun,
			     unsigned long long *dropped)
{
	const struct nop_cpu_stats *c0 = &r->at0;

#define SINCE(f) (c->f > c0->f ? c->f - c0->f : 0)
	*overrun = SINCE(overrun) + SINCE(commit_overrun);
	*dropped = SINCE(dropped);
#undef SINCE
}

/* what top shows as lost so far: overwritten and not written since
 * tracing began, and pages the reader found cut short */
static unsigned long long lost_now(const struct run *r)
{
	struct nop_cpu_stats c;
	unsigned long long overrun, dropped;

	nop_buffer_counts(nop_session_dir(r->sess), r->cpusp, &c);
	lost_since_start(r, &c, &overrun, &dropped);
	return overrun + dropped + (unsigned long long)nop_pipeline_summary(r->pipe)->lost_pages;
}

/* -i: an interval's figures out (top: on the screen), the next begun.
 * Intervals are of wall-clock time, what was read by their end in them:
 * an event still in a buffer then counts in the next. */
static int tick(struct run *r)
{
	unsigned long long t = now_ns();
	struct timespec wall;
	struct nop_tick k = { .index = ++r->ticks, .span_ns = t - r->tick_from };

	clock_gettime(CLOCK_REALTIME, &wall);
	k.wall_ns = (unsigned long long)wall.tv_sec * 1000000000ULL + (unsigned long long)wall.tv_nsec;
	if (!nop_pipeline_stopped(r->pipe) && catch_up(r))
		return -1;
	r->tick_from = t;
	r->tick_at += r->o->interval_ns;
	if (r->tick_at <= t) /* a round longer than an interval: none is empty */
		r->tick_at = t + r->o->interval_ns;
	if (nop_pipeline_tick(r->pipe, &k, &r->err))
		return -1;
	if (top_drawing(r->top)) /* the counters read only for a screen that shows them */
		top_draw(r->top, r->pipe, &k, lost_now(r));
	return nop_pipeline_flush(r->pipe, &r->err) == NOP_FLOW_FAIL ? -1 : 0;
}

static int loop(struct run *r)
{
	int nfd = 0;
	struct pollfd *pfd = NULL;
	unsigned long long deadline = r->o->duration_ns ? now_ns() + r->o->duration_ns : 0;
	bool more = false;
	int ret = 0;

#define STOPPED (nop_pipeline_stopped(r->pipe) != NOP_STOP_NONE)
	if (r->o->interval_ns) {
		r->tick_from = now_ns();
		r->tick_at = r->tick_from + r->o->interval_ns;
	}
	if (r->dat && r->o->split_ns) /* from when tracing began */
		r->split_at = now_ns() + r->o->split_ns;
	while (!STOPPED) {
		int wait = more ? 0 : nop_source_wait_ms(r->src, TICK_MS);
		int rest = wait < REST_MS ? wait : REST_MS;

		if (!(pfd = poll_set(r, pfd, &nfd)))
			return -1;
		if (r->gated && !nop_gated_following(r->gated)) { /* the kernel judges: nothing read */
			if ((ret = wait_for(r, pfd, 1, r->snap_asked ? 0 : GATE_TICK_MS, deadline)) || STOPPED)
				break;
			tasks_ended(r);
			if ((ret = nop_gated_look(r->gated, r->snap_asked, &r->err)))
				break;
			r->snap_asked = false;
			more = nop_gated_following(r->gated);
			continue;
		}

		if (!more && ((ret = wait_for(r, pfd, 1, rest, deadline)) || STOPPED ||
			      (ret = wait_for(r, pfd, nfd + 1, wait - rest, deadline)) || STOPPED))
			break;
		if (more && (ret = wait_for(r, pfd, 1, 0, deadline)))
			break;
		tasks_ended(r);
		if (nop_pipeline_drain(r->pipe, r->src, &more, &r->err) == NOP_FLOW_FAIL ||
		    (!STOPPED && nop_pipeline_flush(r->pipe, &r->err) == NOP_FLOW_FAIL)) {
			if (r->dat && nop_dat_error(r->dat)->status) /* a next file could not begin */
				r->err = *nop_dat_error(r->dat);
			ret = -1;
			break;
		}
		if (r->dat && (ret = bounded(r)))
			break;
		/* a round that could not read all there was: how full is it? */
		if (more)
			sample_fill(r);
		if (r->o->live)
			top_keys(r->top, r->pipe);
		if (r->tick_at && now_ns() >= r->tick_at && !STOPPED && (ret = tick(r)))
			break;
		if (r->gated && !more && (ret = nop_gated_settle(r->gated, &r->err)))
			break;
	}
#undef STOPPED
	free(pfd);
	return ret;
}

/* available_filter_functions as read the first time the run asks (kept
 * to its teardown); NULL with r->err */
static const struct nop_funcs *run_funcs(struct run *r)
{
	if (!r->funcs_read) {
		if (load_funcs(r->tdir, &r->funcs, &r->err))
			return NULL;
		r->funcs_read = true;
	}
	return &r->funcs;
}

/* graph roots restricted to a module: set_graph_function has no :mod:,
 * so they are expanded into the module's matching names */
static int module_roots(struct run *r)
{
	const struct opts *o = r->o;
	const struct nop_funcs *f = run_funcs(r);

	r->roots = NULL;
	r->nroots = 0;
	if (!f)
		return -1;
	for (size_t i = 0; i < f->n; i++)
		for (size_t p = 0; p < o->npatterns; p++)
			if (nop_func_matches(&f->v[i], o->patterns[p], o->module)) {
				const char **nr = realloc(r->roots, (r->nroots + 1) * sizeof(*nr));

				if (!nr || !(nr[r->nroots] = strdup(f->v[i].name))) {
					if (nr)
						r->roots = nr;
					nop_error_set(&r->err, NOP_EINTERNAL, ENOMEM, "out of memory");
					return -1;
				}
				r->roots = nr;
				r->nroots++;
				break;
			}
	return 0;
}

/* Everything that can be checked without the kernel, first. */
static int check_input(struct run *r)
{
	struct opts *o = r->o;

	char cmdpath[4096] = "";

	for (size_t i = 0; i < o->npatterns; i++)
		if (pattern_arg_check(o->patterns[i], &r->err))
			return -1;
	for (size_t i = 0; i < o->nnotrace; i++)
		if (nop_pattern_check(o->notrace[i], &r->err))
			return -1;
	if (o->cpus) {
		if (nop_cpuset_parse(o->cpus, nop_ncpus(), &r->cpus, &r->err))
			return -1;
		r->cpusp = &r->cpus;
	}
	if (o->command && command_check(o->command[0], cmdpath, sizeof(cmdpath), &r->err))
		return -1;
	if (o->user && as_user_lookup(o->user, &r->user, &r->err))
		return -1;
	if (o->command && o->npids) {
		nop_error_set(&r->err, NOP_EUSAGE, 0, "-p and -- COMMAND cannot be combined");
		return -1;
	}
	/* user-space functions: the binaries' symbols, before tracefs */
	if (user_probes(r, o->command ? cmdpath : NULL))
		return -1;
	if (!o->npatterns && r->uprobes.n)
		r->tracer = NOP_TRACER_NONE; /* only probe events */
	if (geteuid() != 0) {
		nop_error_set(&r->err, NOP_EKERNEL, EPERM, "tracing needs root (CAP_SYS_ADMIN); run nopctl as root");
		return -1;
	}
	return 0;
}

/* A signal that ends the run came during the set-up (a step of it can
 * take half a minute: function_graph patches every function), seen
 * without taking it: the set-up stops at the next step */
static bool stop_pending(void *ctx)
{
	struct run *r = ctx;
	sigset_t p;

	if (sigpending(&p) < 0)
		return false;
	for (int sig = 1; sig < NSIG; sig++)
		if (sig != SIGCHLD && !(sig == SIGUSR1 && r->o->catching) && sigismember(&p, sig) == 1 &&
		    sigismember(&r->sigs, sig) == 1)
			return true;
	return false;
}

/* A graph of every function: a command's exec and exit alone are some
 * 20,000 calls, 1.3-1.8 MB of events within 50 ms, more than the kernel's
 * default 1408 KB per CPU held while the reader began (under emulation it
 * drained next to nothing meanwhile). Without -b such a capture gets
 * EVERYTHING_KB per CPU, within an eighth of the memory free. */
#define EVERYTHING_KB 8192
static size_t buffer_kb(const struct run *r)
{
	size_t kb = EVERYTHING_KB, cpus = (size_t)nop_ncpus(), free_now = nop_mem_free();

	if (r->o->buffer_kb || r->tracer != NOP_TRACER_GRAPH || r->nroots || r->o->module)
		return r->o->buffer_kb;
	if (free_now && free_now / 8 / 1024 / cpus < kb)
		kb = free_now / 8 / 1024 / cpus;
	return kb > 1408 ? kb : 0;
}

/* -e EVENTs matched against available_events (before anything is set up) */
static int kernel_events(struct run *r)
{
	for (size_t i = 0; i < r->o->nevent_args; i++)
		if (nop_kevents_add(&r->o->events, r->tdir, r->o->event_args[i].spec, r->o->event_args[i].filter,
				    &r->err))
			return -1;
	return 0;
}

/* calls' time off CPU, where their durations hold it (sleep-time): the
 * session records context switches for it */
static bool off_cpu(const struct run *r)
{
	return (r->mode == RUN_GRAPH || r->mode == RUN_STATS) && !r->o->no_sleep_time && !r->o->callers;
}

/* the session records context switches: for --before's time before a
 * call, or for off-CPU time */
static bool records_switches(const struct run *r)
{
	return r->o->before_ns > 0 || off_cpu(r);
}

/* tracefs, the patterns against this kernel, the output, the session */
static int open_session(struct run *r)
{
	struct opts *o = r->o;
	bool functions = r->tracer != NOP_TRACER_GRAPH;

	/* COMMAND forked first, waiting: the session is made for its pid
	 * (in a nested PID namespace learned from the kernel, pidns.c) */
	if (o->command) {
		r->child = spawn(o->command, o->user ? &r->user : NULL, &r->go, &r->ef);
		if (r->child < 0) {
			nop_error_set(&r->err, NOP_EINTERNAL, errno, "fork: %s", strerror(errno));
			return -1;
		}
	}
	if (!(r->tdir = prepare_tracefs(&r->err)) ||
	    (r->tracer != NOP_TRACER_NONE && (!run_funcs(r) || check_patterns(&r->funcs, o, &r->err))) ||
	    kernel_events(r) || kernel_probes(r, &r->funcs) || catch_gate(r, &r->funcs))
		return -1;
	if (r->mode == RUN_RECORD) {
		/* the trace.dat is created after the session: -o checked before */
		if (output_check(o, false, &r->err))
			return -1;
		r->out = stderr; /* the trace.dat is written by nop_dat; this is for the summary */
	}
	else if (!(r->out = open_output(o, &r->err)))
		return -1;
	if (!functions) {
		r->roots = o->patterns;
		r->nroots = o->npatterns;
		if (o->module && module_roots(r))
			return -1;
	}
	struct nop_session_cfg cfg = {
		.tracing_dir = r->tdir, .tracer = r->tracer,
		.filters = functions ? o->patterns : NULL,
		.nfilters = functions ? o->npatterns : 0,
		.roots = r->roots, .nroots = r->nroots,
		.max_depth = o->depth, .thresh_us = (o->thresh_ns + 999) / 1000,
		.retval = r->graph_retval, .no_sleep_time = o->no_sleep_time, .no_irqs = o->no_irqs,
		.notrace = o->notrace, .nnotrace = o->nnotrace,
		.module = functions ? o->module : NULL,
		.pids = o->command ? &r->child : o->pids, .npids = o->command ? 1 : o->npids,
		.follow_fork = o->npids || o->command, .stack = o->stack,
		/* system-wide, nopctl would trace its own reads of the buffers;
		 * not with -p or COMMAND: with function-fork the kernel would
		 * also exclude the child nopctl forks */
		.exclude_self = !o->npids && !o->command,
		.buffer_kb = buffer_kb(r), .cpus = r->cpusp, .force = o->force,
		.top_level = o->top_level, .uprobes = &r->uprobes, .funcs = r->funcs_read ? &r->funcs : NULL,
		.stop = stop_pending, .stop_ctx = r, .gate = r->gate, .context_switches = o->before_ns > 0,
		.events = o->events.v, .nevents = o->events.n,
		.off_cpu = off_cpu(r),
		.user_stacks = o->callers && r->nuser,
	};
	struct signalfd_siginfo si;

	if (nop_session_open(&r->sess, &cfg, &r->err) == 0)
		return 0;
	/* the gate cannot be had (restored already): judged here */
	if (r->gate && r->err.sys_errno != EINTR && r->err.remedy == NOP_REMEDY_NO_GATE) {
		snprintf(r->gate_why, sizeof(r->gate_why), "%.150s", r->err.msg);
		free(r->gate);
		r->gate = NULL;
		cfg.gate = NULL;
		r->err = (struct nop_error){ 0 };
		if (nop_session_open(&r->sess, &cfg, &r->err) == 0)
			return 0;
	}
	/* stopped by a signal: restored already; a normal end, by it */
	if (r->err.sys_errno == EINTR && read(r->sigfd, &si, sizeof(si)) == sizeof(si)) {
		r->setup_signal = (int)si.ssi_signo;
		r->err = (struct nop_error){ 0 };
	}
	return -1;
}

/* what record's and catch's files say of the session (group: 64 bytes,
 * the probe events' group, which d names) */
static void dat_desc(const struct run *r, struct nop_dat_desc *d, char *group)
{
	nop_probe_group(group, 64, getpid());
	*d = (struct nop_dat_desc){
		.uncompressed = r->o->uncompressed, .follows = r->o->npids || r->o->command,
		.switches = records_switches(r),
		.events = r->o->events.v, .nevents = r->o->events.n, .group = group, .probes = &r->uprobes,
	};
}

/* catch -o DIR: a file whose name was refused, said; the catches go on */
static void catch_skipped(void *ctx, const char *path, const char *why)
{
	fprintf(stderr, "nopctl: skipped %s: %s; the catches go on\n", path, why);
}

/* the session's buffers as a source, into a pipeline (or a trace.dat) */
static int open_pipeline(struct run *r)
{
	struct opts *o = r->o;
	struct nop_pipeline_cfg pc = {
		.sink = { .view = r->mode != RUN_STATS ? o->view : o->callers ? NOP_VIEW_CALLERS : NOP_VIEW_STATS,
			  .enc = o->enc, .out = r->out, .diag = stderr, .quiet = o->quiet,
			  .stats = { .sort = o->sort, .hist_func = o->hist, .folded = o->view == NOP_VIEW_FOLDED,
				     .interval = o->interval_ns > 0, .live = o->live } },
		.out_name = o->output,
		.graph = (r->mode == RUN_GRAPH || r->mode == RUN_STATS) && !o->callers,
		.recording = r->mode == RUN_RECORD,
		.roots = r->nuser ? r->proots : r->roots, .nroots = r->nuser ? r->nproots : r->nroots,
		.count = o->count, .thresh_ns = (o->thresh_ns + 999) / 1000 * 1000, /* the kernel's us */
		.max_depth = o->depth,
		.by_task = o->npids || o->command ? r->sess : NULL,
		.show_others = r->mode == RUN_GRAPH && o->view == NOP_VIEW_LINES,
		.probes = &r->uprobes, .errors = o->errors, .why = o->why,
		.catching = o->catching, .gated = r->gate != NULL, .slower_ns = o->slower_ns,
		.outliers = o->outliers,
	};

	if (!(r->res = nop_resolver_new(r->tdir, &r->err)) ||
	    nop_source_live(&r->src, nop_session_dir(r->sess), r->cpusp, &r->err))
		return -1;
	pc.sink.res = r->res;
	if (r->gate && nop_source_snapshot(&r->snap, nop_session_dir(r->sess), r->cpusp, &r->err))
		return -1;
	if (o->catch_dir) {
		char group[64];
		struct nop_catchfiles_cfg cc = {
			.dir = o->catch_dir, .before_ns = o->before_ns, .overwrite = o->overwrite,
			.tracing_dir = r->tdir, .page_size = nop_source_page_size(r->src), .buffer_kb = buffer_kb(r),
			.skipped = catch_skipped,
		};

		dat_desc(r, &cc.desc, group);
		if (nop_catchfiles_new(&r->catches, &cc, &r->err))
			return -1;
		nop_catchfiles_keep(r->catches, r->src);
		if (r->snap)
			nop_catchfiles_keep(r->catches, r->snap);
		pc.catch_file = nop_catchfiles_write;
		pc.catch_ctx = r->catches;
	}
	if (o->events.n && (nop_source_events(r->src, nop_session_dir(r->sess), o->events.v, o->events.n, &r->err) ||
			    (r->snap && nop_source_events(r->snap, nop_session_dir(r->sess), o->events.v, o->events.n,
							  &r->err))))
		return -1;
	if (r->uprobes.n) {
		if (nop_source_probes(r->src, nop_session_dir(r->sess), &r->uprobes, &r->err) ||
		    (r->snap && nop_source_probes(r->snap, nop_session_dir(r->sess), &r->uprobes, &r->err)))
			return -1;
		nop_resolver_set_probes(r->res, &r->uprobes);
	}
	if (nop_pipeline_new(&r->pipe, &pc, &r->err))
		return -1;
	if (r->snap && !(r->gated = nop_gated_new(r->sess, r->snap, r->pipe))) {
		nop_error_set(&r->err, NOP_EINTERNAL, ENOMEM, "out of memory");
		return -1;
	}
	if (r->mode == RUN_RECORD) {
		bool numbered = o->rotate || o->split_ns;
		char first[4200];

		char group[64];
		struct nop_dat_desc d;

		snprintf(first, sizeof(first), numbered ? "%s.1" : "%s", o->output);
		dat_desc(r, &d, group);
		if (nop_dat_open(&r->dat, first, o->overwrite, r->tdir, NULL, nop_source_page_size(r->src), &r->err))
			return -1;
		if (nop_dat_describe(r->dat, &d)) {
			nop_error_set(&r->err, NOP_EINTERNAL, ENOMEM, "out of memory");
			return -1;
		}
		if (nop_dat_bound(r->dat, o->output, o->max_size, numbered, o->rotate, o->overwrite, &r->err))
			return -1;
		nop_source_record_to(r->src, r->dat, o->count > 0);
	}
	return 0;
}

/* COMMAND waiting for tracing, tracing on, COMMAND started */
static int start(struct run *r)
{
	struct opts *o = r->o;

	nop_buffer_counts(nop_session_dir(r->sess), r->cpusp, &r->at0);
	/* a signal that came during set-up ends the run before it starts */
	handle_signals(r);
	if (nop_pipeline_stopped(r->pipe))
		return 0;
	if (!o->quiet)
		fprintf(stderr, "nopctl: tracing %zu pattern%s with %s%s in %s%s\n",
			o->npatterns + r->nuser, o->npatterns + r->nuser == 1 ? "" : "s",
			r->tracer == NOP_TRACER_GRAPH ? "function_graph"
			: r->tracer == NOP_TRACER_FUNCTION ? "function" : "uprobes",
			r->tracer != NOP_TRACER_NONE && r->uprobes.n > r->nkprobes ? " and uprobes" : "",
			nop_session_instance(r->sess) ? "instance " : "the top-level buffer",
			nop_session_instance(r->sess) ? nop_session_instance(r->sess) : "");
	if (!o->quiet && o->catching)
		fprintf(stderr, r->gate ? "nopctl: catch: the kernel judges each root call; nopctl reads the"
			" buffer only when one is caught (snapshot triggers)\n"
			: "nopctl: catch: every call read and judged here (%s)\n", r->gate_why);
	if (!o->quiet && nop_session_note(r->sess))
		fprintf(stderr, "nopctl: note: %s\n", nop_session_note(r->sess));
	if (o->live && top_open(&r->top, o->sort, o->interval_ns, &r->err))
		return -1;
	r->t0 = now_ns();
	r->ran0 = task_switches(o->pids, o->npids);
	if (nop_session_start(r->sess, &r->err))
		return -1;
	/* the kernel's symbols: with a COMMAND, read now, before it starts
	 * (its task name must still be in /proc when its first event is
	 * printed, which a read of /proc/kallsyms meanwhile would delay);
	 * otherwise when the first address is named, not before tracing is
	 * on, and not at all by a run that names none */
	if (r->child > 0 && r->mode != RUN_RECORD) {
		if (nop_resolver_load_kallsyms(r->res, "/proc/kallsyms", &r->err))
			return -1;
	} else {
		nop_resolver_defer_kallsyms(r->res, "/proc/kallsyms");
	}
	if (r->child > 0) {
		int e;

		if (write(r->go, "x", 1) != 1) {
			nop_error_set(&r->err, NOP_EINTERNAL, errno, "cannot start %s", o->command[0]);
			return -1;
		}
		close(r->go);
		r->go = -1;
		if (read(r->ef, &e, sizeof(e)) == sizeof(e)) {
			nop_error_set(&r->err, NOP_EUSAGE, e, "cannot run %s: %s", o->command[0], strerror(e));
			return -1;
		}
	}
	return 0;
}

/* function_graph of every call of -p tasks that ran, and none arrived: the
 * kernel did not trace them. Another user's shared setting (noted by the
 * session) is one cause; 6.1 has another (seen there, not on 6.12 or
 * 6.19): a task that was inside a set_graph_notrace function when a
 * function_graph session stopped is never traced by it again. */
static int tasks_ran_untraced(struct run *r, long long ran1)
{
	const struct opts *o = r->o;
	const char *s = o->npids > 1 ? "s" : "", *it = o->npids > 1 ? "they" : "it";

	if (r->tracer != NOP_TRACER_GRAPH || r->nroots || !o->npids || r->dat ||
	    nop_pipeline_summary(r->pipe)->events || r->ran0 < 0 || ran1 <= r->ran0 ||
	    nop_pipeline_stopped(r->pipe) == NOP_STOP_OUTPUT_CLOSED)
		return 0;
	if (nop_session_note(r->sess))
		nop_error_set(&r->err, NOP_EBUSY, 0,
			      "function_graph recorded no call of the traced task%s although %s ran"
			      " (%lld context switches while tracing was on): %s. With --force nopctl"
			      " sets these for its session (journaled, restored after)",
			      s, it, ran1 - r->ran0, nop_session_note(r->sess));
	else
		nop_error_set(&r->err, NOP_EKERNEL, 0,
			      "function_graph recorded no call of the traced task%s although %s ran"
			      " (%lld context switches while tracing was on): the kernel does not trace"
			      " %s. On Linux 6.1 a task that was inside a set_graph_notrace function"
			      " when a function_graph session stopped is never traced by function_graph"
			      " again; trace a process started since, or its calls with 'nopctl trace'",
			      s, it, ran1 - r->ran0, o->npids > 1 ? "them" : "it");
	return -1;
}

/* What the kernel's counters say was lost since tracing began: events
 * overwritten before they were read (overrun; commit overrun, the same
 * at the page being written), not written (dropped), and any the final
 * drain left in the buffer (unread: the run would not have shown them). */
static void lost_counts(struct run *r, enum nop_stop why)
{
	struct nop_cpu_stats c;

	if (why == NOP_STOP_FULL)
		c = r->at_full;
	else
		nop_buffer_counts(nop_session_dir(r->sess), r->cpusp, &c);
	lost_since_start(r, &c, &r->sum.overrun, &r->sum.dropped);
	/* a run cut short (-c, closed output) leaves the rest unread by choice */
	if (why != NOP_STOP_OUTPUT_CLOSED && why != NOP_STOP_FULL && !nop_pipeline_count_reached(r->pipe))
		r->sum.unread = c.entries;
	/* fill is sampled after rounds that left data behind: a burst that
	 * filled the buffer between two reads is seen only in what the
	 * kernel overwrote or dropped (issue 41 #11: 9,199 lost at "22 %") */
	r->sum.peak_fill = r->sum.overrun || r->sum.dropped ? 100 : r->peak_fill;
	r->sum.live = true;
}

/* a bounded recording's files, on stderr */
static void files_written(struct nop_dat *w)
{
	char path[4200], sz[32];
	unsigned long long size, removed = 0, skipped;
	const char *name;
	int why;

	for (size_t i = 0; nop_dat_file(w, i, path, sizeof(path), &size, &removed); i++)
		fprintf(stderr, "%s%s (%.1f MB)", i ? ", " : "nopctl: files: ", path, (double)size / 1048576);
	snprintf(sz, sizeof(sz), "; %llu older removed", removed);
	fprintf(stderr, "%s%s", removed ? sz : "", nop_dat_full(w) ? "; the capture stopped at the size limit" : "");
	if ((skipped = nop_dat_skipped(w, &name, &why)))
		fprintf(stderr, "; %llu name%s skipped, the last %s (%s)", skipped, skipped > 1 ? "s" : "", name,
			skip_why(why));
	fputc('\n', stderr);
}

/* events the kernel still counts in the buffers (not when -c stopped it) */
static bool left_unread(struct run *r)
{
	struct nop_cpu_stats c;

	if (nop_pipeline_count_reached(r->pipe))
		return false;
	nop_buffer_counts(nop_session_dir(r->sess), r->cpusp, &c);
	return c.entries > 0;
}

#define LATE_ROUNDS 20
#define LATE_MS 5

/* Tracing off, what is left in the buffers read, the counts, the summary */
static int finish(struct run *r)
{
	enum nop_stop why = nop_pipeline_stopped(r->pipe);
	long long ran1;
	bool rest = true, runs_on;
	unsigned long long skipped;

	r->sum.duration_ns = why ? now_ns() - r->t0 : 0;
	if (nop_session_stop(r->sess, &r->err))
		return -1;
	ran1 = task_switches(r->o->pids, r->o->npids);
	r->fill_at = 0; /* what tracing left behind, always */
	sample_fill(r);
	/* the gate: a snapshot not read yet, before what the buffer holds;
	 * the gate's counts final now (tracing is off) */
	if (r->gated && nop_gated_end(r->gated, why != NOP_STOP_OUTPUT_CLOSED, &r->sum.roots, &r->sum.hits, &rest,
				      &r->err))
		return -1;
	/* tracing is off: what is left is bounded by the buffer size. The
	 * gate, armed: the kernel found nothing since the buffer was last read
	 * (the hits the same), nothing there to catch, none of it read */
	nop_source_end(r->src);
	rest = rest && why != NOP_STOP_OUTPUT_CLOSED && why != NOP_STOP_FULL;
	if (rest && nop_pipeline_drain_all(r->pipe, r->src, &r->err))
		return -1;
	/* tracing_on=0 does not wait for writers in flight: an event a CPU
	 * reserved before it commits after, and can come after the drain (a
	 * traced task's last context switch as it exits; under emulation the
	 * writer's vCPU may not run again for a time slice). What is left is
	 * read again while the kernel counts entries unread, a while apart. */
	for (int i = 0; rest && i < LATE_ROUNDS && left_unread(r); i++) {
		nanosleep(&(struct timespec){ 0, LATE_MS * 1000000L }, NULL);
		if (nop_pipeline_drain_all(r->pipe, r->src, &r->err))
			return -1;
	}
	if (tasks_ran_untraced(r, ran1))
		return -1;
	lost_counts(r, why);
	if (r->gate) { /* overwriting is the gate's design; its counts say what was missed */
		r->sum.overrun = r->sum.dropped = r->sum.unread = 0;
		r->sum.peak_fill = 0;
		r->sum.gated = true;
		r->sum.snapshots = nop_gated_snapshots(r->gated);
	}
	/* the summary counts the file: with -c, what was counted as it came
	 * stopped at the Nth event, while the pages read with it were saved */
	if (r->dat && nop_pipeline_count_saved(r->pipe, r->src, r->dat, &r->err) == NOP_FLOW_FAIL)
		return -1;
	if (r->dat && nop_dat_finish(r->dat, &r->err))
		return -1;
	if (r->dat && (r->o->max_size || r->o->split_ns) && !r->o->quiet)
		files_written(r->dat);
	/* the last interval, cut short by the end; a live view's screen goes
	 * before the whole run's table is printed */
	if (r->tick_at && !r->o->live && why != NOP_STOP_OUTPUT_CLOSED && tick(r))
		return -1;
	top_close(&r->top);
	/* a size bound protects the disk; it does not choose how long COMMAND
	 * runs: it runs on untraced, waited for after the session's restore */
	runs_on = why == NOP_STOP_FULL && r->child > 0 && !r->child_exited;
	if (!runs_on)
		reap_child(r);
	r->sum.exit_status = r->o->command && !runs_on ? r->child_status : -1;
	r->sum.kevents_asked = r->o->events.n > 0;
	if (nop_pipeline_finish(r->pipe, &r->sum, &r->err))
		return -1;
	if (runs_on && !r->o->quiet)
		fprintf(stderr, "nopctl: the size limit ended the recording; the command runs on untraced,"
			" nopctl waits for it\n");
	if ((skipped = nop_catchfiles_skipped(r->catches)) && !r->o->quiet)
		fprintf(stderr, "nopctl: %llu catch file%s not written: %s name refused (said above)\n", skipped,
			skipped > 1 ? "s" : "", skipped > 1 ? "their" : "its");
	/* a buffer seen 3/4 full came close to losing events */
	if (r->o->enc != NOP_ENC_JSON && !r->o->quiet && r->sum.peak_fill >= 75)
		fprintf(stderr, "nopctl: a CPU's buffer was %d%% full at its peak: a larger -b KB keeps"
			" events from being lost\n", r->sum.peak_fill);
	return 0;
}

/* Whatever was set up is released here; the session's restore first. */
static int teardown(struct run *r)
{
	char left[600] = ""; /* no session: nothing left */
	struct nop_error e2;
	int code = 0;
	bool closed = r->pipe && nop_pipeline_output_closed(r->pipe);
	enum nop_stop why = r->pipe ? nop_pipeline_stopped(r->pipe) : NOP_STOP_NONE;

	top_close(&r->top);
	if (r->go >= 0)
		close(r->go); /* a child still waiting exits 127 */
	if (r->ef >= 0)
		close(r->ef);
	nop_source_close(r->src);
	nop_gated_free(r->gated);
	nop_source_close(r->snap);
	nop_catchfiles_free(r->catches);
	if (r->sess && nop_session_close(r->sess, left, sizeof(left), r->err.status ? &e2 : &r->err) &&
	    !r->err.status)
		r->err.status = NOP_EINTERNAL;
	free(r->gate); /* the session's cfg pointed to it */
	if (left[0] && !r->o->quiet)
		fprintf(stderr, "nopctl: note: changed by someone else while nopctl traced, so left"
			" as they are now: %s\n", left);
	if (r->child > 0 && why == NOP_STOP_FULL && !r->err.status)
		wait_child(r);
	else if (r->child > 0)
		reap_child(r);
	nop_pipeline_free(r->pipe);
	if (r->roots != r->o->patterns) {
		for (size_t i = 0; i < r->nroots; i++)
			free((char *)r->roots[i]);
		free(r->roots);
	}
	nop_resolver_free(r->res);
	nop_uprobes_free(&r->uprobes);
	if (r->funcs_read)
		nop_funcs_free(&r->funcs);
	free(r->proots);
	if (r->out && r->out != stdout && r->out != stderr)
		fclose(r->out);
	if (r->err.status) {
		/* a failure keeps what was whole before it: named */
		if (r->dat && (r->o->max_size || r->o->split_ns) && !r->o->quiet)
			files_written(r->dat);
		nop_dat_free(r->dat, true);
		return report_error(r->o, &r->err);
	}
	nop_dat_free(r->dat, true);
	if (r->setup_signal) {
		if (!r->o->quiet)
			fprintf(stderr, "nopctl: stopped by SIG%s during set-up, before tracing began;"
				" nothing traced, the kernel as it was\n",
				sigabbrev_np(r->setup_signal) ? sigabbrev_np(r->setup_signal) : "?");
		return 128 + r->setup_signal;
	}
	/* whoever read the output is gone (| head): a normal end, exit 0,
	 * also when it went while the last events or the table were written
	 * (a loss, a command's status: the reader no longer wants them);
	 * COMMAND was sent SIGTERM by nopctl, and its status is not news.
	 * What stdio still holds for the pipe is dropped, not reported. */
	if (closed) {
		if (r->out == stdout) {
			__fpurge(stdout);
			clearerr(stdout);
		}
		return 0;
	}
	/* -c or -d ended the run, and nopctl the command still running: its
	 * status is nopctl's own SIGTERM, not news (a signal the user sent
	 * was passed to it, and its status is) */
	if (r->o->command && r->child_status != 0 &&
	    !(r->child_ended && (why == NOP_STOP_COUNT || why == NOP_STOP_DURATION || why == NOP_STOP_QUIT ||
				  why == NOP_STOP_FULL)))
		code = r->child_status;
	else if (r->sum.lost_pages || r->sum.overrun || r->sum.dropped || r->sum.unread || r->sum.gaps ||
		 r->sum.not_whole || r->sum.missed)
		code = NOP_ELOST;
	return code;
}

int run_capture(struct opts *o, enum run_mode mode)
{
	struct run r = {
		.o = o, .mode = mode, .sigfd = -1, .child_status = -1, .go = -1, .ef = -1, .ran0 = -1,
		.t0 = now_ns(),
		.tracer = mode == RUN_TRACE || (mode == RUN_RECORD && !o->graph) || (mode == RUN_STATS && o->callers)
				  ? NOP_TRACER_FUNCTION : NOP_TRACER_GRAPH,
	};

	if (check_input(&r) || fd_limit_for_cpus(&r.err))
		return report_error(o, &r.err);
	r.sigfd = signals_block(&r.sigs);
	if (r.sigfd < 0) {
		nop_error_set(&r.err, NOP_EINTERNAL, errno, "signalfd: %s", strerror(errno));
		return report_error(o, &r.err);
	}
	if (!open_session(&r) && !open_pipeline(&r) && !start(&r) &&
	    (nop_pipeline_stopped(r.pipe) || !loop(&r)))
		finish(&r);
	return teardown(&r);
}
