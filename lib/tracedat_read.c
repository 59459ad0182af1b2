/* tracedat_read.c - where each CPU's pages lie in a trace.dat, so that a
 * report reads them straight into the page decoder the live stream uses
 * (libtracecmd's record iteration costs more per event than decoding).
 * Only the plain layout is taken: version 6 in our byte order, no options
 * section (options can shift or scale timestamps, or add instances), then
 * "flyrecord" and one (offset, size) pair per CPU. That is what nopctl
 * record writes (tracedat.c); anything else returns 1 and the caller reads
 * the file with libtracecmd. */
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

static bool word(struct rd *r, const char *w)
{
	char buf[32];
	size_t n = strlen(w) + 1;

	get(r, buf, n);
	return !r->bad && memcmp(buf, w, n) == 0;
}

static void skip_string(struct rd *r)
{
	int c;

	while ((c = fgetc(r->f)) > 0)
		;
	if (c < 0)
		r->bad = true;
}

int nop_dat_layout(const char *path, struct nop_dat_layout *l, struct nop_error *err)
{
	struct rd r = { .f = fopen(path, "re") };
	unsigned int nsys, ncpus;
	unsigned char hdr[14];
	int ret = 1;

	memset(l, 0, sizeof(*l));
	if (!r.f) {
		nop_error_io(err, "open", path, errno);
		return -1;
	}
	get(&r, hdr, sizeof(hdr));
	/* magic, "6\0", endianness, long size, page size */
	if (r.bad || memcmp(hdr, "\x17\x08\x44tracing", 10) || memcmp(hdr + 10, "6", 2) ||
	    hdr[12] != (__BYTE_ORDER__ == __ORDER_BIG_ENDIAN__) || hdr[13] != sizeof(long))
		goto out;
	l->page_size = (int)num(&r, 4);
	if (!word(&r, "header_page"))
		goto out;
	skip_sized(&r, 8);
	if (!word(&r, "header_event"))
		goto out;
	skip_sized(&r, 8);
	for (unsigned int n = (unsigned int)num(&r, 4); n-- > 0 && !r.bad;)
		skip_sized(&r, 8); /* ftrace event formats */
	nsys = (unsigned int)num(&r, 4);
	while (nsys-- > 0 && !r.bad) {
		skip_string(&r);
		for (unsigned int n = (unsigned int)num(&r, 4); n-- > 0 && !r.bad;)
			skip_sized(&r, 8);
	}
	skip_sized(&r, 4); /* kallsyms */
	skip_sized(&r, 4); /* printk formats */
	skip_sized(&r, 8); /* task names */
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
	if (ret) {
		free(l->cpu);
		memset(l, 0, sizeof(*l));
	}
out:
	fclose(r.f);
	return ret;
}
