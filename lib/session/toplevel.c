/* toplevel.c - the top-level tracer: whether someone else uses it, and
 * which nopctl holds the lock that makes it one session's at a time. */
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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

/* a process with the top level's trace_pipe or one of its trace_pipe_raw
 * open: its pid (and name in comm), or 0 */
pid_t nop_top_level_reader(const char *tracing_dir, char *comm, size_t len)
{
	DIR *proc = opendir("/proc");
	struct dirent *p;
	pid_t found = 0;
	size_t tl = strlen(tracing_dir);

	while (proc && !found && (p = readdir(proc))) {
		char fds[64], link[300], target[4200];
		pid_t pid = (pid_t)atoi(p->d_name);
		DIR *d;
		struct dirent *f;

		if (pid <= 0 || pid == getpid())
			continue;
		snprintf(fds, sizeof(fds), "/proc/%d/fd", (int)pid);
		if (!(d = opendir(fds)))
			continue;
		while (!found && (f = readdir(d))) {
			ssize_t n;
			const char *rel;

			snprintf(link, sizeof(link), "%s/%s", fds, f->d_name);
			if ((n = readlink(link, target, sizeof(target) - 1)) <= 0)
				continue;
			target[n] = 0;
			if (strncmp(target, tracing_dir, tl) || target[tl] != '/')
				continue;
			rel = target + tl + 1;
			/* the top level's, not an instance's (instances/NAME/...) */
			if (!strcmp(rel, "trace_pipe") ||
			    (!strncmp(rel, "per_cpu/cpu", 11) && strstr(rel, "/trace_pipe_raw")))
				found = pid;
		}
		closedir(d);
	}
	if (proc)
		closedir(proc);
	if (found && comm) {
		char path[64], *v;
		struct nop_error e;

		snprintf(path, sizeof(path), "/proc/%d/comm", (int)found);
		v = nop_read_file(path, NULL, &e);
		snprintf(comm, len, "%s", v ? nop_trim(v) : "?");
		free(v);
	}
	return found;
}

unsigned long long nop_top_level_snapshot(const char *dir)
{
	char path[4200], head[2048], *at;
	int fd;
	ssize_t n;

	/* the snapshot's header ("# entries-in-buffer/entries-written: N/M"),
	 * or "Snapshot is freed": the file's first lines, read only */
	snprintf(path, sizeof(path), "%s/snapshot", dir);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return 0;
	n = read(fd, head, sizeof(head) - 1);
	close(fd);
	head[n > 0 ? n : 0] = 0;
	at = strstr(head, "# entries-in-buffer/entries-written: ");
	return at ? strtoull(at + 37, NULL, 10) : 0;
}
