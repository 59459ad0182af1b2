/* fuzz_decode.c - libFuzzer target: one ring-buffer page, as the kernel
 * would hand it over trace_pipe_raw, through the decoder and the call-graph
 * engine. The first byte picks the kernel whose event formats are used
 * (tests/fixtures/6.1 or 6.12); the rest is the page. */
#include <stdlib.h>
#include <string.h>

#include "../lib/internal.h"

static struct nop_decoder *dec[2];
static struct nop_graph *graph;

static int count_item(void *ctx, const struct nop_gitem *gi)
{
	(*(unsigned long *)ctx) += gi->npath;
	return 0;
}

static int emit(void *ctx, const struct nop_event *ev)
{
	/* touch everything the decoder hands out */
	for (int i = 0; i < ev->nstack; i++)
		(*(unsigned long *)ctx) += ev->stack[i] & 1;
	if (ev->type == NOP_EV_ENTRY || ev->type == NOP_EV_EXIT || ev->type == NOP_EV_LOST)
		return nop_graph_feed(graph, ev, count_item, ctx);
	return 0;
}

static int count_only(void *ctx, const struct nop_event *ev)
{
	(*(unsigned long *)ctx) += ev->type == NOP_EV_COUNTS ? ev->nfunc + ev->nexit : 1;
	return 0;
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	const char *top = getenv("NOPCTL_FIXTURES");
	char dir[4096];
	struct nop_error err;

	for (int i = 0; i < 2; i++) {
		snprintf(dir, sizeof(dir), "%s/%s", top ? top : "tests/fixtures", i ? "6.12" : "6.1");
		dec[i] = nop_decoder_new(dir, &err);
		if (!dec[i]) {
			fprintf(stderr, "fuzz_decode: %s (set NOPCTL_FIXTURES)\n", err.msg);
			abort();
		}
	}
	graph = nop_graph_new(&err);
	return 0;
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	struct nop_decoder *d;
	unsigned long sink = 0;
	struct nop_addrset syms = { 0 }; /* a trace.dat's symbols: noted as a recording's are */
	size_t psz;
	void *page;

	if (size < 1)
		return 0;
	d = dec[data[0] & 1];
	psz = nop_decoder_page_size(d);
	page = calloc(1, psz);
	memcpy(page, data + 1, size - 1 < psz ? size - 1 : psz);
	nop_decode_page(d, data[0] >> 1 & 1, page, emit, &sink);
	nop_count_page(d, data[0] >> 1 & 1, page, &syms, count_only, &sink);
	nop_addrset_free(&syms);
	nop_decode_flush(d, emit, &sink);
	nop_graph_finish(graph, count_item, &sink);
	free(page);
	return 0;
}
