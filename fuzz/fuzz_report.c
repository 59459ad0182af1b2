/* fuzz_report.c - libFuzzer target: a file the way 'nopctl report' takes
 * it: the source (nopctl's trace.dat reader), then the pipeline to the
 * graph view's text sink. The input is the file. */
#include "../lib/nopctl.h"
#include "fuzz_file.h"

static FILE *devnull;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	fuzz_file_init("fuzz_report");
	devnull = fopen("/dev/null", "w");
	return devnull ? 0 : -1;
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	struct nop_error err;
	struct nop_source *src = NULL;
	struct nop_resolver *res = NULL;
	struct nop_pipeline *p = NULL;
	struct nop_summary sum = { 0 };
	bool more = true;

	if (nop_source_file(&src, fuzz_file(data, size), &res, &err) == 0) {
		struct nop_pipeline_cfg pc = {
			.sink = { .view = NOP_VIEW_LINES, .enc = NOP_ENC_TEXT, .out = devnull,
				  .diag = devnull, .quiet = true, .res = res },
			.graph = true,
		};

		if (nop_pipeline_new(&p, &pc, &err) == 0) {
			for (int rounds = 0; more && rounds < 1000; rounds++)
				if (nop_pipeline_drain(p, src, &more, &err) != NOP_FLOW_GO)
					break;
			nop_pipeline_finish(p, &sum, &err);
		}
	}
	nop_pipeline_free(p);
	nop_source_close(src);
	nop_resolver_free(res);
	return 0;
}
