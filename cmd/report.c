/* report.c - nopctl report FILE: a trace.dat (nopctl's or trace-cmd's),
 * shown like a live run, through the same pipeline. */
#include <signal.h>

#include "cmd.h"

int cmd_report(struct opts *o)
{
	struct nop_error err = { 0 };
	struct nop_source *src = NULL;
	struct nop_resolver *res = NULL;
	struct nop_pipeline *pipe = NULL;
	struct nop_summary sum = { .exit_status = -1 };
	FILE *out = NULL;
	bool more = true;
	int code = 0;
	bool closed = false; /* | head: a normal end */

	if (o->npatterns != 1) {
		nop_error_set(&err, NOP_EUSAGE, 0, "give one trace.dat file to report on");
		return report_error(o, &err);
	}
	signal(SIGPIPE, SIG_IGN);
	if (nop_source_file(&src, o->patterns[0], &res, &err) == 0 && (out = open_output(o, &err))) {
		struct nop_pipeline_cfg pc = {
			.sink = { .view = o->callers ? NOP_VIEW_CALLERS : o->stats ? NOP_VIEW_STATS : o->view,
				  .enc = o->enc, .out = out, .diag = stderr, .res = res, .quiet = o->quiet,
				  .stats = { .sort = o->sort, .hist_func = o->hist, .folded = o->view == NOP_VIEW_FOLDED } },
			.out_name = o->output, .graph = true, .count = o->count, .recorded = true,
			.errors = o->errors,
		};

		if (nop_pipeline_new(&pipe, &pc, &err) == 0) {
			while (more && nop_pipeline_drain(pipe, src, &more, &err) == NOP_FLOW_GO)
				;
			sum.duration_ns = nop_pipeline_span(pipe);
			if (!err.status)
				nop_pipeline_finish(pipe, &sum, &err);
		}
	}
	closed = pipe && nop_pipeline_output_closed(pipe);
	nop_pipeline_free(pipe);
	nop_resolver_free(res);
	nop_source_close(src);
	if (out && out != stdout)
		fclose(out);
	if (err.status)
		return report_error(o, &err);
	if ((sum.lost_pages || sum.gaps) && !closed)
		code = NOP_ELOST;
	return code;
}
