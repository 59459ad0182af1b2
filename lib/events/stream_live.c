/* stream_live.c - every CPU's trace_pipe_raw read without blocking, decoded
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

#include "events/stream.h"

static unsigned long long now_ns(void);

/* Live: a CPU's buffer opened, as the stream's next; 0 also when the
 * CPU is offline or absent (ENOENT, ENODEV), -1 with err */
static int open_cpu(struct nop_stream *st, int cpu, struct nop_error *err)
{
	struct cpu_buf *c = &st->cpus[st->ncpus];
	char path[4200];
	long long kb;

	snprintf(path, sizeof(path), "%s/per_cpu/cpu%d/%s", st->dir, cpu,
		 st->snapshot ? "snapshot_raw" : "trace_pipe_raw");
	c->fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (c->fd < 0) {
		if (errno == ENOENT || errno == ENODEV)
			return 0;
		nop_error_io(err, "open", path, errno);
		return -1;
	}
	c->cpu = cpu;
	st->ncpus++;
	if ((kb = nop_cpu_buffer_kb(st->dir, cpu)) > 0)
		nop_pagepool_allow(&st->pool, (size_t)kb * 1024);
	return 0;
}

static int stream_open(struct nop_stream **stp, struct nop_decoder *d, const char *buffer_dir,
		       const struct nop_cpuset *cpus, bool snapshot, struct nop_error *err);

int nop_stream_open(struct nop_stream **stp, struct nop_decoder *d, const char *buffer_dir,
		    const struct nop_cpuset *cpus, struct nop_error *err)
{
	return stream_open(stp, d, buffer_dir, cpus, false, err);
}

/* the buffer's snapshot: nothing writes it, each drain reads it empty */
int nop_stream_open_snapshot(struct nop_stream **stp, struct nop_decoder *d, const char *buffer_dir,
			     const struct nop_cpuset *cpus, struct nop_error *err)
{
	return stream_open(stp, d, buffer_dir, cpus, true, err);
}

static int stream_open(struct nop_stream **stp, struct nop_decoder *d, const char *buffer_dir,
		       const struct nop_cpuset *cpus, bool snapshot, struct nop_error *err)
{
	int ncpus = nop_ncpus();
	const struct nop_cpuset *on = nop_online_cpus();
	struct nop_stream *st;

	if (nop_stream_alloc(&st, d, ncpus, false, err)) /* pages go to the spool */
		return -1;
	if (!(st->dir = strdup(buffer_dir)) || (cpus && !(st->allow = malloc(sizeof(*cpus))))) {
		nop_error_set(err, NOP_EINTERNAL, ENOMEM, "out of memory");
		nop_stream_close(st);
		return -1;
	}
	if (cpus)
		*st->allow = *cpus;
	st->snapshot = st->final = snapshot;
	for (int cpu = 0; cpu < ncpus; cpu++) {
		if ((cpus && !nop_cpuset_has(cpus, cpu)) || (on && !nop_cpuset_has(on, cpu)))
			continue;
		if (open_cpu(st, cpu, err)) {
			nop_stream_close(st);
			return -1;
		}
	}
	st->cpus_at = now_ns();
	*stp = st;
	return 0;
}

/* Live: CPUs that came online since the last look, opened: the kernel
 * gives a CPU its buffer when it comes up, and its events would stay
 * unread. A CPU that goes offline keeps its buffer, read to its end
 * through the file open on it. Looked at once per FOLLOW_NS, and once
 * tracing is off. */
#define FOLLOW_NS 200000000ULL
static int follow_cpus(struct nop_stream *st, unsigned long long now, struct nop_error *err)
{
	struct nop_cpuset on;
	bool have[NOP_MAX_CPUS] = { false };

	if (!st->final && now - st->cpus_at < FOLLOW_NS)
		return 0;
	st->cpus_at = now;
	if (nop_cpuset_online(&on))
		return 0;
	for (int i = 0; i < st->ncpus; i++)
		if (st->cpus[i].cpu < NOP_MAX_CPUS)
			have[st->cpus[i].cpu] = true;
	for (int cpu = 0; cpu < nop_ncpus() && cpu < NOP_MAX_CPUS; cpu++)
		if (!have[cpu] && nop_cpuset_has(&on, cpu) && (!st->allow || nop_cpuset_has(st->allow, cpu)) &&
		    open_cpu(st, cpu, err))
			return -1;
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
 * and counts, what it cannot keep. A CPU with nothing spooled still
 * reads a page past the limit: until it is read, its last event bounds
 * the watermark and decoding waits on it, and with the pool full of the
 * other CPUs' pages nothing would ever be decoded again. */
static int spool_cpu(struct nop_stream *st, struct cpu_buf *c, struct nop_error *err)
{
	c->kernel_empty = false;
	for (int i = 0; i < SPOOL_PAGES; i++) {
		char *pg = nop_pagepool_get(&st->pool, !c->spool.n);
		ssize_t r;

		if (!pg)
			return 0;
		if ((r = nop_stream_read_page(st, c->fd, pg)) <= 0) {
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
		if (!st->final && !st->catch_up && !nop_page_filled(st->dec, pg))
			return 0;
	}
	return 1;
}

/* Live: decode a page of one CPU's spool. */
static int decode_one(struct nop_stream *st, struct cpu_buf *c, struct nop_error *err)
{
	char *pg = nop_pageq_pop(&c->spool);
	int ret = nop_stream_take_page(st, c, pg, (size_t)st->page_size, err);

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
		nop_stream_sift_down(st, st->heap, n, i);
	while (n > 0 && ret == 0) {
		struct cpu_buf *c = &st->cpus[st->heap[0]];

		ret = nop_stream_emit_one(c, emit, ctx);
		if (++c->head == c->nev || c->ev[c->head].ts > mark)
			st->heap[0] = st->heap[--n];
		nop_stream_sift_down(st, st->heap, n, 0);
	}
	for (int i = 0; i < st->ncpus; i++)
		keep_rest(&st->cpus[i]);
	st->seen = seen;
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
	return st->final || st->catch_up || !c->spool.n || c->backlog || now - c->read_at >= SPOOL_NS;
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


/* a live round: the kernel's buffers read into the spools, a bounded
 * number of pages decoded, what passed the watermark emitted */
int nop_stream_drain_live(struct nop_stream *st, nop_emit_fn emit, void *ctx, bool *more,
			  struct nop_error *err)
{
	unsigned long long now;
	int ret;

	now = now_ns();
	st->due = 0;
	if (follow_cpus(st, now, err))
		return -1;
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
		/* every page of it read in earlier rounds is handed on */
		if (st->empty && c->kernel_empty && !c->spool.n)
			st->empty(st->raw_ctx, c->cpu);
	}
	st->catch_up = false;
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
