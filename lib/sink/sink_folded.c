/* sink_folded.c - flame-graph folded stacks ("a;b;c <ns>"), for
 * flamegraph.pl, inferno and speedscope. Each stack carries the self time
 * of its last function, so all lines sum to the time of the roots. */
#include <string.h>

#include "sink/sink.h"

static int folded_graph(struct nop_sink *s, const struct nop_gitem *gi)
{
	char key[8192];
	size_t off = 0;
	unsigned long long *v;

	if (gi->kind == NOP_GI_ENTER || !gi->timed)
		return 0;
	if (!s->priv && !(s->priv = nop_strmap_new(sizeof(unsigned long long))))
		return -1;
	for (int i = 0; i < gi->npath && off < sizeof(key) - 1; i++)
		off += (size_t)snprintf(key + off, sizeof(key) - off, "%s%s", i ? ";" : "",
					nop_sink_func(s, gi->path[i]));
	if (!(v = nop_strmap_get(s->priv, key)))
		return -1;
	/* its own time off CPU: a frame of its own per state, so that an
	 * off-CPU flame graph and an on-CPU one are one picture */
	*v += gi->self > nop_off_total(gi->off_self) ? gi->self - nop_off_total(gi->off_self) : 0;
	for (int st = 0; st < NOP_OFF_STATES; st++) {
		if (!gi->off_self[st] || off + 24 >= sizeof(key))
			continue;
		snprintf(key + off, sizeof(key) - off, ";[off CPU: %c]", nop_off_letter(st));
		if (!(v = nop_strmap_get(s->priv, key)))
			return -1;
		*v += gi->off_self[st];
	}
	return 0;
}

static int folded_summary(struct nop_sink *s, const struct nop_summary *sum)
{
	for (size_t i = 0; s->priv && i < nop_strmap_size(s->priv); i++) {
		const char *key;
		unsigned long long *v = nop_strmap_at(s->priv, i, &key);

		fprintf(s->out, "%s %llu\n", key, *v);
	}
	return nop_summary_to_diag(s, sum);
}

static void folded_free(struct nop_sink *s)
{
	nop_strmap_free(s->priv);
	s->priv = NULL;
}

const struct nop_sink_ops nop_folded_ops = {
	.graph = folded_graph,
	.summary = folded_summary,
	.free = folded_free,
};
