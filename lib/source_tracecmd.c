/* source_tracecmd.c - a trace.dat in a layout nopctl's own reader does
 * not know (trace-cmd's options, compression, other versions), read record
 * by record through libtracecmd and decoded like any other. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

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
	if (t->h)
		tracecmd_close(t->h);
	free(t);
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
	if (!(t->h = tracecmd_open(path, 0))) {
		nop_error_set(err, NOP_EUSAGE, 0, "%s is not a trace.dat file (trace-cmd's format)", path);
		tc_close(&t->base);
		return -1;
	}
	if (!(t->dec = nop_decoder_from_tep(tracecmd_get_tep(t->h), err)) ||
	    !(*res = nop_resolver_from_tep(tracecmd_get_tep(t->h), err))) {
		tc_close(&t->base);
		return -1;
	}
	*src = &t->base;
	return 0;
}
