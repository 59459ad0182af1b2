/* tracefs.c - finding tracefs (mounted by libtracefs where it is not), and
 * why it is empty when it is. */
#include <errno.h>
#include <sys/stat.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <tracefs.h>

#include "tracefs/tracefs.h"

/* where the kernel lists its symbols (tests point it at a file) */
const char *nop_kallsyms_path = "/proc/kallsyms";

/* Does /proc/kallsyms name the tracing code? Names stay listed under
 * lockdown and kptr_restrict (only the addresses read 0). */
static bool kallsyms_has_tracing(bool *readable)
{
	FILE *f = fopen(nop_kallsyms_path, "re");
	char line[512];
	bool found = false;

	*readable = f != NULL;
	while (f && !found && fgets(line, sizeof(line), f)) {
		char *name = strchr(line, ' ');

		name = name ? strchr(name + 1, ' ') : NULL;
		found = name && (!strncmp(name + 1, "tracing_on\n", 11) || !strncmp(name + 1, "ftrace_", 7));
	}
	if (f)
		fclose(f);
	return found;
}

/* tracefs is mounted but has no files: lockdown 'confidentiality' hides
 * them (they are never created); "built without ftrace" only when the
 * kernel's own symbols say so */
static void empty_tracefs(const char *dir, struct nop_error *err)
{
	const struct nop_lockdown *l = nop_lockdown();
	bool readable, tracing = kallsyms_has_tracing(&readable);

	if (!strcmp(l->mode, "confidentiality"))
		nop_error_set(err, NOP_EKERNEL, EPERM,
			      "%s is empty: kernel lockdown is 'confidentiality' (%s), which hides"
			      " tracefs; boot without lockdown=confidentiality", dir, l->how);
	else if (tracing || !readable)
		nop_error_set(err, NOP_EKERNEL, EPERM,
			      "%s is empty although this kernel %s: something hides its files"
			      " (kernel lockdown is '%s': %s)", dir,
			      tracing ? "has tracing built in (/proc/kallsyms lists it)"
				      : "may have tracing built in (/proc/kallsyms is unreadable)",
			      l->mode, l->how);
	else
		nop_error_set(err, NOP_EKERNEL, ENOENT,
			      "%s has no ftrace files and /proc/kallsyms names no tracing code:"
			      " this kernel was built without ftrace", dir);
}

const char *nop_tracefs_dir(struct nop_error *err)
{
	const char *dir = tracefs_tracing_dir(); /* mounts tracefs when it is not */

	if (!dir || access(dir, F_OK) != 0) {
		nop_error_set(err, NOP_EKERNEL, errno,
			      "tracefs is not mounted and could not be mounted"
			      " (try: mount -t tracefs nodev /sys/kernel/tracing)");
		return NULL;
	}
	{
		char p[4096];

		struct stat st;

		/* a directory this user cannot look into looks empty: tracefs
		 * is root's, 0700, unless mounted otherwise */
		if (access(dir, R_OK | X_OK) != 0 && errno == EACCES) {
			nop_error_set(err, NOP_EKERNEL, EACCES,
				      "%s is readable by root only (mode %o, owner uid %u): run nopctl as root",
				      dir, stat(dir, &st) == 0 ? (unsigned)(st.st_mode & 07777) : 0700,
				      stat(dir, &st) == 0 ? (unsigned)st.st_uid : 0);
			return NULL;
		}
		if (access(nop_path(p, sizeof(p), dir, "current_tracer"), F_OK) != 0 &&
		    access(nop_path(p, sizeof(p), dir, "trace"), F_OK) != 0) {
			empty_tracefs(dir, err);
			return NULL;
		}
	}
	return dir;
}
