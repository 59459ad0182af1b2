/* write.c - a comparison written out: text (the table, then the call flow
 * marked like diff -u), JSON lines, folded stacks with two counts (what
 * FlameGraph's difffolded.pl writes and flamegraph.pl draws), or a
 * differential flame graph as SVG. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "diff/diff.h"

#define NAME_MAX_SHOWN 48

static void fmt_dur(char *buf, size_t len, double ns)
{
	nop_fmt_duration(buf, len, ns > 0 ? (unsigned long long)llround(ns) : 0);
}

/* a count, whole when it is (one run), else to a tenth (a mean of runs) */
static void fmt_count(char *buf, size_t len, double v)
{
	if (fabs(v - round(v)) < 1e-9)
		snprintf(buf, len, "%.0f", v);
	else
		snprintf(buf, len, "%.1f", v);
}

static void fmt_p(char *buf, size_t len, double p)
{
	if (isnan(p))
		snprintf(buf, len, "-");
	else if (p < 1e-9)
		snprintf(buf, len, "<1e-9");
	else
		snprintf(buf, len, "%.2g", p);
}

static const char *err_names(const struct nop_dagg *a, char *buf, size_t len)
{
	size_t off = 0;

	buf[0] = 0;
	for (int k = 0; a && k < 4 && a->errn[k] && off < len; k++) {
		const char *n = nop_errno_name(a->errv[k]);

		off += (size_t)snprintf(buf + off, len - off, "%s%s %llu", k ? ", " : "", n ? n : "?", a->errn[k]);
	}
	return buf;
}

/* what changed, in words: "calls 100 -> 1000, self 1.0 ms -> 2.0 ms
 * per call (+100%, p <1e-9)" */
static void change_text(char *buf, size_t len, const struct nop_dverdict *v, const struct nop_dagg *a,
			const struct nop_dagg *b)
{
	char x[64], y[64], p[32];
	size_t off = 0;

	buf[0] = 0;
	if (v->change & NOP_DCH_ONLY_A) {
		snprintf(buf, len, "only in A");
		return;
	}
	if (v->change & NOP_DCH_ONLY_B) {
		snprintf(buf, len, "only in B");
		return;
	}
	if (v->change & NOP_DCH_CALLS) {
		fmt_count(x, sizeof(x), a->calls);
		fmt_count(y, sizeof(y), b->calls);
		off += (size_t)snprintf(buf + off, len - off, "calls %s -> %s", x, y);
		if (a->calls > 0)
			off += (size_t)snprintf(buf + off, len - off, " (x%.2f)", b->calls / a->calls);
	}
	if ((v->change & NOP_DCH_TIME) && off < len) {
		fmt_dur(x, sizeof(x), v->med_a);
		fmt_dur(y, sizeof(y), v->med_b);
		fmt_p(p, sizeof(p), v->p);
		off += (size_t)snprintf(buf + off, len - off, "%sself %s -> %s per call (%+.0f%%%s%s)", off ? ", " : "",
					x, y, v->med_a > 0 ? (v->med_b - v->med_a) / v->med_a * 100 : 100.0,
					isnan(v->p) ? "" : ", p ", isnan(v->p) ? "" : p);
	}
	if ((v->change & NOP_DCH_ERRORS) && off < len) {
		char ca[24], cb[24], en[96];

		fmt_count(x, sizeof(x), a->errors);
		fmt_count(y, sizeof(y), b->errors);
		fmt_count(ca, sizeof(ca), a->calls);
		fmt_count(cb, sizeof(cb), b->calls);
		err_names(b->errors ? b : a, en, sizeof(en));
		snprintf(buf + off, len - off, "%s%s: failed %s of %s -> %s of %s (%s%s)", off ? ", " : "",
			 !a->errors ? "now fails" : !b->errors ? "no longer fails" : "fails more or less", x, ca, y,
			 cb, b->errors ? "B: " : "A: ", en);
	}
}

static void side_files(FILE *out, const char *const *f, size_t n)
{
	for (size_t i = 0; i < n; i++)
		fprintf(out, "%s%s", i ? "," : "", f[i]);
}

/* ---- text ---- */

static void text_table(struct nop_ddiff *d, FILE *out)
{
	size_t w = 8, shown = 0;
	char name[NAME_MAX_SHOWN + 1];

	for (size_t i = 0; i < d->nfunc; i++)
		if ((d->func[i].v.change || d->cfg->all) && strlen(d->func[i].name) > w)
			w = strlen(d->func[i].name);
	if (w > NAME_MAX_SHOWN)
		w = NAME_MAX_SHOWN;
	fprintf(out, "%-*s %9s %9s %11s %11s %11s %11s %11s %11s %11s %11s %12s %6s  %s\n", (int)w, "FUNCTION",
		"CALLS A", "CALLS B", "TOTAL A", "TOTAL B", "SELF A", "SELF B", "P50 A", "P50 B", "P99 A", "P99 B",
		"SELF +/-", "P", "CHANGE");
	for (size_t i = 0; i < d->nfunc; i++) {
		const struct nop_dfunc *f = &d->func[i];
		char c[2][24], t[2][24], s[2][24], p50[2][24], p99[2][24], imp[32], p[32], ch[320];

		if (!f->v.change && !d->cfg->all)
			continue;
		shown++;
		for (int k = 0; k < 2; k++) {
			const struct nop_dagg *a = k ? f->b : f->a;

			if (!a) {
				strcpy(c[k], "-");
				strcpy(t[k], "-");
				strcpy(s[k], "-");
				strcpy(p50[k], "-");
				strcpy(p99[k], "-");
				continue;
			}
			fmt_count(c[k], sizeof(c[k]), a->calls);
			fmt_dur(t[k], sizeof(t[k]), a->total);
			fmt_dur(s[k], sizeof(s[k]), a->self);
			fmt_dur(p50[k], sizeof(p50[k]), (double)a->p50);
			fmt_dur(p99[k], sizeof(p99[k]), (double)a->p99);
		}
		fmt_dur(imp + 1, sizeof(imp) - 1, fabs(f->impact));
		imp[0] = f->impact < 0 ? '-' : '+';
		fmt_p(p, sizeof(p), f->v.p);
		change_text(ch, sizeof(ch), &f->v, f->a, f->b);
		fprintf(out, "%-*s %9s %9s %11s %11s %11s %11s %11s %11s %11s %11s %12s %6s  %s\n", (int)w,
			nop_text_escape(name, w + 1, f->name), c[0], c[1], t[0], t[1], s[0], s[1], p50[0], p50[1], p99[0],
			p99[1], imp, p, f->v.change ? ch : "=");
	}
	if (shown < d->nfunc)
		fprintf(out, "# %zu of %zu functions changed; the %zu unchanged are left out\n", d->funcs_changed,
			d->nfunc, d->nfunc - shown);
	else
		fprintf(out, "# %zu of %zu functions changed\n", d->funcs_changed, d->nfunc);
}

static const char *node_name(const struct nop_ddiff *d, const struct nop_dflow *r)
{
	return r->ma != NOP_DNONE ? d->side[0].tree->node[r->ma].name : d->side[1].tree->node[r->mb].name;
}

/* the names of row i's path, outermost first (its callers are the rows
 * before it at each lower depth); how many */
static int row_path(const struct nop_ddiff *d, size_t i, const char **names)
{
	const char *rev[NOP_GRAPH_MAX_DEPTH];
	int depth = d->flow[i].depth, n = 0;

	for (size_t k = i + 1; k-- > 0 && n <= depth;)
		if (d->flow[k].depth == depth - n && n < NOP_GRAPH_MAX_DEPTH)
			rev[n++] = node_name(d, &d->flow[k]);
	for (int k = 0; k < n; k++)
		names[k] = rev[n - 1 - k];
	return n;
}

/* "main > work > extra" of row i */
static void flow_path_text(const struct nop_ddiff *d, size_t i, char *buf, size_t len)
{
	const char *names[NOP_GRAPH_MAX_DEPTH];
	int n = row_path(d, i, names);
	size_t off = 0;

	buf[0] = 0;
	for (int k = 0; k < n && off < len; k++) {
		char nm[NAME_MAX_SHOWN * 2];

		off += (size_t)snprintf(buf + off, len - off, "%s%s", k ? " > " : "", nop_text_escape(nm, sizeof(nm), names[k]));
	}
}

static void flow_side(FILE *out, char mark, int depth, const char *name, const struct nop_dagg *a)
{
	char c[24], s[24], e[96] = "";

	fmt_count(c, sizeof(c), a->calls);
	fmt_dur(s, sizeof(s), a->calls > 0 ? a->self / a->calls : 0);
	if (a->errors > 0) {
		char en[80];

		snprintf(e, sizeof(e), ", %.0f failed (%s)", a->errors, err_names(a, en, sizeof(en)));
	}
	fprintf(out, "%c %*s%-*s %10s call%s, self %s per call%s", mark, depth * 2, "", 40 - depth * 2 > 8 ? 40 - depth * 2 : 8,
		name, c, a->calls == 1 ? "" : "s", s, e);
}

#define UNDER_LINES 20 /* of a subtree one side lacks */

static void text_flow(struct nop_ddiff *d, FILE *out)
{
	size_t under = 0;
	char buf[1024], name[NAME_MAX_SHOWN * 2];

	fputs("\n# call flow: each path from a root once (a calling-context tree), its calls in the order first "
	      "seen; '-' A, '+' B\n",
	      out);
	if (d->first == NOP_DNONE) {
		fputs("# no path changed\n", out);
		if (!d->cfg->all)
			return;
	} else {
		char ch[320];
		const struct nop_dflow *r = &d->flow[d->first];

		flow_path_text(d, d->first, buf, sizeof(buf));
		change_text(ch, sizeof(ch), &r->v, r->ma != NOP_DNONE ? &d->side[0].path[r->ma] : NULL,
			    r->mb != NOP_DNONE ? &d->side[1].path[r->mb] : NULL);
		fprintf(out, "# first divergence: %s: %s\n", buf, ch);
	}
	for (size_t i = 0; i < d->nflow; i++) {
		const struct nop_dflow *r = &d->flow[i];
		const struct nop_dagg *a = r->ma != NOP_DNONE ? &d->side[0].path[r->ma] : NULL;
		const struct nop_dagg *b = r->mb != NOP_DNONE ? &d->side[1].path[r->mb] : NULL;
		char ch[320];

		if (!r->show)
			continue;
		if (!r->under)
			under = 0;
		else if (under++ == UNDER_LINES && !d->cfg->all)
			fprintf(out, "%c %*s...\n", a ? '-' : '+', r->depth * 2, "");
		if (r->under && under > UNDER_LINES && !d->cfg->all)
			continue;
		nop_text_escape(name, sizeof(name), node_name(d, r));
		if (!a || !b || r->v.change) {
			change_text(ch, sizeof(ch), &r->v, a, b);
			if (a) {
				flow_side(out, '-', r->depth, name, a);
				fputc('\n', out);
			}
			if (b) {
				flow_side(out, '+', r->depth, name, b);
				if (!r->under && r->v.change)
					fprintf(out, "  (%s)", ch);
				fputc('\n', out);
			}
		} else {
			flow_side(out, ' ', r->depth, name, b);
			fputc('\n', out);
		}
	}
	fprintf(out, "# %zu path%s changed\n", d->paths_changed, d->paths_changed == 1 ? "" : "s");
}

/* too few runs a side for a split of them to tell a change from noise
 * (two to four, or one against several): only exact counts are judged
 * (judge.c) */
static bool few_runs(const struct nop_diff_cfg *c)
{
	return !(c->na == 1 && c->nb == 1) && !nop_diff_runs_tell(c->na, c->nb);
}

static void text_head(struct nop_ddiff *d, FILE *out)
{
	const struct nop_diff_cfg *c = d->cfg;

	fputs("# A: ", out);
	side_files(out, c->a, c->na);
	fprintf(out, " (%zu run%s)\n# B: ", c->na, c->na == 1 ? "" : "s");
	side_files(out, c->b, c->nb);
	fprintf(out, " (%zu run%s)\n", c->nb, c->nb == 1 ? "" : "s");
	if (c->na == 1 && c->nb == 1) {
		fprintf(out,
			"# a function's time changed when the Mann-Whitney U test of its calls' self times gives "
			"p < %g and their median moved %.0f%% or more\n",
			c->alpha, c->min_change * 100);
		fputs("# one run a side: every difference of a count counts, and a run's own conditions (load, caches, "
		      "an emulator) can move times; five runs or more a side (A1,A2,... B1,B2,...) are judged "
		      "against their spread\n",
		      out);
	} else if (few_runs(c)) {
		fprintf(out,
			"# %zu run%s against %zu: judged: the program's own functions and paths (user functions, and "
			"the kernel functions it calls: the roots, and those a user function calls) that one side "
			"calls in every run and the other in none, or as often in every run of each side and not as "
			"often between the sides, and their failures likewise; calls and times are means per run\n",
			c->na, c->na == 1 ? "" : "s", c->nb);
		fprintf(out,
			"# not judged: time, and counts that vary from run to run or that the kernel makes within "
			"itself: so few runs split apart by chance 1 time in %.3g (five or more a side: 1 in 126 "
			"or less)\n",
			1 / nop_diff_split_chance(c->na, c->nb));
	} else {
		fprintf(out,
			"# calls and times are means per run; a function's time changed when the Mann-Whitney U test "
			"of its calls' self times and Student's t-test of the logs of its runs' medians both give "
			"p < %g over all rows compared, every run of B lies apart from every run of A, and the "
			"median moved %.0f%% or more\n",
			c->alpha, c->min_change * 100);
	}
	if (d->side[0].aggregate || d->side[1].aggregate)
		fputs("# a summary's rows hold no calls: no call flow, and times are judged only across runs\n", out);
}

/* ---- JSON ---- */

static void json_side(FILE *out, const char *key, const struct nop_dagg *a)
{
	fprintf(out, ",\"%s\":", key);
	if (!a) {
		fputs("null", out);
		return;
	}
	fprintf(out, "{\"calls\":%.6g,\"total_ns\":%.0f,\"self_ns\":%.0f,\"p50_ns\":%llu,\"p99_ns\":%llu,\"errors\":%.6g",
		a->calls, a->total, a->self, a->p50, a->p99, a->errors);
	if (a->errn[0]) {
		fputs(",\"errnos\":{", out);
		for (int k = 0; k < 4 && a->errn[k]; k++) {
			const char *n = nop_errno_name(a->errv[k]);

			fprintf(out, "%s\"%s\":%llu", k ? "," : "", n ? n : "?", a->errn[k]);
		}
		fputc('}', out);
	}
	fputc('}', out);
}

static void json_verdict(FILE *out, const struct nop_dverdict *v)
{
	static const char *const names[] = { "only_a", "only_b", "calls", "time", "errors" };
	bool first = true;

	fputs(",\"change\":[", out);
	for (int k = 0; k < 5; k++)
		if (v->change & (1u << k)) {
			fprintf(out, "%s\"%s\"", first ? "" : ",", names[k]);
			first = false;
		}
	fputc(']', out);
	if (!isnan(v->p))
		fprintf(out, ",\"p\":%.3g,\"self_median_a_ns\":%.0f,\"self_median_b_ns\":%.0f", v->p, v->med_a,
			v->med_b);
}

static void json_path(const struct nop_ddiff *d, FILE *out, size_t i)
{
	const char *names[NOP_GRAPH_MAX_DEPTH];
	int n = row_path(d, i, names);

	fputc('[', out);
	for (int k = 0; k < n; k++) {
		if (k)
			fputc(',', out);
		nop_json_str(out, names[k]);
	}
	fputc(']', out);
}

static void json_all(struct nop_ddiff *d, FILE *out)
{
	const struct nop_diff_cfg *c = d->cfg;

	for (size_t i = 0; i < d->nfunc; i++) {
		const struct nop_dfunc *f = &d->func[i];

		fputs("{\"type\":\"diff_func\",\"func\":", out);
		nop_json_str(out, f->name);
		json_side(out, "a", f->a);
		json_side(out, "b", f->b);
		fprintf(out, ",\"self_change_ns\":%.0f,\"changed\":%s", f->impact, f->v.change ? "true" : "false");
		json_verdict(out, &f->v);
		fputs("}\n", out);
	}
	for (size_t i = 0; i < d->nflow; i++) {
		const struct nop_dflow *r = &d->flow[i];

		if (!r->show || (r->under && !c->all))
			continue;
		fputs("{\"type\":\"diff_path\",\"path\":", out);
		json_path(d, out, i);
		json_side(out, "a", r->ma != NOP_DNONE ? &d->side[0].path[r->ma] : NULL);
		json_side(out, "b", r->mb != NOP_DNONE ? &d->side[1].path[r->mb] : NULL);
		fprintf(out, ",\"changed\":%s", r->v.change && !r->under ? "true" : "false");
		json_verdict(out, &r->v);
		fputs("}\n", out);
	}
	fprintf(out, "{\"type\":\"diff_summary\",\"runs_a\":%zu,\"runs_b\":%zu,\"test\":\"%s\",\"alpha\":%g,"
		     "\"min_change\":%g,\"judged\":%s,\"not_judged\":%s,\"functions\":%zu,\"functions_changed\":%zu,"
		     "\"paths_changed\":%zu,\"first_divergence\":",
		c->na, c->nb,
		c->na == 1 && c->nb == 1 ? "mann-whitney-u"
		: few_runs(c)		 ? "none"
					 : "mann-whitney-u,student-t-run-medians",
		c->alpha, c->min_change,
		few_runs(c) ? "[\"steady_counts\",\"steady_failures\"]" : "[\"counts\",\"failures\",\"time\"]",
		few_runs(c) ? "[\"time\",\"varying_counts\"]" : "[]", d->nfunc, d->funcs_changed, d->paths_changed);
	if (d->first == NOP_DNONE)
		fputs("null", out);
	else
		json_path(d, out, d->first);
	fprintf(out, ",\"lost\":%llu,\"untimed\":%llu}\n", d->side[0].lost + d->side[1].lost,
		d->side[0].untimed + d->side[1].untimed);
}

/* ---- folded: "a;b;c selfA selfB", every path with self time ---- */

static void folded(struct nop_ddiff *d, FILE *out)
{
	const char *names[NOP_GRAPH_MAX_DEPTH];

	for (size_t i = 0; i < d->nflow; i++) {
		const struct nop_dflow *r = &d->flow[i];
		double sa = r->ma != NOP_DNONE ? d->side[0].path[r->ma].self : 0;
		double sb = r->mb != NOP_DNONE ? d->side[1].path[r->mb].self : 0;

		if (r->depth < NOP_GRAPH_MAX_DEPTH)
			names[r->depth] = node_name(d, r);
		if ((sa <= 0 && sb <= 0) || r->depth >= NOP_GRAPH_MAX_DEPTH)
			continue;
		for (int k = 0; k <= r->depth; k++) {
			char nm[512];

			fprintf(out, "%s%s", k ? ";" : "", nop_text_escape(nm, sizeof(nm), names[k]));
		}
		fprintf(out, " %.0f %.0f\n", sa, sb);
	}
}

/* ---- SVG: a flame graph of both sides' paths, each as wide as its
 * larger total, red where B takes longer, blue where shorter ---- */

#define SVG_W 1200.0
#define SVG_ROW 17

static void svg_text(FILE *out, const char *name)
{
	char *e;
	const char *s = nop_text_shown(name, &e); /* no control byte: XML refuses them */

	for (; *s; s++) {
		if (*s == '<')
			fputs("&lt;", out);
		else if (*s == '>')
			fputs("&gt;", out);
		else if (*s == '&')
			fputs("&amp;", out);
		else if (*s == '"')
			fputs("&quot;", out);
		else
			fputc(*s, out);
	}
	free(e);
}

static int svg(struct nop_ddiff *d, FILE *out)
{
	double *w = calloc(d->nflow + 1, sizeof(*w)), *kids = calloc(d->nflow + 1, sizeof(*kids));
	double x[NOP_GRAPH_MAX_DEPTH + 1] = { 10 }, roots = 0, maxd = 0, pw[NOP_GRAPH_MAX_DEPTH + 1];
	size_t parent[NOP_GRAPH_MAX_DEPTH + 1];
	int depth = 0;

	if (!w || !kids) {
		free(w);
		free(kids);
		return -1;
	}
	/* each row's weight (its larger total), its children's sum per parent */
	for (size_t i = 0; i < d->nflow; i++) {
		const struct nop_dflow *r = &d->flow[i];
		double ta = r->ma != NOP_DNONE ? d->side[0].path[r->ma].total : 0;
		double tb = r->mb != NOP_DNONE ? d->side[1].path[r->mb].total : 0;
		double sa = r->ma != NOP_DNONE ? d->side[0].path[r->ma].self : 0;
		double sb = r->mb != NOP_DNONE ? d->side[1].path[r->mb].self : 0;

		if (r->depth > NOP_GRAPH_MAX_DEPTH - 1)
			continue;
		w[i] = fmax(ta, tb);
		if (fabs(sb - sa) > maxd)
			maxd = fabs(sb - sa);
		if (r->depth == 0)
			roots += w[i];
		else
			kids[parent[r->depth - 1]] += w[i];
		parent[r->depth] = i;
		if (r->depth + 1 > depth)
			depth = r->depth + 1;
	}
	fprintf(out,
		"<?xml version=\"1.0\" standalone=\"no\"?>\n<svg version=\"1.1\" width=\"%.0f\" height=\"%d\" "
		"xmlns=\"http://www.w3.org/2000/svg\" font-family=\"Verdana\" font-size=\"12\">\n"
		"<rect width=\"100%%\" height=\"100%%\" fill=\"#f8f8f8\"/>\n<text x=\"%.0f\" y=\"24\" "
		"text-anchor=\"middle\" font-size=\"17\">nopctl diff: red took longer in B, blue shorter; width: the "
		"larger of A and B</text>\n",
		SVG_W + 20, (depth + 3) * SVG_ROW + 20, (SVG_W + 20) / 2);
	for (size_t i = 0; i < d->nflow; i++) {
		const struct nop_dflow *r = &d->flow[i];
		const struct nop_dagg *a = r->ma != NOP_DNONE ? &d->side[0].path[r->ma] : NULL;
		const struct nop_dagg *b = r->mb != NOP_DNONE ? &d->side[1].path[r->mb] : NULL;
		double width, sa = a ? a->self : 0, sb = b ? b->self : 0, t;
		int red = 230, green = 230, blue = 230, y;
		char ch[320], ta[32], tb[32];

		if (r->depth > NOP_GRAPH_MAX_DEPTH - 1)
			continue;
		if (r->depth == 0) {
			width = roots > 0 ? w[i] / roots * SVG_W : 0;
			pw[0] = width;
		} else {
			size_t pi = parent[r->depth - 1];
			double denom = fmax(w[pi], kids[pi]);

			width = denom > 0 ? w[i] / denom * pw[r->depth - 1] : 0;
			pw[r->depth] = width;
		}
		/* a change stays visible however short: 1 px at least */
		if (r->v.change && !r->under && width < 1)
			width = 1;
		parent[r->depth] = i;
		t = maxd > 0 ? fabs(sb - sa) / maxd : 0;
		if (r->v.change || r->under) {
			/* changed: red or blue by how much more or less self time */
			if (sb >= sa) {
				green = blue = (int)(200 - 160 * t);
				red = 255;
			} else {
				red = green = (int)(200 - 160 * t);
				blue = 255;
			}
		}
		y = (depth - r->depth + 1) * SVG_ROW + 20;
		if (width >= 0.1) {
			change_text(ch, sizeof(ch), &r->v, a, b);
			fmt_dur(ta, sizeof(ta), a ? a->total : 0);
			fmt_dur(tb, sizeof(tb), b ? b->total : 0);
			fprintf(out, "<g><title>");
			svg_text(out, node_name(d, r));
			fprintf(out, " (A %s, B %s%s", ta, tb, r->v.change ? "; " : "");
			if (r->v.change)
				svg_text(out, ch);
			fprintf(out, ")</title><rect x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"%d\" "
				     "fill=\"rgb(%d,%d,%d)\" rx=\"2\" stroke=\"#fff\" stroke-width=\"0.5\"/>",
				x[r->depth], y, width, SVG_ROW - 1, red, green, blue);
			if (width > 40) {
				char nm[256];
				size_t fit = (size_t)(width / 7.5);

				nop_text_escape(nm, fit + 1 < sizeof(nm) ? fit + 1 : sizeof(nm), node_name(d, r));
				fprintf(out, "<text x=\"%.1f\" y=\"%d\">", x[r->depth] + 3, y + SVG_ROW - 5);
				svg_text(out, nm);
				fputs("</text>", out);
			}
			fputs("</g>\n", out);
		}
		x[r->depth + 1] = x[r->depth];
		x[r->depth] += width;
	}
	fputs("</svg>\n", out);
	free(w);
	free(kids);
	return 0;
}

int nop_diff_write(struct nop_ddiff *d, struct nop_error *err)
{
	FILE *out = d->cfg->out;
	int ret = 0;

	switch (d->cfg->format) {
	case NOP_DIFF_TEXT:
		text_head(d, out);
		text_table(d, out);
		if (!d->side[0].aggregate && !d->side[1].aggregate)
			text_flow(d, out);
		break;
	case NOP_DIFF_JSON:
		json_all(d, out);
		break;
	case NOP_DIFF_FOLDED:
		folded(d, out);
		break;
	case NOP_DIFF_SVG:
		ret = svg(d, out);
		break;
	}
	if (ret || fflush(out) || ferror(out)) {
		nop_error_set(err, NOP_EINTERNAL, errno, "cannot write the comparison");
		return -1;
	}
	return 0;
}
