/* diff.c - nopctl diff: each side's runs loaded and merged (one tree of
 * every path seen, figures per path and per function over the runs), the
 * functions judged, and the two trees aligned into one call flow. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "diff/diff.h"

/* one run's figures of a function or path */
struct runfig {
	unsigned long long calls, total, self, errors, pcalls;
	bool own; /* some call the program's own (nop_dagg.own) */
	long long errv[4];
	unsigned long long errn[4];
	struct nop_dist selfs; /* a function's: its timed calls' self times in the run */
	struct nop_dagg *agg; /* the side's figures of the function */
};

static void errs_add(long long *errv, unsigned long long *errn, const long long *v, const unsigned long long *n)
{
	for (int i = 0; i < 4 && n[i]; i++) {
		int k;

		for (k = 0; k < 4 && errn[k] && errv[k] != v[i]; k++)
			;
		if (k < 4) {
			errv[k] = v[i];
			errn[k] += n[i];
		}
	}
}

static void range(double *lo, double *hi, double x, bool first)
{
	if (first || x < *lo)
		*lo = x;
	if (first || x > *hi)
		*hi = x;
}

/* a run's figures into a side's: sums (means later), ranges; selfs: the
 * run's timed calls' self times (its median) */
static void agg_run(struct nop_dagg *a, const struct runfig *f, struct nop_dist *selfs, bool aggregate,
		    unsigned long long p50, unsigned long long p99)
{
	double med;

	if (!f->calls)
		return;
	a->own |= f->own;
	range(&a->cmin, &a->cmax, (double)f->calls / (double)(f->pcalls ? f->pcalls : 1), !a->runs);
	range(&a->nmin, &a->nmax, (double)f->calls, !a->runs);
	range(&a->emin, &a->emax, (double)f->errors / (double)f->calls, !a->runs);
	a->runs++;
	a->calls += (double)f->calls;
	a->total += (double)f->total;
	a->self += (double)f->self;
	a->errors += (double)f->errors;
	errs_add(a->errv, a->errn, f->errv, f->errn);
	if (aggregate) {
		med = (double)f->self / (double)f->calls;
		a->p50 += p50;
		a->p99 += p99;
	} else if (selfs->n) {
		med = (double)nop_dist_median(selfs);
	} else {
		return;
	}
	range(&a->mmin, &a->mmax, med, !a->mruns++);
	double lm = log1p(med);

	a->lmsum += lm;
	a->lmsq += lm * lm;
}

/* sums to means per run; a run without calls of it had 0 of them */
static void agg_finish(struct nop_dagg *a, size_t nrun, bool aggregate)
{
	if (!a->runs)
		return;
	if (a->runs < nrun)
		a->cmin = a->nmin = 0;
	if (aggregate) {
		a->p50 /= a->runs;
		a->p99 /= a->runs;
	} else {
		a->n = (size_t)a->selfs.n;
		a->p50 = nop_dist_pct(&a->dur, 0.5);
		a->p99 = nop_dist_pct(&a->dur, 0.99);
		a->med = (double)nop_dist_median(&a->selfs);
	}
	a->calls /= (double)nrun;
	a->total /= (double)nrun;
	a->self /= (double)nrun;
	a->errors /= (double)nrun;
}

/* a call of node i the program made: a user function's, or a kernel
 * function's called from user space (a root: the functions traced) or
 * from a user function. One the kernel calls within itself depends on its
 * state as much as on the program (a batch full, a timer's interrupt,
 * the scheduler's deadline, the slab's sheaves) */
static bool own_call(const struct nop_profile *p, size_t i)
{
	const struct nop_pnode *n = &p->node[i];

	return n->user || !n->parent || p->node[n->parent].user;
}

/* a run being read into a side: where each of its profile's nodes is in
 * the side's tree, its figures per function, and per node its timed
 * calls' self times (the run's medians). The profile's durations are
 * taken out as they come (nop_diff_take), so a run's memory is its
 * paths', not its calls'. */
struct run {
	struct nop_dside *sd;
	size_t *map; /* profile node -> the side's */
	struct runnode {
		struct nop_dist selfs;
		struct runfig *f;
	} *node;
	size_t mapped, cap; /* nodes mapped; room */
	struct nop_strmap *rf; /* name -> struct runfig */
	unsigned long long pending; /* timed calls in the profile not taken yet */
};

/* the durations the profile holds into the side's rows (path and
 * function) and the run's (node and function); the profile keeps its
 * counts and sums, its arrays emptied */
static int run_take(struct run *r, struct nop_profile *p)
{
	struct nop_dside *sd = r->sd;
	size_t had = r->cap, cap;

	if (nop_grow((void **)&r->map, &r->cap, p->nnodes, sizeof(*r->map)))
		return -1;
	if (r->cap != had) { /* node has map's room */
		void *v = realloc(r->node, r->cap * sizeof(*r->node));

		if (!v)
			return -1;
		r->node = v;
	}
	r->map[0] = 0;
	for (size_t i = r->mapped ? r->mapped : 1; i < p->nnodes; i++) {
		const struct nop_pnode *n = &p->node[i];
		struct runfig *f;

		memset(&r->node[i], 0, sizeof(r->node[i]));
		if (!(r->map[i] = nop_profile_child(sd->tree, n->parent ? r->map[n->parent] : 0, n->name, true)) ||
		    !(f = nop_strmap_get(r->rf, n->name)) || (!f->agg && !(f->agg = nop_strmap_get(sd->funcs, n->name))))
			return -1;
		r->node[i].f = f;
	}
	r->mapped = p->nnodes;
	cap = sd->pathcap;
	if (nop_grow((void **)&sd->path, &sd->pathcap, sd->tree->nnodes, sizeof(*sd->path)))
		return -1;
	memset(sd->path + cap, 0, (sd->pathcap - cap) * sizeof(*sd->path));
	for (size_t i = 1; i < p->nnodes; i++) {
		struct nop_pnode *n = &p->node[i];
		struct nop_dagg *pa = &sd->path[r->map[i]], *fa = r->node[i].f->agg;

		for (size_t k = 0; k < n->timed; k++)
			if (nop_dist_add(&pa->dur, n->dur[k], false) || nop_dist_add(&pa->selfs, n->selfs[k], true) ||
			    nop_dist_add(&fa->dur, n->dur[k], false) || nop_dist_add(&fa->selfs, n->selfs[k], true) ||
			    nop_dist_add(&r->node[i].selfs, n->selfs[k], false) ||
			    nop_dist_add(&r->node[i].f->selfs, n->selfs[k], false))
				return -1;
		n->timed = 0;
		/* what a node holds between takes: a node called often gives
		 * its room back (nop_profile_add makes it again) */
		if (n->cap > 64) {
			free(n->dur);
			free(n->selfs);
			n->dur = n->selfs = NULL;
			n->cap = 0;
		}
	}
	r->pending = 0;
	return 0;
}

/* nop_diff_load's timed: the durations taken every so many calls, the
 * more nodes the fewer times (a take visits each) */
static int run_timed(void *ctx, struct nop_profile *p)
{
	struct run *r = ctx;

	return ++r->pending < (p->nnodes > 65536 ? p->nnodes : 65536) ? 0 : run_take(r, p);
}

/* the run read whole: what the profile still holds taken, and its
 * figures into the side's per path and per function */
static int run_end(struct run *r, const struct nop_profile *p)
{
	struct nop_dside *sd = r->sd;

	if (run_take(r, (struct nop_profile *)p))
		return -1;
	for (size_t i = 1; i < p->nnodes; i++) {
		const struct nop_pnode *n = &p->node[i];
		struct runfig *f = r->node[i].f, pf = {
			.calls = n->calls, .total = n->total, .self = n->self, .errors = n->errors, .own = own_call(p, i),
			.pcalls = n->parent ? p->node[n->parent].calls : 1,
		};

		f->own |= pf.own;
		f->calls += n->calls;
		f->total += n->total;
		f->self += n->self;
		f->errors += n->errors;
		f->pcalls = 1;
		errs_add(f->errv, f->errn, n->errv, n->errn);
		memcpy(pf.errv, n->errv, sizeof(pf.errv));
		memcpy(pf.errn, n->errn, sizeof(pf.errn));
		agg_run(&sd->path[r->map[i]], &pf, &r->node[i].selfs, p->aggregate, n->p50, n->p99);
	}
	for (size_t i = 0; i < nop_strmap_size(r->rf); i++) {
		const char *name;
		struct runfig *f = nop_strmap_at(r->rf, i, &name);
		size_t at = p->aggregate ? nop_profile_child((struct nop_profile *)p, 0, name, false) : 0;

		agg_run(f->agg, f, &f->selfs, p->aggregate, p->node[at].p50, p->node[at].p99);
	}
	return 0;
}

static void run_free(struct run *r)
{
	for (size_t i = 1; i < r->mapped; i++)
		nop_dist_free(&r->node[i].selfs);
	for (size_t i = 0; r->rf && i < nop_strmap_size(r->rf); i++)
		nop_dist_free(&((struct runfig *)nop_strmap_at(r->rf, i, NULL))->selfs);
	nop_strmap_free(r->rf);
	free(r->map);
	free(r->node);
}

/* the sides' figures for judging children of (pa, pb): their callers'
 * calls pooled over the runs (the root: one a run) */
static struct nop_dsides sides_of(const struct nop_ddiff *d, size_t pa, size_t pb)
{
	const struct nop_dside *a = &d->side[0], *b = &d->side[1];

	return (struct nop_dsides){
		.runs_a = a->nrun, .runs_b = b->nrun,
		.callers_a = pa == NOP_DNONE ? 0 : pa ? a->path[pa].calls * (double)a->nrun : (double)a->nrun,
		.callers_b = pb == NOP_DNONE ? 0 : pb ? b->path[pb].calls * (double)b->nrun : (double)b->nrun,
		.alpha = d->cfg->alpha, .min_change = d->cfg->min_change,
		.callers_steady = (!pa || pa == NOP_DNONE || nop_diff_steady(&a->path[pa], a->nrun)) &&
				  (!pb || pb == NOP_DNONE || nop_diff_steady(&b->path[pb], b->nrun)),
	};
}

static const struct nop_dagg *row_agg(const struct nop_ddiff *d, int side, size_t m)
{
	return m == NOP_DNONE ? NULL : &d->side[side].path[m];
}

/* every row judged, knowing how many vary from run to run */
static void flow_judge(struct nop_ddiff *d)
{
	size_t noisy = 0, timed = 0;

	for (size_t i = 0; i < d->nflow; i++) {
		const struct nop_dagg *a = row_agg(d, 0, d->flow[i].ma), *b = row_agg(d, 1, d->flow[i].mb);

		noisy += !nop_diff_steady(a, d->side[0].nrun) || !nop_diff_steady(b, d->side[1].nrun);
		timed += nop_diff_timed(a, b);
	}
	for (size_t i = 0; i < d->nflow; i++) {
		struct nop_dflow *r = &d->flow[i];
		struct nop_dsides s = sides_of(d, r->pa, r->pb);

		s.noisy = noisy;
		s.timed = timed;
		nop_diff_judge(row_agg(d, 0, r->ma), row_agg(d, 1, r->mb), &s, &r->v);
	}
}

/* a row: ma, mb children of pa, pb (the path's caller on each side) */
static int flow_push(struct nop_ddiff *d, size_t pa, size_t pb, size_t ma, size_t mb, int depth, bool under)
{
	struct nop_dflow *r;

	if (nop_grow((void **)&d->flow, &d->flowcap, d->nflow + 1, sizeof(*d->flow)))
		return -1;
	r = &d->flow[d->nflow++];
	memset(r, 0, sizeof(*r));
	r->ma = ma;
	r->mb = mb;
	r->pa = pa;
	r->pb = pb;
	r->depth = depth;
	r->under = under;
	return 0;
}

static size_t children(const struct nop_profile *t, size_t m, size_t **v, size_t *cap)
{
	size_t n = 0;

	if (m == NOP_DNONE)
		return 0;
	for (size_t c = t->node[m].first; c; c = t->node[c].next) {
		if (nop_grow((void **)v, cap, n + 1, sizeof(**v)))
			return (size_t)-1;
		(*v)[n++] = c;
	}
	return n;
}

static int cmp_size(const void *a, const void *b)
{
	size_t x = *(const size_t *)a, y = *(const size_t *)b;

	return x < y ? -1 : x > y;
}

static int flow_node(struct nop_ddiff *d, size_t pa, size_t pb, size_t ma, size_t mb, int depth, bool under);

/* The children of a path on both sides, in one order. A name is one child
 * per path (a calling-context tree), so children pair by name; the pairs
 * that keep their order on both sides (the longest such run, found as the
 * longest increasing subsequence of B's positions in A's order) anchor
 * the alignment, and an added or removed child shifts nothing after it. A
 * pair out of that order is shown at B's place: the order children were
 * first seen in varies from run to run (an interrupt's entry), no change. */
static int flow_children(struct nop_ddiff *d, size_t ma, size_t mb, int depth, bool under)
{
	struct nop_profile *ta = d->side[0].tree, *tb = d->side[1].tree;
	size_t *ca = NULL, *cb = NULL, capa = 0, capb = 0, na, nb;
	size_t *pos = NULL, *tail = NULL, *prev = NULL, *inlis = NULL, *pairb = NULL, ntail = 0;
	int ret = -1;

	na = children(ta, ma, &ca, &capa);
	nb = children(tb, mb, &cb, &capb);
	if (na == (size_t)-1 || nb == (size_t)-1)
		goto out;
	pos = malloc((na + 1) * sizeof(*pos));
	tail = malloc((na + 1) * sizeof(*tail));
	prev = malloc((na + 1) * sizeof(*prev));
	inlis = calloc(na + 1, sizeof(*inlis));
	pairb = malloc((nb + 1) * sizeof(*pairb));
	if (!pos || !tail || !prev || !inlis || !pairb)
		goto out;
	/* pos[i]: where A's i-th child's name is among B's children (a node's
	 * children were made in order: their indices ascend) */
	for (size_t j = 0; j < nb; j++)
		pairb[j] = NOP_DNONE;
	for (size_t i = 0; i < na; i++) {
		size_t c = mb == NOP_DNONE ? 0 : nop_profile_child(tb, mb, ta->node[ca[i]].name, false);
		size_t *at = c ? bsearch(&c, cb, nb, sizeof(*cb), cmp_size) : NULL;

		pos[i] = at ? (size_t)(at - cb) : NOP_DNONE;
		if (at)
			pairb[pos[i]] = i;
	}
	/* patience sorting: tail[k] the A index ending the best run of k+1 */
	for (size_t i = 0; i < na; i++) {
		size_t lo = 0, hi = ntail;

		if (pos[i] == NOP_DNONE)
			continue;
		while (lo < hi) {
			size_t mid = (lo + hi) / 2;

			if (pos[tail[mid]] < pos[i])
				lo = mid + 1;
			else
				hi = mid;
		}
		prev[i] = lo ? tail[lo - 1] : NOP_DNONE;
		tail[lo] = i;
		if (lo == ntail)
			ntail++;
	}
	for (size_t i = ntail ? tail[ntail - 1] : NOP_DNONE; i != NOP_DNONE; i = prev[i])
		inlis[i] = 1;
	{
		size_t i = 0;

		for (size_t j = 0; j < nb; j++) {
			size_t pa = pairb[j];

			if (pa != NOP_DNONE && inlis[pa]) {
				/* A's removed children before this anchor */
				for (; i < pa; i++)
					if (pos[i] == NOP_DNONE && flow_node(d, ma, mb, ca[i], NOP_DNONE, depth, under))
						goto out;
				i = pa + 1;
			}
			if (pa == NOP_DNONE ? flow_node(d, ma, mb, NOP_DNONE, cb[j], depth, under)
					    : (flow_push(d, ma, mb, ca[pa], cb[j], depth, under) ||
					       flow_children(d, ca[pa], cb[j], depth + 1, under)))
				goto out;
		}
		for (; i < na; i++)
			if (pos[i] == NOP_DNONE && flow_node(d, ma, mb, ca[i], NOP_DNONE, depth, under))
				goto out;
	}
	ret = 0;
out:
	free(ca);
	free(cb);
	free(pos);
	free(tail);
	free(prev);
	free(inlis);
	free(pairb);
	return ret;
}

/* a path one side lacks: its row, and its subtree under it */
static int flow_node(struct nop_ddiff *d, size_t pa, size_t pb, size_t ma, size_t mb, int depth, bool under)
{
	return flow_push(d, pa, pb, ma, mb, depth, under) || flow_children(d, ma, mb, depth + 1, true);
}

/* rows to show: the changes (a subtree one side lacks: whole), and the
 * paths to them */
static void flow_mark(struct nop_ddiff *d)
{
	size_t stack[NOP_GRAPH_MAX_DEPTH * 4];
	bool in_changed = false;
	int changed_depth = 0;

	d->first = NOP_DNONE;
	for (size_t i = 0; i < d->nflow; i++) {
		struct nop_dflow *r = &d->flow[i];

		if (r->depth < (int)(sizeof(stack) / sizeof(stack[0])))
			stack[r->depth] = i;
		if (in_changed && r->depth <= changed_depth)
			in_changed = false;
		if (r->under) {
			r->show = in_changed || d->cfg->all;
			continue;
		}
		r->show = d->cfg->all;
		if (!r->v.change)
			continue;
		d->paths_changed++;
		if (d->first == NOP_DNONE)
			d->first = i;
		for (int k = 0; k <= r->depth && k < (int)(sizeof(stack) / sizeof(stack[0])); k++)
			d->flow[stack[k]].show = true;
		if (r->v.change & (NOP_DCH_ONLY_A | NOP_DCH_ONLY_B)) {
			in_changed = true;
			changed_depth = r->depth;
		}
	}
}

static int cmp_func(const void *x, const void *y)
{
	const struct nop_dfunc *a = x, *b = y;
	double ia = fabs(a->impact), ib = fabs(b->impact);

	return ia > ib ? -1 : ia < ib ? 1 : strcmp(a->name, b->name);
}

static int funcs_judge(struct nop_ddiff *d)
{
	struct nop_dsides fs = sides_of(d, 0, 0); /* a function's calls per run */

	for (int s = 0; s < 2; s++) {
		struct nop_strmap *m = d->side[s].funcs;

		for (size_t i = 0; i < nop_strmap_size(m); i++) {
			const char *name;
			struct nop_dagg *a = nop_strmap_at(m, i, &name);
			struct nop_dfunc *f;

			if (s && nop_strmap_find(d->side[0].funcs, name))
				continue;
			if (nop_grow((void **)&d->func, &d->funccap, d->nfunc + 1, sizeof(*d->func)))
				return -1;
			f = &d->func[d->nfunc++];
			f->name = name;
			f->a = s ? NULL : a;
			f->b = s ? a : nop_strmap_find(d->side[1].funcs, name);
			f->impact = (f->b ? f->b->self : 0) - (f->a ? f->a->self : 0);
			fs.noisy += !nop_diff_steady(f->a, d->side[0].nrun) || !nop_diff_steady(f->b, d->side[1].nrun);
			fs.timed += nop_diff_timed(f->a, f->b);
		}
	}
	for (size_t i = 0; i < d->nfunc; i++) {
		nop_diff_judge(d->func[i].a, d->func[i].b, &fs, &d->func[i].v);
		d->funcs_changed += d->func[i].v.change != 0;
	}
	if (d->nfunc)
		qsort(d->func, d->nfunc, sizeof(*d->func), cmp_func);
	return 0;
}

static int side_load(struct nop_dside *sd, const char *const *files, size_t n, struct nop_error *err)
{
	if (!(sd->tree = nop_profile_new()) ||
	    !(sd->funcs = nop_strmap_new(sizeof(struct nop_dagg)))) {
		nop_error_set(err, NOP_EINTERNAL, ENOMEM, "out of memory");
		return -1;
	}
	for (size_t i = 0; i < n; i++) {
		struct nop_profile *p;
		struct run r = { .sd = sd, .rf = nop_strmap_new(sizeof(struct runfig)) };
		int ret;

		if (!r.rf) {
			nop_error_set(err, NOP_EINTERNAL, ENOMEM, "out of memory");
			return -1;
		}
		if (nop_diff_load(files[i], &p, run_timed, &r, err)) {
			run_free(&r);
			return -1;
		}
		sd->nrun++;
		sd->aggregate |= p->aggregate;
		sd->lost += p->lost;
		sd->untimed += p->untimed;
		/* the run's figures are in the side's now, its names in the
		 * side's tree and map: the run itself goes */
		ret = run_end(&r, p);
		run_free(&r);
		nop_profile_free(p);
		if (ret) {
			nop_error_set(err, NOP_EINTERNAL, ENOMEM, "out of memory comparing %s", files[i]);
			return -1;
		}
	}
	/* the side is whole: its paths' figures take no more room than its
	 * paths (grown by doubling, up to half was spare) */
	if (sd->pathcap > sd->tree->nnodes) {
		struct nop_dagg *v = realloc(sd->path, sd->tree->nnodes * sizeof(*v));

		if (v) {
			sd->path = v;
			sd->pathcap = sd->tree->nnodes;
		}
	}
	for (size_t i = 1; i < sd->tree->nnodes; i++)
		agg_finish(&sd->path[i], sd->nrun, sd->aggregate);
	for (size_t i = 0; i < nop_strmap_size(sd->funcs); i++)
		agg_finish(nop_strmap_at(sd->funcs, i, NULL), sd->nrun, sd->aggregate);
	return 0;
}

static void agg_free(struct nop_dagg *a)
{
	nop_dist_free(&a->dur);
	nop_dist_free(&a->selfs);
}

static void side_free(struct nop_dside *sd)
{
	for (size_t i = 0; sd->path && i < sd->tree->nnodes && i < sd->pathcap; i++)
		agg_free(&sd->path[i]);
	free(sd->path);
	nop_profile_free(sd->tree);
	for (size_t i = 0; sd->funcs && i < nop_strmap_size(sd->funcs); i++)
		agg_free(nop_strmap_at(sd->funcs, i, NULL));
	nop_strmap_free(sd->funcs);
}

int nop_diff(const struct nop_diff_cfg *cfg, struct nop_diff_result *res, struct nop_error *err)
{
	struct nop_diff_cfg c = *cfg;
	struct nop_ddiff d = { .cfg = &c, .first = NOP_DNONE };
	int ret = -1;

	memset(res, 0, sizeof(*res));
	if (!c.alpha)
		c.alpha = 0.001;
	/* between two runs of one binary the median self time of a small
	 * function called often moves by up to a quarter on a host, by half
	 * under an emulator: one run a side needs a larger move */
	if (!c.min_change)
		c.min_change = c.na == 1 && c.nb == 1 ? 0.5 : 0.2;
	if (side_load(&d.side[0], c.a, c.na, err) || side_load(&d.side[1], c.b, c.nb, err))
		goto out;
	if (funcs_judge(&d) ||
	    (!d.side[0].aggregate && !d.side[1].aggregate && flow_children(&d, 0, 0, 0, false))) {
		nop_error_set(err, NOP_EINTERNAL, ENOMEM, "out of memory comparing the runs");
		goto out;
	}
	flow_judge(&d);
	flow_mark(&d);
	if (nop_diff_write(&d, err))
		goto out;
	res->funcs_changed = d.funcs_changed;
	res->paths_changed = d.paths_changed;
	res->lost = d.side[0].lost + d.side[1].lost;
	res->untimed = d.side[0].untimed + d.side[1].untimed;
	ret = 0;
out:
	side_free(&d.side[0]);
	side_free(&d.side[1]);
	free(d.func);
	free(d.flow);
	return ret;
}
