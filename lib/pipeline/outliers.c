/* outliers.c - catch --outliers: each root function's running p99 of
 * its calls' durations, a root call judged against it once the function
 * has had its warm-up calls. */
#include <stdlib.h>

#include "pipeline/pipeline.h"

/* --outliers: a root function's durations in log-linear buckets, SUB an
 * octave (within 1/SUB of the value); its p99 recomputed every P99_EVERY
 * calls once warm */
#define SUB 16
#define NBUCKETS (64 * SUB)
#define P99_EVERY 64
struct fhist {
	unsigned long long func; /* 0: an empty slot */
	unsigned long long n, p99;
	unsigned *b;
};

struct nop_p99s {
	unsigned long long warmup;
	struct fhist *h; /* open addressing by func, nh a power of two */
	size_t nh, nhused;
};

struct nop_p99s *nop_p99s_new(unsigned long long warmup)
{
	struct nop_p99s *e = calloc(1, sizeof(*e));

	if (e)
		e->warmup = warmup;
	return e;
}

void nop_p99s_free(struct nop_p99s *e)
{
	if (!e)
		return;
	for (size_t i = 0; i < e->nh; i++)
		free(e->h[i].b);
	free(e->h);
	free(e);
}

static unsigned bucket(unsigned long long v)
{
	int msb;

	if (v < SUB)
		return (unsigned)v;
	msb = 63 - __builtin_clzll(v);
	return (unsigned)(msb - 3) * SUB + (unsigned)((v >> (msb - 4)) & (SUB - 1));
}

/* the largest value bucket i holds */
static unsigned long long bucket_top(unsigned i)
{
	unsigned msb = i / SUB + 3, sub = i % SUB;

	if (i < SUB)
		return i;
	return (1ULL << msb) + ((unsigned long long)(sub + 1) << (msb - 4)) - 1;
}

static void p99_of(struct fhist *f)
{
	unsigned long long rank = (f->n * 99 + 99) / 100, sum = 0;

	for (unsigned i = 0; i < NBUCKETS; i++)
		if ((sum += f->b[i]) >= rank) {
			f->p99 = bucket_top(i);
			return;
		}
}

static struct fhist *fhist(struct nop_p99s *e, unsigned long long func)
{
	size_t i;

	if (e->nhused * 2 >= e->nh) { /* half full: twice the slots */
		size_t nn = e->nh ? e->nh * 2 : 16;
		struct fhist *n = calloc(nn, sizeof(*n));

		if (!n)
			return NULL;
		for (size_t k = 0; k < e->nh; k++) {
			if (!e->h[k].func)
				continue;
			for (i = (e->h[k].func * 0x9e3779b97f4a7c15ULL) >> 40 & (nn - 1); n[i].func; i = (i + 1) & (nn - 1))
				;
			n[i] = e->h[k];
		}
		free(e->h);
		e->h = n;
		e->nh = nn;
	}
	for (i = (func * 0x9e3779b97f4a7c15ULL) >> 40 & (e->nh - 1); e->h[i].func && e->h[i].func != func;
	     i = (i + 1) & (e->nh - 1))
		;
	if (!e->h[i].func) {
		if (!(e->h[i].b = calloc(NBUCKETS, sizeof(*e->h[i].b))))
			return NULL;
		e->h[i].func = func;
		e->nhused++;
	}
	return &e->h[i];
}

bool nop_p99s_judge(struct nop_p99s *e, unsigned long long func, unsigned long long d, unsigned long long *p99,
		    unsigned long long *warming)
{
	struct fhist *f = fhist(e, func);
	bool slow;

	if (!f)
		return false;
	if (f->n < e->warmup)
		++*warming;
	slow = f->n >= e->warmup && d > f->p99;
	*p99 = f->p99;
	f->b[bucket(d)]++;
	if (++f->n >= e->warmup && (f->n == e->warmup || f->n % P99_EVERY == 0))
		p99_of(f);
	return slow;
}
