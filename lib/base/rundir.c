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
