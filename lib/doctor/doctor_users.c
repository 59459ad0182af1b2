/* doctor_users.c - who else is tracing: the top level, other instances,
 * nopctl sessions that died, and events lost in any buffer right now. */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

#include "doctor/doctor.h"

/* append ", text" to a list buffer */
static void add(char *list, size_t len, const char *text)
{
	size_t off = strlen(list);

	snprintf(list + off, len - off, "%s%s", off ? ", " : "", text);
}

/* a warning naming what list holds, or ok when it is empty */
static void say_list(struct doc *d, const char *id, const char *list, const char *fix,
		     const char *what, const char *none)
{
	if (*list)
		doc_say(d, id, NULL, NOP_CHECK_WARN, fix, "%s: %s", what, list);
	else
		doc_say(d, id, NULL, NOP_CHECK_OK, NULL, "%s", none);
}

void doc_check_users(struct doc *d)
{
	char why[200], stale[1024] = "", others[1024] = "", buf[300];
	struct nop_walk w = { 0 };
	int live = 0, holder = nop_top_level_holder();
	char comm[64];
	pid_t reader = nop_top_level_reader(d->tdir, comm, sizeof(comm));

	if (holder)
		doc_say(d, "top_level", NULL, NOP_CHECK_WARN,
			"wait for it, or see 'nopctl status'",
			"another nopctl (pid %d) holds the top level (%s/top-level.lock)",
			holder, nop_journal_dir());
	else if (reader)
		doc_say(d, "top_level", NULL, NOP_CHECK_WARN,
			"nopctl leaves the top level to it (exit 4 where a run needs it, --force too):"
			" trace runs in an instance",
			"%s (pid %d) reads the top-level buffer", comm, (int)reader);
	else if (nop_top_level_user(d->tdir, why, sizeof(why)))
		doc_say(d, "top_level", NULL, NOP_CHECK_WARN,
			"nopctl leaves it alone: trace runs in an instance; --top-level, and graph where"
			" the kernel runs it only at the top level, refuse with exit 4 unless --force",
			"in use by someone else: %s", why);
	else
		doc_say(d, "top_level", NULL, NOP_CHECK_OK, NULL,
			"free: current_tracer is nop and no filter or pid is set");

	while (nop_walk_instances(&w, d->tdir)) {
		char rel[600], *tracer;
		struct nop_error e;

		if (w.owner) {
			if (!nop_owner_alive(w.owner)) {
				snprintf(buf, sizeof(buf), "instance %s (pid %d is gone)", w.name, (int)w.owner);
				add(stale, sizeof(stale), buf);
			}
			continue;
		}
		snprintf(rel, sizeof(rel), "instances/%s/current_tracer", w.name);
		tracer = doc_read(d, rel, &e);
		snprintf(buf, sizeof(buf), "%s (tracer %s)", w.name, tracer ? tracer : "?");
		add(others, sizeof(others), buf);
		free(tracer);
	}
	while (nop_walk_journals(&w, nop_journal_dir())) {
		if (nop_tag_alive(w.tag)) {
			live++; /* every session, instance or top level, has one */
		} else {
			snprintf(buf, sizeof(buf), "journal %s (pid %d is gone)", w.path, (int)w.owner);
			add(stale, sizeof(stale), buf);
		}
	}
	if (*others)
		doc_say(d, "instances.others", NULL, NOP_CHECK_OK, NULL,
			"instances of other tools (nopctl does not touch them): %s", others);
	doc_say(d, "sessions", NULL, NOP_CHECK_OK, NULL, "%d nopctl session(s) running", live);
	say_list(d, "stale", stale, "run 'nopctl reset' (the next nopctl run also cleans up)",
		 "left by nopctl processes that died", "no instance or journal of a dead nopctl");
}

/* one buffer's overrun and dropped events, or a CPU's buffer 3/4 full
 * (close to losing them), appended to list */
static void buffer_lost(const char *dir, const char *name, char *list, size_t len)
{
	struct nop_cpu_stats c;
	int fill = nop_buffer_fill(dir, NULL);
	char buf[300];

	nop_buffer_counts(dir, NULL, &c);
	if (!c.overrun && !c.commit_overrun && !c.dropped && fill < 75)
		return;
	snprintf(buf, sizeof(buf), "%s: %llu overrun, %llu dropped, %d%% full", name,
		 c.overrun + c.commit_overrun, c.dropped, fill);
	add(list, len, buf);
}

void doc_check_lost(struct doc *d)
{
	char lost[1024] = "";
	struct nop_walk w = { 0 };

	buffer_lost(d->tdir, "top level", lost, sizeof(lost));
	while (nop_walk_instances(&w, d->tdir))
		buffer_lost(w.path, w.name, lost, sizeof(lost));
	say_list(d, "lost", lost, "a bigger buffer (-b KB), fewer functions, a pid filter (-p), or a faster reader",
		 "events lost in buffers, or close to it, right now",
		 "no events lost in any buffer right now, none close to full");
}
