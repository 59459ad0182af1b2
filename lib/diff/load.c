/* load.c - one run as a profile: a trace.dat (nopctl's or trace-cmd's)
 * through the same pipeline report uses, or nopctl's own JSON lines: a
 * graph's entries, calls and exits (their depth places each call under
 * the entries open in its task), or stats' per-function rows; lines that
 * are no JSON object (a traced command's own output) are passed over. */
#include <errno.h>
#include <json-c/json.h>
#include <stdlib.h>
#include <string.h>

#include "diff/diff.h"

static int load_dat(const char *path, struct nop_profile *p, struct nop_error *err)
{
	struct nop_source *src = NULL;
	struct nop_resolver *res = NULL;
	struct nop_pipeline *pipe = NULL;
	struct nop_summary sum = { .exit_status = -1 };
	bool more = true;

	if (nop_source_file(&src, path, &res, err) == 0) {
		struct nop_pipeline_cfg pc = {
			.sink = { .view = NOP_VIEW_PROFILE, .res = res, .quiet = true, .profile = p },
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

/* a task's open entries, by depth (JSON graph lines) */
struct jtask {
	int pid;
	int depth; /* entries open */
	char *name[NOP_GRAPH_MAX_DEPTH];
};

struct jload {
	struct nop_profile *p;
	struct jtask *task;
	size_t ntask, cap, last;
};

static void jtask_drop(struct jtask *t, int from)
{
	for (int i = from; i < t->depth; i++) {
		free(t->name[i]);
		t->name[i] = NULL;
	}
	if (t->depth > from)
		t->depth = from;
}

/* one JSON object: 0, 1 when it was no call (skipped), -1 out of memory */
static int jline(struct jload *l, struct json_object *o)
{
	const char *type = jstr(o, "type"), *func = jstr(o, "func");
	bool has_depth, has_ret, added;
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
	if (!(t = nop_task_slot((void **)&l->task, &l->ntask, &l->cap, sizeof(*t), (int)jnum(o, "pid", NULL),
				&l->last, &added)))
		return -1;
	/* callers at the depths above it: the entries its task has open */
	for (int i = 0; i < depth && i < t->depth; i++)
		if (!(at = nop_profile_child(p, at, t->name[i], true)))
			return -1;
	if (depth > t->depth) /* its callers' entries came before the capture */
		p->untimed++;
	if (!strcmp(type, "entry")) {
		jtask_drop(t, (int)depth);
		if (depth > t->depth || !(t->name[depth] = strdup(func)))
			return depth > t->depth ? 0 : -1;
		t->depth = (int)depth + 1;
		return 0;
	}
	jtask_drop(t, (int)depth);
	{
		bool timed;
		long long dur = jnum(o, "duration_ns", &timed), self = jnum(o, "self_ns", NULL);

		if (!(at = nop_profile_child(p, at, func, true)))
			return -1;
		p->node[at].user = json_object_object_get_ex(o, "binary", NULL); /* a user function's call */
		if (!timed)
			p->untimed++;
		return nop_profile_add(p, at, timed, (unsigned long long)dur, (unsigned long long)self, has_ret,
				       retval);
	}
}

static int load_json(const char *path, FILE *f, struct nop_profile *p, struct nop_error *err)
{
	struct jload l = { .p = p };
	char *line = NULL;
	size_t cap = 0;
	ssize_t len;
	unsigned long long lineno = 0, calls = 0;
	int ret = 0;

	while (!ret && (len = getline(&line, &cap, f)) >= 0) {
		struct json_object *o;
		int r;

		lineno++;
		/* what else the output held (a traced command's own lines) */
		if (len <= 1 || line[0] != '{')
			continue;
		if (!(o = json_tokener_parse(line)) || !json_object_is_type(o, json_type_object)) {
			json_object_put(o);
			nop_error_set(err, NOP_EUSAGE, 0,
				      "%s: line %llu is not a JSON object: give a trace.dat or what nopctl graph, stats "
				      "or trace printed as JSON",
				      path, lineno);
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
	for (size_t i = 0; i < l.ntask; i++)
		jtask_drop(&l.task[i], 0);
	free(l.task);
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

int nop_diff_load(const char *path, struct nop_profile **pp, struct nop_error *err)
{
	struct nop_profile *p = nop_profile_new();
	FILE *f = NULL;
	int c = EOF, ret;

	*pp = NULL;
	if (!p) {
		nop_error_set(err, NOP_EINTERNAL, ENOMEM, "out of memory");
		return -1;
	}
	if (!(f = fopen(path, "re"))) {
		nop_error_set(err, errno == ENOENT || errno == EACCES ? NOP_EUSAGE : NOP_EINTERNAL, errno,
			      "cannot open %s", path);
		nop_profile_free(p);
		return -1;
	}
	/* a trace.dat starts with its magic, 0x17 0x08 'D' "tracing"; else
	 * lines, nopctl's JSON objects among them */
	c = getc(f);
	if (c == 0x17) {
		ret = load_dat(path, p, err);
	} else {
		if (c != EOF)
			ungetc(c, f);
		ret = load_json(path, f, p, err);
	}
	fclose(f);
	if (ret) {
		nop_profile_free(p);
		return -1;
	}
	*pp = p;
	return 0;
}
