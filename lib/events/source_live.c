/* source_live.c - a session's per-CPU buffers (trace_pipe_raw), read
 * without blocking and merged by time (stream.c); for record, each page
 * goes whole to a trace.dat and is counted (then, or after the capture). */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "events/events.h"

static int live_nfds(const struct nop_source *s)
{
	return nop_stream_nfds(((const struct nop_stream_source *)s)->st);
}

static int live_fd(const struct nop_source *s, int i)
{
	return nop_stream_fd(((const struct nop_stream_source *)s)->st, i);
}

static void live_close(struct nop_source *s)
{
	nop_stream_source_release((struct nop_stream_source *)s);
	free(s);
}

static void live_end(struct nop_source *s)
{
	nop_stream_set_final(((struct nop_stream_source *)s)->st);
}

static void live_catch_up(struct nop_source *s)
{
	nop_stream_catch_up(((struct nop_stream_source *)s)->st);
}

static int live_wait_ms(const struct nop_source *s, int most)
{
	return nop_stream_wait_ms(((const struct nop_stream_source *)s)->st, most);
}

static const struct nop_source_ops live_ops = {
	.nfds = live_nfds, .fd = live_fd, .drain = nop_stream_source_drain, .end = live_end,
	.catch_up = live_catch_up,
	.wait_ms = live_wait_ms, .close = live_close,
};

static int open_live(struct nop_source **src, const char *buffer_dir, const struct nop_cpuset *cpus,
		     bool snapshot, struct nop_error *err)
{
	struct nop_stream_source *l = nop_source_new(sizeof(*l), &live_ops, err);

	*src = NULL;
	if (!l)
		return -1;
	if (!(l->dec = nop_decoder_new(buffer_dir, err)) ||
	    nop_decoder_add_process_events(l->dec, buffer_dir, err) ||
	    (snapshot ? nop_stream_open_snapshot : nop_stream_open)(&l->st, l->dec, buffer_dir, cpus, err)) {
		live_close(&l->base);
		return -1;
	}
	*src = &l->base;
	return 0;
}

int nop_source_live(struct nop_source **src, const char *buffer_dir, const struct nop_cpuset *cpus,
		    struct nop_error *err)
{
	return open_live(src, buffer_dir, cpus, false, err);
}

int nop_source_snapshot(struct nop_source **src, const char *buffer_dir, const struct nop_cpuset *cpus,
			struct nop_error *err)
{
	return open_live(src, buffer_dir, cpus, true, err);
}

int nop_source_page_size(const struct nop_source *src)
{
	return nop_decoder_page_size(((const struct nop_stream_source *)src)->dec);
}

/* Pages are saved whole; the summary needs only their counts, and those
 * wait for the end unless a count to stop at needs them as they come:
 * whatever the reader does while tracing competes with the traced
 * program for the CPU. */
int nop_source_record_to(struct nop_source *src, struct nop_dat *dat, bool count_now)
{
	struct nop_stream *st = ((struct nop_stream_source *)src)->st;

	nop_stream_set_raw(st, (nop_raw_fn)nop_dat_page, dat);
	nop_stream_set_pages(st, count_now ? NOP_PAGES_COUNT : NOP_PAGES_SAVE);
	if (!count_now) /* the capture does not decode: a file's writer counts with it */
		nop_dat_count_with(dat, ((struct nop_stream_source *)src)->dec);
	return 0;
}

void nop_source_keep_pages(struct nop_source *src, nop_raw_fn fn, nop_span_fn span, void *ctx)
{
	nop_stream_set_raw(((struct nop_stream_source *)src)->st, fn, ctx);
	nop_stream_set_span(((struct nop_stream_source *)src)->st, span);
}

struct count_saved {
	struct nop_decoder *dec;
	nop_emit_fn emit;
	void *ctx;
};

static int count_one(void *ctx, int cpu, void *page)
{
	struct count_saved *c = ctx;

	return nop_page_events(c->dec, cpu, page, true, c->emit, c->ctx);
}

int nop_source_count_saved(struct nop_source *src, struct nop_dat *dat, nop_emit_fn emit, void *ctx,
			   struct nop_error *err)
{
	struct count_saved c = { ((struct nop_stream_source *)src)->dec, emit, ctx };
	struct nop_dat_counts n;
	int ret;

	/* a rotated recording's finished files, counted as each was written:
	 * their figures first, as one page's, then the current file's pages */
	if (nop_dat_counted(dat, &n, err))
		return -1;
	if (n.nfunc || n.nexit || n.nkev || n.first_ts) {
		struct nop_event k = { .type = NOP_EV_COUNTS, .cpu = -1, .ts = n.first_ts, .nfunc = n.nfunc,
				       .nexit = n.nexit, .nkev = n.nkev },
				 last = { .type = NOP_EV_COUNTS, .cpu = -1, .ts = n.last_ts },
				 lost = { .type = NOP_EV_LOST, .cpu = -1, .lost = (long long)(n.lost > LLONG_MAX ? LLONG_MAX : n.lost) };

		if ((ret = emit(ctx, &k)) || (ret = emit(ctx, &last)) || (n.lost && (ret = emit(ctx, &lost))))
			return ret;
	}
	ret = nop_dat_each_page(dat, count_one, &c);

	if (ret < 0) {
		int e = ret == -1 ? errno : -ret;

		nop_error_set(err, NOP_EINTERNAL, e, "cannot count the recorded pages: %s", strerror(e));
		return -1;
	}
	return ret;
}

int nop_source_probes(struct nop_source *src, const char *buffer_dir, const struct nop_uprobes *u,
		      struct nop_error *err)
{
	char group[64];

	nop_probe_group(group, sizeof(group), getpid());
	return nop_decoder_add_probes(((struct nop_stream_source *)src)->dec, buffer_dir, group, u,
				      err);
}

int nop_source_events(struct nop_source *src, const char *buffer_dir, const struct nop_kevent *k, size_t n,
		      struct nop_error *err)
{
	return nop_decoder_add_events(((struct nop_stream_source *)src)->dec, buffer_dir, k, n, err);
}
