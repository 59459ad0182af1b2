/* commands.c - the command table: one row per subcommand, with the
 * options it takes. Help, man page and completion follow this table. */
#include "cmd.h"

#define TRACE_OPTS (O_PATTERNS | O_PID | O_MODULE | O_NOTRACE | O_DURATION | O_COUNT | \
		    O_BUFFER | O_CPUS | O_STACK | O_OUTPUT | O_OVERWRITE | O_FORMAT | O_QUIET | O_FORCE | O_COMMAND | O_USER | O_TOPLEVEL | \
		    O_RETVAL | O_ARGS | O_ERRORS | O_EVENTS)

#define GRAPH_OPTS (O_PATTERNS | O_PID | O_MODULE | O_NOTRACE | O_DURATION | O_COUNT | \
		    O_BUFFER | O_CPUS | O_OUTPUT | O_OVERWRITE | O_QUIET | O_FORCE | O_COMMAND | O_USER | O_TOPLEVEL | \
		    O_DEPTH | O_THRESH | O_RETVAL | O_NOSLEEP | O_NOIRQS | O_EVENTS)

const struct cmd nop_commands[] = {
	{ "trace", cmd_trace, TRACE_OPTS, "[OPTIONS] PATTERN... [-- COMMAND [ARG...]]",
	  "Trace calls of kernel functions (function tracer) or of a program's, BINARY:GLOB (uprobes)." },
	{ "graph", cmd_graph, GRAPH_OPTS | O_GRAPHFMT | O_ARGS | O_ERRORS, "[OPTIONS] [PATTERN...] [-- COMMAND [ARG...]]",
	  "Show call trees with durations (function_graph; uprobes for BINARY:GLOB); PATTERN sets the roots." },
	{ "catch", cmd_catch, GRAPH_OPTS | O_GRAPHFMT | O_ARGS | O_ERRORS | O_SLOWER | O_OUTLIERS | O_BEFORE | O_COMPRESS,
	  "--slower-than TIME|--errors|--outliers [OPTIONS] PATTERN... [-- COMMAND [ARG...]]",
	  "Show only the call trees whose root call (a PATTERN's) was slow or failed, whole." },
	{ "why", cmd_why, (GRAPH_OPTS & ~(O_THRESH | O_RETVAL | O_NOSLEEP | O_DEPTH)) | O_GRAPHFMT | O_ARGS, "[OPTIONS] PATTERN... [-- COMMAND [ARG...]]",
	  "Show where each failed root call's error began: the function, its line, the calls that passed it up." },
	{ "stats", cmd_stats, GRAPH_OPTS | O_FORMAT | O_SORT | O_HIST | O_CALLERS | O_INTERVAL,
	  "[OPTIONS] [PATTERN...] [-- COMMAND [ARG...]]",
	  "Summarize calls per function: count, total, self, avg, min, max, p50, p99, depth." },
	{ "top", cmd_top, (GRAPH_OPTS & ~(O_OUTPUT | O_OVERWRITE)) | O_FORMAT | O_SORT | O_INTERVAL,
	  "[OPTIONS] [PATTERN...] [-- COMMAND [ARG...]]",
	  "Show stats' figures live, every second: a key sorts them, Enter shows a function's histogram." },
	{ "record", cmd_record, GRAPH_OPTS | O_STACK | O_GRAPHFLAG | O_ARGS | O_BOUNDED | O_COMPRESS, "-o FILE [OPTIONS] [PATTERN...] [-- COMMAND [ARG...]]",
	  "Record raw events into a trace.dat (trace-cmd's format) to look at later or elsewhere." },
	{ "report", cmd_report, O_PATTERNS | O_GRAPHFMT | O_OUTPUT | O_OVERWRITE | O_QUIET | O_COUNT | O_STATSFLAG |
	  O_SORT | O_HIST | O_ERRORS | O_CALLERS, "[OPTIONS] FILE",
	  "Show a trace.dat (nopctl's or trace-cmd's) in any format trace, graph and stats print." },
	{ "diff", cmd_diff, O_PATTERNS | O_DIFFFMT | O_OUTPUT | O_OVERWRITE | O_QUIET | O_ALL | O_NOISE,
	  "[OPTIONS] A B", "Compare two recordings (or sets of runs, A1,A2,... B1,B2,...): per function and path by path." },
	{ "list", cmd_list, O_PATTERNS | O_MODULE | O_FORMAT, "[OPTIONS] [PATTERN...]",
	  "List the traceable kernel functions, with their module." },
	{ "status", cmd_status, O_FORMAT, "[OPTIONS]",
	  "Show the tracer, filters, pid filters, instances with their owners, and lost events." },
	{ "reset", cmd_reset, O_FORMAT | O_QUIET, "[OPTIONS]",
	  "Restore what a crashed or killed nopctl left behind, and remove its instances." },
	{ "doctor", cmd_doctor, O_PATTERNS | O_FORMAT, "[OPTIONS] [PATTERN...]",
	  "Check everything tracing needs here, and why each PATTERN can or cannot be traced." },
	{ "inspect", cmd_inspect, O_PATTERNS | O_FORMAT, "[OPTIONS] FUNC",
	  "Show ftrace's patch site of a function: its bytes now, decoded, and who patches it." },
	{ "blackbox", cmd_blackbox, O_PATTERNS | O_PID | O_MODULE | O_NOTRACE | O_COMMAND | O_FORCE | O_GRAPHFLAG |
	  O_GRAPHFMT | O_OUTPUT | O_OVERWRITE | O_QUIET | O_COUNT | O_STATSFLAG | O_SORT | O_HIST | O_ERRORS | O_CALLERS |
	  O_SAVE, "arm [-G] [PATTERN...] [-p PID | -- COMMAND] | disarm | status | show [OPTIONS]",
	  "Keep tracing in the persistent buffer across a crash or reboot; show what it held when the box went down." },
	{ "help", cmd_help, O_PATTERNS, "[COMMAND]", "Show help for nopctl or one of its commands." },
	{ NULL, NULL, 0, NULL, NULL },
};
