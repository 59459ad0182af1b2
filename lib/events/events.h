/* events/events.h - the events area of libnopctl: pages to time-ordered
 * events: decoder, sources, the live and file streams, the resolver, user
 * calls. Its header includes the one of the area before it (lib/README.md:
 * the order): a file sees its own area and those below, never one above. */
#ifndef NOPCTL_AREA_EVENTS_H
#define NOPCTL_AREA_EVENTS_H

#include "tracedat/tracedat.h"

/* a live source's pages also to fn (a copy: catch -o DIR), each before
 * it is decoded, and after it the first and last stamps of its events to
 * span (the ring's nop_pagering_put and nop_pagering_span) */
void nop_source_keep_pages(struct nop_source *src, int (*fn)(void *ctx, int cpu, const void *page, size_t len),
			   void (*span)(void *ctx, int cpu, unsigned long long first, unsigned long long last),
			   void *ctx);

/* decoded events */
enum nop_ev_type {
	NOP_EV_FUNC,  /* function tracer hit */
	NOP_EV_STACK, /* a stack that could not be attached to its hit */
	NOP_EV_LOST,  /* events lost before this point on this CPU */
	NOP_EV_ENTRY, /* function_graph: a function was entered */
	NOP_EV_EXIT,  /* function_graph: a function returned */
	NOP_EV_COUNTS, /* a page only counted (nop_stream_set_count_only) */
	/* a kernel function's return value (ip: the function, retval,
	 * ucaller: the address it returned to, 0 if not recorded) or
	 * arguments (ip, args) from nopctl's probes, joined by the pipeline
	 * to the call they belong to */
	NOP_EV_RETVAL,
	NOP_EV_ARGS,
	/* a traced task made a task (pid: the parent; child, thread) or
	 * replaced its image (pid) */
	NOP_EV_FORK,
	NOP_EV_EXEC,
	/* a traced task took a new name (prctl, a thread's name): pid, args */
	NOP_EV_RENAME,
	/* a kernel event recorded beside the calls (-e): its name, its fields
	 * in args ("TEXT\0JSON"), the other task it concerns (about) */
	NOP_EV_KEVENT,
	/* a context switch: pid left the CPU in state (the kernel's
	 * prev_state), next took it */
	NOP_EV_SWITCH,
};

struct nop_event {
	enum nop_ev_type type;
	int cpu;
	int pid;
	int nstack; /* 0 unless FUNC or STACK carries a stack */
	unsigned long long ts; /* ns, trace clock */
	unsigned long long ip; /* function_graph: the function */
	/* ARGS, and the ENTRY or FUNC they were joined to: "TEXT\0JSON",
	 * e.g. 'dfd=-100, filename="/etc/hostname"' and '{"dfd":-100,...}' */
	const char *args;
	union { /* by type: 72 bytes in all, copied once per event */
		struct { /* FUNC, STACK; a user function's hit: parent_ip is
			  * its return address (fetched with callers) */
			unsigned long long parent_ip;
			const unsigned long long *stack;
			bool user_stack; /* STACK: the user stack (userstacktrace),
					    its first frame the hit's own address */
			unsigned long long uhit; /* FUNC of a user function: the
						    address it ran at */
		};
		struct { /* ENTRY, EXIT: depth is the kernel's */
			int depth;
			bool has_retval;
			bool unwound; /* a user function's EXIT: an exception or a
					 longjmp took its frame (no return) */
			unsigned char rvtype; /* a user function's EXIT: its value's type (NOP_RV_*) */
			union {
				struct { /* EXIT */
					unsigned long long calltime, rettime;
				};
				struct { /* a user function's ENTRY (uprobe): the
					  * address it ran at, and its return address */
					unsigned long long uip, ucaller;
				};
			};
			union {
				long long retval;
				/* a user function's ENTRY and EXIT: the stack
				 * pointer at the entry (x86-64: where the return
				 * address is); at the EXIT that plus 8, on every
				 * machine (x86-64's after its return) */
				unsigned long long usp;
			};
			/* a user function's EXIT: the probe that saw it leave, its
			 * index in the run's nop_uprobes plus 1 (0: not known) */
			unsigned long long usite;
		};
		long long lost; /* LOST: count, -1 if the kernel did not say */
		struct { /* FORK */
			int child;
			bool thread; /* CLONE_THREAD: a thread of the same process */
		};
		struct { /* COUNTS: hits and exits on the page, kernel events */
			unsigned long long nfunc, nexit, nkev;
		};
		struct { /* SWITCH */
			int next;
			long long state;
		};
		struct { /* KEVENT: "system:event", the decoder's while it lives */
			const char *ename;
			int about; /* a switch's next task, a wakeup's woken one (0: none) */
		};
	};
};

const char *nop_resolve_binary(struct nop_resolver *r, unsigned long long addr);

const char *nop_resolve_comm(struct nop_resolver *r, int pid);

const char *nop_resolve_sym(struct nop_resolver *r, unsigned long long addr,
			    unsigned long long *off);

const struct nop_uprobe *nop_resolve_uprobe(struct nop_resolver *r, unsigned long long addr);

/* pid's task name from now on (a fork's child, an exec) */
void nop_resolver_set_comm(struct nop_resolver *r, int pid, const char *comm);

/* Names from a recorded file's handle (kallsyms and cmdlines it carries). */
/* the probes set with nop_resolver_set_probes (a recording's, for report) */
const struct nop_uprobes *nop_resolver_probes(const struct nop_resolver *r);

/* The raw-page decoder: event formats from <tracing_dir>/events. */
struct nop_decoder;

struct nop_decoder *nop_decoder_new(const char *tracing_dir, struct nop_error *err);

void nop_decoder_free(struct nop_decoder *d);

int nop_decoder_page_size(const struct nop_decoder *d);

/* the bytes a return takes off the stack on the machine whose user
 * probes' events d reads (this machine's until told: nop_arch_ret_pops);
 * before its probes are added */
void nop_decoder_ret_pops(struct nop_decoder *d, unsigned bytes);

typedef int (*nop_emit_fn)(void *ctx, const struct nop_event *ev);

/* Decode one sub-buffer (page) of a CPU's ring buffer into events. */
int nop_decode_page(struct nop_decoder *d, int cpu, void *page,
		    nop_emit_fn emit, void *ctx);

/* The same walk, but the records are only counted: one NOP_EV_COUNTS per
 * page (and NOP_EV_LOST as nop_decode_page gives it); with syms, the
 * kernel addresses they name noted there too (a trace.dat's symbols: the
 * hits, callers, graph functions, stacks and kernel probes' functions
 * nop_decode_page would give). Writes nothing of d (a decoder that only
 * counts holds no event back): a thread may count with the decoder of a
 * capture that only saves pages. */
int nop_count_page(struct nop_decoder *d, int cpu, void *page, struct nop_addrset *syms, nop_emit_fn emit,
		   void *ctx);

/* One of the two (count: nop_count_page, noting into syms if not NULL),
 * a damaged page becoming a NOP_EV_LOST mark (count -1) after what it
 * held before the damage: the live stream's and a recording's
 * after-capture count alike */
int nop_page_events(struct nop_decoder *d, int cpu, void *page, bool count, struct nop_addrset *syms,
		    nop_emit_fn emit, void *ctx);

/* Until called again with NULLs: funcgraph entries and exits are appended
 * to the array *arr (*n of *cap, grown with nop_grow) instead of passed to
 * emit, which must append everything else to that array as well (the
 * order of the page is kept) */
void nop_decoder_append_to(struct nop_decoder *d, struct nop_event **arr, size_t *n, size_t *cap);

/* the function hit a decoder still holds (the end of the data) */
int nop_decode_flush(struct nop_decoder *d, nop_emit_fn emit, void *ctx);

/* their formats from dir/events, where the kernel has them */
int nop_decoder_add_process_events(struct nop_decoder *d, const char *dir, struct nop_error *err);

/* Every task name d's records give, to fn as they are decoded (pid, its
 * name, the record's time): a context switch's two tasks, a process
 * event's, and each "PID=NAME" of a trace_marker line "nopctl-tasks
 * PID=NAME..." (NOP_TASKS_MARKER); the formats from dir/events. 0, or -1 */
#define NOP_TASKS_MARKER "nopctl-tasks"
int nop_decoder_names(struct nop_decoder *d, const char *dir, void (*fn)(void *ctx, int pid, const char *comm,
									  unsigned long long ts),
		      void *ctx, struct nop_error *err);

int nop_decoder_add_probes(struct nop_decoder *d, const char *dir, const char *group,
			   const struct nop_uprobes *u, struct nop_error *err);

/* kernel events decoded as KEVENTs: their formats from dir/events (n of
 * them, as nop_kevents_add chose them) */
int nop_decoder_add_events(struct nop_decoder *d, const char *dir, const struct nop_kevent *k, size_t n,
			   struct nop_error *err);

/* a recording's probe events (system nopctl_<pid>) into u, decoded */
int nop_decoder_recorded_probes(struct nop_decoder *d, struct nop_uprobes *u, const char *binaries,
				struct nop_error *err);

/* an argument probe's record to "TEXT\0JSON" in *buf (grown as needed):
 * the fields after the one named after (NULL: every field but the common
 * ones, a kernel event's); NULL: out of memory */
struct tep_event;

const char *nop_args_format(struct tep_event *ev, const char *after, const void *rec, int size, bool native,
			    char **buf, size_t *cap);

/* arguments as the probes' values carry them, "TEXT\0JSON\0": their
 * size in bytes, and the JSON half */
static inline size_t nop_args_size(const char *a)
{
	size_t n = strlen(a) + 1;

	return n + strlen(a + n) + 1;
}

static inline const char *nop_args_json(const char *a)
{
	return a + strlen(a) + 1;
}

/* the stream: every CPU's trace_pipe_raw, merged by time */
struct nop_stream;

int nop_stream_open(struct nop_stream **st, struct nop_decoder *d, const char *buffer_dir,
		    const struct nop_cpuset *cpus, struct nop_error *err);
/* the same of the buffer's snapshot (per_cpu/cpuN/snapshot_raw) */
int nop_stream_open_snapshot(struct nop_stream **st, struct nop_decoder *d, const char *buffer_dir,
			     const struct nop_cpuset *cpus, struct nop_error *err);

/* Feed pre-recorded pages instead of a live buffer (tests, reports). */
int nop_stream_open_files(struct nop_stream **st, struct nop_decoder *d,
			  const char **paths, const int *cpus, int n, struct nop_error *err);

/* up: the functions of the recording's probe events (nopctl's groups);
 * in must outlive the decoder (its kernel events' formats are parsed at
 * their first record) */
struct nop_decoder *nop_decoder_from_dat(const struct nop_dat_in *in, struct nop_uprobes *up,
					 struct nop_error *err);

struct nop_resolver *nop_resolver_from_dat(const struct nop_dat_in *in, struct nop_error *err);

int nop_stream_open_dat(struct nop_stream **st, struct nop_decoder *d, const struct nop_dat_in *in,
			struct nop_error *err);

int nop_stream_nfds(const struct nop_stream *st);

int nop_stream_fd(const struct nop_stream *st, int i);

/* Read a bounded round of what every CPU has and emit it in timestamp
 * order; *more says whether a CPU may have more (call again). Returns 0,
 * or -1 on error; a callback's non-zero return stops it and is returned. */
int nop_stream_drain(struct nop_stream *st, nop_emit_fn emit, void *ctx, bool *more,
		     struct nop_error *err);

void nop_stream_close(struct nop_stream *st);

/* live: ms, up to most, before a CPU's buffer is a quarter full at the
 * rate its last read showed */
int nop_stream_wait_ms(const struct nop_stream *st, int most);

/* Raw pages as they are read, before decoding (nopctl record). */
typedef int (*nop_raw_fn)(void *ctx, int cpu, const void *page, size_t len);

void nop_stream_set_raw(struct nop_stream *st, nop_raw_fn fn, void *ctx);
/* after each raw page is decoded: the first and last stamps of its events */
typedef void (*nop_span_fn)(void *ctx, int cpu, unsigned long long first, unsigned long long last);
void nop_stream_set_span(struct nop_stream *st, nop_span_fn fn);
/* live, pages saved: a CPU read and found empty with none of its pages
 * waiting (raw's ctx), before the round hands any page on */
typedef void (*nop_empty_fn)(void *ctx, int cpu);
void nop_stream_set_empty(struct nop_stream *st, nop_empty_fn fn);

/* A recording's pages: NOP_PAGES_COUNT only counted (nop_count_page),
 * NOP_PAGES_SAVE not even that (counted from the trace.dat afterwards) */
enum nop_pages { NOP_PAGES_DECODE, NOP_PAGES_COUNT, NOP_PAGES_SAVE };

void nop_stream_set_pages(struct nop_stream *st, enum nop_pages how);

/* no event will be written any more: drains read every CPU to its end and
 * hold nothing back once all are empty */
void nop_stream_set_final(struct nop_stream *st);
/* live: the next round reads every CPU until it is empty, as at the end */
void nop_stream_catch_up(struct nop_stream *st);

/* live: events decoded and waiting for the watermark (a later round) */
size_t nop_stream_held(const struct nop_stream *st);

/* a live source's recording, counted from its saved pages (recording.c) */
int nop_source_count_saved(struct nop_source *src, struct nop_dat *dat, nop_emit_fn emit, void *ctx,
			   struct nop_error *err);
/* Every page dat saved so far counted with d (emit: as nop_count_page
 * gives them; NULL: none wanted) and the addresses its events name
 * noted: the symbols the file keeps (nop_dat_noted). 0, what emit
 * returned, or -1 with err. */
int nop_dat_count_pages(struct nop_decoder *d, struct nop_dat *dat, nop_emit_fn emit, void *ctx,
			struct nop_error *err);

/* pages held in memory (spool.c): a pool that recycles them, at most max
 * bytes in all, and per-CPU queues of them */
#define SPOOL_FLOOR ((size_t)16 << 20) /* the least a pool may hold, in bytes */
struct nop_pagepool {
	size_t page_size, bytes, used, peak, max;
	size_t kernel, cap; /* the kernel buffers' bytes allowed for; the most */
	char **free;
	size_t nfree, capfree;
};

struct nop_pageq {
	char **pg;
	size_t head, n, cap;
};

void nop_pagepool_init(struct nop_pagepool *p, size_t page_size);

/* the pool may hold bytes more: a kernel buffer read into it */
void nop_pagepool_allow(struct nop_pagepool *p, size_t bytes);

/* NULL: at its limit (unless past_max), or no memory */
char *nop_pagepool_get(struct nop_pagepool *p, bool past_max);

void nop_pagepool_put(struct nop_pagepool *p, char *pg);

void nop_pagepool_free(struct nop_pagepool *p);

int nop_pageq_push(struct nop_pageq *q, char *pg);

char *nop_pageq_pop(struct nop_pageq *q);

void nop_pageq_free(struct nop_pageq *q, struct nop_pagepool *p);

/* A page that the ring buffer's writer had finished (see stream.c). */
struct nop_decoder;

bool nop_page_filled(const struct nop_decoder *d, const void *page);

/* a value of the return register as a function of that type returned it */
long long nop_rv_value(unsigned char rv, unsigned long long rax);

/* A source of events (source_*.c; lib/README says what one implements).
 * Each embeds struct nop_source first. */
struct nop_source_ops {
	bool finite; /* a file: its end ends the run */
	int (*nfds)(const struct nop_source *s);
	int (*fd)(const struct nop_source *s, int i);
	/* a bounded round of events, in time order, to emit; *more: call
	 * again; emit's non-zero result ends the round and is returned */
	int (*drain)(struct nop_source *s, nop_emit_fn emit, void *ctx, bool *more,
		     struct nop_error *err);
	/* live: tracing is off; drain until *more is false to have it all */
	void (*end)(struct nop_source *s);
	/* live (may be NULL): the next drain reads what was written by now */
	void (*catch_up)(struct nop_source *s);
	/* live: how long, up to most ms, the next round may wait */
	int (*wait_ms)(const struct nop_source *s, int most);
	void (*close)(struct nop_source *s);
};

struct nop_source {
	const struct nop_source_ops *ops;
	/* a file that is a part of a rotated recording: the times from and
	 * until which it holds every CPU's events (outside them a call's
	 * entry or exit may be in the file before or after it); 0: from its
	 * first event, until its last */
	unsigned long long complete_from, complete_to;
};

/* A source that is a stream of pages with its decoder (source_live.c,
 * source_dat.c): the drain and the release they share (stream.c). */
struct nop_stream_source {
	struct nop_source base;
	struct nop_decoder *dec;
	struct nop_stream *st;
	/* recording to it (nop_source_record_to): its files' writers walk
	 * their pages with dec, so closing waits for them */
	struct nop_dat *dat;
};

int nop_stream_source_drain(struct nop_source *s, nop_emit_fn emit, void *ctx, bool *more,
			    struct nop_error *err);

void nop_stream_source_release(struct nop_stream_source *s);

/* a source's zeroed state of size bytes, its ops set (NULL: ENOMEM in err) */
void *nop_source_new(size_t size, const struct nop_source_ops *ops, struct nop_error *err);

int nop_source_dat(struct nop_source **src, const char *path, struct nop_resolver **res,
		   struct nop_error *err);

#endif
