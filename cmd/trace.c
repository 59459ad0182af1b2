/* trace.c - nopctl trace: the function tracer. */
#include "cmd.h"

int cmd_trace(struct opts *o)
{
	/* a bad pattern first */
	int rc = check_pattern_args(o) ?: need_a_pattern(o, "nopctl trace do_sys_openat2",
							 "'nopctl list' shows what can be traced");

	return rc ? rc : run_capture(o, RUN_TRACE);
}
