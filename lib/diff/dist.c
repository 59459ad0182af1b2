/* dist.c - a row's call times in a memory bounded whatever the number of
 * calls (a day's recording diffs as one of a minute does). The first
 * NOP_DIST_KEEP values are kept as they are, and every figure of them is
 * exact; past that, every value is counted in buckets a factor gamma wide
 * on a log scale (a quantile read from them is within NOP_DIST_ERROR of
 * a true value of its rank), and, where asked, a uniform sample of
 * NOP_DIST_KEEP of the values is kept for the rank test (reservoir
 * sampling with a fixed seed: the same input gives the same sample, and
 * the same output, run to run). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "diff/diff.h"

/* gamma = (1 + e) / (1 - e): the middle of bucket (gamma^(i-1), gamma^i],
 * 2 gamma^i / (gamma + 1), is within e of every value in it */
#define GAMMA ((1 + NOP_DIST_ERROR) / (1 - NOP_DIST_ERROR))

struct nop_sketch {
	int lo;			 /* c[0] counts bucket lo */
	size_t nb;		 /* buckets lo .. lo + nb - 1 */
	unsigned long long zero; /* values 0 */
	unsigned long long c[];
};

static int bucket(unsigned long long x)
{
	return (int)ceil(log((double)x) / log(GAMMA));
}

static int sketch_add(struct nop_sketch **qp, unsigned long long x)
{
	struct nop_sketch *q = *qp;
	int i;

	if (!x) {
		q->zero++;
		return 0;
	}
	i = bucket(x);
	if (!q->nb || i < q->lo || i >= q->lo + (int)q->nb) {
		int lo = q->nb && q->lo < i ? q->lo : i;
		int hi = q->nb && q->lo + (int)q->nb - 1 > i ? q->lo + (int)q->nb - 1 : i;
		size_t nb = (size_t)(hi - lo + 1), below = q->nb ? (size_t)(q->lo - lo) : 0, had = q->nb;

		struct nop_sketch *g = realloc(q, sizeof(*q) + nb * sizeof(q->c[0]));

		if (!g)
			return -1;
		q = *qp = g;
		/* the buckets held move up past those added below them */
		memmove(q->c + below, q->c, had * sizeof(q->c[0]));
		memset(q->c, 0, below * sizeof(q->c[0]));
		memset(q->c + below + had, 0, (nb - below - had) * sizeof(q->c[0]));
		q->lo = lo;
		q->nb = nb;
	}
	q->c[i - q->lo]++;
	return 0;
}

/* the value of rank k (1 = the least) among the n counted, as its
 * bucket's middle */
static unsigned long long sketch_rank(const struct nop_sketch *q, unsigned long long k)
{
	unsigned long long seen = q->zero;

	if (k <= seen)
		return 0;
	for (size_t b = 0; b < q->nb; b++)
		if ((seen += q->c[b]) >= k)
			return (unsigned long long)llround(2 * pow(GAMMA, q->lo + (int)b) / (GAMMA + 1));
	return 0;
}

/* the reservoir's slot for the t-th value (t > NOP_DIST_KEEP): uniform
 * in [0, t), from a fixed sequence (splitmix64 of t) */
static unsigned long long slot(unsigned long long t)
{
	unsigned long long z = t + 0x9e3779b97f4a7c15ULL;

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return (z ^ (z >> 31)) % t;
}

int nop_dist_add(struct nop_dist *d, unsigned long long x, bool sample)
{
	if (d->n < NOP_DIST_KEEP) {
		/* most rows have a few calls: room for 2 first, doubling (the
		 * room is the least power of two from 2 holding n) */
		if (!d->n || (d->n >= 2 && !(d->n & (d->n - 1)))) {
			unsigned long long *v = realloc(d->v, (d->n ? 2 * d->n : 2) * sizeof(*v));

			if (!v)
				return -1;
			d->v = v;
		}
		d->v[d->n++] = x;
		return 0;
	}
	if (!d->q) { /* the values kept so far are the first counted */
		if (!(d->q = calloc(1, sizeof(*d->q))))
			return -1;
		for (size_t i = 0; i < d->n; i++)
			if (sketch_add(&d->q, d->v[i]))
				return -1;
		if (!sample) {
			free(d->v);
			d->v = NULL;
		}
	}
	if (sketch_add(&d->q, x))
		return -1;
	d->n++;
	if (d->v) {
		unsigned long long j = slot(d->n);

		if (j < NOP_DIST_KEEP)
			d->v[j] = x;
	}
	return 0;
}

/* the nearest-rank percentile of sorted v */
static unsigned long long pct(const unsigned long long *v, size_t n, double p)
{
	size_t k = (size_t)ceil(p * (double)n);

	return n ? v[k ? k - 1 : 0] : 0;
}

unsigned long long nop_dist_pct(struct nop_dist *d, double p)
{
	unsigned long long k;

	if (!d->q) {
		nop_median(d->v, (size_t)d->n); /* sorts */
		return pct(d->v, (size_t)d->n, p);
	}
	k = (unsigned long long)ceil(p * (double)d->n);
	return sketch_rank(d->q, k ? k : 1);
}

unsigned long long nop_dist_median(struct nop_dist *d)
{
	return d->q ? nop_dist_pct(d, 0.5) : nop_median(d->v, (size_t)d->n);
}

const unsigned long long *nop_dist_sample(const struct nop_dist *d, size_t *n)
{
	*n = d->v ? (size_t)(d->n < NOP_DIST_KEEP ? d->n : NOP_DIST_KEEP) : 0;
	return d->v;
}

void nop_dist_free(struct nop_dist *d)
{
	free(d->v);
	free(d->q);
	memset(d, 0, sizeof(*d));
}
