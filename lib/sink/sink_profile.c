/* sink_profile.c - the view that writes nothing: every call goes into a
 * profile (a calling-context tree with each call's durations) that the
 * caller keeps, for nopctl diff, told of each timed call if it asked. */
#include "sink/sink.h"

/* the caller's profile, and whom to tell of each timed call */
struct profile_sink {
	struct nop_profile *p;
	int (*timed)(void *ctx, struct nop_profile *p);
	void *ctx;
};

/* the node of a call: its path of names from the root */
static size_t node_of(struct nop_sink *s, const unsigned long long *path, int npath)
{
	struct nop_profile *p = ((struct profile_sink *)s->priv)->p;
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
	if (nop_sink_priv(s, sizeof(struct profile_sink), err))
		return -1;
	*(struct profile_sink *)s->priv = (struct profile_sink){ cfg->profile, cfg->profile_timed, cfg->profile_ctx };
	return 0;
}

static int profile_graph(struct nop_sink *s, const struct nop_gitem *gi)
{
	struct profile_sink *ps = s->priv;
	struct nop_profile *p = ps->p;
	size_t at;

	if (!nop_gi_ends_call(gi))
		return 0;
	if (!(at = node_of(s, gi->path, gi->npath)))
		return -1;
	if (!gi->timed)
		p->untimed++;
	if (nop_profile_add(p, at, gi->timed, gi->duration, gi->self, gi->has_retval, gi->retval))
		return -1;
	return gi->timed && ps->timed ? ps->timed(ps->ctx, p) : 0;
}

/* a function tracer's hit: a call of unknown duration, under the root */
static int profile_event(struct nop_sink *s, const struct nop_event *ev)
{
	size_t at;

	if (ev->type != NOP_EV_FUNC)
		return 0;
	if (!(at = node_of(s, &ev->ip, 1)))
		return -1;
	return nop_profile_add(((struct profile_sink *)s->priv)->p, at, false, 0, 0, false, 0);
}

static int profile_summary(struct nop_sink *s, const struct nop_summary *sum)
{
	struct nop_profile *p = ((struct profile_sink *)s->priv)->p;

	p->lost = (unsigned long long)(sum->lost_pages > 0 ? sum->lost_pages : 0) + sum->gaps + sum->overrun +
		  sum->dropped;
	return 0;
}

const struct nop_sink_ops nop_profile_ops = {
	.init = profile_init,
	.event = profile_event,
	.graph = profile_graph,
	.summary = profile_summary,
};
