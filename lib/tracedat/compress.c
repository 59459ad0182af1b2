/* compress.c - a recording's pages compressed as trace-cmd's version 7
 * files hold them (trace-cmd.dat.v7(5), "COMPRESSION FORMAT OF THE TRACE
 * DATA"): each CPU's pages in chunks, each chunk its compressed size, its
 * size (whole pages) and one zstd frame, the frames Debian's libzstd
 * makes. The pages are written on a thread of their own: the capture's
 * reader hands a batch over and reads on (a write() of each batch in the
 * reader's turn let the buffers overflow). A file with a size bound has
 * its chunks made there as the pages are read: the CPU time compressing
 * takes is not the reader's, and it never waits for the compressor to
 * know a file's size: the bytes written are counted as they are, those
 * still queued estimated at the largest share any chunk so far took and
 * a quarter more (nop_zq_bound), so that a bound on a file holds for what
 * is on disk unless its last queued pages compress worse than that. Other files' pages are
 * written raw there and compressed when the file is written (nop_zfile). */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zstd.h>

#include "tracedat/tracedat.h"

/* batches handed over and not yet written, at most (64 MB of 16-page
 * batches): the reader waits for the compressor only beyond them. A
 * reader that waited at 4 MB let the kernel's buffers overflow where the
 * compressor fell behind for a moment */
#define NQ 1024

/* zstd's fastest level: on a function_graph recording, level 1 kept 4.1x
 * where trace-cmd's default (3) kept 4.2x at two thirds of the speed */
#define ZLEVEL 1

struct zjob {
	int fd;
	struct nop_zcpu *c;
	char *buf;
	size_t len;
};

struct nop_zq {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	struct zjob q[NQ];
	size_t head, n;
	bool stop, threaded;
	bool compress; /* else each batch is written as it is (raw pages) */
	int err; /* the first failure's errno: every later push fails with it */
	unsigned long long err_at; /* the batch that failed (its number in pushed) */
	unsigned long long pushed, done; /* batches handed over, batches written (or dropped) */
	unsigned worst; /* the largest share of its raw size a chunk took, in 65536ths (0: none yet) */
	pthread_t th;
	ZSTD_CCtx *cctx; /* the thread's, or the caller's where there is none */
	char *out;
	size_t outcap;
};

const char *nop_zstd_version(void)
{
	return ZSTD_versionString();
}

void *nop_zcompress(const void *in, size_t n, size_t *outlen)
{
	size_t cap = ZSTD_compressBound(n), r;
	void *out = malloc(cap ? cap : 1);

	if (!out)
		return NULL;
	r = ZSTD_compress(out, cap, in, n, ZLEVEL);
	if (ZSTD_isError(r)) {
		free(out);
		errno = EINVAL;
		return NULL;
	}
	*outlen = r;
	return out;
}

/* one chunk written: its sizes and its frame; 0, or an errno */
static int write_chunk(struct nop_zq *q, const struct zjob *j)
{
	size_t need = ZSTD_compressBound(j->len) + 8, r;

	if (!q->compress) /* raw pages, for a file compressed when it is written */
		return nop_write_all(j->fd, j->buf, j->len) < 0 ? (errno ? errno : EIO) : 0;
	if (j->len > 0xffffffffu)
		return EFBIG;
	if (need > q->outcap) {
		char *p = realloc(q->out, need);

		if (!p)
			return ENOMEM;
		q->out = p;
		q->outcap = need;
	}
	r = ZSTD_compressCCtx(q->cctx, q->out + 8, q->outcap - 8, j->buf, j->len, ZLEVEL);
	if (ZSTD_isError(r))
		return EINVAL;
	/* the sizes in the machine's order, as every number of the file
	 * (its header says which order) */
	unsigned int zs = (unsigned int)r, us = (unsigned int)j->len;

	memcpy(q->out, &zs, 4);
	memcpy(q->out + 4, &us, 4);
	if (nop_write_all(j->fd, q->out, r + 8) < 0)
		return errno ? errno : EIO;
	/* written before it is no longer queued: a reader of both never
	 * counts it short */
	unsigned share = (unsigned)(((unsigned long long)r + 8) * 65536 / (j->len ? j->len : 1));

	if (share > __atomic_load_n(&q->worst, __ATOMIC_RELAXED)) /* only this thread writes it */
		__atomic_store_n(&q->worst, share, __ATOMIC_RELAXED);
	__atomic_add_fetch(&j->c->size, r + 8, __ATOMIC_RELEASE);
	__atomic_add_fetch(&j->c->raw, j->len, __ATOMIC_RELAXED);
	j->c->chunks++;
	return 0;
}

/* a batch written, or dropped after a failure: no longer queued */
static int finish_chunk(struct nop_zq *q, struct zjob *j, int err)
{
	if (!err)
		err = write_chunk(q, j);
	__atomic_sub_fetch(&j->c->queued, j->len, __ATOMIC_RELEASE);
	free(j->buf);
	return err;
}

static void *zq_main(void *arg)
{
	struct nop_zq *q = arg;

	pthread_mutex_lock(&q->mu);
	for (;;) {
		while (!q->n && !q->stop)
			pthread_cond_wait(&q->cv, &q->mu);
		if (!q->n)
			break;
		struct zjob j = q->q[q->head];
		int e = q->err; /* after a failure, batches are only freed */

		pthread_mutex_unlock(&q->mu);
		e = finish_chunk(q, &j, e);
		pthread_mutex_lock(&q->mu);
		if (e && !q->err) {
			q->err = e;
			q->err_at = q->done;
		}
		q->head = (q->head + 1) % NQ;
		q->n--;
		q->done++;
		pthread_cond_broadcast(&q->cv);
	}
	pthread_mutex_unlock(&q->mu);
	return NULL;
}

struct nop_zq *nop_zq_new(bool compress)
{
	struct nop_zq *q = calloc(1, sizeof(*q));

	if (!q || !(q->cctx = ZSTD_createCCtx())) {
		free(q);
		errno = ENOMEM;
		return NULL;
	}
	q->compress = compress;
	pthread_mutex_init(&q->mu, NULL);
	pthread_cond_init(&q->cv, NULL);
	/* no thread: each batch compressed as it is handed over */
	q->threaded = pthread_create(&q->th, NULL, zq_main, q) == 0;
	return q;
}

int nop_zq_push(struct nop_zq *q, int fd, struct nop_zcpu *c, char *buf, size_t len)
{
	struct zjob j = { fd, c, buf, len };
	int e;

	__atomic_add_fetch(&c->queued, len, __ATOMIC_RELAXED);
	if (!q->threaded) {
		int e = finish_chunk(q, &j, q->err);

		if (e && !q->err) {
			q->err = e;
			q->err_at = q->done;
		}
		q->pushed++;
		q->done++;
		errno = q->err;
		return q->err ? -1 : 0;
	}
	pthread_mutex_lock(&q->mu);
	while (q->n == NQ && !q->err)
		pthread_cond_wait(&q->cv, &q->mu);
	if ((e = q->err)) {
		pthread_mutex_unlock(&q->mu);
		finish_chunk(q, &j, e);
		errno = e;
		return -1;
	}
	q->q[(q->head + q->n) % NQ] = j;
	q->n++;
	q->pushed++;
	pthread_cond_broadcast(&q->cv);
	pthread_mutex_unlock(&q->mu);
	return 0;
}

unsigned long long nop_zq_bound(const struct nop_zq *q, unsigned long long raw)
{
	unsigned worst = q ? __atomic_load_n(&q->worst, __ATOMIC_RELAXED) : 0;
	unsigned long long share = worst ? worst + worst / 4 : 65536;
	/* what a zstd frame of incompressible pages takes (ZSTD_compressBound:
	 * a 256th more, and a few bytes a frame) with each chunk's 8 */
	unsigned long long most = raw + (raw >> 8) + ((raw >> 16) + 1) * 72;
	unsigned long long est = raw / 65536 * share + raw % 65536 * share / 65536;

	return worst && est < most ? est : most;
}

unsigned long long nop_zq_mark(struct nop_zq *q)
{
	unsigned long long n;

	if (!q)
		return 0;
	pthread_mutex_lock(&q->mu);
	n = q->pushed;
	pthread_mutex_unlock(&q->mu);
	return n;
}

int nop_zq_wait(struct nop_zq *q, unsigned long long mark)
{
	int e;

	if (!q)
		return 0;
	pthread_mutex_lock(&q->mu);
	while (q->done < mark)
		pthread_cond_wait(&q->cv, &q->mu);
	e = q->err && q->err_at < mark ? q->err : 0; /* a later file's failure is not this one's */
	pthread_mutex_unlock(&q->mu);
	errno = e;
	return e ? -1 : 0;
}

int nop_zq_drain(struct nop_zq *q)
{
	return nop_zq_wait(q, nop_zq_mark(q));
}

void nop_zq_free(struct nop_zq *q)
{
	if (!q)
		return;
	if (q->threaded) {
		pthread_mutex_lock(&q->mu);
		q->stop = true;
		pthread_cond_broadcast(&q->cv);
		pthread_mutex_unlock(&q->mu);
		pthread_join(q->th, NULL);
	}
	for (size_t i = 0; i < q->n; i++)
		free(q->q[(q->head + i) % NQ].buf);
	ZSTD_freeCCtx(q->cctx);
	free(q->out);
	pthread_mutex_destroy(&q->mu);
	pthread_cond_destroy(&q->cv);
	free(q);
}

int nop_zfile(int in, int out, struct nop_zcpu *c, size_t batch)
{
	struct nop_zq q = { .compress = true };
	struct zjob j = { out, c, malloc(batch), 0 };
	off_t off = 0;
	ssize_t n = 0;
	int e = j.buf && (q.cctx = ZSTD_createCCtx()) ? 0 : ENOMEM;

	while (!e && (n = pread(in, j.buf, batch, off)) > 0) {
		j.len = (size_t)n;
		off += n;
		e = write_chunk(&q, &j);
	}
	if (!e && n < 0)
		e = errno;
	free(j.buf);
	free(q.out);
	ZSTD_freeCCtx(q.cctx);
	errno = e;
	return e ? -1 : 0;
}

int nop_zchunks_each(int fd, int (*fn)(void *ctx, const char *raw, size_t len), void *ctx)
{
	unsigned int h[2]; /* a chunk's sizes, as write_chunk put them */
	char *z = NULL, *raw = NULL;
	size_t zcap = 0, rcap = 0;
	off_t off = 0;
	int ret = 0;

	for (;;) {
		ssize_t n = pread(fd, h, sizeof(h), off);
		size_t zs, us;

		if (n == 0)
			break;
		if (n != (ssize_t)sizeof(h)) {
			ret = -1;
			errno = n < 0 ? errno : EIO;
			break;
		}
		zs = h[0];
		us = h[1];
		/* sizes of a file this recording wrote: a chunk is a batch */
		if (us > (64u << 20) || nop_grow((void **)&z, &zcap, zs, 1) ||
		    nop_grow((void **)&raw, &rcap, us, 1)) {
			ret = -1;
			errno = ENOMEM;
			break;
		}
		if (pread(fd, z, zs, off + 8) != (ssize_t)zs || nop_decompress(NOP_Z_ZSTD, z, zs, raw, us)) {
			ret = -1;
			errno = EIO;
			break;
		}
		off += (off_t)(zs + 8);
		if ((ret = fn(ctx, raw, us)))
			break;
	}
	free(z);
	free(raw);
	return ret;
}
