/* commands.c - the command table: one row per subcommand, with the
 * options it takes. Help, man page and completion follow this table. */
#include "cmd.h"

#define TRACE_OPTS (O_PATTERNS | O_PID | O_MODULE | O_NOTRACE | O_DURATION | O_COUNT | \
		    O_BUFFER | O_CPUS | O_STACK | O_OUTPUT | O_FORMAT | O_QUIET | O_FORCE | O_COMMAND | O_TOPLEVEL)

const struct cmd nop_commands[] = {
	{ "trace", cmd_trace, TRACE_OPTS, "[OPTIONS] PATTERN... [-- COMMAND [ARG...]]",
	  "Trace calls of kernel functions with ftrace's function tracer." },
	{ "list", cmd_list, O_PATTERNS | O_MODULE | O_FORMAT, "[OPTIONS] [PATTERN...]",
	  "List the traceable kernel functions, with their module." },
	{ "status", cmd_status, O_FORMAT, "[OPTIONS]",
	  "Show the tracer, filters, pid filters, instances with their owners, and lost events." },
	{ "reset", cmd_reset, O_FORMAT | O_QUIET, "[OPTIONS]",
	  "Restore what a crashed or killed nopctl left behind, and remove its instances." },
	{ "help", cmd_help, O_PATTERNS, "[COMMAND]", "Show help for nopctl or one of its commands." },
	{ NULL, NULL, 0, NULL, NULL },
};
