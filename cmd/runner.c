/* runner.c - the capture loop: set up a session, start COMMAND if any,
 * stream events until a stop condition, then restore everything.
 *
 * Signals are blocked from the start and read from a signalfd in the loop,
 * so every way of ending (COMMAND exit, -d, -c, SIGINT/TERM/HUP/QUIT, a
 * closed output pipe) leaves through the same teardown.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <trace-cmd.h>

#include "cmd.h"

struct run {
	struct opts *o;
	struct nop_graph *graph; /* graph, stats, report */
	bool recording;		 /* record: pages saved raw, events counted */
	struct nop_sink sink;
	struct nop_summary sum;
	const char *stop; /* why the loop ended; NULL while running */
	int sigfd;
	pid_t child;
	int child_status;
	bool out_closed; /* the reader went away (EPIPE): a normal end */
	int out_errno;	 /* any other write error */
};

static unsigned long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (unsigned long long)ts.tv_sec * 1000000000ULL + (unsigned long long)ts.tv_nsec;
}

/* EPIPE: whoever read our output is gone, a normal way to end (| head).
 * Anything else (ENOSPC, EIO) is an error. */
static int output_failed(struct run *r)
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

/* A call out of the call-graph engine: counted, then to the sink. */
static int on_call(void *ctx, const struct nop_gitem *gi)
{
	struct run *r = ctx;

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
static int on_event(void *ctx, const struct nop_event *ev)
{
	struct run *r = ctx;

	if (r->stop && !strcmp(r->stop, "count"))
		return 1;
	if (ev->type == NOP_EV_LOST)
		r->sum.lost_pages += ev->lost > 0 ? ev->lost : 1;
	if (r->recording) {
		r->sum.events += ev->type == NOP_EV_FUNC || ev->type == NOP_EV_EXIT;
		return count_reached(r);
	}
	if (ev->type == NOP_EV_LOST && r->sink.ops->event && r->sink.ops->event(&r->sink, ev))
		return output_failed(r);
	if (r->graph && ev->type != NOP_EV_FUNC && ev->type != NOP_EV_STACK)
		return nop_graph_feed(r->graph, ev, on_call, r);
	if (ev->type == NOP_EV_LOST || !r->sink.ops->event)
		return 0; /* pictures are made of calls, not hits */
	r->sum.events += ev->type == NOP_EV_FUNC;
	if (r->sink.ops->event(&r->sink, ev))
		return output_failed(r);
	return count_reached(r);
}

/* A script that starts nopctl with '&' gets SIGINT and SIGQUIT ignored
 * (POSIX shells do that to background jobs), and an ignored signal is
 * discarded even while blocked: 'kill -INT' would never stop the run. So
 * INT, QUIT and TERM are always taken; an ignored SIGHUP is left ignored,
 * as nohup asked. */
static int signals_block(sigset_t *set)
{
	struct sigaction old;
	static const int always[] = { SIGINT, SIGQUIT, SIGTERM, SIGCHLD };

	sigemptyset(set);
	for (size_t i = 0; i < sizeof(always) / sizeof(always[0]); i++) {
		signal(always[i], SIG_DFL);
		sigaddset(set, always[i]);
	}
	if (sigaction(SIGHUP, NULL, &old) == 0 && old.sa_handler != SIG_IGN)
		sigaddset(set, SIGHUP);
	signal(SIGPIPE, SIG_IGN);
	if (sigprocmask(SIG_BLOCK, set, NULL) < 0)
		return -1;
	return signalfd(-1, set, SFD_CLOEXEC | SFD_NONBLOCK);
}

/* The child waits on a pipe until tracing is on, so that it is traced
 * from its first instruction; exec errors come back on a second pipe. */
static pid_t spawn(char **argv, int *go_fd, int *err_fd)
{
	int go[2], ef[2];
	sigset_t none;
	pid_t pid;

	if (pipe2(go, O_CLOEXEC) < 0)
		return -1;
	if (pipe2(ef, O_CLOEXEC) < 0) {
		close(go[0]);
		close(go[1]);
		return -1;
	}
	pid = fork();
	if (pid == 0) {
		char c;
		int e;

		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		signal(SIGPIPE, SIG_DFL);
		close(go[1]);
		close(ef[0]);
		if (read(go[0], &c, 1) != 1)
			_exit(127); /* nopctl gave up before tracing started */
		execvp(argv[0], argv);
		e = errno;
		if (write(ef[1], &e, sizeof(e)) < 0)
			_exit(127);
		_exit(127);
	}
	close(go[0]);
	close(ef[1]);
	if (pid < 0) {
		close(go[1]);
		close(ef[0]);
		return -1;
	}
	*go_fd = go[1];
	*err_fd = ef[0];
	return pid;
}

static void handle_signals(struct run *r)
{
	struct signalfd_siginfo si;

	while (read(r->sigfd, &si, sizeof(si)) == sizeof(si)) {
		if (si.ssi_signo == SIGCHLD) {
			int status;

			if (r->child > 0 && waitpid(r->child, &status, WNOHANG) == r->child) {
				r->child_status = WIFEXITED(status) ? WEXITSTATUS(status)
								    : 128 + WTERMSIG(status);
				r->child = 0;
				if (!r->stop)
					r->stop = "command exit";
			}
			continue;
		}
		if (!r->stop) {
			static char why[32];

			snprintf(why, sizeof(why), "SIG%s", sigabbrev_np((int)si.ssi_signo));
			r->stop = why;
		}
		if (r->child > 0)
			kill(r->child, (int)si.ssi_signo);
	}
}

static void reap_child(struct run *r)
{
	int status;

	for (int i = 0; r->child > 0 && i < 200; i++) {
		pid_t w = waitpid(r->child, &status, i < 100 ? WNOHANG : 0);

		if (w == r->child) {
			r->child_status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
			r->child = 0;
			return;
		}
		if (i == 99)
			kill(r->child, SIGKILL); /* 1 s after SIGTERM */
		if (i == 0)
			kill(r->child, SIGTERM);
		usleep(10000);
	}
}

static int loop(struct run *r, struct nop_stream *st, struct nop_error *err)
{
	int nfd = nop_stream_nfds(st);
	struct pollfd *pfd = calloc((size_t)nfd + 1, sizeof(*pfd));
	unsigned long long deadline = r->o->duration_ns ? now_ns() + r->o->duration_ns : 0;
	int ret = 0;

	if (!pfd) {
		nop_error_set(err, NOP_EINTERNAL, ENOMEM, "out of memory");
		return -1;
	}
	pfd[0].fd = r->sigfd;
	pfd[0].events = POLLIN;
	for (int i = 0; i < nfd; i++) {
		pfd[i + 1].fd = nop_stream_fd(st, i);
		pfd[i + 1].events = POLLIN;
	}
	bool more = false;

	while (!r->stop) {
		/* a partly filled page does not wake poll: look every 100 ms;
		 * at once when the last round left data behind */
		int timeout = more ? 0 : 100;

		if (deadline) {
			unsigned long long t = now_ns();

			if (t >= deadline) {
				r->stop = "duration";
				break;
			}
			if ((deadline - t) / 1000000 < (unsigned long long)timeout)
				timeout = (int)((deadline - t) / 1000000) + 1;
		}
		if (poll(pfd, (nfds_t)nfd + 1, timeout) < 0 && errno != EINTR) {
			nop_error_set(err, NOP_EINTERNAL, errno, "poll: %s", strerror(errno));
			ret = -1;
			break;
		}
		handle_signals(r);
		ret = nop_stream_drain(st, on_event, r, &more, err);
		if (ret < 0)
			break;
		ret = 0;
		if (!r->stop && fflush(r->sink.out) != 0)
			output_failed(r);
	}
	free(pfd);
	return ret;
}

static void lost_counters(const char *dir, const struct nop_cpuset *cpus,
			  unsigned long long *overrun, unsigned long long *dropped)
{
	struct nop_cpu_stats cs;
	struct nop_error e;

	*overrun = *dropped = 0;
	for (int cpu = 0; cpu < nop_ncpus(); cpu++) {
		if (cpus && !nop_cpuset_has(cpus, cpu))
			continue;
		if (nop_cpu_stats_read(dir, cpu, &cs, &e) == 0) {
			*overrun += cs.overrun;
			*dropped += cs.dropped;
		}
	}
}

static int setup_output(struct run *r, enum run_mode mode, FILE *out, struct nop_resolver *res,
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
	r->sink.quiet = r->o->quiet;
	setvbuf(out, NULL, isatty(fileno(out)) ? _IOLBF : _IOFBF, 1 << 16);
	return 0;
}

/* graph roots restricted to a module: set_graph_function has no :mod:,
 * so they are expanded into the module's matching names */
static int module_roots(const char *tdir, const struct opts *o, const char ***roots, size_t *n,
			struct nop_error *err)
{
	struct nop_funcs f;

	*roots = NULL;
	*n = 0;
	if (nop_funcs_load(tdir, &f, err))
		return -1;
	for (size_t i = 0; i < f.n; i++)
		for (size_t p = 0; p < o->npatterns; p++)
			if (nop_func_matches(&f.v[i], o->patterns[p], o->module)) {
				const char **nr = realloc(*roots, (*n + 1) * sizeof(*nr));

				if (!nr || !(nr[*n] = strdup(f.v[i].name))) {
					nop_funcs_free(&f);
					nop_error_set(err, NOP_EINTERNAL, ENOMEM, "out of memory");
					return -1;
				}
				*roots = nr;
				(*n)++;
				break;
			}
	nop_funcs_free(&f);
	return 0;
}

int run_capture(struct opts *o, enum run_mode mode)
{
	bool functions = mode == RUN_TRACE || (mode == RUN_RECORD && !o->graph);
	enum nop_tracer tracer = functions ? NOP_TRACER_FUNCTION : NOP_TRACER_GRAPH;
	struct nop_dat *dat = NULL;
	const char **roots = NULL;
	size_t nroots = 0;
	struct run r = { .o = o, .sigfd = -1, .child_status = -1 };
	struct nop_error err = { 0 }, e2;
	struct nop_session *sess = NULL;
	struct nop_decoder *dec = NULL;
	struct nop_resolver *res = NULL;
	struct nop_stream *st = NULL;
	struct nop_cpuset cpus, *cpusp = NULL;
	unsigned long long t0 = now_ns(), ov0 = 0, dr0 = 0;
	const char *tdir;
	FILE *out = NULL;
	sigset_t set;
	int go = -1, ef = -1, code = 0;

	/* everything that can be checked without the kernel, first */
	for (size_t i = 0; i < o->npatterns; i++)
		if (nop_pattern_check(o->patterns[i], &err))
			return report_error(o, &err);
	for (size_t i = 0; i < o->nnotrace; i++)
		if (nop_pattern_check(o->notrace[i], &err))
			return report_error(o, &err);
	if (mode == RUN_RECORD && !o->output) {
		nop_error_set(&err, NOP_EUSAGE, 0, "record needs -o FILE (the trace.dat to write)");
		return report_error(o, &err);
	}
	if (!o->npatterns && functions) {
		nop_error_set(&err, NOP_EUSAGE, 0,
			      "no function pattern given; e.g. 'nopctl trace do_sys_openat2'"
			      " ('nopctl list' shows what can be traced)");
		return report_error(o, &err);
	}
	if (!o->npatterns && !o->npids && !o->command) {
		nop_error_set(&err, NOP_EUSAGE, 0,
			      "give a root function, -p PID or -- COMMAND: nopctl does not graph every"
			      " task of the whole kernel (e.g. 'nopctl graph do_sys_openat2')");
		return report_error(o, &err);
	}
	if (o->cpus) {
		if (nop_cpuset_parse(o->cpus, nop_ncpus(), &cpus, &err))
			return report_error(o, &err);
		cpusp = &cpus;
	}
	if (o->command && command_check(o->command[0], &err))
		return report_error(o, &err);
	if (o->command && o->npids) {
		nop_error_set(&err, NOP_EUSAGE, 0, "-p and -- COMMAND cannot be combined");
		return report_error(o, &err);
	}
	if (geteuid() != 0) {
		nop_error_set(&err, NOP_EKERNEL, EPERM, "tracing needs root (CAP_SYS_ADMIN); run nopctl as root");
		return report_error(o, &err);
	}
	r.sigfd = signals_block(&set);
	if (r.sigfd < 0) {
		nop_error_set(&err, NOP_EINTERNAL, errno, "signalfd: %s", strerror(errno));
		return report_error(o, &err);
	}
	if (!(tdir = prepare_tracefs(&err)) || check_patterns(tdir, o, &err))
		goto out;
	if (mode == RUN_RECORD)
		out = stderr; /* the trace.dat is written by nop_dat; this is for the summary */
	else if (!(out = open_output(o, &err)))
		goto out;

	if (!functions) {
		roots = o->patterns;
		nroots = o->npatterns;
		if (o->module && module_roots(tdir, o, &roots, &nroots, &err))
			goto out;
	}
	struct nop_session_cfg cfg = {
		.tracing_dir = tdir, .tracer = tracer,
		.filters = functions ? o->patterns : NULL,
		.nfilters = functions ? o->npatterns : 0,
		.roots = roots, .nroots = nroots,
		.max_depth = o->depth, .thresh_us = (o->thresh_ns + 999) / 1000,
		.retval = o->retval, .no_sleep_time = o->no_sleep_time, .no_irqs = o->no_irqs,
		.notrace = o->notrace, .nnotrace = o->nnotrace,
		.module = functions ? o->module : NULL,
		.pids = o->pids, .npids = o->npids,
		.follow_fork = o->npids || o->command, .stack = o->stack,
		.buffer_kb = o->buffer_kb, .cpus = cpusp, .force = o->force,
		.top_level = o->top_level,
	};
	if (nop_session_open(&sess, &cfg, &err))
		goto out;
	if (!(dec = nop_decoder_new(nop_session_dir(sess), &err)) ||
	    !(res = nop_resolver_new(tdir, &err)) ||
	    nop_resolver_load_kallsyms(res, "/proc/kallsyms", &err) ||
	    nop_stream_open(&st, dec, nop_session_dir(sess), cpusp, &err) ||
	    setup_output(&r, mode, out, res, &err))
		goto out;
	if (mode == RUN_RECORD) {
		if (nop_dat_open(&dat, o->output, o->force, tdir, NULL, nop_decoder_page_size(dec), &err))
			goto out;
		nop_stream_set_raw(st, (nop_raw_fn)nop_dat_page, dat);
	}
	lost_counters(nop_session_dir(sess), cpusp, &ov0, &dr0);
	if (o->command) {
		r.child = spawn(o->command, &go, &ef);
		if (r.child < 0) {
			nop_error_set(&err, NOP_EINTERNAL, errno, "fork: %s", strerror(errno));
			goto out;
		}
		if (nop_session_set_pids(sess, &r.child, 1, &err))
			goto out;
	}
	/* a signal that came during set-up ends the run before it starts */
	handle_signals(&r);
	if (r.stop)
		goto teardown;
	if (!o->quiet)
		fprintf(stderr, "nopctl: tracing %zu pattern%s with %s in %s%s\n", o->npatterns,
			o->npatterns == 1 ? "" : "s", tracer == NOP_TRACER_GRAPH ? "function_graph" : "function",
			nop_session_instance(sess) ? "instance " : "the top-level buffer",
			nop_session_instance(sess) ? nop_session_instance(sess) : "");
	t0 = now_ns();
	if (nop_session_start(sess, &err))
		goto out;
	if (r.child > 0) {
		int e;

		if (write(go, "x", 1) != 1) {
			nop_error_set(&err, NOP_EINTERNAL, errno, "cannot start %s", o->command[0]);
			goto out;
		}
		close(go);
		go = -1;
		if (read(ef, &e, sizeof(e)) == sizeof(e)) {
			nop_error_set(&err, NOP_EUSAGE, e, "cannot run %s: %s", o->command[0], strerror(e));
			goto out;
		}
	}
	if (loop(&r, st, &err) < 0)
		goto out;
teardown:
	r.sum.duration_ns = r.stop ? now_ns() - t0 : 0;
	if (nop_session_stop(sess, &err))
		goto out;
	/* tracing is off: what is left is bounded by the buffer size */
	for (bool more = !r.out_closed && !r.out_errno && strcmp(r.stop, "count"); more;)
		if (nop_stream_drain(st, on_event, &r, &more, &err) < 0)
			goto out;
	lost_counters(nop_session_dir(sess), cpusp, &r.sum.overrun, &r.sum.dropped);
	r.sum.overrun -= ov0 < r.sum.overrun ? ov0 : r.sum.overrun;
	r.sum.dropped -= dr0 < r.sum.dropped ? dr0 : r.sum.dropped;
	if (r.graph && !r.out_closed && !r.out_errno && nop_graph_finish(r.graph, on_call, &r) < 0) {
		nop_error_set(&err, NOP_EINTERNAL, ENOMEM, "out of memory");
		goto out;
	}
	if (dat && nop_dat_finish(dat, &err))
		goto out;
	reap_child(&r);
	r.sum.exit_status = o->command ? r.child_status : -1;
	r.sum.stop_reason = r.stop;
	if (!r.out_closed && !r.out_errno) {
		r.sink.ops->summary(&r.sink, &r.sum);
		if (fflush(out) != 0 && errno != EPIPE)
			r.out_errno = errno;
	}
	if (r.out_errno) {
		nop_error_set(&err, NOP_EINTERNAL, r.out_errno, "cannot write output%s%s: %s",
			      o->output ? " to " : "", o->output ? o->output : "", strerror(r.out_errno));
		goto out;
	}
out:
	if (go >= 0)
		close(go); /* a child still waiting exits 127 */
	if (ef >= 0)
		close(ef);
	nop_stream_close(st);
	if (sess && nop_session_close(sess, err.status ? &e2 : &err) && !err.status)
		err.status = err.status ? err.status : NOP_EINTERNAL;
	if (r.child > 0)
		reap_child(&r);
	nop_sink_free(&r.sink);
	nop_graph_free(r.graph);
	if (roots != o->patterns) {
		for (size_t i = 0; i < nroots; i++)
			free((char *)roots[i]);
		free(roots);
	}
	nop_decoder_free(dec);
	nop_resolver_free(res);
	nop_dat_free(dat, !err.status);
	if (out && out != stdout && out != stderr)
		fclose(out);
	if (err.status)
		return report_error(o, &err);
	if (o->command && r.child_status != 0)
		code = r.child_status;
	else if (r.sum.lost_pages || r.sum.overrun || r.sum.dropped)
		code = NOP_ELOST;
	return code;
}

struct report_ctx {
	struct run *r;
	struct nop_decoder *dec;
	unsigned long long first, last; /* the capture's time span */
};

static int report_record(struct tracecmd_input *h, struct tep_record *rec, int cpu, void *data)
{
	struct report_ctx *c = data;

	if (!c->first || rec->ts < c->first)
		c->first = rec->ts;
	if (rec->ts > c->last)
		c->last = rec->ts;
	return nop_decode_record(c->dec, rec, on_event, c->r);
}

int run_report(struct opts *o, const char *file)
{
	struct run r = { .o = o, .sigfd = -1, .child_status = -1 };
	struct nop_error err = { 0 };
	struct tracecmd_input *h = NULL;
	struct nop_decoder *dec = NULL;
	struct nop_resolver *res = NULL;
	struct report_ctx ctx = { .r = &r };
	FILE *out = NULL;
	int code = 0;

	signal(SIGPIPE, SIG_IGN);
	tracecmd_set_loglevel(TEP_LOG_NONE);
	if (access(file, R_OK) < 0) {
		nop_error_set(&err, NOP_EUSAGE, errno, "cannot read %s: %s", file, strerror(errno));
		return report_error(o, &err);
	}
	if (!(h = tracecmd_open(file, 0))) {
		nop_error_set(&err, NOP_EUSAGE, 0, "%s is not a trace.dat file (trace-cmd's format)", file);
		return report_error(o, &err);
	}
	if (!(dec = nop_decoder_from_tep(tracecmd_get_tep(h), &err)) ||
	    !(res = nop_resolver_from_tep(tracecmd_get_tep(h), &err)) || !(out = open_output(o, &err)) ||
	    setup_output(&r, o->stats ? RUN_STATS : RUN_REPORT, out, res, &err))
		goto out;
	ctx.dec = dec;
	if (tracecmd_iterate_events(h, NULL, 0, report_record, &ctx) < 0 && !r.stop) {
		nop_error_set(&err, NOP_EINTERNAL, 0, "cannot read the events of %s", file);
		goto out;
	}
	if (!r.stop) {
		nop_decode_flush(dec, on_event, &r);
		r.stop = "end of file";
	}
	if (r.graph && !r.out_closed && !r.out_errno)
		nop_graph_finish(r.graph, on_call, &r);
	r.sum.exit_status = -1;
	r.sum.stop_reason = r.stop;
	r.sum.duration_ns = ctx.last - ctx.first;
	if (!r.out_closed && !r.out_errno) {
		r.sink.ops->summary(&r.sink, &r.sum);
		if (fflush(out) != 0 && errno != EPIPE)
			r.out_errno = errno;
	}
	if (r.out_errno)
		nop_error_set(&err, NOP_EINTERNAL, r.out_errno, "cannot write output: %s", strerror(r.out_errno));
out:
	nop_sink_free(&r.sink);
	nop_graph_free(r.graph);
	nop_decoder_free(dec);
	nop_resolver_free(res);
	if (h)
		tracecmd_close(h);
	if (out && out != stdout)
		fclose(out);
	if (err.status)
		return report_error(o, &err);
	if (r.sum.lost_pages)
		code = NOP_ELOST;
	return code;
}
