/* sink_dot.c - a Graphviz call graph: one node per function with its
 * calls and total time, one edge per caller -> callee with the number of
 * calls and the order of the first one. Renders with dot -Tsvg. */
#include <string.h>

#include "internal.h"

struct node {
	unsigned long long calls, total;
};

struct edge {
	unsigned long long calls, order;
};

struct dot {
	struct nop_strmap *nodes, *edges;
	unsigned long long order;
};

static int dot_graph(struct nop_sink *s, const struct nop_gitem *gi)
{
	struct dot *d = s->priv;
	char key[2 * NOP_NAME_MAX + 8];
	struct node *n;
	struct edge *e;

	if (!d) {
		if (nop_sink_priv(s, sizeof(*d), NULL))
			return -1;
		d = s->priv;
		d->nodes = nop_strmap_new(sizeof(struct node));
		d->edges = nop_strmap_new(sizeof(struct edge));
		if (!d->nodes || !d->edges)
			return -1;
	}
	if (!(n = nop_strmap_get(d->nodes, nop_sink_func(s, gi->func))))
		return -1;
	if (gi->kind != NOP_GI_ENTER) { /* a call is counted when it ends */
		n->calls++;
		n->total += gi->timed ? gi->duration : 0;
	}
	if (gi->npath < 2)
		return 0;
	snprintf(key, sizeof(key), "%s", nop_sink_func(s, gi->path[gi->npath - 2]));
	snprintf(key + strlen(key) + 1, sizeof(key) - strlen(key) - 1, "%s", nop_sink_func(s, gi->func));
	key[strlen(key)] = '\x01'; /* caller \x01 callee */
	if (!(e = nop_strmap_get(d->edges, key)))
		return -1;
	if (!e->order) /* numbered by first call: entries come in call order */
		e->order = ++d->order;
	e->calls += gi->kind != NOP_GI_ENTER;
	return 0;
}

static int dot_summary(struct nop_sink *s, const struct nop_summary *sum)
{
	struct dot *d = s->priv;
	char t[32];

	fputs("digraph nopctl {\n\trankdir=LR;\n\tnode [shape=box, fontname=\"monospace\"];\n", s->out);
	for (size_t i = 0; d && i < nop_strmap_size(d->nodes); i++) {
		const char *name;
		struct node *n = nop_strmap_at(d->nodes, i, &name);

		nop_fmt_duration(t, sizeof(t), n->total);
		fprintf(s->out, "\t\"%s\" [label=\"%s\\n%llu call%s, %s\"];\n", name, name, n->calls,
			n->calls == 1 ? "" : "s", t);
	}
	for (size_t i = 0; d && i < nop_strmap_size(d->edges); i++) {
		const char *key;
		struct edge *e = nop_strmap_at(d->edges, i, &key);
		const char *sep = strchr(key, '\x01');

		fprintf(s->out, "\t\"%.*s\" -> \"%s\" [label=\"#%llu, %llux\"];\n", (int)(sep - key), key,
			sep + 1, e->order, e->calls);
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
	}
}

const struct nop_sink_ops nop_dot_ops = {
	.graph = dot_graph,
	.summary = dot_summary,
	.free = dot_free,
};
