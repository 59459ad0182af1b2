/* held.h - a task's tree held from its first call until the outermost
 * one ends (errfilter.c), then judged: --errors keeps the failed calls
 * and the calls they were made from (errfilter.c), catch the whole tree
 * or nothing (catchtrees.c). Private to those two files. */
#ifndef NOPCTL_PIPELINE_HELD_H
#define NOPCTL_PIPELINE_HELD_H

#include "pipeline/pipeline.h"

struct held_item {
	struct nop_gitem gi; /* path and args: owned copies */
	bool keep;
};

struct etask {
	int pid;
	struct held_item *v;
	size_t n, cap;
	bool over; /* catch: its tree outgrew MAX_HELD, items dropped */
	bool passing; /* caught while open: its items go on until its root ends */
};

/* catch: at most this many items held per task (a root call that runs
 * for hours would hold its whole life); a tree past it is not kept, and
 * if its root is caught, it is counted as not kept whole */
#define MAX_HELD (1u << 20)

struct nop_errf {
	struct etask *t;
	size_t n, cap, last;
	bool whole; /* catch */
	unsigned long long slower_ns;
	bool errors;
	bool why;
	/* why: a tree's chain (room for every item of the largest tree) */
	struct nop_origin_link *chain;
	size_t chain_cap;
	unsigned long long roots, caught, not_whole;
	size_t max_held;
	struct nop_p99s *outliers; /* --outliers (outliers.c); NULL: not */
	unsigned long long warming; /* outliers: roots not judged, their function still warming up */
	bool now; /* catch the open trees at the next item */
	unsigned long long passing; /* tasks whose caught tree is still going on */
	nop_caught_fn on_catch;
	void *on_catch_ctx;
};

/* errfilter.c: a held task's items freed, its tree emptied */
void nop_held_clear(struct etask *t);
/* errfilter.c: the call gi ends returned a negative errno */
bool nop_held_failed(const struct nop_gitem *gi);
/* catchtrees.c: catch's end of a tree: passed on whole, or not at all */
int nop_catch_flush(struct nop_errf *e, struct etask *t, nop_gitem_fn out, void *ctx);

#endif
