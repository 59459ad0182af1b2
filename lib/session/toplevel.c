/* toplevel.c - the top-level tracer: whether someone else uses it, and
 * which nopctl holds the lock that makes it one session's at a time. */
#include <stdlib.h>
#include <string.h>

#include "session/session.h"

int nop_top_level_user(const char *dir, char *why, size_t len)
{
	static const char *const lists[] = { "set_ftrace_filter", "set_ftrace_notrace",
					     "set_ftrace_pid", "set_graph_function" };
	char path[4096], *v;
	struct nop_error e;

	why[0] = 0;
	v = nop_read_file(nop_path(path, sizeof(path), dir, "current_tracer"), NULL, &e);
	if (v && strcmp(nop_trim(v), "nop")) {
		snprintf(why, len, "current_tracer is '%s'", nop_trim(v));
		free(v);
		return 1;
	}
	free(v);
	for (size_t i = 0; i < ARRAY_SIZE(lists); i++) {
		v = nop_read_file(nop_path(path, sizeof(path), dir, lists[i]), NULL, &e);
		if (!v)
			continue;
		for (char *save, *l = strtok_r(v, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
			l = nop_trim(l);
			if (nop_list_entry(l)) {
				snprintf(why, len, "%s holds '%.64s'", lists[i], l);
				free(v);
				return 1;
			}
		}
		free(v);
	}
	return 0;
}

int nop_top_level_holder(void)
{
	char path[4200], *v;
	struct nop_error e;
	int pid;

	snprintf(path, sizeof(path), "%s/top-level.lock", nop_journal_dir());
	if (!nop_lock_held(path))
		return 0;
	/* the holder's pid, which claim_top_level writes there */
	v = nop_read_file(path, NULL, &e);
	pid = v ? atoi(v) : 0;
	free(v);
	return pid;
}
