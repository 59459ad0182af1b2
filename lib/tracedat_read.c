/* tracedat_read.c - a trace.dat read without libtracecmd: its event
 * formats, symbols and task names, and where each CPU's pages lie, so that
 * a report reads them straight into the page decoder the live stream uses
 * (libtracecmd's record iteration costs more per event than decoding, and
 * its sscanf of 150,000 kallsyms lines more than reading 100,000 events).
 * Only the plain layout is taken: version 6 in our byte order, ftrace
 * events only, no options section (options can shift or scale timestamps,
 * or add instances), then "flyrecord" and one (offset, size) pair per CPU.
 * That is what nopctl record writes (tracedat.c); anything else returns 1
 * and the caller reads the file with libtracecmd. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

struct rd {
	FILE *f;
	bool bad;
};

static void get(struct rd *r, void *p, size_t n)
{
	if (!r->bad && fread(p, 1, n, r->f) != n)
		r->bad = true;
}

static unsigned long long num(struct rd *r, int len)
{
	unsigned int v4 = 0;
	unsigned long long v8 = 0;

	if (len == 4) {
		get(r, &v4, 4);
		return v4;
	}
	get(r, &v8, 8);
	return v8;
}

/* a size (4 or 8 bytes) and that many bytes, skipped */
static void skip_sized(struct rd *r, int len)
{
	unsigned long long n = num(r, len);

	if (!r->bad && (n > (1ULL << 40) || fseeko(r->f, (off_t)n, SEEK_CUR) < 0))
		r->bad = true;
}

/* a size and that many bytes, kept (NUL-terminated) */
static void read_sized(struct rd *r, int len, struct nop_dat_blob *b)
{
	unsigned long long n = num(r, len);

	if (r->bad || n > (1ULL << 30) || !(b->p = malloc((size_t)n + 1))) {
		r->bad = true;
		return;
	}
	b->len = (size_t)n;
	get(r, b->p, b->len);
	b->p[b->len] = 0;
}

static bool word(struct rd *r, const char *w)
{
	char buf[32];
	size_t n = strlen(w) + 1;

	get(r, buf, n);
	return !r->bad && memcmp(buf, w, n) == 0;
}

void nop_dat_in_free(struct nop_dat_in *l)
{
	if (!l)
		return;
	free(l->header_page.p);
	for (int i = 0; i < l->nfmt; i++)
		free(l->fmt[i].p);
	free(l->kallsyms.p);
	free(l->cmdlines.p);
	free(l->cpu);
	free(l);
}

int nop_dat_in_open(struct nop_dat_in **lp, const char *path, struct nop_error *err)
{
	struct rd r = { .f = fopen(path, "re") };
	struct nop_dat_in *l = calloc(1, sizeof(*l));
	unsigned int nfmt, ncpus;
	unsigned char hdr[14];
	int ret = 1;

	*lp = NULL;
	if (!r.f || !l) {
		nop_error_io(err, "open", path, r.f ? ENOMEM : errno);
		if (r.f)
			fclose(r.f);
		free(l);
		return -1;
	}
	snprintf(l->path, sizeof(l->path), "%s", path);
	get(&r, hdr, sizeof(hdr));
	/* magic, "6\0", endianness, long size, page size */
	if (r.bad || memcmp(hdr, "\x17\x08\x44tracing", 10) || memcmp(hdr + 10, "6", 2) ||
	    hdr[12] != (__BYTE_ORDER__ == __ORDER_BIG_ENDIAN__) || hdr[13] != sizeof(long))
		goto out;
	l->page_size = (int)num(&r, 4);
	if (!word(&r, "header_page"))
		goto out;
	read_sized(&r, 8, &l->header_page);
	if (!word(&r, "header_event"))
		goto out;
	skip_sized(&r, 8);
	nfmt = (unsigned int)num(&r, 4);
	if (nfmt > ARRAY_SIZE(l->fmt))
		goto out;
	for (; l->nfmt < (int)nfmt && !r.bad; l->nfmt++)
		read_sized(&r, 8, &l->fmt[l->nfmt]); /* ftrace event formats */
	if (num(&r, 4) != 0)
		goto out; /* other event systems: not nopctl's */
	read_sized(&r, 4, &l->kallsyms);
	skip_sized(&r, 4); /* printk formats */
	read_sized(&r, 8, &l->cmdlines);
	ncpus = (unsigned int)num(&r, 4);
	if (r.bad || ncpus == 0 || ncpus > 65536 || !word(&r, "flyrecord") ||
	    l->page_size < 64 || l->page_size > (1 << 20))
		goto out;
	if (!(l->cpu = calloc(ncpus, sizeof(*l->cpu)))) {
		nop_error_set(err, NOP_EINTERNAL, ENOMEM, "out of memory");
		ret = -1;
		goto out;
	}
	for (unsigned int c = 0; c < ncpus && !r.bad; c++) {
		unsigned long long off = num(&r, 8), size = num(&r, 8);

		if (size)
			l->cpu[l->n++] = (struct nop_dat_cpu){ .cpu = (int)c, .off = off, .size = size };
	}
	ret = r.bad ? 1 : 0;
out:
	fclose(r.f);
	if (ret)
		nop_dat_in_free(l);
	else
		*lp = l;
	return ret;
}
