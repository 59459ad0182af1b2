/* tracedat_read.c - a trace.dat's metadata, read without libtracecmd:
 * versions 6 and 7 as trace-cmd 3.1 to 3.4 and nopctl record write them
 * (trace-cmd.dat.v6(5), trace-cmd.dat.v7(5)): options, sections (each
 * perhaps compressed), instances, latency text. What nopctl decodes is
 * kept: the page header, the ftrace formats of function, kernel_stack and
 * funcgraph_*, the formats of nopctl's probe groups, kallsyms, task names,
 * timestamp corrections, and where each CPU's pages lie (read later by
 * tracedat_pages.c). Every size and offset is checked against the file:
 * it is data, and a damaged one ends the read with the reason. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tracedat/tracedat.h"

#define MAX_SECTIONS 256 /* options sections, buffers: far more than any writer makes */

/* a cursor over the mapped file or a decompressed section */
struct cur {
	const unsigned char *p;
	size_t len, pos;
	const char **why; /* the first failure, shared by every cursor of a read */
};

static bool bad(const struct cur *c)
{
	return *c->why != NULL;
}

static void fail(struct cur *c, const char *why)
{
	if (!*c->why)
		*c->why = why;
}

static const unsigned char *take(struct cur *c, unsigned long long n, const char *what)
{
	const unsigned char *p = c->p + c->pos;

	if (bad(c))
		return NULL;
	if (n > c->len - c->pos) {
		fail(c, what);
		return NULL;
	}
	c->pos += (size_t)n;
	return p;
}

static unsigned long long num(struct cur *c, int n)
{
	const unsigned char *p = take(c, (unsigned long long)n, "it ends inside its header");
	unsigned long long v = 0;

	for (int i = n - 1; p && i >= 0; i--) /* little-endian (checked) */
		v = v << 8 | p[i];
	return v;
}

static const char *str(struct cur *c)
{
	const char *s = (const char *)c->p + c->pos;
	const void *nul = bad(c) ? NULL : memchr(s, 0, c->len - c->pos);

	if (!nul) {
		fail(c, "a name in its header is not terminated");
		return "";
	}
	c->pos += (size_t)((const char *)nul - s) + 1;
	return s;
}

static void word(struct cur *c, const char *w)
{
	const unsigned char *p = take(c, strlen(w) + 1, "it ends inside its header");

	if (p && memcmp(p, w, strlen(w) + 1))
		fail(c, "a section is not where its header says");
}

/* a size of n bytes, then that many bytes: kept in b (NUL-terminated), or
 * skipped when b is NULL */
static void sized(struct cur *c, int n, struct nop_dat_blob *b)
{
	unsigned long long len = num(c, n);
	const unsigned char *p = take(c, len, "a section is larger than the file");

	if (!p || !b)
		return;
	free(b->p);
	if (!(b->p = malloc((size_t)len + 1))) {
		fail(c, "out of memory");
		return;
	}
	memcpy(b->p, p, (size_t)len);
	b->p[len] = 0;
	b->len = (size_t)len;
}

/* the ftrace formats nopctl decodes (decoder.c find_fields) */
static bool wanted_ftrace(const unsigned char *p, unsigned long long len)
{
	static const char *const names[] = { "function", "kernel_stack", "funcgraph_entry",
					     "funcgraph_exit", "user_stack" };

	for (size_t i = 0; i < ARRAY_SIZE(names); i++) {
		size_t n = strlen(names[i]);

		if (len > n + 7 && !memcmp(p, "name: ", 6) && !memcmp(p + 6, names[i], n) && p[6 + n] == '\n')
			return true;
	}
	return false;
}

static void add_fmt(struct cur *c, struct nop_dat_in *in, const char *system, bool keep)
{
	struct nop_dat_fmt *f;
	unsigned long long len = num(c, 8);
	const unsigned char *p = take(c, len, "an event format is larger than the file");

	if (!p || !(keep || (!strcmp(system, "ftrace") && wanted_ftrace(p, len))))
		return;
	if (nop_grow((void **)&in->fmt, &in->capfmt, (size_t)in->nfmt + 1, sizeof(*in->fmt)) ||
	    !(in->fmt[in->nfmt].b.p = malloc((size_t)len + 1))) {
		fail(c, "out of memory");
		return;
	}
	f = &in->fmt[in->nfmt++];
	snprintf(f->system, sizeof(f->system), "%s", system);
	memcpy(f->b.p, p, (size_t)len);
	f->b.p[len] = 0;
	f->b.len = (size_t)len;
}

static void header_info(struct cur *c, struct nop_dat_in *in)
{
	word(c, "header_page");
	sized(c, 8, &in->header_page);
	word(c, "header_event");
	sized(c, 8, NULL);
}

static void ftrace_formats(struct cur *c, struct nop_dat_in *in)
{
	unsigned long long n = num(c, 4);

	for (unsigned long long i = 0; i < n && !bad(c); i++)
		add_fmt(c, in, "ftrace", false);
}

/* other systems: nopctl's probe groups (calls) and kernel events, each
 * decoded (a system name too long to keep is left out) */
static void event_formats(struct cur *c, struct nop_dat_in *in)
{
	unsigned long long nsys = num(c, 4);

	for (unsigned long long s = 0; s < nsys && !bad(c); s++) {
		const char *sys = str(c);
		unsigned long long n = num(c, 4);
		bool keep = strlen(sys) < sizeof(in->fmt->system);

		for (unsigned long long i = 0; i < n && !bad(c); i++)
			add_fmt(c, in, sys, keep);
	}
}

static void add_cpu(struct cur *c, struct nop_dat_in *in, int cpu, unsigned long long off,
		    unsigned long long size)
{
	/* a file cut short (a full disk, a copy interrupted) is read as far
	 * as it goes: a CPU's data past its end is left out */
	if (off >= in->file_size)
		return;
	if (size > in->file_size - off)
		size = in->file_size - off;
	if (!size)
		return;
	if (nop_grow((void **)&in->cpu, &in->capcpu, (size_t)in->n + 1, sizeof(*in->cpu))) {
		fail(c, "out of memory");
		return;
	}
	in->cpu[in->n++] = (struct nop_dat_cpu){ .cpu = cpu, .buf = in->nbuffers, .off = off,
						 .size = size };
}

/* "flyrecord": an (offset, size) pair per CPU (version 6) */
static void flyrecord(struct cur *c, struct nop_dat_in *in, unsigned long long ncpus)
{
	if (ncpus > 65536)
		fail(c, "it claims more than 65536 CPUs");
	for (unsigned long long i = 0; i < ncpus && !bad(c); i++) {
		unsigned long long off = num(c, 8), size = num(c, 8);

		add_cpu(c, in, (int)i, off, size);
	}
}

/* the rest of a cursor, kept as text */
static void text_rest(struct cur *c, struct nop_dat_blob *b)
{
	size_t n = c->len - c->pos;

	if (bad(c) || b->p)
		return;
	if (!(b->p = malloc(n + 1))) {
		fail(c, "out of memory");
		return;
	}
	memcpy(b->p, c->p + c->pos, n);
	b->p[n] = 0;
	b->len = n;
	c->pos = c->len;
}

/* an option's data kept whole in b (NUL-terminated) */
static void option_blob(struct cur *o, struct nop_dat_blob *b)
{
	free(b->p);
	b->len = 0;
	if (!(b->p = malloc(o->len + 1))) {
		fail(o, "out of memory");
		return;
	}
	memcpy(b->p, o->p, o->len);
	b->p[o->len] = 0;
	b->len = o->len;
}

/* what an option of either version (o: its data) says about time
 * stamps, the machine, and nopctl's own */
static void shared_option(struct nop_dat_in *in, unsigned int id, struct cur *o)
{
	char buf[256], *m;

	snprintf(buf, sizeof(buf), "%.*s", (int)(o->len < sizeof(buf) ? o->len : sizeof(buf) - 1),
		 (const char *)o->p);
	if (id == 1) /* DATE: microseconds, as "0x..." */
		in->ts_offset += strtoll(buf, NULL, 0) * 1000;
	else if (id == 7) /* OFFSET: nanoseconds */
		in->ts_offset += strtoll(buf, NULL, 0);
	else if (id == 5) { /* UNAME: "sysname nodename release machine" */
		m = strrchr(buf, ' ');
		snprintf(in->machine, sizeof(in->machine), "%s", m ? m + 1 : buf);
	} else if (id == 12)
		in->time_shift = true;
	else if (id == 14 && o->len >= 16) { /* TSC2NSEC: x86-tsc clock to ns */
		in->tsc_mult = (unsigned int)num(o, 4);
		in->tsc_shift = (unsigned int)num(o, 4);
	} else if (id == NOP_DAT_OPT_BINARIES)
		option_blob(o, &in->binaries);
	else if (id == NOP_DAT_OPT_COMPLETE) {
		in->complete_from = num(o, 8);
		in->complete_to = num(o, 8);
	}
}

/* ---- version 6 -------------------------------------------------------- */

/* options: id, size, data, until id 0; instances' "flyrecord" blocks are
 * at the offsets the BUFFER options give */
static void v6_options(struct cur *c, struct nop_dat_in *in, unsigned long long *buf_off, int *nbuf)
{
	for (;;) {
		unsigned int id = (unsigned int)num(c, 2), size;
		struct cur o;

		if (bad(c) || id == 0)
			return;
		size = (unsigned int)num(c, 4);
		o = (struct cur){ .p = take(c, size, "an option is larger than the file"), .len = size,
				  .why = c->why };
		if (bad(c))
			return;
		shared_option(in, id, &o);
		if (id == 8) /* CPUCOUNT */
			in->ncpus = (unsigned int)num(&o, 4);
		else if (id == 3 && *nbuf < MAX_SECTIONS) /* BUFFER: offset, name */
			buf_off[(*nbuf)++] = num(&o, 8);
	}
}

static void v6(struct cur *c, struct nop_dat_in *in)
{
	unsigned long long *buf_off = calloc(MAX_SECTIONS, sizeof(*buf_off));
	int nbuf = 0;

	if (!buf_off) {
		fail(c, "out of memory");
		return;
	}
	header_info(c, in);
	ftrace_formats(c, in);
	event_formats(c, in);
	sized(c, 4, &in->kallsyms);
	sized(c, 4, NULL); /* printk formats */
	sized(c, 8, &in->cmdlines);
	in->ncpus = (unsigned int)num(c, 4);
	if (c->pos + 10 <= c->len && !memcmp(c->p + c->pos, "options  ", 10)) {
		c->pos += 10;
		v6_options(c, in, buf_off, &nbuf);
	}
	if (!bad(c) && c->pos + 10 <= c->len && !memcmp(c->p + c->pos, "latency  ", 10)) {
		c->pos += 10;
		text_rest(c, &in->latency);
	} else {
		word(c, "flyrecord");
		flyrecord(c, in, in->ncpus);
	}
	for (int b = 0; b < nbuf && !bad(c); b++) {
		struct cur i = { .p = c->p, .len = c->len, .why = c->why };

		if (buf_off[b] > c->len) {
			fail(c, "an instance's data lies past its end");
			break;
		}
		i.pos = (size_t)buf_off[b];
		word(&i, "flyrecord");
		flyrecord(&i, in, in->ncpus);
		in->nbuffers++;
	}
	free(buf_off);
}

/* ---- version 7 -------------------------------------------------------- */

struct sect {
	unsigned int id;
	int buf; /* BUFFER: the instance's index */
	unsigned long long off;
};

/* A section's header at off, and a cursor over its data: the file's
 * bytes, or a decompressed block (*own, freed by the caller). */
static struct cur section(struct cur *file, struct nop_dat_in *in, unsigned long long off,
			  unsigned int want_id, bool *compressed, unsigned char **own)
{
	struct cur h = { .p = file->p, .len = file->len, .why = file->why }, d = h;
	unsigned int id, flags;
	unsigned long long size;

	*own = NULL;
	if (off > file->len) {
		fail(file, "a section lies past its end");
		return d;
	}
	h.pos = (size_t)off;
	id = (unsigned int)num(&h, 2);
	flags = (unsigned int)num(&h, 2);
	num(&h, 4); /* its description's string id */
	size = num(&h, 8);
	if (!bad(&h) && id != want_id)
		fail(&h, "a section is not where its options say");
	*compressed = flags & 1;
	if (bad(&h))
		return d;
	if (size > h.len - h.pos) {
		fail(&h, "a section is larger than the file");
		return d;
	}
	d.pos = h.pos;
	d.len = h.pos + (size_t)size;
	if (*compressed && want_id != 3 && want_id != 22) {
		/* metadata: one block (trace data: chunks, tracedat_pages.c) */
		unsigned long long zs = num(&d, 4), us = num(&d, 4);
		const unsigned char *z = take(&d, zs, "a compressed section is larger than the file");

		if (!z)
			return d;
		if (us > (1ULL << 31) || !(*own = malloc((size_t)us + 1)) ||
		    nop_decompress(in->zalg, z, (size_t)zs, *own, (size_t)us)) {
			fail(&d, *own ? "a compressed section does not decompress" : "out of memory");
			return d;
		}
		d = (struct cur){ .p = *own, .len = (size_t)us, .why = file->why };
	}
	return d;
}

/* the options sections, one after another; the sections they point to */
static void v7_options(struct cur *file, struct nop_dat_in *in, unsigned long long off,
		       struct sect *sects, int *nsect)
{
	for (int n = 0; off && n < MAX_SECTIONS && !bad(file); n++) {
		unsigned char *own;
		bool z;
		struct cur c = section(file, in, off, 0, &z, &own);

		off = 0;
		while (!bad(&c) && c.pos < c.len) {
			unsigned int id = (unsigned int)num(&c, 2), size = (unsigned int)num(&c, 4);
			struct cur o = { .p = take(&c, size, "an option is larger than its section"),
					 .len = size, .why = c.why };

			if (bad(&c))
				break;
			if (id == 0) { /* DONE: the next options section */
				off = num(&o, 8);
				break;
			}
			shared_option(in, id, &o);
			if ((id == 3 || id == 22 || (id >= 16 && id <= 21)) && *nsect < MAX_SECTIONS)
				sects[(*nsect)++] = (struct sect){ .id = id, .buf = in->nbuffers,
								   .off = num(&o, 8) };
			if (id == 3) { /* BUFFER: name, clock, page size, CPUs */
				unsigned long long page, ncpus;

				str(&o);
				str(&o);
				page = num(&o, 4);
				ncpus = num(&o, 4);
				if (!bad(&o) && in->nbuffers && page != (unsigned long long)in->page_size)
					fail(&o, "its instances have pages of different sizes");
				in->page_size = (int)page;
				/* each CPU's z is set once the section's header is read */
				for (unsigned long long i = 0; i < ncpus && !bad(&o); i++) {
					int cpu = (int)num(&o, 4);
					unsigned long long coff = num(&o, 8), csize = num(&o, 8);

					add_cpu(&o, in, cpu, coff, csize);
				}
				in->nbuffers++;
			}
		}
		free(own);
	}
}

static void v7(struct cur *c, struct nop_dat_in *in)
{
	struct sect *sects = calloc(MAX_SECTIONS, sizeof(*sects));
	int nsect = 0;
	const char *alg = str(c);

	str(c); /* the algorithm's version */
	if (!sects) {
		fail(c, "out of memory");
		return;
	}
	if (!bad(c) && (in->zalg = nop_zalg_by_name(alg)) < 0) {
		snprintf(in->zname, sizeof(in->zname), "%s", alg);
		fail(c, "unknown compression");
	}
	v7_options(c, in, num(c, 8), sects, &nsect);
	for (int i = 0; i < nsect && !bad(c); i++) {
		unsigned char *own;
		bool z;
		struct cur s = section(c, in, sects[i].off, sects[i].id, &z, &own);

		switch (sects[i].id) {
		case 3: /* this instance's CPUs: compressed in chunks or not */
			for (int k = 0; k < in->n; k++)
				if (in->cpu[k].buf == sects[i].buf)
					in->cpu[k].z = z;
			break;
		case 16: header_info(&s, in); break;
		case 17: ftrace_formats(&s, in); break;
		case 18: event_formats(&s, in); break;
		case 19: sized(&s, 4, &in->kallsyms); break;
		case 21: sized(&s, 8, &in->cmdlines); break;
		case 22: /* latency text, perhaps in chunks */
			if (!z)
				text_rest(&s, &in->latency);
			else if (!bad(&s) && nop_dat_unchunk(in, s.p + s.pos, s.len - s.pos, &in->latency))
				fail(&s, "its latency text does not decompress");
			break;
		}
		free(own);
	}
	free(sects);
}

static int by_offset(const void *a, const void *b)
{
	const unsigned long long *x = a, *y = b;

	return x[0] < y[0] ? -1 : x[0] > y[0];
}

/* Do two CPUs claim the same bytes of the file? (add_cpu kept each one's
 * within the file.) */
static bool cpus_overlap(const struct nop_dat_in *l)
{
	unsigned long long(*r)[2] = calloc((size_t)l->n + 1, sizeof(*r));
	bool overlap = false;

	if (!r)
		return true;
	for (int i = 0; i < l->n; i++) {
		r[i][0] = l->cpu[i].off;
		r[i][1] = l->cpu[i].off + l->cpu[i].size;
	}
	qsort(r, (size_t)l->n, sizeof(*r), by_offset);
	for (int i = 1; i < l->n && !overlap; i++)
		overlap = r[i][0] < r[i - 1][1];
	free(r);
	return overlap;
}

void nop_dat_in_free(struct nop_dat_in *l)
{
	if (!l)
		return;
	free(l->header_page.p);
	for (int i = 0; i < l->nfmt; i++)
		free(l->fmt[i].b.p);
	free(l->fmt);
	free(l->kallsyms.p);
	free(l->cmdlines.p);
	free(l->latency.p);
	free(l->binaries.p);
	free(l->cpu);
	free(l);
}

static int not_dat(const char *path, struct nop_error *err)
{
	nop_error_set(err, NOP_EUSAGE, 0, "%s is not a trace.dat file (trace-cmd's format)", path);
	return -1;
}

int nop_dat_in_open(struct nop_dat_in **lp, const char *path, struct nop_error *err)
{
	struct nop_dat_in *l = calloc(1, sizeof(*l));
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	const char *why = NULL;
	struct cur c = { .why = &why };
	struct stat sb;
	void *map = MAP_FAILED;
	unsigned long long page;
	int ver;

	*lp = NULL;
	if (fd < 0 || !l || fstat(fd, &sb) < 0) {
		nop_error_io(err, "open", path, fd < 0 ? errno : l ? errno : ENOMEM);
		goto out;
	}
	/* a recording is a regular file: anything else is mapped by no one
	 * (a directory fails with ENODEV, which says nothing of the path) */
	if (!S_ISREG(sb.st_mode)) {
		nop_error_set(err, NOP_EUSAGE, 0, S_ISDIR(sb.st_mode)
			      ? "%s is a directory, not a trace.dat file: give a recording in it"
			      : "%s is not a regular file: a trace.dat recording is one", path);
		goto out;
	}
	snprintf(l->path, sizeof(l->path), "%s", path);
	l->file_size = (unsigned long long)sb.st_size;
	if (sb.st_size < 16) {
		not_dat(path, err);
		goto out;
	}
	if ((map = mmap(NULL, (size_t)sb.st_size, PROT_READ, MAP_PRIVATE, fd, 0)) == MAP_FAILED) {
		nop_error_io(err, "read", path, errno);
		goto out;
	}
	c.p = map;
	c.len = (size_t)sb.st_size;
	if (memcmp(c.p, "\x17\x08\x44tracing", 10)) {
		not_dat(path, err);
		goto out;
	}
	c.pos = 10;
	ver = atoi(str(&c));
	if (!why && ver != 6 && ver != 7) {
		nop_error_set(err, NOP_EUSAGE, 0, "%s is trace.dat version %d: nopctl reads versions 6 and 7",
			      path, ver);
		goto out;
	}
	if (!why && (c.p[c.pos] != 0 || (c.p[c.pos + 1] != 4 && c.p[c.pos + 1] != 8))) {
		nop_error_set(err, NOP_EUSAGE, 0, "%s was recorded on a big-endian machine (or says a"
			      " word of %d bytes): nopctl reads little-endian recordings", path,
			      c.p[c.pos + 1]);
		goto out;
	}
	l->long_size = c.p[c.pos + 1];
	c.pos += 2;
	page = num(&c, 4);
	if (!why && (page < 64 || page > (1u << 20) || (page & (page - 1))))
		why = "its page size is not a power of two from 64 bytes to 1 MB";
	l->page_size = (int)page;
	if (ver == 6)
		v6(&c, l);
	else
		v7(&c, l);
	if (l->zname[0])
		nop_error_set(err, NOP_EUSAGE, 0, "%s is compressed with %s: nopctl reads zstd and zlib"
			      " (trace-cmd convert --compression zstd rewrites it)", path, l->zname);
	else if (why && !strcmp(why, "out of memory"))
		nop_error_set(err, NOP_EINTERNAL, ENOMEM, "out of memory reading %s", path);
	else if (why || cpus_overlap(l))
		nop_error_set(err, NOP_EUSAGE, 0, "%s is damaged: %s", path,
			      why ? why : "its CPUs' data overlap");
	else if (l->time_shift)
		nop_error_set(err, NOP_EUSAGE, 0, "%s is a guest's recording tied to its host's clock"
			      " (TIME_SHIFT): nopctl does not apply that correction", path);
	else if (l->nfmt == 0 && !l->latency.p)
		nop_error_set(err, NOP_EUSAGE, 0, "%s holds no function, function_graph or nopctl"
			      " probe event format: nothing nopctl decodes", path);
	else
		*lp = l;
	if (*lp)
		l = NULL;
out:
	if (map != MAP_FAILED)
		munmap(map, (size_t)sb.st_size);
	if (fd >= 0)
		close(fd);
	nop_dat_in_free(l);
	return *lp ? 0 : -1;
}
