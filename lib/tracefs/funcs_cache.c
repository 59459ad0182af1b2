/* funcs_cache.c - what the kernel formats slowly, remembered for the
 * boot. available_filter_functions: the kernel looks up the name of every
 * one of its ~50,000 patch sites, most of a second on a slow machine (and
 * most of nopctl's start-up). /proc/kallsyms' text symbols: 150,000 lines
 * formatted and parsed (a third of a second under emulation, paid by the
 * first event that needs a name, or by a SIGINT that comes meanwhile).
 * Both only change when modules come and go, so a copy is kept in the
 * journal directory (root-only, on /run: gone at reboot) under a key made
 * of the boot id and the contents of /proc/modules (names, sizes, states,
 * addresses). */
#include <errno.h>
#include <fcntl.h>
#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include "tracefs/tracefs.h"

/* the cache file of a kind for this boot, these modules and this tracefs */
static bool cache_path(const char *kind, const char *tracing_dir, char *path, size_t len)
{
	struct nop_error e;
	char *boot = nop_read_file("/proc/sys/kernel/random/boot_id", NULL, &e);
	unsigned long long h = 0xcbf29ce484222325ULL;

	if (!boot)
		return false;
	h = nop_fnv(nop_fnv(h ^ nop_modules_hash(), boot), tracing_dir);
	free(boot);
	snprintf(path, len, "%s/%s-%016llx.cache", nop_journal_dir(), kind, h);
	return true;
}

char *nop_funcs_cache_read(const char *tracing_dir)
{
	char path[4200];
	struct nop_error e;

	if (!cache_path("funcs", tracing_dir, path, sizeof(path)) || nop_journal_dir_check(&e))
		return NULL;
	return nop_read_file(path, NULL, &e);
}

/* the kind's cache mapped read-only, or NULL */
void *nop_boot_cache_map(const char *kind, size_t *len)
{
	char path[4200];
	struct nop_error e;
	struct stat sb;
	void *m = NULL;
	int fd;

	if (!cache_path(kind, "", path, sizeof(path)) || nop_journal_dir_check(&e))
		return NULL;
	fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	if (fstat(fd, &sb) == 0 && sb.st_size > 0 && sb.st_uid == 0 && !(sb.st_mode & 077)) {
		m = mmap(NULL, (size_t)sb.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
		*len = (size_t)sb.st_size;
	}
	close(fd);
	return m == MAP_FAILED ? NULL : m;
}

/* written whole (a temporary file renamed), older copies of the kind removed */
static void cache_write(const char *kind, const char *tracing_dir, const struct iovec *iov, int n)
{
	char path[4200], tmp[4300], pre[32];
	struct nop_error e;
	struct dirent *de;
	size_t len = 0;
	DIR *d;
	int fd;

	if (geteuid() != 0 || !cache_path(kind, tracing_dir, path, sizeof(path)) || nop_journal_dir_make(&e))
		return;
	snprintf(pre, sizeof(pre), "%s-", kind);
	if ((d = opendir(nop_journal_dir()))) {
		while ((de = readdir(d))) {
			char old[4300];

			if (!strncmp(de->d_name, pre, strlen(pre))) {
				snprintf(old, sizeof(old), "%s/%s", nop_journal_dir(), de->d_name);
				unlink(old);
			}
		}
		closedir(d);
	}
	for (int i = 0; i < n; i++)
		len += iov[i].iov_len;
	snprintf(tmp, sizeof(tmp), "%s.%d", path, (int)getpid());
	fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		return;
	if (writev(fd, iov, n) != (ssize_t)len || close(fd) < 0 || rename(tmp, path) < 0)
		unlink(tmp);
}

void nop_funcs_cache_write(const char *tracing_dir, const char *text)
{
	struct iovec v = { .iov_base = (void *)text, .iov_len = strlen(text) };

	cache_write("funcs", tracing_dir, &v, 1);
}

void nop_boot_cache_write(const char *kind, const struct iovec *iov, int n)
{
	cache_write(kind, "", iov, n);
}
