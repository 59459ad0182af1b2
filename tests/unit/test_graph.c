/* test_graph.c - function_graph captures recorded from 6.1 and 6.12 (a
 * clean one, one that starts in the middle of calls, one with lost pages)
 * through the call-graph engine and every graph output. */
#include <malloc.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "../../lib/internal.h"

static const char *const kernels[] = { "fixtures/6.1", "fixtures/6.12" };

struct run {
	struct nop_graph *g;
	struct nop_sink *sink; /* optional */
	int open[65536];       /* per pid: open ENTERs */
	long long acc[65536];  /* per pid: self time since its last root */
	bool clamped[65536];   /* per pid: a callee outlasted its caller */
	long long self_total, items, no_entry, untimed, lost, bad_nesting, root_calls;
	long long roots_checked, roots_off, last_off;
	/* the first event's time stamp; calls without entry that began after
	 * it on the buffer's clock, and those whose calltime is after it */
	unsigned long long first;
	long long began_inside;
	const char *root;
	struct nop_resolver *res;
	long long gcalls, item_calls; /* calls a summary took; timed items */
};

/* replay's stats tables: with the deepest stack on their own output, and
 * (summarize) their calls taken the summary's way where they can be */
static bool table_test, summarize;

static int on_gcall(void *ctx, const struct nop_gcall *c)
{
	struct run *r = ctx;

	r->gcalls++;
	return nop_stats_call(r->sink, c);
}

static int on_item(void *ctx, const struct nop_gitem *gi)
{
	struct run *r = ctx;
	int *open = &r->open[gi->pid & 0xffff];

	r->items++;
	r->item_calls += gi->kind != NOP_GI_ENTER && gi->timed;
	r->no_entry += gi->no_entry;
	r->began_inside += gi->no_entry && gi->began > r->first;
	r->untimed += gi->kind == NOP_GI_RETURN && !gi->timed;
	/* brackets: an item's depth is the number of calls open around it */
	if (gi->kind == NOP_GI_RETURN) {
		if (gi->depth != *open - 1)
			r->bad_nesting++;
		(*open)--;
	} else if (gi->depth != *open) {
		r->bad_nesting++;
	}
	if (gi->kind == NOP_GI_ENTER)
		(*open)++;
	if (gi->kind == NOP_GI_RETURN && gi->timed && gi->self == 0)
		r->clamped[gi->pid & 0xffff] = true;
	if (gi->kind != NOP_GI_ENTER && gi->timed) {
		r->self_total += (long long)gi->self;
		r->acc[gi->pid & 0xffff] += (long long)gi->self;
	}
	/* a whole tree: its self times add up to its root's duration */
	if (gi->kind != NOP_GI_ENTER && gi->depth == 0) {
		/* the kernel can report interrupt time in callees that outlasts
		 * their caller: self time is clamped at 0 there, and such a tree
		 * cannot add up */
		if (gi->timed && !gi->no_entry && !r->clamped[gi->pid & 0xffff]) {
			r->roots_checked++;
			if (r->acc[gi->pid & 0xffff] != (long long)gi->duration) {
				r->roots_off++;
				r->last_off = r->acc[gi->pid & 0xffff] - (long long)gi->duration;
				if (getenv("DEBUG_ROOTS"))
					fprintf(stderr, "root %s pid %d ts %llu dur %llu self sum %lld\n",
						nop_resolve_sym(r->res, gi->func, NULL), gi->pid, gi->ts,
						gi->duration, r->acc[gi->pid & 0xffff]);
			}
		}
		r->acc[gi->pid & 0xffff] = 0;
		r->clamped[gi->pid & 0xffff] = false;
	}
	if (gi->kind != NOP_GI_RETURN && gi->depth == 0 && r->root &&
	    !strcmp(nop_resolve_sym(r->res, gi->func, NULL) ?: "", r->root))
		r->root_calls++;
	return r->sink ? r->sink->ops->graph(r->sink, gi) : 0;
}

static int on_event(void *ctx, const struct nop_event *ev)
{
	struct run *r = ctx;

	r->lost += ev->type == NOP_EV_LOST;
	if (ev->ts && (!r->first || ev->ts < r->first))
		r->first = ev->ts;
	return nop_graph_feed(r->g, ev, on_item, r);
}

/* Feed one capture through the engine, and the sink if one is given. */
static struct run *replay(const char *kdir, const char *capture, enum nop_view view,
			  enum nop_encoding enc, char **text, const char *root)
{
	char p0[256], p1[256], ks[256];
	const char *paths[2] = { p0, p1 };
	const int cpus[2] = { 0, 1 };
	struct nop_error err;
	struct nop_decoder *d = nop_decoder_new(kdir, &err);
	struct run *r = calloc(1, sizeof(*r));
	struct nop_stream *st;
	struct nop_sink sink;
	size_t len = 0;
	FILE *out = text ? open_memstream(text, &len) : NULL;
	struct nop_summary sum = { .exit_status = -1, .stop_reason = "test" };

	assert_non_null(d);
	r->root = root;
	r->res = nop_resolver_new(NULL, &err);
	snprintf(ks, sizeof(ks), "%s/kallsyms", kdir);
	assert_int_equal(nop_resolver_load_kallsyms(r->res, ks, &err), 0);
	r->g = nop_graph_new(&err);
	if (out) {
		struct nop_sink_cfg sc = { .view = view, .enc = enc, .out = out, .res = r->res, .quiet = !table_test,
					   .diag = table_test ? out : NULL };

		assert_int_equal(nop_sink_init(&sink, &sc, &err), 0);
		r->sink = &sink;
		if (summarize)
			nop_graph_summarize(r->g, on_gcall, r);
	}
	snprintf(p0, sizeof(p0), "%s/%s/cpu0.raw", kdir, capture);
	snprintf(p1, sizeof(p1), "%s/%s/cpu1.raw", kdir, capture);
	assert_int_equal(nop_stream_open_files(&st, d, paths, cpus, 2, &err), 0);
	for (bool more = true; more;)
		assert_int_equal(nop_stream_drain(st, on_event, r, &more, &err), 0);
	assert_int_equal(nop_graph_finish(r->g, on_item, r), 0);
	if (out) {
		sink.ops->summary(&sink, &sum);
		nop_sink_free(&sink);
		fclose(out);
		r->sink = NULL;
	}
	nop_stream_close(st);
	nop_graph_free(r->g);
	nop_decoder_free(d);
	return r;
}

static void done(struct run *r)
{
	nop_resolver_free(r->res);
	free(r);
}

static void clean_capture_nests(void **state)
{
	for (size_t k = 0; k < 2; k++) {
		char path[256], *kernel;
		struct run *r = replay(kernels[k], "graph", NOP_VIEW_LINES, NOP_ENC_TEXT, NULL, "do_sys_openat2");
		long long kernel_roots = 0;

		/* the kernel's own view of the same capture: one "do_sys_openat2() {" per call */
		snprintf(path, sizeof(path), "%s/graph/trace.txt", kernels[k]);
		kernel = nop_read_file(path, NULL, NULL);
		for (char *p = kernel; (p = strstr(p, "do_sys_openat2() {")); p++)
			kernel_roots++;
		free(kernel);
		assert_int_equal(r->root_calls, kernel_roots); /* as many trees as the kernel shows */
		assert_int_equal(r->bad_nesting, 0);
		assert_int_equal(r->no_entry, 0);
		assert_int_equal(r->untimed, 0);
		assert_int_equal(r->lost, 0);
		assert_true(kernel_roots >= 20); /* opener 10, twice */
		done(r);
	}
}

static long long folded_sum(const char *text)
{
	long long sum = 0;

	for (const char *l = text; *l;) {
		const char *eol = strchr(l, '\n'), *sp;

		if (!eol)
			break;
		sp = l;
		for (const char *c = l; c < eol; c++)
			if (*c == ' ')
				sp = c;
		sum += atoll(sp + 1);
		l = eol + 1;
	}
	return sum;
}

static void folded_sums_to_roots(void **state)
{
	for (size_t k = 0; k < 2; k++) {
		char *text = NULL;
		struct run *r = replay(kernels[k], "graph", NOP_VIEW_FOLDED, NOP_ENC_TEXT, &text, "do_sys_openat2");

		assert_true(r->roots_checked >= 20);
		assert_int_equal(r->roots_off, 0);
		assert_int_equal(folded_sum(text), r->self_total);
		assert_non_null(strstr(text, "do_sys_openat2;"));
		free(text);
		done(r);
	}
}

/* a tool's verdict on our output: 0 if it accepted it */
static int tool(const char *cmd, const char *text)
{
	FILE *p = popen(cmd, "w");

	fputs(text, p);
	return pclose(p);
}

static void dot_renders(void **state)
{
	char *text = NULL;
	struct run *r = replay(kernels[1], "graph", NOP_VIEW_DOT, NOP_ENC_TEXT, &text, "do_sys_openat2");

	assert_non_null(strstr(text, "\"do_sys_openat2\" -> "));
	/* numbered in call order: the root's first callee is #1 */
	assert_non_null(strstr(text, "\t\"do_sys_openat2\" -> \"getname\" [label=\"#1, "));
	assert_int_equal(tool("dot -Tsvg > /tmp/nopctl-test.svg", text), 0);
	assert_int_equal(system("grep -q do_sys_openat2 /tmp/nopctl-test.svg"), 0);
	unlink("/tmp/nopctl-test.svg");
	free(text);
	done(r);
}

static void chrome_and_json_parse(void **state)
{
	char *text = NULL;
	struct run *r = replay(kernels[0], "graph", NOP_VIEW_CHROME, NOP_ENC_TEXT, &text, "do_sys_openat2");

	assert_int_equal(tool("jq -e '.traceEvents | map(select(.ph == \"X\")) | length > 0 and "
			      "all(.dur >= 0 and .ts > 0)' > /dev/null", text), 0);
	free(text);
	done(r);
	r = replay(kernels[0], "graph", NOP_VIEW_LINES, NOP_ENC_JSON, &text, "do_sys_openat2");
	/* every line an object; entries and exits pair up like brackets */
	assert_int_equal(tool("jq -e -s 'length > 0 and ([.[] | select(.type == \"entry\")] | length) == "
			      "([.[] | select(.type == \"exit\")] | length)' > /dev/null", text), 0);
	free(text);
	done(r);
}

static void stats_table(void **state)
{
	for (size_t k = 0; k < 2; k++) {
		char *text = NULL, path[256], cmd[512];
		struct run *r = replay(kernels[k], "graph", NOP_VIEW_STATS, NOP_ENC_JSON, /* the table as JSON lines, for jq */ &text, "do_sys_openat2");

		/* sorted by total, figures in order, the root counted as often
		 * as the kernel shows it */
		assert_int_equal(tool("jq -e -s 'map(select(.type == \"func_stats\")) | length > 5 and "
				      "(map(.total_ns) | . == (sort | reverse)) and "
				      "all(.min_ns <= .p50_ns and .p50_ns <= .p99_ns and .p99_ns <= .max_ns and "
				      ".self_ns <= .total_ns and .avg_ns * .calls <= .total_ns)' > /dev/null", text), 0);
		snprintf(path, sizeof(path), "%s/graph/trace.txt", kernels[k]);
		snprintf(cmd, sizeof(cmd), "jq -e -s --argjson n $(grep -c 'do_sys_openat2() {' %s) "
			 "'map(select(.func == \"do_sys_openat2\"))[0] | .calls == $n and .max_depth == 0' > /dev/null", path);
		assert_int_equal(tool(cmd, text), 0);
		free(text);
		done(r);
	}
}

/* report --stats takes calls the summary's way where entry and exit come
 * in order, the items' way elsewhere (lost pages, calls begun before the
 * capture, 6.1's interrupts at a returning call's depth): the same table,
 * deepest stack and all, either way, and both ways taken */
static void summary_makes_the_same_table(void **state)
{
	static const char *const caps[] = { "graph", "graph-lost", "graph-midcall" };

	table_test = true;
	for (size_t k = 0; k < 2; k++)
		for (size_t c = 0; c < 3; c++)
			for (int e = 0; e < 2; e++) {
				enum nop_encoding enc = e ? NOP_ENC_JSON : NOP_ENC_TEXT;
				char *items = NULL, *table = NULL;
				struct run *a = replay(kernels[k], caps[c], NOP_VIEW_STATS, enc, &items, NULL), *b;

				summarize = true;
				b = replay(kernels[k], caps[c], NOP_VIEW_STATS, enc, &table, NULL);
				summarize = false;
				assert_string_equal(items, table);
				assert_non_null(strstr(items, e ? "\"func_stats\"" : "deepest call stack"));
				assert_int_equal(b->gcalls + b->item_calls, a->item_calls);
				assert_true(b->gcalls > a->item_calls / 2);
				if (c == 1) /* lost pages: exits without entries */
					assert_true(b->item_calls > 0);
				free(items);
				free(table);
				done(a);
				done(b);
			}
	table_test = false;
}

static void starts_in_the_middle(void **state)
{
	for (size_t k = 0; k < 2; k++) {
		char *text = NULL;
		struct run *r = replay(kernels[k], "graph-midcall", NOP_VIEW_LINES, NOP_ENC_TEXT, &text, NULL);

		/* a task already running when tracing starts: its trees begin
		 * with what it calls next, at depth 0 */
		assert_true(r->items > 100);
		assert_int_equal(r->bad_nesting, 0);
		assert_int_equal(r->roots_off, 0);
		/* a call without its entry here began before the capture: not
		 * a gap (a lost event, exit 5), on the buffer's clock */
		assert_int_equal(r->began_inside, 0);
		free(text);
		done(r);
	}
}

static void lost_pages_do_not_misnest(void **state)
{
	for (size_t k = 0; k < 2; k++) {
		char *text = NULL;
		struct run *r = replay(kernels[k], "graph-lost", NOP_VIEW_LINES, NOP_ENC_TEXT, &text, "do_sys_openat2");

		assert_true(r->lost > 0);
		/* overwritten pages: trees that start in the middle of a call,
		 * calls that began inside the capture (gaps) */
		assert_true(r->no_entry > 0);
		assert_true(r->began_inside > 0);
		assert_non_null(strstr(text, "/* entered before the capture or in a gap */"));
		free(text);
		assert_int_equal(r->bad_nesting, 0);
		assert_true(r->root_calls > 0); /* roots found again after the gaps */
		done(r);
	}
}

/* 6.1 lowers a task's depth before it records a return: an interrupt in
 * between records its calls at the returning function's depth, before
 * that function's exit (seen in a VM capture: get_timespec64 entered at
 * depth 2, irq_enter_rcu at depth 2, then get_timespec64's exit). Every
 * event is there: no call may be shown without its entry or exit. */
static void interrupt_in_a_return_nests(void **state)
{
	struct nop_error err;
	struct run *r = calloc(1, sizeof(*r));
	const struct { enum nop_ev_type type; unsigned long long ip; int depth; } evs[] = {
		{ NOP_EV_ENTRY, 0x100, 1 }, /* the caller */
		{ NOP_EV_ENTRY, 0x200, 2 }, /* get_timespec64 */
		{ NOP_EV_ENTRY, 0x300, 2 }, /* the interrupt, at the same depth */
		{ NOP_EV_ENTRY, 0x400, 3 },
		{ NOP_EV_EXIT, 0x400, 3 },
		{ NOP_EV_EXIT, 0x300, 2 },
		{ NOP_EV_EXIT, 0x200, 2 }, /* get_timespec64's exit, after it */
		{ NOP_EV_EXIT, 0x100, 1 },
	};

	assert_non_null(r->g = nop_graph_new(&err));
	for (size_t i = 0; i < sizeof(evs) / sizeof(evs[0]); i++) {
		struct nop_event e = { .type = evs[i].type, .pid = 7, .ts = 1000 + i * 10, .ip = evs[i].ip,
				       .depth = evs[i].depth, .calltime = 1000, .rettime = 1000 + i * 10 };

		assert_int_equal(nop_graph_feed(r->g, &e, on_item, r), 0);
	}
	assert_int_equal(nop_graph_finish(r->g, on_item, r), 0);
	assert_int_equal(r->no_entry, 0);
	assert_int_equal(r->untimed, 0);
	assert_int_equal(r->bad_nesting, 0);
	nop_graph_free(r->g);
	free(r);
}

static int to_sink(void *ctx, const struct nop_gitem *gi)
{
	struct run *r = ctx;

	r->item_calls += gi->kind != NOP_GI_ENTER && gi->timed;
	return r->sink->ops->graph(r->sink, gi);
}

/* the stats table of events (ip, depth; exits timed by their place) as
 * the items make it, or the summary where it can */
static char *table_of(const struct nop_event *evs, size_t n, bool summary, long long *gcalls)
{
	struct nop_error err;
	struct run *r = calloc(1, sizeof(*r));
	struct nop_sink sink;
	char *text = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);
	struct nop_summary sum = { .exit_status = -1, .stop_reason = "test" };

	r->res = nop_resolver_new(NULL, &err);
	assert_int_equal(nop_sink_init(&sink, &(struct nop_sink_cfg){ .view = NOP_VIEW_STATS, .enc = NOP_ENC_TEXT,
								      .out = out, .diag = out, .res = r->res },
				       &err), 0);
	r->sink = &sink;
	assert_non_null(r->g = nop_graph_new(&err));
	if (summary)
		nop_graph_summarize(r->g, on_gcall, r);
	for (size_t i = 0; i < n; i++)
		assert_int_equal(nop_graph_feed(r->g, &evs[i], to_sink, r), 0);
	assert_int_equal(nop_graph_finish(r->g, to_sink, r), 0);
	sink.ops->summary(&sink, &sum);
	nop_sink_free(&sink);
	fclose(out);
	*gcalls = r->gcalls;
	nop_graph_free(r->g);
	nop_resolver_free(r->res);
	free(r);
	return text;
}

/* the ways a summary leaves to the items, in one stream of two tasks:
 * 6.1's interrupt at a returning call's depth, a second frame at one
 * depth (a lost exit), an exit of a call below the last open one (the
 * exits above it lost; a recursive call's), an exit without its entry, a
 * lost page */
static void summary_leaves_the_odd_events_to_items(void **state)
{
	const struct { enum nop_ev_type type; int pid; unsigned long long ip; int depth; } evs[] = {
		{ NOP_EV_ENTRY, 7, 0x100, 0 }, { NOP_EV_ENTRY, 7, 0x200, 1 },
		{ NOP_EV_ENTRY, 7, 0x300, 1 }, /* an interrupt at the returning call's depth */
		{ NOP_EV_ENTRY, 7, 0x400, 2 }, { NOP_EV_EXIT, 7, 0x400, 2 },
		{ NOP_EV_EXIT, 7, 0x300, 1 },  { NOP_EV_EXIT, 7, 0x200, 1 },
		{ NOP_EV_ENTRY, 8, 0x500, 0 }, { NOP_EV_ENTRY, 8, 0x600, 1 },
		{ NOP_EV_ENTRY, 8, 0x700, 1 }, /* 0x600's exit was lost */
		{ NOP_EV_ENTRY, 8, 0x800, 1 }, /* a second frame at depth 1 */
		{ NOP_EV_ENTRY, 8, 0x900, 2 }, { NOP_EV_ENTRY, 8, 0xa00, 3 },
		{ NOP_EV_EXIT, 8, 0x900, 2 },  /* 0xa00's exit lost */
		{ NOP_EV_EXIT, 7, 0xb00, 1 },  /* its entry never came */
		{ NOP_EV_LOST, 7, 0, 0 },      { NOP_EV_ENTRY, 7, 0xc00, 1 },
		{ NOP_EV_EXIT, 7, 0xc00, 1 },  { NOP_EV_EXIT, 7, 0x100, 0 },
		{ NOP_EV_ENTRY, 8, 0xd00, 2 }, /* open at the end */
		{ NOP_EV_ENTRY, 9, 0xe00, 0 }, { NOP_EV_ENTRY, 9, 0xe00, 1 },
		{ NOP_EV_EXIT, 9, 0xe00, 0 },  /* the outer call's: the inner's lost */
	};
	struct nop_event e[ARRAY_SIZE(evs)];
	long long via_items, via_summary;
	char *items, *table;

	for (size_t i = 0; i < ARRAY_SIZE(evs); i++)
		e[i] = (struct nop_event){ .type = evs[i].type, .pid = evs[i].pid, .ts = 1000 + i * 10,
					   .ip = evs[i].ip, .depth = evs[i].depth };
	for (size_t i = 0; i < ARRAY_SIZE(evs); i++)
		for (size_t j = i; e[i].type == NOP_EV_EXIT && j-- > 0;)
			if (e[j].type == NOP_EV_ENTRY && e[j].ip == e[i].ip) {
				e[i].calltime = e[j].ts; /* timed from its entry */
				e[i].rettime = e[i].ts;
				break;
			}
	e[14].calltime = 900; /* 0xb00: began before the capture */
	e[14].rettime = e[14].ts;
	items = table_of(e, ARRAY_SIZE(e), false, &via_items);
	table = table_of(e, ARRAY_SIZE(e), true, &via_summary);
	assert_string_equal(items, table);
	assert_non_null(strstr(items, "deepest call stack: 5 levels"));
	assert_int_equal(via_items, 0);
	assert_true(via_summary > 0);
	free(items);
	free(table);
}

static int count_items(void *ctx, const struct nop_gitem *gi)
{
	(*(int *)ctx)++;
	return 0;
}

/* issue 13 #6: a system-wide graph sees every task once: 60,000 tasks
 * with one call each must not keep a full-depth stack each (8.2 KB: 490
 * MB); what they keep is bounded by the depth they reached */
static void many_tasks_bounded(void **state)
{
	struct nop_error err;
	struct nop_graph *g = nop_graph_new(&err);
	struct mallinfo2 before = mallinfo2(), after;
	int items = 0;

	assert_non_null(g);
	for (int pid = 1; pid <= 60000; pid++) {
		struct nop_event e = { .type = NOP_EV_ENTRY, .pid = pid, .ts = (unsigned long long)pid * 10,
				       .ip = 0xffffffff81000000ull, .depth = 0 };
		struct nop_event x = e;

		x.type = NOP_EV_EXIT;
		x.calltime = e.ts;
		x.rettime = x.ts = e.ts + 5;
		assert_int_equal(nop_graph_feed(g, &e, count_items, &items), 0);
		assert_int_equal(nop_graph_feed(g, &x, count_items, &items), 0);
	}
	assert_int_equal(nop_graph_finish(g, count_items, &items), 0);
	after = mallinfo2();
	assert_int_equal(items, 60000);
	assert_true(after.uordblks - before.uordblks < 32u << 20);
	nop_graph_free(g);
}

struct seen {
	int n;
	struct { enum nop_gi_kind kind; unsigned long long func, self; int depth, cpu; bool no_entry, timed, at_end; } v[32];
};

static int collect(void *ctx, const struct nop_gitem *gi)
{
	struct seen *s = ctx;

	assert_true(s->n < 32);
	s->v[s->n].kind = gi->kind;
	s->v[s->n].func = gi->func;
	s->v[s->n].self = gi->self;
	s->v[s->n].depth = gi->depth;
	s->v[s->n].cpu = gi->cpu;
	s->v[s->n].no_entry = gi->no_entry;
	s->v[s->n].timed = gi->timed;
	s->v[s->n].at_end = gi->at_end;
	s->n++;
	return 0;
}

/* issue 19 #3: with tracing_thresh the kernel records only returns at or
 * above it, a caller's after its callees' (the VM's 'cat trace' for
 * set_graph_function=do_sys_openat2, tracing_thresh=50: kmem_cache_alloc
 * (depth 3), getname_flags (2), getname (1), path_openat (2), do_filp_open
 * (1), do_sys_openat2 (0)). They are one tree, caller first, every call
 * at its depth, none 'entry not seen'; self time is what known callees
 * leave. A return whose caller never came is shown at the end. */
static void threshold_returns_nest(void **state)
{
	struct nop_error err;
	struct nop_graph *g = nop_graph_new(&err);
	struct seen s = { 0 };
	const struct { unsigned long long ip; int depth; unsigned long long us; } evs[] = {
		{ 0x300, 3, 50 }, { 0x220, 2, 78 }, { 0x200, 1, 80 },
		{ 0x410, 2, 153 }, { 0x400, 1, 157 }, { 0x100, 0, 274 },
		{ 0x100, 0, 63 }, /* a second call: alone above the threshold */
		{ 0x410, 2, 60 }, /* its callers still running at the end */
	};
	const struct { enum nop_gi_kind kind; unsigned long long func; int depth; unsigned long long self_us; } want[] = {
		{ NOP_GI_ENTER, 0x100, 0, 0 },	 { NOP_GI_ENTER, 0x200, 1, 0 },
		{ NOP_GI_ENTER, 0x220, 2, 0 },	 { NOP_GI_LEAF, 0x300, 3, 50 },
		{ NOP_GI_RETURN, 0x220, 2, 28 }, { NOP_GI_RETURN, 0x200, 1, 2 },
		{ NOP_GI_ENTER, 0x400, 1, 0 },	 { NOP_GI_LEAF, 0x410, 2, 153 },
		{ NOP_GI_RETURN, 0x400, 1, 4 },	 { NOP_GI_RETURN, 0x100, 0, 37 },
		{ NOP_GI_LEAF, 0x100, 0, 63 },	 { NOP_GI_LEAF, 0x410, 0, 60 },
	};

	assert_non_null(g);
	nop_graph_exits_only(g);
	for (size_t i = 0; i < sizeof(evs) / sizeof(evs[0]); i++) {
		unsigned long long ts = 1000000 + i * 1000000;
		struct nop_event e = { .type = NOP_EV_EXIT, .pid = 7, .cpu = 1, .ts = ts, .ip = evs[i].ip,
				       .depth = evs[i].depth, .calltime = ts - evs[i].us * 1000, .rettime = ts };

		assert_int_equal(nop_graph_feed(g, &e, collect, &s), 0);
	}
	assert_int_equal(nop_graph_finish(g, collect, &s), 0);
	assert_int_equal(s.n, sizeof(want) / sizeof(want[0]));
	for (int i = 0; i < s.n; i++) {
		assert_int_equal(s.v[i].kind, want[i].kind);
		assert_int_equal(s.v[i].func, want[i].func);
		assert_int_equal(s.v[i].depth, want[i].depth);
		assert_false(s.v[i].no_entry);
		if (want[i].kind != NOP_GI_ENTER) {
			assert_true(s.v[i].timed);
			assert_int_equal(s.v[i].self, want[i].self_us * 1000);
		}
	}
	nop_graph_free(g);
}

/* a recording may be a tracing_thresh capture (nopctl record -G -t,
 * trace-cmd with tracing_thresh): with no entry in the whole stream, its
 * returns are trees as under -t; one entry shows it is not, and the
 * returns before it are what they always were: calls whose entry came
 * before the capture */
static void recording_of_returns_found(void **state)
{
	const struct { unsigned long long ip; int depth; unsigned long long us; } evs[] = {
		{ 0x300, 2, 50 }, { 0x200, 1, 80 }, { 0x100, 0, 274 },
	};

	for (int with_entry = 0; with_entry < 2; with_entry++) {
		struct nop_error err;
		struct nop_graph *g = nop_graph_new(&err);
		struct seen s = { 0 };

		assert_non_null(g);
		nop_graph_find_exits_only(g);
		for (size_t i = 0; i < sizeof(evs) / sizeof(evs[0]); i++) {
			unsigned long long ts = 1000000 + i * 1000000;
			struct nop_event e = { .type = NOP_EV_EXIT, .pid = 7, .cpu = 1, .ts = ts, .ip = evs[i].ip,
					       .depth = evs[i].depth, .calltime = ts - evs[i].us * 1000,
					       .rettime = ts };

			assert_int_equal(nop_graph_feed(g, &e, collect, &s), 0);
		}
		if (with_entry) {
			struct nop_event e = { .type = NOP_EV_ENTRY, .pid = 7, .cpu = 1, .ts = 9000000, .ip = 0x100 };

			assert_int_equal(nop_graph_feed(g, &e, collect, &s), 0);
		}
		assert_int_equal(nop_graph_finish(g, collect, &s), 0);
		if (!with_entry) {
			/* one tree: 0x100 { 0x200 { 0x300(); } } */
			assert_int_equal(s.n, 5);
			assert_int_equal(s.v[0].kind, NOP_GI_ENTER);
			assert_int_equal(s.v[2].kind, NOP_GI_LEAF);
			assert_int_equal(s.v[2].depth, 2);
			for (int i = 0; i < s.n; i++)
				assert_false(s.v[i].no_entry);
			assert_true(nop_graph_returns_only(g));
		} else {
			/* three calls without entry, then the entry, still open */
			assert_int_equal(s.n, 5);
			for (int i = 0; i < 3; i++) {
				assert_int_equal(s.v[i].kind, NOP_GI_LEAF);
				assert_true(s.v[i].no_entry);
			}
			assert_false(nop_graph_returns_only(g));
		}
		nop_graph_free(g);
	}
}

/* issue 19 #10: a call still running when the capture ends is shown on
 * its entry's CPU (it was '-1)'), marked as ended by the capture */
static void unfinished_calls_keep_their_cpu(void **state)
{
	struct nop_error err;
	struct nop_graph *g = nop_graph_new(&err);
	struct seen s = { 0 };
	struct nop_event e1 = { .type = NOP_EV_ENTRY, .pid = 7, .cpu = 1, .ts = 1000, .ip = 0x100 };
	struct nop_event e2 = { .type = NOP_EV_ENTRY, .pid = 7, .cpu = 1, .ts = 2000, .ip = 0x200, .depth = 1 };
	struct nop_resolver *res = nop_resolver_new(NULL, &err);
	struct nop_sink sink;
	char *text = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);

	assert_non_null(g);
	assert_int_equal(nop_graph_feed(g, &e1, collect, &s), 0);
	assert_int_equal(nop_graph_feed(g, &e2, collect, &s), 0);
	assert_int_equal(nop_graph_finish(g, collect, &s), 0);
	assert_int_equal(s.n, 4); /* two entries, two returns that never came */
	for (int i = 2; i < 4; i++) {
		assert_int_equal(s.v[i].kind, NOP_GI_RETURN);
		assert_false(s.v[i].timed);
		assert_true(s.v[i].at_end);
		assert_int_equal(s.v[i].cpu, 1);
	}
	nop_graph_free(g);
	/* and as the tree shows them */
	assert_int_equal(nop_sink_init(&sink, &(struct nop_sink_cfg){ .view = NOP_VIEW_LINES, .out = out,
				       .res = res, .quiet = true }, &err), 0);
	assert_non_null(g = nop_graph_new(&err));
	assert_int_equal(nop_graph_feed(g, &e1, (nop_gitem_fn)sink.ops->graph, &sink), 0);
	assert_int_equal(nop_graph_feed(g, &e2, (nop_gitem_fn)sink.ops->graph, &sink), 0);
	assert_int_equal(nop_graph_finish(g, (nop_gitem_fn)sink.ops->graph, &sink), 0);
	nop_graph_free(g);
	nop_sink_free(&sink);
	fclose(out);
	assert_null(strstr(text, "-1)"));
	assert_non_null(strstr(text, "   1) "));
	free(text);
	nop_resolver_free(res);
}


/* items kept for a test that looks at each */
struct kept {
	struct nop_gitem v[16];
	unsigned long long path0[16];
	int n;
};

static int keep_item(void *ctx, const struct nop_gitem *gi)
{
	struct kept *k = ctx;

	if (k->n < 16) {
		k->path0[k->n] = gi->npath ? gi->path[0] : 0;
		k->v[k->n++] = *gi;
	}
	return 0;
}

struct gkept {
	struct nop_gcall v[16];
	/* a call's off-CPU time, kept (nop_gcall's holds for the call only) */
	unsigned long long off[16][NOP_OFF_STATES], off_self[16][NOP_OFF_STATES];
	int n;
};

static int keep_gcall(void *ctx, const struct nop_gcall *c)
{
	struct gkept *k = ctx;

	if (k->n < 16) {
		k->v[k->n] = *c;
		for (int i = 0; i < NOP_OFF_STATES; i++) {
			k->off[k->n][i] = c->off ? c->off[i] : 0;
			k->off_self[k->n][i] = c->off_self ? c->off_self[i] : 0;
		}
		k->v[k->n].off = k->off[k->n];
		k->v[k->n].off_self = k->off_self[k->n];
		k->n++;
	}
	return 0;
}

/* issue 43: a kernel event is placed where its task is: inside its open
 * call (which then has something inside it: no leaf), at that depth; an
 * event of another task does not break a held leaf */
static void event_inside_its_call(void **state)
{
	struct nop_error err;
	struct nop_graph *g = nop_graph_new(&err);
	struct kept k = { .n = 0 };
	const unsigned long long f = 0xffffffff81000100ull, h = 0xffffffff81000200ull;
	const struct nop_event ev[] = {
		{ .type = NOP_EV_ENTRY, .pid = 1, .ts = 10, .ip = f, .depth = 0 },
		{ .type = NOP_EV_KEVENT, .pid = 1, .ts = 20, .ename = "sched:sched_switch", .args = "a=1\0{\"a\":1}\0" },
		{ .type = NOP_EV_EXIT, .pid = 1, .ts = 30, .ip = f, .depth = 0, .calltime = 10, .rettime = 30 },
		{ .type = NOP_EV_ENTRY, .pid = 1, .ts = 40, .ip = h, .depth = 0 },
		{ .type = NOP_EV_KEVENT, .pid = 2, .ts = 45, .ename = "irq:x", .args = "\0{}\0" },
		{ .type = NOP_EV_EXIT, .pid = 1, .ts = 50, .ip = h, .depth = 0, .calltime = 40, .rettime = 50 },
		{ .type = NOP_EV_KEVENT, .pid = 1, .ts = 60, .ename = "sched:sched_switch", .args = "\0{}\0" },
	};

	assert_non_null(g);
	for (size_t i = 0; i < sizeof(ev) / sizeof(ev[0]); i++)
		assert_int_equal(nop_graph_feed(g, &ev[i], keep_item, &k), 0);
	assert_int_equal(k.n, 6);
	assert_int_equal(k.v[0].kind, NOP_GI_ENTER);
	assert_int_equal(k.v[1].kind, NOP_GI_EVENT);
	assert_int_equal(k.v[1].depth, 1);
	assert_int_equal(k.v[1].npath, 1);
	assert_true(k.path0[1] == f);
	assert_string_equal(k.v[1].event, "sched:sched_switch");
	assert_int_equal(k.v[2].kind, NOP_GI_RETURN);
	assert_int_equal(k.v[3].kind, NOP_GI_EVENT); /* pid 2's, outside any call */
	assert_int_equal(k.v[3].depth, 0);
	assert_int_equal(k.v[4].kind, NOP_GI_LEAF); /* h stays a leaf */
	assert_int_equal(k.v[5].kind, NOP_GI_EVENT);
	assert_int_equal(k.v[5].npath, 0);
	assert_false(nop_gi_ends_call(&k.v[5]));
	nop_graph_free(g);
}

/* a call whose entry was not seen: when it began, on the buffer's clock.
 * The exit's time stamp is taken after its return time (rettime, the
 * kernel's clock): about 100 ns later, or ms later when the CPU stalled
 * between the two (an emulator's host busy). Its start is its rettime
 * less its duration, moved by the least lag seen (the clocks' own
 * distance), not by this exit's stall */
static void no_entry_start_not_moved_by_a_stall(void **state)
{
	struct nop_error err;
	struct nop_graph *g = nop_graph_new(&err);
	struct kept k = { .n = 0 };
	const unsigned long long f = 0xffffffff81000100ull, h = 0xffffffff81000200ull;
	const struct nop_event ev[] = {
		{ .type = NOP_EV_ENTRY, .pid = 1, .ts = 1000, .ip = f, .depth = 0 },
		{ .type = NOP_EV_EXIT, .pid = 1, .ts = 2100, .ip = f, .depth = 0, .calltime = 1000, .rettime = 2000 },
		/* h began at 500, before the capture; returned at 3000, its exit
		 * stamped 5 ms later */
		{ .type = NOP_EV_EXIT, .pid = 2, .ts = 5003000, .ip = h, .depth = 0, .calltime = 500, .rettime = 3000 },
	};

	assert_non_null(g);
	for (size_t i = 0; i < sizeof(ev) / sizeof(ev[0]); i++)
		assert_int_equal(nop_graph_feed(g, &ev[i], keep_item, &k), 0);
	assert_int_equal(k.n, 2);
	assert_true(k.v[1].no_entry);
	assert_int_equal(k.v[1].duration, 2500);
	assert_int_equal(k.v[1].began, 600); /* 500 + the 100 ns lag of f's exit */
	nop_graph_free(g);
}

/* issue 43: the time a task is switched out goes to every call it has
 * open, by the state it left in, and as its own to the innermost; the
 * summary's way gives the same */
static void off_cpu_to_open_calls(void **state)
{
	const unsigned long long a = 0xffffffff81000100ull, b = 0xffffffff81000200ull, c = 0xffffffff81000300ull;
	const struct nop_event ev[] = {
		{ .type = NOP_EV_ENTRY, .pid = 7, .ts = 10, .ip = a, .depth = 0 },
		{ .type = NOP_EV_ENTRY, .pid = 7, .ts = 20, .ip = b, .depth = 1 },
		{ .type = NOP_EV_SWITCH, .pid = 7, .ts = 100, .next = 9, .state = 2 },	 /* D */
		/* the calls that switch it, recorded under its pid after the
		 * switch's event (6.1: switch_mm_irqs_off) */
		{ .type = NOP_EV_ENTRY, .pid = 7, .ts = 105, .ip = c, .depth = 2 },
		{ .type = NOP_EV_EXIT, .pid = 7, .ts = 110, .ip = c, .depth = 2, .calltime = 105, .rettime = 110 },
		{ .type = NOP_EV_SWITCH, .pid = 9, .ts = 400, .next = 7, .state = 0 },
		{ .type = NOP_EV_EXIT, .pid = 7, .ts = 410, .ip = b, .depth = 1, .calltime = 20, .rettime = 410 },
		{ .type = NOP_EV_SWITCH, .pid = 7, .ts = 420, .next = 9, .state = 256 }, /* preempted */
		{ .type = NOP_EV_SWITCH, .pid = 9, .ts = 470, .next = 7, .state = 1 },
		{ .type = NOP_EV_EXIT, .pid = 7, .ts = 500, .ip = a, .depth = 0, .calltime = 10, .rettime = 500 },
	};

	struct nop_error err;
	struct nop_graph *g = nop_graph_new(&err);
	struct kept k = { .n = 0 };
	struct gkept gk = { .n = 0 };

	assert_non_null(g);
	for (size_t i = 0; i < sizeof(ev) / sizeof(ev[0]); i++)
		assert_int_equal(nop_graph_feed(g, &ev[i], keep_item, &k), 0);
	assert_int_equal(nop_graph_finish(g, keep_item, &k), 0);
	assert_int_equal(k.n, 5); /* a {, b {, c();, } b, } a */
	assert_int_equal(k.v[2].kind, NOP_GI_LEAF);
	assert_true(nop_off_total(k.v[2].off) == 0); /* c ran before the switch back */
	assert_int_equal(k.v[3].kind, NOP_GI_RETURN);
	assert_true(k.v[3].off[NOP_OFF_D] == 300 && nop_off_total(k.v[3].off) == 300);
	assert_true(k.v[3].off_self[NOP_OFF_D] == 300);
	assert_true(k.v[4].off[NOP_OFF_D] == 300 && k.v[4].off[NOP_OFF_R] == 50);
	assert_true(k.v[4].off_self[NOP_OFF_R] == 50 && k.v[4].off_self[NOP_OFF_D] == 0);
	nop_graph_free(g);
	/* the summary's way: b's entry is held (a leaf?) until its exit, a's
	 * is pushed and popped without items */
	assert_non_null(g = nop_graph_new(&err));
	nop_graph_summarize(g, keep_gcall, &gk);
	k.n = 0;
	for (size_t i = 0; i < sizeof(ev) / sizeof(ev[0]); i++)
		assert_int_equal(nop_graph_feed(g, &ev[i], keep_item, &k), 0);
	assert_int_equal(nop_graph_finish(g, keep_item, &k), 0);
	assert_int_equal(gk.n, 3); /* c, b and a, each a call of the table */
	for (int i = 0; i < gk.n; i++)
		assert_true(gk.v[i].func == a ? gk.v[i].off[NOP_OFF_D] == 300 && gk.v[i].off_self[NOP_OFF_R] == 50
			    : gk.v[i].func == b ? gk.v[i].off_self[NOP_OFF_D] == 300 : nop_off_total(gk.v[i].off) == 0);
	nop_graph_free(g);
}

/* issue 54 #8: a switch back the kernel did not record. Seen on another
 * CPU than it left, the task came back before that event: the time up to
 * it is credited; left again without a switch back, the time between is
 * not known: nothing credited. Both are counted, never silent. */
static void off_cpu_unpaired_switch(void **state)
{
	const unsigned long long a = 0xffffffff81000100ull, b = 0xffffffff81000200ull, c = 0xffffffff81000300ull;
	const struct nop_event ev[] = {
		{ .type = NOP_EV_ENTRY, .pid = 7, .cpu = 0, .ts = 10, .ip = a, .depth = 0 },
		{ .type = NOP_EV_ENTRY, .pid = 7, .cpu = 0, .ts = 20, .ip = b, .depth = 1 },
		{ .type = NOP_EV_SWITCH, .pid = 7, .cpu = 0, .ts = 100, .next = 9, .state = 1 },
		/* the calls that switch it, on the CPU it leaves */
		{ .type = NOP_EV_ENTRY, .pid = 7, .cpu = 0, .ts = 105, .ip = c, .depth = 2 },
		{ .type = NOP_EV_EXIT, .pid = 7, .cpu = 0, .ts = 110, .ip = c, .depth = 2, .calltime = 105, .rettime = 110 },
		/* no switch back recorded: b's exit on CPU 1 proves it */
		{ .type = NOP_EV_EXIT, .pid = 7, .cpu = 1, .ts = 400, .ip = b, .depth = 1, .calltime = 20, .rettime = 400 },
		{ .type = NOP_EV_SWITCH, .pid = 7, .cpu = 1, .ts = 420, .next = 9, .state = 1 },
		/* none again, on the same CPU: its next switch out proves it */
		{ .type = NOP_EV_SWITCH, .pid = 7, .cpu = 1, .ts = 600, .next = 9, .state = 1 },
		{ .type = NOP_EV_SWITCH, .pid = 9, .cpu = 1, .ts = 650, .next = 7, .state = 0 },
		{ .type = NOP_EV_EXIT, .pid = 7, .cpu = 1, .ts = 700, .ip = a, .depth = 0, .calltime = 10, .rettime = 700 },
	};
	struct nop_error err;
	struct nop_graph *g = nop_graph_new(&err);
	struct kept k = { .n = 0 };

	assert_non_null(g);
	for (size_t i = 0; i < sizeof(ev) / sizeof(ev[0]); i++)
		assert_int_equal(nop_graph_feed(g, &ev[i], keep_item, &k), 0);
	assert_int_equal(nop_graph_finish(g, keep_item, &k), 0);
	assert_int_equal(nop_graph_unpaired(g), 2);
	assert_int_equal(nop_graph_unpaired_out(g), 0);
	assert_int_equal(k.n, 5); /* a {, b {, c();, } b, } a */
	assert_true(k.v[3].kind == NOP_GI_RETURN && k.v[3].func == b);
	assert_true(k.v[3].off[NOP_OFF_S] == 300 && k.v[3].off_self[NOP_OFF_S] == 300);
	assert_true(k.v[4].kind == NOP_GI_RETURN && k.v[4].func == a);
	assert_true(k.v[4].off[NOP_OFF_S] == 350 && k.v[4].off_self[NOP_OFF_S] == 50);
	nop_graph_free(g);
}

/* issue 54 #8: a switch out the kernel did not record. The task ran at
 * least up to its last event on the CPU it was switched in on; the proof
 * it left is (a) its switch in elsewhere, (b) another task leaving that
 * CPU, (c) its own event on another CPU. Its time off is counted from its
 * last event there (in the state not known: ?), and the interval counted
 * (in (c) its switch back was not recorded either: counted as such). */
/* pid 7 switched in on CPU 0 at 5, a's entry there at 10 and b's at 20,
 * its switch out lost; after the proof, b's exit at 400 and a's at 500
 * on cpu */
#define LOST_OUT_BEFORE                                                                \
	{ .type = NOP_EV_SWITCH, .pid = 9, .cpu = 0, .ts = 5, .next = 7, .state = 1 }, \
	{ .type = NOP_EV_ENTRY, .pid = 7, .cpu = 0, .ts = 10, .ip = 0xa0, .depth = 0 }, \
	{ .type = NOP_EV_ENTRY, .pid = 7, .cpu = 0, .ts = 20, .ip = 0xb0, .depth = 1 }
#define LOST_OUT_AFTER(c)                                                                           \
	{ .type = NOP_EV_EXIT, .pid = 7, .cpu = c, .ts = 400, .ip = 0xb0, .depth = 1, .calltime = 20, \
	  .rettime = 400 },                                                                           \
	{ .type = NOP_EV_EXIT, .pid = 7, .cpu = c, .ts = 500, .ip = 0xa0, .depth = 0, .calltime = 10, \
	  .rettime = 500 }
#define SWITCH(from, c, t, to) { .type = NOP_EV_SWITCH, .pid = from, .cpu = c, .ts = t, .next = to }
#define N_EV(ev) (sizeof(ev) / sizeof((ev)[0]))

/* ev fed to a new graph, its items to k: its off-CPU intervals without a
 * switch out and without a switch back */
static void fed_unpaired(const struct nop_event *ev, size_t n, struct kept *k, unsigned long long unpaired_out,
			 unsigned long long unpaired)
{
	struct nop_error err;
	struct nop_graph *g = nop_graph_new(&err);

	assert_non_null(g);
	for (size_t i = 0; i < n; i++)
		assert_int_equal(nop_graph_feed(g, &ev[i], keep_item, k), 0);
	assert_int_equal(nop_graph_finish(g, keep_item, k), 0);
	assert_int_equal(nop_graph_unpaired_out(g), unpaired_out);
	assert_int_equal(nop_graph_unpaired(g), unpaired);
	nop_graph_free(g);
}

/* fed_unpaired, then the leaf b (k->v[1]) off for off ns (unknown ns
 * of them in state ?), its own, and a (v[2]) the same, none its own */
static void lost_out_credited(const struct nop_event *ev, size_t n, unsigned long long unpaired_out,
			      unsigned long long unpaired, unsigned long long unknown, unsigned long long off)
{
	struct kept k = { .n = 0 };

	fed_unpaired(ev, n, &k, unpaired_out, unpaired);
	assert_int_equal(k.n, 3); /* a {, b();, } a */
	assert_true(k.v[1].kind == NOP_GI_LEAF && k.v[1].func == 0xb0);
	assert_true(k.v[1].off[NOP_OFF_OTHER] == unknown && nop_off_total(k.v[1].off) == off);
	assert_true(nop_off_total(k.v[1].off_self) == off);
	assert_true(k.v[2].kind == NOP_GI_RETURN && k.v[2].func == 0xa0);
	assert_true(k.v[2].off[NOP_OFF_OTHER] == unknown && nop_off_total(k.v[2].off) == off);
	assert_true(nop_off_total(k.v[2].off_self) == 0);
}

/* (a) switched in again with no switch out: off from 20 to 300 */
static void off_cpu_lost_switch_out_switched_in(void **state)
{
	const struct nop_event other_cpu[] = { LOST_OUT_BEFORE, SWITCH(8, 1, 300, 7), LOST_OUT_AFTER(1) };
	/* on CPU 0: 8 leaving it proves it as well, counted once */
	const struct nop_event same_cpu[] = { LOST_OUT_BEFORE, SWITCH(8, 0, 300, 7), LOST_OUT_AFTER(0) };

	lost_out_credited(other_cpu, N_EV(other_cpu), 1, 0, 280, 280);
	lost_out_credited(same_cpu, N_EV(same_cpu), 1, 0, 280, 280);
}

/* (b) another task (8; the idle task) leaves CPU 0 at 200 while 7 was
 * believed on it; 7 is switched back in at 300: off from 20 to 300 */
static void off_cpu_lost_switch_out_other_task_leaves(void **state)
{
	const struct nop_event other[] = { LOST_OUT_BEFORE, SWITCH(8, 0, 200, 9), SWITCH(9, 0, 300, 7),
					   LOST_OUT_AFTER(0) };
	const struct nop_event idle[] = { LOST_OUT_BEFORE, SWITCH(0, 0, 200, 9), SWITCH(9, 0, 300, 7),
					  LOST_OUT_AFTER(0) };

	lost_out_credited(other, N_EV(other), 1, 0, 280, 280);
	lost_out_credited(idle, N_EV(idle), 1, 0, 280, 280);
}

/* (c) b's exit on CPU 1 while 7 was on CPU 0: neither its switch out nor
 * its switch in recorded, off from 20 to 400; the same when what shows it
 * on CPU 1 is its switch out there: off from 20 to 350, then (preempted)
 * from 350 to 390 */
static void off_cpu_lost_switch_out_seen_elsewhere(void **state)
{
	const struct nop_event ev[] = { LOST_OUT_BEFORE, LOST_OUT_AFTER(1) };
	const struct nop_event by_switch[] = { LOST_OUT_BEFORE, SWITCH(7, 1, 350, 9) /* R */, SWITCH(9, 1, 390, 7),
					       LOST_OUT_AFTER(1) };

	lost_out_credited(ev, N_EV(ev), 1, 1, 380, 380);
	lost_out_credited(by_switch, N_EV(by_switch), 1, 1, 330, 370);
}

/* every switch recorded: a task that left CPU 0 (its calls that switch
 * it recorded there after) and came back on CPU 1, the idle task between
 * on CPU 0: nothing unpaired, its time off exact */
static void off_cpu_migration_paired(void **state)
{
	const struct nop_event ev[] = {
		LOST_OUT_BEFORE,
		{ .type = NOP_EV_SWITCH, .pid = 7, .cpu = 0, .ts = 100, .next = 0, .state = 1 },
		{ .type = NOP_EV_ENTRY, .pid = 7, .cpu = 0, .ts = 105, .ip = 0xc0, .depth = 2 },
		{ .type = NOP_EV_EXIT, .pid = 7, .cpu = 0, .ts = 110, .ip = 0xc0, .depth = 2, .calltime = 105,
		  .rettime = 110 },
		SWITCH(0, 0, 200, 9), SWITCH(8, 1, 300, 7), LOST_OUT_AFTER(1),
	};
	struct kept k = { .n = 0 };

	fed_unpaired(ev, N_EV(ev), &k, 0, 0);
	assert_int_equal(k.n, 5); /* a {, b {, c();, } b, } a */
	assert_true(k.v[3].off[NOP_OFF_S] == 200 && nop_off_total(k.v[3].off) == 200);
	assert_true(k.v[4].off[NOP_OFF_S] == 200 && nop_off_total(k.v[4].off) == 200);
}

/* 6.1 under a pid filter records the calls another task (8) makes in its
 * half of a switch to a traced one, and only those of its switches that
 * a traced task is in: it is never judged (its switches are not all
 * recorded by design), where its double switch out counted one */
static void off_cpu_other_task_half_not_judged(void **state)
{
#define HALF(c, t) { .type = NOP_EV_ENTRY, .pid = 8, .cpu = c, .ts = t, .ip = 0xd0, .depth = 3 }
	const struct nop_event ev[] = {
		LOST_OUT_BEFORE, SWITCH(7, 0, 100, 8), SWITCH(8, 0, 200, 7), HALF(0, 201),
		/* switched in from traced 6 on CPU 1, out unrecorded, 5 leaves */
		SWITCH(6, 1, 300, 8), SWITCH(5, 1, 400, 6),
		/* back on CPU 0 from 9 (unrecorded) twice: a double switch out */
		SWITCH(7, 0, 450, 9), SWITCH(8, 0, 500, 7), HALF(0, 501), SWITCH(7, 0, 550, 9),
		SWITCH(8, 0, 600, 7), HALF(0, 601),
	};
#undef HALF
	struct kept k = { .n = 0 };

	fed_unpaired(ev, N_EV(ev), &k, 0, 0);
}

/* --- why: where a failed tree's error began (origin.c) --- */

/* a tree written as "name=value" calls: '(' opens the last call's
 * callees, ')' closes them; a name without '=' returned nothing known */
struct otree {
	struct nop_gitem v[64];
	size_t n;
};

static void otree_parse(struct otree *t, const char *s)
{
	unsigned long long open[16];
	int depth = 0;

	t->n = 0;
	while (*s) {
		if (*s == ' ') {
			s++;
			continue;
		}
		if (*s == '(') { /* the last call has callees: its LEAF becomes an ENTER */
			struct nop_gitem *g = &t->v[t->n - 1];

			g->kind = NOP_GI_ENTER;
			open[depth++] = t->n - 1;
			s++;
			continue;
		}
		if (*s == ')') {
			struct nop_gitem *e = &t->v[open[--depth]], *r = &t->v[t->n++];

			*r = *e;
			r->kind = NOP_GI_RETURN;
			s++;
		} else {
			struct nop_gitem *g = &t->v[t->n++];

			memset(g, 0, sizeof(*g));
			g->kind = NOP_GI_LEAF;
			g->depth = depth;
			g->func = (unsigned long long)(unsigned char)*s++; /* one letter a function */
		}
		if (*s == '=') { /* the value of the call just ended */
			char *stop;

			t->v[t->n - 1].retval = strtoll(s + 1, &stop, 10);
			t->v[t->n - 1].has_retval = true;
			s = stop;
		}
	}
}

static bool negative(void *ctx, const struct nop_gitem *g)
{
	(void)ctx;
	return g->has_retval && g->retval < 0;
}

/* the chain's functions, root first, as letters */
static const char *origin_of(const char *tree)
{
	static char out[32];
	static struct otree t;
	struct nop_origin_link chain[64];
	size_t n = 0;
	int r;

	otree_parse(&t, tree);
	r = nop_origin_find(t.v, t.n, sizeof(t.v[0]), negative, NULL, chain, &n);
	assert_true(r >= 0);
	for (size_t i = 0; i < n; i++) {
		assert_int_equal(t.v[chain[i].end].func, t.v[chain[i].start].func);
		out[i] = (char)t.v[chain[i].start].func;
	}
	out[n] = 0;
	return r ? out : "-";
}

static void origin_chains(void **state)
{
	(void)state;
	assert_string_equal(origin_of("r=0"), "-");			/* no failure */
	assert_string_equal(origin_of("r=-1"), "r");			/* the root itself */
	assert_string_equal(origin_of("r( a=-2 )=-2"), "ra");		/* one down, unchanged */
	assert_string_equal(origin_of("r( m( l=-3 )=-3 )=-3"), "rml");	/* two down */
	assert_string_equal(origin_of("r( a=-2 )=-5"), "ra");		/* translated */
	/* a failure handled, then another passed up */
	assert_string_equal(origin_of("r( t=-1 h=-6 )=-6"), "rh");
	/* two failed the same way: the last passed it up */
	assert_string_equal(origin_of("r( a=-1 b=-1 )=-1"), "rb");
	/* none with the root's value: the last that failed, translated */
	assert_string_equal(origin_of("r( a=-1 b=-2 c=0 )=-9"), "rb");
	/* callees that succeeded are no origin */
	assert_string_equal(origin_of("r( z=0 p=3 b=-15 )=-15"), "rb");
	/* a failed callee's callees: its own origin below */
	assert_string_equal(origin_of("r( m( o=1 b=-16 )=-16 )=-16"), "rmb");
	/* recursion */
	assert_string_equal(origin_of("r( c( c( c=-4 )=-4 )=-4 )=-4"), "rccc");
	/* a callee that failed, the root failing with no value below it: the
	 * callee (translated) */
	assert_string_equal(origin_of("r( a=-1 )=-1 "), "ra");
	/* a callee whose value is not known is no origin */
	assert_string_equal(origin_of("r( a )=-1"), "r");
	/* the root did not end in the tree */
	assert_string_equal(origin_of("r( a=-1"), "-");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(no_entry_start_not_moved_by_a_stall), cmocka_unit_test(off_cpu_unpaired_switch),
		cmocka_unit_test(off_cpu_lost_switch_out_switched_in),
		cmocka_unit_test(off_cpu_lost_switch_out_other_task_leaves),
		cmocka_unit_test(off_cpu_lost_switch_out_seen_elsewhere),
		cmocka_unit_test(off_cpu_migration_paired),
		cmocka_unit_test(off_cpu_other_task_half_not_judged),
		cmocka_unit_test(clean_capture_nests),	 cmocka_unit_test(folded_sums_to_roots),
		cmocka_unit_test(dot_renders),		 cmocka_unit_test(chrome_and_json_parse),
		cmocka_unit_test(starts_in_the_middle), cmocka_unit_test(lost_pages_do_not_misnest),
		cmocka_unit_test(stats_table),		 cmocka_unit_test(many_tasks_bounded),
		cmocka_unit_test(summary_makes_the_same_table),
		cmocka_unit_test(summary_leaves_the_odd_events_to_items),
		cmocka_unit_test(interrupt_in_a_return_nests),
		cmocka_unit_test(threshold_returns_nest), cmocka_unit_test(unfinished_calls_keep_their_cpu),
		cmocka_unit_test(recording_of_returns_found),
		cmocka_unit_test(event_inside_its_call), cmocka_unit_test(off_cpu_to_open_calls),
		cmocka_unit_test(origin_chains),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
