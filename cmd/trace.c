/* trace.c - nopctl trace: the function tracer. */
#include "cmd.h"

int cmd_trace(struct opts *o)
{
	return run_capture(o, RUN_TRACE);
}
