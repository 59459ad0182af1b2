/* reset.c - nopctl reset, and the cleanup every run starts with: the
 * journals of nopctls that no longer run replayed, shared settings whose
 * users all died put back, their instances and probe events removed;
 * what could not go back is named in the report. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "session/session.h"

/* one replay's files left as they are, into the report, after whose */
static void left_add(struct nop_reset_report *rep, const char *whose, const struct nop_replay *r)
{
	size_t off = strlen(rep->left);

	rep->left_files += r->nleft;
	if (r->left[0] && off < sizeof(rep->left) - 1)
		snprintf(rep->left + off, sizeof(rep->left) - off, "%s%s: %s", off ? "; " : "", whose,
			 r->left);
}

/* Every journal of a nopctl that no longer runs, replayed; live ones
 * counted. Only from a journal directory that passes the checks. */
static int replay_stale(const char *tracing_dir, struct nop_reset_report *rep, struct nop_error *err)
{
	struct nop_walk w = { 0 };
	struct nop_error e2;
	char whose[64];
	int ret = 0;

	if (nop_journal_dir_check(&e2) < 0)
		return 0;
	while (nop_walk_journals(&w, nop_journal_dir())) {
		struct nop_replay r = { 0 };
		int one = nop_journal_replay_unheld(w.path, tracing_dir, &r, &e2);

		if (one == 1) {
			rep->live_sessions++;
			continue;
		}
		if (one == 2) { /* not trusted: named, left in place */
			left_add(rep, "journal", &r);
			continue;
		}
		rep->removed_instances += r.instances;
		snprintf(whose, sizeof(whose), "pid %s", w.tag);
		left_add(rep, whose, &r);
		if (one < 0 && ret == 0) {
			*err = e2;
			ret = -1;
		}
		rep->restored_journals++;
	}
	return ret;
}

int nop_reset_stale(const char *tracing_dir, struct nop_reset_report *rep,
		    struct nop_error *err)
{
	struct nop_walk w = { 0 };
	struct nop_error e2;
	int ret;

	memset(rep, 0, sizeof(*rep));
	ret = replay_stale(tracing_dir, rep, err);
	/* shared settings whose users all died go back with them */
	if (nop_journal_dir_check(&e2) == 0) {
		struct nop_replay r = { 0 };

		if (nop_shared_release(tracing_dir, 0, &r, &e2) < 0 && ret == 0) {
			*err = e2;
			ret = -1;
		}
		left_add(rep, "shared", &r);
	}
	while (nop_walk_instances(&w, tracing_dir)) {
		int gone;

		/* another PID namespace's nopctl: its pid and journal may be out
		 * of sight, but a live session holds a file of its instance */
		if (!w.owner && nop_instance_of_any_ns(w.name)) {
			if ((gone = nop_instance_remove_unheld(tracing_dir, w.name, &e2)) == 0)
				rep->removed_instances++;
			else if (gone < 0 && ret == 0)
				*err = e2, ret = -1;
			continue;
		}
		/* our own pid's too: cleanup comes before our first change */
		if (!w.owner || nop_owner_alive(w.owner))
			continue;
		if (nop_instance_remove(tracing_dir, w.name, &e2) < 0) {
			if (ret == 0)
				*err = e2;
			ret = -1;
		} else {
			rep->removed_instances++;
		}
	}
	{
		/* probes of a nopctl whose journal did not name them */
		struct nop_replay r = { 0 };

		if (nop_probes_reset_stale(tracing_dir, &r, ret ? &e2 : err) < 0)
			ret = -1;
		left_add(rep, "probes", &r);
	}
	return ret;
}
