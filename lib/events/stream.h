/* stream.h - the stream's state, shared by its two regimes: live
 * buffers (stream_live.c) and recorded pages (stream.c). */
#ifndef NOPCTL_EVENTS_STREAM_H
#define NOPCTL_EVENTS_STREAM_H

#include <sys/types.h>

#include "events/events.h"

#define SPOOL_PAGES 1024 /* 4 MB of 4 KB pages per CPU and call: a bounded read */
#define DECODE_PAGES 4 /* per CPU and call: the caller keeps control */
#define SPOOL_NS 20000000ULL /* a CPU with pages still spooled is read again after this */
#define CHUNK_PAGES 64 /* a trace.dat is read this much at a time per CPU:
			* few system calls, no page faults on a mapping */

struct cpu_buf {
	int cpu;
	int fd;
	bool done; /* files: EOF reached */
	struct nop_dat_pages *dat; /* a trace.dat's: this CPU's pages, */
	const char *chunk;	   /* a run of them at a time */
	size_t clen, cpos;
	struct nop_event *ev;
	size_t nev, capev, head;
	unsigned long long *stk;
	size_t nstk, capstk;
	/* kernel functions' arguments ("TEXT\0JSON\0"), likewise: an event
	 * waits here after its page's next ones were decoded */
	char *arg;
	size_t narg, caparg;
	/* live: pages read, not yet decoded; the last time stamp decoded;
	 * the kernel's buffer was read empty (EAGAIN) by the last call */
	struct nop_pageq spool;
	unsigned long long last_ts;
	bool kernel_empty;
	bool backlog;		 /* the last read stopped at SPOOL_PAGES */
	unsigned long long read_at; /* when the kernel's buffer was last read */
	long long buf_pages; /* its size, read at its first round (-1: not known) */
};

struct nop_stream {
	struct nop_decoder *dec;
	struct cpu_buf *cpus;
	int ncpus;
	bool files;
	void *page;
	int page_size;
	int *heap; /* indexes of cpus with events left, min-heap on ts */
	nop_raw_fn raw;
	void *raw_ctx;
	nop_span_fn span; /* after a raw page is decoded: its events' span (raw_ctx) */
	nop_empty_fn empty; /* a CPU read empty, nothing of it spooled (raw_ctx) */
	enum nop_pages pages;
	int datfd; /* a trace.dat (nop_stream_open_dat), else -1 */
	/* live: the largest time stamp read by the rounds before this one;
	 * final: no event will be written any more (tracing is off) */
	unsigned long long seen;
	bool final;
	bool catch_up; /* live: this round reads every CPU empty, as final does */
	struct nop_pagepool pool; /* live: the spools' pages */
	const char *dir; /* live: the buffer's directory (its per-CPU sizes) */
	bool snapshot; /* live: its snapshot (snapshot_raw), not trace_pipe_raw */
	/* live: when a CPU's buffer, filling at the rate its last read showed,
	 * is a quarter full (0: no CPU's rate known); late: a read found a
	 * buffer half full or more, so the kernel's wake-up came late */
	unsigned long long due;
	bool late;
	/* live: the CPUs asked for (NULL: all), and when the online ones were
	 * last looked at (hotplug: follow_cpus) */
	struct nop_cpuset *allow;
	unsigned long long cpus_at;
};

/* shared by the regimes (stream.c): a stream of n CPUs, its CPUs' pages
 * read, taken into a CPU's events, emitted, the merge heap kept */
int nop_stream_alloc(struct nop_stream **stp, struct nop_decoder *d, int n, bool page,
		     struct nop_error *err);
ssize_t nop_stream_read_page(const struct nop_stream *st, int fd, char *pg);
int nop_stream_take_page(struct nop_stream *st, struct cpu_buf *c, void *page, size_t len,
			 struct nop_error *err);
int nop_stream_emit_one(struct cpu_buf *c, nop_emit_fn emit, void *ctx);
void nop_stream_sift_down(struct nop_stream *st, int *h, int n, int i);
int nop_stream_drain_live(struct nop_stream *st, nop_emit_fn emit, void *ctx, bool *more,
			  struct nop_error *err);

#endif
