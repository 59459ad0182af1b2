/* source_dat.c - a trace.dat (trace-cmd's or nopctl record's), read
 * without libtracecmd (tracedat_read.c: sections, formats, names;
 * tracedat_pages.c and stream.c: the pages of every CPU of every instance
 * merged exactly by time). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "events/events.h"

struct dat {
	struct nop_stream_source s; /* first: a stream source */
	struct nop_dat_in *in;
	struct nop_uprobes up; /* the functions its probe events name */
};

static void dat_close(struct nop_source *src)
{
	struct dat *d = (struct dat *)src;

	nop_stream_source_release(&d->s);
	nop_dat_in_free(d->in);
	nop_uprobes_free(&d->up);
	free(d);
}

static const struct nop_source_ops dat_ops = {
	.finite = true, .drain = nop_stream_source_drain, .close = dat_close,
};

int nop_source_dat(struct nop_source **src, const char *path, struct nop_resolver **res,
		   struct nop_error *err)
{
	struct dat *d = nop_source_new(sizeof(*d), &dat_ops, err);
	*src = NULL;
	if (!d)
		return -1;
	if (nop_dat_in_open(&d->in, path, err)) {
		dat_close(&d->s.base);
		return -1;
	}
	if (d->in->latency.p) {
		nop_error_set(err, NOP_EUSAGE, 0, "%s holds a latency tracer's text, not ring-buffer"
			      " pages: nothing nopctl decodes (trace-cmd report prints it)", path);
		dat_close(&d->s.base);
		return -1;
	}
	if (!(d->s.dec = nop_decoder_from_dat(d->in, &d->up, err)) ||
	    !(*res = nop_resolver_from_dat(d->in, err)) ||
	    nop_stream_open_dat(&d->s.st, d->s.dec, d->in, err)) {
		dat_close(&d->s.base);
		return -1;
	}
	nop_resolver_set_probes(*res, &d->up);
	d->s.base.complete_from = d->in->complete_from;
	d->s.base.complete_to = d->in->complete_to;
	*src = &d->s.base;
	return 0;
}

/* a trace.dat, read by nopctl's own reader */
int nop_source_file(struct nop_source **src, const char *path, struct nop_resolver **res,
		    struct nop_error *err)
{
	*src = NULL;
	*res = NULL;
	if (access(path, R_OK) < 0) {
		nop_error_set(err, NOP_EUSAGE, errno, "cannot read %s: %s", path, strerror(errno));
		return -1;
	}
	return nop_source_dat(src, path, res, err);
}
