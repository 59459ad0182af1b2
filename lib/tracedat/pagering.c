/* pagering.c - the last pages of each CPU, kept as they were read (a
 * flight recorder): catch -o DIR writes the pages that cover a caught
 * tree, and what else ran on those CPUs meanwhile, as a trace.dat of its
 * own. Memory is bounded: each CPU keeps its newest n pages.
 *
 * A page's span is its events' first and last stamps as the decoder read
 * them (span): the base stamp in a page's header is not one to select by
 * (6.1's pages read while tracing ran carried stamps far from their
 * events'). A page no event was decoded from is not written.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "tracedat/tracedat.h"

struct kept {
	unsigned long long first, last; /* its events' stamps; last 0: none */
	size_t len;
	char *page;
};

struct cpu_ring {
	struct kept *v; /* n slots, oldest at head */
	size_t head, used;
};

struct nop_pagering {
	struct cpu_ring *cpus;
	int ncpus;
	size_t n, page_size;
};

struct nop_pagering *nop_pagering_new(int ncpus, size_t page_size, size_t pages_per_cpu)
{
	struct nop_pagering *r = calloc(1, sizeof(*r));

	if (!r || !(r->cpus = calloc((size_t)ncpus, sizeof(*r->cpus)))) {
		free(r);
		return NULL;
	}
	r->ncpus = ncpus;
	r->n = pages_per_cpu ? pages_per_cpu : 1;
	r->page_size = page_size;
	return r;
}

void nop_pagering_free(struct nop_pagering *r)
{
	if (!r)
		return;
	for (int c = 0; c < r->ncpus; c++) {
		for (size_t i = 0; r->cpus[c].v && i < r->n; i++)
			free(r->cpus[c].v[i].page);
		free(r->cpus[c].v);
	}
	free(r->cpus);
	free(r);
}

int nop_pagering_put(void *ctx, int cpu, const void *page, size_t len)
{
	struct nop_pagering *r = ctx;
	struct cpu_ring *c;
	struct kept *k;

	if (cpu < 0 || cpu >= r->ncpus || len > r->page_size || len < 16)
		return 0; /* not a page a trace.dat takes: not kept */
	c = &r->cpus[cpu];
	if (!c->v && !(c->v = calloc(r->n, sizeof(*c->v))))
		return errno = ENOMEM, -1;
	if (c->used == r->n) { /* full: the oldest slot is reused */
		k = &c->v[c->head];
		c->head = (c->head + 1) % r->n;
	} else {
		k = &c->v[(c->head + c->used++) % r->n];
	}
	if (!k->page && !(k->page = malloc(r->page_size)))
		return errno = ENOMEM, -1;
	memcpy(k->page, page, len);
	k->first = k->last = 0;
	k->len = len;
	return 0;
}

void nop_pagering_span(void *ctx, int cpu, unsigned long long first, unsigned long long last)
{
	struct nop_pagering *r = ctx;
	struct cpu_ring *c;

	if (cpu < 0 || cpu >= r->ncpus || !r->cpus[cpu].used)
		return;
	c = &r->cpus[cpu];
	c->v[(c->head + c->used - 1) % r->n].first = first;
	c->v[(c->head + c->used - 1) % r->n].last = last;
}

/* A CPU's events are in the file from its first page's first event to
 * its last page's last: a busy CPU's ring (or the kernel's buffer it was
 * read from, in overwrite mode) may begin well after from. The file is
 * whole from the latest such start to the earliest such end. */
int nop_pagering_write(const struct nop_pagering *r, struct nop_dat *w, unsigned long long from)
{
	unsigned long long whole_from = 0, whole_to = ~0ULL;

	for (int cpu = 0; cpu < r->ncpus; cpu++) {
		const struct cpu_ring *c = &r->cpus[cpu];
		unsigned long long first = 0, last = 0;

		for (size_t i = 0; i < c->used; i++) {
			const struct kept *k = &c->v[(c->head + i) % r->n];

			if (!k->last || k->last < from)
				continue;
			if (nop_dat_page(w, cpu, k->page, k->len))
				return -1;
			if (!first)
				first = k->first;
			last = k->last;
		}
		if (first > whole_from)
			whole_from = first;
		if (last && last < whole_to)
			whole_to = last;
	}
	nop_dat_excerpt(w, whole_from, whole_to == ~0ULL ? 0 : whole_to);
	return 0;
}
