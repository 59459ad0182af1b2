/* replay.c - putting back what a journal (journal.c) says nopctl changed:
 * at the end of a session, and for sessions that died (nop_reset_stale).
 *
 * A file is put back only while it still holds what nopctl wrote: a
 * tool that set it since (after a kill -9, or during the session) owns
 * it now, and its value stays. tracing_on, which the kernel also turns off
 * itself, follows current_tracer: ours while the tracer is the one nopctl
 * set; a pid list is ours while it holds one of nopctl's pids, or none
 * (the kernel drops tasks that exit, adds children it follows).
 * current_tracer goes to nop first and to its prior value last, so no
 * tracer runs over half-restored filters.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "session/session.h"

enum mark { NEVER_WRITTEN, WRITING, HOLDS };

struct jfile {
	const char *prior; /* the oldest "file" line's value; NULL: none */
	const char *holds;
	enum mark mark;
};

static bool is_pid_list(const char *rel)
{
	rel = nop_buffer_rel(rel);
	return !strcmp(rel, "set_ftrace_pid") || !strcmp(rel, "set_ftrace_notrace_pid") ||
	       !strcmp(rel, "set_event_pid") || !strcmp(rel, "set_event_notrace_pid");
}

/* Does a pid list still hold a pid nopctl wrote, or none at all (the
 * kernel drops a task that exits and adds the children it follows)? */
static bool pids_still_ours(const char *now, const char *holds)
{
	return nop_list_empty(holds) || nop_list_shares(now, holds) || nop_list_empty(now);
}

/* Does the file still hold what nopctl wrote (or was it never written,
 * or cut in the middle of a write)? */
static bool still_ours(const char *tracing, const char *rel, const struct jfile *f)
{
	char path[4200], *now;
	bool ours;

	if (f->mark != HOLDS)
		return true;
	now = nop_read_file(nop_path(path, sizeof(path), tracing, rel), NULL, NULL);
	ours = now && (!strcmp(now, f->holds) || (is_pid_list(rel) && pids_still_ours(now, f->holds)));
	free(now);
	return ours;
}

/* The restore is journaled like any change ("writing", then what the
 * file reads back): killed half way (a second signal, kill -9 during the
 * shutdown), the next replay finds the files it put back still nopctl's. */
static void put_back(const char *tracing, int fd, const char *rel, const char *val,
		     struct nop_replay *rep, int *ret, struct nop_error *err)
{
	struct nop_error e2;
	char why[300], path[4200], *now;

	if (fd >= 0)
		nop_journal_line(fd, "writing", rel, NULL);
	if (nop_restore_file(tracing, rel, val, &e2) == 0) {
		now = nop_read_file(nop_path(path, sizeof(path), tracing, rel), NULL, NULL);
		if (fd >= 0 && now)
			nop_journal_line(fd, "holds", rel, now);
		free(now);
		return;
	}
	snprintf(why, sizeof(why), "could not be put back: %s", e2.msg);
	nop_replay_left(rep, rel, why);
	if (*ret == 0)
		*err = e2;
	*ret = -1;
}

/* lines: the journal's lines after its two header lines */
static int replay_lines(const char *tracing, char **lines, size_t n, int fd,
			struct nop_replay *rep, struct nop_error *err)
{
	struct nop_strmap *files = nop_strmap_new(sizeof(struct jfile));
	struct jfile *tracer;
	bool anchor_ours = true;
	int ret = 0;

	if (!files) {
		nop_error_set(err, NOP_EINTERNAL, ENOMEM, "out of memory");
		return -1;
	}
	for (size_t i = 0; i < n; i++) {
		char *l = lines[i], *rel = strchr(l, ' '), *val;
		struct jfile *f;

		if (!rel || !strncmp(l, "instance ", 9) || !strncmp(l, "probe ", 6) ||
		    !strncmp(l, "synthetic ", 10) || !strncmp(l, "snapshot ", 9))
			continue;
		*rel++ = 0;
		if ((val = strchr(rel, ' ')))
			*val++ = 0;
		if (rel[0] == '/' || strstr(rel, ".."))
			continue; /* names are data: never out of the tracing dir */
		if (!(f = nop_strmap_get(files, rel))) {
			nop_strmap_free(files);
			nop_error_set(err, NOP_EINTERNAL, ENOMEM, "out of memory");
			return -1;
		}
		if (!strcmp(l, "file") && val && !f->prior && nop_unhex(val) == 0) {
			f->prior = val;
		} else if (!strcmp(l, "writing")) {
			f->mark = WRITING;
		} else if (!strcmp(l, "holds") && val && nop_unhex(val) == 0) {
			f->mark = HOLDS;
			f->holds = val;
		}
	}
	tracer = nop_strmap_get(files, "current_tracer");
	if (tracer && tracer->prior) {
		anchor_ours = still_ours(tracing, "current_tracer", tracer);
		if (!anchor_ours)
			nop_replay_left(rep, "current_tracer", "changed since nopctl set it: left as it is");
		else if (tracer->mark != NEVER_WRITTEN)
			put_back(tracing, fd, "current_tracer", "nop", rep, &ret, err);
	}
	for (size_t k = n; k-- > 0;) {
		char *l = lines[k];

		if (!strncmp(l, "instance ", 9)) {
			struct nop_error e2;

			if (!nop_instance_of_any_ns(l + 9))
				continue; /* not a name nopctl gives its instances */
			if (nop_instance_remove(tracing, l + 9, &e2) < 0) {
				nop_replay_left(rep, l + 9, "instance could not be removed");
				if (ret == 0)
					*err = e2;
				ret = -1;
			} else {
				rep->instances++;
			}
		}
	}
	/* newest first (the map keeps the order of each file's first line, its
	 * "file" line); a file journaled twice ends at its oldest value */
	for (size_t k = nop_strmap_size(files); k-- > 0;) {
		const char *rel;
		struct jfile *f = nop_strmap_at(files, k, &rel);

		if (!f->prior || f == tracer)
			continue;
		/* tracing_on the kernel turns off itself (a traceoff trigger, an oops) */
		if (!strcmp(rel, "tracing_on") ? !anchor_ours : !still_ours(tracing, rel, f))
			nop_replay_left(rep, rel, "changed since nopctl set it: left as it is");
		else
			put_back(tracing, fd, rel, f->prior, rep, &ret, err);
	}
	if (tracer && tracer->prior && anchor_ours)
		put_back(tracing, fd, "current_tracer", tracer->prior, rep, &ret, err);
	/* The top level's buffer is emptied by its tracer's first switch back
	 * to nop; what the session's own events wrote until they were put back
	 * after it stays (6.12: a process event of an opener loop's fork after
	 * a kill -9 and reset), and would read as someone else's unread
	 * entries, which the next nopctl refuses to erase. Where the top level
	 * is nop again, it is emptied; a tracer put back (--force took it over)
	 * has emptied it itself, and its new entries are kept. */
	if (tracer && tracer->prior && anchor_ours && !strncmp(tracer->prior, "nop", 3) &&
	    (!tracer->prior[3] || tracer->prior[3] == '\n')) {
		struct nop_error e2;
		char path[4200];

		if (nop_write_file(nop_path(path, sizeof(path), tracing, "trace"), "", false, &e2) &&
		    e2.sys_errno != ENOENT)
			nop_replay_left(rep, "trace", "its own entries could not be cleared");
	}
	/* probe events last: nothing enables them any more (the instances are
	 * gone, the top level's enable files put back) */
	for (size_t k = n; k-- > 0;) {
		struct nop_error e2;

		if (!strncmp(lines[k], "probe ", 6) &&
		    nop_probe_remove(tracing, lines[k] + 6, rep, ret ? &e2 : err) < 0)
			ret = -1;
	}
	/* catch's gate: its synthetic event once no probe's trigger names it,
	 * then the snapshot buffer nopctl allocated */
	for (size_t k = n; k-- > 0;) {
		struct nop_error e2;

		if (!strncmp(lines[k], "synthetic ", 10) &&
		    nop_synth_remove(tracing, lines[k] + 10, rep, ret ? &e2 : err) < 0)
			ret = -1;
	}
	for (size_t k = n; k-- > 0;)
		if (!strncmp(lines[k], "snapshot ", 9))
			nop_snapshot_free(tracing, lines[k] + 9);
	nop_strmap_free(files);
	return ret;
}

/* a and b are one directory of one mount (tracefs can be mounted twice) */
static bool same_dir(const char *a, const char *b)
{
	struct stat sa, sb;

	return stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

/* A journal whose lock the caller holds (or that nobody holds). A journal
 * is nopctl's only as nopctl makes them: a regular file of this user,
 * 0600, with one name; and another session's names the tracing directory
 * this one uses (tracing_dir; NULL: the session's own). Any other is left
 * in place, nothing of it written: 2. */
int nop_journal_replay_locked(const char *path, int fd, const char *tracing_dir,
			      struct nop_replay *rep, struct nop_error *err)
{
	static const char head[] = "nopctl-journal 1\ntracing ";
	char *text, *nl;
	char **lines = NULL;
	size_t n = 0, cap = 0;
	struct stat st;
	int ret;

	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_uid != geteuid() ||
	    (st.st_mode & 077) || st.st_nlink != 1) {
		nop_replay_left(rep, path, "not trusted: not a private file of this user, left in place");
		return 2;
	}
	if (!(text = nop_read_file(path, NULL, err)))
		return -1;
	/* a last line without its newline was cut short while written
	 * (ENOSPC, RLIMIT_FSIZE, a crash): it holds no whole value */
	if ((nl = strrchr(text, '\n')))
		nl[1] = 0;
	else
		text[0] = 0;
	/* killed while writing its first lines: nothing was changed yet
	 * (every change is journaled first) */
	if (!strncmp(text, head, strlen(text)) ||
	    (!strncmp(text, head, sizeof(head) - 1) && !strchr(text + sizeof(head) - 1, '\n'))) {
		free(text);
		if (unlink(path) < 0) {
			nop_error_io(err, "remove", path, errno);
			return -1;
		}
		return 0;
	}
	for (char *save, *l = strtok_r(text, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		if (nop_grow((void **)&lines, &cap, n + 1, sizeof(*lines))) {
			free(text);
			free(lines);
			nop_error_set(err, NOP_EINTERNAL, ENOMEM, "out of memory");
			return -1;
		}
		lines[n++] = l;
	}
	if (n < 2 || strcmp(lines[0], "nopctl-journal 1") != 0 || strncmp(lines[1], "tracing ", 8)) {
		nop_error_set(err, NOP_EINTERNAL, 0, "%s is not a nopctl journal; left in place", path);
		free(text);
		free(lines);
		return -1;
	}
	if (tracing_dir && !same_dir(lines[1] + 8, tracing_dir)) {
		nop_replay_left(rep, path, "names a directory that is not the tracing directory in use:"
			       " left in place");
		free(text);
		free(lines);
		return 2;
	}
	ret = replay_lines(lines[1] + 8, lines + 2, n - 2, fd, rep, err);
	/* what could not be put back is said, not retried at every start */
	unlink(path);
	free(text);
	free(lines);
	return ret;
}

/* A journal nobody holds: taken (a second nopctl starting at the same
 * moment finds it held and leaves it), replayed, removed. 1: held. */
int nop_journal_replay_unheld(const char *path, const char *tracing_dir, struct nop_replay *rep,
			      struct nop_error *err)
{
	int fd = open(path, O_RDWR | O_APPEND | O_NOFOLLOW | O_CLOEXEC), ret;

	if (fd < 0) {
		if (errno == ENOENT)
			return 0;
		nop_error_io(err, "open", path, errno);
		return -1;
	}
	if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
		close(fd);
		return 1;
	}
	ret = nop_journal_replay_locked(path, fd, tracing_dir, rep, err);
	close(fd);
	return ret;
}

int nop_journal_replay(const char *path, struct nop_replay *rep, struct nop_error *err)
{
	int ret = nop_journal_replay_unheld(path, NULL, rep, err);

	if (ret == 1)
		nop_error_set(err, NOP_EBUSY, 0, "%s belongs to a running nopctl", path);
	return ret ? -1 : 0;
}

/* The session's own journal, replayed while its lock is still held. */
int nop_journal_finish(struct nop_journal *j, struct nop_replay *rep, struct nop_error *err)
{
	int ret;

	if (!j)
		return 0;
	ret = nop_journal_replay_locked(nop_journal_path(j), nop_journal_fd(j), NULL, rep, err);
	nop_journal_release(j);
	return ret;
}
