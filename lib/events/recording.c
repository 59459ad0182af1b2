/* recording.c - a recording's saved pages walked once after they are
 * written (its last file after the capture, each finished file of a
 * rotated one on the thread that writes it): their events counted for
 * the summary and the kernel addresses they name noted, whose symbols
 * the trace.dat keeps. */
#include <errno.h>
#include <limits.h>
#include <string.h>

#include "events/events.h"

/* a counted page's figures added to a file's */
static int add_count(void *ctx, const struct nop_event *ev)
{
	struct nop_dat_counts *c = ctx;

	if (ev->type == NOP_EV_COUNTS) {
		c->nfunc += ev->nfunc;
		c->nexit += ev->nexit;
		c->nkev += ev->nkev;
	} else if (ev->type == NOP_EV_LOST &&
		   __builtin_add_overflow(c->lost, ev->lost > 0 ? (unsigned long long)ev->lost : 1ULL, &c->lost)) {
		c->lost = ~0ULL;
	}
	if (ev->ts && (!c->first_ts || ev->ts < c->first_ts))
		c->first_ts = ev->ts;
	if (ev->ts > c->last_ts)
		c->last_ts = ev->ts;
	return 0;
}

/* A finished file's page, on its writer's thread, with the source's
 * decoder: the capture only saves pages, decoding none */
static int walk_file_page(void *ctx, int cpu, void *page, struct nop_dat_counts *c, struct nop_addrset *syms)
{
	return nop_page_events(ctx, cpu, page, true, syms, add_count, c);
}

/* Pages are saved whole; the summary needs only their counts, and those
 * wait for the end unless a count to stop at needs them as they come:
 * whatever the reader does while tracing competes with the traced
 * program for the CPU. */
int nop_source_record_to(struct nop_source *src, struct nop_dat *dat, bool count_now)
{
	struct nop_stream *st = ((struct nop_stream_source *)src)->st;

	nop_stream_set_raw(st, (nop_raw_fn)nop_dat_page, dat);
	nop_stream_set_empty(st, nop_dat_cpu_empty);
	nop_stream_set_pages(st, count_now ? NOP_PAGES_COUNT : NOP_PAGES_SAVE);
	/* counted as they come, the capture decodes with it: finished files
	 * (none: a count is not given with a bound) would keep all of kallsyms */
	if (!count_now) {
		nop_dat_walk_with(dat, walk_file_page, ((struct nop_stream_source *)src)->dec);
		((struct nop_stream_source *)src)->dat = dat;
	}
	return 0;
}

struct count_saved {
	struct nop_decoder *dec;
	struct nop_addrset *syms;
	nop_emit_fn emit;
	void *ctx;
};

static int ignore(void *ctx, const struct nop_event *ev)
{
	(void)ctx;
	(void)ev;
	return 0;
}

static int count_one(void *ctx, int cpu, void *page)
{
	struct count_saved *c = ctx;

	return nop_page_events(c->dec, cpu, page, true, c->syms, c->emit, c->ctx);
}

int nop_dat_count_pages(struct nop_decoder *d, struct nop_dat *dat, nop_emit_fn emit, void *ctx,
			struct nop_error *err)
{
	struct count_saved c = { d, nop_dat_syms(dat), emit ? emit : ignore, ctx };
	int ret = nop_dat_each_page(dat, count_one, &c);

	if (ret < 0) {
		int e = ret == -1 ? errno : -ret;

		nop_error_set(err, NOP_EINTERNAL, e, "cannot count the recorded pages: %s", strerror(e));
		return -1;
	}
	if (!ret)
		nop_dat_noted(dat);
	return ret;
}

int nop_source_count_saved(struct nop_source *src, struct nop_dat *dat, nop_emit_fn emit, void *ctx,
			   struct nop_error *err)
{
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
	return nop_dat_count_pages(((struct nop_stream_source *)src)->dec, dat, emit, ctx, err);
}
