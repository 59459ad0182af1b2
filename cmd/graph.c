/* graph.c - nopctl graph: call trees from function_graph. */
#include "cmd.h"

int cmd_graph(struct opts *o)
{
	int rc = graph_needs_a_root(o);

	return rc ? rc : run_capture(o, RUN_GRAPH);
}
