/* gate.c - catch's kernel gate (struct nop_gate_plan, session.h) made and
 * watched: its probe events and synthetic event created journaled, its
 * triggers appended, a snapshot trigger seen fired and armed again, the
 * kernel's counts read. Removal is the journal's (replay.c): a probe's
 * triggers are cleared before the probe goes (probes.c), the synthetic
 * event after the probes whose triggers name it, the snapshot buffer
 * nopctl allocated freed last.
 *
 * Kernel facts this relies on (6.1, 6.12, 6.19): a trigger file opened
 * with O_TRUNC drops every hist trigger of the event, so triggers are
 * only ever appended; a count trigger reads "snapshot:count=0 ..." once
 * spent, and "!snapshot" removes an event's snapshot trigger whatever its
 * count and filter; a probe event with triggers is not enabled, yet its
 * triggers run ("soft disabled") and set_event_pid applies to them.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "session/session.h"

static int gate_write(const char *tracing_dir, const char *rel, const char *text, bool append,
		      struct nop_error *err)
{
	char path[4200];

	snprintf(path, sizeof(path), "%s/%s", tracing_dir, rel);
	if (nop_write_file(path, text, append, err) == 0)
		return 0;
	nop_error_set(err, NOP_EKERNEL, err->sys_errno, "the kernel refused catch's gate ('%s' in %s): %s",
		      text, rel, strerror(err->sys_errno));
	err->remedy = NOP_REMEDY_NO_GATE;
	return -1;
}

/* the first bytes of a file (the snapshot file prints the whole buffer) */
static bool starts_with_freed(const char *tracing_dir)
{
	char path[4200], buf[1024];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "%s/snapshot", tracing_dir);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return false;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	buf[n > 0 ? n : 0] = 0;
	return strstr(buf, "Snapshot is freed") != NULL;
}

int nop_gate_create(struct nop_journal *j, const char *tracing_dir, const struct nop_gate_plan *g,
		    struct nop_error *err)
{
	/* the snapshot buffer, allocated by the first snapshot trigger: freed
	 * at the end only if nopctl's was the allocation */
	if (starts_with_freed(tracing_dir) && nop_journal_note(j, "snapshot", ".", err))
		return -1;
	for (size_t i = 0; i < g->nprobes; i++) {
		const char *ge = strchr(g->probes[i], ':');
		char name[160];
		size_t n;

		if (!ge || (n = strcspn(ge + 1, " ")) >= sizeof(name)) {
			nop_error_set(err, NOP_EINTERNAL, EINVAL, "bad gate probe '%s'", g->probes[i]);
			return -1;
		}
		memcpy(name, ge + 1, n);
		name[n] = 0;
		if (nop_journal_probe(j, name, err) || gate_write(tracing_dir, "kprobe_events", g->probes[i], true, err))
			return -1;
	}
	if (g->synth[0] && (nop_journal_note(j, "synthetic", g->synth_name, err) ||
			    gate_write(tracing_dir, "synthetic_events", g->synth, true, err)))
		return -1;
	for (size_t i = 0; i < g->ntrig; i++)
		if (gate_write(tracing_dir, g->trig[i].rel, g->trig[i].text, true, err))
			return -1;
	return 0;
}

static bool spent(const char *tracing_dir, const char *rel)
{
	char path[4200], *v;
	struct nop_error e;
	bool yes;

	snprintf(path, sizeof(path), "%s/%s", tracing_dir, rel);
	if (!(v = nop_read_file(path, NULL, &e)))
		return false;
	yes = strstr(v, "snapshot:count=0") != NULL;
	free(v);
	return yes;
}

bool nop_gate_fired(const char *tracing_dir, const struct nop_gate_plan *g)
{
	for (size_t i = 0; i < g->narm; i++)
		if (spent(tracing_dir, g->trig[g->arm[i]].rel))
			return true;
	return false;
}

int nop_gate_rearm(const char *tracing_dir, const struct nop_gate_plan *g, struct nop_error *err)
{
	for (size_t i = 0; i < g->narm; i++) {
		const struct nop_gate_trigger *t = &g->trig[g->arm[i]];

		if (spent(tracing_dir, t->rel) && (gate_write(tracing_dir, t->rel, "!snapshot", true, err) ||
						   gate_write(tracing_dir, t->rel, t->text, true, err)))
			return -1;
	}
	return 0;
}

/* the hitcounts of one hist trigger of a hist file: the entries after its
 * "# trigger info: PREFIX..." line, up to the next trigger's */
static unsigned long long hist_count(const char *tracing_dir, const struct nop_gate_count *c)
{
	char path[4200], *v, *save;
	struct nop_error e;
	unsigned long long n = 0;
	bool in = false;

	snprintf(path, sizeof(path), "%s/%s", tracing_dir, c->rel);
	if (!(v = nop_read_file(path, NULL, &e)))
		return 0;
	for (char *l = strtok_r(v, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		const char *h;

		if (!strncmp(l, "# trigger info: ", 16))
			in = !strncmp(l + 16, c->prefix, strlen(c->prefix));
		else if (in && l[0] == '{' && (h = strstr(l, "hitcount:")))
			n += strtoull(h + 9, NULL, 10);
	}
	free(v);
	return n;
}

void nop_gate_counts(const char *tracing_dir, const struct nop_gate_plan *g, unsigned long long *roots,
		     unsigned long long *hits)
{
	*roots = *hits = 0;
	for (size_t i = 0; i < g->nroots; i++)
		*roots += hist_count(tracing_dir, &g->roots[i]);
	for (size_t i = 0; i < g->nhits; i++)
		*hits += hist_count(tracing_dir, &g->hits[i]);
}

/* replay: a synthetic event nopctl made, its triggers first (the probes'
 * triggers that name it went with the probes) */
int nop_synth_remove(const char *tracing_dir, const char *name, struct nop_replay *rep, struct nop_error *err)
{
	char rel[300], def[300];

	if (strncmp(name, "nopctl_", 7) || strspn(name, "abcdefghijklmnopqrstuvwxyz0123456789_") != strlen(name))
		return 0; /* not a name nopctl gives */
	snprintf(rel, sizeof(rel), "events/synthetic/%s", name);
	if (!nop_path_exists(tracing_dir, rel))
		return 0;
	snprintf(rel, sizeof(rel), "events/synthetic/%s/trigger", name);
	nop_clear_triggers(tracing_dir, rel);
	snprintf(def, sizeof(def), "!%s", name);
	snprintf(rel, sizeof(rel), "%s/synthetic_events", tracing_dir);
	if (nop_write_file(rel, def, true, err) == 0)
		return 0;
	nop_replay_left(rep, name, "synthetic event could not be removed");
	return -1;
}

/* every trigger of an event: the hist ones (O_TRUNC), then a snapshot
 * trigger (the only other kind nopctl sets) */
void nop_clear_triggers(const char *tracing_dir, const char *rel)
{
	char path[4200], *v;
	struct nop_error e2;
	bool any = false;

	snprintf(path, sizeof(path), "%s/%s", tracing_dir, rel);
	if (!(v = nop_read_file(path, NULL, &e2)))
		return;
	for (const char *l = v; *l && !any; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : l + strlen(l))
		any = *l != '#' && *l != '\n';
	free(v);
	if (!any)
		return; /* none: nothing written (a write may allocate a buffer) */
	nop_write_file(path, "", false, &e2);
	if (strstr(rel, "/trigger"))
		nop_write_file(path, "!snapshot", true, &e2);
}

/* replay: the snapshot buffer nopctl allocated, freed */
void nop_snapshot_free(const char *tracing_dir, const char *rel)
{
	char path[4200];
	struct nop_error e2;

	if (rel[0] == '/' || strstr(rel, ".."))
		return;
	snprintf(path, sizeof(path), "%s/%s/snapshot", tracing_dir, rel);
	nop_write_file(path, "0", false, &e2);
}
