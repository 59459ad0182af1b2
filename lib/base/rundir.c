/* rundir.c - the directory where nopctl keeps its journals, its lock
 * and its cache of available_filter_functions (/run/nopctl): made and
 * checked before anything is written there. */
#include <errno.h>
#include <stdbool.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/base.h"

static const char *journal_dir = "/run/nopctl";

const char *nop_journal_dir(void)
{
	return journal_dir;
}

void nop_journal_set_dir(const char *dir)
{
	journal_dir = dir;
}

/* dir lstat'ed into st, made (0700) first where absent and create: 0, or
 * -1 with err */
static int dir_stat(const char *dir, bool create, struct stat *st, struct nop_error *err)
{
	if (lstat(dir, st) == 0)
		return 0;
	if (errno != ENOENT || !create) {
		nop_error_io(err, "inspect", dir, errno);
		return -1;
	}
	if (mkdir(dir, 0700) < 0 && errno != EEXIST) {
		/* a directory nopctl makes is never the kernel's: a missing
		 * parent is the path's */
		if (errno == ENOENT)
			nop_error_set(err, NOP_EINTERNAL, errno, "cannot create %s: the directory it would be in"
				      " does not exist", dir);
		else
			nop_error_io(err, "create", dir, errno);
		return -1;
	}
	if (lstat(dir, st) < 0) {
		nop_error_io(err, "inspect", dir, errno);
		return -1;
	}
	return 0;
}

/* Root-owned, 0700, not a symlink: refuse anything else. */
static int journal_dir_ok(bool create, struct nop_error *err)
{
	struct stat st;

	if (dir_stat(journal_dir, create, &st, err))
		return -1;
	if (!S_ISDIR(st.st_mode) || st.st_uid != geteuid() || (st.st_mode & 022)) {
		nop_error_set(err, NOP_EINTERNAL, 0,
			      "refusing journal directory %s: it must be a directory (not a symlink)"
			      " owned by uid %u and writable only by it", journal_dir,
			      (unsigned)geteuid());
		return -1;
	}
	return 0;
}

/* A directory nopctl writes many files in over a run: a name swapped there
 * by someone else between two files must be one only the owner (nopctl's
 * user, or root) or, with the sticky bit, nobody else can swap */
int nop_output_dir(const char *dir, struct nop_error *err)
{
	struct stat st;
	const char *why = NULL;

	if (dir_stat(dir, true, &st, err)) {
		err->status = NOP_EUSAGE;
		return -1;
	}
	if (S_ISLNK(st.st_mode))
		why = "it is a symbolic link (nopctl does not follow it)";
	else if (!S_ISDIR(st.st_mode))
		why = "it is not a directory";
	else if ((st.st_mode & 022) && !(st.st_mode & S_ISVTX))
		why = "others may write in it and it has no sticky bit";
	if (!why)
		return 0;
	/* another user's own directory is taken (root recording into a
	 * user's home): files get their names whole, by a link that never
	 * replaces nor follows what is there */
	nop_error_set(err, NOP_EUSAGE, 0, "refusing directory %s: %s; give a directory writable only by"
		      " its owner or sticky, or a new one (made 0700)", dir, why);
	return -1;
}

int nop_journal_dir_check(struct nop_error *err)
{
	return journal_dir_ok(false, err);
}

int nop_journal_dir_make(struct nop_error *err)
{
	return journal_dir_ok(true, err);
}
