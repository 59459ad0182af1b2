/* test_diff.c - diff's bounded summary of a row's call times (struct
 * nop_dist): exact up to NOP_DIST_KEEP values, then quantiles within
 * NOP_DIST_ERROR and a sample of NOP_DIST_KEEP that is the same run to
 * run, whatever the number of values. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "../../lib/internal.h"

/* a fixed spread of call times: 400 ns to some 400 us, skewed */
static unsigned long long value(unsigned long long i)
{
	unsigned long long h = (i + 1) * 0x9e3779b97f4a7c15ULL;

	h ^= h >> 29;
	return 400 + (h % 1000) * (h % 1000) * (h % 400) / 1000;
}

static int cmp_u64(const void *a, const void *b)
{
	unsigned long long x = *(const unsigned long long *)a, y = *(const unsigned long long *)b;

	return x < y ? -1 : x > y;
}

/* every value kept: the figures those of the values themselves */
static void exact_up_to_keep(void **state)
{
	struct nop_dist d = { 0 };
	unsigned long long v[NOP_DIST_KEEP];
	size_t n;

	for (unsigned long long i = 0; i < NOP_DIST_KEEP; i++)
		assert_int_equal(nop_dist_add(&d, v[i] = value(i), true), 0);
	qsort(v, NOP_DIST_KEEP, sizeof(v[0]), cmp_u64);
	assert_int_equal(nop_dist_pct(&d, 0.99), v[(size_t)ceil(0.99 * NOP_DIST_KEEP) - 1]);
	assert_int_equal(nop_dist_median(&d), v[NOP_DIST_KEEP / 2 - 1] / 2 + v[NOP_DIST_KEEP / 2] / 2 +
						      (v[NOP_DIST_KEEP / 2 - 1] % 2 + v[NOP_DIST_KEEP / 2] % 2) / 2);
	assert_non_null(nop_dist_sample(&d, &n));
	assert_int_equal(n, NOP_DIST_KEEP);
	nop_dist_free(&d);
}

/* 100 times as many: each quantile within NOP_DIST_ERROR of the true
 * one, the sample NOP_DIST_KEEP values of them, the same twice */
static void bounded_past_keep(void **state)
{
	enum { N = 100 * NOP_DIST_KEEP };
	struct nop_dist d = { 0 }, e = { 0 }, t = { 0 };
	unsigned long long *v = malloc(N * sizeof(*v));
	const double ps[] = { 0.01, 0.25, 0.5, 0.9, 0.99, 1 };
	size_t n, m;

	assert_non_null(v);
	for (unsigned long long i = 0; i < N; i++) {
		assert_int_equal(nop_dist_add(&d, v[i] = value(i), true), 0);
		assert_int_equal(nop_dist_add(&e, value(i), true), 0);
		assert_int_equal(nop_dist_add(&t, value(i), false), 0);
	}
	qsort(v, N, sizeof(v[0]), cmp_u64);
	for (size_t k = 0; k < sizeof(ps) / sizeof(ps[0]); k++) {
		double want = (double)v[(size_t)ceil(ps[k] * N) - 1];

		assert_true(fabs((double)nop_dist_pct(&d, ps[k]) - want) <= NOP_DIST_ERROR * want + 0.5);
		assert_true(nop_dist_pct(&t, ps[k]) == nop_dist_pct(&d, ps[k]));
	}
	assert_true(fabs((double)nop_dist_median(&d) - (double)v[N / 2 - 1]) <= NOP_DIST_ERROR * (double)v[N / 2 - 1] + 0.5);
	const unsigned long long *s = nop_dist_sample(&d, &n), *s2 = nop_dist_sample(&e, &m);

	assert_int_equal(n, NOP_DIST_KEEP);
	assert_int_equal(m, NOP_DIST_KEEP);
	assert_memory_equal(s, s2, n * sizeof(*s));
	/* a uniform sample of the whole: of values 0 .. N-1 in order, a
	 * tenth from the last tenth, give or take (4,096 draws: 410 +- 19) */
	{
		struct nop_dist u = { 0 };
		size_t late = 0;

		for (unsigned long long i = 0; i < N; i++)
			assert_int_equal(nop_dist_add(&u, i, true), 0);
		s = nop_dist_sample(&u, &n);
		for (size_t i = 0; i < n; i++)
			late += s[i] >= N - N / 10;
		assert_in_range(late, 330, 490);
		nop_dist_free(&u);
	}
	/* no sample asked: none kept */
	assert_null(nop_dist_sample(&t, &n));
	assert_int_equal(n, 0);
	nop_dist_free(&d);
	nop_dist_free(&e);
	nop_dist_free(&t);
	free(v);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(exact_up_to_keep),
		cmocka_unit_test(bounded_past_keep),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
