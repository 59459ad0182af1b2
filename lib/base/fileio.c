/* fileio.c - reading and writing a tracefs (or /proc, /sys) file whole,
 * with the error convention of every caller. */
#include <errno.h>
#include <sys/stat.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/base.h"

/* A read asks for at most this much, not for all of the buffer's free
 * room: /sys gives 4 KiB a read whatever is asked, and valgrind checks all
 * of the buffer each read is handed (the valgrind suite reads the BTF,
 * kallsyms and available_filter_functions, megabytes each). */
#define READ_CHUNK (64 * 1024)

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
		r = read(fd, buf + len, cap - len - 1 < READ_CHUNK ? cap - len - 1 : READ_CHUNK);
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

	if (fd < 0) {
		nop_error_io(err, "open", path, errno);
		return -1;
	}
	/* a filter file takes one name or index a write(): the rest of a
	 * list is written on from where the kernel stopped */
	if (len && nop_write_all(fd, val, len) < 0) {
		int e = errno;

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

int nop_write_all(int fd, const void *buf, size_t n)
{
	const char *p = buf;

	while (n) {
		ssize_t w = write(fd, p, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			if (w == 0)
				errno = EIO;
			return -1;
		}
		/* a write cut short (a size limit, a full disk): the next one
		 * says why, with its errno */
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

int nop_output_create(const char *path, bool overwrite, mode_t mode, bool set_mode)
{
	/* O_NONBLOCK: a FIFO put there meanwhile must not hang the open */
	int fd = open(path, O_WRONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK | (overwrite ? 0 : O_EXCL),
		      mode);
	struct stat st;

	if (fd >= 0 && (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode))) {
		close(fd);
		errno = EINVAL;
		return -1;
	}
	/* a file to overwrite that someone else owns, or that has another
	 * name (a hard link), is replaced by a new one, never written into:
	 * its owner would read what nopctl writes */
	if (fd >= 0 && overwrite && (st.st_uid != geteuid() || st.st_nlink > 1)) {
		close(fd);
		fd = unlink(path) < 0 ? -1
				      : open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK,
					     mode);
	} else if (fd >= 0 && overwrite && (ftruncate(fd, 0) < 0 || (set_mode && fchmod(fd, mode) < 0))) {
		close(fd);
		fd = -1;
	}
	if (fd >= 0)
		fcntl(fd, F_SETFL, 0);
	return fd;
}

unsigned long long nop_fnv(unsigned long long h, const char *s)
{
	for (; s && *s; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001b3ULL;
	return h;
}

unsigned long long nop_modules_hash(void)
{
	char *text = nop_read_file("/proc/modules", NULL, NULL), *save = NULL;
	unsigned long long h = 0xcbf29ce484222325ULL;

	if (!text)
		return 0;
	/* "dummy 12288 0 - Live 0xffffffffc0a3c000": the first and last fields */
	for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *sp = strchr(line, ' '), *last = strrchr(line, ' ');

		if (sp)
			*sp = '\0';
		h = nop_fnv(nop_fnv(h, line), last && last != sp ? last : "");
		h = nop_fnv(h, "\n");
	}
	free(text);
	return h;
}
