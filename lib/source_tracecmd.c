/* source_tracecmd.c - a trace.dat in a layout nopctl's own reader does
 * not know (trace-cmd's options, compression, other versions), read record
 * by record through libtracecmd and decoded like any other. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <trace-cmd.h>

#include "internal.h"

struct tc {
	struct nop_source base;
	struct tracecmd_input *h;
	struct nop_decoder *dec;
	nop_emit_fn emit;
	void *ctx;
	int stopped; /* emit's non-zero result */
	char path[4096];
	struct nop_uprobes up; /* user functions the recording's probes name */
};

static int tc_record(struct tracecmd_input *h, struct tep_record *rec, int cpu, void *data)
{
	struct tc *t = data;

	t->stopped = nop_decode_record(t->dec, rec, t->emit, t->ctx);
	return t->stopped ? -1 : 0;
}

/* one round: the whole file (libtracecmd merges it) */
static int tc_drain(struct nop_source *s, nop_emit_fn emit, void *ctx, bool *more,
		    struct nop_error *err)
{
	struct tc *t = (struct tc *)s;

	t->emit = emit;
	t->ctx = ctx;
	*more = false;
	if (tracecmd_iterate_events(t->h, NULL, 0, tc_record, t) < 0 && !t->stopped) {
		nop_error_set(err, NOP_EINTERNAL, 0, "cannot read the events of %s", t->path);
		return -1;
	}
	return t->stopped ? t->stopped : nop_decode_flush(t->dec, emit, ctx);
}

static void tc_close(struct nop_source *s)
{
	struct tc *t = (struct tc *)s;

	nop_decoder_free(t->dec);
	nop_uprobes_free(&t->up);
	if (t->h)
		tracecmd_close(t->h);
	free(t);
}

/* sanitizer builds (fuzz targets): the runtime's own hook on a finding */
extern void __sanitizer_set_death_callback(void (*cb)(void)) __attribute__((weak));

static int skip_record(struct tracecmd_input *h, struct tep_record *rec, int cpu, void *data)
{
	return 0;
}

/* libtracecmd read first in a child: files that pass the layout check
 * still crash it (fuzz_report: a damaged format in a file of 4-byte
 * words, then a NULL pointer in tracecmd_close inside tracecmd_open).
 * A crash there is the file's, said as such, not nopctl's. */
static int trial_read(const char *path, struct nop_error *err)
{
	int status;
	pid_t pid;

	fflush(NULL);
	if ((pid = fork()) < 0) {
		nop_error_set(err, NOP_EINTERNAL, errno, "fork: %s", strerror(errno));
		return -1;
	}
	if (pid == 0) {
		static const int deadly[] = { SIGSEGV, SIGBUS, SIGABRT, SIGFPE, SIGILL };
		struct tracecmd_input *h;

		/* a crash here ends this child, plainly (no sanitizer's or
		 * fuzzer's handler taking it for nopctl's) */
		for (size_t i = 0; i < ARRAY_SIZE(deadly); i++)
			signal(deadly[i], SIG_DFL);
		/* and an over-read the sanitizer finds in libtraceevent (fuzz_report:
		 * a damaged printk_formats section, strdup in
		 * tep_parse_printk_formats) ends it with the sanitizer's exit code,
		 * not as a finding of the fuzzer that forked it */
		if (__sanitizer_set_death_callback)
			__sanitizer_set_death_callback(NULL);
		tracecmd_set_loglevel(TEP_LOG_NONE);
		if (!(h = tracecmd_open(path, 0)))
			_exit(2);
		tracecmd_iterate_events(h, NULL, 0, skip_record, NULL);
		tracecmd_close(h);
		_exit(0);
	}
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR) {
			nop_error_set(err, NOP_EINTERNAL, errno, "waitpid: %s", strerror(errno));
			return -1;
		}
	/* the child exits 0 (read), 2 (not opened), or dies */
	if (WIFSIGNALED(status) || (WIFEXITED(status) && WEXITSTATUS(status) != 0 &&
				    WEXITSTATUS(status) != 2)) {
		nop_error_set(err, NOP_EUSAGE, 0, "%s is damaged: libtracecmd, which reads this"
			      " layout, crashed on it (%s %d)", path,
			      WIFSIGNALED(status) ? "signal" : "exit", WIFSIGNALED(status) ?
			      WTERMSIG(status) : WEXITSTATUS(status));
		return -1;
	}
	/* a file it cannot open is said by the open that follows */
	return 0;
}

static const struct nop_source_ops tc_ops = {
	.finite = true, .drain = tc_drain, .close = tc_close,
};

int nop_source_tracecmd(struct nop_source **src, const char *path, struct nop_resolver **res,
			struct nop_error *err)
{
	struct tc *t = nop_source_new(sizeof(*t), &tc_ops, err);

	*src = NULL;
	if (!t)
		return -1;
	snprintf(t->path, sizeof(t->path), "%s", path);
	tracecmd_set_loglevel(TEP_LOG_NONE);
	/* libtracecmd trusts the offsets a file declares */
	if (nop_dat_check(path, err) || trial_read(path, err)) {
		tc_close(&t->base);
		return -1;
	}
	if (!(t->h = tracecmd_open(path, 0))) {
		nop_error_set(err, NOP_EUSAGE, 0, "%s is not a trace.dat file (trace-cmd's format)", path);
		tc_close(&t->base);
		return -1;
	}
	if (!(t->dec = nop_decoder_from_tep(tracecmd_get_tep(t->h), err)) ||
	    nop_decoder_recorded_probes(t->dec, &t->up, err) ||
	    !(*res = nop_resolver_from_tep(tracecmd_get_tep(t->h), err))) {
		tc_close(&t->base);
		return -1;
	}
	nop_resolver_set_probes(*res, &t->up);
	*src = &t->base;
	return 0;
}
