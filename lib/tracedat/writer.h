/* tracedat/writer.h - the trace.dat writer's state, shared by tracedat.c
 * (one file: its pages saved, its metadata and layout, its name taken
 * when whole) and tracedat_bound.c (files bounded in size or time, each
 * finished one written by a thread of its own); nothing outside the two
 * sees it. */
#ifndef NOPCTL_TRACEDAT_WRITER_H
#define NOPCTL_TRACEDAT_WRITER_H

#include <pthread.h>

#include "tracedat/tracedat.h"

/* Pages are written BATCH at a time: one write per page would be as many
 * system calls as the reads, each taking CPU the traced program wants */
#define BATCH 16

/* Finished files waiting for their writer, at most: the reader hands a
 * file over and reads on; it waits only when this many are behind */
#define NJOBS 8

/* the writers of a rotated recording's files, one at a time, in the
 * order the files were begun (ticket); the number the last one took */
struct dat_jobs {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	unsigned long long turn, next, last_seq;
	/* per CPU: the time of its last event in the files written so far
	 * (each job adds its file's after writing it, in turn) */
	unsigned long long *lastev;
};

/* a CPU's chunks (version 7), its first and last pages' times, and its
 * last event's as the file's walk found it */
struct dat_cpu {
	struct nop_zcpu z;
	unsigned long long first_ts, last_ts, ev_last;
};

struct nop_dat {
	int fd;
	bool v6;		 /* version 6, uncompressed (else 7, zstd) */
	/* version 7 with a size bound: the pages compressed as they are
	 * taken (the bound is on the bytes on disk), the temporary files
	 * holding chunks; without one, saved raw and compressed when the
	 * file is written (after the capture, as trace-cmd does; a catch
	 * file or a --split file: when it is finished, the capture going on) */
	bool chunked;
	struct nop_zq *zq;
	/* a job's file: its chunks still queued at the cut, waited for by
	 * its writer (the reader reads on) */
	struct nop_zq *zwait;
	unsigned long long zmark;
	struct dat_cpu *dc;	 /* per CPU */
	char path[4096];
	char part[4200];	 /* the fallback's temporary name ("": O_TMPFILE) */
	bool overwrite;
	bool published;		 /* linked under path, whole */
	/* numbered: names refused at publish time (a link planted there),
	 * skipped for the next number; the last one and why */
	unsigned long long skipped;
	char skipped_name[4200];
	int skipped_errno;
	char tracing_dir[4096];
	char kallsyms[4096];
	int page_size;
	int ncpus;
	int *tmp;		  /* per CPU, -1 until its first page */
	unsigned long long *size; /* bytes per CPU */
	char **pend;		  /* per CPU: pages not yet written, BATCH at most */
	size_t *npend;
	struct nop_addrset syms; /* what the events name: their symbols are kept */
	bool syms_noted;	 /* syms holds all the pages' (nop_dat_noted) */
	bool syms_failed;	 /* not noted, or out of memory: all of kallsyms */
	char group[64];		 /* probe events' system ("": none) */
	const struct nop_uprobes *uprobes;
	bool follows;		 /* the session follows tasks: their process events */
	bool switches;		 /* sched_switch and sched_wakeup were recorded */
	char (*events)[200];	 /* kernel events recorded beside the calls: "system/event" */
	char *cmdlines;		 /* the task names it keeps ("PID NAME\n"); NULL: saved_cmdlines' */
	size_t nevents;
	/* bounded (nop_dat_bound): files of at most max_size bytes, the
	 * header's share of it reserved; numbered files base.1, base.2, ...
	 * of which the newest keep stay; unnumbered: pages past it left out */
	unsigned long long max_size, reserve, ksyms_reserve;
	bool numbered, full;
	/* bounded: per CPU, a time up to which all its events were handed
	 * on, to this file or earlier ones (its pages' times; the latest
	 * page time handed, hmax, when it was read empty): the writer's,
	 * across files (a job's is NULL). span_cap: where a file that ends
	 * at a cut or at its size holds every CPU's events up to, at most
	 * (0: no cap) */
	unsigned long long *cov, hmax, span_cap;
	unsigned keep;
	char base[4096];
	/* numbered: each finished file's pages walked on its writer's
	 * thread (counted, their addresses noted); the counts of files
	 * finished so far */
	nop_dat_walk_fn walk;
	void *walk_ctx;
	struct nop_dat_counts counted;
	struct nop_error err; /* why a new file could not be begun */
	/* finished, kept, oldest first; pending: its job has not been
	 * reaped, seq is the number it was begun as */
	struct dat_file { unsigned long long seq, size; bool pending; } *files;
	size_t nfiles, capfiles;
	unsigned long long seq, removed;
	/* numbered: kallsyms, read once for every file (a read of
	 * /proc/kallsyms takes long enough for the buffers to fill while
	 * tracing) by the first file's writer; read again for a file after
	 * the modules changed (ks.mods: their hash before it was read) */
	struct nop_kallsyms_kept ks;
	bool ksyms_lent; /* ks is the caller's (nop_dat_lend_ksyms) */
	/* the files writer threads finish (job_main), oldest first, and
	 * in a job: its thread, turn, result */
	struct nop_dat *jobs[NJOBS];
	size_t njobs;
	struct dat_jobs *q;
	pthread_t job_th;
	bool job_threaded; /* job_main runs on job_th (else it has run) */
	bool cut_end; /* a job's file: the next file goes on from its end */
	bool excerpt; /* a catch file: its span is excerpt_from to excerpt_to */
	unsigned long long excerpt_from, excerpt_to;
	unsigned long long seq0; /* a job's file: the number it was begun as */
	unsigned long long ticket;
	bool job_done, discard, abandoned; /* under q->mu */
	bool urgent; /* under q->mu: a newer file was begun, or the reader
		      * waits for it: written at the reader's priority */
	/* kept files rotated away, removed by the next job before it links
	 * its own (freeing a file's pages took the reader 50-190 ms) */
	char (*drop)[4200];
	size_t ndrop, capdrop;
	int job_ret;
	unsigned long long job_size;
};

/* tracedat.c */
int dat_flush_cpu(struct nop_dat *w, int cpu);
int dat_open_unnamed(const char *path, char *part, size_t len);
void dat_drop_rotated(struct nop_dat *w);
void dat_fresh_symbols(struct nop_dat *w);
int dat_header_size(struct nop_dat *w, unsigned long long *n);
/* what one file holds released: its temporary files, its name if it
 * never took its final one, its per-CPU state, its symbols, the kept
 * files it was to remove (not removed) */
void dat_release(struct nop_dat *w);

/* tracedat_bound.c */
unsigned long long dat_data_size(const struct nop_dat *w);
void dat_file_path(const struct nop_dat *w, unsigned long long seq, char *buf, size_t len);
int dat_job_wait(struct nop_dat *w, struct nop_error *err);
void dat_abandon_waiting(struct nop_dat *w);
unsigned long long dat_span_cap(const struct nop_dat *w);
void dat_covered(struct nop_dat *w, int cpu, unsigned long long ts);
/* where every CPU's events are in a file of a rotation (0, 0: the whole
 * file; to 0: no end) */
void dat_complete_span(const struct nop_dat *w, unsigned long long *from, unsigned long long *to);

#endif
