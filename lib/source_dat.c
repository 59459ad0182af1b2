/* source_dat.c - a trace.dat as nopctl record writes it, read without
 * libtracecmd (tracedat_read.c: sections, formats, names; stream.c: the
 * pages of every CPU merged exactly by time). */
#include <stdlib.h>

#include "internal.h"

struct dat {
	struct nop_stream_source s; /* first: a stream source */
	struct nop_dat_in *in;
};

static void dat_close(struct nop_source *src)
{
	struct dat *d = (struct dat *)src;

	nop_stream_source_release(&d->s);
	nop_dat_in_free(d->in);
	free(d);
}

static const struct nop_source_ops dat_ops = {
	.finite = true, .drain = nop_stream_source_drain, .close = dat_close,
};

int nop_source_dat(struct nop_source **src, const char *path, struct nop_resolver **res,
		   struct nop_error *err)
{
	struct dat *d = nop_source_new(sizeof(*d), &dat_ops, err);
	int ret;

	*src = NULL;
	if (!d)
		return -1;
	if ((ret = nop_dat_in_open(&d->in, path, err)) != 0 || !d->in) {
		dat_close(&d->s.base);
		return ret < 0 ? -1 : 1;
	}
	if (!(d->s.dec = nop_decoder_from_dat(d->in, err)) || !(*res = nop_resolver_from_dat(d->in, err)) ||
	    nop_stream_open_dat(&d->s.st, d->s.dec, d->in, err)) {
		dat_close(&d->s.base);
		return -1;
	}
	*src = &d->s.base;
	return 0;
}
