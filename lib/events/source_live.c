/* source_live.c - a session's per-CPU buffers (trace_pipe_raw), read
 * without blocking and merged by time (stream.c); for record, each page
 * goes whole to a trace.dat (recording.c). */
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
	if (((struct nop_stream_source *)s)->dat) /* before its decoder goes */
		nop_dat_wait(((struct nop_stream_source *)s)->dat);
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

void nop_source_keep_pages(struct nop_source *src, nop_raw_fn fn, nop_span_fn span, void *ctx)
{
	nop_stream_set_raw(((struct nop_stream_source *)src)->st, fn, ctx);
	nop_stream_set_span(((struct nop_stream_source *)src)->st, span);
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
