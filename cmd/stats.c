/* stats.c - nopctl stats: one summary per function at the end. */
#include "cmd.h"

int cmd_stats(struct opts *o)
{
	struct nop_error err = { 0 };
	int rc = graph_needs_a_root(o);

	if (rc)
		return rc;
	if (o->view == NOP_VIEW_FOLDED && !o->callers) {
		nop_error_set(&err, NOP_EUSAGE, 0, "-F folded is the format of --callers; stats' table is text or json"
			      " (graph -F folded draws the calls' time)");
		return report_error(o, &err);
	}
	if (o->interval_ns && o->callers) {
		nop_error_set(&err, NOP_EUSAGE, 0, "-i prints the table of stats' calls per interval; --callers counts"
			      " stacks over the whole run: give one of them");
		return report_error(o, &err);
	}
	if (o->callers) {
		/* the function tracer's stack of each hit of the PATTERNs; a
		 * user function's, its user stack */
		if (!o->npatterns || o->depth || o->thresh_ns || o->no_sleep_time || o->no_irqs || o->retval || o->hist) {
			nop_error_set(&err, NOP_EUSAGE, 0, "--callers counts the stacks of the PATTERN functions' hits"
				      " (the function tracer): give PATTERNs, and none of -D, -t, --no-sleep-time,"
				      " --no-irqs, --retval, --hist");
			return report_error(o, &err);
		}
		o->stack = true;
	}
	return run_capture(o, RUN_STATS);
}
