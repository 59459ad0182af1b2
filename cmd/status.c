/* status.c - nopctl status: who is tracing what, right now. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd.h"

static char *value(const char *dir, const char *rel)
{
	char path[4200], *v;
	struct nop_error e;

	snprintf(path, sizeof(path), "%s/%s", dir, rel);
	v = nop_read_file(path, NULL, &e);
	return v ? v : strdup("");
}

/* A list file's entries, comments and "no pid" left out, as one line. */
static char *entries(const char *dir, const char *rel, size_t *n)
{
	char *v = value(dir, rel), *outp = calloc(1, strlen(v) + 1);

	*n = 0;
	for (char *save, *l = strtok_r(v, "\n", &save); l && outp; l = strtok_r(NULL, "\n", &save)) {
		l = nop_trim(l);
		if (!nop_list_entry(l))
			continue;
		if ((*n)++)
			strcat(outp, " ");
		strcat(outp, l);
	}
	free(v);
	return outp;
}

static void buffer(struct nop_fields *f, const char *dir, const char *name, int owner, bool alive)
{
	/* set_graph_function: the roots of a graph (the top level's only,
	 * where instances lack it) */
	static const char *const lists[] = { "set_ftrace_filter", "set_ftrace_notrace",
					     "set_ftrace_pid", "set_graph_function" };
	struct nop_cpu_stats c;
	char *v;

	nop_fields_open(f, stdout, f->json);
	nop_field_str(f, "type", NULL, "buffer");
	nop_field_str(f, "instance", "%s:", name);
	if (owner)
		nop_field_i64(f, "owner_pid", " nopctl pid %lld", owner);
	if (owner)
		nop_field_str(f, "owner", " (%s)", alive ? "running" : "dead: run 'nopctl reset'");
	v = value(dir, "current_tracer");
	nop_field_str(f, "tracer", " tracer=%s", nop_trim(v));
	free(v);
	v = value(dir, "tracing_on");
	nop_field_u64(f, "tracing_on", " on=%llu", strtoull(v, NULL, 10));
	free(v);
	for (size_t i = 0; i < sizeof(lists) / sizeof(lists[0]); i++) {
		size_t n;
		char path[4200], *l;

		snprintf(path, sizeof(path), "%s/%s", dir, lists[i]);
		if (access(path, F_OK))
			continue; /* a file this buffer does not have */
		l = entries(dir, lists[i], &n);
		if (f->json || n)
			nop_field_str(f, lists[i], "", l);
		if (!f->json && n)
			printf(" %s=[%.60s%s]", lists[i], l, strlen(l) > 60 ? "..." : "");
		free(l);
	}
	nop_buffer_counts(dir, NULL, &c);
	nop_field_u64(f, "overrun", " overrun=%llu", c.overrun + c.commit_overrun);
	nop_field_u64(f, "dropped", " dropped=%llu", c.dropped);
	nop_fields_close(f);
}

/* one probe event: nopctl's (whose, running or not) or another user's */
static void probe(void *ctx, const struct nop_probe_info *p)
{
	struct nop_fields *f = ctx;

	nop_fields_open(f, stdout, f->json);
	nop_field_str(f, "type", "probe:", "probe");
	nop_field_str(f, "kind", " %s", p->kind);
	nop_field_str(f, "probe", " %s", p->type == 'r' ? "return" : "entry");
	nop_field_str(f, "group", " %s", p->group);
	nop_field_str(f, "event", "/%s", p->event);
	nop_field_str(f, "target", " %s", p->target);
	if (p->owner) {
		nop_field_i64(f, "owner_pid", " nopctl pid %lld", p->owner);
		nop_field_str(f, "owner", " (%s)",
			      nop_owner_alive(p->owner) ? "running" : "dead: run 'nopctl reset'");
	} else {
		nop_field_str(f, "owner", " (%s)", "not nopctl's");
	}
	nop_fields_close(f);
}

int cmd_status(struct opts *o)
{
	struct nop_error err = { 0 };
	struct nop_fields f = { .json = o->enc == NOP_ENC_JSON };
	const char *tdir = nop_tracefs_dir(&err);
	struct nop_walk w = { 0 };

	if (!tdir)
		return report_error(o, &err);
	/* the top level's owner: the nopctl holding its lock */
	buffer(&f, tdir, "top", nop_top_level_holder(), true);
	while (nop_walk_instances(&w, tdir))
		buffer(&f, w.path, w.name, w.owner, w.owner && nop_owner_alive(w.owner));
	while (nop_walk_journals(&w, nop_journal_dir())) {
		nop_fields_open(&f, stdout, f.json);
		nop_field_str(&f, "type", "journal:", "journal");
		nop_field_i64(&f, "owner_pid", " nopctl pid %lld", w.owner);
		nop_field_str(&f, "owner", " (%s)",
			      nop_tag_alive(w.tag) ? "running" : "dead: run 'nopctl reset'");
		nop_fields_close(&f);
	}
	nop_probes_list(tdir, probe, &f);
	return 0;
}
