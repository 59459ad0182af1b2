/* tracedat/tracedat.h - the tracedat area of libnopctl: trace-cmd's
 * trace.dat: read, decompressed, written, with the symbols its events
 * name. Its header includes the one of the area before it (lib/README.md:
 * the order): a file sees its own area and those below, never one above. */
#ifndef NOPCTL_AREA_TRACEDAT_H
#define NOPCTL_AREA_TRACEDAT_H

#include "probes/probes.h"

/* The newest pages of each CPU as they were read (pagering.c): a ring of
 * pages_per_cpu per CPU; put takes a page as read (ctx: the ring; 0, or -1
 * with errno), span gives the newest page of a CPU its events' stamps.
 * write: the pages with events from from (trace clock ns) on into w, and
 * the span they hold every CPU's events in (nop_dat_excerpt).
 * Free with nop_pagering_free. */
struct nop_pagering;
struct nop_pagering *nop_pagering_new(int ncpus, size_t page_size, size_t pages_per_cpu);
int nop_pagering_put(void *ring, int cpu, const void *page, size_t len);
void nop_pagering_span(void *ring, int cpu, unsigned long long first, unsigned long long last);
int nop_pagering_write(const struct nop_pagering *r, struct nop_dat *w, unsigned long long from);
void nop_pagering_free(struct nop_pagering *r);

int nop_dat_page(struct nop_dat *w, int cpu, const void *page, size_t len);
/* w is an excerpt of a longer capture (a catch file): its pages hold
 * every CPU's events from from to to (trace clock ns), which the file
 * says, so that a call cut at either end is no loss to its reader */
void nop_dat_excerpt(struct nop_dat *w, unsigned long long from, unsigned long long to);
/* A bounded recording's CPU read and found empty, none of its pages
 * waiting to be handed on (ctx: the nop_dat): every event it wrote before
 * is in the files, which a file cut now can say (its complete span) */
void nop_dat_cpu_empty(void *ctx, int cpu);

/* A trace.dat of version 6 or 7, as trace-cmd and nopctl record write it,
 * read without libtracecmd (tracedat_read.c): 0, or -1 with the reason.
 * Its decoder, its symbols and task names, and its pages as a stream
 * (merged exactly: one drain emits everything in timestamp order). */
struct nop_dat_in;

int nop_dat_in_open(struct nop_dat_in **in, const char *path, struct nop_error *err);

void nop_dat_in_free(struct nop_dat_in *in);

/* Every page a recording saved so far, CPU by CPU (tracedat.c): fn's
 * nonzero return ends the walk and is returned; -1 with errno if the
 * saved pages cannot be read back */
int nop_dat_each_page(struct nop_dat *w, int (*fn)(void *ctx, int cpu, void *page), void *ctx);

/* Events counted in a rotated recording's finished files (their pages
 * walked on the thread that writes each file) */
struct nop_dat_counts {
	unsigned long long nfunc, nexit, nkev, lost; /* lost: page headers' counts, saturated */
	unsigned long long first_ts, last_ts;
};
struct nop_addrset;
/* One saved page walked for what its file needs: its events counted into
 * c, the kernel addresses they name noted into syms (the events area's
 * count, given from above: this area decodes nothing). 0, or what ends
 * the walk */
typedef int (*nop_dat_walk_fn)(void *ctx, int cpu, void *page, struct nop_dat_counts *c,
			       struct nop_addrset *syms);
/* numbered (after nop_dat_bound): each finished file's pages walked with
 * fn on the thread that writes it, ctx valid and used by no one else
 * meanwhile, until nop_dat_wait */
void nop_dat_walk_with(struct nop_dat *w, nop_dat_walk_fn fn, void *ctx);
/* every file begun is written (or failed) and its writer done */
void nop_dat_wait(struct nop_dat *w);
/* The file keeps the kernel symbols of the addresses noted into this set
 * by a walk of all its pages (nop_dat_each_page), which, whole, says so
 * with nop_dat_noted before nop_dat_finish; not noted, or the set out of
 * memory: all of kallsyms */
struct nop_addrset *nop_dat_syms(struct nop_dat *w);
void nop_dat_noted(struct nop_dat *w);
/* the counts of the files finished before the current one (their writer
 * waited for), taken once (*c then zeroed in w); 0, or -1 with err (a
 * writer failed; its counts are in *c) */
int nop_dat_counted(struct nop_dat *w, struct nop_dat_counts *c, struct nop_error *err);
void nop_dat_counts_add(struct nop_dat_counts *to, const struct nop_dat_counts *c);

/* The lines of kallsyms text naming the functions that hold the set's
 * addresses (malloc'd, *outlen bytes; NULL: ENOMEM) */
char *nop_kallsyms_subset(const char *text, size_t len, const struct nop_addrset *s, size_t *outlen);
/* the same from kallsyms text indexed once (it must outlive the index),
 * for many subsets: NULL on ENOMEM */
struct nop_ksyms;
struct nop_ksyms *nop_ksyms_index(const char *text, size_t len);
char *nop_ksyms_subset(struct nop_ksyms *k, const struct nop_addrset *s, size_t *outlen);
void nop_ksyms_free(struct nop_ksyms *k);

/* /proc/kallsyms kept for many files (catch's): read and indexed once,
 * read again once the loaded modules changed (a read takes long enough
 * for the buffers to fill while tracing) */
struct nop_kallsyms_kept {
	char *text;
	size_t len;
	struct nop_ksyms *idx;
	unsigned long long mods; /* the modules' hash when it was read */
};

/* read now if never read or stale: 0, or -1 (unreadable, or out of
 * memory: each file then reads its own) */
int nop_kallsyms_keep(struct nop_kallsyms_kept *k);
void nop_kallsyms_kept_free(struct nop_kallsyms_kept *k);

/* w's symbols from k (kept by nop_kallsyms_keep), which outlives w; the
 * index is written while a file is finished: one file at a time */
void nop_dat_lend_ksyms(struct nop_dat *w, const struct nop_kallsyms_kept *k);

/* a trace.dat's metadata and where each CPU's pages lie (tracedat_read.c) */
struct nop_dat_cpu {
	int cpu, buf; /* buf: the instance (buffer) it belongs to */
	unsigned long long off, size; /* in the file */
	bool z;			      /* compressed in chunks */
};

struct nop_dat_blob {
	char *p; /* NUL-terminated */
	size_t len;
};

struct nop_dat_fmt {
	char system[64]; /* ftrace, or a probe group nopctl_<pid> */
	struct nop_dat_blob b;
};

struct nop_dat_in {
	char path[4096];
	char zname[32]; /* a compression nopctl does not read */
	int page_size, long_size, n, nfmt, nbuffers, zalg;
	size_t capcpu, capfmt;
	unsigned int ncpus;
	/* time stamps as trace-cmd report shows them: TSC2NSEC's
	 * multiplier and shift (x86-tsc), then DATE and OFFSET added */
	unsigned int tsc_mult, tsc_shift;
	long long ts_offset;
	bool time_shift;
	unsigned long long file_size;
	struct nop_dat_cpu *cpu;
	struct nop_dat_fmt *fmt;
	struct nop_dat_blob header_page, kallsyms, cmdlines;
	struct nop_dat_blob latency; /* a latency tracer's text, not pages */
	struct nop_dat_blob binaries; /* NOP_DAT_OPT_BINARIES' lines */
	char machine[32]; /* uname(2)'s, from the UNAME option ("": none) */
	unsigned long long complete_from, complete_to; /* NOP_DAT_OPT_COMPLETE's */
};

/* nopctl's option in a trace.dat: "EVENT\tPATH\n" for each user function
 * probe event, the binary it probes (uprobe formats do not say). trace-cmd
 * 3.1.6 to 3.4 skip an option id they do not know, silently (report) or
 * as "Unknown option" (dump); trace-cmd's own ids are below 32. */
#define NOP_DAT_OPT_BINARIES 0x6e70
/* nopctl's own, in a file of a rotated recording: each CPU's pages went
 * to the next file as they were read, not at one time. Two times on the
 * ring-buffer clock, 8 bytes each: from when and until when every CPU's
 * events are in the file (0: its first event; its last) */
#define NOP_DAT_OPT_COMPLETE 0x6e71

/* compressed trace.dat data (decompress.c) */
enum { NOP_Z_NONE, NOP_Z_ZSTD, NOP_Z_ZLIB };

int nop_zalg_by_name(const char *name); /* -1: none nopctl reads */

int nop_decompress(int alg, const void *in, size_t n, void *out, size_t want);

/* a recording's pages written on a thread of its own, compressed in
 * chunks as trace-cmd's version 7 files hold them or raw (compress.c). A
 * CPU's figures (compressing only): bytes
 * written (chunks with their sizes), raw bytes written, raw bytes handed
 * over and not yet written (all three read with atomic loads), chunks
 * (read only after the wait for them) */
struct nop_zcpu {
	unsigned long long size, raw, queued;
	unsigned chunks;
};
struct nop_zq;

struct nop_zq *nop_zq_new(bool compress); /* NULL: ENOMEM */
/* buf (malloc'd, len bytes of whole pages) is the queue's, freed by it:
 * compressed and appended to fd as one chunk, c counted (or appended as
 * it is); waits while the queue is full. 0, or -1 with errno (this or an earlier chunk failed) */
int nop_zq_push(struct nop_zq *q, int fd, struct nop_zcpu *c, char *buf, size_t len);
/* what raw bytes not yet compressed are estimated to take: the largest
 * share any chunk so far took, and a quarter more; before the first
 * chunk, and never more than, what zstd takes for incompressible bytes */
unsigned long long nop_zq_bound(const struct nop_zq *q, unsigned long long raw);
/* the batches handed over so far, a mark to wait for (0 for NULL) */
unsigned long long nop_zq_mark(struct nop_zq *q);
/* every batch handed over before mark written: 0, or -1 with the first
 * failure's errno (NULL: 0) */
int nop_zq_wait(struct nop_zq *q, unsigned long long mark);
int nop_zq_drain(struct nop_zq *q); /* nop_zq_wait for every batch handed over */
void nop_zq_free(struct nop_zq *q); /* what is queued is written first */
/* fd in's bytes from its start (whole pages) compressed into out, a chunk
 * of batch bytes at a time, counted in c, on the caller's thread: 0, or
 * -1 with errno */
int nop_zfile(int in, int out, struct nop_zcpu *c, size_t batch);
/* the chunks of fd from its start, each decompressed: fn's nonzero
 * return ends the walk and is returned; -1 with errno if one is damaged */
int nop_zchunks_each(int fd, int (*fn)(void *ctx, const char *raw, size_t len), void *ctx);
/* one zstd frame of n bytes (malloc'd, *outlen bytes; NULL: ENOMEM) */
void *nop_zcompress(const void *in, size_t n, size_t *outlen);
const char *nop_zstd_version(void);

/* one CPU's pages of a trace.dat, a run of whole pages per call
 * (tracedat_pages.c): 1 with *run and *len, 0 at its end, -1 */
struct nop_dat_pages;

int nop_dat_pages_open(struct nop_dat_pages **p, const struct nop_dat_in *in, int i, int fd,
		       size_t chunk, struct nop_error *err);

int nop_dat_pages_next(struct nop_dat_pages *p, const char **run, size_t *len, struct nop_error *err);

void nop_dat_pages_free(struct nop_dat_pages *p);

int nop_dat_unchunk(const struct nop_dat_in *in, const unsigned char *d, size_t len,
		    struct nop_dat_blob *out);

#endif
