/* pipeline/pipeline.h - the pipeline area of libnopctl: events to the
 * sink: the engine, filters, joins of probe values, counters, stop
 * conditions. Its header includes the one of the area before it
 * (lib/README.md: the order): a file sees its own area and those below,
 * never one above. */
#ifndef NOPCTL_AREA_PIPELINE_H
#define NOPCTL_AREA_PIPELINE_H

#include "sink/sink.h"

/* --errors (errfilter.c): a task's trees held until they end, then only
 * the calls that returned a negative errno and the paths to them */
struct nop_errf;

struct nop_errf *nop_errf_new(void);

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
