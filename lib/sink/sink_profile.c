/* sink_profile.c - the view that writes nothing: every call goes into a
 * profile (a calling-context tree with each call's durations) that the
 * caller keeps, for nopctl diff. */
#include "sink/sink.h"

/* the node of a call: its path of names from the root */
static size_t node_of(struct nop_sink *s, const unsigned long long *path, int npath)
{
	struct nop_profile *p = s->priv;
	size_t at = 0;

	/* nop_sink_func's "0x..." buffer is reused: each name is interned
	 * before the next is asked for */
	for (int i = 0; i < npath; i++) {
		if (!(at = nop_profile_child(p, at, nop_sink_func(s, path[i]), true)))
			return 0;
		p->node[at].user = (path[i] & NOP_UKEY_MASK) == NOP_UKEY;
	}
	return at;
}

static int profile_init(struct nop_sink *s, const struct nop_sink_cfg *cfg, struct nop_error *err)
{
	if (!cfg->profile) {
		nop_error_set(err, NOP_EINTERNAL, 0, "no profile to fill");
		return -1;
	}
	s->priv = cfg->profile;
	return 0;
}

static int profile_graph(struct nop_sink *s, const struct nop_gitem *gi)
{
	struct nop_profile *p = s->priv;
	size_t at;

	if (!nop_gi_ends_call(gi))
		return 0;
	if (!(at = node_of(s, gi->path, gi->npath)))
		return -1;
	if (!gi->timed)
		p->untimed++;
	return nop_profile_add(p, at, gi->timed, gi->duration, gi->self, gi->has_retval, gi->retval);
}

/* a function tracer's hit: a call of unknown duration, under the root */
static int profile_event(struct nop_sink *s, const struct nop_event *ev)
{
	size_t at;

	if (ev->type != NOP_EV_FUNC)
		return 0;
	if (!(at = node_of(s, &ev->ip, 1)))
		return -1;
	return nop_profile_add(s->priv, at, false, 0, 0, false, 0);
}

static int profile_summary(struct nop_sink *s, const struct nop_summary *sum)
{
	struct nop_profile *p = s->priv;

	p->lost = (unsigned long long)(sum->lost_pages > 0 ? sum->lost_pages : 0) + sum->gaps + sum->overrun +
		  sum->dropped;
	return 0;
}

/* the profile is the caller's: not freed with the sink */
static void profile_free(struct nop_sink *s)
{
	s->priv = NULL;
}

const struct nop_sink_ops nop_profile_ops = {
	.free = profile_free,
	.init = profile_init,
	.event = profile_event,
	.graph = profile_graph,
	.summary = profile_summary,
};
