/* sink_why.c - nopctl why: a line per failed root call naming where its
 * error began (the origin, errfilter.c's ORIGIN item after the chain's
 * calls), and at the end the failures counted by origin.
 *
 * The line of a user function's origin comes from its machine code: the
 * instructions that put a constant in the return register (the entry
 * probe's loads, kept when the probes were placed) whose constant is the
 * value it returned, each at its line in the DWARF line table. One such
 * line is where the value was set; several are candidates, said as such.
 * With none (a value computed, not loaded: -O2's branchless returns) the
 * function's source, where DWARF names it and it can be read, says which
 * of its return statements could give the value (srcreturns.c): one is
 * the line, several candidates. Else the line of the `ret` that fired,
 * said as that. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sink/sink.h"

#define WHY_DEPTH 64 /* chain links whose values and arguments are kept */
#define WHY_LINES 8  /* candidate lines named */

struct link {
	long long retval;
	bool has_retval;
	char *args; /* "TEXT\0JSON", a copy; NULL: none */
};

/* a failure's text after its task, and how many said it (the summary) */
struct origin_row {
	const char *key;
	unsigned long long count;
};

struct why {
	struct link chain[WHY_DEPTH];
	struct nop_srclines *sl;
	/* the last source file read, and its text (NULL: unreadable) */
	char src[4096];
	char *text;
	struct nop_strmap *origins; /* origin_row's text -> its count */
	unsigned long long failures;
};

static int why_init(struct nop_sink *s, const struct nop_sink_cfg *cfg, struct nop_error *err)
{
	return nop_sink_priv(s, sizeof(struct why), err);
}

static void link_args(struct link *l, const char *args)
{
	size_t n;

	free(l->args);
	l->args = NULL;
	if (args && (n = nop_args_size(args)) && (l->args = malloc(n)))
		memcpy(l->args, args, n);
}

/* a value as the line says it: a pointer's NULL, a kernel errno's name,
 * else the number */
static void value_text(char *buf, size_t len, long long v, unsigned char rvtype, bool user)
{
	const char *en = nop_retval_errno(v, user);

	if ((rvtype & NOP_RV_POINTER) && !v)
		snprintf(buf, len, "NULL");
	else if (en)
		snprintf(buf, len, "%s", en);
	else
		snprintf(buf, len, "%lld", v);
}

static bool load_matches(const struct nop_rvload *l, long long v)
{
	return l->bytes == 4 ? (unsigned)l->value == (unsigned)v : l->value == v;
}

/* a source file's text: a regular file of at most 16 MB, opened without
 * blocking (its name comes from the traced binary's DWARF: a FIFO or
 * /dev/zero there must not hang or fill nopctl); NULL otherwise */
static char *read_source(const char *path)
{
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
	struct stat st;
	char *t = NULL;
	size_t got = 0;
	ssize_t r = 0;

	if (fd < 0)
		return NULL;
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size < (16 << 20) &&
	    (t = malloc((size_t)st.st_size + 1))) {
		while (got < (size_t)st.st_size && (r = read(fd, t + got, (size_t)st.st_size - got)) > 0)
			got += (size_t)r;
		t[got] = 0;
	}
	close(fd);
	return t;
}

#define WHY_RETURNS 256 /* a function's returns read from its source */

/* the return statements of the source of p's function that could give
 * v: how many, their lines into lines (WHY_RETURNS at most; how: each's
 * NOP_SRC_* flags), the file's name into *file; 0 where no source is found */
static size_t source_returns(struct why *w, const struct nop_uprobe *p, long long v, bool pointer, const char **file,
			     unsigned *lines, unsigned char *how)
{
	char src[4096];
	int decl, at[WHY_RETURNS];
	size_t n;

	if (!nop_srclines_source(w->sl, p->path, p->vaddr, src, sizeof(src), &decl))
		return 0;
	if (strcmp(src, w->src)) { /* read once while calls name the same file */
		free(w->text);
		snprintf(w->src, sizeof(w->src), "%s", src);
		w->text = read_source(src);
	}
	if (!w->text)
		return 0;
	n = nop_src_returns(w->text, decl, v, pointer, at, how, WHY_RETURNS);
	for (size_t k = 0; k < n && k < WHY_RETURNS; k++)
		lines[k] = (unsigned)at[k];
	*file = w->src;
	return n < WHY_RETURNS ? n : WHY_RETURNS;
}

/* two names of a source file: the same base name */
static bool same_file(const char *a, const char *b)
{
	return !strcmp(nop_sink_base(a), nop_sink_base(b));
}

/* of the source's returns src (ns, each's NOP_SRC_* flags in how), the
 * lines the value came from, into lines (WHY_LINES at most), given the
 * loads' lines (n of them; same: in the same file): the loads' lines
 * among the returns with the constant, else those returns, else the
 * loads' lines among any return, else the loads' own lines (ret = -E;
 * goto out; ... return ret;), else every return. A return that calls
 * may pass on the callee's value: when one can give it and is not
 * chosen, it is added, and the answer is no longer one line. How many;
 * *constant: the loads decided */
static size_t pick_lines(unsigned *lines, size_t n, bool same, const unsigned *src, const unsigned char *how,
			 size_t ns, bool *constant)
{
	unsigned out[WHY_LINES];
	size_t k = 0;
	int pass;

	for (pass = 0; pass < 5 && !k; pass++) {
		bool loads = n && same && (pass == 0 || pass == 2), literal = pass < 2;

		if (pass < 4 && !n)
			continue; /* no load: any return could compute it */
		if (pass == 3) { /* the loads' own lines, no return among them */
			for (size_t i = 0; same && i < n && k < WHY_LINES; i++)
				out[k++] = lines[i];
			continue;
		}
		for (size_t j = 0; j < ns && k < WHY_LINES; j++) {
			bool in = !loads;

			for (size_t i = 0; loads && i < n; i++)
				in |= lines[i] == src[j];
			if (in && (!literal || (how[j] & NOP_SRC_LITERAL)))
				out[k++] = src[j];
		}
	}
	*constant = pass - 1 != 1 && pass - 1 != 4;
	for (size_t j = 0; j < ns && k < WHY_LINES; j++) { /* returns that call */
		bool chosen = false;

		for (size_t i = 0; i < k; i++)
			chosen |= out[i] == src[j];
		if ((how[j] & NOP_SRC_CALL) && !chosen)
			out[k++] = src[j];
	}
	memcpy(lines, out, k * sizeof(*out));
	return k;
}

/* where the origin's value was set: "at FILE:LINE", "at one of FILE:L1,
 * L2", "(its ret at FILE:LINE)", or "" with no debug information; exact:
 * one line. file, line: the first (NULL, 0: none); *how: "constant"
 * (machine code), "source" or "ret" */
static void origin_where(struct nop_sink *s, struct why *w, const struct nop_gitem *gi, char *buf, size_t len,
			 const char **file, unsigned *line, unsigned *lines, size_t *nlines, const char **how)
{
	const struct nop_uprobe *p = nop_resolve_uprobe(s->res, gi->func);
	const struct nop_uprobes *u = nop_resolver_probes(s->res);
	const char *f;
	int ln;
	size_t n = 0, o;

	*buf = 0;
	*file = NULL;
	*line = 0;
	*nlines = 0;
	if (!p || (!w->sl && !(w->sl = nop_srclines_new())))
		return;
	for (size_t i = 0; i < p->nloads; i++) {
		bool seen = false;

		if (!load_matches(&p->loads[i], gi->retval) || !nop_srclines_at(w->sl, p->path, p->loads[i].vaddr, &f, &ln))
			continue;
		for (size_t k = 0; k < n; k++)
			seen |= lines[k] == (unsigned)ln;
		if (seen || n == WHY_LINES)
			continue;
		if (!n)
			*file = f;
		lines[n++] = (unsigned)ln;
	}
	/* The line table puts an -O2 load on whichever line the compiler
	 * chose (a cmov's constant on the other return's line). Where the
	 * source can be read it decides among its returns that can give the
	 * value: those with the constant itself when the code loads it
	 * (a return of a variable loads none), the loads' lines among them
	 * first; with no load, any of them (a computed value) */
	unsigned src[WHY_RETURNS];
	unsigned char fl[WHY_RETURNS];
	const char *sfile = NULL;
	size_t ns = source_returns(w, p, gi->retval, gi->rvtype & NOP_RV_POINTER, &sfile, src, fl);
	bool constant = true;

	if (ns) {
		n = pick_lines(lines, n, *file && same_file(*file, sfile), src, fl, ns, &constant);
		*file = sfile;
	}
	*how = constant ? "constant" : "source";
	*nlines = n;
	if (n) {
		*line = lines[0];
		o = (size_t)snprintf(buf, len, n == 1 ? " at %s:%u" : " at one of %s:%u", nop_sink_base(*file), lines[0]);
		for (size_t k = 1; k < n && o < len; k++)
			o += (size_t)snprintf(buf + o, len - o, ", %u", lines[k]);
		return;
	}
	/* no constant: the ret that fired (not a uretprobe's return) */
	if (u && gi->usite && gi->usite <= u->n && !u->v[gi->usite - 1].uret &&
	    nop_srclines_at(w->sl, u->v[gi->usite - 1].path, u->v[gi->usite - 1].vaddr, &f, &ln)) {
		*file = f;
		*line = (unsigned)ln;
		*how = "ret";
		snprintf(buf, len, " (its ret at %s:%d)", nop_sink_base(f), ln);
	}
}

static int count_origin(struct why *w, const char *key)
{
	unsigned long long *n;

	if ((!w->origins && !(w->origins = nop_strmap_new(sizeof(*n)))) || !(n = nop_strmap_get(w->origins, key)))
		return -1;
	++*n;
	return 0;
}

/* the failure's JSON line */
static void origin_json(struct nop_sink *s, struct why *w, const struct nop_gitem *gi, FILE *m, const char *file,
			unsigned line, const unsigned *lines, size_t nlines, const char *how)
{
	bool ret_line = !strcmp(how, "ret");

	bool user = (gi->func & NOP_UKEY_MASK) == NOP_UKEY;
	const char *en = nop_retval_errno(gi->retval, user), *bin = nop_resolve_binary(s->res, gi->func);

	fprintf(m, "{\"type\":\"why\",\"ts\":%llu,\"pid\":%d,\"comm\":", gi->ts, gi->pid);
	nop_json_str(m, nop_sink_comm(s, gi->pid));
	fprintf(m, ",\"func\":");
	nop_json_str(m, nop_sink_func(s, gi->func));
	if (bin) {
		fprintf(m, ",\"binary\":");
		nop_json_str(m, bin);
	}
	fprintf(m, ",\"retval\":%lld,\"maybe_below\":%s", gi->retval, gi->maybe_below ? "true" : "false");
	if (en)
		fprintf(m, ",\"error\":\"%s\"", en);
	if (file) {
		fprintf(m, ",\"file\":");
		nop_json_str(m, file);
		fprintf(m, ",\"line\":%u,\"exact\":%s", line, nlines == 1 && !ret_line ? "true" : "false");
		fprintf(m, ",\"how\":\"%s\"", how);
		fprintf(m, ",\"lines\":[");
		for (size_t k = 0; k < nlines; k++)
			fprintf(m, "%s%u", k ? "," : "", lines[k]);
		fprintf(m, "]");
	}
	/* the chain, the root first */
	fprintf(m, ",\"chain\":[");
	for (int i = 0; i < gi->npath; i++) {
		const struct link *l = i < WHY_DEPTH ? &w->chain[i] : NULL;

		fprintf(m, "%s{\"func\":", i ? "," : "");
		nop_json_str(m, nop_sink_func(s, gi->path[i]));
		if (l && l->has_retval)
			fprintf(m, ",\"retval\":%lld", l->retval);
		if (l && l->args)
			fprintf(m, ",\"args\":%s", nop_args_json(l->args));
		fprintf(m, "}");
	}
	fprintf(m, "]}\n");
}

static int why_graph(struct nop_sink *s, const struct nop_gitem *gi)
{
	struct why *w = s->priv;
	char where[256], v[64], *key = NULL, *line = NULL;
	size_t klen = 0, llen = 0, nlines;
	unsigned lines[WHY_LINES], ln;
	const char *file, *fn, *how = "";
	bool user = (gi->func & NOP_UKEY_MASK) == NOP_UKEY;
	FILE *m;
	int ret = 0;

	if (gi->kind == NOP_GI_EVENT || gi->depth >= WHY_DEPTH)
		return 0;
	if (gi->kind == NOP_GI_ENTER || gi->kind == NOP_GI_LEAF)
		link_args(&w->chain[gi->depth], gi->args);
	if (gi->kind == NOP_GI_RETURN || gi->kind == NOP_GI_LEAF) {
		w->chain[gi->depth].retval = gi->retval;
		w->chain[gi->depth].has_retval = gi->has_retval;
	}
	if (gi->kind != NOP_GI_ORIGIN)
		return 0;
	w->failures++;
	origin_where(s, w, gi, where, sizeof(where), &file, &ln, lines, &nlines, &how);
	value_text(v, sizeof(v), gi->retval, gi->rvtype, user);
	/* "VALUE from FUNC() at FILE:LINE, via CALLER (as V) > ... > ROOT" */
	if (!(m = open_memstream(&key, &klen)))
		return -1;
	fn = nop_sink_func(s, gi->func);
	/* a C++ name demangled with its parameters has its parentheses */
	fprintf(m, "%s from %s%s%s%s", v, fn, fn[0] && fn[strlen(fn) - 1] == ')' ? "" : "()",
		gi->maybe_below ? " or a callee with no return probe" : "", where);
	for (int i = gi->npath - 2; i >= 0; i--) {
		const struct link *l = i < WHY_DEPTH ? &w->chain[i] : NULL;
		const struct link *below = i + 1 < WHY_DEPTH ? &w->chain[i + 1] : NULL;

		fprintf(m, "%s%s", i == gi->npath - 2 ? ", via " : " > ", nop_sink_func(s, gi->path[i]));
		if (l && l->args) /* --args: "TEXT\0JSON" */
			fprintf(m, "(%s)", l->args);
		if (l && below && l->has_retval && below->has_retval && l->retval != below->retval) {
			value_text(v, sizeof(v), l->retval, 0, user);
			fprintf(m, " (as %s)", v);
		}
	}
	if (fclose(m) || count_origin(w, key)) {
		free(key);
		return -1;
	}
	if (nop_sink_spill(s)) {
		free(key);
		return -1;
	}
	if (s->enc == NOP_ENC_JSON) {
		if (!(m = open_memstream(&line, &llen))) {
			free(key);
			return -1;
		}
		origin_json(s, w, gi, m, file, ln, lines, nlines, how);
		if (fclose(m))
			ret = -1;
		else if (fputs(line, s->out) < 0)
			ret = -1;
		free(line);
	} else if (fprintf(s->out, "%s-%d: %s\n", nop_sink_comm(s, gi->pid), gi->pid, key) < 0) {
		ret = -1;
	}
	free(key);
	return ret;
}

static int by_count(const void *a, const void *b)
{
	const struct origin_row *x = a, *y = b;

	return x->count != y->count ? (x->count < y->count ? 1 : -1) : strcmp(x->key, y->key);
}

/* the failures by origin, the most first; then the run's summary */
static int why_summary(struct nop_sink *s, const struct nop_summary *sum)
{
	struct why *w = s->priv;
	size_t n = w->origins ? nop_strmap_size(w->origins) : 0;
	struct origin_row *rows = n ? malloc(n * sizeof(*rows)) : NULL;

	if (nop_sink_spill(s) || (n && !rows)) {
		free(rows);
		return -1;
	}
	for (size_t i = 0; i < n; i++)
		rows[i].count = *(unsigned long long *)nop_strmap_at(w->origins, i, &rows[i].key);
	if (n)
		qsort(rows, n, sizeof(*rows), by_count);
	if (s->enc != NOP_ENC_JSON && n)
		fprintf(s->out, "\n%llu failure%s, %zu origin%s:\n", w->failures, w->failures == 1 ? "" : "s", n,
			n == 1 ? "" : "s");
	for (size_t i = 0; i < n; i++) {
		if (s->enc == NOP_ENC_JSON) {
			fprintf(s->out, "{\"type\":\"why_origin\",\"count\":%llu,\"origin\":", rows[i].count);
			nop_json_str(s->out, rows[i].key);
			fprintf(s->out, "}\n");
		} else {
			fprintf(s->out, "%8llu  %s\n", rows[i].count, rows[i].key);
		}
	}
	free(rows);
	return nop_summary_write(s, sum);
}

static void why_free(struct nop_sink *s)
{
	struct why *w = s->priv;

	if (!w)
		return;
	for (size_t i = 0; i < WHY_DEPTH; i++)
		free(w->chain[i].args);
	nop_strmap_free(w->origins);
	nop_srclines_free(w->sl);
	free(w->text);
}

const struct nop_sink_ops nop_why_ops = {
	.init = why_init,
	.graph = why_graph,
	.summary = why_summary,
	.free = why_free,
};
