/* journal.c - every prior value is written down before nopctl changes it.
 *
 * /run/nopctl/<tag>.journal (the tag: the pid, and from a nested PID
 * namespace its inode, "<pid>-ns<inode>"), one line per change, fsync'd
 * before the
 * change is made:
 *	nopctl-journal 1
 *	tracing <tracefs dir>
 *	instance <name>           an instance nopctl created
 *	file <rel path> <hex>     a top-level file and its prior contents
 *	writing <rel path>        nopctl is about to write it
 *	holds <rel path> <hex>    what it read back after writing it
 *	probe <group>/<event>     a probe event nopctl is about to create
 *	synthetic <name>          a synthetic event nopctl is about to create
 *	snapshot <rel dir>        a snapshot buffer nopctl is about to allocate
 * The session holds an exclusive flock on its journal for its whole life:
 * a journal nobody holds belongs to a nopctl that is gone, whatever its
 * pid now names. Replaying a journal (replay.c) restores each file that
 * still holds what nopctl wrote and removes the instances.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "session/session.h"

struct nop_journal {
	int fd;
	char path[4096];
};

static int jwrite(struct nop_journal *j, const char *line, struct nop_error *err)
{
	size_t len = strlen(line);

	if (write(j->fd, line, len) != (ssize_t)len || fdatasync(j->fd) < 0) {
		nop_error_io(err, "write journal", j->path, errno);
		return -1;
	}
	return 0;
}

/* Created under a dot name that no walk visits, locked, its header
 * written, then linked into place: nobody ever sees an unlocked journal
 * of a live session (and replays it under it). */
int nop_journal_open(struct nop_journal **jp, const char *tracing_dir, struct nop_error *err)
{
	struct nop_journal *j;
	char line[4200], tmp[4200], tag[48];

	if (nop_journal_dir_make(err) < 0)
		return -1;
	if (!(j = nop_zalloc(sizeof(*j), err)))
		return -1;
	nop_owner_tag(tag, sizeof(tag), getpid());
	snprintf(j->path, sizeof(j->path), "%s/%s.journal", nop_journal_dir(), tag);
	snprintf(tmp, sizeof(tmp), "%s/.%s.journal", nop_journal_dir(), tag);
	unlink(tmp); /* a pid's earlier life, killed while starting */
	j->fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (j->fd < 0 || flock(j->fd, LOCK_EX | LOCK_NB) < 0) {
		nop_error_io(err, "create journal", tmp, errno);
		if (j->fd >= 0)
			close(j->fd);
		free(j);
		return -1;
	}
	snprintf(line, sizeof(line), "nopctl-journal 1\ntracing %s\n", tracing_dir);
	if (jwrite(j, line, err) < 0)
		goto fail;
	/* link, not rename: an older journal of this pid is never replaced */
	if (link(tmp, j->path) < 0) {
		nop_error_io(err, "create journal", j->path, errno);
		goto fail;
	}
	unlink(tmp);
	*jp = j;
	return 0;
fail:
	close(j->fd);
	unlink(tmp);
	free(j);
	return -1;
}

int nop_journal_instance(struct nop_journal *j, const char *name, struct nop_error *err)
{
	char line[512];

	snprintf(line, sizeof(line), "instance %s\n", name);
	return jwrite(j, line, err);
}

int nop_journal_probe(struct nop_journal *j, const char *ge, struct nop_error *err)
{
	char line[512];

	snprintf(line, sizeof(line), "probe %s\n", ge);
	return jwrite(j, line, err);
}

int nop_journal_note(struct nop_journal *j, const char *what, const char *name, struct nop_error *err)
{
	char line[512];

	snprintf(line, sizeof(line), "%s %s\n", what, name);
	return jwrite(j, line, err);
}

/* "what rel[ hex(val)]\n" appended to the journal open on fd, on disk
 * before the change it announces is made */
int nop_journal_line(int fd, const char *what, const char *rel, const char *val)
{
	char *hex = val ? nop_hex(val) : NULL, *line = NULL;
	int ret = -1, len;

	if ((val && !hex) || (len = asprintf(&line, "%s %s%s%s\n", what, rel, val ? " " : "",
					      hex ? hex : "")) < 0) {
		free(hex);
		errno = ENOMEM;
		return -1;
	}
	if (write(fd, line, (size_t)len) == len && fdatasync(fd) == 0)
		ret = 0;
	else if (errno == 0)
		errno = ENOSPC;
	free(hex);
	free(line);
	return ret;
}

static int journal_hex(struct nop_journal *j, const char *what, const char *rel,
		       const char *val, struct nop_error *err)
{
	errno = 0;
	if (nop_journal_line(j->fd, what, rel, val) < 0) {
		nop_error_io(err, "write journal", j->path, errno);
		return -1;
	}
	return 0;
}

int nop_journal_file(struct nop_journal *j, const char *rel, const char *prior,
		     struct nop_error *err)
{
	return journal_hex(j, "file", rel, prior, err);
}

int nop_journal_writing(struct nop_journal *j, const char *rel, struct nop_error *err)
{
	return journal_hex(j, "writing", rel, NULL, err);
}

int nop_journal_holds(struct nop_journal *j, const char *rel, const char *now,
		      struct nop_error *err)
{
	return journal_hex(j, "holds", rel, now, err);
}

/* the journal's file and descriptor (its lock), for its replay */
const char *nop_journal_path(const struct nop_journal *j)
{
	return j->path;
}

int nop_journal_fd(const struct nop_journal *j)
{
	return j->fd;
}

/* The journal kept as DIR/name.journal for a later replay, its lock
 * released and j freed: renamed in one step, never over another (a
 * second nopctl's kept journal: EEXIST), so there is one name at every
 * moment (a replay refuses a journal with two) */
int nop_journal_keep(struct nop_journal *j, const char *name, struct nop_error *err)
{
	char path[4200];

	snprintf(path, sizeof(path), "%s/%s.journal", nop_journal_dir(), name);
	if (renameat2(AT_FDCWD, j->path, AT_FDCWD, path, RENAME_NOREPLACE) < 0) {
		if (errno == EEXIST)
			nop_error_set(err, NOP_EBUSY, EEXIST, "%s exists: another nopctl kept its settings there", path);
		else
			nop_error_io(err, "keep journal", path, errno);
		return -1;
	}
	nop_journal_release(j);
	return 0;
}

/* the lock released, the file kept (replayed or left for reset) */
void nop_journal_release(struct nop_journal *j)
{
	if (!j)
		return;
	close(j->fd);
	free(j);
}

/* Is the journal of pid (of our PID namespace) held by a live session? */
bool nop_owner_alive(pid_t pid)
{
	char tag[48];

	if (pid <= 0)
		return false;
	nop_owner_tag(tag, sizeof(tag), pid);
	return nop_tag_alive(tag);
}

bool nop_tag_alive(const char *tag)
{
	char path[4200];

	snprintf(path, sizeof(path), "%s/%s.journal", nop_journal_dir(), tag);
	return nop_lock_held(path);
}
