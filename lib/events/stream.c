/* stream.c - every CPU's trace_pipe_raw read without blocking, decoded
 * page by page and merged into one stream ordered by timestamp.
 *
 * A live drain first empties each CPU's kernel buffer into its spool (up to
 * SPOOL_PAGES pages), then decodes up to DECODE_PAGES pages per CPU, each
 * from the CPU furthest behind in time, merges what it decoded and emits
 * it, and says whether more is waiting:
 * one call is bounded even when the kernel writes faster than we print,
 * so the caller keeps control (deadlines, signals), and the kernel's
 * buffer is emptied at every call, however far the printing lags.
 *
 * The live merge is exact: an event is emitted only once no event still
 * to be read from any CPU can come before it (the watermark). A CPU read
 * until it had nothing more can only give, later, events committed after
 * that read, so after every event read in an earlier round (their time
 * stamps are at most the largest of them); a CPU left with pages unread
 * gives events after the last one read from it. The smallest of these
 * bounds is the watermark; what lies past it waits for the next round.
 * Without it a task that moved between CPUs while one was being read had
 * its return emitted before its entry (orphan returns, "entered in a gap"
 * lines).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "internal.h"

#define SPOOL_PAGES 1024 /* 4 MB of 4 KB pages per CPU and call: a bounded read */
#define DECODE_PAGES 4 /* per CPU and call: the caller keeps control */
#define SPOOL_NS 20000000ULL /* a CPU with pages still spooled is read again after this */
#define CHUNK_PAGES 64 /* a trace.dat is read this much at a time per CPU:
			* few system calls, no page faults on a mapping */

struct cpu_buf {
	int cpu;
	int fd;
	bool done; /* files: EOF reached */
	struct nop_dat_pages *dat; /* a trace.dat's: this CPU's pages, */
	const char *chunk;	   /* a run of them at a time */
	size_t clen, cpos;
	struct nop_event *ev;
	size_t nev, capev, head;
	unsigned long long *stk;
	size_t nstk, capstk;
	/* kernel functions' arguments ("TEXT\0JSON\0"), likewise: an event
	 * waits here after its page's next ones were decoded */
	char *arg;
	size_t narg, caparg;
	/* live: pages read, not yet decoded; the last time stamp decoded;
	 * the kernel's buffer was read empty (EAGAIN) by the last call */
	struct nop_pageq spool;
	unsigned long long last_ts;
	bool kernel_empty;
	bool backlog;		 /* the last read stopped at SPOOL_PAGES */
	unsigned long long read_at; /* when the kernel's buffer was last read */
	long long buf_pages; /* its size, read at its first round (-1: not known) */
};

struct nop_stream {
	struct nop_decoder *dec;
	struct cpu_buf *cpus;
	int ncpus;
	bool files;
	void *page;
	int page_size;
	int *heap; /* indexes of cpus with events left, min-heap on ts */
	nop_raw_fn raw;
	void *raw_ctx;
	enum nop_pages pages;
	int datfd; /* a trace.dat (nop_stream_open_dat), else -1 */
	/* live: the largest time stamp read by the rounds before this one;
	 * final: no event will be written any more (tracing is off) */
	unsigned long long seen;
	bool final;
	struct nop_pagepool pool; /* live: the spools' pages */
	const char *dir; /* live: the buffer's directory (its per-CPU sizes) */
	/* live: when a CPU's buffer, filling at the rate its last read showed,
	 * is a quarter full (0: no CPU's rate known); late: a read found a
	 * buffer half full or more, so the kernel's wake-up came late */
	unsigned long long due;
	bool late;
};

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

void nop_stream_set_raw(struct nop_stream *st, nop_raw_fn fn, void *ctx)
{
	st->raw = fn;
	st->raw_ctx = ctx;
}

void nop_stream_set_pages(struct nop_stream *st, enum nop_pages how)
{
	st->pages = how;
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
static int stream_alloc(struct nop_stream **stp, struct nop_decoder *d, int n, bool page,
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

int nop_stream_open(struct nop_stream **stp, struct nop_decoder *d, const char *buffer_dir,
		    const struct nop_cpuset *cpus, struct nop_error *err)
{
	int ncpus = nop_ncpus();
	struct nop_stream *st;
	char path[4200];

	if (!cpus)
		cpus = nop_online_cpus();
	if (stream_alloc(&st, d, ncpus, false, err)) /* pages go to the spool */
		return -1;
	for (int cpu = 0; cpu < ncpus; cpu++) {
		struct cpu_buf *c = &st->cpus[st->ncpus];

		if (cpus && !nop_cpuset_has(cpus, cpu))
			continue;
		snprintf(path, sizeof(path), "%s/per_cpu/cpu%d/trace_pipe_raw", buffer_dir, cpu);
		c->fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
		if (c->fd < 0) {
			if (errno == ENOENT || errno == ENODEV)
				continue; /* CPU offline or absent */
			nop_error_io(err, "open", path, errno);
			nop_stream_close(st);
			return -1;
		}
		c->cpu = cpu;
		st->ncpus++;
	}
	if (!(st->dir = strdup(buffer_dir))) {
		nop_error_set(err, NOP_EINTERNAL, ENOMEM, "out of memory");
		nop_stream_close(st);
		return -1;
	}
	*stp = st;
	return 0;
}

int nop_stream_open_files(struct nop_stream **stp, struct nop_decoder *d, const char **paths,
			  const int *cpus, int n, struct nop_error *err)
{
	struct nop_stream *st;

	if (stream_alloc(&st, d, n, true, err))
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
	if (stream_alloc(&st, d, l->n, false, err))
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
static ssize_t read_page(const struct nop_stream *st, int fd, char *pg)
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
	r = read_page(st, c->fd, st->page);
	if (r < 0 && errno == EAGAIN)
		return 0;
	if (r < 0)
		nop_error_io(err, "read", "a recorded page", errno);
	if (r == 0)
		c->done = st->files;
	return r;
}

/* One page into a CPU's events (a damaged page becomes a "lost" mark). */
static int take_page(struct nop_stream *st, struct cpu_buf *c, void *page, size_t len,
		     struct nop_error *err)
{
	int ret;

	if (st->raw && st->raw(st->raw_ctx, c->cpu, page, len)) {
		nop_error_set(err, NOP_EINTERNAL, errno, "cannot save a page of CPU %d: %s", c->cpu,
			      strerror(errno));
		return -1;
	}
	if (st->pages == NOP_PAGES_SAVE)
		return 0;
	/* a damaged page: said so in the stream (a lost mark), and on */
	nop_decoder_append_to(st->dec, &c->ev, &c->nev, &c->capev); /* what collect would do */
	ret = nop_page_events(st->dec, c->cpu, page, st->pages == NOP_PAGES_COUNT, collect, c);
	nop_decoder_append_to(st->dec, NULL, NULL, NULL);
	if (ret) {
		nop_error_set(err, NOP_EINTERNAL, ret < 0 ? -ret : 0,
			      "cannot decode a ring-buffer page of CPU %d", c->cpu);
		return -1;
	}
	return 0;
}

/* Live: read one CPU's pages into its spool, up to SPOOL_PAGES; 1 if it
 * may have more. While tracing is on, a page the writer had not finished
 * (read() copies out what is committed so far) ends the CPU's turn: read
 * back to back while a program is traced, such pages hold a few events
 * each, a system call per few events. Once tracing is off, a CPU is read
 * until it is empty: a page that is not full is also what is left of one
 * read before, with whole pages behind it (6.12).
 * A spool at its memory limit stops reading: the kernel then overwrites,
 * and counts, what it cannot keep. */
static int spool_cpu(struct nop_stream *st, struct cpu_buf *c, struct nop_error *err)
{
	c->kernel_empty = false;
	for (int i = 0; i < SPOOL_PAGES; i++) {
		char *pg = nop_pagepool_get(&st->pool);
		ssize_t r;

		if (!pg)
			return 0;
		if ((r = read_page(st, c->fd, pg)) <= 0) {
			nop_pagepool_put(&st->pool, pg);
			if (r == 0 || errno == EAGAIN) {
				c->kernel_empty = true;
				return 0;
			}
			nop_error_io(err, "read", "trace_pipe_raw", errno);
			return -1;
		}
		if (nop_pageq_push(&c->spool, pg)) {
			nop_pagepool_put(&st->pool, pg);
			nop_error_set(err, NOP_EINTERNAL, ENOMEM, "out of memory");
			return -1;
		}
		if (!st->final && !nop_page_filled(st->dec, pg))
			return 0;
	}
	return 1;
}

/* Live: decode a page of one CPU's spool. */
static int decode_one(struct nop_stream *st, struct cpu_buf *c, struct nop_error *err)
{
	char *pg = nop_pageq_pop(&c->spool);
	int ret = take_page(st, c, pg, (size_t)st->page_size, err);

	nop_pagepool_put(&st->pool, pg);
	if (ret)
		return -1;
	if (c->nev && c->ev[c->nev - 1].ts)
		c->last_ts = c->ev[c->nev - 1].ts;
	return 0;
}

/* A CPU that may still give events: its last one bounds the watermark. */
static bool bounds_mark(const struct cpu_buf *c)
{
	return !c->kernel_empty || c->spool.n;
}

/* Live: decode up to DECODE_PAGES pages per CPU, each from the CPU whose
 * last event decoded is the earliest: that CPU holds the watermark, so
 * what is decoded can go out. When that CPU has nothing spooled (it is to
 * be read again), decoding others would only add to what waits; the
 * same number of pages from every CPU would let a CPU dense in events
 * hold back a sparse one's, moved again at every round, in memory and
 * work that grow with the run. Saving is short: a recording's spools are
 * emptied. A recording that counts (-c) saves a page of each CPU per
 * round, so it stops within a page per CPU of the Nth event. */
static int decode_spools(struct nop_stream *st, struct nop_error *err)
{
	if (st->pages != NOP_PAGES_DECODE) {
		for (int i = 0; i < st->ncpus; i++)
			while (st->cpus[i].spool.n) {
				if (decode_one(st, &st->cpus[i], err))
					return -1;
				if (st->pages == NOP_PAGES_COUNT)
					break;
			}
		return 0;
	}
	for (int budget = DECODE_PAGES * st->ncpus; budget > 0; budget--) {
		struct cpu_buf *behind = NULL;

		for (int i = 0; i < st->ncpus; i++) {
			struct cpu_buf *c = &st->cpus[i];

			if (bounds_mark(c) && (!behind || c->last_ts < behind->last_ts))
				behind = c;
		}
		if (!behind || !behind->spool.n)
			return 0;
		if (decode_one(st, behind, err))
			return -1;
	}
	return 0;
}

/* An event as the callback sees it: its stack, an index into the CPU's
 * arena while it waits, made a pointer; an event with neither stack nor
 * arguments (most of a graph capture) is passed as it lies. */
NOP_HOT static int emit_one(struct cpu_buf *c, nop_emit_fn emit, void *ctx)
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
		if (r > 0 && take_page(st, c, page, (size_t)r, err))
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

static void sift_down(struct nop_stream *st, int *h, int n, int i)
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

/* Drop a CPU's emitted events, keep the rest (and their stacks) at the
 * front of its arrays. */
static void keep_rest(struct cpu_buf *c)
{
	size_t from = c->nstk;

	for (size_t k = c->head; k < c->nev; k++)
		if (c->ev[k].nstack) {
			from = (uintptr_t)c->ev[k].stack;
			break;
		}
	c->nev -= c->head;
	if (c->nev) /* memmove of nothing from NULL is still undefined */
		memmove(c->ev, c->ev + c->head, c->nev * sizeof(*c->ev));
	for (size_t k = 0; k < c->nev; k++)
		if (c->ev[k].nstack)
			c->ev[k].stack = (void *)((uintptr_t)c->ev[k].stack - from);
	c->nstk -= from;
	if (c->nstk)
		memmove(c->stk, c->stk + from, c->nstk * sizeof(*c->stk));
	from = c->narg;
	for (size_t k = 0; k < c->nev; k++)
		if (c->ev[k].args) {
			from = (uintptr_t)c->ev[k].args - 1;
			break;
		}
	for (size_t k = 0; k < c->nev; k++)
		if (c->ev[k].args)
			c->ev[k].args = (const char *)((uintptr_t)c->ev[k].args - from);
	c->narg -= from;
	if (c->narg)
		memmove(c->arg, c->arg + from, c->narg);
	c->head = 0;
}

/* Live: emit, in time order, the events at or before the watermark. A
 * damaged page's mark (no time stamp) goes out at once. */
static int merge_emit(struct nop_stream *st, nop_emit_fn emit, void *ctx)
{
	unsigned long long mark = ~0ULL, seen = st->seen;
	bool all_empty = true, some_empty = false;
	int n = 0, ret = 0;

	for (int i = 0; i < st->ncpus; i++) {
		struct cpu_buf *c = &st->cpus[i];

		all_empty &= !bounds_mark(c);
		some_empty |= !bounds_mark(c);
		if (bounds_mark(c) && c->last_ts < mark)
			mark = c->last_ts;
		if (c->last_ts > seen)
			seen = c->last_ts;
	}
	/* a CPU read empty is bound by what earlier rounds read; unless
	 * tracing is off and every CPU was read empty: nothing is to come */
	if (some_empty && !(st->final && all_empty) && st->seen < mark)
		mark = st->seen;
	for (int i = 0; i < st->ncpus; i++) {
		st->cpus[i].head = 0;
		if (st->cpus[i].nev && st->cpus[i].ev[0].ts <= mark)
			st->heap[n++] = i;
	}
	for (int i = n / 2 - 1; i >= 0; i--)
		sift_down(st, st->heap, n, i);
	while (n > 0 && ret == 0) {
		struct cpu_buf *c = &st->cpus[st->heap[0]];

		ret = emit_one(c, emit, ctx);
		if (++c->head == c->nev || c->ev[c->head].ts > mark)
			st->heap[0] = st->heap[--n];
		sift_down(st, st->heap, n, 0);
	}
	for (int i = 0; i < st->ncpus; i++)
		keep_rest(&st->cpus[i]);
	st->seen = seen;
	return ret;
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
		sift_down(st, st->heap, n, i);
	while (n > 0 && ret == 0) {
		int top = st->heap[0], next = -1;
		struct cpu_buf *c = &st->cpus[top];

		/* the runner-up among the top's children: the top CPU's events
		 * go out in one run while they come before its head */
		for (int k = 1; k <= 2 && k < n; k++)
			if (next < 0 || before(st, st->heap[k], next))
				next = st->heap[k];
		do {
			ret = emit_one(c, emit, ctx);
			if (++c->head == c->nev) {
				if (refill(st, c, err))
					return -1;
				if (!c->nev)
					break;
			}
		} while (ret == 0 && (next < 0 || before(st, top, next)));
		if (!c->nev)
			st->heap[0] = st->heap[--n];
		sift_down(st, st->heap, n, 0);
	}
	return ret;
}

static unsigned long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (unsigned long long)ts.tv_sec * 1000000000ULL + (unsigned long long)ts.tv_nsec;
}

/* Live: is a CPU's kernel buffer to be read in this round? Not while
 * pages read before are still spooled (unless the last read left more
 * behind, tracing is over, or SPOOL_NS passed): a read of the page the
 * writer is on returns the few events committed since the last one, and
 * the next round's read the next few, each a system call whose kernel
 * functions function_graph also hooks: reads that cost the traced
 * program more than they bring. */
static bool kernel_due(const struct nop_stream *st, const struct cpu_buf *c, unsigned long long now)
{
	return st->final || !c->spool.n || c->backlog || now - c->read_at >= SPOOL_NS;
}

/* Live: a CPU's buffer in pages (by a first round tracing is on, so an
 * unexpanded buffer's expanded size is the one in use); -1: not known */
static long long buffer_pages(const struct nop_stream *st, int cpu)
{
	long long kb = nop_cpu_buffer_kb(st->dir, cpu);

	return kb > 0 && st->page_size > 0 ? kb * 1024 / st->page_size : -1;
}

/* Live: when to read a CPU's buffer again, at the latest: once it is a
 * quarter full at the rate its last read showed (got pages since the read
 * before). The kernel wakes a poll at buffer_percent (50 by default), but
 * the reader runs only after that wake-up reaches it, which can be late
 * enough for the buffer to fill. Pacing starts once a read finds a buffer
 * half full (a wake-up came late): before that, rounds the wake-ups
 * already bring are not added to. */
static void pace(struct nop_stream *st, struct cpu_buf *c, size_t got, unsigned long long now)
{
	unsigned long long due;

	if (!c->buf_pages)
		c->buf_pages = buffer_pages(st, c->cpu);
	if (st->final || !got || c->buf_pages <= 0)
		return;
	st->late |= (long long)got * 2 >= c->buf_pages;
	if (!st->late || !c->read_at || now <= c->read_at)
		return;
	due = now + (now - c->read_at) * (unsigned long long)c->buf_pages / 4 / got;
	if (!st->due || due < st->due)
		st->due = due;
}

int nop_stream_wait_ms(const struct nop_stream *st, int most)
{
	unsigned long long now = now_ns();

	if (!st->due || st->due >= now + (unsigned long long)most * 1000000ULL)
		return most;
	return st->due <= now ? 0 : (int)((st->due - now + 999999) / 1000000);
}

int nop_stream_drain(struct nop_stream *st, nop_emit_fn emit, void *ctx, bool *more,
		     struct nop_error *err)
{
	unsigned long long now;
	int ret;

	*more = false;
	if (st->files)
		return merge_files(st, emit, ctx, err);
	now = now_ns();
	st->due = 0;
	for (int i = 0; i < st->ncpus; i++) {
		struct cpu_buf *c = &st->cpus[i];
		size_t had = c->spool.n;
		int r;

		if (!kernel_due(st, c, now)) {
			c->kernel_empty = false; /* not known: its bound is its last event */
			continue;
		}
		if ((r = spool_cpu(st, c, err)) < 0)
			return -1;
		pace(st, c, c->spool.n - had, now);
		c->backlog = r > 0;
		c->read_at = now;
		*more |= r > 0;
	}
	if (decode_spools(st, err))
		return -1;
	for (int i = 0; i < st->ncpus; i++)
		*more |= st->cpus[i].spool.n > 0;
	ret = merge_emit(st, emit, ctx);
	/* once tracing is off, the caller drains until nothing is held */
	if (st->final && nop_stream_held(st))
		*more = true;
	return ret;
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
	if (st->datfd >= 0)
		close(st->datfd);
	free(st->cpus);
	free(st->heap);
	free(st->page);
	free(st);
}
