/* spool.c - pages read from the kernel's buffers, kept in memory until
 * they are decoded. Reading a page costs a copy; decoding and printing
 * its events costs far more. Emptying the kernel's buffer into a spool
 * between short decoding steps keeps it from overflowing while the
 * output falls behind. */
#include <stdlib.h>
#include <unistd.h>

#include "events/events.h"

/* The pool's bound is the kernel's buffers again, at least SPOOL_FLOOR:
 * what a run keeps in memory does not grow with its length, and a larger
 * kernel buffer, asked for to lose less, buys a larger spool too. */
void nop_pagepool_allow(struct nop_pagepool *p, size_t bytes)
{
	p->kernel += bytes;
	p->max = p->kernel > SPOOL_FLOOR ? p->kernel : SPOOL_FLOOR;
	if (p->max > p->cap)
		p->max = p->cap;
}

void nop_pagepool_init(struct nop_pagepool *p, size_t page_size)
{
	size_t free_now = nop_mem_free();

	/* never more than half of the memory free now */
	*p = (struct nop_pagepool){ .page_size = page_size,
				    .cap = free_now ? free_now / 2 : (size_t)1 << 30 };
	nop_pagepool_allow(p, 0);
}

char *nop_pagepool_get(struct nop_pagepool *p, bool past_max)
{
	char *pg;

	if (!past_max && p->used + p->page_size > p->max)
		return NULL;
	if (p->nfree)
		pg = p->free[--p->nfree];
	else if (!(pg = malloc(p->page_size)))
		return NULL;
	else
		p->bytes += p->page_size;
	p->used += p->page_size;
	if (p->used > p->peak)
		p->peak = p->used;
	return pg;
}

void nop_pagepool_put(struct nop_pagepool *p, char *pg)
{
	p->used -= p->page_size;
	if (p->nfree == p->capfree &&
	    nop_grow((void **)&p->free, &p->capfree, p->nfree + 1, sizeof(*p->free))) {
		p->bytes -= p->page_size;
		free(pg);
		return;
	}
	p->free[p->nfree++] = pg;
}

void nop_pagepool_free(struct nop_pagepool *p)
{
	for (size_t i = 0; i < p->nfree; i++)
		free(p->free[i]);
	free(p->free);
	p->free = NULL;
	p->nfree = p->capfree = 0;
}

/* the queue is a ring of page pointers, doubled when full */
int nop_pageq_push(struct nop_pageq *q, char *pg)
{
	if (q->n == q->cap) {
		size_t cap = q->cap ? q->cap * 2 : 64;
		char **v = malloc(cap * sizeof(*v));

		if (!v)
			return -1;
		for (size_t i = 0; i < q->n; i++)
			v[i] = q->pg[(q->head + i) % q->cap];
		free(q->pg);
		q->pg = v;
		q->cap = cap;
		q->head = 0;
	}
	q->pg[(q->head + q->n++) % q->cap] = pg;
	return 0;
}

char *nop_pageq_pop(struct nop_pageq *q)
{
	char *pg;

	if (!q->n)
		return NULL;
	pg = q->pg[q->head];
	q->head = (q->head + 1) % q->cap;
	q->n--;
	return pg;
}

void nop_pageq_free(struct nop_pageq *q, struct nop_pagepool *p)
{
	for (char *pg; (pg = nop_pageq_pop(q));)
		nop_pagepool_put(p, pg);
	free(q->pg);
	*q = (struct nop_pageq){ 0 };
}
