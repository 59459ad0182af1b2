/* gated.c - catch with the kernel's gate: nopctl reads nothing until a
 * snapshot trigger fires. Then the snapshot is read, then the buffer
 * itself, every event, until the kernel has counted no more such calls
 * for FOLLOW_MS and no caught tree is open (calls that meet the condition
 * come in bursts: a command's loader fails 8 opens within a millisecond
 * of its first, and what follows the first is overwritten long before a
 * next snapshot); then the triggers are armed again. A snapshot asked
 * for (SIGUSR1) is read the same way. */
#include <stdlib.h>
#include <time.h>

#include "pipeline/pipeline.h"

#define FOLLOW_MS 1000
/* the hits counted at most this often while following (two hist files
 * read per root function) */
#define COUNT_MS 100

struct nop_gated {
	struct nop_session *sess;
	struct nop_source *snap;
	struct nop_pipeline *pipe;
	bool following;
	unsigned long long hits_seen, hits_at, counted_at, snapshots;
};

static unsigned long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (unsigned long long)ts.tv_sec * 1000000000ULL + (unsigned long long)ts.tv_nsec;
}

struct nop_gated *nop_gated_new(struct nop_session *s, struct nop_source *snap, struct nop_pipeline *p)
{
	struct nop_gated *g = calloc(1, sizeof(*g));

	if (g) {
		g->sess = s;
		g->snap = snap;
		g->pipe = p;
	}
	return g;
}

/* what the snapshot holds (the buffer as it was when a trigger fired, or
 * when one was asked for), through the pipeline to -c's count */
static int read_snapshot(struct nop_gated *g, struct nop_error *err)
{
	g->snapshots++;
	if (nop_pipeline_drain_all(g->pipe, g->snap, err))
		return -1;
	return nop_pipeline_flush(g->pipe, err) == NOP_FLOW_FAIL ? -1 : 0;
}

static void follow(struct nop_gated *g)
{
	unsigned long long roots;

	g->following = true;
	g->hits_at = now_ns();
	nop_session_gate_counts(g->sess, &roots, &g->hits_seen);
}

int nop_gated_look(struct nop_gated *g, bool asked, struct nop_error *err)
{
	if (nop_session_gate_fired(g->sess)) {
		if (read_snapshot(g, err))
			return -1;
		follow(g);
	}
	if (asked) {
		if (nop_session_snapshot(g->sess, err) || read_snapshot(g, err))
			return -1;
		follow(g); /* the trees open then, read on to their ends */
	}
	return 0;
}

bool nop_gated_following(const struct nop_gated *g)
{
	return g->following;
}

int nop_gated_settle(struct nop_gated *g, struct nop_error *err)
{
	unsigned long long roots, hits, t = now_ns();

	if (!g->following || (g->counted_at && t - g->counted_at < COUNT_MS * 1000000ULL))
		return 0;
	g->counted_at = t;
	nop_session_gate_counts(g->sess, &roots, &hits);
	if (hits != g->hits_seen) {
		g->hits_seen = hits;
		g->hits_at = t;
		return 0;
	}
	if (t - g->hits_at < FOLLOW_MS * 1000000ULL || nop_pipeline_catch_running(g->pipe))
		return 0;
	g->following = false;
	return nop_session_gate_rearm(g->sess, err);
}

int nop_gated_end(struct nop_gated *g, bool read, unsigned long long *roots, unsigned long long *hits,
		  bool *rest, struct nop_error *err)
{
	if (read && nop_session_gate_fired(g->sess) && read_snapshot(g, err))
		return -1;
	nop_session_gate_counts(g->sess, roots, hits);
	*rest = g->following || *hits != g->hits_seen;
	return 0;
}

unsigned long long nop_gated_snapshots(const struct nop_gated *g)
{
	return g->snapshots;
}

void nop_gated_free(struct nop_gated *g)
{
	free(g);
}
