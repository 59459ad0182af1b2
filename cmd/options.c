/* options.c - one option parser for every subcommand. Each command's
 * table row says which options it takes; the rest are refused by name. */
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cmd.h"

struct optdef {
	unsigned long long flag;
	struct option lo;
	const char *arg, *help;
};

static const struct optdef defs[] = {
	{ O_PID, { "pid", required_argument, 0, 'p' }, "PID", "trace every thread of process PID (repeatable)" },
	{ O_MODULE, { "module", required_argument, 0, 'm' }, "MOD", "only functions of kernel module MOD" },
	{ O_NOTRACE, { "notrace", required_argument, 0, 'n' }, "PATTERN", "do not trace functions matching PATTERN (repeatable)" },
	{ O_DURATION, { "duration", required_argument, 0, 'd' }, "TIME", "stop after TIME (seconds, or with ms/s/m suffix)" },
	{ O_COUNT, { "count", required_argument, 0, 'c' }, "N", "stop after N events (catch: N trees caught)" },
	{ O_BUFFER, { "buffer-kb", required_argument, 0, 'b' }, "KB", "ring buffer size per CPU in KB" },
	{ O_CPUS, { "cpus", required_argument, 0, 'C' }, "LIST", "trace only CPUs in LIST (e.g. 0-3,6)" },
	{ O_STACK, { "stack", no_argument, 0, 's' }, NULL, "record the caller stack of each hit" },
	{ O_OUTPUT, { "output", required_argument, 0, 'o' }, "FILE", "write to FILE (a new or regular file; not a symlink, FIFO or device)" },
	{ O_OVERWRITE, { "overwrite", no_argument, 0, 306 }, NULL, "replace -o FILE if it exists" },
	{ O_USER, { "user", required_argument, 0, 'u' }, "USER", "run COMMAND as USER (its groups, HOME, USER, LOGNAME)" },
	{ O_FORMAT, { "format", required_argument, 0, 'F' }, "FMT", "output format: text or json" },
	{ O_GRAPHFMT, { "format", required_argument, 0, 'F' }, "FMT", "output format: text, json, folded, dot or chrome" },
	{ O_DIFFFMT, { "format", required_argument, 0, 'F' }, "FMT", "output format: text, json, folded (two counts a stack) or svg" },
	{ O_FORMAT | O_GRAPHFMT | O_DIFFFMT, { "json", no_argument, 0, 'j' }, NULL, "same as --format json" },
	{ O_QUIET, { "quiet", no_argument, 0, 'q' }, NULL, "no progress or summary on stderr" },
	{ O_DEPTH, { "depth", required_argument, 0, 'D' }, "N", "follow calls N levels deep (max_graph_depth)" },
	{ O_THRESH, { "threshold", required_argument, 0, 't' }, "TIME", "only calls that take at least TIME (100us, 2ms)" },
	{ O_RETVAL, { "retval", no_argument, 0, 300 }, NULL, "show kernel functions' return values (funcgraph-retval, else return probes on PATTERN's functions)" },
	{ O_ARGS, { "args", no_argument, 0, 307 }, NULL, "show PATTERN's kernel functions' arguments by name (BTF; fprobe events, 6.6+)" },
	{ O_ERRORS, { "errors", no_argument, 0, 308 }, NULL, "only calls that returned a negative errno, and the calls they came from" },
	{ O_SLOWER, { "slower-than", required_argument, 0, 309 }, "TIME", "catch a root call that lasts longer than TIME (10ms, 1s)" },
	{ O_BEFORE, { "before", required_argument, 0, 311 }, "TIME", "catch -o DIR: each file also holds the TIME before the root call, and context switches" },
	{ O_OUTLIERS, { "outliers", optional_argument, 0, 310 }, "N", "catch a root call slower than its function's p99 so far, after N calls of it (1000)" },
	{ O_NOSLEEP, { "no-sleep-time", no_argument, 0, 301 }, NULL, "do not count time a task sleeps in a call" },
	{ O_NOIRQS, { "no-irqs", no_argument, 0, 302 }, NULL, "leave out interrupt handlers" },
	{ O_SORT, { "sort", required_argument, 0, 303 }, "KEY", "sort by total, self, calls, avg, max or name" },
	{ O_HIST, { "hist", required_argument, 0, 304 }, "FUNC", "print a latency histogram of FUNC" },
	{ O_GRAPHFLAG, { "graph", no_argument, 0, 'G' }, NULL, "record function_graph (PATTERNs are graph roots)" },
	{ O_STATSFLAG, { "stats", no_argument, 0, 305 }, NULL, "print the stats summary instead of the stream" },
	{ O_TOPLEVEL, { "top-level", no_argument, 0, 'T' }, NULL, "use the top-level buffer, not a private instance" },
	{ O_FORCE, { "force", no_argument, 0, 'f' }, NULL, "take over a busy top-level tracer (its settings restored on exit)" },
	{ O_EVENTS, { "event", required_argument, 0, 'e' }, "EVENT", "record kernel event EVENT (SYSTEM:EVENT, globs) beside the calls (repeatable)" },
	{ O_EVENTS, { "filter", required_argument, 0, 312 }, "EXPR", "only the -e EVENT before it that match EXPR (the kernel's filter syntax)" },
	{ O_CALLERS, { "callers", no_argument, 0, 313 }, NULL, "count each PATTERN function's callers: its hits' unique kernel stacks (-F folded: a flame graph's input)" },
	{ O_ALL, { "all", no_argument, 0, 314 }, NULL, "show unchanged functions and paths too" },
	{ O_NOISE, { "alpha", required_argument, 0, 315 }, "P", "the time test's level: a time change needs p below P (0.001)" },
	{ O_NOISE, { "min-change", required_argument, 0, 316 }, "PCT", "a time change needs the median to move PCT % or more (20; one run a side 50)" },
	{ O_INTERVAL, { "interval", required_argument, 0, 'i' }, "TIME", "a table of each TIME's calls as it ends, then the whole run's" },
	{ O_BOUNDED, { "max-size", required_argument, 0, 317 }, "SIZE", "a file holds at most SIZE bytes (K, M, G): the recording ends there (COMMAND runs on untraced), or with --rotate a new file begins" },
	{ O_BOUNDED, { "rotate", required_argument, 0, 318 }, "N", "keep the newest N files (FILE.1, FILE.2, ...), the oldest removed" },
	{ O_BOUNDED, { "split", required_argument, 0, 319 }, "TIME", "begin a new file every TIME (FILE.1, FILE.2, ...)" },
	{ O_COMPRESS, { "compression", required_argument, 0, 320 }, "ALG", "zstd (a trace.dat of version 7, as trace-cmd 3 writes; the default) or none (version 6, uncompressed: trace-cmd 2 reads it)" },
	{ O_SAVE, { "save", required_argument, 0, 321 }, "FILE", "keep the previous boot's events as FILE, a trace.dat (trace-cmd reads it)" },
	{ ~0ULL, { "help", no_argument, 0, 'h' }, NULL, "show this help" },
};

void usage(const struct cmd *c, FILE *out)
{
	fprintf(out, "usage: nopctl %s %s\n\n%s\n", c->name, c->args, c->summary);
	if (c->opts)
		fputs("\noptions:\n", out);
	for (size_t i = 0; i < sizeof(defs) / sizeof(defs[0]); i++) {
		char left[64];

		if (!(defs[i].flag & c->opts) || defs[i].flag == ~0ULL)
			continue;
		if (defs[i].lo.val < 256)
			snprintf(left, sizeof(left), "-%c, --%s%s%s", defs[i].lo.val, defs[i].lo.name,
				 defs[i].arg ? " " : "", defs[i].arg ? defs[i].arg : "");
		else if (defs[i].lo.has_arg == optional_argument)
			snprintf(left, sizeof(left), "    --%s[=%s]", defs[i].lo.name, defs[i].arg);
		else
			snprintf(left, sizeof(left), "    --%s%s%s", defs[i].lo.name,
				 defs[i].arg ? " " : "", defs[i].arg ? defs[i].arg : "");
		fprintf(out, "  %-26s %s\n", left, defs[i].help);
	}
	fprintf(out, "  %-26s %s\n", "-h, --help", "show this help");
	fputs("\nSee nopctl(1) for exit codes.\n", out);
}

static int push(void **v, size_t *n, size_t sz, const void *item)
{
	char *nv = realloc(*v, (*n + 1) * sz);

	if (!nv)
		return -1;
	memcpy(nv + *n * sz, item, sz);
	*v = nv;
	(*n)++;
	return 0;
}

static int number(const char *s, unsigned long long max, unsigned long long *out)
{
	char *end;

	if (!s || *s < '0' || *s > '9')
		return -1;
	errno = 0;
	*out = strtoull(s, &end, 10);
	return errno || *end || *out > max ? -1 : 0;
}

static int duration(const char *s, unsigned long long *ns)
{
	static const struct { const char *sfx; double mult; } units[] = {
		{ "", 1e9 }, { "s", 1e9 }, { "ms", 1e6 }, { "us", 1e3 }, { "m", 60e9 }, { "h", 3600e9 },
	};
	char *end;
	double v;
	size_t digits = s ? strspn(s, "0123456789.") : 0;

	/* decimal only: strtod would take 0x10 and 1e3 */
	if (!digits || *s < '0' || *s > '9' || memchr(s, '.', digits) != memrchr(s, '.', digits))
		return -1;
	errno = 0;
	v = strtod(s, &end);
	if (end != s + digits)
		return -1;
	if (errno || v <= 0)
		return -1;
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (!strcmp(end, units[i].sfx) && v * units[i].mult < 1e19) {
			*ns = (unsigned long long)(v * units[i].mult);
			return *ns ? 0 : -1;
		}
	return -1;
}

/* a size in bytes: digits, then K, M or G (powers of 1024) or nothing */
static int size_arg(const char *s, unsigned long long *out)
{
	static const char units[] = "KMG";
	const char *u;
	char *end;

	if (!s || *s < '0' || *s > '9')
		return -1;
	errno = 0;
	*out = strtoull(s, &end, 10);
	if (errno || !*out)
		return -1;
	if (!*end)
		return 0;
	if (end[1] && strcmp(end + 1, "B") && strcmp(end + 1, "iB"))
		return -1;
	if (!(u = strchr(units, end[0] & ~0x20)) || !end[0])
		return -1;
	for (long i = 0; i <= u - units; i++) {
		if (*out > (~0ULL >> 10))
			return -1;
		*out <<= 10;
	}
	return 0;
}

/* Every thread of a process: /proc/PID/task. */
static int add_pid(struct opts *o, const char *arg, struct nop_error *err)
{
	unsigned long long v;
	char path[64];
	struct dirent *de;
	DIR *d;
	size_t before = o->npids;

	if (number(arg, 0x3fffffff, &v) || v == 0) {
		nop_error_set(err, NOP_EUSAGE, 0, "invalid PID '%.64s': give a process id such as 1234", arg);
		return -1;
	}
	snprintf(path, sizeof(path), "/proc/%llu/task", v);
	d = opendir(path);
	if (!d) {
		nop_error_set(err, NOP_EUSAGE, errno, "no process with PID %llu", v);
		return -1;
	}
	while ((de = readdir(d))) {
		pid_t tid = (pid_t)atoi(de->d_name);

		if (tid > 0 && push((void **)&o->pids, &o->npids, sizeof(pid_t), &tid)) {
			closedir(d);
			nop_error_set(err, NOP_EINTERNAL, ENOMEM, "out of memory");
			return -1;
		}
	}
	closedir(d);
	if (o->npids == before) {
		nop_error_set(err, NOP_EUSAGE, 0, "process %llu has exited", v);
		return -1;
	}
	return 0;
}

static int bad(struct nop_error *err, const char *opt, const char *arg, const char *want)
{
	nop_error_set(err, NOP_EUSAGE, 0, "invalid value '%.64s' for %s: %s", arg, opt, want);
	return -1;
}

static int parse(const struct cmd *c, int argc, char **argv, struct opts *o, struct nop_error *err)
{
	struct option lo[sizeof(defs) / sizeof(defs[0]) + 1];
	char shorts[64] = "+";
	int n = 0, dashdash = argc;
	unsigned long long v;

	memset(o, 0, sizeof(*o));
	for (size_t i = 0; i < sizeof(defs) / sizeof(defs[0]); i++) {
		bool dup = false;

		for (int k = 0; k < n; k++)
			dup |= !strcmp(lo[k].name, defs[i].lo.name);
		if (dup)
			continue; /* --format: one option, two help lines */
		lo[n++] = defs[i].lo;
		if (defs[i].lo.val < 256)
			snprintf(shorts + strlen(shorts), sizeof(shorts) - strlen(shorts), "%c%s",
				 defs[i].lo.val, defs[i].lo.has_arg ? ":" : "");
	}
	memset(&lo[n], 0, sizeof(lo[n]));
	shorts[0] = '-'; /* patterns come back as arguments, in order */
	for (int i = 1; i < argc; i++)
		if (!strcmp(argv[i], "--")) {
			dashdash = i;
			break;
		}
	optind = 0;
	opterr = 0;
	for (;;) {
		int idx = -1, ch = getopt_long(dashdash, argv, shorts, lo, &idx);
		const struct optdef *d = NULL;
		char name[40];

		if (ch == -1)
			break;
		if (ch == '?' || ch == ':') {
			const char *bad_opt = argv[optind - 1];

			nop_error_set(err, NOP_EUSAGE, 0,
				      ch == ':' || (optopt && strchr(shorts, optopt))
					      ? "option %.64s needs a value; see 'nopctl %s --help'"
					      : "unknown option '%.64s'; see 'nopctl %s --help'",
				      bad_opt, c->name);
			return -1;
		}
		if (ch == 1) {
			if (!(c->opts & O_PATTERNS)) {
				nop_error_set(err, NOP_EUSAGE, 0,
					      "'nopctl %s' takes no argument '%.64s'", c->name, optarg);
				return -1;
			}
			if (push((void **)&o->patterns, &o->npatterns, sizeof(char *), &optarg))
				goto oom;
			continue;
		}
		for (size_t i = 0; i < sizeof(defs) / sizeof(defs[0]); i++)
			if (defs[i].lo.val == ch && (!d || (defs[i].flag & c->opts)))
				d = &defs[i];
		snprintf(name, sizeof(name), "--%s", d->lo.name);
		if (!(d->flag & c->opts)) {
			nop_error_set(err, NOP_EUSAGE, 0, "'nopctl %s' does not take %s", c->name, name);
			return -1;
		}
		switch (ch) {
		case 'h': o->help = true; break;
		case 'p': if (add_pid(o, optarg, err)) return -1; break;
		case 'm':
			if (nop_module_check(optarg, err))
				return -1;
			o->module = optarg;
			break;
		case 'n':
			if (push((void **)&o->notrace, &o->nnotrace, sizeof(char *), &optarg))
				goto oom;
			break;
		case 'd':
			if (duration(optarg, &o->duration_ns))
				return bad(err, name, optarg, "give a time such as 5, 2.5s, 500ms or 1m");
			break;
		case 'i':
			if (duration(optarg, &o->interval_ns) || o->interval_ns < 10000000ULL)
				return bad(err, name, optarg, "give a time of 10ms or more, such as 1, 1s or 500ms");
			break;
		case 317:
			if (size_arg(optarg, &o->max_size) || o->max_size < (1ULL << 20))
				return bad(err, name, optarg, "give a size of 1M or more, such as 8M or 2G");
			break;
		case 320:
			if (strcmp(optarg, "zstd") && strcmp(optarg, "none"))
				return bad(err, name, optarg, "give zstd or none");
			o->uncompressed = !strcmp(optarg, "none");
			break;
		case 318:
			if (number(optarg, 100000, &v) || v < 2)
				return bad(err, name, optarg, "give a number of files from 2 to 100000");
			o->rotate = (unsigned)v;
			break;
		case 319:
			if (duration(optarg, &o->split_ns) || o->split_ns < 100000000ULL)
				return bad(err, name, optarg, "give a time of 100ms or more, such as 10m or 1h");
			break;
		case 'c':
			if (number(optarg, ~0ULL, &o->count) || !o->count)
				return bad(err, name, optarg, "give a count of 1 or more");
			break;
		case 'b':
			if (number(optarg, 1ULL << 24, &v) || !v)
				return bad(err, name, optarg, "give a size in KB from 1 to 16777216");
			o->buffer_kb = (size_t)v;
			break;
		case 'C': o->cpus = optarg; break;
		case 's': o->stack = true; break;
		case 'o':
			if (!*optarg)
				return bad(err, name, optarg, "give a file name");
			o->output = optarg;
			break;
		case 'F':
			if (c->opts & O_DIFFFMT) {
				static const char *const df[] = { "text", "json", "folded", "svg" };
				size_t k;

				for (k = 0; k < 4 && strcmp(optarg, df[k]); k++)
					;
				if (k == 4)
					return bad(err, name, optarg, "formats are text, json, folded and svg");
				o->diff_format = (enum nop_diff_format)k;
				o->enc = k == NOP_DIFF_JSON ? NOP_ENC_JSON : NOP_ENC_TEXT;
				break;
			}
			{
			static const struct { const char *name; enum nop_view view; enum nop_encoding enc; } f[] = {
				{ "text", NOP_VIEW_LINES, NOP_ENC_TEXT },   { "json", NOP_VIEW_LINES, NOP_ENC_JSON },
				{ "folded", NOP_VIEW_FOLDED, NOP_ENC_TEXT }, { "dot", NOP_VIEW_DOT, NOP_ENC_TEXT },
				{ "chrome", NOP_VIEW_CHROME, NOP_ENC_TEXT },
			};
			size_t k, nfmt = c->opts & O_GRAPHFMT ? 5 : c->opts & O_CALLERS ? 3 : 2;

			for (k = 0; k < nfmt && strcmp(optarg, f[k].name); k++)
				;
			if (k == nfmt)
				return bad(err, name, optarg, nfmt == 5 ? "formats are text, json, folded, dot and chrome"
							      : nfmt == 3 ? "formats are text, json and folded (with --callers)"
									  : "formats are text and json");
			o->view = f[k].view;
			o->enc = f[k].enc;
			break;
		}
		case 'D':
			if (number(optarg, 1000, &v) || !v)
				return bad(err, name, optarg, "give a depth from 1 to 1000");
			o->depth = (int)v;
			break;
		case 't':
			if (duration(optarg, &o->thresh_ns) || o->thresh_ns < 1000)
				return bad(err, name, optarg, "give a time of at least 1us, such as 100us or 2ms");
			break;
		case 300: o->retval = true; break;
		case 307: o->args = true; break;
		case 308: o->errors = o->retval = true; break;
		case 309:
			if (duration(optarg, &o->slower_ns) || o->slower_ns < 1000)
				return bad(err, name, optarg, "give a time of at least 1us, such as 10ms or 1s");
			break;
		case 311:
			if (duration(optarg, &o->before_ns) || o->before_ns < 1000)
				return bad(err, name, optarg, "give a time of at least 1us, such as 10ms or 1s");
			break;
		case 310:
			o->outliers = OUTLIERS_WARMUP;
			if (optarg && (number(optarg, 100000000, &v) || v < 100))
				return bad(err, name, optarg, "give a warm-up of 100 to 100000000 calls, such as 1000");
			if (optarg)
				o->outliers = v;
			break;
		case 301: o->no_sleep_time = true; break;
		case 302: o->no_irqs = true; break;
		case 303: {
			static const char *const keys[] = { "total", "self", "calls", "avg", "max", "name" };
			size_t k;

			for (k = 0; k < 6 && strcmp(optarg, keys[k]); k++)
				;
			if (k == 6)
				return bad(err, name, optarg, "sort by total, self, calls, avg, max or name");
			o->sort = (enum nop_sort)k;
			break;
		}
		case 304:
			if (nop_pattern_check(optarg, err))
				return -1;
			o->hist = optarg;
			break;
		case 'j': /* same as -F json */
			o->view = NOP_VIEW_LINES;
			o->enc = NOP_ENC_JSON;
			o->diff_format = NOP_DIFF_JSON;
			break;
		case 314: o->all = true; break;
		case 315:
		case 316: {
			char *end;
			double x;

			errno = 0;
			x = strtod(optarg, &end);
			if (errno || end == optarg || *end || !(ch == 315 ? x > 0 && x < 1 : x > 0 && x <= 1000))
				return bad(err, name, optarg,
					   ch == 315 ? "give a level between 0 and 1, such as 0.001"
						     : "give a percentage above 0, such as 10");
			if (ch == 315)
				o->alpha = x;
			else
				o->min_change = x / 100;
			break;
		}
		case 'q': o->quiet = true; break;
		case 'f': o->force = true; break;
		case 'T': o->top_level = true; break;
		case 'u':
			if (!*optarg)
				return bad(err, name, optarg, "give a user name or uid");
			o->user = optarg;
			break;
		case 'e': {
			struct event_arg a = { .spec = optarg };

			if (push((void **)&o->event_args, &o->nevent_args, sizeof(a), &a))
				goto oom;
			break;
		}
		case 312:
			if (!o->nevent_args)
				return bad(err, name, optarg, "give it after the -e EVENT it filters");
			if (o->event_args[o->nevent_args - 1].filter)
				return bad(err, name, optarg, "one filter per -e EVENT: join them with && or ||");
			if (nop_event_filter_check(optarg, err))
				return -1;
			o->event_args[o->nevent_args - 1].filter = optarg;
			break;
		case 313: o->callers = true; break;
		case 321: o->save = optarg; break;
		case 'G': o->graph = true; break;
		case 305: o->stats = true; break;
		case 306: o->overwrite = true; break;
		}
	}
	if (dashdash < argc) {
		if (!(c->opts & O_COMMAND)) {
			nop_error_set(err, NOP_EUSAGE, 0, "'nopctl %s' does not run a command after --", c->name);
			return -1;
		}
		if (dashdash + 1 >= argc) {
			nop_error_set(err, NOP_EUSAGE, 0, "nothing after '--': give a command to run");
			return -1;
		}
		o->command = &argv[dashdash + 1];
	}
	if (o->user && !o->command) {
		nop_error_set(err, NOP_EUSAGE, 0, "-u runs a command as USER: give one after --");
		return -1;
	}
	return 0;
oom:
	nop_error_set(err, NOP_EINTERNAL, ENOMEM, "out of memory");
	return -1;
}

void opts_free(struct opts *o)
{
	free(o->patterns);
	free(o->notrace);
	free(o->pids);
	free(o->event_args);
	nop_kevents_free(&o->events);
	o->patterns = o->notrace = NULL;
	o->pids = NULL;
	o->event_args = NULL;
	o->nevent_args = 0;
}

/* on failure nothing is left allocated (found by fuzz_args) */
int opts_parse(const struct cmd *c, int argc, char **argv, struct opts *o, struct nop_error *err)
{
	int ret = parse(c, argc, argv, o, err);

	if (ret)
		opts_free(o);
	return ret;
}
