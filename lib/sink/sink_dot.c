/* sink_dot.c - a Graphviz call graph: one node per function with its
 * calls and total time, one edge per caller -> callee with the number of
 * calls and the order of the first one. Renders with dot -Tsvg.
 *
 * User functions with debug info (uprobes, DWARF through srclines.c) are
 * drawn as the C++ call-graph article draws them: one box per source file
 * (its path above it), nodes "LINE:function" (the definition's line), one
 * edge per call numbered in call order "#N at FILE:LINE" (the call site,
 * from the return address the entry probe fetched), the first call in
 * green and the last call into each function in red. Above PER_CALL_MAX
 * calls the edges are summed per caller and callee as for the kernel. */
#include <stdlib.h>
#include <string.h>

#include "sink/sink.h"

#define PER_CALL_MAX 2000

struct node {
	unsigned long long calls, total;
	unsigned long long key; /* the function's address (a user function's key) */
	size_t idx;
	const char *file; /* user function with debug info: where it is defined */
	int line;
	bool seen;
};

struct edge {
	unsigned long long calls, order;
};

/* one call of a user function, for the per-call edges */
struct call {
	size_t caller, callee;
	const char *file; /* its call site, NULL if not known */
	int line;
};

struct dot {
	struct nop_strmap *nodes, *edges;
	unsigned long long order;
	struct nop_srclines *sl;
	struct call *calls;
	size_t ncalls, cap;
	bool kernel; /* a kernel function's node: per-call edges off */
	size_t nofile; /* user functions with no declaration line (a lambda,
			  no debug info): drawn outside the file boxes */
	char nofile_names[200];
};

/* a DOT string's content: the name as text shows it (file names come
 * from a binary's DWARF), then quotes and backslashes escaped (C++ names
 * may hold quotes: operator""_x) */
static void dot_str(FILE *out, const char *name)
{
	char *e;
	const char *s = nop_text_shown(name, &e);

	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			fputc('\\', out);
		fputc(*s, out);
	}
	free(e);
}

static struct node *node_of(struct nop_sink *s, struct dot *d, unsigned long long addr)
{
	struct node *n = nop_strmap_get(d->nodes, nop_sink_func(s, addr));
	const struct nop_uprobe *p;

	if (!n || n->seen)
		return n;
	n->seen = true;
	n->key = addr;
	n->idx = nop_strmap_size(d->nodes) - 1;
	p = nop_resolve_uprobe(s->res, addr);
	if (!p) {
		d->kernel = true;
	} else if (!nop_srclines_decl(d->sl, p->path, p->vaddr, &n->file, &n->line)) {
		size_t off = strlen(d->nofile_names);

		n->file = NULL;
		if (d->nofile++ < 3)
			snprintf(d->nofile_names + off, sizeof(d->nofile_names) - off, "%s%s", off ? ", " : "",
				 nop_sink_func(s, addr));
	}
	return n;
}

/* the call site of a user function's call: its return address less one
 * (inside the call instruction), as an address of the callee's binary
 * (the process's load bias: where the entry ran less the symbol's
 * address); only where the caller is in the same binary */
static void call_site(struct nop_sink *s, struct dot *d, const struct nop_gitem *gi, struct call *c)
{
	const struct nop_uprobe *p = nop_resolve_uprobe(s->res, gi->func);
	const struct nop_uprobe *up = nop_resolve_uprobe(s->res, gi->path[gi->npath - 2]);

	c->file = NULL;
	if (!p || !up || strcmp(p->path, up->path) || !gi->uip || !gi->ucaller || gi->uip < p->vaddr)
		return;
	if (!nop_srclines_at(d->sl, p->path, gi->ucaller - (gi->uip - p->vaddr) - 1, &c->file, &c->line))
		c->file = NULL;
}

static int dot_graph(struct nop_sink *s, const struct nop_gitem *gi)
{
	struct dot *d = s->priv;
	char key[2 * NOP_NAME_MAX + 8];
	struct node *n, *caller;
	struct edge *e;

	if (gi->kind == NOP_GI_EVENT)
		return 0; /* a graph of calls: an event is no node */
	if (!d) {
		if (nop_sink_priv(s, sizeof(*d), NULL))
			return -1;
		d = s->priv;
		d->nodes = nop_strmap_new(sizeof(struct node));
		d->edges = nop_strmap_new(sizeof(struct edge));
		d->sl = nop_srclines_new();
		if (!d->nodes || !d->edges || !d->sl)
			return -1;
	}
	if (!(n = node_of(s, d, gi->func)))
		return -1;
	if (gi->kind != NOP_GI_ENTER) { /* a call is counted when it ends */
		n->calls++;
		n->total += gi->timed ? gi->duration : 0;
	}
	if (gi->npath < 2)
		return 0;
	if (!(caller = node_of(s, d, gi->path[gi->npath - 2])))
		return -1;
	snprintf(key, sizeof(key), "%s", nop_sink_func(s, gi->path[gi->npath - 2]));
	snprintf(key + strlen(key) + 1, sizeof(key) - strlen(key) - 1, "%s", nop_sink_func(s, gi->func));
	key[strlen(key)] = '\x01'; /* caller \x01 callee */
	if (!(e = nop_strmap_get(d->edges, key)))
		return -1;
	if (!e->order) /* numbered by first call: entries come in call order */
		e->order = ++d->order;
	e->calls += gi->kind != NOP_GI_ENTER;
	/* each call once, at its start (an ENTER, or a LEAF), in call order */
	if ((gi->kind == NOP_GI_ENTER || (gi->kind == NOP_GI_LEAF && !gi->no_entry)) &&
	    d->ncalls <= PER_CALL_MAX) {
		if (nop_grow((void **)&d->calls, &d->cap, d->ncalls + 1, sizeof(*d->calls)))
			return -1;
		d->calls[d->ncalls] = (struct call){ .caller = caller->idx, .callee = n->idx };
		call_site(s, d, gi, &d->calls[d->ncalls++]);
	}
	return 0;
}

static void node_line(struct nop_sink *s, const char *name, const struct node *n, const char *indent)
{
	char t[32];

	nop_fmt_duration(t, sizeof(t), n->total);
	fprintf(s->out, "%s\"", indent);
	dot_str(s->out, name);
	fputs("\" [label=\"", s->out);
	if (n->file)
		fprintf(s->out, "%d:", n->line);
	dot_str(s->out, name);
	fprintf(s->out, "\\n%llu call%s, %s\"];\n", n->calls, n->calls == 1 ? "" : "s", t);
}

/* the article's picture: a box per source file, an edge per call */
static void per_call(struct nop_sink *s, struct dot *d)
{
	size_t nn = nop_strmap_size(d->nodes);
	const char **names = calloc(nn + 1, sizeof(*names));
	size_t *last = calloc(nn + 1, sizeof(*last)); /* the last call into each, + 1 */
	bool *done = calloc(nn + 1, sizeof(*done));

	for (size_t i = 0; names && last && done && i < nn; i++) {
		struct node *n = nop_strmap_at(d->nodes, i, &names[i]);

		if (done[i])
			continue;
		if (!n->file) { /* no box to put it in */
			done[i] = true;
			node_line(s, names[i], n, "\t");
			continue;
		}
		fprintf(s->out, "\tsubgraph \"cluster_%zu\" {\n\t\tlabel=\"", i);
		dot_str(s->out, n->file);
		fputs("\";\n", s->out);
		for (size_t k = i; k < nn; k++) {
			const char *kname;
			struct node *m = nop_strmap_at(d->nodes, k, &kname);

			if (!done[k] && m->file && !strcmp(m->file, n->file)) {
				done[k] = true;
				node_line(s, kname, m, "\t\t");
			}
		}
		fputs("\t}\n", s->out);
	}
	for (size_t c = 0; last && c < d->ncalls; c++)
		last[d->calls[c].callee] = c + 1;
	for (size_t c = 0; names && last && c < d->ncalls; c++) {
		const struct call *k = &d->calls[c];
		const char *color = c == 0 ? "green" : last[k->callee] == c + 1 ? "red" : NULL;

		fputs("\t\"", s->out);
		dot_str(s->out, names[k->caller]);
		fputs("\" -> \"", s->out);
		dot_str(s->out, names[k->callee]);
		fprintf(s->out, "\" [label=\"#%zu", c + 1);
		if (k->file) {
			fputs(" at ", s->out);
			dot_str(s->out, nop_sink_base(k->file));
			fprintf(s->out, ":%d", k->line);
		}
		fputc('"', s->out);
		if (color)
			fprintf(s->out, ", color=%s, fontcolor=%s", color, color);
		fputs("];\n", s->out);
	}
	free(names);
	free(last);
	free(done);
}

static int dot_summary(struct nop_sink *s, const struct nop_summary *sum)
{
	struct dot *d = s->priv;

	fputs("digraph nopctl {\n\trankdir=LR;\n\tnode [shape=box, fontname=\"monospace\"];\n", s->out);
	if (d && !d->kernel && d->ncalls && d->ncalls <= PER_CALL_MAX) {
		per_call(s, d);
		if (d->nofile && !s->quiet)
			fprintf(s->diag, "nopctl: %zu function%s with no source line in the debug info (a lambda,"
				" or built without -g), drawn outside the file boxes: %s%s\n", d->nofile,
				d->nofile == 1 ? "" : "s", d->nofile_names, d->nofile > 3 ? ", ..." : "");
		fputs("}\n", s->out);
		return nop_summary_to_diag(s, sum);
	}
	for (size_t i = 0; d && i < nop_strmap_size(d->nodes); i++) {
		const char *name;
		struct node *n = nop_strmap_at(d->nodes, i, &name);

		node_line(s, name, n, "\t");
	}
	for (size_t i = 0; d && i < nop_strmap_size(d->edges); i++) {
		const char *key;
		struct edge *e = nop_strmap_at(d->edges, i, &key);
		const char *sep = strchr(key, '\x01');
		char *caller = strndup(key, (size_t)(sep - key));

		fputs("\t\"", s->out);
		dot_str(s->out, caller ? caller : "?");
		fputs("\" -> \"", s->out);
		dot_str(s->out, sep + 1);
		fprintf(s->out, "\" [label=\"#%llu, %llux\"];\n", e->order, e->calls);
		free(caller);
	}
	fputs("}\n", s->out);
	return nop_summary_to_diag(s, sum);
}

static void dot_free(struct nop_sink *s)
{
	struct dot *d = s->priv;

	if (d) {
		nop_strmap_free(d->nodes);
		nop_strmap_free(d->edges);
		nop_srclines_free(d->sl);
		free(d->calls);
	}
}

const struct nop_sink_ops nop_dot_ops = {
	.graph = dot_graph,
	.summary = dot_summary,
	.free = dot_free,
};
