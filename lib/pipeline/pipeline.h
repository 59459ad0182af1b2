/* pipeline/pipeline.h - the pipeline area of libnopctl: events to the
 * sink: the engine, filters, joins of probe values, counters, stop
 * conditions. Its header includes the one of the area before it
 * (lib/README.md: the order): a file sees its own area and those below,
 * never one above. */
#ifndef NOPCTL_AREA_PIPELINE_H
#define NOPCTL_AREA_PIPELINE_H

#include "sink/sink.h"

/* The span of a capture in which every CPU's events are whole: from its
 * first event (first), or for a part of a rotated recording from
 * complete_from to complete_to (its CPUs were cut as each was read; 0:
 * not a part) */
struct nop_span {
	unsigned long long first, complete_from, complete_to;
};

/* gi (a call missing its entry or exit) shows an event lost: its missing
 * part fell where the capture holds every CPU's events */
bool nop_pipeline_gap(const struct nop_span *s, const struct nop_gitem *gi);

/* The tasks a run that traces chosen ones shows (tasks.c): the session's,
 * and the children they were seen to fork (born), remembered per pid in
 * a small cache; unsure: a fork may have gone unread (events lost, or
 * catch's gate, which reads only what it caught) and a gone task counts
 * as a child. Zeroed by init, freed by free. */
struct nop_tasks {
	struct nop_session *session;
	bool gated, unsure;
	struct { int pid; signed char traced; } cache[64];
	struct nop_addrset born;
};
void nop_tasks_init(struct nop_tasks *t, struct nop_session *s, bool gated);
/* is pid one of them: one the session traces, or a child seen born
 * (asked only where the run traces chosen tasks: off every other's path) */
bool nop_tasks_traced(struct nop_tasks *t, int pid);
void nop_tasks_unsure(struct nop_tasks *t);
/* a fork: child is traced if parent is */
void nop_tasks_born(struct nop_tasks *t, int parent, int child);
void nop_tasks_free(struct nop_tasks *t);

/* catch: a tree caught open (nop_pipeline_catch_now) still runs */
bool nop_pipeline_catch_running(const struct nop_pipeline *p);

/* catch --outliers (outliers.c): per root function, its calls' running
 * p99 (within 1/16 of the value), in log-linear buckets. judge: d, a call
 * of func, is slower than the p99 of func's calls so far, once it has had
 * warmup of them (*p99 that p99; *warming counted up while it has not);
 * then d joins them. A function it cannot keep (out of memory): false */
struct nop_p99s;
struct nop_p99s *nop_p99s_new(unsigned long long warmup);
bool nop_p99s_judge(struct nop_p99s *h, unsigned long long func, unsigned long long d, unsigned long long *p99,
		    unsigned long long *warming);
void nop_p99s_free(struct nop_p99s *h);

/* --errors (errfilter.c): a task's trees held until they end, then only
 * the calls that returned a negative errno and the paths to them; whole
 * (catch, catchtrees.c): all of a tree whose root lasted longer than
 * slower_ns (0: no such test) or, with errors, failed; the catch-only
 * calls below are catchtrees.c's */
struct nop_errf;

struct nop_errf *nop_errf_new(bool whole, unsigned long long slower_ns, bool errors);

/* why: of a tree whose root failed, the chain from the root down to where
 * its error began (nop_origin_find) and then its NOP_GI_ORIGIN item go
 * on, nothing of the others */
void nop_errf_why(struct nop_errf *e);

typedef int (*nop_caught_fn)(void *ctx, const struct nop_caught *c);

/* catch: fn is told of each catch before its tree's items go on */
void nop_errf_on_catch(struct nop_errf *e, nop_caught_fn fn, void *ctx);

/* catch: a root also caught when slower than its function's p99 so far,
 * judged after warmup calls of that function (0: not); 0, or -1 out of
 * memory */
int nop_errf_outliers(struct nop_errf *e, unsigned long long warmup);

/* catch --outliers: root calls that came during their function's warm-up */
unsigned long long nop_errf_warming(const struct nop_errf *e);

/* catch: every tree open at the next nop_errf_caught_open is caught
 * (still running), its items then and later passed on */
void nop_errf_catch_now(struct nop_errf *e);

/* catch, asked (nop_errf_catch_now): the trees open now go on */
int nop_errf_caught_open(struct nop_errf *e, nop_gitem_fn out, void *ctx);

/* catch: trees ended (root calls), and those passed on */
void nop_errf_counts(const struct nop_errf *e, unsigned long long *roots, unsigned long long *caught);

/* catch: trees caught and out to their root's end */
unsigned long long nop_errf_out_whole(const struct nop_errf *e);

/* catch: trees caught open (nop_errf_catch_now) whose root runs still */
unsigned long long nop_errf_passing(const struct nop_errf *e);

/* catch: at most max_held items held per task (tests lower it) */
void nop_errf_limit(struct nop_errf *e, size_t max_held);

/* catch: trees caught that could not be kept whole (too many calls) */
unsigned long long nop_errf_not_whole(const struct nop_errf *e);

int nop_errf_item(struct nop_errf *e, const struct nop_gitem *gi, nop_gitem_fn out, void *ctx);

int nop_errf_finish(struct nop_errf *e, nop_gitem_fn out, void *ctx);

void nop_errf_free(struct nop_errf *e);

/* Kernel probes' return values and arguments joined to their calls'
 * events (probejoin.c); name: a kernel address's function name */
struct nop_join;

typedef const char *(*nop_join_name_fn)(void *ctx, unsigned long long addr);

struct nop_join *nop_join_new(const struct nop_uprobes *u, bool graph, nop_join_name_fn name, void *ctx);

int nop_join_event(struct nop_join *j, const struct nop_event *ev, nop_emit_fn out, void *ctx);

int nop_join_finish(struct nop_join *j, nop_emit_fn out, void *ctx);

void nop_join_free(struct nop_join *j);

/* calls shown without the value their probe was to give; probes' values
 * that matched no call */
void nop_join_misses(const struct nop_join *j, unsigned long long *missing, unsigned long long *unclaimed);

#endif
