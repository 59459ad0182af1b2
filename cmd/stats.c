/* stats.c - nopctl stats: one summary per function at the end. */
#include "cmd.h"

int cmd_stats(struct opts *o)
{
	int rc = graph_needs_a_root(o);

	return rc ? rc : run_capture(o, RUN_STATS);
}
