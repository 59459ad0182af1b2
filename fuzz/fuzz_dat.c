/* fuzz_dat.c - libFuzzer target: a trace.dat as nopctl report reads it
 * (tracedat_read.c): the header's options and sections, compressed or
 * not, the event formats and symbols they carry, and every CPU's pages
 * (tracedat_pages.c) through the decoder, the merge and the call-graph
 * engine. The input is the file. */
#include "../lib/internal.h"
#include "fuzz_file.h"

static int count_item(void *ctx, const struct nop_gitem *gi)
{
	(*(unsigned long *)ctx) += (unsigned long)gi->npath;
	return 0;
}

struct feed {
	struct nop_graph *g;
	struct nop_resolver *r;
	unsigned long n;
};

static int emit(void *ctx, const struct nop_event *ev)
{
	struct feed *f = ctx;
	unsigned long long off;

	f->n += nop_resolve_sym(f->r, ev->ip, &off) != NULL;
	f->n += nop_resolve_comm(f->r, ev->pid)[0];
	return nop_graph_feed(f->g, ev, count_item, &f->n);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	fuzz_file_init("fuzz_dat");
	return 0;
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	struct nop_error err;
	struct nop_dat_in *in = NULL;
	struct nop_decoder *d = NULL;
	struct nop_stream *st = NULL;
	struct feed f = { 0 };
	struct nop_uprobes up = { 0 };
	bool more;

	if (nop_dat_in_open(&in, fuzz_file(data, size), &err) != 0)
		return 0;
	if ((d = nop_decoder_from_dat(in, &up, &err)) && (f.r = nop_resolver_from_dat(in, &err)) &&
	    (f.g = nop_graph_new(&err)) && nop_stream_open_dat(&st, d, in, &err) == 0) {
		nop_stream_drain(st, emit, &f, &more, &err);
		nop_graph_finish(f.g, count_item, &f.n);
	}
	nop_stream_close(st);
	nop_graph_free(f.g);
	nop_resolver_free(f.r);
	nop_decoder_free(d);
	nop_dat_in_free(in);
	nop_uprobes_free(&up);
	return 0;
}
