/* graph.c - nopctl graph: call trees from function_graph. */
#include "cmd.h"

int cmd_graph(struct opts *o)
{
	return run_capture(o, RUN_GRAPH);
}
