/* diff/diff.h - the diff area of libnopctl: two sets of runs (recordings
 * or nopctl's JSON) made profiles and compared: per function, and path by
 * path through their calling-context trees. Its header includes the one
 * of the area before it (lib/README.md: the order): a file sees its own
 * area and those below, never one above. */
#ifndef NOPCTL_AREA_DIFF_H
#define NOPCTL_AREA_DIFF_H

#include "pipeline/pipeline.h"

/* a file's calls as a profile (load.c): a trace.dat through the pipeline,
 * or nopctl's JSON lines (graph's calls, or stats' rows: then a profile
 * of rows only, aggregate set); timed(ctx, p) after each timed call put
 * in it (it may take the durations out of it). 0, or -1 with err */
int nop_diff_load(const char *path, struct nop_profile **p, int (*timed)(void *ctx, struct nop_profile *p),
		  void *ctx, struct nop_error *err);

/* A row's call times in bounded memory (dist.c): the first NOP_DIST_KEEP
 * exactly; past them, quantiles within NOP_DIST_ERROR of a true value of
 * their rank (log-wide buckets) and, where kept, a uniform sample of
 * NOP_DIST_KEEP of the values (fixed seed: reproducible). Zeroed: empty. */
#define NOP_DIST_KEEP 4096
#define NOP_DIST_ERROR 0.01
struct nop_sketch;
struct nop_dist {
	unsigned long long n;  /* values added */
	unsigned long long *v; /* the first NOP_DIST_KEEP, then the sample (NULL: none kept) */
	struct nop_sketch *q; /* NULL while v holds every value */
};
/* x added; sample: a sample kept past NOP_DIST_KEEP. 0, or -1 out of memory */
int nop_dist_add(struct nop_dist *d, unsigned long long x, bool sample);
/* the nearest-rank p-quantile, 0 < p <= 1 (0 when empty); sorts v */
unsigned long long nop_dist_pct(struct nop_dist *d, double p);
/* the median (of an even number of values kept: the mean of the two
 * middle ones); sorts v */
unsigned long long nop_dist_median(struct nop_dist *d);
/* the values kept: all of them, or the sample (*n 0: none) */
const unsigned long long *nop_dist_sample(const struct nop_dist *d, size_t *n);
void nop_dist_free(struct nop_dist *d);

/* One function, or one path, on one side over its runs: the mean per run
 * of calls and times, the range over runs of what is tested, and every
 * timed call's times pooled (struct nop_dist: bounded). */
struct nop_dagg {
	unsigned long long runs;     /* runs it had calls in */
	bool own; /* some call the program's own: a user function, or a kernel function it
		   * called (not one the kernel called within itself) */
	double calls, total, self, errors; /* mean per run */
	double cmin, cmax; /* calls per run (a path: per call of its caller) */
	double nmin, nmax; /* calls per run */
	double mmin, mmax; /* median self time per call, per run */
	double lmsum, lmsq; /* over those runs: sums of log(1 + median), of its square */
	double emin, emax; /* failed calls per call, per run */
	unsigned long long mruns; /* runs it had timed calls in (the median's range) */
	struct nop_dist dur, selfs; /* pooled: durations, self times (sampled) */
	size_t n; /* timed calls pooled */
	double med; /* their median self time */
	unsigned long long p50, p99; /* of the durations (a summary's: its own) */
	long long errv[4];
	unsigned long long errn[4];
};

/* what changed, and the test's figures */
enum { NOP_DCH_ONLY_A = 1, NOP_DCH_ONLY_B = 2, NOP_DCH_CALLS = 4, NOP_DCH_TIME = 8, NOP_DCH_ERRORS = 16 };
struct nop_dverdict {
	unsigned change; /* NOP_DCH_* */
	double p;	 /* the time test's two-sided p (several runs a side: the larger of the
			  * calls' and the runs'; NAN: no test) */
	double med_a, med_b; /* median self time per call */
};

/* what a verdict weighs a against b with: the runs a side, the calls of
 * their callers pooled (a path's parent; a function: the runs), the
 * test's level and the least change of a median that counts */
struct nop_dsides {
	size_t runs_a, runs_b;
	double callers_a, callers_b;
	double alpha, min_change;
	/* the callers' calls the same in every run of each side (the root's
	 * and a function's: yes) */
	bool callers_steady;
	/* how many of the rows compared have counts that vary from run to
	 * run: each is one more chance of a split by chance */
	size_t noisy;
	/* how many rows have calls on both sides: each is one more time test,
	 * so each is held to alpha divided by them (Bonferroni) */
	size_t timed;
};

/* a's calls (NULL: none) the same in every one of runs runs (0 in runs
 * it was not in), and some of them the program's own (dagg.own) */
bool nop_diff_steady(const struct nop_dagg *a, size_t runs);

/* a row whose time is tested: calls on both sides */
bool nop_diff_timed(const struct nop_dagg *a, const struct nop_dagg *b);

/* judges a against b (either NULL: no calls on that side) */
void nop_diff_judge(const struct nop_dagg *a, const struct nop_dagg *b, const struct nop_dsides *s,
		    struct nop_dverdict *v);

/* the chance that runs_a and runs_b runs of one program split wholly
 * apart by a measure (every run of one side above every run of the other)
 * by chance: 2 / C(runs_a + runs_b, runs_a) */
double nop_diff_split_chance(size_t runs_a, size_t runs_b);

/* several runs a side that can tell a change from noise: a split of
 * them apart is not to be expected by chance (five a side or more) */
bool nop_diff_runs_tell(size_t runs_a, size_t runs_b);

/* the two-sided p that ka events in na chances and kb in nb come at one
 * rate (the binomial test of ka given ka + kb) */
double nop_rate_test(double ka, double na, double kb, double nb);

/* Mann-Whitney U test of x against y, normal approximation with the
 * tie correction: the two-sided p (1 when either is empty) */
double nop_mann_whitney(const unsigned long long *x, size_t nx, const unsigned long long *y, size_t ny);

/* Student's t-test, variances pooled, of two samples given by their
 * sizes, sums and sums of squares: the two-sided p that they are draws of
 * one normal distribution (1 when either has fewer than two) */
double nop_pooled_t(double na, double suma, double sqa, double nb, double sumb, double sqb);

/* the two-sided tail of Student's t with df degrees of freedom:
 * P(|T| >= t) */
double nop_student_tail(double t, double df);

/* the median of v (sorted in place) */
unsigned long long nop_median(unsigned long long *v, size_t n);

/* one side: its runs' paths merged into one tree, and the figures per
 * path (tree node) and per function */
struct nop_dside {
	size_t nrun;
	struct nop_profile *tree;
	struct nop_dagg *path;	  /* per node of tree */
	size_t pathcap;
	struct nop_strmap *funcs; /* name -> struct nop_dagg */
	bool aggregate;		  /* some run is a summary's rows */
	unsigned long long lost, untimed;
};

struct nop_dfunc {
	const char *name;
	const struct nop_dagg *a, *b; /* NULL: no calls on that side */
	struct nop_dverdict v;
	double impact; /* self time per run, B less A */
};

#define NOP_DNONE ((size_t)-1)
/* a row of the call flow: a path of A's tree, of B's, or of both */
struct nop_dflow {
	size_t ma, mb; /* tree nodes (NOP_DNONE: not on that side) */
	size_t pa, pb; /* their callers' */
	int depth;
	struct nop_dverdict v;
	bool under; /* inside a subtree only one side has: its root is the change */
	bool show;  /* changed, or on the path to a change */
};

struct nop_ddiff {
	const struct nop_diff_cfg *cfg;
	struct nop_dside side[2];
	struct nop_dfunc *func;
	size_t nfunc, funccap, funcs_changed;
	struct nop_dflow *flow;
	size_t nflow, flowcap, paths_changed;
	size_t first; /* the first changed row of flow (NOP_DNONE: none) */
};

/* the comparison written in cfg's format (write.c); 0, or -1 with err */
int nop_diff_write(struct nop_ddiff *d, struct nop_error *err);

#endif
