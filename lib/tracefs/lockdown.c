/* lockdown.c - the kernel's lockdown mode, wherever it can be read: the
 * lockdown file of securityfs (mounted to look where it is not, and
 * unmounted again, as nopctl does for tracefs), else the kernel command
 * line. Initramfs shells, rescue systems and many containers boot with
 * lockdown and no securityfs mounted. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <unistd.h>

#include "tracefs/tracefs.h"

static const char secfs_dir[] = "/sys/kernel/security";

/* "[none] integrity confidentiality": the bracketed word; false with
 * errno when the file cannot be read */
static bool read_mode(const char *dir, char *mode, size_t len)
{
	char path[4200], *v, *b;
	bool ok;

	v = nop_read_file(nop_path(path, sizeof(path), dir, "lockdown"), NULL, NULL);
	ok = v && (b = strchr(v, '['));
	if (ok) {
		b[strcspn(b, "]")] = 0;
		snprintf(mode, len, "%s", b + 1);
	} else if (v) {
		errno = EINVAL;
	}
	free(v);
	return ok;
}

/* lockdown=MODE on the kernel command line */
static bool cmdline_mode(char *mode, size_t len)
{
	char *v = nop_read_file("/proc/cmdline", NULL, NULL), *save, *w;
	bool found = false;

	for (w = v ? strtok_r(v, " \t\n", &save) : NULL; w; w = strtok_r(NULL, " \t\n", &save))
		if (!strncmp(w, "lockdown=", 9) && w[9]) {
			snprintf(mode, len, "%s", w + 9);
			found = true; /* the last one counts, as for the kernel */
		}
	free(v);
	return found;
}

static void lockdown_read(struct nop_lockdown *l)
{
	char dir[4096];
	int e = 0;

	snprintf(l->mode, sizeof(l->mode), "unknown");
	l->how[0] = 0;
	if (nop_mounted("securityfs", dir, sizeof(dir))) {
		if (read_mode(dir, l->mode, sizeof(l->mode))) {
			snprintf(l->how, sizeof(l->how), "read from %s/lockdown", dir);
			return;
		}
		e = errno;
	} else if (nop_fs_supported("securityfs") &&
		   mount("securityfs", secfs_dir, "securityfs", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL) == 0) {
		bool ok = read_mode(secfs_dir, l->mode, sizeof(l->mode));

		e = errno;
		if (umount2(secfs_dir, 0) < 0)
			umount2(secfs_dir, MNT_DETACH);
		if (ok) {
			snprintf(l->how, sizeof(l->how),
				 "securityfs was not mounted: nopctl mounted it to read its lockdown file,"
				 " and unmounted it again");
			return;
		}
	}
	if (e == ENOENT) {
		snprintf(l->mode, sizeof(l->mode), "absent");
		snprintf(l->how, sizeof(l->how), "securityfs has no lockdown file: no lockdown LSM");
		return;
	}
	if (cmdline_mode(l->mode, sizeof(l->mode)))
		snprintf(l->how, sizeof(l->how),
			 "lockdown=%s on the kernel command line (securityfs could not be read)", l->mode);
	else
		snprintf(l->how, sizeof(l->how),
			 "securityfs could not be read%s, and the kernel command line sets no lockdown",
			 geteuid() ? " (not root)" : "");
}

/* read once per process: a mount to look is made at most once */
const struct nop_lockdown *nop_lockdown(void)
{
	static struct nop_lockdown l;

	if (!l.mode[0])
		lockdown_read(&l);
	return &l;
}

const char *nop_lockdown_mode(void)
{
	return nop_lockdown()->mode;
}
