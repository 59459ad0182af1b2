/* stream.c - every CPU's pages decoded and merged into one stream
 * ordered by time stamp: what both regimes share, and recorded pages
 * (files, a trace.dat) merged exactly, one drain emitting everything.
 * Live buffers: stream_live.c. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "events/stream.h"

NOP_HOT int nop_stream_source_drain(struct nop_source *s, nop_emit_fn emit, void *ctx, bool *more,
			    struct nop_error *err)
{
	return nop_stream_drain(((struct nop_stream_source *)s)->st, emit, ctx, more, err);
}

void nop_stream_source_release(struct nop_stream_source *s)
{
	nop_stream_close(s->st);
	nop_decoder_free(s->dec);
}

void nop_stream_set_span(struct nop_stream *st, nop_span_fn fn)
{
	st->span = fn;
}

void nop_stream_set_empty(struct nop_stream *st, nop_empty_fn fn)
{
	st->empty = fn;
}

void nop_stream_set_raw(struct nop_stream *st, nop_raw_fn fn, void *ctx)
{
	st->raw = fn;
	st->raw_ctx = ctx;
}

void nop_stream_set_pages(struct nop_stream *st, enum nop_pages how)
{
	st->pages = how;
}

void nop_stream_catch_up(struct nop_stream *st)
{
	st->catch_up = true;
}

void nop_stream_set_final(struct nop_stream *st)
{
	st->final = true;
}

NOP_HOT static int collect(void *ctx, const struct nop_event *ev)
{
	struct cpu_buf *c = ctx;
	struct nop_event *e;

	if (c->nev == c->capev && nop_grow((void **)&c->ev, &c->capev, c->nev + 1, sizeof(*c->ev)))
		return -ENOMEM;
	e = &c->ev[c->nev++];
	*e = *ev;
	if (ev->nstack) {
		if (nop_grow((void **)&c->stk, &c->capstk, c->nstk + (size_t)ev->nstack,
			     sizeof(*c->stk)))
			return -ENOMEM;
		memcpy(c->stk + c->nstk, ev->stack, (size_t)ev->nstack * sizeof(*c->stk));
		e->stack = (void *)(uintptr_t)c->nstk; /* an index until the arena stops moving */
		c->nstk += (size_t)ev->nstack;
	}
	if (ev->args) {
		size_t n = nop_args_size(ev->args);

		if (nop_grow((void **)&c->arg, &c->caparg, c->narg + n, 1))
			return -ENOMEM;
		memcpy(c->arg + c->narg, ev->args, n);
		e->args = (const char *)(uintptr_t)(c->narg + 1); /* likewise; 0 stays none */
		c->narg += n;
	}
	return 0;
}

/* page: a buffer for read() (a trace.dat is read in chunks instead) */
int nop_stream_alloc(struct nop_stream **stp, struct nop_decoder *d, int n, bool page,
			struct nop_error *err)
{
	struct nop_stream *st = calloc(1, sizeof(*st));

	if (!st || !(st->cpus = calloc((size_t)n, sizeof(*st->cpus))) ||
	    !(st->heap = calloc((size_t)n, sizeof(int))) ||
	    (page && !(st->page = calloc(1, (size_t)nop_decoder_page_size(d) + 64)))) {
		if (st) {
			free(st->cpus);
			free(st->heap);
		}
		free(st);
		nop_error_set(err, NOP_EINTERNAL, ENOMEM, "out of memory");
		return -1;
	}
	st->dec = d;
	st->datfd = -1;
	st->page_size = nop_decoder_page_size(d);
	nop_pagepool_init(&st->pool, (size_t)st->page_size);
	for (int i = 0; i < n; i++)
		st->cpus[i].fd = -1;
	*stp = st;
	return 0;
}

int nop_stream_open_files(struct nop_stream **stp, struct nop_decoder *d, const char **paths,
			  const int *cpus, int n, struct nop_error *err)
{
	struct nop_stream *st;

	if (nop_stream_alloc(&st, d, n, true, err))
		return -1;
	st->files = true;
	for (int i = 0; i < n; i++) {
		struct cpu_buf *c = &st->cpus[i];

		c->cpu = cpus[i];
		c->fd = open(paths[i], O_RDONLY | O_CLOEXEC);
		st->ncpus++;
		if (c->fd < 0) {
			nop_error_io(err, "open", paths[i], errno);
			nop_stream_close(st);
			return -1;
		}
	}
	*stp = st;
	return 0;
}

int nop_stream_open_dat(struct nop_stream **stp, struct nop_decoder *d, const struct nop_dat_in *l,
			struct nop_error *err)
{
	struct nop_stream *st;
	int fd;

	if (l->page_size != nop_decoder_page_size(d)) {
		nop_error_set(err, NOP_EINTERNAL, 0, "%s: pages of %d bytes, the decoder's are %d", l->path,
			      l->page_size, nop_decoder_page_size(d));
		return -1;
	}
	if (nop_stream_alloc(&st, d, l->n, false, err))
		return -1;
	st->files = true;
	fd = open(l->path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		nop_error_io(err, "open", l->path, errno);
		goto fail;
	}
	posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
	st->datfd = fd;
	fd = -1;
	for (int i = 0; i < l->n; i++) {
		struct cpu_buf *c = &st->cpus[st->ncpus++];

		c->cpu = l->cpu[i].cpu;
		if (nop_dat_pages_open(&c->dat, l, i, st->datfd, (size_t)st->page_size * CHUNK_PAGES, err))
			goto fail;
	}
	*stp = st;
	return 0;
fail:
	if (fd >= 0)
		close(fd);
	nop_stream_close(st);
	return -1;
}

int nop_stream_nfds(const struct nop_stream *st)
{
	return st->files ? 0 : st->ncpus;
}

int nop_stream_fd(const struct nop_stream *st, int i)
{
	return st->cpus[i].fd;
}

/* One page from fd (a short one padded with zeros), -1 with errno. */
ssize_t nop_stream_read_page(const struct nop_stream *st, int fd, char *pg)
{
	ssize_t r;

	do
		r = read(fd, pg, (size_t)st->page_size);
	while (r < 0 && errno == EINTR);
	if (r > 0 && r < st->page_size)
		memset(pg + r, 0, (size_t)(st->page_size - r));
	return r;
}

/* The next page of one CPU: its length (the page is *pagep), 0 at its
 * end or when a live buffer is empty for now, -1 with errno. */
static ssize_t next_page(struct nop_stream *st, struct cpu_buf *c, void **pagep,
			 struct nop_error *err)
{
	ssize_t r;

	if (c->dat) {
		if (c->cpos + (size_t)st->page_size > c->clen) {
			c->cpos = 0;
			if ((r = nop_dat_pages_next(c->dat, &c->chunk, &c->clen, err)) <= 0) {
				c->done = true; /* the end, or a page cut short */
				return r;
			}
		}
		*pagep = (void *)(c->chunk + c->cpos);
		c->cpos += (size_t)st->page_size;
		return st->page_size;
	}
	*pagep = st->page;
	r = nop_stream_read_page(st, c->fd, st->page);
	if (r < 0 && errno == EAGAIN)
		return 0;
	if (r < 0)
		nop_error_io(err, "read", "a recorded page", errno);
	if (r == 0)
		c->done = st->files;
	return r;
}

/* One page into a CPU's events (a damaged page becomes a "lost" mark). */
int nop_stream_take_page(struct nop_stream *st, struct cpu_buf *c, void *page, size_t len,
		     struct nop_error *err)
{
	int ret;

	if (st->raw && st->raw(st->raw_ctx, c->cpu, page, len)) {
		int e = errno;

		nop_error_set(err, NOP_EINTERNAL, e, "cannot save a page of CPU %d: %s%s", c->cpu, strerror(e),
			      nop_write_hint(e));
		return -1;
	}
	if (st->pages == NOP_PAGES_SAVE)
		return 0;
	/* a damaged page: said so in the stream (a lost mark), and on */
	size_t before = c->nev;

	nop_decoder_append_to(st->dec, &c->ev, &c->nev, &c->capev); /* what collect would do */
	ret = nop_page_events(st->dec, c->cpu, page, st->pages == NOP_PAGES_COUNT, NULL, collect, c);
	nop_decoder_append_to(st->dec, NULL, NULL, NULL);
	/* the kept page's time span: its events' first and last stamps */
	if (st->span && c->nev > before)
		st->span(st->raw_ctx, c->cpu, c->ev[before].ts, c->ev[c->nev - 1].ts);
	if (ret) {
		nop_error_set(err, NOP_EINTERNAL, ret < 0 ? -ret : 0,
			      "cannot decode a ring-buffer page of CPU %d", c->cpu);
		return -1;
	}
	return 0;
}

/* An event as the callback sees it: its stack, an index into the CPU's
 * arena while it waits, made a pointer; an event with neither stack nor
 * arguments (most of a graph capture) is passed as it lies. */
NOP_HOT int nop_stream_emit_one(struct cpu_buf *c, nop_emit_fn emit, void *ctx)
{
	struct nop_event ev;

	if (!c->ev[c->head].nstack && !c->ev[c->head].args)
		return emit(ctx, &c->ev[c->head]);
	ev = c->ev[c->head];
	if (ev.nstack)
		ev.stack = c->stk + (uintptr_t)ev.stack;
	if (ev.args)
		ev.args = c->arg + (uintptr_t)ev.args - 1;
	return emit(ctx, &ev);
}

/* Files: a CPU whose events were all emitted reads pages until it has
 * events again or its data ends. */
NOP_HOT static int refill(struct nop_stream *st, struct cpu_buf *c, struct nop_error *err)
{
	c->nev = c->nstk = c->narg = c->head = 0;
	while (!c->nev && !c->done) {
		void *page;
		ssize_t r = next_page(st, c, &page, err);

		if (r < 0)
			return -1;
		if (r > 0 && nop_stream_take_page(st, c, page, (size_t)r, err))
			return -1;
	}
	return 0;
}

static unsigned long long head_ts(struct nop_stream *st, int i)
{
	return st->cpus[i].ev[st->cpus[i].head].ts;
}

/* earlier timestamp first; on a tie the lower CPU, as libtracecmd does */
static bool before(struct nop_stream *st, int a, int b)
{
	unsigned long long ta = head_ts(st, a), tb = head_ts(st, b);

	return ta < tb || (ta == tb && st->cpus[a].cpu < st->cpus[b].cpu);
}

void nop_stream_sift_down(struct nop_stream *st, int *h, int n, int i)
{
	for (;;) {
		int l = 2 * i + 1, m = i;

		if (l < n && before(st, h[l], h[m]))
			m = l;
		if (l + 1 < n && before(st, h[l + 1], h[m]))
			m = l + 1;
		if (m == i)
			return;
		int t = h[i];

		h[i] = h[m];
		h[m] = t;
		i = m;
	}
}

size_t nop_stream_held(const struct nop_stream *st)
{
	size_t n = 0;

	for (int i = 0; i < st->ncpus; i++)
		n += st->cpus[i].nev;
	return n;
}

/* Files: an exact merge, each CPU refilled as soon as it runs dry. */
NOP_HOT static int merge_files(struct nop_stream *st, nop_emit_fn emit, void *ctx, struct nop_error *err)
{
	int n = 0, ret = 0;

	for (int i = 0; i < st->ncpus; i++) {
		if (refill(st, &st->cpus[i], err))
			return -1;
		if (st->cpus[i].nev)
			st->heap[n++] = i;
	}
	for (int i = n / 2 - 1; i >= 0; i--)
		nop_stream_sift_down(st, st->heap, n, i);
	while (n > 0 && ret == 0) {
		int top = st->heap[0], next = -1;
		struct cpu_buf *c = &st->cpus[top];

		/* the runner-up among the top's children: the top CPU's events
		 * go out in one run while they come before its head */
		for (int k = 1; k <= 2 && k < n; k++)
			if (next < 0 || before(st, st->heap[k], next))
				next = st->heap[k];
		do {
			ret = nop_stream_emit_one(c, emit, ctx);
			if (++c->head == c->nev) {
				if (refill(st, c, err))
					return -1;
				if (!c->nev)
					break;
			}
		} while (ret == 0 && (next < 0 || before(st, top, next)));
		if (!c->nev)
			st->heap[0] = st->heap[--n];
		nop_stream_sift_down(st, st->heap, n, 0);
	}
	return ret;
}

int nop_stream_drain(struct nop_stream *st, nop_emit_fn emit, void *ctx, bool *more,
		     struct nop_error *err)
{

	*more = false;
	if (st->files)
		return merge_files(st, emit, ctx, err);
	return nop_stream_drain_live(st, emit, ctx, more, err);
}

void nop_stream_close(struct nop_stream *st)
{
	if (!st)
		return;
	for (int i = 0; i < st->ncpus; i++) {
		if (st->cpus[i].fd >= 0)
			close(st->cpus[i].fd);
		free(st->cpus[i].ev);
		free(st->cpus[i].stk);
		free(st->cpus[i].arg);
		nop_dat_pages_free(st->cpus[i].dat);
		nop_pageq_free(&st->cpus[i].spool, &st->pool);
	}
	nop_pagepool_free(&st->pool);
	free((char *)st->dir);
	free(st->allow);
	if (st->datfd >= 0)
		close(st->datfd);
	free(st->cpus);
	free(st->heap);
	free(st->page);
	free(st);
}
