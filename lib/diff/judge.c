/* judge.c - whether a function or a path changed between the sides.
 * Calls are counts: exact when each side's runs agree (a deterministic
 * program), else tested (nop_rate_test); failures changed when the ranges
 * over each side's runs do not meet (one run each: when they differ); with
 * too few runs a side for a split of them to tell, exact counts only. Time is
 * judged on self time per call (a caller's total moves with every callee,
 * its self time only with itself). One run a side: the Mann-Whitney U
 * test, a rank test that assumes no distribution (call times are skewed,
 * with long tails), on every call of either side at alpha. Several runs a
 * side: the calls of one run share its state and are no independent
 * samples, so the runs must tell too: the rank test of the pooled calls,
 * every run's median of one side apart from every run's of the other,
 * and Student's t-test of the logs of those medians (a median's log is
 * near normal; a ratio of times is a difference of logs), both tests at
 * alpha divided by the rows tested. The t-test pools the sides' variances:
 * its null is that both sides' runs are draws of one program under one
 * state, so of one variance, and that null's t has na + nb - 2 degrees of
 * freedom whatever the runs show. (Welch's degrees of freedom fall toward
 * those of the wider side alone when the other's runs agree closely: one
 * run of five stalled by a fifth then hides a doubling.) Either way the
 * pooled median must move at least min_change of itself. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "diff/diff.h"

static int cmp_u64(const void *a, const void *b)
{
	unsigned long long x = *(const unsigned long long *)a, y = *(const unsigned long long *)b;

	return x < y ? -1 : x > y;
}

unsigned long long nop_median(unsigned long long *v, size_t n)
{
	if (!n)
		return 0;
	qsort(v, n, sizeof(*v), cmp_u64);
	return n % 2 ? v[n / 2] : v[n / 2 - 1] / 2 + v[n / 2] / 2 + (v[n / 2 - 1] % 2 + v[n / 2] % 2) / 2;
}

struct ranked {
	unsigned long long v;
	int x; /* of the first sample */
};

static int cmp_ranked(const void *a, const void *b)
{
	return cmp_u64(&((const struct ranked *)a)->v, &((const struct ranked *)b)->v);
}

double nop_mann_whitney(const unsigned long long *x, size_t nx, const unsigned long long *y, size_t ny)
{
	size_t n = nx + ny;
	struct ranked *z;
	double rx = 0, ties = 0, u, mu, var, d;

	if (!nx || !ny || !(z = malloc(n * sizeof(*z))))
		return 1;
	for (size_t i = 0; i < nx; i++)
		z[i] = (struct ranked){ x[i], 1 };
	for (size_t i = 0; i < ny; i++)
		z[nx + i] = (struct ranked){ y[i], 0 };
	qsort(z, n, sizeof(*z), cmp_ranked);
	for (size_t i = 0, j; i < n; i = j) {
		double rank, t;

		for (j = i + 1; j < n && z[j].v == z[i].v; j++)
			;
		/* tied values share the mean of their ranks i+1 .. j */
		rank = ((double)i + 1 + (double)j) / 2;
		for (size_t k = i; k < j; k++)
			if (z[k].x)
				rx += rank;
		t = (double)(j - i);
		ties += t * t * t - t;
	}
	free(z);
	u = rx - (double)nx * ((double)nx + 1) / 2;
	mu = (double)nx * (double)ny / 2;
	var = (double)nx * (double)ny / 12 * (((double)n + 1) - ties / ((double)n * ((double)n - 1)));
	if (var <= 0)
		return 1; /* every value the same */
	/* continuity correction: U moves in steps of 1 */
	d = fabs(u - mu) - 0.5;
	return d <= 0 ? 1 : erfc(d / sqrt(var) / sqrt(2));
}

/* do [amin, amax] and [bmin, bmax] lie apart (beyond rounding of ratios)? */
static bool apart(double amin, double amax, double bmin, double bmax)
{
	double eps = 1e-9 * fmax(fmax(fabs(amax), fabs(bmax)), 1);

	return amax + eps < bmin || bmax + eps < amin;
}

double nop_rate_test(double ka, double na, double kb, double nb)
{
	double k = round(ka + kb), x = round(ka), p0, lo = 0, hi = 0;

	if (k <= 0 || na <= 0 || nb <= 0)
		return 1;
	p0 = na / (na + nb);
	if (k > 5000) { /* the normal approximation, continuity corrected */
		double sd = sqrt(k * p0 * (1 - p0)), d = fabs(x - k * p0) - 0.5;

		return d <= 0 || sd <= 0 ? 1 : erfc(d / sd / sqrt(2));
	}
	/* exact: P(X <= x) and P(X >= x), X ~ Binomial(k, p0) */
	for (double i = 0; i <= k; i++) {
		double t = exp(lgamma(k + 1) - lgamma(i + 1) - lgamma(k - i + 1) + i * log(p0) +
			       (k - i) * log1p(-p0));

		if (i <= x)
			lo += t;
		if (i >= x)
			hi += t;
	}
	return fmin(1, 2 * fmin(lo, hi));
}

/* the continued fraction of the incomplete beta function I_x(a, b)
 * (modified Lentz), converging for x < (a + 1) / (a + b + 2) */
static double beta_fraction(double a, double b, double x)
{
	const double tiny = 1e-300;
	double c = 1, d = 1 - (a + b) * x / (a + 1), h;

	d = 1 / (fabs(d) < tiny ? tiny : d);
	h = d;
	for (int m = 1; m <= 500; m++) {
		double m2 = 2.0 * m, del;
		double num[2] = { m * (b - m) * x / ((a - 1 + m2) * (a + m2)),
				  -(a + m) * (a + b + m) * x / ((a + m2) * (a + 1 + m2)) };

		for (int k = 0; k < 2; k++) {
			d = 1 + num[k] * d;
			d = 1 / (fabs(d) < tiny ? tiny : d);
			c = 1 + num[k] / c;
			c = fabs(c) < tiny ? tiny : c;
			h *= del = d * c;
		}
		if (fabs(del - 1) < 1e-15)
			break;
	}
	return h;
}

/* the regularized incomplete beta function I_x(a, b) */
static double beta_reg(double a, double b, double x)
{
	double front;

	if (x <= 0)
		return 0;
	if (x >= 1)
		return 1;
	front = exp(lgamma(a + b) - lgamma(a) - lgamma(b) + a * log(x) + b * log1p(-x));
	return x < (a + 1) / (a + b + 2) ? front * beta_fraction(a, b, x) / a
					  : 1 - front * beta_fraction(b, a, 1 - x) / b;
}

double nop_student_tail(double t, double df)
{
	if (isnan(t) || df <= 0)
		return 1;
	if (isinf(t))
		return 0;
	return beta_reg(df / 2, 0.5, df / (df + t * t));
}

double nop_pooled_t(double na, double suma, double sqa, double nb, double sumb, double sqb)
{
	double ma, mb, ssa, ssb, df, se2;

	if (na < 2 || nb < 2)
		return 1;
	ma = suma / na;
	mb = sumb / nb;
	ssa = fmax(0, sqa - na * ma * ma);
	ssb = fmax(0, sqb - nb * mb * mb);
	df = na + nb - 2;
	se2 = (ssa + ssb) / df * (1 / na + 1 / nb);
	/* every run of each side the same (beyond rounding of the sums) */
	if (se2 <= 1e-12 * fmax(1, fmax(ma * ma, mb * mb)))
		return fabs(ma - mb) <= 1e-6 * fmax(1, fmax(fabs(ma), fabs(mb))) ? 1 : 0;
	return nop_student_tail((mb - ma) / sqrt(se2), df);
}

bool nop_diff_timed(const struct nop_dagg *a, const struct nop_dagg *b)
{
	return a && b && a->runs && b->runs && ((a->n && b->n) || (a->calls && b->calls));
}

bool nop_diff_steady(const struct nop_dagg *a, size_t runs)
{
	return !a || !a->runs || (a->runs == runs && a->nmin == a->nmax && a->own);
}

double nop_diff_split_chance(size_t runs_a, size_t runs_b)
{
	double n = (double)(runs_a + runs_b);

	return fmin(1, 2 / exp(lgamma(n + 1) - lgamma((double)runs_a + 1) - lgamma((double)runs_b + 1)));
}

/* the most a split of the runs may be expected by chance to count: five
 * runs a side (2 in 252) are the fewest that pass */
#define SPLIT_LEVEL 0.01

bool nop_diff_runs_tell(size_t runs_a, size_t runs_b)
{
	return runs_a > 1 && runs_b > 1 && nop_diff_split_chance(runs_a, runs_b) < SPLIT_LEVEL;
}

void nop_diff_judge(const struct nop_dagg *a, const struct nop_dagg *b, const struct nop_dsides *s,
		    struct nop_dverdict *v)
{
	bool ina = a && a->runs, inb = b && b->runs, single = s->runs_a == 1 && s->runs_b == 1;
	/* several runs a side: a run's state (a page list empty or not, a
	 * timer armed) holds for all its calls, so calls of one run are no
	 * independent samples and only a split of the runs themselves is
	 * evidence; with too few runs no split is (two against three: 1 in 5
	 * by chance), and only exact counts are judged */
	bool runs_tell = nop_diff_runs_tell(s->runs_a, s->runs_b);
	/* time, several runs a side: one test per row with calls on both
	 * sides, the family held to alpha (five runs of one build against
	 * five, every system call's tree, found RCU callbacks at p 6e-5 to
	 * 8e-4 without it); one run a side: each row at alpha, as a run's
	 * own conditions move times anyway */
	double rel, level = single ? s->alpha : s->alpha / (double)(s->timed ? s->timed : 1);

	memset(v, 0, sizeof(*v));
	v->p = NAN;
	if (!ina && !inb)
		return;
	/* calls: one run a side, any difference; several, every run of one
	 * side apart from every run of the other. A count the same in every
	 * run of each side, under callers whose counts are too, is a
	 * program's own (exact); one that varies, or one the kernel makes
	 * only within itself (whose count follows its state as much as the
	 * program: a timer's interrupt landing in all five runs of A and in
	 * none of B's, 6.19), is the system's state (a
	 * batch drained, a slab's slow path) and each such row is one more
	 * chance of a split by chance: its split must be that much less
	 * likely (Bonferroni), and the rates per call of the caller told
	 * apart by the binomial test of the pooled counts */
	bool exact = nop_diff_steady(a, s->runs_a) && nop_diff_steady(b, s->runs_b) && s->callers_steady;
	/* too few runs for a split to tell (two to four a side, or one
	 * against several): an exact count still is the program's own, the
	 * same however many runs show it (present in every run of one side
	 * and in none of the other, or one count in every run of each side
	 * and another between them); the rest is left unjudged */
	bool counts_judged = single || runs_tell || exact;

	if (counts_judged && (!ina || !inb || apart(a->cmin, a->cmax, b->cmin, b->cmax)) &&
	    (single || exact ||
	     (nop_diff_split_chance(s->runs_a, s->runs_b) * (double)(s->noisy ? s->noisy : 1) < SPLIT_LEVEL &&
	      nop_rate_test(ina ? a->calls * (double)s->runs_a : 0, s->callers_a, inb ? b->calls * (double)s->runs_b : 0,
			    s->callers_b) < s->alpha)))
		v->change |= !ina ? NOP_DCH_ONLY_B : !inb ? NOP_DCH_ONLY_A : NOP_DCH_CALLS;
	if (!ina || !inb)
		return;
	/* failures per call: with too few runs, exact only as the calls are,
	 * one rate in every run of each side */
	if ((a->errors || b->errors) &&
	    (single || runs_tell || (exact && a->emin == a->emax && b->emin == b->emax)) &&
	    apart(a->emin, a->emax, b->emin, b->emax))
		v->change |= NOP_DCH_ERRORS;
	if (a->n && b->n) {
		size_t na, nb;
		const unsigned long long *sa = nop_dist_sample(&a->selfs, &na), *sb = nop_dist_sample(&b->selfs, &nb);

		v->med_a = a->med;
		v->med_b = b->med;
		v->p = nop_mann_whitney(sa, na, sb, nb);
	} else if (a->calls && b->calls) { /* summaries' rows: the means per call, no calls to test */
		v->med_a = a->self / a->calls;
		v->med_b = b->self / b->calls;
	} else {
		return;
	}
	if (!single) /* the calls' test and the runs': the larger p */
		v->p = fmax(isnan(v->p) ? 0 : v->p,
			    nop_pooled_t((double)a->mruns, a->lmsum, a->lmsq, (double)b->mruns, b->lmsum, b->lmsq));
	rel = v->med_a > 0 ? (v->med_b - v->med_a) / v->med_a : v->med_b > 0 ? INFINITY : 0;
	if (fabs(rel) < s->min_change)
		return;
	if (single ? !isnan(v->p) && v->p < level
		   : runs_tell && v->p < level && apart(a->mmin, a->mmax, b->mmin, b->mmax))
		v->change |= NOP_DCH_TIME;
}
