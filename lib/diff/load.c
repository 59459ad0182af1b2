/* load.c - one run as a profile: a trace.dat (nopctl's or trace-cmd's)
 * through the same pipeline report uses, or nopctl's own JSON lines: a
 * graph's entries, calls and exits (their depth places each call under
 * the entries open in its task), or stats' per-function rows; lines that
 * are no JSON object (a traced command's own output) are passed over. */
#include <errno.h>
#include <fcntl.h>
#include <json-c/json.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "diff/diff.h"

/* what nop_diff_load was given: whom to tell of each timed call */
struct timed {
	int (*fn)(void *ctx, struct nop_profile *p);
	void *ctx;
};

static int load_dat(const char *path, struct nop_profile *p, const struct timed *tm, struct nop_error *err)
{
	struct nop_source *src = NULL;
	struct nop_resolver *res = NULL;
	struct nop_pipeline *pipe = NULL;
	struct nop_summary sum = { .exit_status = -1 };
	bool more = true;

	if (nop_source_file(&src, path, &res, err) == 0) {
		struct nop_pipeline_cfg pc = {
			.sink = { .view = NOP_VIEW_PROFILE, .res = res, .quiet = true, .profile = p,
				  .profile_timed = tm->fn, .profile_ctx = tm->ctx },
			.graph = true,
			.recorded = true,
		};

		if (nop_pipeline_new(&pipe, &pc, err) == 0) {
			while (more && nop_pipeline_drain(pipe, src, &more, err) == NOP_FLOW_GO)
				;
			if (!err->status)
				nop_pipeline_finish(pipe, &sum, err);
		}
	}
	nop_pipeline_free(pipe);
	nop_resolver_free(res);
	nop_source_close(src);
	return err->status ? -1 : 0;
}

static const char *jstr(struct json_object *o, const char *key)
{
	struct json_object *v;

	return json_object_object_get_ex(o, key, &v) && json_object_is_type(v, json_type_string)
		       ? json_object_get_string(v)
		       : NULL;
}

/* a number field; has: whether it was there */
static long long jnum(struct json_object *o, const char *key, bool *has)
{
	struct json_object *v;
	bool ok = json_object_object_get_ex(o, key, &v) && json_object_is_type(v, json_type_int);

	if (has)
		*has = ok;
	return ok ? json_object_get_int64(v) : 0;
}

/* the longest line and function name read: nopctl prints no longer
 * ones (a kernel symbol is under 512 bytes, the longest demangled C++
 * name among this system's libraries 8 KiB), and a line is held whole
 * while it is parsed */
#define JSON_LINE_MAX (1u << 20)
#define JSON_NAME_MAX (1u << 16)

/* an entry a task has open: its name (the profile's copy) and the node
 * of its path (0: not made yet; those made are the outermost) */
struct jopen {
	const char *name;
	size_t node;
};

/* a task's open entries, by depth (JSON graph lines) */
struct jtask {
	int pid;
	int depth; /* entries open */
	size_t cap;
	struct jopen *open;
};

struct jload {
	struct nop_profile *p;
	const struct timed *tm;
	struct jtask *task;
	size_t ntask, cap;
	size_t *slot, nslot; /* pid -> its task's index + 1, open addressing */
};

static size_t pid_hash(int pid, size_t nslot)
{
	unsigned long long h = (unsigned long long)(unsigned)pid * 0x9e3779b97f4a7c15ULL;

	return (size_t)(h ^ (h >> 32)) & (nslot - 1);
}

/* pid's task, made if new; NULL when out of memory. One look-up in a
 * table kept at most half full, whatever the number of tasks */
static struct jtask *jtask_of(struct jload *l, int pid)
{
	size_t i;

	if ((l->ntask + 1) * 2 > l->nslot) {
		size_t n = l->nslot ? l->nslot * 2 : 64, *t = calloc(n, sizeof(*t));

		if (!t)
			return NULL;
		for (size_t k = 0; k < l->ntask; k++) {
			for (i = pid_hash(l->task[k].pid, n); t[i]; i = (i + 1) & (n - 1))
				;
			t[i] = k + 1;
		}
		free(l->slot);
		l->slot = t;
		l->nslot = n;
	}
	for (i = pid_hash(pid, l->nslot); l->slot[i]; i = (i + 1) & (l->nslot - 1))
		if (l->task[l->slot[i] - 1].pid == pid)
			return &l->task[l->slot[i] - 1];
	if (nop_grow((void **)&l->task, &l->cap, l->ntask + 1, sizeof(*l->task)))
		return NULL;
	l->slot[i] = ++l->ntask;
	memset(&l->task[l->ntask - 1], 0, sizeof(*l->task));
	l->task[l->ntask - 1].pid = pid;
	return &l->task[l->ntask - 1];
}

/* the node of t's first depth entries' path into *at (the root for 0);
 * 0, or -1 out of memory */
static int jtask_path(struct nop_profile *p, struct jtask *t, int depth, size_t *at)
{
	int k = depth;

	while (k > 0 && !t->open[k - 1].node)
		k--;
	*at = k ? t->open[k - 1].node : 0;
	for (; k < depth; k++)
		if (!(*at = t->open[k].node = nop_profile_child(p, *at, t->open[k].name, true)))
			return -1;
	return 0;
}

/* one JSON object: 0, 1 when it was no call (skipped), -1 out of memory */
static int jline(struct jload *l, struct json_object *o)
{
	const char *type = jstr(o, "type"), *func = jstr(o, "func");
	bool has_depth, has_ret;
	long long depth = jnum(o, "depth", &has_depth), retval = jnum(o, "retval", &has_ret);
	struct nop_profile *p = l->p;
	struct jtask *t;
	size_t at = 0;

	if (!type)
		return 1;
	if (!strcmp(type, "summary")) {
		p->lost += (unsigned long long)(jnum(o, "lost", NULL) + jnum(o, "gaps", NULL) +
						jnum(o, "overrun", NULL) + jnum(o, "dropped", NULL));
		return 0;
	}
	if (!func)
		return 1;
	if (!strcmp(type, "func_stats")) { /* a row: calls and times only */
		p->aggregate = true;
		if (!(at = nop_profile_child(p, 0, func, true)))
			return -1;
		p->node[at].calls += (unsigned long long)jnum(o, "calls", NULL);
		p->node[at].total += (unsigned long long)jnum(o, "total_ns", NULL);
		p->node[at].self += (unsigned long long)jnum(o, "self_ns", NULL);
		p->node[at].p50 = (unsigned long long)jnum(o, "p50_ns", NULL);
		p->node[at].p99 = (unsigned long long)jnum(o, "p99_ns", NULL);
		p->node[at].errors += (unsigned long long)jnum(o, "errors", NULL);
		return 0;
	}
	if (!strcmp(type, "func")) /* the function tracer's hit */
		return (at = nop_profile_child(p, 0, func, true)) ? nop_profile_add(p, at, false, 0, 0, false, 0)
								   : -1;
	if (strcmp(type, "entry") && strcmp(type, "call") && strcmp(type, "exit"))
		return 1;
	if (!has_depth || depth < 0 || depth >= NOP_GRAPH_MAX_DEPTH)
		return 1;
	if (!(t = jtask_of(l, (int)jnum(o, "pid", NULL))))
		return -1;
	/* callers at the depths above it: the entries its task has open */
	if (jtask_path(p, t, depth < t->depth ? (int)depth : t->depth, &at))
		return -1;
	if (depth > t->depth) /* its callers' entries came before the capture */
		p->untimed++;
	if (!strcmp(type, "entry")) {
		if (depth > t->depth)
			return 0;
		t->depth = (int)depth;
		if (nop_grow((void **)&t->open, &t->cap, (size_t)depth + 1, sizeof(*t->open)))
			return -1;
		if (!(t->open[depth].name = nop_profile_name(p, func)))
			return -1;
		t->open[depth].node = 0;
		t->depth = (int)depth + 1;
		return 0;
	}
	if (depth < t->depth)
		t->depth = (int)depth;
	{
		bool timed;
		long long dur = jnum(o, "duration_ns", &timed), self = jnum(o, "self_ns", NULL);

		if (!(at = nop_profile_child(p, at, func, true)))
			return -1;
		p->node[at].user = json_object_object_get_ex(o, "binary", NULL); /* a user function's call */
		if (!timed)
			p->untimed++;
		if (nop_profile_add(p, at, timed, (unsigned long long)dur, (unsigned long long)self, has_ret, retval))
			return -1;
		return timed && l->tm->fn ? l->tm->fn(l->tm->ctx, p) : 0;
	}
}

/* the next line of f into buf (cap bytes, newline dropped, NUL ended):
 * its length; cap when longer (its start in buf, the rest read and
 * passed over); -1 at the end */
static ssize_t line_read(FILE *f, char *buf, size_t cap)
{
	size_t n = 0;
	int c;

	while ((c = getc_unlocked(f)) != EOF && c != '\n') {
		if (n + 1 < cap)
			buf[n] = (char)c;
		if (n < cap)
			n++;
	}
	if (c == EOF && !n)
		return -1;
	buf[n < cap ? n : cap - 1] = 0;
	return (ssize_t)n;
}

static int load_json(const char *path, FILE *f, struct nop_profile *p, const struct timed *tm,
		     struct nop_error *err)
{
	struct jload l = { .p = p, .tm = tm };
	char *line = malloc(JSON_LINE_MAX + 1);
	struct json_tokener *tok = json_tokener_new();
	ssize_t len;
	unsigned long long lineno = 0, calls = 0;
	int ret = 0;

	if (!line || !tok) {
		nop_error_set(err, NOP_EINTERNAL, ENOMEM, "out of memory reading %s", path);
		ret = -1;
	}
	while (!ret && (len = line_read(f, line, JSON_LINE_MAX + 1)) >= 0) {
		struct json_object *o;
		const char *func;
		int r;

		lineno++;
		/* what else the output held (a traced command's own lines) */
		if (len < 1 || line[0] != '{')
			continue;
		if (len > JSON_LINE_MAX) {
			nop_error_set(err, NOP_EUSAGE, 0,
				      "%s: line %llu is longer than %u bytes, more than any nopctl prints: give a "
				      "trace.dat or what nopctl graph, stats or trace printed as JSON",
				      path, lineno, JSON_LINE_MAX);
			ret = -1;
			break;
		}
		json_tokener_reset(tok);
		o = json_tokener_parse_ex(tok, line, (int)len);
		if (!o || json_tokener_get_error(tok) != json_tokener_success ||
		    !json_object_is_type(o, json_type_object)) {
			json_object_put(o);
			nop_error_set(err, NOP_EUSAGE, 0,
				      "%s: line %llu is not a JSON object: give a trace.dat or what nopctl graph, stats "
				      "or trace printed as JSON",
				      path, lineno);
			ret = -1;
			break;
		}
		if ((func = jstr(o, "func")) && strlen(func) > JSON_NAME_MAX) {
			nop_error_set(err, NOP_EUSAGE, 0,
				      "%s: line %llu names a function of %zu bytes, longer than any symbol (%u at most): "
				      "give a trace.dat or what nopctl graph, stats or trace printed as JSON",
				      path, lineno, strlen(func), JSON_NAME_MAX);
			json_object_put(o);
			ret = -1;
			break;
		}
		r = jline(&l, o);
		json_object_put(o);
		if (r < 0) {
			nop_error_set(err, NOP_EINTERNAL, ENOMEM, "out of memory reading %s", path);
			ret = -1;
		}
		calls += r == 0;
	}
	free(line);
	if (tok)
		json_tokener_free(tok);
	for (size_t i = 0; i < l.ntask; i++)
		free(l.task[i].open);
	free(l.task);
	free(l.slot);
	if (!ret && ferror(f)) {
		nop_error_set(err, NOP_EINTERNAL, errno, "cannot read %s", path);
		ret = -1;
	}
	if (!ret && !calls) {
		nop_error_set(err, NOP_EUSAGE, 0,
			      "%s holds no calls: give a trace.dat or the JSON of nopctl graph, stats or trace", path);
		ret = -1;
	}
	return ret;
}

int nop_diff_load(const char *path, struct nop_profile **pp, int (*timed)(void *ctx, struct nop_profile *p),
		  void *ctx, struct nop_error *err)
{
	const struct timed tm = { timed, ctx };
	struct nop_profile *p = nop_profile_new();
	FILE *f = NULL;
	struct stat st;
	int c = EOF, ret, fd;

	*pp = NULL;
	if (!p) {
		nop_error_set(err, NOP_EINTERNAL, ENOMEM, "out of memory");
		return -1;
	}
	/* a regular file only: a device or a pipe can be endless (/dev/zero),
	 * a FIFO without a writer blocks the open */
	if ((fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)) < 0) {
		nop_error_set(err, errno == ENOENT || errno == EACCES ? NOP_EUSAGE : NOP_EINTERNAL, errno,
			      "cannot open %s", path);
		nop_profile_free(p);
		return -1;
	}
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		nop_error_set(err, NOP_EUSAGE, 0,
			      "%s is not a regular file (%s): give a trace.dat or the JSON of nopctl graph, stats or "
			      "trace saved to a file",
			      path, S_ISDIR(st.st_mode) ? "a directory" : S_ISFIFO(st.st_mode) ? "a pipe" : "a device or socket");
		close(fd);
		nop_profile_free(p);
		return -1;
	}
	if (fcntl(fd, F_SETFL, 0) || !(f = fdopen(fd, "r"))) {
		nop_error_set(err, NOP_EINTERNAL, errno, "cannot read %s", path);
		close(fd);
		nop_profile_free(p);
		return -1;
	}
	/* a trace.dat starts with its magic, 0x17 0x08 'D' "tracing"; else
	 * lines, nopctl's JSON objects among them */
	c = getc(f);
	if (c == 0x17) {
		ret = load_dat(path, p, &tm, err);
	} else {
		if (c != EOF)
			ungetc(c, f);
		ret = load_json(path, f, p, &tm, err);
	}
	fclose(f);
	if (ret) {
		nop_profile_free(p);
		return -1;
	}
	*pp = p;
	return 0;
}
