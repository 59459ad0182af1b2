/* mounts.c - which filesystems this kernel offers and where they are
 * mounted (/proc/filesystems, /proc/self/mounts). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tracefs/tracefs.h"

bool nop_mounted(const char *fstype, char *dir, size_t len)
{
	FILE *f = fopen("/proc/self/mounts", "re");
	char line[4096], mdir[4096], type[64];
	bool found = false;

	while (f && !found && fgets(line, sizeof(line), f))
		if (sscanf(line, "%*s %4095s %63s", mdir, type) == 2 && !strcmp(type, fstype)) {
			if (dir)
				snprintf(dir, len, "%s", mdir);
			found = true;
		}
	if (f)
		fclose(f);
	return found;
}

bool nop_fs_supported(const char *fstype)
{
	char *v = nop_read_file("/proc/filesystems", NULL, NULL);
	bool ok = false;

	for (char *save, *l = v ? strtok_r(v, "\n", &save) : NULL; l; l = strtok_r(NULL, "\n", &save))
		ok |= !strcmp(nop_trim(l + (strncmp(l, "nodev", 5) ? 0 : 5)), fstype);
	free(v);
	return ok;
}
