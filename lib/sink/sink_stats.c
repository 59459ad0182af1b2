/* sink_stats.c - one summary of a function_graph run: per function the
 * calls, total, self, average, min, max, p50, p99 and the deepest level it
 * was seen at. Memory grows with the number of functions, not the run:
 * durations go into a log-linear histogram (8 steps per power of two,
 * percentiles within 12.5 %). --hist prints one function's log2 buckets
 * like perf ftrace latency. With intervals, calls go to the interval's
 * row, printed (or kept for a live view) and added to the whole run's at
 * each tick: the per-call work is the same, memory still one pair of rows
 * per function. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "sink/sink.h"

#define SUB 8 /* steps per power of two */
#define NBUCKETS (16 + 60 * SUB)

struct fstat {
	unsigned long long calls, total, self, min, max;
	int max_depth;
	const char *name;   /* as shown: the end of its key (funcs) */
	const char *binary; /* a user function's, else NULL */
	/* --retval: calls whose return value came, those that returned a
	 * negative errno, and the errnos (the first 4 kinds seen) */
	unsigned long long returned, errors;
	long long errv[4];
	unsigned long long errn[4];
	/* off CPU during its calls, by state, and while no callee was open */
	unsigned long long off[NOP_OFF_STATES], off_self;
	unsigned int hist[NBUCKETS];
};

/* address -> its function's stats: a call's address is looked up here
 * first, so a name is resolved and hashed once per function, not per call.
 * Open addressing; f == NULL is an empty slot. */
struct byaddr {
	unsigned long long addr;
	struct fstat *f;
};

struct stats {
	struct nop_stats_cfg cfg;
	struct nop_strmap *funcs;
	int max_depth;
	struct byaddr *slot;
	size_t nslot, used;
	bool retvals; /* some call had its return value: the errors column */
	struct nop_strmap *events; /* kernel events (-e): their counts, by name */
	bool offcpu; /* some call was off CPU: its columns */
	/* intervals: each function's value is two rows, [0] the interval's
	 * (calls go there), [1] the whole run's */
	unsigned long long ticks;
	struct nop_stat_row *rows; /* the last interval's, reused */
	size_t nrows, caprows;
};

/* the whole run's row of a function's value */
static struct fstat *whole(const struct stats *st, struct fstat *f)
{
	return st->cfg.interval ? f + 1 : f;
}

static struct byaddr *slot_of(struct byaddr *t, size_t n, unsigned long long addr)
{
	size_t i = (size_t)((addr * 0x9e3779b97f4a7c15ULL) >> 20) & (n - 1);

	while (t[i].f && t[i].addr != addr)
		i = (i + 1) & (n - 1);
	return &t[i];
}

static struct fstat *fstat_of(struct nop_sink *s, struct stats *st, unsigned long long addr)
{
	struct byaddr *b;

	if ((st->used + 1) * 2 > st->nslot) {
		size_t n = st->nslot ? st->nslot * 2 : 1024;
		struct byaddr *t = calloc(n, sizeof(*t));

		if (!t)
			return NULL;
		for (size_t i = 0; i < st->nslot; i++)
			if (st->slot[i].f)
				*slot_of(t, n, st->slot[i].addr) = st->slot[i];
		free(st->slot);
		st->slot = t;
		st->nslot = n;
	}
	b = slot_of(st->slot, st->nslot, addr);
	if (!b->f) {
		const struct nop_uprobe *up = nop_resolve_uprobe(s->res, addr);
		const char *name = nop_sink_func(s, addr), *file = up && up->path ? up->path : up ? up->bin : "";
		const char *key;
		char *ukey = NULL;
		size_t at = 0;

		/* a function is its name in its binary: after an exec, the
		 * same name in the new image is another function. A user
		 * function's key: its file, a unit separator, its name */
		if (file[0]) {
			if (asprintf(&ukey, "%s\x1f%s", file, name) < 0)
				return NULL;
			at = strlen(file) + 1;
		}
		b->f = nop_strmap_get(st->funcs, ukey ? ukey : name);
		free(ukey);
		if (!b->f)
			return NULL;
		if (!b->f->name) { /* new: the last key */
			nop_strmap_at(st->funcs, nop_strmap_size(st->funcs) - 1, &key);
			b->f->name = whole(st, b->f)->name = key + at;
		}
		b->addr = addr;
		b->f->binary = whole(st, b->f)->binary = nop_sink_text(s, nop_resolve_binary(s->res, addr));
		st->used++;
	}
	return b->f;
}

/* the function named name: a kernel function's key is its name; a user
 * one's is found by its name, the first of that name */
static struct fstat *named(const struct stats *st, const char *name)
{
	struct fstat *f = nop_strmap_find(st->funcs, name);

	for (size_t i = 0; !f && i < nop_strmap_size(st->funcs); i++) {
		struct fstat *g = nop_strmap_at(st->funcs, i, NULL);

		if (!strcmp(g->name, name))
			f = g;
	}
	return f;
}

static int bucket(unsigned long long ns)
{
	int e;

	if (ns < 16)
		return (int)ns;
	e = 63 - __builtin_clzll(ns);
	return 16 + (e - 4) * SUB + (int)((ns >> (e - 3)) & (SUB - 1));
}

static unsigned long long bucket_low(int b)
{
	int e;

	if (b < 16)
		return (unsigned long long)b;
	e = (b - 16) / SUB + 4;
	return (1ULL << e) + (unsigned long long)((b - 16) % SUB) * (1ULL << (e - 3));
}

static unsigned long long percentile(const struct fstat *f, double p)
{
	unsigned long long want = (unsigned long long)(p * (double)f->calls + 0.999999), seen = 0;

	if (want < 1)
		want = 1;
	for (int b = 0; b < NBUCKETS; b++) {
		seen += f->hist[b];
		if (seen >= want) {
			unsigned long long lo = bucket_low(b), hi = b + 1 < NBUCKETS ? bucket_low(b + 1) : lo;
			unsigned long long mid = b < 16 ? lo : lo + (hi - lo) / 2;

			return mid < f->min ? f->min : mid > f->max ? f->max : mid;
		}
	}
	return f->max;
}

/* n calls that failed with errno v, among the row's first kinds */
static void add_errno(struct fstat *f, long long v, unsigned long long n)
{
	for (size_t i = 0; i < ARRAY_SIZE(f->errv); i++)
		if (!f->errn[i] || f->errv[i] == v) {
			f->errv[i] = v;
			f->errn[i] += n;
			return;
		}
}

/* a timed call into its function's row */
NOP_HOT static int stats_add(struct nop_sink *s, struct stats *st, const struct nop_gcall *c)
{
	struct fstat *f;

	if (!(f = fstat_of(s, st, c->func)))
		return -1;
	if (!f->calls || c->duration < f->min)
		f->min = c->duration;
	if (c->duration > f->max)
		f->max = c->duration;
	f->calls++;
	f->total += c->duration;
	f->self += c->self;
	if (c->depth > f->max_depth)
		f->max_depth = c->depth;
	f->hist[bucket(c->duration)]++;
	if (c->off && nop_off_total(c->off)) {
		st->offcpu = true;
		for (int i = 0; i < NOP_OFF_STATES; i++)
			f->off[i] += c->off[i];
		f->off_self += nop_off_total(c->off_self);
	}
	if (c->has_retval) {
		st->retvals = true;
		f->returned++;
		if (nop_is_errno(c->retval)) {
			f->errors++;
			add_errno(f, c->retval, 1);
		}
	}
	return 0;
}

NOP_HOT static int stats_graph(struct nop_sink *s, const struct nop_gitem *gi)
{
	struct stats *st = s->priv;

	if (gi->kind == NOP_GI_EVENT) {
		unsigned long long *n;

		if ((!st->events && !(st->events = nop_strmap_new(sizeof(*n)))) ||
		    !(n = nop_strmap_get(st->events, gi->event))) {
			errno = ENOMEM;
			return -1;
		}
		++*n;
		return 0;
	}
	if (gi->depth + 1 > st->max_depth)
		st->max_depth = gi->depth + 1;
	if (gi->kind == NOP_GI_ENTER || !gi->timed)
		return 0;
	struct nop_gcall c = { .func = gi->func, .duration = gi->duration, .self = gi->self,
			       .off = gi->off, .off_self = gi->off_self, .retval = gi->retval,
			       .depth = gi->depth, .has_retval = gi->has_retval };

	return stats_add(s, st, &c);
}

NOP_HOT int nop_stats_call(struct nop_sink *s, const struct nop_gcall *c)
{
	struct stats *st = s->priv;

	if (c->depth + 1 > st->max_depth)
		st->max_depth = c->depth + 1;
	return stats_add(s, st, c);
}

struct entry {
	const char *name;
	struct fstat *f;
};

static unsigned long long key(const struct fstat *f, enum nop_sort sort)
{
	switch (sort) {
	case NOP_SORT_SELF: return f->self;
	case NOP_SORT_CALLS: return f->calls;
	case NOP_SORT_AVG: return f->total / f->calls;
	case NOP_SORT_MAX: return f->max;
	default: return f->total;
	}
}

/* largest first; by name for --sort name and between equals */
static int cmp(const void *a, const void *b, void *arg)
{
	const struct entry *x = a, *y = b;
	enum nop_sort sort = *(const enum nop_sort *)arg;
	unsigned long long vx, vy;

	if (sort != NOP_SORT_NAME) {
		vx = key(x->f, sort);
		vy = key(y->f, sort);
		if (vx != vy)
			return vx < vy ? 1 : -1;
	}
	return strcmp(x->name, y->name);
}

/* the errnos of a function's failed calls: text "ENOENT:100 EACCES:2",
 * JSON {"ENOENT":100,...} */
static void errnos(struct nop_fields *fl, bool json, const struct fstat *f)
{
	char buf[256];
	size_t off = 0;

	if (json)
		off += (size_t)snprintf(buf, sizeof(buf), "{");
	for (size_t i = 0; i < ARRAY_SIZE(f->errv) && f->errn[i]; i++) {
		const char *n = nop_retval_errno(f->errv[i], f->binary != NULL);
		char num[24];

		if (!n) {
			snprintf(num, sizeof(num), "%lld", f->errv[i]);
			n = num;
		}
		off += (size_t)snprintf(buf + off, sizeof(buf) - off, json ? "%s\"%s\":%llu" : "%s%s:%llu",
					i ? (json ? "," : " ") : "", n, f->errn[i]);
		if (off >= sizeof(buf))
			return;
	}
	if (json) {
		snprintf(buf + off, sizeof(buf) - off, "}");
		nop_field_json(fl, "errnos", buf);
	} else if (off) {
		fprintf(fl->out, " %s", buf);
	}
}

/* the states its off-CPU time was in, largest first, as shares of it:
 * "S:97% R:3%" ("-": none) */
static const char *waits(char *buf, size_t len, const struct fstat *f)
{
	unsigned long long total = nop_off_total(f->off);
	bool done[NOP_OFF_STATES] = { false };
	size_t n = 0;

	snprintf(buf, len, "-");
	for (int k = 0; k < NOP_OFF_STATES && total; k++) {
		int top = -1;

		for (int i = 0; i < NOP_OFF_STATES; i++)
			if (!done[i] && f->off[i] && (top < 0 || f->off[i] > f->off[top]))
				top = i;
		if (top < 0)
			break;
		done[top] = true;
		if (f->off[top] * 100 < total) /* under 1 % */
			n += (size_t)snprintf(buf + n, len > n ? len - n : 0, "%s%c:<1%%", n ? " " : "", nop_off_letter(top));
		else
			n += (size_t)snprintf(buf + n, len > n ? len - n : 0, "%s%c:%llu%%", n ? " " : "",
					      nop_off_letter(top), (f->off[top] * 100 + total / 2) / total);
	}
	return buf;
}

static void row(struct nop_sink *s, const char *name, const struct fstat *f, bool retvals, bool offcpu,
		const struct nop_tick *tick, const char *when)
{
	bool json = s->enc == NOP_ENC_JSON;
	const unsigned long long v[] = { f->total, f->self, f->total / f->calls, f->min, f->max,
					 percentile(f, 0.5), percentile(f, 0.99) };
	static const char *const keys[] = { "total_ns", "self_ns", "avg_ns", "min_ns", "max_ns",
					    "p50_ns", "p99_ns" };
	struct nop_fields fl;
	char t[32];

	nop_fields_open(&fl, s->out, json);
	nop_field_str(&fl, "type", NULL, tick ? "interval_stats" : "func_stats");
	if (tick && json) {
		nop_field_u64(&fl, "interval", NULL, tick->index);
		nop_field_str(&fl, "time", NULL, when);
		nop_field_u64(&fl, "span_ns", NULL, tick->span_ns);
	}
	nop_field_str(&fl, "func", "%-32s", name);
	nop_field_u64(&fl, "calls", " %9llu", f->calls);
	for (size_t i = 0; i < ARRAY_SIZE(v); i++) {
		nop_fmt_duration(t, sizeof(t), v[i]);
		nop_field_u64(&fl, keys[i], NULL, v[i]);
		if (!json)
			fprintf(s->out, " %11s", t);
	}
	nop_field_i64(&fl, "max_depth", " %5lld", f->max_depth);
	if (offcpu) {
		char w[160];

		nop_fmt_duration(t, sizeof(t), nop_off_total(f->off));
		nop_field_u64(&fl, "off_cpu_ns", NULL, nop_off_total(f->off));
		if (!json)
			fprintf(s->out, " %11s", t);
		nop_fmt_duration(t, sizeof(t), f->off_self);
		nop_field_u64(&fl, "off_cpu_self_ns", NULL, f->off_self);
		if (!json)
			fprintf(s->out, " %11s", t);
		if (json)
			nop_field_json(&fl, "waits", nop_off_json(w, sizeof(w), f->off));
		else
			fprintf(s->out, " %-12s", waits(w, sizeof(w), f));
	}
	if (retvals && f->returned) {
		nop_field_u64(&fl, "errors", " %6llu", f->errors);
		if (f->errors)
			errnos(&fl, json, f);
	} else if (retvals && !json) {
		fprintf(s->out, " %6s", "-"); /* no return value came for it */
	}
	if (f->binary)
		nop_field_str(&fl, "binary", " %s", f->binary);
	nop_fields_close(&fl);
}

/* f's calls into power-of-two buckets: a bucket of the histogram lies
 * within one (its low bound's power of two; SUB divides each octave) */
static void log2_counts(const struct fstat *f, unsigned long long log2[NOP_LOG2_BUCKETS])
{
	memset(log2, 0, NOP_LOG2_BUCKETS * sizeof(*log2));
	for (int b = 0; f && b < NBUCKETS; b++) {
		unsigned long long lo = bucket_low(b);
		int e = lo ? 63 - __builtin_clzll(lo) : 0;

		log2[e] += f->hist[b];
	}
}

unsigned long long nop_log2_range(const unsigned long long log2[NOP_LOG2_BUCKETS], int *first, int *last)
{
	unsigned long long peak = 0;

	*first = NOP_LOG2_BUCKETS;
	*last = 0;
	for (int e = 0; e < NOP_LOG2_BUCKETS; e++) {
		if (log2[e] > peak)
			peak = log2[e];
		if (log2[e])
			*last = e;
		if (log2[e] && *first == NOP_LOG2_BUCKETS)
			*first = e;
	}
	return peak;
}

void nop_fmt_log2_line(char *buf, size_t len, int e, unsigned long long count, unsigned long long peak)
{
	char l[32], h[32];
	int bar = peak ? (int)(count * 40 / peak) : 0;

	nop_fmt_duration(l, sizeof(l), e ? 1ULL << e : 0);
	nop_fmt_duration(h, sizeof(h), 1ULL << (e + 1));
	snprintf(buf, len, "  %10s - %-10s | %10llu | %.*s", l, h, count, bar, "########################################");
}

static void histogram(struct nop_sink *s, const char *name, const struct fstat *f)
{
	bool json = s->enc == NOP_ENC_JSON;
	unsigned long long log2[NOP_LOG2_BUCKETS], peak;
	int first, last;

	log2_counts(f, log2);
	peak = nop_log2_range(log2, &first, &last);
	if (!json)
		fprintf(s->out, "\n# %s: %llu call%s\n# %-23s | %10s | GRAPH\n", name,
			f ? f->calls : 0, f && f->calls == 1 ? "" : "s", "DURATION", "COUNT");
	/* from the first bucket with calls to the last: 2^e ns each, durations
	 * printed up to "999.999 ms" wide */
	for (int e = first; e <= last; e++) {
		unsigned long long lo = e ? 1ULL << e : 0, hi = 1ULL << (e + 1);
		struct nop_fields fl;

		if (json) {
			nop_fields_open(&fl, s->out, true);
			nop_field_str(&fl, "type", NULL, "hist");
			nop_field_str(&fl, "func", NULL, name);
			nop_field_u64(&fl, "low_ns", NULL, lo);
			nop_field_u64(&fl, "high_ns", NULL, hi);
			nop_field_u64(&fl, "count", NULL, log2[e]);
			nop_fields_close(&fl);
		} else {
			char line[128];

			nop_fmt_log2_line(line, sizeof(line), e, log2[e], peak);
			fprintf(s->out, "%s\n", line);
		}
	}
}

bool nop_stats_has(const struct nop_sink *s, const char *func)
{
	const struct stats *st = s->priv;

	return s->ops != &nop_stats_ops || named(st, func) != NULL;
}

/* the kernel events' counts, by name */
static void event_rows(struct nop_sink *s, const struct nop_strmap *events)
{
	bool json = s->enc == NOP_ENC_JSON;
	size_t n = events ? nop_strmap_size(events) : 0;

	/* events reach the table through the call trees: those inside a
	 * traced call only, where trace -e shows every one */
	if (n && !json)
		fprintf(s->out, "\n%-40s %9s\n", "EVENT (inside the calls)", "COUNT");
	for (size_t i = 0; i < n; i++) {
		const char *name;
		const unsigned long long *c = nop_strmap_at(events, i, &name);
		struct nop_fields fl;

		nop_fields_open(&fl, s->out, json);
		nop_field_str(&fl, "type", NULL, "event_stats");
		nop_field_str(&fl, "name", "%-40s", name);
		nop_field_u64(&fl, "count", " %9llu", *c);
		nop_fields_close(&fl);
	}
}

/* the column heads of a table of rows (text) */
static void heads(struct nop_sink *s, const struct stats *st, struct entry *e, size_t n)
{
	bool user = false;

	for (size_t i = 0; i < n && !user; i++)
		user = e[i].f->binary != NULL;
	fprintf(s->out, "%-32s %9s %11s %11s %11s %11s %11s %11s %11s %5s%s%s%s\n", "FUNCTION", "CALLS", "TOTAL",
		"SELF", "AVG", "MIN", "MAX", "P50", "P99", "DEPTH",
		st->offcpu ? "      OFFCPU     OFFSELF WAITS       " : "", st->retvals ? " ERRORS" : "",
		user ? " BINARY" : "");
}

/* The functions' rows, sorted; of an interval (t) those with calls in
 * it. -1: out of memory. */
static int table(struct nop_sink *s, struct stats *st, const struct nop_tick *t)
{
	size_t n = nop_strmap_size(st->funcs), k = 0;
	struct entry *e = calloc(n + 1, sizeof(*e));
	char when[40] = "";

	if (!e)
		return -1;
	for (size_t i = 0; i < n; i++) {
		struct fstat *f = nop_strmap_at(st->funcs, i, NULL);

		e[k].name = f->name;
		e[k].f = t ? f : whole(st, f);
		k += e[k].f->calls > 0;
	}
	qsort_r(e, k, sizeof(*e), cmp, &st->cfg.sort);
	if (t) {
		time_t sec = (time_t)(t->wall_ns / 1000000000ULL);
		struct tm tm;

		gmtime_r(&sec, &tm);
		strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%S", &tm);
		snprintf(when + strlen(when), sizeof(when) - strlen(when), ".%03lluZ",
			 t->wall_ns / 1000000ULL % 1000);
		if (s->enc != NOP_ENC_JSON) {
			fprintf(s->out, "%s-- %s interval %llu (%.3f s): %zu function%s called\n", t->index > 1 ? "\n" : "",
				when, t->index, (double)t->span_ns / 1e9, k, k == 1 ? "" : "s");
		} else { /* one line per interval, even one without calls */
			struct nop_fields fl;
			unsigned long long calls = 0;

			for (size_t i = 0; i < k; i++)
				calls += e[i].f->calls;
			nop_fields_open(&fl, s->out, true);
			nop_field_str(&fl, "type", NULL, "interval");
			nop_field_u64(&fl, "interval", NULL, t->index);
			nop_field_str(&fl, "time", NULL, when);
			nop_field_u64(&fl, "span_ns", NULL, t->span_ns);
			nop_field_u64(&fl, "functions", NULL, k);
			nop_field_u64(&fl, "calls", NULL, calls);
			nop_fields_close(&fl);
		}
	} else if (s->enc != NOP_ENC_JSON && st->ticks) {
		fprintf(s->out, "\n-- whole run (%llu interval%s)\n", st->ticks, st->ticks == 1 ? "" : "s");
	}
	if (s->enc != NOP_ENC_JSON && (k || !t))
		heads(s, st, e, k);
	for (size_t i = 0; i < k; i++)
		row(s, e[i].name, e[i].f, st->retvals, st->offcpu, t, when);
	free(e);
	return 0;
}

/* the interval's row into the whole run's, and emptied */
static void fold(struct fstat *iv, struct fstat *all)
{
	if (!iv->calls)
		return;
	if (!all->calls || iv->min < all->min)
		all->min = iv->min;
	if (iv->max > all->max)
		all->max = iv->max;
	all->calls += iv->calls;
	all->total += iv->total;
	all->self += iv->self;
	if (iv->max_depth > all->max_depth)
		all->max_depth = iv->max_depth;
	all->returned += iv->returned;
	all->errors += iv->errors;
	for (size_t i = 0; i < ARRAY_SIZE(iv->errv) && iv->errn[i]; i++)
		add_errno(all, iv->errv[i], iv->errn[i]);
	for (int i = 0; i < NOP_OFF_STATES; i++)
		all->off[i] += iv->off[i];
	all->off_self += iv->off_self;
	for (int b = 0; b < NBUCKETS; b++)
		all->hist[b] += iv->hist[b];
	const char *name = iv->name, *binary = iv->binary;

	memset(iv, 0, sizeof(*iv));
	iv->name = name;
	iv->binary = binary;
}

static struct nop_stat_row stat_row(const char *name, const struct fstat *f)
{
	return (struct nop_stat_row){
		.name = name, .binary = f->binary, .calls = f->calls, .total = f->total, .self = f->self,
		.max = f->max, .p99 = percentile(f, 0.99), .returned = f->returned, .errors = f->errors,
	};
}

bool nop_stats_func(const struct nop_sink *s, const char *name, struct nop_stat_row *row,
		    unsigned long long log2[NOP_LOG2_BUCKETS])
{
	const struct stats *st = s->priv;
	struct fstat *f;

	if (s->ops != &nop_stats_ops || !(f = named(st, name)))
		return false;
	f = whole(st, f);
	*row = stat_row(name, f);
	log2_counts(f, log2);
	return true;
}

/* the interval's rows as nop_stat_row, for a live view */
static int keep_rows(struct stats *st)
{
	size_t n = nop_strmap_size(st->funcs);

	st->nrows = 0;
	for (size_t i = 0; i < n; i++) {
		struct fstat *f = nop_strmap_at(st->funcs, i, NULL);

		if (!f->calls)
			continue;
		if (st->nrows == st->caprows) {
			size_t cap = st->caprows ? st->caprows * 2 : 256;
			struct nop_stat_row *r = realloc(st->rows, cap * sizeof(*r));

			if (!r)
				return -1;
			st->rows = r;
			st->caprows = cap;
		}
		st->rows[st->nrows++] = stat_row(f->name, f);
	}
	return 0;
}

static int stats_tick(struct nop_sink *s, const struct nop_tick *t)
{
	struct stats *st = s->priv;
	size_t n = nop_strmap_size(st->funcs);

	if (!st->cfg.interval)
		return 0;
	st->ticks = t->index;
	if (st->cfg.live ? keep_rows(st) : table(s, st, t)) {
		errno = ENOMEM;
		return -1;
	}
	for (size_t i = 0; i < n; i++) {
		struct fstat *f = nop_strmap_at(st->funcs, i, NULL);

		fold(f, f + 1);
	}
	return 0;
}

const struct nop_stat_row *nop_stats_rows(const struct nop_sink *s, size_t *n)
{
	const struct stats *st = s->priv;

	*n = s->ops == &nop_stats_ops ? st->nrows : 0;
	return *n ? st->rows : NULL;
}

static int stats_summary(struct nop_sink *s, const struct nop_summary *sum)
{
	struct stats *st = s->priv;

	/* calls since the last tick belong to the whole run too */
	for (size_t i = 0; st->cfg.interval && i < nop_strmap_size(st->funcs); i++) {
		struct fstat *f = nop_strmap_at(st->funcs, i, NULL);

		fold(f, f + 1);
	}
	if (table(s, st, NULL)) {
		errno = ENOMEM;
		return -1;
	}
	event_rows(s, st->events);
	if (st->cfg.hist_func) {
		struct fstat *f = named(st, st->cfg.hist_func);

		histogram(s, st->cfg.hist_func, f ? whole(st, f) : NULL);
	}
	/* then the run summary, with the deepest call stack seen */
	if (s->enc != NOP_ENC_JSON && s->diag && !s->quiet)
		fprintf(s->diag, "nopctl: deepest call stack: %d level%s\n", st->max_depth,
			st->max_depth == 1 ? "" : "s");
	return nop_summary_write(s, sum);
}

static void stats_free(struct nop_sink *s)
{
	if (s->priv) {
		nop_strmap_free(((struct stats *)s->priv)->funcs);
		nop_strmap_free(((struct stats *)s->priv)->events);
		free(((struct stats *)s->priv)->slot);
		free(((struct stats *)s->priv)->rows);
	}
}

static int stats_init(struct nop_sink *s, const struct nop_sink_cfg *cfg, struct nop_error *err)
{
	struct stats *st;

	if (nop_sink_priv(s, sizeof(*st), err))
		return -1;
	st = s->priv;
	st->cfg = cfg->stats;
	if (!(st->funcs = nop_strmap_new(sizeof(struct fstat) * (st->cfg.interval ? 2 : 1)))) {
		nop_error_set(err, NOP_EINTERNAL, ENOMEM, "out of memory");
		return -1;
	}
	return 0;
}

const struct nop_sink_ops nop_stats_ops = {
	.init = stats_init,
	.graph = stats_graph,
	.summary = stats_summary,
	.tick = stats_tick,
	.free = stats_free,
};
