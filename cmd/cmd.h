/* cmd.h - what the subcommands share: the command table, one option
 * parser for all of them, and the capture loop. */
#ifndef NOPCTL_CMD_H
#define NOPCTL_CMD_H

#include <sys/types.h>

#include "../lib/nopctl.h"

/* Options a command accepts (struct cmd.opts). */
enum {
	O_PID = 1 << 0, O_MODULE = 1 << 1, O_NOTRACE = 1 << 2, O_DURATION = 1 << 3,
	O_COUNT = 1 << 4, O_BUFFER = 1 << 5, O_CPUS = 1 << 6, O_STACK = 1 << 7,
	O_OUTPUT = 1 << 8, O_FORMAT = 1 << 9, O_QUIET = 1 << 10, O_FORCE = 1 << 11,
	O_COMMAND = 1 << 12, O_PATTERNS = 1 << 13, O_TOPLEVEL = 1 << 14,
	O_DEPTH = 1 << 15, O_THRESH = 1 << 16, O_RETVAL = 1 << 17, O_NOSLEEP = 1 << 18,
	O_NOIRQS = 1 << 19, O_SORT = 1 << 20, O_HIST = 1 << 21, O_GRAPHFMT = 1 << 22,
	O_GRAPHFLAG = 1 << 23, O_STATSFLAG = 1 << 24, O_OVERWRITE = 1 << 25, O_USER = 1 << 26,
	O_ARGS = 1 << 27, O_ERRORS = 1 << 28, O_SLOWER = 1 << 29, O_OUTLIERS = 1 << 30, O_BEFORE = 1u << 31,
};
#define O_EVENTS (1ULL << 32) /* -e EVENT, --filter EXPR */
#define O_CALLERS (1ULL << 33) /* stats --callers */
#define O_DIFFFMT (1ULL << 34) /* diff -F text|json|folded|svg */
#define O_ALL (1ULL << 35)     /* diff --all */
#define O_NOISE (1ULL << 36)   /* diff --alpha, --min-change */
#define O_INTERVAL (1ULL << 37) /* stats, top: -i TIME */
#define O_BOUNDED (1ULL << 38)	/* record --max-size, --rotate, --split */
#define O_COMPRESS (1ULL << 39) /* record, catch: --compression */
#define O_SAVE (1ULL << 40)	/* blackbox show --save FILE */

/* catch --outliers: calls of a root function before its p99 judges */
#define OUTLIERS_WARMUP 1000

struct opts {
	const char **patterns;
	size_t npatterns;
	const char **notrace;
	size_t nnotrace;
	const char *module;
	pid_t *pids; /* every thread of every -p process */
	size_t npids;
	char **command; /* after "--" */
	const char *user; /* -u: COMMAND runs as this user */
	unsigned long long duration_ns;
	unsigned long long count;
	size_t buffer_kb;
	const char *cpus;
	bool stack, quiet, force, top_level, overwrite;
	bool uncompressed; /* --compression none: trace.dat version 6 */
	const char *output;
	enum nop_encoding enc; /* -j, -F text|json */
	enum nop_view view;    /* -F folded|dot|chrome (lines otherwise) */
	bool help;
	/* graph, stats */
	int depth;
	unsigned long long thresh_ns;
	bool retval, no_sleep_time, no_irqs;
	bool args, errors; /* kernel functions' arguments; failed calls only */
	/* catch: root calls kept whole when slower than this (0: not asked),
	 * or, with errors, failed, or outliers */
	bool catching;
	bool why; /* why: of a failed root call, only where its error began */
	unsigned long long slower_ns;
	unsigned long long outliers; /* their warm-up (calls of each root function); 0: not asked */
	const char *catch_dir; /* -o DIR: each catch as DIR/catch-NNNN.dat */
	unsigned long long before_ns; /* --before: what came before a root call too */
	enum nop_sort sort;
	const char *hist;
	bool graph; /* record: function_graph */
	bool stats; /* report: the stats summary */
	bool callers; /* stats: each function's callers (kernel stacks) */
	/* -e SYSTEM:EVENT as given, each with the --filter after it (NULL:
	 * none); matched against available_events into events (run_capture) */
	struct event_arg { const char *spec, *filter; } *event_args;
	size_t nevent_args;
	struct nop_kevents events;
	/* diff */
	enum nop_diff_format diff_format;
	bool all;
	double alpha, min_change; /* 0: the library's defaults */
	/* stats -i, top: a table every interval; live: top's screen */
	unsigned long long interval_ns;
	bool live;
	/* record: a file at most max_size bytes (0: no limit); rotate: the
	 * newest N files kept (0: the capture stops at the limit); split: a
	 * new file every split_ns */
	unsigned long long max_size, split_ns;
	unsigned rotate;
	const char *save; /* blackbox show: the previous boot's trace.dat kept as this file */
};

struct cmd {
	const char *name;
	int (*run)(struct opts *o);
	unsigned long long opts;
	const char *args;    /* synopsis after the command name */
	const char *summary; /* one line */
};

extern const struct cmd nop_commands[];

/* Parses argv (after the command name); exits are the caller's. Returns 0,
 * or -1 with err set (status NOP_EUSAGE). */
int opts_parse(const struct cmd *c, int argc, char **argv, struct opts *o, struct nop_error *err);
void opts_free(struct opts *o);
void usage(const struct cmd *c, FILE *out);

/* Report an error on stderr ("nopctl: ..."), and as a JSON object on
 * stdout in JSON mode, so scripts always get parseable output. Returns
 * the exit code. */
int report_error(const struct opts *o, const struct nop_error *err);
/* Every PATTERN argument valid: 0, or the exit code after the message. */
int check_pattern_args(const struct opts *o);
/* trace and record: at least one PATTERN (0, or the exit code after the
 * message with an example and a hint) */
int need_a_pattern(const struct opts *o, const char *example, const char *hint);
/* -o FILE may be written: absent, or a regular file and --overwrite (0),
 * or (stream_ok: text, not a trace.dat) a FIFO or character device,
 * written as it is (1); never a symlink or directory (-1, checked before
 * tracefs is touched). */
int output_check(const struct opts *o, bool stream_ok, struct nop_error *err);
/* catch -o DIR checked: 0 a directory to write catches in, 1 -o names
 * none, -1 with err */
int catch_dir_check(const struct opts *o, bool dir, struct nop_error *err);
/* Open -o FILE (as output_check allows) or stdout. */
FILE *open_output(const struct opts *o, struct nop_error *err);
/* Look for a command in PATH as execvp would: 0 if runnable; its path in
 * path (may be NULL) */
int command_check(const char *name, char *path, size_t len, struct nop_error *err);
/* A PATTERN argument: a kernel function pattern or BINARY:GLOB */
int pattern_arg_check(const char *pat, struct nop_error *err);
/* a traceable function a PATTERN matches and no -n excludes */
bool func_traced(const struct nop_func *fn, const struct opts *o);
/* tracefs, stale-session cleanup, and the traceable-function check. */
const char *prepare_tracefs(struct nop_error *err);
/* available_filter_functions into f (nop_funcs_free frees); 0, or -1
 * with err (a kernel that refuses the function tracer said so) */
int load_funcs(const char *tracing_dir, struct nop_funcs *f, struct nop_error *err);
/* every PATTERN, -n and --hist names a function of f; 0, or -1 with err
 * (the closest names) */
int check_patterns(const struct nop_funcs *f, const struct opts *o, struct nop_error *err);

/* The capture loop shared by trace, graph and stats. */
enum run_mode { RUN_TRACE, RUN_GRAPH, RUN_STATS, RUN_RECORD, RUN_REPORT };
int run_capture(struct opts *o, enum run_mode mode);
/* graph, stats, record -G: a root, -p or a COMMAND is needed (exit code or 0) */
int graph_needs_a_root(const struct opts *o);

void overview(FILE *out);
const struct cmd *find_cmd(const char *name);

int cmd_help(struct opts *o);
int cmd_trace(struct opts *o);
int cmd_graph(struct opts *o);
int cmd_catch(struct opts *o);
int cmd_why(struct opts *o);
int cmd_stats(struct opts *o);
int cmd_record(struct opts *o);
int cmd_report(struct opts *o);
int cmd_list(struct opts *o);
int cmd_status(struct opts *o);
int cmd_reset(struct opts *o);
int cmd_doctor(struct opts *o);
int cmd_inspect(struct opts *o);
int cmd_diff(struct opts *o);
int cmd_top(struct opts *o);
int cmd_blackbox(struct opts *o);
/* the black box's state as one line of status (text or JSON, stdout) */
void blackbox_status_line(struct nop_fields *f, const struct nop_bbox *b);

#endif
