/* catchfiles.c - catch -o DIR: the pages that cover each caught call (and
 * the time before it) as DIR/catch-NNNN.dat, a trace.dat like record's.
 * The live sources' pages are kept as they are read, a ring per CPU of
 * twice its buffer: a tree and what came before it. A name refused (a
 * link or a file put there) skips that catch's file: one bad name never
 * ends the run. The reader writes each file while the kernel's buffer
 * fills: kallsyms is read and indexed once for all of them. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "pipeline/pipeline.h"

struct nop_catchfiles {
	struct nop_catchfiles_cfg cfg;
	char group[64]; /* cfg.desc.group's text, which the caller's may not outlive */
	struct nop_pagering *ring;
	struct nop_decoder *dec; /* each file's pages counted: the symbols their events name */
	struct nop_kallsyms_kept ksyms;
	unsigned long long skipped;
};

int nop_catchfiles_new(struct nop_catchfiles **cf, const struct nop_catchfiles_cfg *cfg, struct nop_error *err)
{
	struct nop_catchfiles *c = calloc(1, sizeof(*c));
	size_t kb = cfg->buffer_kb ? cfg->buffer_kb : 1408, ps = (size_t)cfg->page_size;

	if (!c || !(c->ring = nop_pagering_new(nop_ncpus(), ps, kb * 1024 * 2 / ps))) {
		free(c);
		nop_error_set(err, NOP_EINTERNAL, ENOMEM, "out of memory");
		return -1;
	}
	if (!(c->dec = nop_decoder_new(cfg->tracing_dir, err))) {
		nop_catchfiles_free(c);
		return -1;
	}
	nop_kallsyms_keep(&c->ksyms); /* before the capture: unreadable, each file tries */
	c->cfg = *cfg;
	snprintf(c->group, sizeof(c->group), "%s", cfg->desc.group ? cfg->desc.group : "");
	c->cfg.desc.group = c->group;
	*cf = c;
	return 0;
}

void nop_catchfiles_keep(struct nop_catchfiles *cf, struct nop_source *src)
{
	nop_source_keep_pages(src, nop_pagering_put, nop_pagering_span, cf->ring);
}

int nop_catchfiles_write(void *ctx, unsigned long long seq, unsigned long long from, char *path, size_t len)
{
	struct nop_catchfiles *cf = ctx;
	const struct nop_catchfiles_cfg *c = &cf->cfg;
	struct nop_dat *w = NULL;
	struct nop_error err = { 0 };
	int e;

	snprintf(path, len, "%s/catch-%04llu.dat", c->dir, seq);
	from = from > c->before_ns ? from - c->before_ns : 0;
	if (nop_dat_open(&w, path, c->overwrite, c->tracing_dir, NULL, c->page_size, &err))
		goto failed;
	if (!nop_kallsyms_keep(&cf->ksyms))
		nop_dat_lend_ksyms(w, &cf->ksyms);
	if (nop_dat_describe(w, &c->desc)) {
		nop_dat_free(w, false);
		return errno = ENOMEM, -1;
	}
	if (nop_pagering_write(cf->ring, w, from)) {
		nop_dat_free(w, false);
		return -1;
	}
	if (nop_dat_count_pages(cf->dec, w, NULL, NULL, &err) || nop_dat_finish(w, &err))
		goto failed;
	nop_dat_free(w, true);
	return 0;
failed:
	nop_dat_free(w, false);
	e = err.sys_errno ? err.sys_errno : EIO;
	if (e != EEXIST && e != ELOOP && e != EINVAL)
		return errno = e, -1;
	cf->skipped++;
	if (c->skipped)
		c->skipped(c->ctx, path, err.msg);
	path[0] = 0;
	return 0;
}

unsigned long long nop_catchfiles_skipped(const struct nop_catchfiles *cf)
{
	return cf ? cf->skipped : 0;
}

void nop_catchfiles_free(struct nop_catchfiles *cf)
{
	if (!cf)
		return;
	nop_pagering_free(cf->ring);
	nop_decoder_free(cf->dec);
	nop_kallsyms_kept_free(&cf->ksyms);
	free(cf);
}
