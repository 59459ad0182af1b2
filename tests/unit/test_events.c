/* test_events.c - raw ring-buffer pages recorded from Debian's 6.1 and
 * 6.12 kernels (tests/fixtures/<version>/, made by capture-fixtures.sh)
 * decoded, merged across CPUs and printed; compared line by line with the
 * kernel's own text view of the same events. */
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "../../lib/internal.h"

static const char *const kernels[] = { "fixtures/6.1", "fixtures/6.12" };

struct collected {
	struct nop_sink sink;
	unsigned long long last_ts;
	int funcs, stacks, lost_events, unordered;
	long long lost;
};

static int collect(void *ctx, const struct nop_event *ev)
{
	struct collected *c = ctx;

	if (ev->ts < c->last_ts && ev->type != NOP_EV_LOST)
		c->unordered++;
	if (ev->type != NOP_EV_LOST)
		c->last_ts = ev->ts;
	c->funcs += ev->type == NOP_EV_FUNC;
	c->stacks += ev->nstack > 0;
	if (ev->type == NOP_EV_LOST) {
		c->lost_events++;
		c->lost += ev->lost > 0 ? ev->lost : 0;
		return 0; /* the kernel's text view has its own loss markers */
	}
	return c->sink.ops->event(&c->sink, ev);
}

static int collect_count(void *ctx, const struct nop_event *ev)
{
	struct collected *c = ctx;

	c->funcs += ev->type == NOP_EV_FUNC;
	return 0;
}

/* Decode a capture; returns our text view. */
static char *decode(const char *kdir, const char *capture, struct collected *c)
{
	char p0[256], p1[256], ks[256];
	const char *paths[2] = { p0, p1 };
	const int cpus[2] = { 0, 1 };
	struct nop_error err;
	struct nop_decoder *d = nop_decoder_new(kdir, &err);
	struct nop_resolver *r = nop_resolver_new(NULL, &err);
	struct nop_stream *st = NULL;
	char *buf = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len);

	assert_non_null(d);
	snprintf(ks, sizeof(ks), "%s/kallsyms", kdir);
	assert_int_equal(nop_resolver_load_kallsyms(r, ks, &err), 0);
	snprintf(p0, sizeof(p0), "%s/%s/cpu0.raw", kdir, capture);
	snprintf(p1, sizeof(p1), "%s/%s/cpu1.raw", kdir, capture);
	memset(c, 0, sizeof(*c));
	assert_int_equal(nop_sink_init(&c->sink, &(struct nop_sink_cfg){ .out = out, .res = r }, &err), 0);
	assert_int_equal(nop_stream_open_files(&st, d, paths, cpus, 2, &err), 0);
	for (bool more = true; more;)
		assert_int_equal(nop_stream_drain(st, collect, c, &more, &err), 0);
	nop_stream_close(st);
	fclose(out);
	nop_resolver_free(r);
	nop_decoder_free(d);
	return buf;
}

/* Both views reduced to "pid cpu ts: what" and "=> frame" lines: task
 * names and the kernel's flag column differ by design (a replay has no
 * /proc for the recorded tasks), the rest must not. */
static char *normalize(const char *text)
{
	char *outp = calloc(1, strlen(text) + 1), *copy = strdup(text);
	size_t off = 0;

	for (char *save, *l = strtok_r(copy, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		char *b, *ts, *plus;
		int pid, cpu;

		if (*l == '#' || strstr(l, "<stack trace>") || strstr(l, "[LOST"))
			continue;
		if (!strncmp(l, " => ", 4)) {
			if ((plus = strchr(l, '+')))
				*plus = 0;
			off += (size_t)sprintf(outp + off, "%s\n", l);
			continue;
		}
		b = strchr(l, '[');
		ts = b ? strstr(b, ": ") : NULL;
		if (!b || !ts)
			continue;
		*b = 0;
		pid = atoi(strrchr(l, '-') ? strrchr(l, '-') + 1 : "0");
		cpu = atoi(b + 1);
		for (b = ts; b > l && b[-1] != ' '; b--)
			;
		off += (size_t)sprintf(outp + off, "%d %d %.*s%s\n", pid, cpu, (int)(ts - b), b, ts);
	}
	free(copy);
	return outp;
}

static void same_as_kernel(const char *kdir, const char *capture, struct collected *c)
{
	char path[256];
	char *ours = decode(kdir, capture, c), *theirs, *a, *b;

	snprintf(path, sizeof(path), "%s/%s/trace.txt", kdir, capture);
	theirs = nop_read_file(path, NULL, NULL);
	assert_non_null(theirs);
	a = normalize(ours);
	b = normalize(theirs);
	if (strcmp(a, b) != 0) {
		FILE *f = fopen("/tmp/nopctl-decode.ours", "w");

		fputs(a, f);
		fclose(f);
		f = fopen("/tmp/nopctl-decode.kernel", "w");
		fputs(b, f);
		fclose(f);
		print_error("%s/%s differs from the kernel's view: diff /tmp/nopctl-decode.{kernel,ours}\n",
			    kdir, capture);
	}
	assert_string_equal(a, b);
	free(ours);
	free(theirs);
	free(a);
	free(b);
}

static void stacks_match_kernel(void **state)
{
	for (size_t k = 0; k < sizeof(kernels) / sizeof(kernels[0]); k++) {
		struct collected c;

		same_as_kernel(kernels[k], "stack", &c);
		assert_true(c.funcs >= 40); /* opener 20, twice, and its shell's */
		assert_int_equal(c.stacks, c.funcs); /* every hit has its stack */
		assert_int_equal(c.unordered, 0);
		assert_int_equal(c.lost_events, 0);
	}
}

static void lost_pages_reported(void **state)
{
	for (size_t k = 0; k < sizeof(kernels) / sizeof(kernels[0]); k++) {
		struct collected c;

		same_as_kernel(kernels[k], "lost", &c);
		assert_true(c.funcs > 100);
		assert_true(c.lost_events >= 1); /* the page headers said so */
		assert_true(c.lost > 0);
		assert_int_equal(c.unordered, 0);
	}
}

/* A page cut short or filled with garbage never crashes the decoder. */
static void damaged_pages(void **state)
{
	struct nop_error err;
	struct nop_decoder *d = nop_decoder_new(kernels[0], &err);
	int ps = nop_decoder_page_size(d);
	char *page = malloc((size_t)ps), path[256];
	FILE *f;
	struct collected c;

	snprintf(path, sizeof(path), "%s/stack/cpu0.raw", kernels[0]);
	f = fopen(path, "r");
	assert_int_equal(fread(page, 1, (size_t)ps, f), (size_t)ps);
	fclose(f);
	memset(&c.sink, 0, sizeof(c.sink));
	srand(1);
	for (int round = 0; round < 2000; round++) {
		char *bad = malloc((size_t)ps);

		memcpy(bad, page, (size_t)ps);
		for (int i = 0; i < 1 + round % 16; i++)
			bad[rand() % ps] = (char)rand();
		if (round % 3 == 0) /* commit length past the end */
			memset(bad + 8, 0xff, 4);
		memset(&c, 0, sizeof(c));
		nop_decode_page(d, 0, bad, collect_count, &c);
		free(bad);
	}
	free(page);
	nop_decoder_free(d);
}

static void on_alarm(int sig)
{
	(void)sig;
	static const char m[] = "decoder hung on a page whose padding points back\n";
	if (write(2, m, sizeof(m) - 1) < 0) { /* nothing more to do */ }
	_exit(1);
}

/* libtraceevent's kbuffer reads a padding record's length as a signed int:
 * a damaged one (fuzz_decode found 0xffffffc4) points back to an earlier
 * record and kbuffer loops for ever. The decoder refuses such a page. */
static void padding_pointing_back(void **state)
{
	struct nop_error err;
	struct nop_decoder *d = nop_decoder_new(kernels[1], &err);
	int ps = nop_decoder_page_size(d);
	uint32_t *w = calloc(1, (size_t)ps);
	struct collected c;

	(void)state;
	w[2] = (uint32_t)(ps - 16);	/* commit: the whole page (8-byte longs) */
	w[4] = 5;			/* a 20-byte record: type_len 5 */
	for (int i = 10; i < ps / 4; i++)
		w[i] = 0xffffffff;	/* time stamps (type 31, 8 bytes each) */
	w[30] = 29;			/* padding ... */
	w[31] = (uint32_t)-60;		/* ... of length -60: back 7 records */
	memset(&c, 0, sizeof(c));
	signal(SIGALRM, on_alarm);
	alarm(10);
	assert_int_equal(nop_decode_page(d, 0, w, collect_count, &c), -EINVAL);
	alarm(0);
	w[31] = 12;			/* the same page with a sane padding length */
	assert_int_equal(nop_decode_page(d, 0, w, collect_count, &c), 0);
	free(w);
	nop_decoder_free(d);
}

struct tally {
	unsigned long long func, exit, lost;
};

static int tally_event(void *ctx, const struct nop_event *ev)
{
	struct tally *t = ctx;

	t->func += ev->type == NOP_EV_FUNC ? 1 : ev->type == NOP_EV_COUNTS ? ev->nfunc : 0;
	t->exit += ev->type == NOP_EV_EXIT ? 1 : ev->type == NOP_EV_COUNTS ? ev->nexit : 0;
	t->lost += ev->type == NOP_EV_LOST;
	return 0;
}

struct noted {
	struct nop_addrset set;
	unsigned long long stacks;
};

/* what a trace.dat's symbols were taken from before: every decoded
 * event's function, caller (a hit's: an entry's or exit's parent_ip is
 * its depth, which names no function) and stack */
static int note_decoded(void *ctx, const struct nop_event *ev)
{
	struct noted *s = ctx;

	if (ev->type == NOP_EV_LOST || ev->type == NOP_EV_KEVENT)
		return 0;
	nop_addrset_add(&s->set, ev->ip);
	if (ev->type == NOP_EV_FUNC || ev->type == NOP_EV_STACK)
		nop_addrset_add(&s->set, ev->parent_ip);
	for (int i = 0; i < ev->nstack; i++)
		nop_addrset_add(&s->set, ev->stack[i]);
	s->stacks += ev->nstack > 0;
	return 0;
}

static int both(void *ctx, const struct nop_event *ev)
{
	struct { struct tally t; struct noted n; } *b = ctx;

	return tally_event(&b->t, ev) ? : note_decoded(&b->n, ev);
}

static bool same_set(const struct nop_addrset *a, const struct nop_addrset *b)
{
	size_t in = 0;

	for (size_t i = 0; i < a->cap; i++)
		if (a->v[i])
			for (size_t k = 0; k < b->cap; k++)
				if (b->v[k] == a->v[i]) {
					in++;
					break;
				}
	return in == a->n && a->n == b->n;
}

/* A recording's pages are walked once after the capture, only counted
 * (nop_count_page): the same number of hits, exits and losses as
 * decoding every event, and the same addresses noted for the trace.dat's
 * symbols (stacks included), on every capture. */
static void counted_as_decoded(void **state)
{
	static const char *const caps[] = { "stack", "graph", "lost", "graph-lost", "graph-midcall" };
	unsigned long long stacks = 0;

	(void)state;
	for (size_t k = 0; k < ARRAY_SIZE(kernels); k++) {
		struct nop_error err;
		struct nop_decoder *d = nop_decoder_new(kernels[k], &err);
		int ps = nop_decoder_page_size(d);
		char *page = malloc((size_t)ps), path[256];

		for (size_t c = 0; c < ARRAY_SIZE(caps); c++)
			for (int cpu = 0; cpu < 2; cpu++) {
				struct { struct tally t; struct noted n; } dec = { 0 };
				struct tally cnt = { 0 };
				struct nop_addrset syms = { 0 };
				FILE *f;

				snprintf(path, sizeof(path), "%s/%s/cpu%d.raw", kernels[k], caps[c], cpu);
				if (!(f = fopen(path, "r")))
					continue;
				while (fread(page, 1, (size_t)ps, f) == (size_t)ps) {
					nop_decode_page(d, cpu, page, both, &dec);
					nop_count_page(d, cpu, page, &syms, tally_event, &cnt);
				}
				nop_decode_flush(d, both, &dec);
				fclose(f);
				assert_true(dec.t.func + dec.t.exit > 0);
				assert_int_equal(cnt.func, dec.t.func);
				assert_int_equal(cnt.exit, dec.t.exit);
				assert_int_equal(cnt.lost, dec.t.lost);
				assert_false(syms.failed);
				assert_true(dec.n.set.n > 0 && same_set(&dec.n.set, &syms));
				stacks += dec.n.stacks;
				nop_addrset_free(&dec.n.set);
				nop_addrset_free(&syms);
			}
		free(page);
		nop_decoder_free(d);
	}
	assert_true(stacks > 0);
}

/* Formats are data from a file too: a trace.dat may claim common_type
 * lies 900 MB into every record. Every field is read only inside its
 * record (this read past it and crashed: issue 13 #5). The fixture's
 * formats are copied with that one line changed, and its graph capture
 * decoded in a child. */
static void field_offsets_stay_in_record(void **state)
{
	char dir[] = "/tmp/nopctl-fmt-XXXXXX", cmd[512];
	int status;
	pid_t pid;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(cmd, sizeof(cmd),
		 "cp -r %s/events %s/ && sed -i 's/common_type;\toffset:0;/common_type;\toffset:900000000;/'"
		 " %s/events/ftrace/*/format && grep -q 900000000 %s/events/ftrace/function/format",
		 kernels[1], dir, dir, dir);
	assert_int_equal(system(cmd), 0);
	pid = fork();
	if (pid == 0) {
		struct nop_error err;
		struct nop_decoder *d = nop_decoder_new(dir, &err);
		int ps = d ? nop_decoder_page_size(d) : 0;
		char *page = malloc((size_t)(ps ? ps : 1)), path[256];
		struct tally t = { 0 };
		FILE *f;

		if (!d)
			_exit(0); /* refusing the format is fine too */
		for (int cpu = 0; cpu < 2; cpu++) {
			snprintf(path, sizeof(path), "%s/graph/cpu%d.raw", kernels[1], cpu);
			if (!(f = fopen(path, "r")))
				_exit(2);
			while (fread(page, 1, (size_t)ps, f) == (size_t)ps)
				nop_decode_page(d, cpu, page, tally_event, &t);
			fclose(f);
		}
		_exit(0);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	assert_int_equal(system(cmd), 0);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(stacks_match_kernel),
		cmocka_unit_test(lost_pages_reported),
		cmocka_unit_test(damaged_pages),
		cmocka_unit_test(padding_pointing_back),
		cmocka_unit_test(counted_as_decoded),
		cmocka_unit_test(field_offsets_stay_in_record),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
