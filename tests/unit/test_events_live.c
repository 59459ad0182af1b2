/* test_events_live.c - the live reading of per-CPU buffers (stream.c) against
 * FIFOs standing where trace_pipe_raw would be, fed with pages recorded
 * from 6.12 (tests/fixtures): what arrives when, and in which order, is
 * the test's to choose. A FIFO with its writer open and nothing in it
 * reads EAGAIN, as an empty trace_pipe_raw does. */
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "../../lib/internal.h"
#include "../../lib/events/stream.h"

#define KDIR "fixtures/6.12"
#define PAGE 4096

struct got {
	unsigned long long last;
	int n, unordered;
};

static int take(void *ctx, const struct nop_event *ev)
{
	struct got *g = ctx;

	if (ev->type == NOP_EV_LOST)
		return 0;
	g->unordered += ev->ts < g->last;
	g->last = ev->ts;
	g->n++;
	return 0;
}

struct live {
	char dir[64];
	int w[2];
	struct nop_decoder *d;
	struct nop_stream *st;
	char pages[2][3 * PAGE];
	ssize_t len[2];
};

static void live_open(struct live *l, const char *capture)
{
	struct nop_error err;
	struct nop_cpuset cs;
	char path[256];

	strcpy(l->dir, "/tmp/nopctl-live-XXXXXX");
	assert_non_null(mkdtemp(l->dir));
	for (int cpu = 0; cpu < 2; cpu++) {
		int fd;

		snprintf(path, sizeof(path), "%s/per_cpu", l->dir);
		mkdir(path, 0700);
		snprintf(path, sizeof(path), "%s/per_cpu/cpu%d", l->dir, cpu);
		assert_int_equal(mkdir(path, 0700), 0);
		strcat(path, "/trace_pipe_raw");
		assert_int_equal(mkfifo(path, 0600), 0);
		snprintf(path, sizeof(path), "%s/%s/cpu%d.raw", KDIR, capture, cpu);
		fd = open(path, O_RDONLY);
		assert_true(fd >= 0);
		l->len[cpu] = read(fd, l->pages[cpu], sizeof(l->pages[cpu]));
		assert_int_equal(l->len[cpu], 3 * PAGE);
		close(fd);
	}
	assert_non_null(l->d = nop_decoder_new(KDIR, &err));
	assert_int_equal(nop_cpuset_parse("0,1", 2, &cs, &err), 0);
	assert_int_equal(nop_stream_open(&l->st, l->d, l->dir, &cs, &err), 0);
	assert_int_equal(nop_stream_nfds(l->st), 2);
	for (int cpu = 0; cpu < 2; cpu++) {
		snprintf(path, sizeof(path), "%s/per_cpu/cpu%d/trace_pipe_raw", l->dir, cpu);
		assert_true((l->w[cpu] = open(path, O_WRONLY | O_NONBLOCK)) >= 0);
	}
}

static void feed(struct live *l, int cpu, int page)
{
	assert_int_equal(write(l->w[cpu], l->pages[cpu] + page * PAGE, PAGE), PAGE);
}

/* the first of a CPU's recorded pages that the writer had finished */
static int full_at(struct live *l, int cpu)
{
	for (int p = 0; p < 3; p++)
		if (nop_page_filled(l->d, l->pages[cpu] + p * PAGE))
			return p;
	fail_msg("no full page of CPU %d", cpu);
	return -1;
}

/* drain n times while tracing is on, whatever they say */
static void rounds(struct live *l, struct got *g, int n)
{
	struct nop_error err;
	bool more;

	for (int i = 0; i < n; i++)
		assert_int_equal(nop_stream_drain(l->st, take, g, &more, &err), 0);
}

/* tracing off: drain until nothing is left */
static void finish(struct live *l, struct got *g)
{
	struct nop_error err;
	bool more = true;
	int i;

	nop_stream_set_final(l->st);
	for (i = 0; more && i < 100; i++)
		assert_int_equal(nop_stream_drain(l->st, take, g, &more, &err), 0);
	assert_true(i < 100);
}

static void live_close(struct live *l)
{
	char cmd[128];

	for (int cpu = 0; cpu < 2; cpu++)
		if (l->w[cpu] >= 0)
			close(l->w[cpu]);
	nop_stream_close(l->st);
	nop_decoder_free(l->d);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", l->dir);
	assert_int_equal(system(cmd), 0);
}

/* every event of both CPUs' recorded pages, read from the files */
static int all_events(const char *capture)
{
	char p0[256], p1[256];
	const char *paths[2] = { p0, p1 };
	const int cpus[2] = { 0, 1 };
	struct nop_error err;
	struct nop_decoder *d = nop_decoder_new(KDIR, &err);
	struct nop_stream *st = NULL;
	struct got g = { 0 };

	snprintf(p0, sizeof(p0), "%s/%s/cpu0.raw", KDIR, capture);
	snprintf(p1, sizeof(p1), "%s/%s/cpu1.raw", KDIR, capture);
	assert_int_equal(nop_stream_open_files(&st, d, paths, cpus, 2, &err), 0);
	for (bool more = true; more;)
		assert_int_equal(nop_stream_drain(st, take, &g, &more, &err), 0);
	nop_stream_close(st);
	nop_decoder_free(d);
	assert_int_equal(g.unordered, 0);
	return g.n;
}

/* A round reads CPU 0, then CPU 1: what CPU 1 holds when it is read may
 * be later than CPU 0's last event read yet earlier than events CPU 0
 * committed in between (a task that moved from one to the other while
 * the round read them). Fed so, page by page in the recorded pages' time
 * order: round 1 finds CPU 0 empty and CPU 1's pages up to 16446.9 s;
 * round 2 finds CPU 0's first page, which begins at 16444.6 s. Emitting
 * each round at once put CPU 1's events first (returns before their
 * entries, issue 18); the watermark holds them back. */
static void live_merge_waits_for_a_late_cpu(void **state)
{
	struct live l;
	struct got g = { 0 };

	(void)state;
	live_open(&l, "graph");
	feed(&l, 1, 0);
	feed(&l, 1, 1);
	rounds(&l, &g, 1);
	feed(&l, 0, 0);
	feed(&l, 1, 2);
	rounds(&l, &g, 1);
	feed(&l, 0, 1);
	feed(&l, 0, 2);
	rounds(&l, &g, 1);
	finish(&l, &g);
	assert_int_equal(g.n, all_events("graph"));
	assert_int_equal(g.unordered, 0);
	live_close(&l);
}

/* After tracing stops, a page that is not full (the rest of one read
 * before) may have whole pages behind it: all are read. Stopping at it
 * left up to 88 calls of 5,000 unread on 6.12 (issue 18). */
static void final_drain_reads_past_a_partial_page(void **state)
{
	struct live l;
	struct got g = { 0 };
	int partial = -1;

	(void)state;
	live_open(&l, "graph");
	/* a page of CPU 0 less than 3/4 full, then CPU 0's others */
	for (int p = 0; p < 3 && partial < 0; p++)
		if (!nop_page_filled(l.d, l.pages[0] + p * PAGE))
			partial = p;
	assert_true(partial >= 0);
	feed(&l, 0, partial);
	for (int p = 0; p < 3; p++)
		if (p != partial)
			feed(&l, 0, p);
	for (int p = 0; p < 3; p++)
		feed(&l, 1, p);
	close(l.w[0]);
	close(l.w[1]);
	l.w[0] = l.w[1] = -1;
	finish(&l, &g);
	assert_int_equal(g.n, all_events("graph"));
	live_close(&l);
}

/* bytes written to a CPU's FIFO and not yet read by the stream */
static int unread(struct live *l, int cpu)
{
	int n = -1;

	assert_int_equal(ioctl(l->w[cpu], FIONREAD, &n), 0);
	return n;
}

/* While a CPU's spool still holds pages to decode, its buffer is not read
 * again every round: such a read gets the page the writer is on, a few
 * events, and the next round's read the next few, every read a system
 * call function_graph's hooks make costly (bench B2 on 6.12 lost 24 % at
 * 1000 opens/s so). After SPOOL_NS (20 ms), or with tracing off, it is
 * read again. */
static void spooled_cpu_is_not_reread_every_round(void **state)
{
	struct live l;
	struct got g = { 0 };
	int full;

	(void)state;
	live_open(&l, "graph");
	full = full_at(&l, 0);
	for (int i = 0; i < 10; i++) /* more than one round decodes */
		feed(&l, 0, full);
	rounds(&l, &g, 1);
	assert_int_equal(unread(&l, 0), 0);
	feed(&l, 0, full);
	rounds(&l, &g, 1); /* pages of the first read are still spooled */
	assert_int_equal(unread(&l, 0), PAGE);
	nanosleep(&(struct timespec){ .tv_nsec = 25000000 }, NULL);
	rounds(&l, &g, 1);
	assert_int_equal(unread(&l, 0), 0);
	finish(&l, &g);
	live_close(&l);
}

struct saved {
	struct live *l;
	int n[2];
	int differ;
};

static int saved_page(void *ctx, int cpu, void *page)
{
	struct saved *s = ctx;

	assert_true(cpu == 0 || cpu == 1);
	assert_true(s->n[cpu] < 3);
	s->differ += memcmp(page, s->l->pages[cpu] + s->n[cpu]++ * PAGE, PAGE) != 0;
	return 0;
}

/* the stream's pages saved to a trace.dat (how: SAVE, or COUNT for -c),
 * the three recorded pages of each CPU fed */
static struct nop_dat *record_to(struct live *l, enum nop_pages how)
{
	struct nop_error err;
	struct nop_dat *dat = NULL;
	char path[128];

	snprintf(path, sizeof(path), "%s/rec.dat", l->dir);
	assert_int_equal(nop_dat_open(&dat, path, false, KDIR, KDIR "/kallsyms", PAGE, &err), 0);
	nop_stream_set_raw(l->st, (nop_raw_fn)nop_dat_page, dat);
	nop_stream_set_pages(l->st, how);
	return dat;
}

static struct nop_dat *recording(struct live *l, enum nop_pages how)
{
	struct nop_dat *dat = record_to(l, how);

	for (int p = 0; p < 3; p++) {
		feed(l, 0, p);
		feed(l, 1, p);
	}
	return dat;
}

static long long ms_since(const struct timespec *t0)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (t.tv_sec - t0->tv_sec) * 1000LL + (t.tv_nsec - t0->tv_nsec) / 1000000;
}

/* A recording empties the buffers at every round and then waits for the
 * kernel's wake-up (at half full) or a 100 ms tick. Once a read finds a
 * buffer half full (the wake-up came late), a buffer that fills fast is
 * read again when it is a quarter full at the rate the last read showed
 * (beside another guest, a 6.12 guest's record lost up to 80,776 events
 * at 2,000 opens/s between rounds up to 112 ms apart); before that, the
 * wake-up is left to do its work (reading sooner cost record time). */
static void a_fast_filling_buffer_is_read_again_sooner(void **state)
{
	struct live l;
	struct got g = { 0 };
	struct nop_dat *dat;
	struct timespec t0;
	char path[256];
	int full;
	FILE *f;

	(void)state;
	live_open(&l, "graph");
	full = full_at(&l, 0);
	/* 32 pages a CPU, as a boot's first tracing shows it */
	snprintf(path, sizeof(path), "%s/per_cpu/cpu0/buffer_size_kb", l.dir);
	assert_non_null(f = fopen(path, "w"));
	fputs("7 (expanded: 128)\n", f);
	fclose(f);
	dat = record_to(&l, NOP_PAGES_SAVE);
	feed(&l, 0, full);
	rounds(&l, &g, 1);
	assert_int_equal(nop_stream_wait_ms(l.st, 100), 100); /* no rate yet */
	nanosleep(&(struct timespec){ .tv_nsec = 20000000 }, NULL);
	for (int i = 0; i < 4; i++)
		feed(&l, 0, full);
	clock_gettime(CLOCK_MONOTONIC, &t0); /* (before the read the next rate runs from) */
	rounds(&l, &g, 1); /* an eighth in 20 ms, the wake-up in time */
	assert_int_equal(nop_stream_wait_ms(l.st, 100), 100);
	nanosleep(&(struct timespec){ .tv_nsec = 20000000 }, NULL);
	for (int i = 0; i < 16; i++)
		feed(&l, 0, full);
	rounds(&l, &g, 1); /* half full: a quarter comes in half that time */
	assert_in_range(nop_stream_wait_ms(l.st, 100), 0, ms_since(&t0) / 2 + 2);
	nanosleep(&(struct timespec){ .tv_nsec = 20000000 }, NULL);
	feed(&l, 0, full);
	rounds(&l, &g, 1); /* paced from now on: a page in 20 ms, a quarter in 160 */
	assert_int_equal(nop_stream_wait_ms(l.st, 100), 100);
	finish(&l, &g);
	assert_int_equal(nop_stream_wait_ms(l.st, 100), 100); /* tracing off */
	nop_dat_free(dat, false);
	live_close(&l);
}

/* A recording that counts after the capture (no -c): while tracing, pages
 * go whole to the trace.dat's files and nothing is decoded or counted;
 * afterwards every page is there to be counted, as it was read. */
static void recording_saves_pages_without_walking_them(void **state)
{
	struct live l;
	struct got g = { 0 };
	struct nop_dat *dat;
	struct saved sv = { &l, { 0, 0 }, 0 };

	(void)state;
	live_open(&l, "graph");
	dat = recording(&l, NOP_PAGES_SAVE);
	rounds(&l, &g, 2);
	finish(&l, &g);
	assert_int_equal(g.n, 0); /* nothing decoded, nothing counted */
	assert_int_equal(nop_dat_each_page(dat, saved_page, &sv), 0);
	assert_int_equal(sv.n[0], 3);
	assert_int_equal(sv.n[1], 3);
	assert_int_equal(sv.differ, 0);
	nop_dat_free(dat, false);
	live_close(&l);
}

struct span {
	unsigned long long first, last;
	int n;
};

static int spanned(void *ctx, const struct nop_event *ev)
{
	struct span *s = ctx;

	if (ev->ts && (!s->first || ev->ts < s->first))
		s->first = ev->ts;
	if (ev->ts > s->last)
		s->last = ev->ts;
	s->n++;
	return 0;
}

/* a full page of the CPU's recorded ones, its events and their time span */
static int full_page(struct live *l, int cpu, struct span *s)
{
	for (int p = 0; p < 3; p++)
		if (nop_page_filled(l->d, l->pages[cpu] + p * PAGE)) {
			char copy[PAGE];

			memcpy(copy, l->pages[cpu] + p * PAGE, PAGE);
			*s = (struct span){ 0 };
			assert_int_equal(nop_decode_page(l->d, cpu, copy, spanned, s), 0);
			assert_int_equal(nop_decode_flush(l->d, spanned, s), 0);
			return p;
		}
	fail();
	return -1;
}

/* that page again, its time stamps moved on by shift ns (the page
 * header's time stamp: the first 8 bytes) */
static void feed_shifted(struct live *l, int cpu, int page, unsigned long long shift)
{
	char pg[PAGE];
	unsigned long long ts;

	memcpy(pg, l->pages[cpu] + page * PAGE, PAGE);
	memcpy(&ts, pg, sizeof(ts));
	ts += shift;
	memcpy(pg, &ts, sizeof(ts));
	assert_int_equal(write(l->w[cpu], pg, PAGE), PAGE);
}

struct counted {
	unsigned long long events, stop_at;
	int pages;
};

/* the pipeline's -c: counts come a page at a time, and stop at stop_at */
static int count_until(void *ctx, const struct nop_event *ev)
{
	struct counted *c = ctx;

	if (ev->type == NOP_EV_COUNTS)
		c->events += ev->nfunc + ev->nexit;
	return c->events >= c->stop_at;
}

static int a_page(void *ctx, int cpu, void *page)
{
	(void)cpu;
	(void)page;
	((struct counted *)ctx)->pages++;
	return 0;
}

/* record -c N: a round saves and counts a page of each CPU, so the count
 * stops the recording within a page per CPU of the Nth event. Emptying
 * every spool in one round saved all that was read with the Nth event
 * (4,205 events for -c 50 on 6.12). */
static void counting_recording_stops_within_a_page(void **state)
{
	struct live l;
	struct nop_error err;
	struct nop_dat *dat;
	struct counted c = { 0, 1, 0 };
	bool more;

	(void)state;
	live_open(&l, "graph");
	dat = recording(&l, NOP_PAGES_COUNT);
	nop_stream_set_final(l.st); /* every page read at once */
	assert_true(nop_stream_drain(l.st, count_until, &c, &more, &err) > 0); /* stopped */
	assert_int_equal(nop_dat_each_page(dat, a_page, &c), 0);
	assert_true(c.pages >= 1);
	assert_true(c.pages <= 2);
	nop_dat_free(dat, false);
	live_close(&l);
}

/* A CPU dense in events (40 pages) beside a sparse one (20 pages over the
 * same time): a round spends its pages on the CPU furthest behind, whose
 * last event bounds what may be emitted, so what it decoded goes out and
 * no more than a page of each CPU waits. Decoding the same number of
 * pages of every CPU held the sparse CPU's later events back, more at
 * every round, each round moving them all again: nopctl graph of 10M
 * events on 6.19 grew to 519 MB and 434 CPU-s (bench B4). */
static void a_round_decodes_the_cpu_furthest_behind(void **state)
{
	struct live l;
	struct got g = { 0 };
	struct span s0, s1;
	int p0, p1;
	unsigned long long step, d0 = 0, d1 = 0;

	(void)state;
	live_open(&l, "graph");
	for (int cpu = 0; cpu < 2; cpu++) /* room for 64 pages */
		assert_true(fcntl(l.w[cpu], F_SETPIPE_SZ, 64 * PAGE) >= 64 * PAGE);
	p0 = full_page(&l, 0, &s0);
	p1 = full_page(&l, 1, &s1);
	step = s0.last - s0.first > s1.last - s1.first ? s0.last - s0.first : s1.last - s1.first;
	step++;
	if (s1.first > s0.first) /* both CPUs' first events at one time */
		d0 = s1.first - s0.first;
	else
		d1 = s0.first - s1.first;
	for (int i = 0; i < 40; i++)
		feed_shifted(&l, 0, p0, d0 + i * step);
	for (int i = 0; i < 20; i++)
		feed_shifted(&l, 1, p1, d1 + 2 * i * step);
	rounds(&l, &g, 1); /* the first round only reads: nothing is known before it */
	for (int i = 0; i < 4; i++) {
		rounds(&l, &g, 1);
		assert_true(nop_stream_held(l.st) <= (size_t)(s0.n + s1.n));
	}
	assert_true(g.n > 0);
	finish(&l, &g);
	assert_int_equal(g.n, 40 * s0.n + 20 * s1.n);
	assert_int_equal(g.unordered, 0);
	live_close(&l);
}

/* the spool's pages: recycled before any is allocated again, never more
 * bytes than its limit (the kernel then overwrites and counts what it
 * cannot keep), queued first in first out across the ring's growth */
static void spool_pages(void **state)
{
	struct nop_pagepool pool;
	struct nop_pageq q = { 0 };
	char *pg[4];

	nop_pagepool_init(&pool, 4096);
	assert_true(pool.max > 0);
	pool.max = 3 * 4096;
	for (int i = 0; i < 3; i++)
		assert_non_null(pg[i] = nop_pagepool_get(&pool, false));
	assert_null(nop_pagepool_get(&pool, false)); /* at its limit */
	nop_pagepool_put(&pool, pg[1]);
	assert_ptr_equal(pg[3] = nop_pagepool_get(&pool, false), pg[1]); /* recycled */
	assert_int_equal(pool.peak, 3 * 4096);
	for (int i = 0; i < 200; i++)
		assert_int_equal(nop_pageq_push(&q, pg[i % 3]), 0);
	for (int i = 0; i < 200; i++)
		assert_ptr_equal(nop_pageq_pop(&q), pg[i % 3]);
	assert_null(nop_pageq_pop(&q));
	for (int i = 0; i < 3; i++)
		nop_pagepool_put(&pool, pg[i]);
	assert_int_equal(pool.used, 0);
	nop_pageq_free(&q, &pool);
	nop_pagepool_free(&pool);
}

/* A spool does not grow with the run: while decoding falls behind (every
 * round decodes a few pages, the kernel writes more), the pages held stay
 * within the pool's bound (the kernel's buffers again, at least
 * SPOOL_FLOOR, and a page for a CPU with none spooled) and what does
 * not fit waits in the kernel's buffer; decoding goes on. */
static void a_lagging_spool_stays_bounded(void **state)
{
	struct live l;
	struct got g = { 0 };
	int full, fed = 0;

	(void)state;
	live_open(&l, "graph");
	full = full_at(&l, 0);
	assert_int_equal(l.st->pool.max, SPOOL_FLOOR); /* no buffer size known */
	/* a kernel buffer of 1 MB; a CPU with pages spooled is read again
	 * once SPOOL_NS has passed */
	assert_true(fcntl(l.w[0], F_SETPIPE_SZ, 1 << 20) >= 1 << 20);
	for (int r = 0; r < 100 && fed <= (int)(SPOOL_FLOOR / PAGE) + 128; r++) {
		while (write(l.w[0], l.pages[0] + full * PAGE, PAGE) == PAGE)
			fed++;
		nanosleep(&(struct timespec){ .tv_nsec = SPOOL_NS + 1000000 }, NULL);
		rounds(&l, &g, 1);
		assert_true(l.st->pool.used <= SPOOL_FLOOR + 2 * PAGE);
	}
	assert_true(fed > (int)(SPOOL_FLOOR / PAGE)); /* more than the pool holds was written */
	assert_true(l.st->pool.peak >= SPOOL_FLOOR); /* the bound was reached */
	nop_stream_set_final(l.st);
	for (bool more = true; more;) {
		struct nop_error err;
		static int k;

		more = false;
		assert_int_equal(nop_stream_drain(l.st, take, &g, &more, &err), 0);
		assert_true(++k < 20000); /* decoding goes on */
	}
	assert_true(l.st->pool.peak <= SPOOL_FLOOR + 2 * PAGE);
	/* every page fed was decoded (the same page each time: the same
	 * events, so their times repeat and g.unordered means nothing) */
	assert_true(g.n > 0);
	assert_int_equal(g.n % fed, 0);
	live_close(&l);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(live_merge_waits_for_a_late_cpu),
		cmocka_unit_test(spool_pages),
		cmocka_unit_test(final_drain_reads_past_a_partial_page),
		cmocka_unit_test(spooled_cpu_is_not_reread_every_round),
		cmocka_unit_test(recording_saves_pages_without_walking_them),
		cmocka_unit_test(a_round_decodes_the_cpu_furthest_behind),
		cmocka_unit_test(counting_recording_stops_within_a_page),
		cmocka_unit_test(a_fast_filling_buffer_is_read_again_sooner),
		cmocka_unit_test(a_lagging_spool_stays_bounded),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
