/* runner.c - the capture loop: set up a session, start COMMAND if any,
 * stream events until a stop condition (COMMAND exit, -d, -c, a signal, a
 * closed output pipe), then restore everything. */
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "run.h"

static unsigned long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (unsigned long long)ts.tv_sec * 1000000000ULL + (unsigned long long)ts.tv_nsec;
}

/* Wait for a signal (only: nfd 1) or for data too, at most ms. */
static int wait_for(struct run *r, struct pollfd *pfd, int nfd, int ms, unsigned long long deadline,
		    struct nop_error *err)
{
	if (deadline) {
		unsigned long long t = now_ns();

		if (t >= deadline) {
			r->stop = "duration";
			return 0;
		}
		if ((deadline - t) / 1000000 < (unsigned long long)ms)
			ms = (int)((deadline - t) / 1000000) + 1;
	}
	if (poll(pfd, (nfds_t)nfd, ms) < 0 && errno != EINTR) {
		nop_error_set(err, NOP_EINTERNAL, errno, "poll: %s", strerror(errno));
		return -1;
	}
	handle_signals(r);
	return 0;
}

/* Rounds of reading: at once while the last one left data behind;
 * otherwise a rest of REST_MS, woken only by signals, then until data is
 * ready or TICK_MS in all. A kernel that makes trace_pipe_raw ready as
 * soon as one event is in it (not waiting for buffer_percent) would
 * otherwise have a round, and a flush of the output, every few events at
 * slow rates. A partly filled page never wakes poll, hence the tick. */
#define REST_MS 20
#define TICK_MS 100

static int loop(struct run *r, struct nop_stream *st, struct nop_error *err)
{
	int nfd = nop_stream_nfds(st);
	struct pollfd *pfd = calloc((size_t)nfd + 1, sizeof(*pfd));
	unsigned long long deadline = r->o->duration_ns ? now_ns() + r->o->duration_ns : 0;
	bool more = false;
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
	while (!r->stop) {
		if (!more && ((ret = wait_for(r, pfd, 1, REST_MS, deadline, err)) || r->stop ||
			      (ret = wait_for(r, pfd, nfd + 1, TICK_MS - REST_MS, deadline, err)) || r->stop))
			break;
		if (more && (ret = wait_for(r, pfd, 1, 0, deadline, err)))
			break;
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
	long long ran0 = -1, ran1 = -1;

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
		/* system-wide, nopctl would trace its own reads of the buffers;
		 * not with -p or COMMAND: with function-fork the kernel would
		 * also exclude the child nopctl forks */
		.exclude_self = !o->npids && !o->command,
		.buffer_kb = o->buffer_kb, .cpus = cpusp, .force = o->force,
		.top_level = o->top_level,
	};
	if (nop_session_open(&sess, &cfg, &err))
		goto out;
	r.sess = sess;
	r.by_task = r.sum.by_task = o->npids || o->command;
	r.roots = roots;
	r.nroots = nroots;
	if (!(dec = nop_decoder_new(nop_session_dir(sess), &err)) ||
	    !(res = nop_resolver_new(tdir, &err)) ||
	    nop_stream_open(&st, dec, nop_session_dir(sess), cpusp, &err) ||
	    setup_output(&r, mode, out, res, &err))
		goto out;
	if (mode == RUN_RECORD) {
		if (nop_dat_open(&dat, o->output, o->force, tdir, NULL, nop_decoder_page_size(dec), &err))
			goto out;
		nop_stream_set_raw(st, (nop_raw_fn)nop_dat_page, dat);
		/* pages are saved whole; the summary needs only their counts
		 * (decoding every event cost the traced program time, bench B5) */
		nop_stream_set_count_only(st, true);
	}
	nop_buffer_lost(nop_session_dir(sess), cpusp, &ov0, &dr0);
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
	if (!o->quiet && nop_session_note(sess))
		fprintf(stderr, "nopctl: note: %s\n", nop_session_note(sess));
	t0 = now_ns();
	ran0 = task_switches(o->pids, o->npids);
	if (nop_session_start(sess, &err))
		goto out;
	/* the kernel's symbols: with a COMMAND, read now, before it starts
	 * (its task name must still be in /proc when its first event is
	 * printed, which a read of /proc/kallsyms meanwhile would delay);
	 * otherwise when the first address is named, not before tracing is
	 * on, and not at all by a run that names none */
	if (r.child > 0 && mode != RUN_RECORD) {
		if (nop_resolver_load_kallsyms(res, "/proc/kallsyms", &err))
			goto out;
	} else {
		nop_resolver_defer_kallsyms(res, "/proc/kallsyms");
	}
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
	ran1 = task_switches(o->pids, o->npids);
	/* tracing is off: what is left is bounded by the buffer size */
	for (bool more = !r.out_closed && !r.out_errno && strcmp(r.stop, "count"); more;)
		if (nop_stream_drain(st, on_event, &r, &more, &err) < 0)
			goto out;
	/* function_graph of every call of tasks that ran, and none arrived:
	 * the kernel did not trace them (seen on 6.1, not 6.12 or 6.19: a
	 * task that was inside a set_graph_notrace function when another
	 * function_graph session stopped is never traced by it again) */
	if (tracer == NOP_TRACER_GRAPH && !nroots && o->npids && !r.sum.events && ran0 >= 0 &&
	    ran1 > ran0 && !r.out_closed && !r.out_errno && !dat && nop_session_note(sess)) {
		nop_error_set(&err, NOP_EBUSY, 0,
			      "function_graph recorded no call of the traced task%s although %s ran"
			      " (%lld context switches while tracing was on): %s. With --force nopctl"
			      " sets these for its session (journaled, restored after)",
			      o->npids > 1 ? "s" : "", o->npids > 1 ? "they" : "it", ran1 - ran0,
			      nop_session_note(sess));
		goto out;
	}
	if (tracer == NOP_TRACER_GRAPH && !nroots && o->npids && !r.sum.events && ran0 >= 0 &&
	    ran1 > ran0 && !r.out_closed && !r.out_errno && !dat) {
		nop_error_set(&err, NOP_EKERNEL, 0,
			      "function_graph recorded no call of the traced task%s although %s ran"
			      " (%lld context switches while tracing was on): the kernel does not trace"
			      " %s. On Linux 6.1 a task that was inside a set_graph_notrace function"
			      " when a function_graph session stopped is never traced by function_graph"
			      " again; trace a process started since, or its calls with 'nopctl trace'",
			      o->npids > 1 ? "s" : "", o->npids > 1 ? "they" : "it", ran1 - ran0,
			      o->npids > 1 ? "them" : "it");
		goto out;
	}
	nop_buffer_lost(nop_session_dir(sess), cpusp, &r.sum.overrun, &r.sum.dropped);
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
	/* the events out before anything on stderr: both may go to one file
	 * (2>&1), where the summary ends the run */
	if (!r.out_closed && !r.out_errno && out != stderr && fflush(out) != 0)
		output_failed(&r);
	if (!r.out_closed && !r.out_errno) {
		if (r.by_task && !r.sum.events && !r.recording) {
			r.sum.warning = "no call of the traced tasks arrived";
			fprintf(stderr, "nopctl: no call of the traced task%s arrived%s: %s\n",
				o->npids > 1 ? "s" : "", r.sum.other_tasks ? " (only other tasks' halves of"
				" context switches)" : "", o->command ? "the command made none while"
				" tracing was on" : "it made none while tracing was on, or it was not"
				" running (see 'nopctl doctor')");
		}
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

