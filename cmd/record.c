/* record.c - nopctl record: raw events into a trace.dat. */
#include "cmd.h"

int cmd_record(struct opts *o)
{
	struct nop_error err = { 0 };
	int rc = check_pattern_args(o); /* a bad pattern first */

	if (rc)
		return rc;
	if (!o->output) {
		nop_error_set(&err, NOP_EUSAGE, 0, "record needs -o FILE (the trace.dat to write)");
		return report_error(o, &err);
	}
	rc = o->graph ? graph_needs_a_root(o)
		      : need_a_pattern(o, "nopctl record -o t.dat do_sys_openat2",
				       "or -G for function_graph of a task: -p PID or -- COMMAND");
	return rc ? rc : run_capture(o, RUN_RECORD);
}
