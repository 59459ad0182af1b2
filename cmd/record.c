/* record.c - nopctl record: raw events into a trace.dat. */
#include "cmd.h"

int cmd_record(struct opts *o)
{
	return run_capture(o, RUN_RECORD);
}
