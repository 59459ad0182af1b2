/* pipeline/pipeline.h - the pipeline area of libnopctl: events to the
 * sink: the engine, filters, joins of probe values, counters, stop
 * conditions. Its header includes the one of the area before it
 * (lib/README.md: the order): a file sees its own area and those below,
 * never one above. */
#ifndef NOPCTL_AREA_PIPELINE_H
#define NOPCTL_AREA_PIPELINE_H

#include "sink/sink.h"

/* --errors (errfilter.c): a task's trees held until they end, then only
 * the calls that returned a negative errno and the paths to them; whole
 * (catch): all of a tree whose root lasted longer than slower_ns (0: no
 * such test) or, with errors, failed */
struct nop_errf;

struct nop_errf *nop_errf_new(bool whole, unsigned long long slower_ns, bool errors);

/* catch: trees ended (root calls), and those passed on */
void nop_errf_counts(const struct nop_errf *e, unsigned long long *roots, unsigned long long *caught);

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
