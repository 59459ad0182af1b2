/* test_diff.c - nopctl diff: a row's bounded summary of its call times
 * (struct nop_dist: exact up to NOP_DIST_KEEP values, then quantiles
 * within NOP_DIST_ERROR and a sample of NOP_DIST_KEEP that is the same run
 * to run, whatever the number of values); the judgment of several runs a
 * side (the runs are the samples; what the kernel calls within itself is
 * never exact) and Student's t it uses. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
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

/* diff runs as nopctl graph's JSON: runs first .. first + runs - 1, in
 * which function i of names has calls calls (depth 0) whose self times
 * are med(run, i) give or take 1 %; their paths in files[] (freed by the
 * caller) */
static void diff_runs(const char *dir, int first, int runs, const char *const *names, int nnames, int calls,
		      double (*med)(int run, int i), char **files)
{
	for (int r = 0; r < runs; r++) {
		FILE *f;

		assert_true(asprintf(&files[r], "%s/run%d.json", dir, first + r) > 0);
		assert_non_null(f = fopen(files[r], "w"));
		for (int i = 0; i < nnames; i++)
			for (int k = 0; k < calls; k++) {
				unsigned long long ns = (unsigned long long)(med(first + r, i) * (0.99 + 0.02 * k / calls));

				fprintf(f, "{\"type\":\"call\",\"pid\":7,\"func\":\"%s\",\"depth\":0,"
					   "\"duration_ns\":%llu,\"self_ns\":%llu}\n",
					names[i], ns, ns);
			}
		fclose(f);
	}
}

/* runs 1-5 (A) against 6-10 (B) as diff_runs makes them: the functions
 * the diff's JSON marks changed, space-separated */
static void diff_changed(const char *dir, const char *const *names, int nnames, int calls,
			 double (*med)(int run, int i), char *got, size_t len)
{
	char *a[5], *b[5];
	struct nop_diff_cfg cfg = { .a = (const char *const *)a, .b = (const char *const *)b, .na = 5, .nb = 5,
				    .format = NOP_DIFF_JSON };
	struct nop_diff_result res;
	struct nop_error err;
	char *buf = NULL, *line, *save;
	size_t blen = 0;

	diff_runs(dir, 1, 5, names, nnames, calls, med, a);
	diff_runs(dir, 6, 5, names, nnames, calls, med, b);
	assert_non_null(cfg.out = open_memstream(&buf, &blen));
	assert_int_equal(nop_diff(&cfg, &res, &err), 0);
	fclose(cfg.out);
	for (int r = 0; r < 5; r++) {
		free(a[r]);
		free(b[r]);
	}
	got[0] = 0;
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *f = strstr(line, "\"func\":\"");

		if (strstr(line, "\"type\":\"diff_func\"") && strstr(line, "\"changed\":true") && f) {
			f += strlen("\"func\":\"");
			snprintf(got + strlen(got), len - strlen(got), "%s%.*s", got[0] ? " " : "",
				 (int)strcspn(f, "\""), f);
		}
	}
	free(buf);
}

/* run 1-5 (A) and 6-10 (B) of one build: a run's state holds for all its
 * calls (6.19, five runs of one program against five, every system
 * call's tree: lru_add's medians split apart, the pooled calls' rank
 * test at p far below alpha over the rows) */
static double same_build(int run, int i)
{
	static const double med[10] = { 1000, 1080, 1160, 1240, 1320, 1330, 1410, 1490, 1570, 1650 };

	return med[run - 1];
}

/* slow (i 0) sleeps 1 ms in runs 1-5, 2 ms in 6-10; the rest as
 * before, give or take 10 % */
static double slow_doubled(int run, int i)
{
	return i == 0 ? (run <= 5 ? 1000000 : 2000000) + 10000 * (run % 4) : 500 + 50 * (run % 3);
}

/* slow (i 0) as a guest measured it under load (6.1, 20 sleeps of 1 ms
 * against 20 of 2 ms): one of A's runs stalled a fifth longer than the
 * rest (each pair of runs still apart by half), B's runs as close as A's
 * others; the other rows as in slow_doubled */
static double slow_one_run_stalled(int run, int i)
{
	if (i)
		return slow_doubled(run, i);
	return run == 5 ? 1470000 : (run <= 5 ? 1190000 : 2200000) + 5000 * (run % 3);
}

/* Student's t tail against its closed forms (1 and 2 degrees of freedom)
 * and tabled critical values (8), far into the tail a family of rows
 * tests at */
static void student_t_tail(void **state)
{
	const double pi = 3.14159265358979323846;

	for (double t = 0.1; t < 1e4; t *= 1.7) {
		/* 1 - 2/pi atan(t) and 1 - t/sqrt(2 + t^2), without cancelling */
		double p1 = 2 / pi * atan(1 / t), p2 = 2 / (sqrt(2 + t * t) * (sqrt(2 + t * t) + t));

		assert_true(fabs(nop_student_tail(t, 1) - p1) <= 1e-9 * p1);
		assert_true(fabs(nop_student_tail(-t, 2) - p2) <= 1e-9 * p2);
	}
	assert_true(fabs(nop_student_tail(2.306, 8) - 0.05) < 1e-4);
	assert_true(fabs(nop_student_tail(5.041, 8) - 0.001) < 1e-5);
	assert_true(nop_student_tail(0, 8) == 1);
	/* pooled: -1, 1 against 1, 3: a variance of 2, a standard error of
	 * sqrt(2), 2 degrees of freedom; -1, 1 against 2, 2, 2: a variance
	 * of 2 / 3, 3 degrees of freedom (Welch's: 1, the first side's) */
	assert_true(fabs(nop_pooled_t(2, 0, 2, 2, 4, 10) - nop_student_tail(2 / sqrt(2), 2)) < 1e-12);
	assert_true(fabs(nop_pooled_t(2, 0, 2, 3, 6, 12) - nop_student_tail(2 / sqrt(2.0 / 3 * (0.5 + 1.0 / 3)), 3)) <
		    1e-12);
	assert_true(nop_pooled_t(3, 3, 3, 3, 6, 12) == 0); /* every run alike, the sides apart */
	assert_true(nop_pooled_t(1, 1, 1, 3, 6, 12) == 1);
}

/* diff, five runs a side: the runs are the samples of a time test, not
 * their calls. A split of five runs against five comes by chance once in
 * 126 rows: the spread of the runs' medians must make it unlikely, over
 * every row tested. */
static void diff_time_runs_are_the_samples(void **state)
{
	char dir[] = "/tmp/nopctl-diff-XXXXXX", got[4096], cmd[300];
	const char *one[] = { "lru_add" }, *many[301];
	char names[300][8];

	assert_non_null(mkdtemp(dir));
	/* chance: each run's 40 calls near its median, the medians split
	 * apart but spread as widely within each side (p of the runs 4e-3) */
	diff_changed(dir, one, 1, 40, same_build, got, sizeof(got));
	assert_string_equal(got, "");
	/* a sleep twice as long among 300 functions that did not change */
	many[0] = "slow";
	for (int i = 0; i < 300; i++) {
		snprintf(names[i], sizeof(names[i]), "f%d", i);
		many[i + 1] = names[i];
	}
	diff_changed(dir, many, 301, 20, slow_doubled, got, sizeof(got));
	assert_string_equal(got, "slow");
	/* one of A's runs stalled, among udiff's eight timed paths */
	diff_changed(dir, many, 8, 20, slow_one_run_stalled, got, sizeof(got));
	assert_string_equal(got, "slow");
	snprintf(cmd, sizeof(cmd), "rm -r %s", dir);
	assert_int_equal(system(cmd), 0);
}

/* diff with runs runs a side: what the kernel calls within itself follows its
 * state as much as the program. One build against itself (6.19): a timer
 * interrupt in free_pages_and_swap_cache in each of A's five runs and none
 * of B's; a slab function called 3 times in each of A's runs, 4 in B's.
 * Neither is a change; a system call only B makes is, and so is a user
 * function only B calls */
static void kernel_within_itself(int runs)
{
	char dir[] = "/tmp/nopctl-irq-XXXXXX", *a[5], *b[5], cmd[300];
	const char *row = "{\"type\":\"%s\",\"pid\":7,\"func\":\"%s\",\"depth\":%d%s}\n";
	const char *timed = ",\"duration_ns\":900,\"self_ns\":900";
	struct nop_diff_cfg cfg = { .a = (const char *const *)a, .b = (const char *const *)b,
				    .na = (size_t)runs, .nb = (size_t)runs, .format = NOP_DIFF_JSON };
	struct nop_diff_result res;
	struct nop_error err;
	char *buf = NULL;
	size_t blen = 0;

	assert_non_null(mkdtemp(dir));
	for (int r = 0; r < 2 * runs; r++) {
		char **f = r < runs ? &a[r] : &b[r - runs];
		FILE *out;

		assert_true(asprintf(f, "%s/run%d.json", dir, r + 1) > 0);
		assert_non_null(out = fopen(*f, "w"));
		fprintf(out, row, "entry", "__x64_sys_exit_group", 0, "");
		fprintf(out, row, "entry", "free_pages_and_swap_cache", 1, "");
		if (r < runs) {
			fprintf(out, row, "entry", "__sysvec_apic_timer_interrupt", 2, "");
			fprintf(out, row, "call", "hrtimer_interrupt", 3, timed);
			fprintf(out, row, "exit", "__sysvec_apic_timer_interrupt", 2, timed);
			fprintf(out, row, "call", "irq_exit_rcu", 2, timed);
		}
		fprintf(out, row, "exit", "free_pages_and_swap_cache", 1, timed);
		for (int k = 0; k < (r < runs ? 3 : 4); k++)
			fprintf(out, row, "call", "barn_replace_full_sheaf", 1, timed);
		fprintf(out, row, "exit", "__x64_sys_exit_group", 0, timed);
		if (r >= runs) {
			fprintf(out, row, "call", "__x64_sys_times", 0, timed);
			fprintf(out, row, "entry", "main", 0, ",\"binary\":\"u\"");
			fprintf(out, row, "call", "extra", 1, ",\"binary\":\"u\",\"duration_ns\":900,\"self_ns\":900");
			fprintf(out, row, "exit", "main", 0, ",\"binary\":\"u\",\"duration_ns\":1900,\"self_ns\":1000");
		} else {
			fprintf(out, row, "call", "main", 0, ",\"binary\":\"u\",\"duration_ns\":1000,\"self_ns\":1000");
		}
		fclose(out);
	}
	assert_non_null(cfg.out = open_memstream(&buf, &blen));
	assert_int_equal(nop_diff(&cfg, &res, &err), 0);
	fclose(cfg.out);
	assert_int_equal(res.funcs_changed, 2);
	assert_int_equal(res.paths_changed, 2);
	assert_non_null(strstr(buf, "\"path\":[\"__x64_sys_times\"]"));
	assert_non_null(strstr(buf, "\"path\":[\"main\",\"extra\"]"));
	free(buf);
	for (int r = 0; r < runs; r++) {
		free(a[r]);
		free(b[r]);
	}
	snprintf(cmd, sizeof(cmd), "rm -r %s", dir);
	assert_int_equal(system(cmd), 0);
}

/* five runs a side; and two and three, too few for a split of the runs to
 * tell anything but a count the program's own and the same in every run */
static void diff_kernel_within_itself_never_exact(void **state)
{
	kernel_within_itself(5);
	kernel_within_itself(3);
	kernel_within_itself(2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(exact_up_to_keep),
		cmocka_unit_test(bounded_past_keep),
		cmocka_unit_test(diff_time_runs_are_the_samples),
		cmocka_unit_test(student_t_tail),
		cmocka_unit_test(diff_kernel_within_itself_never_exact),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
