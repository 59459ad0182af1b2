/* journal.c - every prior value is written down before nopctl changes it.
 *
 * /run/nopctl/<pid>.journal, one line per change, fsync'd before the
 * change is made:
 *	nopctl-journal 1
 *	tracing <tracefs dir>
 *	instance <name>           an instance nopctl created
 *	file <rel path> <hex>     a top-level file and its prior contents
 * Replaying a journal (on exit, or by 'nopctl reset' after a crash) restores
 * files newest first and removes the instances.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "internal.h"

static const char *journal_dir = "/run/nopctl";

struct nop_journal {
	int fd;
	char path[4096];
};

const char *nop_journal_dir(void)
{
	return journal_dir;
}

void nop_journal_set_dir(const char *dir)
{
	journal_dir = dir;
}

/* Root-owned, 0700, not a symlink: refuse anything else. */
static int journal_dir_ok(bool create, struct nop_error *err)
{
	struct stat st;

	if (lstat(journal_dir, &st) < 0) {
		if (errno != ENOENT || !create) {
			nop_error_io(err, "inspect", journal_dir, errno);
			return -1;
		}
		if (mkdir(journal_dir, 0700) < 0 && errno != EEXIST) {
			nop_error_io(err, "create", journal_dir, errno);
			return -1;
		}
		if (lstat(journal_dir, &st) < 0) {
			nop_error_io(err, "inspect", journal_dir, errno);
			return -1;
		}
	}
	if (!S_ISDIR(st.st_mode) || st.st_uid != geteuid() || (st.st_mode & 022)) {
		nop_error_set(err, NOP_EINTERNAL, 0,
			      "refusing journal directory %s: it must be a directory (not a symlink)"
			      " owned by uid %u and writable only by it", journal_dir,
			      (unsigned)geteuid());
		return -1;
	}
	return 0;
}

int nop_journal_dir_check(struct nop_error *err)
{
	return journal_dir_ok(false, err);
}

int nop_journal_dir_make(struct nop_error *err)
{
	return journal_dir_ok(true, err);
}

static int jwrite(struct nop_journal *j, const char *line, struct nop_error *err)
{
	size_t len = strlen(line);

	if (write(j->fd, line, len) != (ssize_t)len || fdatasync(j->fd) < 0) {
		nop_error_io(err, "write journal", j->path, errno);
		return -1;
	}
	return 0;
}

int nop_journal_open(struct nop_journal **jp, const char *tracing_dir, struct nop_error *err)
{
	struct nop_journal *j;
	char line[4200];

	if (journal_dir_ok(true, err) < 0)
		return -1;
	if (!(j = nop_zalloc(sizeof(*j), err)))
		return -1;
	snprintf(j->path, sizeof(j->path), "%s/%d.journal", journal_dir, (int)getpid());
	j->fd = open(j->path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (j->fd < 0) {
		nop_error_io(err, "create journal", j->path, errno);
		free(j);
		return -1;
	}
	snprintf(line, sizeof(line), "nopctl-journal 1\ntracing %s\n", tracing_dir);
	if (jwrite(j, line, err) < 0) {
		close(j->fd);
		unlink(j->path);
		free(j);
		return -1;
	}
	*jp = j;
	return 0;
}

int nop_journal_instance(struct nop_journal *j, const char *name, struct nop_error *err)
{
	char line[512];

	snprintf(line, sizeof(line), "instance %s\n", name);
	return jwrite(j, line, err);
}

int nop_journal_file(struct nop_journal *j, const char *rel, const char *prior,
		     struct nop_error *err)
{
	size_t n = strlen(prior), off;
	char *line = malloc(strlen(rel) + 2 * n + 16);
	int ret;

	if (!line) {
		nop_error_set(err, NOP_EINTERNAL, ENOMEM, "out of memory");
		return -1;
	}
	off = (size_t)sprintf(line, "file %s ", rel);
	for (size_t i = 0; i < n; i++)
		off += (size_t)sprintf(line + off, "%02x", (unsigned char)prior[i]);
	strcpy(line + off, "\n");
	ret = jwrite(j, line, err);
	free(line);
	return ret;
}

/* whole bytes only: a line cut in the middle of a byte is no value */
static int unhex(char *s)
{
	size_t n = strlen(s) / 2;

	if (strlen(s) % 2)
		return -1;

	for (size_t i = 0; i < n; i++) {
		unsigned v;

		if (sscanf(s + 2 * i, "%2x", &v) != 1)
			return -1;
		s[i] = (char)v;
	}
	s[n] = 0;
	return 0;
}

int nop_journal_replay(const char *path, int *instances, struct nop_error *err)
{
	char *text = nop_read_file(path, NULL, err), *tracing = NULL;
	char **lines = NULL;
	size_t n = 0, cap = 0;
	int ret = 0;
	struct nop_error e2;

	if (!text)
		return -1;
	/* killed while writing its first lines: nothing was changed yet (every
	 * change is journaled first), and there is nothing to restore */
	if (!strchr(text, '\n') || strncmp(text, "nopctl-journal 1\ntracing ", 25) != 0) {
		const char *head = "nopctl-journal 1\ntracing ";
		size_t len = strlen(text);

		if (len < strlen(head) ? !strncmp(text, head, len)
				       : !strncmp(text, head, strlen(head)) && !strchr(text + strlen(head), '\n')) {
			free(text);
			if (unlink(path) < 0) {
				nop_error_io(err, "remove", path, errno);
				return -1;
			}
			return 0;
		}
	}
	/* a last line without its newline was cut short while written
	 * (ENOSPC, RLIMIT_FSIZE, a crash): it holds no whole value */
	if (strrchr(text, '\n'))
		strrchr(text, '\n')[1] = 0;
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
	tracing = lines[1] + 8;
	/* newest first: a file changed twice ends at its oldest value */
	for (size_t i = n; i-- > 2;) {
		char *l = lines[i];

		if (!strncmp(l, "instance ", 9)) {
			if (!nop_instance_owner(l + 9))
				continue; /* not a name nopctl gives its instances */
			if (nop_instance_remove(tracing, l + 9, &e2) < 0) {
				if (ret == 0)
					*err = e2;
				ret = -1;
			} else if (instances) {
				(*instances)++;
			}
		} else if (!strncmp(l, "file ", 5)) {
			char *rel = l + 5, *hex = strchr(rel, ' ');

			if (!hex)
				continue;
			*hex++ = 0;
			if (rel[0] == '/' || strstr(rel, ".."))
				continue; /* names are data: never out of the tracing dir */
			if (unhex(hex) == 0 && nop_restore_file(tracing, rel, hex, &e2) < 0 && ret == 0) {
				*err = e2;
				ret = -1;
			}
		}
	}
	if (ret == 0)
		unlink(path);
	free(text);
	free(lines);
	return ret;
}

int nop_journal_finish(struct nop_journal *j, struct nop_error *err)
{
	int ret;

	if (!j)
		return 0;
	close(j->fd);
	ret = nop_journal_replay(j->path, NULL, err);
	free(j);
	return ret;
}

/* Every journal of a nopctl that no longer runs, replayed; live ones
 * counted. Only from a journal directory that passes the checks. */
static int replay_stale(struct nop_reset_report *rep, struct nop_error *err)
{
	struct nop_walk w = { 0 };
	struct nop_error e2;
	int ret = 0;

	if (journal_dir_ok(false, &e2) < 0)
		return 0;
	while (nop_walk_journals(&w, nop_journal_dir())) {
		if (w.owner == getpid())
			continue;
		if (nop_owner_alive(w.owner)) {
			rep->live_sessions++;
		} else if (nop_journal_replay(w.path, &rep->removed_instances, &e2) < 0) {
			if (ret == 0)
				*err = e2;
			ret = -1;
		} else {
			rep->restored_journals++;
		}
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
	ret = replay_stale(rep, err);
	while (nop_walk_instances(&w, tracing_dir)) {
		if (!w.owner || w.owner == getpid() || nop_owner_alive(w.owner))
			continue;
		if (nop_instance_remove(tracing_dir, w.name, &e2) < 0) {
			if (ret == 0)
				*err = e2;
			ret = -1;
		} else {
			rep->removed_instances++;
		}
	}
	return ret;
}
