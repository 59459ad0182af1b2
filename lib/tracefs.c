/* tracefs.c - finding tracefs and reading and writing its files. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <tracefs.h>

#include "internal.h"

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

		if (access(nop_path(p, sizeof(p), dir, "current_tracer"), F_OK) != 0 &&
		    access(nop_path(p, sizeof(p), dir, "trace"), F_OK) != 0) {
			empty_tracefs(dir, err);
			return NULL;
		}
	}
	return dir;
}

/* tracefs files report size 0: read until EOF. */
char *nop_read_file(const char *path, size_t *lenp, struct nop_error *err)
{
	size_t cap = 4096, len = 0;
	char *buf = malloc(cap);
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0 || !buf) {
		int e = errno;

		free(buf);
		if (fd >= 0)
			close(fd);
		nop_error_io(err, "read", path, e);
		return NULL;
	}
	for (;;) {
		ssize_t r;

		if (len + 1 >= cap) {
			char *nb = realloc(buf, cap * 2);

			if (!nb) {
				errno = ENOMEM;
				goto fail;
			}
			buf = nb;
			cap *= 2;
		}
		r = read(fd, buf + len, cap - len - 1);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			goto fail;
		if (r == 0)
			break;
		len += (size_t)r;
	}
	close(fd);
	buf[len] = 0;
	if (lenp)
		*lenp = len;
	return buf;
fail:
	{
		int e = errno;

		close(fd);
		free(buf);
		nop_error_io(err, "read", path, e);
	}
	return NULL;
}

int nop_write_file(const char *path, const char *val, bool append, struct nop_error *err)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC | (append ? O_APPEND : O_TRUNC));
	size_t len = strlen(val);
	ssize_t w = 0;

	if (fd < 0) {
		nop_error_io(err, "open", path, errno);
		return -1;
	}
	if (len)
		w = write(fd, val, len);
	if (w < 0 || (size_t)w != len) {
		int e = w < 0 ? errno : EIO;

		close(fd);
		nop_error_io(err, "write", path, e);
		return -1;
	}
	if (close(fd) < 0) {
		nop_error_io(err, "write", path, errno);
		return -1;
	}
	return 0;
}
