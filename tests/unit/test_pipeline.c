/* test_pipeline.c - kernel probes' values joined to their calls
 * (probejoin.c), in the orders the kernels write them (seen in the VM:
 * trace-cmd report of nopctl's recordings, quoted in probejoin.c); the
 * --errors filter (errfilter.c); arguments formatted from an fprobe
 * event's format recorded from 6.12. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <traceevent/event-parse.h>

#include "../../lib/internal.h"

/* functions by address: 0x100 F (probed: return and arguments), 0x200
 * its parent P, 0x300 a callee G, 0x400 kretprobe_rethook_handler, 0x500
 * strnlen_user_nofault and 0x600 strncpy_from_user_nofault (the fprobe's
 * fetch), 0x700 __kretprobe_trampoline */
static const char *name_of(void *ctx, unsigned long long a)
{
	switch (a) {
	case 0x100: case 0x104: return "F";
	case 0x200: return "P";
	case 0x300: return "G";
	case 0x400: return "kretprobe_rethook_handler";
	case 0x500: return "strnlen_user_nofault";
	case 0x600: return "strncpy_from_user_nofault";
	case 0x700: return "__kretprobe_trampoline";
	default: return NULL;
	}
}

struct got {
	struct nop_event ev[512];
	char args[512][128], json[512][128];
	int n;
	unsigned long long missing, unclaimed; /* the join's own count */
};

static int collect(void *ctx, const struct nop_event *ev)
{
	struct got *g = ctx;

	g->ev[g->n] = *ev;
	if (ev->args) { /* theirs: kept only as long as the join needs them */
		snprintf(g->args[g->n], sizeof(g->args[0]), "%s", ev->args);
		snprintf(g->json[g->n], sizeof(g->json[0]), "%s", ev->args + strlen(ev->args) + 1);
	}
	g->n++;
	return 0;
}

static struct nop_uprobes probes(void)
{
	static struct nop_uprobe v[2] = {
		{ .kind = NOP_PROBE_KRETPROBE, .sym = "F" }, { .kind = NOP_PROBE_FARGS, .sym = "F" },
	};

	return (struct nop_uprobes){ .v = v, .n = 2 };
}

#define ENT(a, d) (struct nop_event){ .type = NOP_EV_ENTRY, .pid = 7, .ip = (a), .depth = (d) }
#define EXI(a, d) (struct nop_event){ .type = NOP_EV_EXIT, .pid = 7, .ip = (a), .depth = (d) }
#define RET(a, v) (struct nop_event){ .type = NOP_EV_RETVAL, .pid = 7, .ip = (a), .retval = (v) }
#define ARG(a, s) (struct nop_event){ .type = NOP_EV_ARGS, .pid = 7, .ip = (a), .args = (s) }

/* the return probe alone (--retval), or with the arguments' (--args) */
static void feed_probes(bool graph, bool args, const struct nop_event *in, int n, struct got *g)
{
	struct nop_uprobes u = probes();
	struct nop_join *j;

	u.n = args ? 2 : 1;
	j = nop_join_new(&u, graph, name_of, NULL);
	assert_non_null(j);
	memset(g, 0, sizeof(*g));
	for (int i = 0; i < n; i++)
		assert_int_equal(nop_join_event(j, &in[i], collect, g), 0);
	assert_int_equal(nop_join_finish(j, collect, g), 0);
	nop_join_misses(j, &g->missing, &g->unclaimed);
	nop_join_free(j);
}

static void feed(bool graph, const struct nop_event *in, int n, struct got *g)
{
	feed_probes(graph, true, in, n, g);
}

static void return_value_either_side(void **state)
{
	/* 6.12's fprobe exit beside function_graph's exit, either order; the
	 * kprobe names the symbol (0x100), function_graph the patch site */
	const struct nop_event after[] = { ENT(0x104, 0), EXI(0x104, 0), RET(0x100, -2) };
	const struct nop_event before[] = { ENT(0x104, 0), RET(0x100, 3), EXI(0x104, 0) };
	struct got g;

	feed_probes(true, false, after, 3, &g);
	assert_int_equal(g.n, 2);
	assert_true(g.ev[1].type == NOP_EV_EXIT && g.ev[1].has_retval && g.ev[1].retval == -2);
	assert_true(g.missing == 0 && g.unclaimed == 0);
	feed_probes(true, false, before, 3, &g);
	assert_int_equal(g.n, 2);
	assert_true(g.ev[1].has_retval && g.ev[1].retval == 3);
	assert_true(g.missing == 0 && g.unclaimed == 0);
}

static void kretprobe_handler_between(void **state)
{
	/* 6.1: F returns, the rethook handler (traced) writes F's value */
	const struct nop_event in[] = {
		ENT(0x200, 0), ENT(0x100, 1), ENT(0x300, 2), EXI(0x300, 2), EXI(0x100, 1),
		ENT(0x400, 1), ENT(0x300, 2), RET(0x100, -2), EXI(0x300, 2), EXI(0x400, 1), EXI(0x200, 0),
	};
	struct got g;

	feed(true, in, (int)ARRAY_SIZE(in), &g);
	assert_int_equal(g.n, 6); /* P, F, G, G, F with -2, P: the handler's left out */
	assert_true(g.ev[4].type == NOP_EV_EXIT && g.ev[4].ip == 0x100 && g.ev[4].has_retval &&
		    g.ev[4].retval == -2);
	assert_true(g.ev[5].type == NOP_EV_EXIT && g.ev[5].ip == 0x200 && !g.ev[5].has_retval);
}

static void arguments_after_the_fetch(void **state)
{
	/* 6.12: F's entry, the probe's measure of a string (traced), the
	 * arguments' event, the probe's copy of the string (traced), then F's
	 * own callees */
	const struct nop_event in[] = {
		ENT(0x100, 0), ENT(0x500, 1), EXI(0x500, 1), ARG(0x100, "dfd=-100\0{\"dfd\":-100}"),
		ENT(0x600, 1), ENT(0x300, 2), EXI(0x300, 2), EXI(0x600, 1),
		ENT(0x300, 1), EXI(0x300, 1), EXI(0x100, 0), RET(0x100, 4),
	};
	struct got g;

	feed(true, in, (int)ARRAY_SIZE(in), &g);
	assert_int_equal(g.n, 4);
	assert_true(g.ev[0].type == NOP_EV_ENTRY && g.ev[0].args);
	assert_string_equal(g.args[0], "dfd=-100");
	assert_string_equal(g.json[0], "{\"dfd\":-100}");
	assert_true(g.ev[1].ip == 0x300 && g.ev[2].ip == 0x300);
	assert_true(g.ev[3].ip == 0x100 && g.ev[3].has_retval && g.ev[3].retval == 4);
}

#define HIT(a, from) (struct nop_event){ .type = NOP_EV_FUNC, .pid = 7, .ip = (a), .parent_ip = (from) }

static void hit_caller_from_its_return_probe(void **state)
{
	/* arm64 (kprobes not on ftrace): F's hit says the return probe's
	 * trampoline called it; its return probe's event has the address F
	 * returned to (in P). G's hit came between, and the value of a
	 * second F, called from the trampoline too, closes its own */
	struct nop_event ret1 = RET(0x100, 3), ret2 = RET(0x100, -2);
	struct nop_event in[] = { HIT(0x100, 0x700), HIT(0x300, 0x104), ret1, HIT(0x100, 0x700), ret2 };
	/* x86-64: the hit's parent is already its caller: nothing waits */
	const struct nop_event x86[] = { HIT(0x100, 0x208), HIT(0x300, 0x104), RET(0x100, 3) };
	struct got g;

	in[2].ucaller = 0x208;
	in[4].ucaller = 0x20c;
	feed_probes(false, false, in, (int)ARRAY_SIZE(in), &g);
	assert_int_equal(g.n, 5);
	assert_true(g.ev[0].type == NOP_EV_FUNC && g.ev[0].ip == 0x100 && g.ev[0].parent_ip == 0x208);
	assert_true(g.ev[1].type == NOP_EV_FUNC && g.ev[1].ip == 0x300 && g.ev[1].parent_ip == 0x104);
	assert_true(g.ev[2].type == NOP_EV_RETVAL && g.ev[2].retval == 3);
	assert_true(g.ev[3].type == NOP_EV_FUNC && g.ev[3].parent_ip == 0x20c);
	assert_true(g.ev[4].type == NOP_EV_RETVAL && g.ev[4].retval == -2);
	assert_true(g.missing == 0 && g.unclaimed == 0);
	feed_probes(false, false, x86, (int)ARRAY_SIZE(x86), &g);
	assert_int_equal(g.n, 3);
	assert_true(g.ev[0].parent_ip == 0x208 && g.ev[1].ip == 0x300 && g.ev[2].type == NOP_EV_RETVAL);
}

static void never_another_calls_value(void **state)
{
	/* F's exit waits; F is called again before any value: the first
	 * goes on without one, the second gets its own */
	const struct nop_event again[] = {
		ENT(0x100, 1), EXI(0x100, 1), ENT(0x100, 1), EXI(0x100, 1), RET(0x100, 5),
	};
	/* a value whose call function_graph did not show: not the next call's */
	const struct nop_event stale[] = { RET(0x100, -13), ENT(0x100, 0), EXI(0x100, 0) };
	/* the caller returns: the wait ends, order kept */
	const struct nop_event parent[] = { ENT(0x200, 0), ENT(0x100, 1), EXI(0x100, 1), EXI(0x200, 0) };
	struct got g;

	/* each counted: the call without its value, the value without a call
	 * (the summary tells a probe that missed from a join that failed) */
	feed_probes(true, false, again, (int)ARRAY_SIZE(again), &g);
	assert_int_equal(g.n, 4);
	assert_false(g.ev[1].has_retval);
	assert_true(g.ev[3].has_retval && g.ev[3].retval == 5);
	assert_true(g.missing == 1 && g.unclaimed == 0);
	feed_probes(true, false, stale, (int)ARRAY_SIZE(stale), &g);
	assert_int_equal(g.n, 2);
	assert_false(g.ev[1].has_retval);
	assert_true(g.missing == 1 && g.unclaimed == 1);
	feed_probes(true, false, parent, (int)ARRAY_SIZE(parent), &g);
	assert_int_equal(g.n, 4);
	assert_true(g.ev[2].ip == 0x100 && !g.ev[2].has_retval && g.ev[3].ip == 0x200);
	assert_true(g.missing == 1 && g.unclaimed == 0);
}

static void arguments_of_each_call(void **state)
{
	/* 6.19: the arguments' event first; each call keeps its own, also
	 * after the next call's came (a task's CPUs reach the engine out of
	 * order) */
	const struct nop_event in[] = {
		ARG(0x100, "a=1\0{}"), ENT(0x100, 0), EXI(0x100, 0), RET(0x100, 3),
		ARG(0x100, "a=2\0{}"), ENT(0x100, 0), RET(0x100, -2), EXI(0x100, 0),
	};
	struct nop_uprobes u = probes();
	struct nop_join *j = nop_join_new(&u, true, name_of, NULL);
	struct got g = { .n = 0 };

	for (size_t i = 0; i < ARRAY_SIZE(in); i++)
		assert_int_equal(nop_join_event(j, &in[i], collect, &g), 0);
	assert_int_equal(g.n, 4);
	assert_string_equal(g.ev[0].args, "a=1"); /* still there: not overwritten by a=2 */
	assert_string_equal(g.ev[2].args, "a=2");
	assert_true(g.ev[1].retval == 3 && g.ev[3].retval == -2);
	nop_join_free(j);
}

/* an interrupt's calls, recorded as the task's between a probe's event
 * and its call's (6.19: more than 64 of them, CI): n whole calls at depth d */
static int interrupt(struct nop_event *in, int d, int n)
{
	for (int i = 0; i < n; i++) {
		in[2 * i] = ENT(0x300, d);
		in[2 * i + 1] = EXI(0x300, d);
	}
	return 2 * n;
}

static void an_interrupt_between(void **state)
{
	struct nop_event in[256];
	struct got *g = malloc(sizeof(*g));
	int n;

	assert_non_null(g);
	/* 6.19: the arguments' event, the interrupt, F's entry */
	n = 0;
	in[n++] = ARG(0x100, "a=1\0{}");
	n += interrupt(in + n, 1, 100);
	in[n++] = ENT(0x100, 0);
	in[n++] = EXI(0x100, 0);
	in[n++] = RET(0x100, 3);
	feed_probes(true, true, in, n, g);
	assert_int_equal(g->n, 202);
	assert_true(g->ev[200].type == NOP_EV_ENTRY && g->ev[200].ip == 0x100);
	assert_string_equal(g->args[200], "a=1");
	assert_true(g->missing == 0 && g->unclaimed == 0);
	/* 6.12: F's entry, the interrupt, the arguments' event */
	n = 0;
	in[n++] = ENT(0x100, 0);
	n += interrupt(in + n, 1, 100);
	in[n++] = ARG(0x100, "a=2\0{}");
	in[n++] = EXI(0x100, 0);
	in[n++] = RET(0x100, 3);
	feed_probes(true, true, in, n, g);
	assert_int_equal(g->n, 202);
	assert_true(g->ev[0].type == NOP_EV_ENTRY && g->ev[0].ip == 0x100);
	assert_string_equal(g->args[0], "a=2");
	assert_true(g->ev[1].ip == 0x300 && g->ev[200].ip == 0x300 && g->ev[201].ip == 0x100);
	assert_true(g->missing == 0 && g->unclaimed == 0);
	/* 6.1: F returns, the interrupt, then its return hook's value */
	n = 0;
	in[n++] = ENT(0x200, 0);
	in[n++] = ENT(0x100, 1);
	in[n++] = EXI(0x100, 1);
	n += interrupt(in + n, 1, 100);
	in[n++] = RET(0x100, -2);
	in[n++] = EXI(0x200, 0);
	feed_probes(true, false, in, n, g);
	assert_int_equal(g->n, 204);
	assert_true(g->ev[2].type == NOP_EV_EXIT && g->ev[2].ip == 0x100 && g->ev[2].has_retval &&
		    g->ev[2].retval == -2);
	assert_true(g->missing == 0 && g->unclaimed == 0);
	/* but a value whose task returned before its call came is not the
	 * next call's: both counted, the call without and the value unclaimed */
	n = 0;
	in[n++] = ARG(0x100, "a=3\0{}");
	in[n++] = EXI(0x200, 0);
	in[n++] = ENT(0x100, 0);
	in[n++] = EXI(0x100, 0);
	in[n++] = RET(0x100, 3);
	feed_probes(true, true, in, n, g);
	assert_int_equal(g->n, 3);
	assert_null(g->ev[1].args);
	assert_true(g->missing == 1 && g->unclaimed == 1);
	free(g);
}

static void trace_returns_are_lines(void **state)
{
	const struct nop_event in[] = { { .type = NOP_EV_FUNC, .pid = 7, .ip = 0x300 }, RET(0x100, -2) };
	struct got g;

	feed(false, in, 2, &g);
	assert_int_equal(g.n, 2);
	assert_int_equal(g.ev[1].type, NOP_EV_RETVAL);
}

/* --errors: items of one task's tree */
static int keep_item(void *ctx, const struct nop_gitem *gi)
{
	struct got *g = ctx;

	g->ev[g->n].ip = gi->func;
	g->ev[g->n].depth = gi->depth;
	g->ev[g->n++].type = (enum nop_ev_type)gi->kind;
	return 0;
}

/* the items in, each with path as its path, to the end; what went on in g */
static void feed_errf(struct nop_errf *e, const struct nop_gitem *in, size_t n,
		      const unsigned long long *path, struct got *g)
{
	assert_non_null(e);
	for (size_t i = 0; i < n; i++) {
		struct nop_gitem gi = in[i];

		gi.path = path;
		assert_int_equal(nop_errf_item(e, &gi, keep_item, g), 0);
	}
	assert_int_equal(nop_errf_finish(e, keep_item, g), 0);
}

static void errors_keep_the_path(void **state)
{
	unsigned long long path[3] = { 0x200, 0x100, 0x300 };
	const struct nop_gitem in[] = {
		{ .kind = NOP_GI_ENTER, .func = 0x200, .depth = 0, .npath = 1 },
		{ .kind = NOP_GI_LEAF, .func = 0x300, .depth = 1, .npath = 2, .has_retval = true, .retval = 0 },
		{ .kind = NOP_GI_ENTER, .func = 0x100, .depth = 1, .npath = 2 },
		{ .kind = NOP_GI_LEAF, .func = 0x300, .depth = 2, .npath = 3 },
		{ .kind = NOP_GI_RETURN, .func = 0x100, .depth = 1, .npath = 2, .has_retval = true, .retval = -2 },
		{ .kind = NOP_GI_RETURN, .func = 0x200, .depth = 0, .npath = 1 },
		/* a tree that did not fail: nothing of it */
		{ .kind = NOP_GI_LEAF, .func = 0x100, .depth = 0, .npath = 1, .has_retval = true, .retval = 3 },
	};
	struct nop_errf *e = nop_errf_new(false, 0, true);
	struct got g = { .n = 0 };

	feed_errf(e, in, ARRAY_SIZE(in), path, &g);
	nop_errf_free(e);
	/* P {, F {, } F = -2, } P: the successful leaf, F's callee, the other tree gone */
	assert_int_equal(g.n, 4);
	assert_true(g.ev[0].ip == 0x200 && g.ev[1].ip == 0x100 && g.ev[2].ip == 0x100 && g.ev[3].ip == 0x200);
	assert_int_equal(g.ev[2].type, NOP_GI_RETURN);
}

/* why: of a failed tree only the chain down to its origin, then the
 * ORIGIN item; a kernel callee with no value seen: maybe below */
static void why_passes_the_chain_and_its_origin(void **state)
{
	unsigned long long path[3] = { 0x200, 0x100, 0x300 };
	const struct nop_gitem in[] = {
		{ .kind = NOP_GI_ENTER, .func = 0x200, .depth = 0, .npath = 1 },
		{ .kind = NOP_GI_LEAF, .func = 0x300, .depth = 1, .npath = 2, .has_retval = true, .retval = 0 },
		{ .kind = NOP_GI_ENTER, .func = 0x100, .depth = 1, .npath = 2 },
		{ .kind = NOP_GI_LEAF, .func = 0x300, .depth = 2, .npath = 3 }, /* no value: a kernel function unprobed */
		{ .kind = NOP_GI_RETURN, .func = 0x100, .depth = 1, .npath = 2, .has_retval = true, .retval = -2 },
		{ .kind = NOP_GI_RETURN, .func = 0x200, .depth = 0, .npath = 1, .has_retval = true, .retval = -5 },
	};
	struct nop_errf *e = nop_errf_new(false, 0, false);
	struct got g = { .n = 0 };

	nop_errf_why(e);
	feed_errf(e, in, ARRAY_SIZE(in), path, &g);
	nop_errf_free(e);
	/* P {, F {, } F = -2, } P = -5, then the origin: F */
	assert_int_equal(g.n, 5);
	assert_true(g.ev[0].ip == 0x200 && g.ev[1].ip == 0x100 && g.ev[2].ip == 0x100 && g.ev[3].ip == 0x200);
	assert_int_equal(g.ev[4].type, NOP_GI_ORIGIN);
	assert_int_equal(g.ev[4].ip, 0x100);
	assert_int_equal(g.ev[4].depth, 0);
}

/* catch (issue 42): a tree goes on whole when its root was slow or
 * failed, nothing of the others; a tree the capture cut short (no
 * return at depth 0) is not a root call that ended */
static void catch_keeps_whole_trees(void **state)
{
	unsigned long long path[2] = { 0x200, 0x300 };
	const struct nop_gitem in[] = {
		/* fast: dropped */
		{ .kind = NOP_GI_ENTER, .func = 0x200, .depth = 0, .npath = 1 },
		{ .kind = NOP_GI_LEAF, .func = 0x300, .depth = 1, .npath = 2, .timed = true, .duration = 10 },
		{ .kind = NOP_GI_RETURN, .func = 0x200, .depth = 0, .npath = 1, .timed = true, .duration = 20 },
		/* slow: whole */
		{ .kind = NOP_GI_ENTER, .func = 0x200, .depth = 0, .npath = 1 },
		{ .kind = NOP_GI_LEAF, .func = 0x300, .depth = 1, .npath = 2, .timed = true, .duration = 5 },
		{ .kind = NOP_GI_RETURN, .func = 0x200, .depth = 0, .npath = 1, .timed = true, .duration = 5000 },
		/* fast but failed: whole with errors asked */
		{ .kind = NOP_GI_LEAF, .func = 0x200, .depth = 0, .npath = 1, .timed = true, .duration = 7,
		  .has_retval = true, .retval = -5 },
		/* cut short by the end of the capture */
		{ .kind = NOP_GI_ENTER, .func = 0x200, .depth = 0, .npath = 1 },
	};
	unsigned long long roots, caught;

	for (int errors = 0; errors < 2; errors++) {
		struct nop_errf *e = nop_errf_new(true, 1000, errors);
		struct got g = { .n = 0 };

		feed_errf(e, in, ARRAY_SIZE(in), path, &g);
		nop_errf_counts(e, &roots, &caught);
		assert_int_equal(nop_errf_not_whole(e), 0);
		nop_errf_free(e);
		assert_int_equal(roots, 3);
		assert_int_equal(caught, errors ? 2 : 1);
		assert_int_equal(g.n, errors ? 4 : 3);
		assert_true(g.ev[0].ip == 0x200 && g.ev[1].ip == 0x300 && g.ev[2].ip == 0x200);
		assert_int_equal(g.ev[2].type, NOP_GI_RETURN);
	}
}

/* catch: a caught tree that outgrew the items held is counted as not
 * kept whole, and nothing of it goes on */
static void catch_counts_a_tree_too_big(void **state)
{
	unsigned long long path[2] = { 0x200, 0x300 }, roots, caught;
	struct nop_errf *e = nop_errf_new(true, 1000, false);
	struct got g = { .n = 0 };
	struct nop_gitem gi = { .kind = NOP_GI_ENTER, .func = 0x200, .depth = 0, .npath = 1, .path = path };

	assert_non_null(e);
	nop_errf_limit(e, 3);
	assert_int_equal(nop_errf_item(e, &gi, keep_item, &g), 0);
	for (int i = 0; i < 5; i++) {
		gi = (struct nop_gitem){ .kind = NOP_GI_LEAF, .func = 0x300, .depth = 1, .npath = 2, .path = path,
					 .timed = true, .duration = 1 };
		assert_int_equal(nop_errf_item(e, &gi, keep_item, &g), 0);
	}
	gi = (struct nop_gitem){ .kind = NOP_GI_RETURN, .func = 0x200, .depth = 0, .npath = 1, .path = path,
				 .timed = true, .duration = 5000 };
	assert_int_equal(nop_errf_item(e, &gi, keep_item, &g), 0);
	nop_errf_counts(e, &roots, &caught);
	assert_int_equal(roots, 1);
	assert_int_equal(caught, 0);
	assert_int_equal(nop_errf_not_whole(e), 1);
	assert_int_equal(g.n, 0);
	nop_errf_free(e);
}

/* catch --outliers: a root call slower than its function's p99 so far,
 * judged after the warm-up; each function by itself */
static int count_catch(void *ctx, const struct nop_caught *c)
{
	unsigned long long *v = ctx;

	v[0]++;
	v[1] = c->limit_ns;
	assert_int_equal(c->why, NOP_CATCH_OUTLIER);
	return 0;
}

static void catch_outliers_after_warmup(void **state)
{
	unsigned long long path[1] = { 0x200 }, roots, caught, seen[2] = { 0, 0 };
	struct nop_errf *e = nop_errf_new(true, 0, false);
	struct got g = { .n = 0 };

	assert_non_null(e);
	nop_errf_outliers(e, 100);
	nop_errf_on_catch(e, count_catch, seen);
	for (int i = 0; i < 1000; i++) {
		/* 0x200: 1000 calls of 1000-1099 ns, a 5000 ns one in the
		 * warm-up (not judged) and one after it; 0x300: 50 of 10 ns,
		 * still warming: never judged */
		struct nop_gitem gi = { .kind = NOP_GI_LEAF, .func = 0x200, .depth = 0, .npath = 1,
					.path = path, .timed = true, .duration = 1000 + (unsigned)(i % 100) };

		if (i == 50 || i == 700)
			gi.duration = 5000;
		assert_int_equal(nop_errf_item(e, &gi, keep_item, &g), 0);
		if (i < 50) {
			gi.func = 0x300;
			gi.duration = i == 10 ? 100000 : 10;
			assert_int_equal(nop_errf_item(e, &gi, keep_item, &g), 0);
		}
	}
	nop_errf_counts(e, &roots, &caught);
	assert_int_equal(roots, 1050);
	assert_int_equal(nop_errf_warming(e), 150);
	/* the p99 of 1000-1099 ns is within a 16th of an octave of 1099 */
	assert_true(seen[1] >= 1099 && seen[1] < 1099 + 1099 / 16 + 64);
	/* the 5000 ns call, and the few over the p99's bucket (within 1 %) */
	assert_true(caught >= 1 && caught <= 1 + 9);
	assert_int_equal(seen[0], caught);
	assert_int_equal(g.ev[0].ip, 0x200);
	nop_errf_free(e);
}

/* catch, asked (SIGUSR1): the open tree goes on at once, the rest of it
 * as it comes; a tree that ended before is not caught; -c counts it only
 * once its root has ended */
static void catch_now_takes_open_trees(void **state)
{
	unsigned long long path[2] = { 0x200, 0x300 }, roots, caught;
	struct nop_errf *e = nop_errf_new(true, 1000000, false);
	struct got g = { .n = 0 };
	const struct nop_gitem before[] = {
		{ .kind = NOP_GI_LEAF, .func = 0x200, .depth = 0, .npath = 1, .timed = true, .duration = 7 },
		{ .kind = NOP_GI_ENTER, .func = 0x200, .depth = 0, .npath = 1 },
		{ .kind = NOP_GI_LEAF, .func = 0x300, .depth = 1, .npath = 2, .timed = true, .duration = 5 },
	}, after[] = {
		{ .kind = NOP_GI_LEAF, .func = 0x300, .depth = 1, .npath = 2, .timed = true, .duration = 5 },
		{ .kind = NOP_GI_RETURN, .func = 0x200, .depth = 0, .npath = 1, .timed = true, .duration = 50 },
	};

	assert_non_null(e);
	for (size_t i = 0; i < ARRAY_SIZE(before); i++) {
		struct nop_gitem gi = before[i];

		gi.path = path;
		assert_int_equal(nop_errf_item(e, &gi, keep_item, &g), 0);
	}
	assert_int_equal(nop_errf_caught_open(e, keep_item, &g), 0); /* not asked: nothing */
	assert_int_equal(g.n, 0);
	nop_errf_catch_now(e);
	assert_int_equal(nop_errf_caught_open(e, keep_item, &g), 0);
	assert_int_equal(g.n, 2);
	assert_int_equal(nop_errf_out_whole(e), 0);
	for (size_t i = 0; i < ARRAY_SIZE(after); i++) {
		struct nop_gitem gi = after[i];

		gi.path = path;
		assert_int_equal(nop_errf_item(e, &gi, keep_item, &g), 0);
	}
	assert_int_equal(g.n, 4);
	assert_int_equal(g.ev[3].type, NOP_GI_RETURN);
	assert_int_equal(nop_errf_out_whole(e), 1);
	nop_errf_counts(e, &roots, &caught);
	assert_int_equal(roots, 2);
	assert_int_equal(caught, 1);
	nop_errf_free(e);
}

/* do_sys_openat2's argument probe as 6.12 gave its format */
static const char kargs_fmt[] =
		"name: do_sys_openat2__kargs\nID: 1555\nformat:\n"
		"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
		"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
		"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
		"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"
		"\tfield:unsigned long __probe_ip;\toffset:8;\tsize:8;\tsigned:0;\n"
		"\tfield:s32 dfd;\toffset:16;\tsize:4;\tsigned:1;\n"
		"\tfield:__data_loc char[] filename;\toffset:20;\tsize:4;\tsigned:1;\n"
		"\tfield:u64 how;\toffset:24;\tsize:8;\tsigned:0;\n\n"
		"print fmt: \"(%lx) dfd=%d filename=\\\"%s\\\" how=0x%Lx\", REC->__probe_ip, REC->dfd, __get_str(filename), REC->how\n";

static void arguments_formatted(void **state)
{
	const char *fmt = kargs_fmt;
	struct tep_handle *tep = tep_alloc();
	struct tep_event *ev;
	unsigned char rec[64] = { 0 };
	int dfd = -100;
	unsigned long long how = 0xffffc90000123e28ULL;
	uint32_t loc = (32u) | (14u << 16);
	char *buf = NULL;
	size_t cap = 0;
	const char *a;

	tep_set_long_size(tep, 8);
	assert_int_equal(tep_parse_event(tep, fmt, strlen(fmt), "nopctl_1"), 0);
	ev = tep_find_event_by_name(tep, "nopctl_1", "do_sys_openat2__kargs");
	assert_non_null(ev);
	memcpy(rec + 16, &dfd, 4);
	memcpy(rec + 20, &loc, 4);
	memcpy(rec + 24, &how, 8);
	memcpy(rec + 32, "/etc/host\"ame", 14);
	a = nop_args_format(ev, "__probe_ip", rec, 46, true, &buf, &cap);
	assert_non_null(a);
	assert_string_equal(a, "dfd=-100, filename=\"/etc/host\\\"ame\", how=0xffffc90000123e28");
	assert_string_equal(a + strlen(a) + 1,
			    "{\"dfd\":-100,\"filename\":\"/etc/host\\\"ame\",\"how\":18446683600571219496}");
	/* a string the kernel could not read (length 0), a record cut short */
	loc = 32u;
	memcpy(rec + 20, &loc, 4);
	a = nop_args_format(ev, "__probe_ip", rec, 28, true, &buf, &cap);
	assert_string_equal(a, "dfd=-100, filename=(fault), how=null");
	assert_string_equal(a + strlen(a) + 1, "{\"dfd\":-100,\"filename\":null,\"how\":null}");
	free(buf);
	tep_free(tep);
}

/* one argument record of the format above, at p: its ring-buffer header
 * (type_len: its data's length in 4-byte words) and the fields; returns
 * its length */
static size_t kargs_record(unsigned char *p, unsigned delta, const char *path)
{
	uint32_t words = (uint32_t)(32 + strlen(path) + 1 + 3) / 4;
	uint32_t hdr = words | (delta << 5), loc = 32u | ((uint32_t)(strlen(path) + 1) << 16);
	uint16_t type = 1555;
	int pid = 7, dfd = -100;
	unsigned long long ip = 0xffffffff91442060ULL, how = 0;

	memcpy(p, &hdr, 4);
	p += 4;
	memset(p, 0, words * 4);
	memcpy(p, &type, 2);
	memcpy(p + 4, &pid, 4);
	memcpy(p + 8, &ip, 8);
	memcpy(p + 16, &dfd, 4);
	memcpy(p + 20, &loc, 4);
	memcpy(p + 24, &how, 8);
	memcpy(p + 32, path, strlen(path) + 1);
	return 4 + words * 4;
}

static int take_args(void *ctx, const struct nop_event *ev)
{
	struct got *g = ctx;

	if (ev->type == NOP_EV_ARGS)
		snprintf(g->args[g->n++], sizeof(g->args[0]), "%s", ev->args);
	return 0;
}

/* one page of data len long (its header's commit word set here) as
 * CPU 0's raw file in dir, decoded through a stream to fn */
static void drain_page(const char *dir, struct nop_decoder *d, unsigned char *page, size_t size,
		       unsigned long long len, nop_emit_fn fn, void *ctx)
{
	char path[300];
	const char *paths[1] = { path };
	int cpus[1] = { 0 };
	struct nop_stream *st = NULL;
	struct nop_error err;
	FILE *f;

	memcpy(page + 8, &len, 8);
	snprintf(path, sizeof(path), "%s/cpu0.raw", dir);
	assert_non_null(f = fopen(path, "w"));
	fwrite(page, 1, size, f);
	fclose(f);
	assert_int_equal(nop_stream_open_files(&st, d, paths, cpus, 1, &err), 0);
	for (bool more = true; more;)
		assert_int_equal(nop_stream_drain(st, fn, ctx, &more, &err), 0);
	nop_stream_close(st);
}

static void arguments_kept_per_event(void **state)
{
	/* two calls' arguments on one page: the stream decodes a page before
	 * it emits its events, and each keeps its own (the live run showed
	 * the second's path on both) */
	char dir[] = "/tmp/nopctl-kargs-XXXXXX", path[256];
	static unsigned char page[4096];
	unsigned long long len = 0;
	struct nop_uprobe v = { .kind = NOP_PROBE_FARGS, .sym = "do_sys_openat2", .event = "do_sys_openat2__kargs" };
	struct nop_uprobes u = { .v = &v, .n = 1 };
	struct nop_decoder *d;
	struct nop_error err;
	struct got g = { .n = 0 };
	FILE *f;

	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/events/nopctl_1/do_sys_openat2__kargs", dir);
	{
		char cmd[400];

		snprintf(cmd, sizeof(cmd), "mkdir -p %s", path);
		assert_int_equal(system(cmd), 0);
	}
	strcat(path, "/format");
	assert_non_null(f = fopen(path, "w"));
	fputs(kargs_fmt, f);
	fclose(f);
	assert_non_null(d = nop_decoder_new("fixtures/6.12", &err));
	assert_int_equal(nop_decoder_add_probes(d, dir, "nopctl_1", &u, &err), 0);
	len += kargs_record(page + 16, 10, "/etc/hostname");
	len += kargs_record(page + 16 + len, 10, "/nonexistent/nopctl");
	drain_page(dir, d, page, sizeof(page), len, take_args, &g);
	nop_decoder_free(d);
	assert_int_equal(g.n, 2);
	assert_string_equal(g.args[0], "dfd=-100, filename=\"/etc/hostname\", how=0");
	assert_string_equal(g.args[1], "dfd=-100, filename=\"/nonexistent/nopctl\", how=0");
	snprintf(path, sizeof(path), "rm -r %s", dir);
	assert_int_equal(system(path), 0);
}

/* user probes' formats (uprobes.c's, as a recording holds them): f's
 * entry, f's uretprobe with its value typed, g's entry, and g's exit on
 * its ret instruction with a 4-byte value (not one the in-place path reads) */
static const char *const uprobe_fmt[][2] = {
	{ "f", "ID: 2000\nformat:\n%s"
	       "\tfield:unsigned long __probe_ip;\toffset:8;\tsize:8;\tsigned:0;\n"
	       "\tfield:u64 sp;\toffset:16;\tsize:8;\tsigned:0;\n"
	       "\tfield:u64 caller;\toffset:24;\tsize:8;\tsigned:0;\n\n"
	       "print fmt: \"(%%lx) sp=0x%%Lx caller=0x%%Lx\", REC->__probe_ip, REC->sp, REC->caller\n" },
	{ "f__return", "ID: 2001\nformat:\n%s"
		       "\tfield:unsigned long __probe_func;\toffset:8;\tsize:8;\tsigned:0;\n"
		       "\tfield:unsigned long __probe_ret_ip;\toffset:16;\tsize:8;\tsigned:0;\n"
		       "\tfield:u64 sp;\toffset:24;\tsize:8;\tsigned:0;\n"
		       "\tfield:u64 rv_s4;\toffset:32;\tsize:8;\tsigned:0;\n\n"
		       "print fmt: \"(%%lx <- %%lx) sp=0x%%Lx rv_s4=0x%%Lx\", REC->__probe_func, REC->__probe_ret_ip, "
		       "REC->sp, REC->rv_s4\n" },
	{ "g", "ID: 2002\nformat:\n%s"
	       "\tfield:unsigned long __probe_ip;\toffset:8;\tsize:8;\tsigned:0;\n"
	       "\tfield:u64 sp;\toffset:16;\tsize:8;\tsigned:0;\n"
	       "\tfield:u64 caller;\toffset:24;\tsize:8;\tsigned:0;\n\n"
	       "print fmt: \"(%%lx) sp=0x%%Lx caller=0x%%Lx\", REC->__probe_ip, REC->sp, REC->caller\n" },
	{ "g__return", "ID: 2003\nformat:\n%s"
		       "\tfield:unsigned long __probe_ip;\toffset:8;\tsize:8;\tsigned:0;\n"
		       "\tfield:u64 sp;\toffset:16;\tsize:8;\tsigned:0;\n"
		       "\tfield:s32 rv_s4;\toffset:24;\tsize:4;\tsigned:1;\n\n"
		       "print fmt: \"(%%lx) sp=0x%%Lx rv_s4=%%d\", REC->__probe_ip, REC->sp, REC->rv_s4\n" },
};

/* one user probe's record at p (words 4-byte words of data: type, pid,
 * then the 8-byte fields from offset 8, the last cut at the record's
 * end); returns its length */
static size_t uprobe_record(unsigned char *p, uint16_t type, uint32_t words, const unsigned long long *f, int nf)
{
	uint32_t hdr = words | (10u << 5);
	int pid = 7;

	memcpy(p, &hdr, 4);
	memset(p + 4, 0, words * 4);
	memcpy(p + 4, &type, 2);
	memcpy(p + 8, &pid, 4);
	memcpy(p + 12, f, (size_t)nf * 8 < words * 4 - 8 ? (size_t)nf * 8 : words * 4 - 8);
	return 4 + words * 4;
}

static int take_events(void *ctx, const struct nop_event *ev)
{
	struct got *g = ctx;

	g->ev[g->n++] = *ev;
	return 0;
}

/* what each record becomes, through the stream (decoded into its array)
 * and page by page (emitted), fields read in place or not, recorded on a
 * machine whose returns take ret_pops bytes off the stack: f's exit is a
 * uretprobe's, after the return */
static void user_probes_decoded(unsigned ret_pops)
{
	char dir[] = "/tmp/nopctl-uprobes-XXXXXX", path[300], cmd[400];
	static unsigned char page[4096];
	unsigned long long len = 0;
	const unsigned long long fent[] = { 0x401000, 0x7ffc0000, 0x402000 },
				 fret[] = { 0x401000, 0x402000, 0x7ffc0000 + ret_pops, 0xfffffffeULL },
				 gent[] = { 0x401100, 0x7ffbfff0, 0x401010 }, gret[] = { 0x401180, 0x7ffbfff0, 0xfffffffbULL };
	struct nop_uprobe v[4] = {
		{ .kind = NOP_PROBE_USER, .event = "f", .func = 0 },
		{ .kind = NOP_PROBE_USER, .event = "f__return", .func = 0, .ret = true, .uret = true },
		{ .kind = NOP_PROBE_USER, .event = "g", .func = 2 },
		{ .kind = NOP_PROBE_USER, .event = "g__return", .func = 2, .ret = true },
	};
	struct nop_uprobes u = { .v = v, .n = 4 };
	struct nop_decoder *d;
	struct nop_error err;
	struct got *g = calloc(2, sizeof(*g));
	FILE *f;

	assert_non_null(g);
	assert_non_null(mkdtemp(dir));
	for (size_t i = 0; i < ARRAY_SIZE(uprobe_fmt); i++) {
		snprintf(cmd, sizeof(cmd), "mkdir -p %s/events/nopctl_1/%s", dir, uprobe_fmt[i][0]);
		assert_int_equal(system(cmd), 0);
		snprintf(path, sizeof(path), "%s/events/nopctl_1/%s/format", dir, uprobe_fmt[i][0]);
		assert_non_null(f = fopen(path, "w"));
		fprintf(f, "name: %s\n", uprobe_fmt[i][0]);
		fprintf(f, uprobe_fmt[i][1],
			"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
			"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
			"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
			"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n");
		fclose(f);
	}
	assert_non_null(d = nop_decoder_new("fixtures/6.12", &err));
	nop_decoder_ret_pops(d, ret_pops);
	assert_int_equal(nop_decoder_add_probes(d, dir, "nopctl_1", &u, &err), 0);
	len += uprobe_record(page + 16 + len, 2000, 8, fent, 3);
	len += uprobe_record(page + 16 + len, 2002, 8, gent, 3);
	len += uprobe_record(page + 16 + len, 2003, 7, gret, 3); /* rv_s4: 4 bytes at 24 */
	len += uprobe_record(page + 16 + len, 2001, 10, fret, 4);
	drain_page(dir, d, page, sizeof(page), len, take_events, &g[0]);
	assert_int_equal(nop_decode_page(d, 0, page, take_events, &g[1]), 0);
	nop_decoder_free(d);
	for (int k = 0; k < 2; k++) {
		const struct nop_event *e = g[k].ev;

		assert_int_equal(g[k].n, 4);
		for (int i = 0; i < 4; i++)
			assert_true(e[i].pid == 7 && e[i].depth == -1 && e[i].ts == e[0].ts + 10 * (unsigned)i &&
				    !e[i].args && !e[i].nstack);
		assert_true(e[0].type == NOP_EV_ENTRY && e[0].ip == (NOP_UKEY | 0) && e[0].uip == 0x401000 &&
			    e[0].ucaller == 0x402000 && e[0].usp == 0x7ffc0000 && !e[0].has_retval);
		assert_true(e[1].type == NOP_EV_ENTRY && e[1].ip == (NOP_UKEY | 2) && e[1].uip == 0x401100 &&
			    e[1].ucaller == 0x401010 && e[1].usp == 0x7ffbfff0);
		/* every exit at its entry's stack pointer + 8 (g's on its ret,
		 * f's by a uretprobe); an exit's value rides in rettime
		 * (ucalls.c moves it) */
		assert_true(e[2].type == NOP_EV_EXIT && e[2].ip == (NOP_UKEY | 2) && e[2].usp == 0x7ffbfff8 &&
			    e[2].has_retval && (long long)e[2].rettime == -5);
		assert_true(e[3].type == NOP_EV_EXIT && e[3].ip == (NOP_UKEY | 0) && e[3].usp == 0x7ffc0008 &&
			    e[3].has_retval && (long long)e[3].rettime == -2);
	}
	free(g);
	snprintf(cmd, sizeof(cmd), "rm -r %s", dir);
	assert_int_equal(system(cmd), 0);
}

static void user_probe_records_decoded(void **state)
{
	user_probes_decoded(8); /* x86-64: ret pops the return address */
}

/* arm64 returns through x30: a uretprobe's stack pointer is the entry's,
 * and its exit must still pair with the entry (ureal's calls on arm64
 * were each left open until this held) */
static void user_probe_records_decoded_arm64(void **state)
{
	user_probes_decoded(0);
}

/* a part of a rotated recording: CPUs cut at 100 ms and 300 ms hold
 * every CPU's events from 50 ms (their first pages' latest start) to 100
 * ms. A task that ran on the CPU cut late and moved to the one cut
 * early: its calls begun at 200 ms have their exits here and their
 * entries in the next part; a call entered here whose end a later event
 * proves at 250 ms has its exit there. Neither is a loss; a call inside
 * the span missing either is. */
static void gaps_only_inside_a_parts_span(void **state)
{
	const unsigned long long ms = 1000000;
	struct nop_span part = { .first = 10 * ms, .complete_from = 50 * ms, .complete_to = 100 * ms };
	struct nop_span whole = { .first = 10 * ms };
	struct nop_gitem no_entry = { .kind = NOP_GI_LEAF, .timed = true, .no_entry = true, .func = 0x200 };
	struct nop_gitem no_exit = { .kind = NOP_GI_RETURN, .func = 0x200 };

	no_entry.began = 200 * ms; /* after the span: its entry is in the next part */
	assert_false(nop_pipeline_gap(&part, &no_entry));
	assert_true(nop_pipeline_gap(&whole, &no_entry));
	no_entry.began = 70 * ms; /* inside: lost */
	assert_true(nop_pipeline_gap(&part, &no_entry));
	no_entry.began = 40 * ms; /* before: in the part before */
	assert_false(nop_pipeline_gap(&part, &no_entry));
	no_entry.began = 10 * ms; /* the capture's start: begun before it */
	assert_false(nop_pipeline_gap(&whole, &no_entry));

	no_exit.began = 70 * ms; /* entered in the span, its end proved after it */
	no_exit.ts = 250 * ms;
	assert_false(nop_pipeline_gap(&part, &no_exit));
	assert_true(nop_pipeline_gap(&whole, &no_exit));
	no_exit.ts = 90 * ms; /* proved inside: lost */
	assert_true(nop_pipeline_gap(&part, &no_exit));
	no_exit.began = 30 * ms; /* entered before the span: its exit may be in the part before */
	assert_false(nop_pipeline_gap(&part, &no_exit));
	no_exit.at_end = true; /* running at the end: no loss */
	no_exit.began = 70 * ms;
	assert_false(nop_pipeline_gap(&part, &no_exit));
	no_exit.at_end = false;
	no_exit.func = NOP_UKEY | 0x10; /* a user function's return past the kernel's 64 */
	assert_false(nop_pipeline_gap(&whole, &no_exit));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(gaps_only_inside_a_parts_span),
		cmocka_unit_test(return_value_either_side),
		cmocka_unit_test(kretprobe_handler_between),
		cmocka_unit_test(arguments_after_the_fetch),
		cmocka_unit_test(hit_caller_from_its_return_probe),
		cmocka_unit_test(never_another_calls_value),
		cmocka_unit_test(arguments_of_each_call),
		cmocka_unit_test(an_interrupt_between),
		cmocka_unit_test(trace_returns_are_lines),
		cmocka_unit_test(errors_keep_the_path),
		cmocka_unit_test(why_passes_the_chain_and_its_origin),
		cmocka_unit_test(catch_keeps_whole_trees),
		cmocka_unit_test(catch_outliers_after_warmup),
		cmocka_unit_test(catch_now_takes_open_trees),
		cmocka_unit_test(catch_counts_a_tree_too_big),
		cmocka_unit_test(arguments_formatted),
		cmocka_unit_test(arguments_kept_per_event),
		cmocka_unit_test(user_probe_records_decoded),
		cmocka_unit_test(user_probe_records_decoded_arm64),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
