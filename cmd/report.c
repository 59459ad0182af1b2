/* report.c - nopctl report FILE: a trace.dat (nopctl's or trace-cmd's),
 * shown like a live run: nopctl's own read page by page, others with
 * libtracecmd. */
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

#include <trace-cmd.h>

#include "run.h"

struct report_ctx {
	struct run *r;
	struct nop_decoder *dec;
	unsigned long long first, last; /* the capture's time span */
};

static void span(struct report_ctx *c, unsigned long long ts)
{
	if (!ts)
		return; /* a damaged page's mark has no time */
	if (!c->first || ts < c->first)
		c->first = ts;
	if (ts > c->last)
		c->last = ts;
}

static int report_record(struct tracecmd_input *h, struct tep_record *rec, int cpu, void *data)
{
	struct report_ctx *c = data;

	span(c, rec->ts);
	return nop_decode_record(c->dec, rec, on_event, c->r);
}

static int report_event(void *data, const struct nop_event *ev)
{
	struct report_ctx *c = data;

	span(c, ev->ts);
	return on_event(c->r, ev);
}

/* The events, through the decoder: a file as nopctl record writes it is
 * read page by page (in != NULL), any other through libtracecmd. */
static int read_events(struct report_ctx *c, struct tracecmd_input *h, struct nop_dat_in *in,
		       const char *file, struct nop_error *err)
{
	struct nop_stream *st = NULL;
	bool more;
	int ret;

	if (in) {
		if (nop_stream_open_dat(&st, c->dec, in, err))
			return -1;
		ret = nop_stream_drain(st, report_event, c, &more, err);
		nop_stream_close(st);
		return ret < 0 && !c->r->stop ? -1 : 0;
	}
	if (tracecmd_iterate_events(h, NULL, 0, report_record, c) < 0 && !c->r->stop) {
		nop_error_set(err, NOP_EINTERNAL, 0, "cannot read the events of %s", file);
		return -1;
	}
	return 0;
}

static int run_report(struct opts *o, const char *file)
{
	struct run r = { .o = o, .sigfd = -1, .child_status = -1 };
	struct nop_error err = { 0 };
	struct tracecmd_input *h = NULL;
	struct nop_dat_in *in = NULL;
	struct nop_decoder *dec = NULL;
	struct nop_resolver *res = NULL;
	struct report_ctx ctx = { .r = &r };
	FILE *out = NULL;
	int code = 0, ret;

	signal(SIGPIPE, SIG_IGN);
	tracecmd_set_loglevel(TEP_LOG_NONE);
	if (access(file, R_OK) < 0) {
		nop_error_set(&err, NOP_EUSAGE, errno, "cannot read %s: %s", file, strerror(errno));
		return report_error(o, &err);
	}
	if ((ret = nop_dat_in_open(&in, file, &err)) < 0)
		return report_error(o, &err);
	if (in) {
		if (!(dec = nop_decoder_from_dat(in, &err)) || !(res = nop_resolver_from_dat(in, &err)))
			goto out;
	} else if (!(h = tracecmd_open(file, 0))) {
		nop_error_set(&err, NOP_EUSAGE, 0, "%s is not a trace.dat file (trace-cmd's format)", file);
		return report_error(o, &err);
	} else if (!(dec = nop_decoder_from_tep(tracecmd_get_tep(h), &err)) ||
		   !(res = nop_resolver_from_tep(tracecmd_get_tep(h), &err))) {
		goto out;
	}
	if (!(out = open_output(o, &err)) ||
	    setup_output(&r, o->stats ? RUN_STATS : RUN_REPORT, out, res, &err))
		goto out;
	ctx.dec = dec;
	if (read_events(&ctx, h, in, file, &err))
		goto out;
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
	nop_dat_in_free(in);
	if (out && out != stdout)
		fclose(out);
	if (err.status)
		return report_error(o, &err);
	if (r.sum.lost_pages)
		code = NOP_ELOST;
	return code;
}


int cmd_report(struct opts *o)
{
	struct nop_error err = { 0 };

	if (o->npatterns != 1) {
		nop_error_set(&err, NOP_EUSAGE, 0, "give one trace.dat file to report on");
		return report_error(o, &err);
	}
	return run_report(o, o->patterns[0]);
}
