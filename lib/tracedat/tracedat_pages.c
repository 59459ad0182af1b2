/* tracedat_pages.c - one CPU's pages of a trace.dat, a run of whole pages
 * at a time: read in place (pread of CHUNK bytes) or, in a compressed
 * version-7 file, one compressed chunk at a time (trace-cmd writes 10
 * pages per chunk: a count, then per chunk its compressed size, its size,
 * its bytes; trace-cmd.dat.v7(5)). The run is the reader's until the next
 * call. Compressed chunks are taken from a window of the file read WINDOW
 * bytes at a time: two preads per chunk (its sizes, its bytes) were 2,723
 * system calls for a 9.6 MB file of 1,360 chunks. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tracedat/tracedat.h"

/* per CPU: 64 KB holds about 9 of trace-cmd's chunks (155 preads for
 * that 9.6 MB file) and keeps a 256-CPU file's windows at 16 MB */
#define WINDOW (64 * 1024)

struct nop_dat_pages {
	int fd;
	int zalg;
	size_t page_size;
	unsigned long long off, end; /* the next bytes to read, where this CPU's end */
	unsigned long long chunks;   /* compressed: chunks left */
	char *buf, *win;
	size_t cap, wcap;
	unsigned long long woff, wlen; /* the window: the file's bytes from woff */
	char path[4096];
};

static unsigned long long le32(const unsigned char *b)
{
	return (unsigned long long)b[0] | (unsigned long long)b[1] << 8 | (unsigned long long)b[2] << 16 |
	       (unsigned long long)b[3] << 24;
}

static ssize_t pread_all(int fd, void *p, size_t n, unsigned long long off)
{
	ssize_t r;

	do
		r = pread(fd, p, n, (off_t)off);
	while (r < 0 && errno == EINTR);
	return r;
}

static int damaged(struct nop_dat_pages *p, const char *why, struct nop_error *err)
{
	nop_error_set(err, NOP_EUSAGE, 0, "%s is damaged: %s", p->path, why);
	return -1;
}

int nop_dat_pages_open(struct nop_dat_pages **pp, const struct nop_dat_in *in, int i, int fd,
		       size_t chunk, struct nop_error *err)
{
	const struct nop_dat_cpu *c = &in->cpu[i];
	struct nop_dat_pages *p = nop_zalloc(sizeof(*p), err);
	unsigned char cnt[4];

	*pp = NULL;
	if (!p)
		return -1;
	*p = (struct nop_dat_pages){ .fd = fd, .zalg = c->z ? in->zalg : NOP_Z_NONE,
				     .page_size = (size_t)in->page_size, .off = c->off,
				     .end = c->off + c->size };
	snprintf(p->path, sizeof(p->path), "%s", in->path);
	if (p->zalg != NOP_Z_NONE) {
		/* the chunks' count and sizes bound them: the size a BUFFER
		 * option gives leaves out the count in 3.1.6 (81 bytes for a
		 * count, a chunk's sizes and its 73 bytes), not in 3.4 */
		p->end = in->file_size;
		/* cut short before its count: nothing to read */
		p->chunks = p->end - p->off >= 4 && pread_all(fd, cnt, 4, p->off) == 4 ? le32(cnt) : 0;
		p->off += 4;
		chunk = 0; /* sized by the chunks */
	} else if (c->size < chunk) {
		chunk = (size_t)c->size;
	}
	if (chunk && !(p->buf = malloc(chunk))) {
		free(p);
		nop_error_set(err, NOP_EINTERNAL, ENOMEM, "out of memory");
		return -1;
	}
	p->cap = chunk;
	*pp = p;
	return 0;
}

static int grow(char **b, size_t *cap, unsigned long long want, struct nop_error *err)
{
	char *n;

	if (want <= *cap)
		return 0;
	if (want > (1ULL << 30) || !(n = realloc(*b, (size_t)want))) {
		nop_error_set(err, NOP_EINTERNAL, ENOMEM, "out of memory");
		return -1;
	}
	*b = n;
	*cap = (size_t)want;
	return 0;
}

/* *at: the n bytes at p->off, from the window (read again from p->off
 * when they are not all in it): 1, 0 if the file ends first, -1 */
static int window_at(struct nop_dat_pages *p, unsigned long long n, const char **at,
		     struct nop_error *err)
{
	ssize_t r;

	if (p->off < p->woff || p->off + n > p->woff + p->wlen) {
		if (grow(&p->win, &p->wcap, n > WINDOW ? n : WINDOW, err))
			return -1;
		r = pread_all(p->fd, p->win,
			      p->end - p->off < p->wcap ? (size_t)(p->end - p->off) : p->wcap, p->off);
		p->woff = p->off;
		p->wlen = r > 0 ? (unsigned long long)r : 0;
		if (p->wlen < n)
			return 0;
	}
	*at = p->win + (p->off - p->woff);
	return 1;
}

/* one compressed chunk at p->off into p->buf: its length, 0 at the end
 * (a chunk cut short ends the data, as a page cut short does) */
static ssize_t next_chunk(struct nop_dat_pages *p, struct nop_error *err)
{
	const char *h;
	unsigned long long zs, us;
	int r;

	if (!p->chunks || p->end - p->off < 8)
		return 0;
	if ((r = window_at(p, 8, &h, err)) <= 0)
		return r;
	zs = le32((const unsigned char *)h);
	us = le32((const unsigned char *)h + 4);
	if (zs > p->end - p->off - 8)
		return 0;
	if (grow(&p->buf, &p->cap, us, err))
		return -1;
	if ((r = window_at(p, 8 + zs, &h, err)) <= 0)
		return r;
	if (nop_decompress(p->zalg, h + 8, (size_t)zs, p->buf, (size_t)us))
		return damaged(p, "a compressed chunk does not decompress", err);
	p->off += 8 + zs;
	p->chunks--;
	return (ssize_t)us;
}

int nop_dat_pages_next(struct nop_dat_pages *p, const char **run, size_t *len, struct nop_error *err)
{
	ssize_t r;

	if (p->zalg != NOP_Z_NONE) {
		r = next_chunk(p, err);
	} else {
		size_t want = p->end - p->off < p->cap ? (size_t)(p->end - p->off) : p->cap;

		if (!want)
			return 0;
		if ((r = pread_all(p->fd, p->buf, want, p->off)) < 0) {
			nop_error_io(err, "read", p->path, errno);
			return -1;
		}
		p->off += (unsigned long long)r;
	}
	if (r <= 0)
		return (int)r;
	*run = p->buf;
	*len = (size_t)r - (size_t)r % p->page_size; /* a page cut short ends it */
	if (*len < (size_t)r)
		p->end = p->off, p->chunks = 0;
	return *len ? 1 : 0;
}

void nop_dat_pages_free(struct nop_dat_pages *p)
{
	if (!p)
		return;
	free(p->buf);
	free(p->win);
	free(p);
}

/* a chunk list held in memory (latency text): all of it, concatenated */
int nop_dat_unchunk(const struct nop_dat_in *in, const unsigned char *d, size_t len,
		    struct nop_dat_blob *out)
{
	unsigned long long n, pos = 4, total = 0;

	if (len < 4)
		return -1;
	n = le32(d);
	for (unsigned long long i = 0; i < n; i++) {
		unsigned long long zs, us;
		char *b;

		if (len - pos < 8)
			return -1;
		zs = le32(d + pos);
		us = le32(d + pos + 4);
		if (zs > len - pos - 8 || us > (1ULL << 30) || total + us > (1ULL << 31) ||
		    !(b = realloc(out->p, (size_t)(total + us + 1))))
			return -1;
		out->p = b;
		if (nop_decompress(in->zalg, d + pos + 8, (size_t)zs, b + total, (size_t)us))
			return -1;
		total += us;
		pos += 8 + zs;
	}
	if (!out->p && !(out->p = malloc(1)))
		return -1;
	out->p[total] = 0;
	out->len = (size_t)total;
	return 0;
}
