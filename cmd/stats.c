/* stats.c - nopctl stats: one summary per function at the end. */
#include "cmd.h"

int cmd_stats(struct opts *o)
{
	return run_capture(o, RUN_STATS);
}
