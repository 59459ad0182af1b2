/* tracedat_pages.c - one CPU's pages of a trace.dat, a run of whole pages
 * at a time: read in place (pread of CHUNK bytes) or, in a compressed
 * version-7 file, one compressed chunk at a time (trace-cmd writes 10
 * pages per chunk: a count, then per chunk its compressed size, its size,
 * its bytes; trace-cmd.dat.v7(5)). The run is the reader's until the next
 * call. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"

struct nop_dat_pages {
	int fd;
	int zalg;
	size_t page_size;
	unsigned long long off, end; /* the next bytes to read, where this CPU's end */
	unsigned long long chunks;   /* compressed: chunks left */
	char *buf, *zbuf;
	size_t cap, zcap;
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

/* one compressed chunk at p->off into p->buf: its length, 0 at the end
 * (a chunk cut short ends the data, as a page cut short does) */
static ssize_t next_chunk(struct nop_dat_pages *p, struct nop_error *err)
{
	unsigned char h[8];
	unsigned long long zs, us;

	if (!p->chunks || p->end - p->off < 8 || pread_all(p->fd, h, 8, p->off) != 8)
		return 0;
	zs = le32(h);
	us = le32(h + 4);
	if (zs > p->end - p->off - 8)
		return 0;
	if (grow(&p->zbuf, &p->zcap, zs, err) || grow(&p->buf, &p->cap, us, err))
		return -1;
	if (pread_all(p->fd, p->zbuf, (size_t)zs, p->off + 8) != (ssize_t)zs)
		return 0;
	if (nop_decompress(p->zalg, p->zbuf, (size_t)zs, p->buf, (size_t)us))
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
	free(p->zbuf);
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
