/* status.c - nopctl status: who is tracing what, right now. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd.h"

static void buffer(struct nop_fields *f, const char *dir, const char *name, int owner, bool alive)
{
	struct nop_buffer_state s;

	if (nop_buffer_state_read(dir, &s))
		return; /* out of memory: this buffer's line is left out */
	nop_fields_open(f, stdout, f->json);
	nop_field_str(f, "type", NULL, "buffer");
	nop_field_str(f, "instance", "%s:", name);
	if (owner)
		nop_field_i64(f, "owner_pid", " nopctl pid %lld", owner);
	if (owner)
		nop_field_str(f, "owner", " (%s)", alive ? "running" : "dead: run 'nopctl reset'");
	nop_field_str(f, "tracer", " tracer=%s", s.tracer);
	nop_field_u64(f, "tracing_on", " on=%llu", s.on);
	for (int i = 0; i < NOP_LISTS; i++) {
		const char *l = s.list[i];

		if (!s.has[i])
			continue;
		if (f->json || s.nlist[i])
			nop_field_str(f, nop_list_files[i], "", l);
		if (!f->json && s.nlist[i])
			printf(" %s=[%.60s%s]", nop_list_files[i], l, strlen(l) > 60 ? "..." : "");
	}
	nop_field_u64(f, "overrun", " overrun=%llu", s.counts.overrun + s.counts.commit_overrun);
	nop_field_u64(f, "dropped", " dropped=%llu", s.counts.dropped);
	nop_fields_close(f);
	nop_buffer_state_free(&s);
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
	struct nop_bbox b;

	if (nop_bbox_find(tdir, &b, &err) == 0)
		blackbox_status_line(&f, &b);
	return 0;
}
