/* decompress.c - one block of a compressed trace.dat (version 7) back to
 * its bytes, with Debian's libzstd or zlib: trace-cmd compresses each
 * metadata section as one block and each CPU's pages in chunks, every one
 * a whole zstd frame or zlib stream (lib/trace-cmd/trace-compress-*.c). */
#include <string.h>

#include <zlib.h>
#include <zstd.h>

#include "tracedat/tracedat.h"

int nop_zalg_by_name(const char *name)
{
	if (!strcmp(name, "none"))
		return NOP_Z_NONE;
	if (!strcmp(name, "zstd"))
		return NOP_Z_ZSTD;
	if (!strcmp(name, "zlib"))
		return NOP_Z_ZLIB;
	return -1;
}

/* in (n bytes) into out, which holds exactly want: 0, or -1 if the block
 * is damaged or decompresses to another size */
int nop_decompress(int alg, const void *in, size_t n, void *out, size_t want)
{
	if (alg == NOP_Z_ZSTD) {
		static ZSTD_DCtx *dctx; /* reused: a context per chunk costs a page of set-up */
		size_t r;

		if (!dctx && !(dctx = ZSTD_createDCtx()))
			return -1;
		r = ZSTD_decompressDCtx(dctx, out, want, in, n);
		return ZSTD_isError(r) || r != want ? -1 : 0;
	}
	if (alg == NOP_Z_ZLIB) {
		uLongf got = (uLongf)want;

		return uncompress(out, &got, in, (uLong)n) != Z_OK || got != want ? -1 : 0;
	}
	return -1;
}
