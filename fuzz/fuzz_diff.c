/* fuzz_diff.c - libFuzzer target: a file the way 'nopctl diff' takes it,
 * on both sides (JSON lines or a trace.dat), written in every format.
 * The input is the file. */
#include "../lib/nopctl.h"
#include "fuzz_file.h"

static FILE *devnull;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	fuzz_file_init("fuzz_diff");
	devnull = fopen("/dev/null", "w");
	return devnull ? 0 : -1;
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	const char *f[2] = { fuzz_file(data, size), NULL };
	struct nop_diff_result res;

	f[1] = f[0];
	for (int fmt = NOP_DIFF_TEXT; fmt <= NOP_DIFF_SVG; fmt++) {
		struct nop_error err = { 0 };
		struct nop_diff_cfg cfg = { .a = f, .na = 1 + (fmt & 1), .b = f, .nb = 1, .format = fmt,
					    .out = devnull, .all = true };

		nop_diff(&cfg, &res, &err);
	}
	return 0;
}
