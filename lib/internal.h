/* internal.h - private declarations shared by the files of libnopctl. */
#ifndef NOPCTL_INTERNAL_H
#define NOPCTL_INTERNAL_H

#include <string.h>

#include "nopctl.h"

/* ---- what cmd/ does not call: the event path, and helpers of the
 * areas, moved from nopctl.h ---- */
/* ---- decoded events ------------------------------------------------- */
enum nop_ev_type {
	NOP_EV_FUNC,  /* function tracer hit */
	NOP_EV_STACK, /* a stack that could not be attached to its hit */
	NOP_EV_LOST,  /* events lost before this point on this CPU */
	NOP_EV_ENTRY, /* function_graph: a function was entered */
	NOP_EV_EXIT,  /* function_graph: a function returned */
	NOP_EV_COUNTS, /* a page only counted (nop_stream_set_count_only) */
	/* a kernel function's return value (ip: the function, retval) or
	 * arguments (ip, args) from nopctl's probes, joined by the pipeline
	 * to the call they belong to */
	NOP_EV_RETVAL,
	NOP_EV_ARGS,
	/* a traced task made a task (pid: the parent; child, thread) or
	 * replaced its image (pid) */
	NOP_EV_FORK,
	NOP_EV_EXEC,
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
		struct { /* FUNC, STACK */
			unsigned long long parent_ip;
			const unsigned long long *stack;
		};
		struct { /* ENTRY, EXIT: depth is the kernel's */
			int depth;
			bool has_retval;
			bool unwound; /* a user function's EXIT: an exception or a
					 longjmp took its frame (no return) */
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
				 * pointer (at the entry, where the return address
				 * is; after the return, 8 bytes above) */
				unsigned long long usp;
			};
		};
		long long lost; /* LOST: count, -1 if the kernel did not say */
		struct { /* FORK */
			int child;
			bool thread; /* CLONE_THREAD: a thread of the same process */
		};
		struct { /* COUNTS: hits and exits on the page */
			unsigned long long nfunc, nexit;
		};
	};
};
/* ---- call graphs: function_graph events to calls ------------------- */
/* Per-task stacks (a task that migrates keeps one tree); an entry whose
 * exit follows at once is a leaf; the kernel's depth resynchronizes the
 * stack after lost events, so a gap never mis-nests what follows. */
enum nop_gi_kind {
	NOP_GI_ENTER,  /* a call that has callees: opens a level */
	NOP_GI_LEAF,   /* a call with no callees, entry and exit at once */
	NOP_GI_RETURN, /* the end of an ENTER */
};

struct nop_gitem {
	enum nop_gi_kind kind;
	int pid, cpu;
	int depth; /* in this task's tree, 0 outermost */
	int npath;
	bool timed; /* duration known (false: the exit was lost) */
	bool at_end; /* not timed: still running when the capture ended */
	bool unwound; /* RETURN, timed: a user call an exception or a longjmp
			 ended (to when its task was next seen) */
	bool no_entry; /* an exit whose entry was not seen (began before the
			  capture, or lost): timed, from the kernel's calltime */
	/* no_entry: when it began on the buffer's clock (the exit's time stamp
	 * less its duration): calltime is function_graph's own clock, which
	 * can run apart from the buffer's (6.1) */
	unsigned long long began;
	bool has_retval;
	bool other_task; /* under -p: a task not traced, in its half of a
			    context switch (the kernel records those calls) */
	unsigned long long ts; /* entry time; RETURN: return time */
	unsigned long long func;
	unsigned long long duration, self; /* ns, when timed */
	long long retval;
	const char *args; /* ENTER, LEAF: as nop_event's (NULL: none) */
	const unsigned long long *path; /* outermost .. func */
	/* a user function (ENTER, LEAF, RETURN): the address its entry ran at
	 * and its return address, as the process had them (0: not known) */
	unsigned long long uip, ucaller;
};
int nop_cpu_stats_read(const char *buffer_dir, int cpu, struct nop_cpu_stats *st,
		       struct nop_error *err);
/* set NULL: every one of ncpus CPUs */
void nop_cpuset_mask(const struct nop_cpuset *set, int ncpus, char *buf, size_t len);
int nop_dat_page(struct nop_dat *w, int cpu, const void *page, size_t len);
void nop_field_array_close(struct nop_fields *f);
void nop_field_array_open(struct nop_fields *f, const char *key);
void nop_field_item_str(struct nop_fields *f, const char *fmt, const char *v);
/* JSON only: a value already in JSON (an object nopctl built) */
void nop_field_json(struct nop_fields *f, const char *key, const char *json);
/* JSON only: a string already quoted (nop_json_quote), len bytes */
void nop_field_quoted(struct nop_fields *f, const char *key, const char *q, size_t len);
void nop_field_ts(struct nop_fields *f, const char *key, unsigned long long ns);
/* JSON built on at buf + len (cap bytes in all): close leaves the line
 * there and f->len says where it ends; a full buffer is written to out
 * whole, so what was in it keeps its order */
void nop_fields_open_at(struct nop_fields *f, FILE *out, char *buf, size_t len, size_t cap);
int nop_funcs_parse(const char *text, struct nop_funcs *f, struct nop_error *err);
void nop_instance_name(char *buf, size_t len, pid_t pid);
pid_t nop_instance_owner(const char *name); /* of "nopctl-<pid>"; 0: not nopctl's */
int nop_journal_dir_check(struct nop_error *err);
/* s quoted and escaped into buf: its length, 0 if it does not fit */
size_t nop_json_quote(char *buf, size_t cap, const char *s);
/* Read kernel memory through /proc/kcore (ELF): 0, or -1 with err. */
int nop_kcore_read(unsigned long long addr, void *buf, size_t len, struct nop_error *err);
int nop_ksym_lookup(const char *name, struct nop_ksym *out, struct nop_error *err);
/* a list file's text holds no entry ("#### no functions ...", "no pid") */
bool nop_list_empty(const char *text);
/* one of its lines is exactly entry */
bool nop_list_has(const char *text, const char *entry);
/* it holds one of the entries of another list's text */
bool nop_list_shares(const char *text, const char *entries);
pid_t nop_probe_group_owner(const char *name);
const char *nop_resolve_binary(struct nop_resolver *r, unsigned long long addr);
const char *nop_resolve_comm(struct nop_resolver *r, int pid);
const char *nop_resolve_sym(struct nop_resolver *r, unsigned long long addr,
			    unsigned long long *off);
const struct nop_uprobe *nop_resolve_uprobe(struct nop_resolver *r, unsigned long long addr);
/* pid's task name from now on (a fork's child, an exec) */
void nop_resolver_set_comm(struct nop_resolver *r, int pid, const char *comm);
/* Is pid a task the session traces (set_ftrace_pid, children included)? */
bool nop_session_traces(struct nop_session *s, int pid);
/* Another user of the top level (a tracer, filters or pids): 1 and why. */
int nop_top_level_user(const char *tracing_dir, char *why, size_t len);
int nop_uprobe_find(const struct nop_uprobes *u, unsigned long long key); /* index or -1 */
void nop_walk_end(struct nop_walk *w);
int nop_write_file(const char *path, const char *val, bool append, struct nop_error *err);

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* v in decimal, at least zeros (<= 20) digits, '-' in front if neg:
 * nop_dec_len says how many characters, nop_dec_put writes them where
 * they go, backwards from end, two digits a step, with no scratch buffer
 * to copy out of. NOP_DEC_MAX: the most either gives. */
#define NOP_DEC_MAX 24
extern const char nop_dec_pairs[201];
extern const unsigned long long nop_pow10[20];
static inline size_t nop_dec_len(unsigned long long v, bool neg, int zeros)
{
	unsigned long long u = v | 1; /* as many digits as v; 0 has one */
	size_t t = (size_t)((64 - __builtin_clzll(u)) * 1233 >> 12); /* log10(2) in 12 bits */
	size_t n = t + (u >= nop_pow10[t]);

	return (n < (size_t)zeros ? (size_t)zeros : n) + neg;
}

static inline void nop_dec_put(char *end, unsigned long long v, bool neg, int zeros)
{
	char *p = end;

	while (v >= 100) {
		unsigned int r = (unsigned int)(v % 100);

		v /= 100;
		p -= 2;
		memcpy(p, nop_dec_pairs + 2 * r, 2);
	}
	if (v >= 10) {
		p -= 2;
		memcpy(p, nop_dec_pairs + 2 * v, 2);
	} else {
		*--p = (char)('0' + v);
	}
	while (end - p < zeros)
		*--p = '0';
	if (neg)
		*--p = '-';
}

/* ---- below the public header: the parts of the pipeline (cmd/ never
 * sees them; tests and fuzz targets drive them directly) ---- */
/* What every event of a report runs through (decoding, merging, the call
 * engine, the sinks' call paths): kept together in .text.hot, a few
 * pages, so that its speed does not move with where unrelated code lands
 * (under QEMU TCG a jump to another guest page is looked up, not
 * chained). */
#define NOP_HOT __attribute__((hot))
#define NOP_GRAPH_MAX_DEPTH 256
struct nop_graph;
typedef int (*nop_gitem_fn)(void *ctx, const struct nop_gitem *gi);
struct nop_graph *nop_graph_new(struct nop_error *err);
/* Feed ENTRY/EXIT/LOST events in time order; items go to fn. */
int nop_graph_feed(struct nop_graph *g, const struct nop_event *ev, nop_gitem_fn fn, void *ctx);
/* tracing_thresh: the kernel records only the returns of calls at or
 * above it, children before their caller; the trees are built from
 * those returns' depths, held per task until the outermost returns. */
void nop_graph_exits_only(struct nop_graph *g);
/* A recording, which may be such a capture: returns are held until the
 * first entry; a stream with none was one (nop_graph_returns_only) */
void nop_graph_find_exits_only(struct nop_graph *g);
bool nop_graph_returns_only(const struct nop_graph *g);
/* End of the stream: calls still open are returned untimed. */
int nop_graph_finish(struct nop_graph *g, nop_gitem_fn fn, void *ctx);
void nop_graph_free(struct nop_graph *g);
/* A call as a summary takes it: report --stats of a capture it filters
 * nothing of (callgraph_summary.c) */
struct nop_gcall {
	unsigned long long func, duration, self;
	long long retval;
	int depth; /* in its task's tree, 0 outermost */
	bool has_retval;
};
typedef int (*nop_gcall_fn)(void *ctx, const struct nop_gcall *c);
/* Calls whose entry and exit come in their task's order go to fn as they
 * return, and their entries nowhere (every frame an entry opens is closed
 * by a call or an item at its depth, so the deepest stack still shows);
 * every other event still makes items */
void nop_graph_summarize(struct nop_graph *g, nop_gcall_fn fn, void *ctx);
/* pid's entry not shown yet (it has callees after all: the kernel's) */
int nop_graph_show_pending_of(struct nop_graph *g, int pid, nop_gitem_fn fn, void *ctx);
/* pid's open calls, outermost first: how many (path valid until the next feed) */
int nop_graph_open_calls(struct nop_graph *g, int pid, const unsigned long long **path);

/* --errors (errfilter.c): a task's trees held until they end, then only
 * the calls that returned a negative errno and the paths to them */
struct nop_errf;
struct nop_errf *nop_errf_new(void);
int nop_errf_item(struct nop_errf *e, const struct nop_gitem *gi, nop_gitem_fn out, void *ctx);
int nop_errf_finish(struct nop_errf *e, nop_gitem_fn out, void *ctx);
void nop_errf_free(struct nop_errf *e);
/* a negative errno: -4095..-1, the kernel's IS_ERR_VALUE range */
static inline bool nop_is_errno(long long v)
{
	return v < 0 && v >= -4095;
}
/* -2: "ENOENT"; NULL for a value that is no errno the C library names */
const char *nop_errno_name(long long v);

/* User functions' entries and exits given a depth and their call's start
 * (ucalls.c), to fn: the event, after the exits of the calls it shows
 * ended (unwound ones marked). Returns 0, fn's first non-zero result, or
 * -errno; an exit whose entry was not seen is left out, counted */
struct nop_ucalls;
typedef bool (*nop_uroot_fn)(void *ctx, unsigned long long key);
typedef int (*nop_ucall_fn)(void *ctx, struct nop_event *ev);
/* is_root NULL: every call; else only calls inside a root's */
struct nop_ucalls *nop_ucalls_new(nop_uroot_fn is_root, void *ctx);
int nop_ucalls_place(struct nop_ucalls *u, const struct nop_event *ev, nop_ucall_fn fn, void *ctx);
/* a FORK (the child inside its parent's root, if the parent is) or an
 * EXEC (the task's open calls end, unwound) */
int nop_ucalls_process(struct nop_ucalls *u, const struct nop_event *ev, nop_ucall_fn fn, void *ctx);
void nop_ucalls_max_depth(struct nop_ucalls *u, int depth); /* -D (0: no limit) */
unsigned long long nop_ucalls_unmatched(const struct nop_ucalls *u);
void nop_ucalls_free(struct nop_ucalls *u);

/* Names from a recorded file's handle (kallsyms and cmdlines it carries). */
/* the probes set with nop_resolver_set_probes (a recording's, for report) */
const struct nop_uprobes *nop_resolver_probes(const struct nop_resolver *r);

/* The raw-page decoder: event formats from <tracing_dir>/events. */
struct nop_decoder;
struct nop_decoder *nop_decoder_new(const char *tracing_dir, struct nop_error *err);
void nop_decoder_free(struct nop_decoder *d);
int nop_decoder_page_size(const struct nop_decoder *d);
typedef int (*nop_emit_fn)(void *ctx, const struct nop_event *ev);
/* Decode one sub-buffer (page) of a CPU's ring buffer into events. */
int nop_decode_page(struct nop_decoder *d, int cpu, void *page,
		    nop_emit_fn emit, void *ctx);
/* The same walk, but the records are only counted: one NOP_EV_COUNTS per
 * page (and NOP_EV_LOST as nop_decode_page gives it). */
int nop_count_page(struct nop_decoder *d, int cpu, void *page, nop_emit_fn emit, void *ctx);
/* One of the two (count: nop_count_page), a damaged page becoming a
 * NOP_EV_LOST mark (count -1) after what it held before the damage: the
 * live stream's and a recording's after-capture count alike */
int nop_page_events(struct nop_decoder *d, int cpu, void *page, bool count, nop_emit_fn emit,
		    void *ctx);

/* Until called again with NULLs: funcgraph entries and exits are appended
 * to the array *arr (*n of *cap, grown with nop_grow) instead of passed to
 * emit, which must append everything else to that array as well (the
 * order of the page is kept) */
void nop_decoder_append_to(struct nop_decoder *d, struct nop_event **arr, size_t *n, size_t *cap);
/* the function hit a decoder still holds (the end of the data) */
int nop_decode_flush(struct nop_decoder *d, nop_emit_fn emit, void *ctx);

/* Kernel probes' return values and arguments joined to their calls'
 * events (probejoin.c); name: a kernel address's function name */
struct nop_join;
typedef const char *(*nop_join_name_fn)(void *ctx, unsigned long long addr);
struct nop_join *nop_join_new(const struct nop_uprobes *u, bool graph, nop_join_name_fn name, void *ctx);
int nop_join_event(struct nop_join *j, const struct nop_event *ev, nop_emit_fn out, void *ctx);
int nop_join_finish(struct nop_join *j, nop_emit_fn out, void *ctx);
void nop_join_free(struct nop_join *j);
/* calls shown without the value their probe was to give; probes' values
 * that matched no call */
void nop_join_misses(const struct nop_join *j, unsigned long long *missing, unsigned long long *unclaimed);


/* the kernel events that tell the pipeline a traced task forked or
 * exec'd ("SYSTEM/EVENT" under events/) */
#define NOP_NPROCESS_EVENTS 2
extern const char *const nop_process_events[NOP_NPROCESS_EVENTS];
/* their formats from dir/events, where the kernel has them */
int nop_decoder_add_process_events(struct nop_decoder *d, const char *dir, struct nop_error *err);
int nop_decoder_add_probes(struct nop_decoder *d, const char *dir, const char *group,
			   const struct nop_uprobes *u, struct nop_error *err);
/* a recording's probe events (system nopctl_<pid>) into u, decoded */
int nop_decoder_recorded_probes(struct nop_decoder *d, struct nop_uprobes *u, const char *binaries,
				struct nop_error *err);
/* a probe named by its event only (a recording: no path, no binary) */
/* a probe's event name: sym's [A-Za-z0-9_], unique in u, then suffix */
int nop_probe_event_name(struct nop_uprobes *u, const char *sym, const char *suffix, char *out, size_t len);
/* kernel functions' signatures from BTF (kfuncsig.c) */
#define NOP_KSIG_MAX 8
enum nop_kp_kind { NOP_KP_VOID, NOP_KP_SIGNED, NOP_KP_UNSIGNED, NOP_KP_POINTER, NOP_KP_STRING,
		   NOP_KP_OTHER };
struct nop_kparam {
	char name[64];
	enum nop_kp_kind kind;
	int size; /* bytes */
};
struct nop_ksig {
	bool found; /* BTF knows the function */
	struct nop_kparam ret, p[NOP_KSIG_MAX];
	int n;
};
int nop_kfunc_sig(const char *func, const char *module, struct nop_ksig *sig, struct nop_error *err);
/* an argument probe's record to "TEXT\0JSON" in *buf (grown as needed);
 * NULL: out of memory */
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
/* suffixes of kernel probes' events: a recording tells them apart */
#define NOP_KRET_SUFFIX "__kret"
#define NOP_KARGS_SUFFIX "__kargs"
/* what a probe event's name says: an entry (NAME), an exit (NAME__return,
 * NAME__return_N), an entry that returns at once (NAME__leaf); symlen:
 * NAME's length */
enum nop_probe_name { NOP_PN_ENTRY, NOP_PN_EXIT, NOP_PN_LEAF };
enum nop_probe_name nop_probe_name_parse(const char *event, size_t *symlen);
/* a recording's probe event: sym the first len bytes of event */
int nop_uprobes_add_named(struct nop_uprobes *u, const char *event, size_t len, bool ret);
/* a C++ name demangled (malloc'd), NULL if it is not one (usyms.c) */
char *nop_demangle(const char *name);
/* Where a user function's probes go (ucode.c): its entry skip bytes in
 * (past a first instruction the kernel's uprobes refuse), and the
 * instructions that leave it (ret, a direct jump out: a tail call), in it
 * and in its .cold fragments */
struct nop_ucode {
	unsigned long long skip;
	unsigned long long *exits; /* addresses (vaddr), in code order */
	bool *at_ret; /* each: a ret (%rax holds the value), else a tail call */
	size_t nexit, cap;
	unsigned blind;	  /* exits the kernel cannot probe (refused prefixes) */
	bool undecoded;	  /* code not found or not all decoded: exits may be missing */
	bool reaches_out; /* an instruction calls, jumps out by a register or memory
			     operand, tail-calls or enters the kernel */
	const char *refused; /* no instruction of it can be probed: why */
};
int nop_ucode_scan(const struct nop_ubin *b, size_t i, struct nop_ucode *c, struct nop_error *err);
bool nop_ucode_has_exit(const struct nop_ucode *c, unsigned long long vaddr);
void nop_ucode_free(struct nop_ucode *c);
/* a GCC .cold fragment (NAME.cold, NAME.cold.N): reached by a jump from
 * NAME, never called; its exits are NAME's */
bool nop_usym_fragment(const struct nop_usym *s);

/* ---- the stream: every CPU's trace_pipe_raw, merged by time ---------- */
struct nop_stream;
int nop_stream_open(struct nop_stream **st, struct nop_decoder *d, const char *buffer_dir,
		    const struct nop_cpuset *cpus, struct nop_error *err);
/* Feed pre-recorded pages instead of a live buffer (tests, reports). */
int nop_stream_open_files(struct nop_stream **st, struct nop_decoder *d,
			  const char **paths, const int *cpus, int n, struct nop_error *err);
/* A trace.dat of version 6 or 7, as trace-cmd and nopctl record write it,
 * read without libtracecmd (tracedat_read.c): 0, or -1 with the reason.
 * Its decoder, its symbols and task names, and its pages as a stream
 * (merged exactly: one drain emits everything in timestamp order). */
struct nop_dat_in;
int nop_dat_in_open(struct nop_dat_in **in, const char *path, struct nop_error *err);
void nop_dat_in_free(struct nop_dat_in *in);
/* up: the functions of the recording's probe events (nopctl's groups) */
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
/* a CPU's buffer size in KB as tracing uses it ("7 (expanded: 1408)", a
 * boot's placeholder before its first tracing: 1408); -1 if unreadable */
long long nop_cpu_buffer_kb(const char *buffer_dir, int cpu);

/* Raw pages as they are read, before decoding (nopctl record). */
typedef int (*nop_raw_fn)(void *ctx, int cpu, const void *page, size_t len);
void nop_stream_set_raw(struct nop_stream *st, nop_raw_fn fn, void *ctx);
/* A recording's pages: NOP_PAGES_COUNT only counted (nop_count_page),
 * NOP_PAGES_SAVE not even that (counted from the trace.dat afterwards) */
enum nop_pages { NOP_PAGES_DECODE, NOP_PAGES_COUNT, NOP_PAGES_SAVE };
void nop_stream_set_pages(struct nop_stream *st, enum nop_pages how);
/* no event will be written any more: drains read every CPU to its end and
 * hold nothing back once all are empty */
void nop_stream_set_final(struct nop_stream *st);
/* live: events decoded and waiting for the watermark (a later round) */
size_t nop_stream_held(const struct nop_stream *st);

/* Every page a recording saved so far, CPU by CPU (tracedat.c): fn's
 * nonzero return ends the walk and is returned; -1 with errno if the
 * saved pages cannot be read back */
int nop_dat_each_page(struct nop_dat *w, int (*fn)(void *ctx, int cpu, void *page), void *ctx);
/* a live source's recording, counted from its saved pages (source_live.c) */
int nop_source_count_saved(struct nop_source *src, struct nop_dat *dat, nop_emit_fn emit, void *ctx,
			   struct nop_error *err);

/* pages held in memory (spool.c): a pool that recycles them, at most max
 * bytes in all, and per-CPU queues of them */
struct nop_pagepool {
	size_t page_size, bytes, used, peak, max;
	char **free;
	size_t nfree, capfree;
};
struct nop_pageq {
	char **pg;
	size_t head, n, cap;
};
void nop_pagepool_init(struct nop_pagepool *p, size_t page_size);
char *nop_pagepool_get(struct nop_pagepool *p); /* NULL: at its limit, or no memory */
void nop_pagepool_put(struct nop_pagepool *p, char *pg);
void nop_pagepool_free(struct nop_pagepool *p);
int nop_pageq_push(struct nop_pageq *q, char *pg);
char *nop_pageq_pop(struct nop_pageq *q);
void nop_pageq_free(struct nop_pageq *q, struct nop_pagepool *p);

/* ---- sinks: one per view (sink_*.c), chosen by sink.c ---- */
struct nop_sink;
struct nop_sink_ops {
	int (*init)(struct nop_sink *s, const struct nop_sink_cfg *cfg, struct nop_error *err);
	int (*event)(struct nop_sink *s, const struct nop_event *ev); /* function tracer */
	int (*graph)(struct nop_sink *s, const struct nop_gitem *gi);	/* function_graph */
	int (*summary)(struct nop_sink *s, const struct nop_summary *sum); /* the end */
	void (*free)(struct nop_sink *s);
};

struct nop_sink {
	const struct nop_sink_ops *ops;
	void *priv;
	FILE *out, *diag;
	struct nop_resolver *res;
	enum nop_encoding enc;
	bool quiet;
	unsigned renames; /* a task took a new name (fork, exec): cached prefixes go */
	/* lines built in place, written to out a buffer at a time (see
	 * nop_sink_room); anything else written to out spills them first */
	char *obuf;
	size_t olen;
	int werr; /* errno of a failed write of obuf: every later one fails */
};
int nop_sink_init(struct nop_sink *s, const struct nop_sink_cfg *cfg, struct nop_error *err);
void nop_sink_free(struct nop_sink *s);
/* a task's name as the sink's encoding may show it */
const char *nop_sink_comm(struct nop_sink *s, int pid);
/* "name" of a traced address, cached; "0x..." when unknown */
const char *nop_sink_func(struct nop_sink *s, unsigned long long addr);
/* fn is nop_sink_func's "0x...": one buffer, reused by the next call, so
 * not to be cached by its address as a name is */
bool nop_sink_func_unnamed(const char *fn);
#define NOP_SINK_OBUF (1 << 18)
/* where a line of up to need (<= NOP_SINK_OBUF) bytes is built at
 * s->obuf + s->olen, after writing out what the buffer held if it had no
 * room; NULL when out of memory or the output failed */
char *nop_sink_room(struct nop_sink *s, size_t need);
/* write the buffered lines to out (0, or -1 with out's error set) */
int nop_sink_spill(struct nop_sink *s);
/* spill, then fflush out */
int nop_sink_flush(struct nop_sink *s);

void nop_journal_set_dir(const char *dir); /* tests */
extern const char *nop_pidns_link; /* /proc/self/ns/pid; tests point it elsewhere */

extern const char *nop_kallsyms_path; /* /proc/kallsyms; tests point it elsewhere */

/* A page that the ring buffer's writer had finished (see stream.c). */
struct nop_decoder;
bool nop_page_filled(const struct nop_decoder *d, const void *page);

/* size zeroed bytes, or NULL with "out of memory" in err */
void *nop_zalloc(size_t size, struct nop_error *err);

/* Grow *v (of element size sz) so that it holds at least need elements. */
int nop_grow(void **v, size_t *cap, size_t need, size_t sz);
/* Per-task state kept in a vector of structs of size sz that each start
 * with their task's int pid: pid's, or a new zeroed one (*added) at the
 * end; *last remembers where the last one was (most events are the same
 * task's as the one before). NULL: out of memory. */
void *nop_task_slot(void **v, size_t *n, size_t *cap, size_t sz, int pid, size_t *last, bool *added);
/* Does a process hold an flock on path (a journal, top-level.lock)? (owners.c) */
bool nop_lock_held(const char *path);

/* A set of addresses (tracedat_syms.c): those a recording's events name */
struct nop_addrset {
	unsigned long long *v;
	size_t n, cap;
};
int nop_addrset_add(struct nop_addrset *s, unsigned long long a);
void nop_addrset_free(struct nop_addrset *s);
/* The lines of kallsyms text naming the functions that hold the set's
 * addresses (malloc'd, *outlen bytes; NULL: ENOMEM) */
char *nop_kallsyms_subset(const char *text, size_t len, const struct nop_addrset *s, size_t *outlen);

/* path = dir "/" rel, NULL on overflow */
char *nop_path(char *buf, size_t len, const char *dir, const char *rel);
/* does dir/rel exist (a tracefs file, an option the kernel has)? */
bool nop_path_exists(const char *dir, const char *rel);

/* The tracefs error message for a failed open/read/write of a file. */
void nop_error_io(struct nop_error *err, const char *what, const char *path, int e);

/* Journal of prior values (journal.c) and its replay (replay.c) */
struct nop_journal;
struct nop_replay {
	int instances;	/* removed */
	int nleft;	/* files left as they are, and why: */
	char left[600];
};
int nop_journal_open(struct nop_journal **j, const char *tracing_dir, struct nop_error *err);
int nop_journal_instance(struct nop_journal *j, const char *name, struct nop_error *err);
int nop_journal_file(struct nop_journal *j, const char *rel, const char *prior,
		     struct nop_error *err);
/* before each write of a journaled file, and what it read back after */
int nop_journal_writing(struct nop_journal *j, const char *rel, struct nop_error *err);
int nop_journal_holds(struct nop_journal *j, const char *rel, const char *now,
		      struct nop_error *err);
/* a probe event ("group/event") nopctl is about to create */
int nop_journal_probe(struct nop_journal *j, const char *ge, struct nop_error *err);
/* Restore what the journal names (what still holds nopctl's values) and
 * delete it. */
int nop_journal_finish(struct nop_journal *j, struct nop_replay *rep, struct nop_error *err);
/* a journal nobody holds (EBUSY if one is), or one whose lock we hold */
const char *nop_journal_path(const struct nop_journal *j);
int nop_journal_fd(const struct nop_journal *j);
void nop_journal_release(struct nop_journal *j); /* closed (lock released) and freed */
int nop_journal_replay(const char *path, struct nop_replay *rep, struct nop_error *err);
/* the same, 1 (nothing done) when a running nopctl holds it */
int nop_journal_replay_unheld(const char *path, struct nop_replay *rep, struct nop_error *err);
int nop_journal_replay_locked(const char *path, int fd, struct nop_replay *rep,
			      struct nop_error *err);
/* one line appended to the journal open on fd (and synced); -1 + errno */
int nop_journal_line(int fd, const char *what, const char *rel, const char *val);
/* name a file left as it is, and why, in rep */
void nop_replay_left(struct nop_replay *rep, const char *rel, const char *why);

/* Settings every buffer shares, one value at a time (shared.c): the file
 * set to want (written in write_dir) and this process registered as its
 * user; EBUSY while a live nopctl holds another value. Released at the
 * session's end, restored when its last user is gone. */
int nop_shared_take(const char *tracing_dir, const char *write_dir, const char *rel,
		    const char *want, bool list, struct nop_error *err);
int nop_shared_release(const char *tracing_dir, pid_t pid, struct nop_replay *rep,
		       struct nop_error *err);

/* hex text to its bytes in place; -1 on odd length or a non-hex digit */
int nop_unhex(char *s);
/* s as hex text, two digits a byte (malloc'd; NULL: out of memory) */
char *nop_hex(const char *s);

/* nopctl's probe events (probes.c): created journaled, removed by name */
int nop_probes_create(struct nop_journal *j, const char *tracing_dir, const char *group,
		      const struct nop_uprobes *u, struct nop_error *err);
int nop_probe_remove(const char *tracing_dir, const char *ge, struct nop_replay *rep,
		     struct nop_error *err);
int nop_probes_reset_stale(const char *tracing_dir, struct nop_replay *rep, struct nop_error *err);

/* Put back one tracefs file's prior value as read from it (restore.c). */
int nop_restore_file(const char *tracing_dir, const char *rel, const char *prior,
		     struct nop_error *err);
int nop_instance_remove(const char *tracing_dir, const char *name, struct nop_error *err);
/* a list file's entry as read back, in the form it is written in */
const char *nop_list_writable(const char *rel, const char *entry, char *buf, size_t len);

/* A string-keyed map of fixed-size zeroed values, in insertion order. */
struct nop_strmap;
struct nop_strmap *nop_strmap_new(size_t valsize);
void *nop_strmap_get(struct nop_strmap *m, const char *key); /* created if absent; NULL: ENOMEM */
void *nop_strmap_find(const struct nop_strmap *m, const char *key); /* NULL if absent */
size_t nop_strmap_size(const struct nop_strmap *m);
void *nop_strmap_at(const struct nop_strmap *m, size_t i, const char **key);
void nop_strmap_free(struct nop_strmap *m);

/* Source files and lines from a binary's DWARF (srclines.c): where the
 * function at vaddr is defined, the line of an address; false without
 * debug info. Names stay valid until the srclines are freed. */
struct nop_srclines;
struct nop_srclines *nop_srclines_new(void);
bool nop_srclines_has(struct nop_srclines *sl, const char *path);
bool nop_srclines_decl(struct nop_srclines *sl, const char *path, unsigned long long vaddr,
		       const char **file, int *line);
bool nop_srclines_at(struct nop_srclines *sl, const char *path, unsigned long long vaddr,
		     const char **file, int *line);
/* a function's return type (its probe's address vaddr): size in bytes,
 * NOP_RV_SIGNED, NOP_RV_POINTER; NOP_RV_VOID; 0: not known */
#define NOP_RV_SIGNED 0x10
#define NOP_RV_POINTER 0x20
#define NOP_RV_VOID 0x80
unsigned char nop_srclines_rettype(struct nop_srclines *sl, const char *path, unsigned long long vaddr);
/* the uprobe fetch arguments of a function's integer, pointer and
 * string parameters by their DWARF names (" a=%di:s32 s=+0(%si):string"),
 * in the ABI's registers, up to a parameter passed otherwise: how many,
 * -1 with no DWARF */
int nop_srclines_params(struct nop_srclines *sl, const char *path, unsigned long long vaddr, char *out,
			size_t len);
/* a value of %rax as a function of that type returned it */
long long nop_rv_value(unsigned char rv, unsigned long long rax);
void nop_srclines_free(struct nop_srclines *sl);

/* sinks (sink_*.c) */
extern const struct nop_sink_ops nop_lines_ops, nop_folded_ops, nop_dot_ops, nop_chrome_ops,
	nop_stats_ops;
/* the stats sink has a row for func (--hist FUNC: a function it saw) */
bool nop_stats_has(const struct nop_sink *s, const char *func);
/* the stats sink: a call of a summary (nop_graph_summarize) */
int nop_stats_call(struct nop_sink *s, const struct nop_gcall *c);
int nop_sink_priv(struct nop_sink *s, size_t size, struct nop_error *err);
int nop_graph_lines(struct nop_sink *s, const struct nop_gitem *gi);
void nop_fmt_duration(char *buf, size_t len, unsigned long long ns);
void nop_sink_sym(struct nop_sink *s, unsigned long long addr, char *buf, size_t len, bool off);
/* the run summary, for any view (summary.c) */
int nop_summary_write(struct nop_sink *s, const struct nop_summary *sum);
int nop_summary_to_diag(struct nop_sink *s, const struct nop_summary *sum);

extern const char *nop_kcore_path; /* /proc/kcore; tests point it elsewhere */
int nop_ksym_at(unsigned long long addr, char *name, size_t len, unsigned long long *off);
/* one line of kallsyms text, "ADDR TYPE NAME[\t[MODULE]]": name and mod
 * point into the text (not terminated; mod "" for the core kernel) */
struct nop_kline {
	unsigned long long addr;
	char type;
	const char *name, *mod;
	size_t nlen, mlen;
};
/* the line at *p (text up to end) into *l, *p moved past it; false: a
 * line of another form, skipped (ksyms.c) */
bool nop_kallsyms_line(const char **p, const char *end, struct nop_kline *l);
static inline bool nop_ksym_is_text(char type)
{
	return type == 't' || type == 'T' || type == 'w' || type == 'W';
}

/* available_filter_functions kept per boot and module set (funcs_cache.c) */
char *nop_funcs_cache_read(const char *tracing_dir);
void nop_funcs_cache_write(const char *tracing_dir, const char *text);
/* the same for other kinds ("ksyms"): mapped read-only (munmap it), and
 * written from pieces (root only) */
struct iovec;
void *nop_boot_cache_map(const char *kind, size_t *len);
void nop_boot_cache_write(const char *kind, const struct iovec *iov, int n);
/* tasks.c: pid in a set_ftrace_pid list; listed, gone or descended from a
 * listed task; some task of a list still running */
bool nop_pid_listed(const char *list, int pid);
bool nop_pid_traced(const char *list, int pid);
bool nop_pids_run(const char *list);
int nop_journal_dir_make(struct nop_error *err); /* the journal directory, created if absent */

/* /proc/self/mounts: is fstype mounted, and where (dir may be NULL);
 * /proc/filesystems: does this kernel offer it (mounts.c) */
bool nop_mounted(const char *fstype, char *dir, size_t len);
bool nop_fs_supported(const char *fstype);

/* The kernel's lockdown mode (nop_lockdown_mode) and where it was read
 * (lockdown.c) */
struct nop_lockdown {
	char mode[32]; /* as nop_lockdown_mode() */
	char how[160];
};
const struct nop_lockdown *nop_lockdown(void);

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
	/* live: how long, up to most ms, the next round may wait */
	int (*wait_ms)(const struct nop_source *s, int most);
	void (*close)(struct nop_source *s);
};
struct nop_source {
	const struct nop_source_ops *ops;
};
/* A source that is a stream of pages with its decoder (source_live.c,
 * source_dat.c): the drain and the release they share (stream.c). */
struct nop_stream_source {
	struct nop_source base;
	struct nop_decoder *dec;
	struct nop_stream *st;
};
int nop_stream_source_drain(struct nop_source *s, nop_emit_fn emit, void *ctx, bool *more,
			    struct nop_error *err);
void nop_stream_source_release(struct nop_stream_source *s);
/* a source's zeroed state of size bytes, its ops set (NULL: ENOMEM in err) */
void *nop_source_new(size_t size, const struct nop_source_ops *ops, struct nop_error *err);
int nop_source_dat(struct nop_source **src, const char *path, struct nop_resolver **res,
		   struct nop_error *err);

int nop_levenshtein(const char *a, const char *b, int limit);

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
};
/* nopctl's option in a trace.dat: "EVENT\tPATH\n" for each user function
 * probe event, the binary it probes (uprobe formats do not say). trace-cmd
 * 3.1.6 to 3.4 skip an option id they do not know, silently (report) or
 * as "Unknown option" (dump); trace-cmd's own ids are below 32. */
#define NOP_DAT_OPT_BINARIES 0x6e70

/* the probe --retval places on a kernel function where function_graph
 * gives no return values (kprobes.c; doctor names the same) */
enum nop_probe_kind nop_kcaps_retval_kind(const struct nop_kcaps *c);

/* compressed trace.dat data (decompress.c) */
enum { NOP_Z_NONE, NOP_Z_ZSTD, NOP_Z_ZLIB };
int nop_zalg_by_name(const char *name); /* -1: none nopctl reads */
int nop_decompress(int alg, const void *in, size_t n, void *out, size_t want);

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
