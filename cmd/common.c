/* common.c - helpers every subcommand uses: errors, output files,
 * finding tracefs, and checking patterns against the kernel's list. */
#include <dirent.h>
#include <errno.h>
#include <libgen.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "cmd.h"

int pattern_arg_check(const char *pat, struct nop_error *err)
{
	char bin[4096];
	const char *glob;

	if (nop_upattern(pat))
		return nop_upattern_split(pat, bin, sizeof(bin), &glob, err);
	return nop_pattern_check(pat, err);
}

int check_pattern_args(const struct opts *o)
{
	struct nop_error err = { 0 };

	for (size_t i = 0; i < o->npatterns; i++)
		if (pattern_arg_check(o->patterns[i], &err))
			return report_error(o, &err);
	return 0;
}

int need_a_pattern(const struct opts *o, const char *example, const char *hint)
{
	struct nop_error err = { 0 };

	if (o->npatterns)
		return 0;
	nop_error_set(&err, NOP_EUSAGE, 0, "no function pattern given; e.g. '%s' (%s)", example, hint);
	return report_error(o, &err);
}

/* the options that do what the library's remedy says */
static const char *const remedies[] = {
	[NOP_REMEDY_LAST_BOOT] = ": read them first with 'nopctl blackbox show' (which keeps them until the next"
				 " boot), or add --force to discard them",
	[NOP_REMEDY_OVERWRITE] = "; remove it or add --overwrite to replace it",
	[NOP_REMEDY_TAKE_OVER] = ". Use --force to take it over (its settings are restored on exit)",
	[NOP_REMEDY_RECORD_GRAPH] = ". Record with 'nopctl record -G' (trace-cmd record -p"
				    " function_graph), or show the hits with plain 'nopctl report'",
	[NOP_REMEDY_RECORD_STACKS] = ". Record with 'nopctl record -s PATTERN' (trace-cmd record -p function"
				     " -l PATTERN --func-stack)",
	[NOP_REMEDY_MODULE] = "; a kernel module's functions are -m MODULE PATTERN, its exclusions"
			      " -n PATTERN",
};

int report_error(const struct opts *o, const struct nop_error *err)
{
	int st = err->status ? (int)err->status : NOP_EINTERNAL;
	char msg[sizeof(err->msg) + 256];

	snprintf(msg, sizeof(msg), "%s%s", err->msg,
		 (size_t)err->remedy < sizeof(remedies) / sizeof(*remedies) && remedies[err->remedy]
			 ? remedies[err->remedy]
			 : "");
	/* names in it are the kernel's or a file's: escaped */
	fputs("nopctl: ", stderr);
	nop_text_put(stderr, msg);
	fputc('\n', stderr);
	if (o && o->enc == NOP_ENC_JSON) {
		fputs("{\"type\":\"error\",\"status\":", stdout);
		printf("%d,\"message\":", st);
		nop_json_str(stdout, msg);
		fputs("}\n", stdout);
	}
	return st;
}

/* glibc ignores the size without a buffer: it takes st_blksize, 4 KB for
 * a pipe or /dev/null, a write per 4 KB */
static FILE *buffered(FILE *f)
{
	static char buf[1 << 18];
	bool tty = isatty(fileno(f));

	setvbuf(f, tty ? NULL : buf, tty ? _IOLBF : _IOFBF, sizeof(buf));
	return f;
}

/* the kernel file system path is on, or that its directory is on when it
 * does not exist yet: its name, or NULL for any other (statfs f_type) */
static const char *kernel_fs(const char *path)
{
	static const struct { unsigned long magic; const char *name; } fs[] = {
		{ 0x74726163, "tracefs" }, { 0x64626720, "debugfs" },
		{ 0x62656572, "sysfs" },   { 0x9fa0, "procfs" },
	};
	char dir[4096];
	struct statfs sf;

	if (statfs(path, &sf) < 0) {
		snprintf(dir, sizeof(dir), "%s", path);
		if (statfs(dirname(dir), &sf) < 0)
			return NULL;
	}
	for (size_t i = 0; i < sizeof(fs) / sizeof(*fs); i++)
		if ((unsigned long)sf.f_type == fs[i].magic)
			return fs[i].name;
	return NULL;
}

int output_check(const struct opts *o, bool stream_ok, struct nop_error *err)
{
	struct stat st;
	const char *kfs;

	if (!o->output || !strcmp(o->output, "-"))
		return 0;
	/* a file there is a kernel setting or state: writing it (truncating,
	 * with --overwrite) would change what another user set */
	if ((kfs = kernel_fs(o->output))) {
		nop_error_set(err, NOP_EUSAGE, EINVAL,
			      "output %s is on %s, a kernel file system: nopctl writes its output to"
			      " files elsewhere, FIFOs or devices", o->output, kfs);
		return -1;
	}
	if (lstat(o->output, &st) < 0)
		return 0; /* absent: created later (a bad directory says so then) */
	if (S_ISLNK(st.st_mode))
		nop_error_set(err, NOP_EUSAGE, ELOOP,
			      "output file %s is a symbolic link; nopctl does not follow it", o->output);
	else if (S_ISDIR(st.st_mode))
		nop_error_set(err, NOP_EUSAGE, EISDIR,
			      "output %s is a directory; give a file name, e.g. -o %s/%s", o->output,
			      o->output, stream_ok ? "trace.txt" : "trace.dat");
	else if ((S_ISFIFO(st.st_mode) || S_ISCHR(st.st_mode)) && stream_ok)
		return 1; /* written as it is, as the shell's '>' would: nothing is replaced */
	else if (!S_ISREG(st.st_mode))
		nop_error_set(err, NOP_EUSAGE, EINVAL,
			      "output %s is not a regular file%s", o->output,
			      stream_ok ? ", FIFO or character device"
				        : ": a trace.dat is written as a file (its CPUs' data are"
					  " gathered beside it first); give a file name");
	else if (!o->overwrite)
		nop_error_set(err, NOP_EUSAGE, EEXIST,
			      "output file %s exists; remove it or add --overwrite to replace it",
			      o->output);
	else
		return 0;
	return -1;
}

/* graph, stats, record -G: what to graph, a root or a task */
int graph_needs_a_root(const struct opts *o)
{
	struct nop_error err = { 0 };
	int rc = check_pattern_args(o); /* a bad pattern first */

	if (rc)
		return rc;
	if (!o->npatterns && !o->npids && !o->command) {
		nop_error_set(&err, NOP_EUSAGE, 0,
			      "give a root function, -p PID or -- COMMAND: nopctl does not graph every"
			      " task of the whole kernel (e.g. 'nopctl graph do_sys_openat2')");
		return report_error(o, &err);
	}
	return 0;
}

/* catch -o DIR: DIR a directory of catch files when it ends in '/' (dir,
 * made 0700 if absent) or is one; it must be one nopctl trusts
 * (nop_output_dir), not on a kernel file system, without an earlier run's
 * catch files unless --overwrite; 1 when -o names no directory (an output
 * file, as for graph) */
int catch_dir_check(const struct opts *o, bool dir, struct nop_error *err)
{
	struct stat st;
	const char *kfs;
	DIR *d;
	struct dirent *de;
	int ret = 0;

	if (!o->output || (!dir && (lstat(o->output, &st) < 0 || !S_ISDIR(st.st_mode))))
		return 1;
	if ((kfs = kernel_fs(o->output))) {
		nop_error_set(err, NOP_EUSAGE, EINVAL, "directory %s is on %s, a kernel file system: give"
			      " a directory elsewhere for the catches", o->output, kfs);
		return -1;
	}
	if (nop_output_dir(o->output, err))
		return -1;
	if (!(d = opendir(o->output))) {
		nop_error_set(err, NOP_EUSAGE, errno, "cannot read directory %s: %s", o->output, strerror(errno));
		return -1;
	}
	while (!o->overwrite && !ret && (de = readdir(d)))
		if (!strncmp(de->d_name, "catch-", 6) && strstr(de->d_name, ".dat")) {
			nop_error_set(err, NOP_EUSAGE, EEXIST, "%s holds %s of an earlier run; remove the"
				      " catch files or add --overwrite to replace them", o->output, de->d_name);
			ret = -1;
		}
	closedir(d);
	return ret;
}

/* A FIFO or character device the user named (-o /dev/null, -o a.fifo):
 * opened for writing as it is. Not waiting for a FIFO's reader as '>'
 * would: signals are blocked by then, and Ctrl-C could not end the wait
 * (ENXIO: no reader yet) */
static int open_stream(const char *path)
{
	struct stat st;
	int fd = open(path, O_WRONLY | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);

	if (fd >= 0 && (fstat(fd, &st) < 0 || !(S_ISFIFO(st.st_mode) || S_ISCHR(st.st_mode)))) {
		close(fd);
		errno = EINVAL;
		return -1;
	}
	return fd;
}

FILE *open_output(const struct opts *o, struct nop_error *err)
{
	int fd, kind;
	FILE *f;

	if (!o->output || !strcmp(o->output, "-"))
		return buffered(stdout);
	if ((kind = output_check(o, true, err)) < 0)
		return NULL;
	if (kind == 1) {
		if ((fd = open_stream(o->output)) < 0) {
			nop_error_set(err, NOP_EUSAGE, errno, errno == ENXIO ? "FIFO %s has no reader:"
				      " start the reader first" : "cannot write to %s: %s", o->output,
				      strerror(errno));
			return NULL;
		}
		fcntl(fd, F_SETFL, 0);
		goto opened;
	}
	if ((fd = nop_output_create(o->output, o->overwrite, 0644, false)) < 0) {
		int e = errno;

		if (e == EEXIST || e == ELOOP || e == EINVAL || e == ENXIO)
			output_check(o, true, err);
		if (!err->status)
			nop_error_set(err, NOP_EUSAGE, e, "cannot create output file %s: %s",
				      o->output, strerror(e));
		return NULL;
	}
opened:
	f = fdopen(fd, "w");
	if (!f) {
		close(fd);
		nop_error_set(err, NOP_EINTERNAL, errno, "cannot open %s", o->output);
		return NULL;
	}
	return buffered(f);
}

int command_check(const char *name, char *found, size_t len, struct nop_error *err)
{
	const char *path = getenv("PATH");
	char buf[4096];

	if (strchr(name, '/')) {
		if (access(name, X_OK) == 0) {
			if (found)
				snprintf(found, len, "%s", name);
			return 0;
		}
		nop_error_set(err, NOP_EUSAGE, errno, "cannot run %s: %s", name, strerror(errno));
		return -1;
	}
	if (!path)
		path = "/usr/local/bin:/usr/bin:/bin";
	for (const char *p = path; *p;) {
		size_t n = strcspn(p, ":");
		struct stat st;

		snprintf(buf, sizeof(buf), "%.*s/%s", (int)n, n ? p : ".", name);
		if (stat(buf, &st) == 0 && S_ISREG(st.st_mode) && access(buf, X_OK) == 0) {
			if (found)
				snprintf(found, len, "%s", buf);
			return 0;
		}
		p += n + (p[n] == ':');
	}
	nop_error_set(err, NOP_EUSAGE, ENOENT, "command not found: %s", name);
	return -1;
}

const char *prepare_tracefs(struct nop_error *err)
{
	const char *dir = nop_tracefs_dir(err);
	struct nop_reset_report rep;
	struct nop_error e2;

	if (!dir)
		return NULL;
	/* instances and journals of nopctl processes that died */
	if (geteuid() != 0)
		return dir;
	nop_reset_stale(dir, &rep, &e2);
	if (rep.left[0])
		fprintf(stderr, "nopctl: note: restoring after a nopctl that died, left what"
			" someone changed since: %s\n", rep.left);
	return dir;
}

static int no_match(const struct nop_funcs *f, const char *pat, const char *mod,
		    struct nop_error *err)
{
	const char *sugg[5];
	size_t n = nop_funcs_suggest(f, pat, sugg, 5), off;
	char list[600] = "";

	for (size_t i = 0; i < n; i++) {
		off = strlen(list);
		snprintf(list + off, sizeof(list) - off, "%s%s", i ? ", " : "", sugg[i]);
	}
	nop_error_set(err, NOP_EUSAGE, 0, "no traceable function matches '%s'%s%s%s%s%s", pat,
		      mod ? " in module " : "", mod ? mod : "",
		      n ? "; close names: " : " (see 'nopctl list')", list, "");
	return -1;
}

bool func_traced(const struct nop_func *fn, const struct opts *o)
{
	bool in = false, out = false;

	for (size_t p = 0; p < o->npatterns && !in; p++)
		in = nop_func_matches(fn, o->patterns[p], o->module);
	for (size_t p = 0; p < o->nnotrace && in && !out; p++)
		out = nop_func_matches(fn, o->notrace[p], NULL);
	return in && !out;
}

/* Is a function that the patterns match left once -n takes its own? */
static bool one_left(const struct nop_funcs *f, const struct opts *o)
{
	for (size_t i = 0; i < f->n; i++)
		if (func_traced(&f->v[i], o))
			return true;
	return false;
}

int load_funcs(const char *tracing_dir, struct nop_funcs *f, struct nop_error *err)
{
	if (!nop_funcs_load(tracing_dir, f, err))
		return 0;
	if (err->sys_errno == EPERM || err->sys_errno == EACCES)
		nop_error_set(err, NOP_EKERNEL, err->sys_errno,
			      "this kernel refuses the function tracer: reading %s/available_filter_functions"
			      " gives %s (%s)%s; kernel lockdown is '%s'. Function tracing cannot"
			      " work on this machine: the kernel or its host forbids it.",
			      tracing_dir, err->sys_errno == EPERM ? "EPERM" : "EACCES",
			      strerror(err->sys_errno),
			      geteuid() == 0 ? " although nopctl runs as root" : "; run nopctl as root",
			      nop_lockdown_mode());
	return -1;
}

int check_patterns(const struct nop_funcs *f, const struct opts *o, struct nop_error *err)
{
	int ret = 0;

	for (size_t i = 0; i < o->npatterns && !ret; i++)
		if (nop_funcs_count(f, o->patterns[i], o->module) == 0)
			ret = no_match(f, o->patterns[i], o->module, err);
	for (size_t i = 0; i < o->nnotrace && !ret; i++)
		if (nop_funcs_count(f, o->notrace[i], NULL) == 0)
			ret = no_match(f, o->notrace[i], NULL, err);
	if (!ret && o->hist && nop_pattern_is_glob(o->hist)) {
		nop_error_set(err, NOP_EUSAGE, 0, "--hist takes one function name, not a glob ('%s')",
			      o->hist);
		ret = -1;
	} else if (!ret && o->hist && nop_funcs_count(f, o->hist, NULL) == 0) {
		ret = no_match(f, o->hist, NULL, err);
	}
	if (!ret && o->nnotrace && o->npatterns && !one_left(f, o)) {
		nop_error_set(err, NOP_EUSAGE, 0, "-n %s%s excludes every function the pattern%s match%s:"
			      " nothing is left to trace; exclude fewer (-n takes the same patterns)",
			      o->notrace[0], o->nnotrace > 1 ? " ..." : "", o->npatterns > 1 ? "s" : "",
			      o->npatterns > 1 ? "" : "es");
		ret = -1;
	}
	return ret;
}
