/* funcs_cache.c - available_filter_functions, remembered. The kernel
 * builds that file by looking up the name of every one of its ~50,000
 * patch sites, which takes most of a second on a slow machine (and most
 * of nopctl's start-up). The list only changes when modules come and go,
 * so a copy is kept in the journal directory (root-only, on /run: gone at
 * reboot) under a key made of the boot id and the contents of
 * /proc/modules (names, sizes, states, addresses). */
#include <errno.h>
#include <fcntl.h>
#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"

static unsigned long long fnv(unsigned long long h, const char *s)
{
	for (; s && *s; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001b3ULL;
	return h;
}

/* the cache file for this boot, these modules and this tracefs */
static bool cache_path(const char *tracing_dir, char *path, size_t len)
{
	struct nop_error e;
	char *boot = nop_read_file("/proc/sys/kernel/random/boot_id", NULL, &e);
	char *mods = nop_read_file("/proc/modules", NULL, &e);
	unsigned long long h = 0xcbf29ce484222325ULL;

	if (!boot) {
		free(mods);
		return false;
	}
	h = fnv(fnv(fnv(h, boot), mods ? mods : ""), tracing_dir);
	free(boot);
	free(mods);
	snprintf(path, len, "%s/funcs-%016llx.cache", nop_journal_dir(), h);
	return true;
}

char *nop_funcs_cache_read(const char *tracing_dir)
{
	char path[4200];
	struct nop_error e;

	if (!cache_path(tracing_dir, path, sizeof(path)) || nop_journal_dir_check(&e))
		return NULL;
	return nop_read_file(path, NULL, &e);
}

/* written whole (a temporary file renamed), older copies removed */
void nop_funcs_cache_write(const char *tracing_dir, const char *text)
{
	char path[4200], tmp[4300];
	size_t len = strlen(text);
	struct nop_error e;
	struct dirent *de;
	DIR *d;
	int fd;

	if (geteuid() != 0 || !cache_path(tracing_dir, path, sizeof(path)) || nop_journal_dir_make(&e))
		return;
	if ((d = opendir(nop_journal_dir()))) {
		while ((de = readdir(d))) {
			char old[4300];

			if (!strncmp(de->d_name, "funcs-", 6)) {
				snprintf(old, sizeof(old), "%s/%s", nop_journal_dir(), de->d_name);
				unlink(old);
			}
		}
		closedir(d);
	}
	snprintf(tmp, sizeof(tmp), "%s.%d", path, (int)getpid());
	fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		return;
	if (write(fd, text, len) != (ssize_t)len || close(fd) < 0 || rename(tmp, path) < 0)
		unlink(tmp);
}
