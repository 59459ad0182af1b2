/* nopctl.h - the one public header of libnopctl.
 *
 * The library never prints to stdout and never exits: every call that can
 * fail takes a struct nop_error and returns -1 (or NULL) with it filled in.
 * The status of an error is the exit code nopctl(1) uses for it.
 */
#ifndef NOPCTL_H
#define NOPCTL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#define NOP_VERSION "0.1.0"

/* Exit codes, documented in nopctl(1). Stable: never renumber. */
enum nop_status {
	NOP_OK = 0,
	NOP_EINTERNAL = 1, /* I/O error or unexpected failure */
	NOP_EUSAGE = 2,    /* bad input: option, pattern, pid, no match */
	NOP_EKERNEL = 3,   /* tracing unavailable or refused by the kernel */
	NOP_EBUSY = 4,     /* tracing in use by another user */
	NOP_ELOST = 5,     /* the run completed but events were lost */
	NOP_ECHANGED = 6,  /* diff: something changed beyond noise */
};

/* What would work where it is an option of the command line: the
 * library names the remedy, cmd/ says which option (report_error). */
enum nop_remedy {
	NOP_REMEDY_NONE,
	NOP_REMEDY_OVERWRITE,	 /* an output file exists: replace it */
	NOP_REMEDY_TAKE_OVER,	 /* someone else's top-level tracer: take it over */
	NOP_REMEDY_RECORD_GRAPH, /* a recording of hits: record calls instead */
	NOP_REMEDY_RECORD_STACKS, /* a recording of calls: record hits with their stacks */
	NOP_REMEDY_MODULE,	 /* a module's functions are named apart */
	NOP_REMEDY_NO_GATE,	 /* catch's kernel gate cannot be had: judge every call here */
	NOP_REMEDY_LAST_BOOT,	 /* the black box holds the previous boot's events: read them first */
};

struct nop_error {
	enum nop_status status;
	int sys_errno;
	enum nop_remedy remedy; /* NOP_REMEDY_NONE unless set after nop_error_set */
	char msg[1024];
};

/* err's status, errno and message (printf-style); its remedy reset to none */
void nop_error_set(struct nop_error *err, enum nop_status st, int sys_errno,
		   const char *fmt, ...) __attribute__((format(printf, 4, 5)));

/* ---- patterns ------------------------------------------------------- */
#define NOP_NAME_MAX 256 /* longer than any kernel symbol (KSYM_NAME_LEN) */

/* Check that a function pattern (name or glob) is plain data that cannot
 * be read by the kernel as filter syntax. */
int nop_pattern_check(const char *pat, struct nop_error *err);
/* 0 if mod is a module name nopctl writes (no filter syntax), else -1 with err */
int nop_module_check(const char *mod, struct nop_error *err);
/* true if pat holds a glob character (*, ?, [) */
bool nop_pattern_is_glob(const char *pat);

/* ---- user-space functions: BINARY:GLOB, through uprobes ------------- */
/* A PATTERN with a ':' names user-space functions (kernel patterns never
 * hold one). BINARY: a path, or a library name found as the traced
 * program loads it. */
bool nop_upattern(const char *pat);
/* BINARY:GLOB into bin (len bytes) and *glob (inside pat); -1 with err if malformed */
int nop_upattern_split(const char *pat, char *bin, size_t len, const char **glob,
		       struct nop_error *err);
/* Does command, or a library it links (transitively, resolved as the
 * loader would), name the library at path lib in DT_NEEDED? A library it
 * does not may still be opened at run time (dlopen). */
bool nop_ubin_loaded_by(const char *command, const char *lib);
/* bin's path into out (len bytes): pid > 0, from its /proc/PID/maps; else
 * for command (may be NULL) as the dynamic loader finds it; 0, or -1 with
 * err */
int nop_ubin_find(const char *bin, pid_t pid, const char *command, char *out, size_t len,
		  struct nop_error *err);

/* One binary's functions (ELF .symtab and .dynsym: defined, sized), by
 * address; aliases follow their function's first name (alias set). */
struct nop_usym {
	char *name;	   /* as in the symbol table (mangled) */
	char *demangled;   /* C++: demangled; NULL otherwise */
	unsigned long long vaddr, size, offset; /* offset: in the file, for the probe */
	bool global, alias;
};
struct nop_ubin {
	char path[4096], name[256]; /* name: the file's base name */
	struct nop_usym *v;
	size_t n;
	bool pie, go, has_symtab, has_dynsym;
	char debug_file[4096]; /* a stripped binary's symbols came from it ("": none) */
	size_t *frag, nfrag; /* the .cold fragments' indices in v */
	unsigned long long entry; /* e_entry: _start never returns */
	void *elf; /* libelf's handle, open until nop_ubin_free: the code */
	int fd;
};
/* b filled with path's functions (ELF symbols or debug file); 0, or -1
 * with err; free with nop_ubin_free */
int nop_ubin_load(const char *path, struct nop_ubin *b, struct nop_error *err);
/* releases what nop_ubin_load took (not b itself) */
void nop_ubin_free(struct nop_ubin *b);
const char *nop_usym_shown(const struct nop_usym *u); /* demangled, else name */
size_t nop_ubin_count(const struct nop_ubin *b, const char *glob);
/* The function whose first name is at i or one of its aliases after it,
 * whichever glob matches first (name or demangled name): its index, or -1 */
long nop_ubin_match(const struct nop_ubin *b, size_t i, const char *glob);
/* glob matched nothing: the error (exit 2) with the closest names, or what
 * a stripped binary has left */
int nop_ubin_no_match(const struct nop_ubin *b, const char *glob, struct nop_error *err);

/* The probes of a run, in nopctl's event group nopctl_<pid>: uprobes on
 * user functions, and on kernel functions (--retval, --args) kretprobes
 * or fprobes, whichever the kernel has */
enum nop_probe_kind {
	NOP_PROBE_USER,	     /* uprobe: path, offset */
	NOP_PROBE_KRETPROBE, /* kernel return value, kprobe_events "r:" */
	NOP_PROBE_FEXIT,     /* kernel return value, dynamic_events "f:...%return" */
	NOP_PROBE_FARGS,     /* kernel arguments by name (BTF), dynamic_events "f:" */
	NOP_PROBE_KARGS,     /* kernel arguments, kprobe_events "p:" fetching $argN, named from BTF */
};
struct nop_uprobe; /* one probe (session/session.h) */
struct nop_strmap;
struct nop_uprobes {
	struct nop_uprobe *v;
	size_t n, cap;
	size_t refused; /* functions left out: no instruction of theirs can be probed */
	bool share; /* probes of one binary and kind in one event (set before adding) */
	struct nop_strmap *idx; /* names and probes taken (uprobes.c) */
	size_t nbins;
	bool retval; /* exits fetch the return value (set before adding) */
	bool callers; /* hits fetch their return address too (stats --callers) */
	bool args;   /* entries fetch their parameters (set before adding) */
	/* why (set before adding): exits at their ret instructions wherever the
	 * code was read, and each function's loads of constants into the
	 * return register kept (nop_uprobe's loads) */
	bool why;
	struct nop_srclines *sl; /* its types from DWARF */
};
/* every function of b matching glob ("*": all), an entry and/or a return
 * probe each, once whatever the patterns */
int nop_uprobes_add(struct nop_uprobes *u, const struct nop_ubin *b, const char *glob, bool entry,
		    bool ret, struct nop_error *err);
/* releases u's probes and index (not u itself) */
void nop_uprobes_free(struct nop_uprobes *u);
/* how many functions u probes on entry (its probes that are no exit) */
size_t nop_uprobes_entries(const struct nop_uprobes *u);
/* What this kernel offers for kernel functions' return values and
 * arguments */
struct nop_kcaps {
	bool graph_retval; /* options/funcgraph-retval (CONFIG_FUNCTION_GRAPH_RETVAL) */
	bool kretprobe;	   /* kprobe_events */
	bool fprobe;	   /* fprobe events in dynamic_events (6.x) */
	bool btf_args;	   /* probe arguments by BTF name (CONFIG_PROBE_EVENTS_BTF_ARGS) */
	bool kprobe_args;  /* kprobe events fetch $argN (HAVE_FUNCTION_ARG_ACCESS_API) */
	bool func_args;	   /* options/func-args (6.15+): raw values, no strings */
	bool hist;	   /* hist triggers (CONFIG_HIST_TRIGGERS; not Debian 11's 5.10) */
};
/* c filled from tracing_dir: which kernel probe mechanisms exist */
void nop_kcaps_read(const char *tracing_dir, struct nop_kcaps *c);
/* a return-value probe (ret) and/or an argument probe (args) on the kernel
 * function func (a name from available_filter_functions), by the best
 * mechanism c offers; a function BTF says returns void gets none */
int nop_kprobes_add(struct nop_uprobes *u, const char *func, const char *module, bool ret,
		    bool args, const struct nop_kcaps *c, struct nop_error *err);
/* how many of u's probes are of kind */
size_t nop_kprobes_count(const struct nop_uprobes *u, enum nop_probe_kind kind);
/* Every probe event defined now (uprobe_events, kprobe_events), nopctl's
 * (owner: its pid) and others' (owner 0); returns how many */
struct nop_probe_info {
	const char *kind;   /* "uprobe", "kprobe", "fprobe" */
	char type;	    /* 'p' entry, 'r' return */
	const char *group, *event, *target;
	pid_t owner;
};
typedef void (*nop_probe_fn)(void *ctx, const struct nop_probe_info *p);
/* fn called for every probe event defined now; returns how many */
int nop_probes_list(const char *tracing_dir, nop_probe_fn fn, void *ctx);
/* nopctl's event group for pid's probes, into buf (len bytes) */
void nop_probe_group(char *buf, size_t len, pid_t pid);

/* ---- traceable functions (available_filter_functions) --------------- */
struct nop_func {
	char *name;
	char *module; /* NULL for the core kernel */
};
struct nop_funcs {
	struct nop_func *v;
	size_t n;
	/* /proc/modules' hash as the list was read: it holds while that does */
	unsigned long long modules;
};

/* f filled from available_filter_functions (cached per boot); 0, or -1
 * with err; free with nop_funcs_free */
int nop_funcs_load(const char *tracing_dir, struct nop_funcs *f, struct nop_error *err);
/* releases what nop_funcs_load took (not f itself) */
void nop_funcs_free(struct nop_funcs *f);
/* true if fn matches the glob pat (and the module mod, NULL: any) */
bool nop_func_matches(const struct nop_func *fn, const char *pat, const char *mod);
/* how many functions of f match pat (and mod) */
size_t nop_funcs_count(const struct nop_funcs *f, const char *pat, const char *mod);
/* Up to max traceable names close to pat, best first; returns how many. */
size_t nop_funcs_suggest(const struct nop_funcs *f, const char *pat,
			 const char **out, size_t max);

/* ---- kernel events (tracepoints) recorded beside the calls ---------- */
struct nop_kevent {
	char system[64], name[128]; /* as available_events names them */
	const char *filter;	    /* the kernel's filter syntax, checked (NULL: none); the caller's */
};
struct nop_kevents {
	struct nop_kevent *v;
	size_t n;
};
/* every event of available_events spec names (SYSTEM:EVENT, globs in
 * either part; one word: a system's events, or an event of any system),
 * with filter (NULL: none), added to ev once each; 0, or -1 with err
 * (exit 2: malformed, no match (the closest names), two filters for one
 * event). nopctl's own probe events are never matched. */
int nop_kevents_add(struct nop_kevents *ev, const char *tracing_dir, const char *spec, const char *filter,
		    struct nop_error *err);
/* releases what nop_kevents_add took (not ev itself) */
void nop_kevents_free(struct nop_kevents *ev);
/* 0 if filter is one line of printable ASCII no longer than the kernel
 * takes (NOP_EVENT_FILTER_MAX, tracefs.h; the kernel parses the rest),
 * else -1 with err */
int nop_event_filter_check(const char *filter, struct nop_error *err);

/* ---- CPU lists ------------------------------------------------------ */
#define NOP_MAX_CPUS 4096
struct nop_cpuset {
	uint64_t bits[NOP_MAX_CPUS / 64];
};
/* set from a CPU list ("0-3,6") of CPUs below ncpus; 0, or -1 with err */
int nop_cpuset_parse(const char *list, int ncpus, struct nop_cpuset *set, struct nop_error *err);
/* true if cpu is in set */
bool nop_cpuset_has(const struct nop_cpuset *set, int cpu);

/* ---- tracefs -------------------------------------------------------- */
/* Find tracefs, mounting it if needed. Returns the directory or NULL. */
const char *nop_tracefs_dir(struct nop_error *err);
/* An output file at path, opened for writing, blocking: created anew
 * (O_EXCL), or with overwrite an existing regular file truncated (made
 * mode when set_mode), or replaced by a new one where another user owns
 * it or it has other names. The descriptor, or -1 with errno (EINVAL:
 * not a regular file). */
int nop_output_create(const char *path, bool overwrite, mode_t mode, bool set_mode);
/* the CPUs the system is configured with (at least 1) */
int nop_ncpus(void);
const struct nop_cpuset *nop_online_cpus(void); /* NULL: unknown */
size_t nop_mem_free(void); /* the memory free now, in bytes; 0: unknown */

/* ---- the tracing session: instance or top level, journal, restore --- */
enum nop_tracer { NOP_TRACER_FUNCTION, NOP_TRACER_GRAPH, NOP_TRACER_NONE /* probe events only */ };

/* catch's kernel gate: probe events on the root functions, triggers that
 * take a snapshot of the top-level buffer when a root call fails or is
 * slow (and count root calls and such calls), a synthetic latency event
 * for slow ones. Every text is built from validated parts (a function
 * name as available_filter_functions has it, a BTF type, numbers):
 * nop_gate_plan_new (probes area); created journaled by the session (its cfg
 * .gate) after everything else, removed at its close and by reset. */
#define NOP_GATE_FUNCS 16
struct nop_gate_plan; /* its texts (session.h) */

/* the gate for catch's condition on root functions funcs (names from
 * available_filter_functions): errors (a negative errno returned) and/or
 * slower_ns; free() frees it. NULL when this kernel or function cannot
 * have one, or out of memory (why in err's message: catch then judges
 * every call in user space) */
struct nop_gate_plan *nop_gate_plan_new(const char *tracing_dir, const char *const *funcs, size_t n,
					const char *module, bool errors, unsigned long long slower_ns,
					struct nop_error *err);

struct nop_session_cfg {
	const char *tracing_dir;
	enum nop_tracer tracer;
	const char **filters; /* validated patterns */
	size_t nfilters;
	const char **notrace;
	size_t nnotrace;
	const char *module;
	const pid_t *pids; /* threads to trace; empty: none yet (see set_pids) */
	size_t npids;
	bool follow_fork;
	bool exclude_self; /* set_ftrace_notrace_pid: not our own reads of the buffers */
	bool stack;
	size_t buffer_kb; /* 0: leave as is */
	const struct nop_cpuset *cpus; /* NULL: all */
	bool force;       /* take a busy top level anyway */
	bool top_level;   /* never use an instance */
	/* function_graph */
	const char **roots; /* set_graph_function: validated names or globs */
	size_t nroots;
	int max_depth;	  /* max_graph_depth; 0: the kernel's default at the top level */
	unsigned long long thresh_us; /* tracing_thresh; 0: likewise */
	bool retval, no_sleep_time, no_irqs;
	/* user-space functions: probes created in nopctl_<pid> (journaled),
	 * enabled in the session's buffer, removed at close */
	const struct nop_uprobes *uprobes;
	/* available_filter_functions as the caller read it (NULL: read here
	 * when needed; used while the modules are as they were then) */
	const struct nop_funcs *funcs;
	const struct nop_gate_plan *gate; /* catch, in the kernel (NULL: none) */
	bool context_switches; /* sched_switch and sched_wakeup recorded too */
	bool off_cpu;	       /* sched_switch recorded: calls' time off CPU */
	bool user_stacks;      /* each probe event followed by its user stack (userstacktrace) */
	/* kernel events recorded beside the calls (nop_kevents_add), each
	 * with its filter written to its own filter file first */
	const struct nop_kevent *events;
	size_t nevents;
	/* asked between set-up steps: true stops the set-up there (open
	 * fails with EINTR, everything set restored); NULL: never */
	bool (*stop)(void *ctx);
	void *stop_ctx;
	/* an instance the kernel made (the persistent one of trace_instance=):
	 * used as it is, never created or removed, its every file journaled
	 * as a top-level one; NULL: nopctl's own instance or the top level */
	const char *adopt;
};

struct nop_session;

/* *s a session as cfg asks (instance, else the top level), journaled; 0,
 * or -1 with err and nothing changed */
int nop_session_open(struct nop_session **s, const struct nop_session_cfg *cfg,
		     struct nop_error *err);
/* tracing on in the session's buffer; 0, or -1 with err */
int nop_session_start(struct nop_session *s, struct nop_error *err);
/* tracing off in the session's buffer; 0, or -1 with err */
int nop_session_stop(struct nop_session *s, struct nop_error *err);
/* Restores every file the session touched and removes its instance. A
 * file someone else changed while the session ran keeps their value:
 * named in left (if not NULL), "" when there was none. */
int nop_session_close(struct nop_session *s, char *left, size_t leftlen, struct nop_error *err);
const char *nop_session_dir(const struct nop_session *s); /* buffer dir */
/* Another user's shared setting that shapes this capture (an instance
 * shares max_graph_depth and tracing_thresh), or NULL. */
const char *nop_session_note(const struct nop_session *s);
/* Does a task of the session's pid list (-p tasks and the children the
 * kernel follows) still run? A zombie has ended. */
bool nop_session_tasks_alive(struct nop_session *s);
const char *nop_session_instance(const struct nop_session *s); /* NULL: top level */

/* Journal and crash recovery (/run/nopctl). */
const char *nop_journal_dir(void);
/* dir, a directory for a run's output files: made 0700 if absent, else
 * refused (exit 2) if a symlink, not a directory, another user's (not
 * root's) or writable by others without the sticky bit; 0, or -1 with err */
int nop_output_dir(const char *dir, struct nop_error *err);
struct nop_reset_report {
	int restored_journals;
	int removed_instances;
	int live_sessions;
	int left_files; /* changed by someone since nopctl set them, or not restorable: */
	char left[1024];
};
/* every dead nopctl's journal replayed and its instances removed, counted
 * in rep; 0, or -1 with err */
int nop_reset_stale(const char *tracing_dir, struct nop_reset_report *rep,
		    struct nop_error *err);

/* What belongs to which nopctl (owners.c; whether its owner still runs:
 * journal.c): instances "nopctl-<pid>", journals "<pid>.journal". A walk visits each entry once:
 *	struct nop_walk w = { 0 };
 *	while (nop_walk_instances(&w, dir)) use(w.name, w.path, w.owner);
 * to its end (one stopped early is closed by nop_walk_end, session.h). */
bool nop_owner_alive(pid_t pid); /* its journal is held by a running session */
bool nop_tag_alive(const char *tag); /* the same for a journal's tag (struct nop_walk) */
struct nop_walk {
	void *dir; /* open while walking */
	char base[4200], name[256], path[4600];
	pid_t owner; /* the nopctl it belongs to; 0: not nopctl's */
	char tag[48]; /* a journal's: "<pid>" or, from a nested PID namespace, "<pid>-ns<inode>" */
};
bool nop_walk_instances(struct nop_walk *w, const char *tracing_dir); /* every instance */
bool nop_walk_journals(struct nop_walk *w, const char *journal_dir); /* nopctl's only */

/* Per-CPU lost-event counters from per_cpu/cpuN/stats. */
struct nop_cpu_stats {
	unsigned long long entries, overrun, commit_overrun, dropped, read, bytes;
};
/* how full the fullest CPU's buffer is, in % of its size (-1: unknown) */
int nop_buffer_fill(const char *buffer_dir, const struct nop_cpuset *cpus);
/* the counters summed over the CPUs of a buffer (cpus NULL: all) */
void nop_buffer_counts(const char *buffer_dir, const struct nop_cpuset *cpus,
		       struct nop_cpu_stats *sum);
/* A buffer's settings as status shows them: its tracer, whether it is
 * on, its filter lists (entries only, joined by spaces; has: the buffer
 * has the file) and its counters summed. */
enum { NOP_LIST_FILTER, NOP_LIST_NOTRACE, NOP_LIST_PID, NOP_LIST_GRAPH, NOP_LISTS };
extern const char *const nop_list_files[NOP_LISTS]; /* set_ftrace_filter, ... */
struct nop_buffer_state {
	char tracer[64];
	bool on;
	bool has[NOP_LISTS];
	char *list[NOP_LISTS]; /* "" when empty */
	size_t nlist[NOP_LISTS];
	struct nop_cpu_stats counts;
};
/* s filled from buffer_dir (what cannot be read: empty); 0, or -1 out of
 * memory; free with nop_buffer_state_free */
int nop_buffer_state_read(const char *buffer_dir, struct nop_buffer_state *s);
void nop_buffer_state_free(struct nop_buffer_state *s);



/* Symbols and task names: the address of a hit to a name, cached. */
struct nop_resolver;
/* a resolver for tracing_dir's tasks; NULL with err; free with nop_resolver_free */
struct nop_resolver *nop_resolver_new(const char *tracing_dir, struct nop_error *err);
/* kernel symbols read from path now; 0, or -1 with err */
int nop_resolver_load_kallsyms(struct nop_resolver *r, const char *path, struct nop_error *err);
/* The same, at the first lookup: a run that names no address never reads
 * the file (a slow one: the kernel formats ~150,000 lines). */
void nop_resolver_defer_kallsyms(struct nop_resolver *r, const char *path);
/* user functions (probes' keys): their names, and the binary's base name
 * (NULL for a kernel address) */
void nop_resolver_set_probes(struct nop_resolver *r, const struct nop_uprobes *u);
/* releases r and its caches */
void nop_resolver_free(struct nop_resolver *r);


/* ---- trace.dat (trace-cmd's format, version 7 or 6) ------------------ */
struct nop_dat;
/* page_size: the ring buffer's; formats are read from tracing_dir at the
 * end, symbols from kallsyms (NULL: /proc/kallsyms) */
int nop_dat_open(struct nop_dat **w, const char *path, bool overwrite, const char *tracing_dir,
		 const char *kallsyms, int page_size, struct nop_error *err);
/* What a recording's file says of its session besides the pages: the
 * formats of the events its pages hold, and its layout */
struct nop_dat_desc {
	bool uncompressed; /* version 6 (what trace-cmd before 3.0 reads), not 7 with zstd */
	bool follows;	   /* the session follows tasks (COMMAND, -p): fork and exec events */
	bool switches;	   /* sched_switch and sched_wakeup events */
	const struct nop_kevent *events; /* kernel events (-e) */
	size_t nevents;
	const char *group; /* the session's probe events' group (nopctl_<pid>) */
	const struct nop_uprobes *probes; /* NULL: none */
	const char *cmdlines; /* the task names kept, "PID NAME\n" each; NULL: saved_cmdlines' */
};
/* w describes d's session: called once, before the first page and before
 * nop_dat_bound (whose header share it sets); 0, or -1 (out of memory) */
int nop_dat_describe(struct nop_dat *w, const struct nop_dat_desc *d);
/* the trace.dat written whole (formats, symbols, options, pages); 0, or -1 with err */
int nop_dat_finish(struct nop_dat *w, struct nop_error *err);
/* the file is linked under its name only once whole (at nop_dat_finish;
 * numbered: a name found taken then is skipped for the next number);
 * keep: false removes it even then */
void nop_dat_free(struct nop_dat *w, bool keep);
/* Bounded recordings. Before the first page: files of at most max_size bytes (0: no limit).
 * numbered: w was opened as base.1 and a file base.N+1 begins past
 * max_size or at nop_dat_next, the newest keep files stay (0: all);
 * not numbered: pages past max_size are left out (nop_dat_full). 0, or
 * -1 with err (max_size too small for the header). */
int nop_dat_bound(struct nop_dat *w, const char *base, unsigned long long max_size, bool numbered,
		  unsigned keep, bool overwrite, struct nop_error *err);
/* pages were left out at max_size: the recording is full */
bool nop_dat_full(const struct nop_dat *w);
/* numbered: the file written so far finished, the next one begun; 0, or
 * -1 with err */
int nop_dat_next(struct nop_dat *w, struct nop_error *err);
/* numbered: how many names were skipped (taken when a file was whole:
 * a link, a file put there), the last one and why (errno) */
unsigned long long nop_dat_skipped(const struct nop_dat *w, const char **name, int *why);
/* why a page could not be saved past a file's end (a new file failed) */
const struct nop_error *nop_dat_error(const struct nop_dat *w);
/* the files whole under their names and kept, oldest first (the last
 * once nop_dat_finish linked it): the i-th's path into buf and its size;
 * false past the last. *removed: how many older ones went. */
bool nop_dat_file(struct nop_dat *w, size_t i, char *buf, size_t len, unsigned long long *size,
		  unsigned long long *removed);



/* ---- the black box: the persistent instance (blackbox/) --------------- */
/* The instance the kernel command line made persistent
 * (trace_instance=NAME@RESERVE: its buffer in memory a warm reboot keeps) */
struct nop_bbox {
	char name[64];
	char dir[4200];
	unsigned long long size_kb;	/* buffer_total_size_kb */
	unsigned long long entries;	/* events it holds now */
	bool last_boot;			/* they are the previous boot's: nothing traced there yet this boot */
	char tracer[64];		/* its current_tracer */
	bool armed;			/* nopctl armed it this boot (its journal is kept) */
	char armed_by[600];		/* who armed it, when and with what ("": not armed) */
	char saved[4200];		/* the previous boot's events as this boot saved them ("": not yet) */
	int others;			/* further persistent instances (the first by name is this) */
};
/* b filled: 0; none this boot: 1 with err saying why and what the kernel
 * command line needs (NOP_EKERNEL); -1 with err */
int nop_bbox_find(const char *tracing_dir, struct nop_bbox *b, struct nop_error *err);
/* What arming traces: a tracer with filters, a task's pids (followed into
 * their children) or all; what: how it was asked, for status */
struct nop_bbox_arm {
	enum nop_tracer tracer;
	const char **filters, **notrace;
	size_t nfilters, nnotrace;
	const char *module;
	const pid_t *pids;
	size_t npids;
	const struct nop_funcs *funcs; /* as the caller read them, or NULL */
	bool force;		       /* unread events of the previous boot, or another's tracer: replaced */
	const char *what;
	unsigned measure_ms;	       /* the rate measured this long once armed (0: not) */
};
/* what the reserved memory holds at the rate measured when arming */
struct nop_bbox_sizing {
	unsigned long long bytes, events; /* written while measured */
	unsigned long long ms, size_bytes;
	double seconds;			  /* of history the buffer holds (0: nothing was written) */
};
/* b armed as a asks, tracing left on after nopctl exits, its prior state
 * journaled for nop_bbox_disarm; its tasks' names written into its buffer.
 * 0, or -1 with err and nothing changed */
int nop_bbox_arm(const char *tracing_dir, struct nop_bbox *b, const struct nop_bbox_arm *a,
		 struct nop_bbox_sizing *sz, struct nop_error *err);
/* b put back as it was found and its buffer emptied: 0; 1 it was not
 * armed by nopctl this boot; -1 with err; left: files left as they are */
int nop_bbox_disarm(const char *tracing_dir, struct nop_bbox *b, char *left, size_t leftlen, struct nop_error *err);
/* The previous boot's events read (the kernel hands them over once) into
 * b->saved, a trace.dat named and symbolized as that boot had them, unless
 * this boot saved them already. 0, or -1 with err; *unnamed: kernel
 * modules of that boot whose addresses cannot be named now, (size_t)-1
 * where the kernel does not say where they were (6.12), 0 for a file
 * saved before (NULL: not asked) */
int nop_bbox_save(const char *tracing_dir, struct nop_bbox *b, size_t *unnamed, struct nop_error *err);
/* Where a saved black box stopped: each CPU's last event and each task's,
 * and whether that call was still open (entered, never returned) */
struct nop_bbox_end {
	bool per_cpu; /* a CPU's last (else a task's) */
	int cpu, pid;
	unsigned long long ts;
	char comm[32], func[160];
	bool open;
};
/* fn for each, CPUs first; 0, or -1 with err (or fn's non-zero result) */
int nop_bbox_ends(const char *path, int (*fn)(void *ctx, const struct nop_bbox_end *e), void *ctx,
		  struct nop_error *err);

/* ---- output sinks --------------------------------------------------- */
/* What is shown (the view) and how it is written (the encoding): lines and
 * stats come as text or JSON; each picture has its own format. */
struct nop_profile;
enum nop_view {
	NOP_VIEW_LINES,	 /* one line per event, or the call tree */
	NOP_VIEW_FOLDED, /* flame-graph folded stacks: a;b;c <self ns> */
	NOP_VIEW_DOT,	 /* Graphviz call graph */
	NOP_VIEW_CHROME, /* Chrome trace-event JSON (Perfetto, chrome://tracing) */
	NOP_VIEW_STATS,	 /* per-function summary at the end */
	NOP_VIEW_CALLERS, /* per function, its hits' unique kernel stacks, counted */
	NOP_VIEW_PROFILE, /* nothing written: calls kept in a profile (nopctl diff) */
	NOP_VIEW_WHY,	 /* why: a line per failure, where its error began; a summary by origin */
};
enum nop_encoding { NOP_ENC_TEXT, NOP_ENC_JSON };

struct nop_summary {
	unsigned long long events;
	unsigned long long kevents; /* kernel events shown (-e) */
	unsigned long long origins; /* why: failed root calls whose error's origin was found */
	bool kevents_asked;	    /* some were asked for (set before nop_pipeline_finish) */
	/* the time root calls (depth 0) took, and of it the time their task
	 * was off CPU, by state: running (preempted), sleeping, D, other */
	unsigned long long root_ns, root_off[4];
	/* off-CPU intervals whose switch back the kernel did not record
	 * (credited only where the task's next event bounds them), and whose
	 * switch out it did not record (credited from the task's last event) */
	unsigned long long offcpu_unpaired, offcpu_unpaired_out;
	long long lost_pages; /* events reported lost in page headers */
	unsigned long long overrun, dropped; /* from per-CPU stats */
	bool live;		   /* a capture, not a recording's report */
	unsigned long long unread; /* left in the buffer after the last read */
	int peak_fill;		   /* the fullest a CPU's buffer was seen, % */
	/* graph: calls shown without their entry (began before the capture
	 * or in a gap) or without their exit */
	bool graph;
	unsigned long long no_entry, no_exit;
	/* of those, the calls that show an event the kernel lost: an entry
	 * or exit missing in the middle of the capture */
	unsigned long long gaps;
	/* kernel probes' values (--retval, --args): calls shown without the
	 * value they were to get, and values that matched no call */
	bool joined;
	unsigned long long values_missing, values_unclaimed;
	unsigned long long duration_ns;
	int exit_status; /* of COMMAND, -1 if none */
	const char *stop_reason;
	/* tracing chosen tasks (-p, COMMAND): events counts theirs; calls of
	 * other tasks in their half of a context switch are counted apart */
	bool by_task;
	unsigned long long other_tasks;
	const char *warning; /* JSON only (text says it on stderr itself) */
	/* -t: calls under it were not recorded, their time is in their
	 * callers' self time */
	unsigned long long thresh_ns;
	bool returns_only; /* only returns came (tracing_thresh), -t or not */
	/* catch: root calls that ended, and the ones caught (shown whole) */
	bool catching;
	unsigned long long roots, caught;
	unsigned long long not_whole; /* caught, but too big to keep whole: a loss */
	/* --outliers: calls of each root function before it is judged, and
	 * the root calls that came in those warm-ups */
	unsigned long long warmup, warming;
	/* catch's kernel gate (set before nop_pipeline_finish): the buffer is
	 * read only in snapshots, what lies between them is overwritten by
	 * design, so roots and hits are the kernel's counts; missed: calls
	 * that met the condition and were not shown (a loss) */
	bool gated;
	unsigned long long snapshots, hits, missed;
};


/* stats: how to sort, and one function's latency histogram */
enum nop_sort { NOP_SORT_TOTAL, NOP_SORT_SELF, NOP_SORT_CALLS, NOP_SORT_AVG, NOP_SORT_MAX,
		NOP_SORT_NAME };
struct nop_stats_cfg {
	enum nop_sort sort;
	const char *hist_func; /* NULL: no histogram */
	bool folded;	       /* NOP_VIEW_CALLERS: as folded stacks (a flame graph's input) */
	/* figures per interval (nop_pipeline_tick), then the whole run's;
	 * live: the intervals' rows are kept for nop_pipeline_rows, not printed */
	bool interval, live;
};

/* An interval's end: its index (from 1), wall-clock time (CLOCK_REALTIME
 * ns) and length */
struct nop_tick {
	unsigned long long index, wall_ns, span_ns;
};

/* a duration as text shows it ("1.234 ms") into buf */
void nop_fmt_duration(char *buf, size_t len, unsigned long long ns);

/* One function's figures over the last interval (nop_pipeline_rows) */
struct nop_stat_row {
	const char *name, *binary; /* binary: a user function's, else NULL */
	unsigned long long calls, total, self, max, p99;
	unsigned long long returned, errors; /* calls whose return value came; of them failed */
};

/* calls by duration, power-of-two wide: log2[e] holds [2^e, 2^(e+1)) ns
 * (log2[0] [0, 2) ns) */
#define NOP_LOG2_BUCKETS 64

/* the largest count, and the first and last buckets with calls (none:
 * *first > *last) */
unsigned long long nop_log2_range(const unsigned long long log2[NOP_LOG2_BUCKETS], int *first, int *last);
/* bucket e of count calls as a histogram's text line ("  1.024 us -
 * 2.048 us   |        123 | ####"), its bar peak's fraction of 40 marks */
void nop_fmt_log2_line(char *buf, size_t len, int e, unsigned long long count, unsigned long long peak);

struct nop_sink_cfg {
	enum nop_view view;
	enum nop_encoding enc;
	FILE *out;  /* the stream */
	FILE *diag; /* text summaries (stderr): out stays pure events */
	struct nop_resolver *res;
	struct nop_stats_cfg stats; /* NOP_VIEW_STATS */
	bool quiet;		    /* no text summary */
	struct nop_profile *profile; /* NOP_VIEW_PROFILE: filled, the caller's */
	/* NOP_VIEW_PROFILE: after each timed call put in the profile (NULL:
	 * none); the caller may take the durations gathered out of it (diff
	 * keeps bounded summaries). 0, or -1 out of memory */
	int (*profile_timed)(void *ctx, struct nop_profile *p);
	void *profile_ctx;
};

/* ---- sources: where events come from ---------------------------------
 * A source emits a bounded round of events in time order per drain and
 * says whether more may be waiting; a live one also gives the descriptors
 * to poll. Sources: the live per-CPU buffers of a session (source_live.c),
 * a trace.dat of nopctl or trace-cmd (source_dat.c). lib/README says
 * what a new one implements. */
struct nop_source;
/* the session's buffers (buffer_dir), CPUs in cpus (NULL: all) */
int nop_source_live(struct nop_source **src, const char *buffer_dir, const struct nop_cpuset *cpus,
		    struct nop_error *err);
/* the same of the buffer's snapshot (catch's gate): each drain reads what
 * the snapshot holds to its end */
int nop_source_snapshot(struct nop_source **src, const char *buffer_dir, const struct nop_cpuset *cpus,
			struct nop_error *err);
/* record: every page read goes to the trace.dat as it is, only counted:
 * as it comes (count_now, for -c) or after the capture
 * (nop_pipeline_count_saved) */
int nop_source_record_to(struct nop_source *src, struct nop_dat *dat, bool count_now);
/* the ring buffer's page size the source reads */
int nop_source_page_size(const struct nop_source *src);
/* the live source decodes the session's probe events (user functions) */
int nop_source_probes(struct nop_source *src, const char *buffer_dir, const struct nop_uprobes *u,
		      struct nop_error *err);
/* the live source decodes these kernel events (nop_kevents_add's) */
int nop_source_events(struct nop_source *src, const char *buffer_dir, const struct nop_kevent *k, size_t n,
		      struct nop_error *err);
/* a trace.dat; *res: the names it carries (kallsyms, task names), to be
 * freed before the source is closed */
int nop_source_file(struct nop_source **src, const char *path, struct nop_resolver **res,
		    struct nop_error *err);
/* how many descriptors to poll for new data (0: a file) */
int nop_source_nfds(const struct nop_source *src);
/* the i-th descriptor to poll */
int nop_source_fd(const struct nop_source *src, int i);
/* live: how long, up to most ms, to wait for the next round: less when a
 * CPU's buffer fills fast enough to be a quarter full sooner */
int nop_source_wait_ms(const struct nop_source *src, int most);
/* live: tracing is off; drain until *more is false to have everything */
void nop_source_end(struct nop_source *src);
/* live: the next drain reads every CPU until it is empty, pages the
 * kernel is still writing too (an interval's or a file's end): what was
 * written by now is read */
void nop_source_catch_up(struct nop_source *src);
/* releases src, its decoder and its reading state */
void nop_source_close(struct nop_source *src);

/* ---- the pipeline: a source's events to a sink -----------------------
 * decoder output -> call-graph engine (graph views) -> root filter ->
 * traced-task filter -> counters -> sink. Results of a drain: */
enum nop_flow { NOP_FLOW_FAIL = -1, NOP_FLOW_GO = 0, NOP_FLOW_STOP = 1 };
enum nop_stop {
	NOP_STOP_NONE, NOP_STOP_COMMAND, NOP_STOP_DURATION, NOP_STOP_COUNT, NOP_STOP_SIGNAL,
	NOP_STOP_OUTPUT_CLOSED, NOP_STOP_OUTPUT_ERROR, NOP_STOP_END, NOP_STOP_PROCESS_EXIT,
	NOP_STOP_QUIT, /* the user quit a live view */
	NOP_STOP_FULL, /* a recording reached its size */
};
struct nop_pipeline_cfg {
	struct nop_sink_cfg sink;
	const char *out_name;	 /* -o FILE, for messages (NULL: stdout) */
	bool graph;	 /* function_graph events through the call-graph engine */
	bool recording;	 /* pages go to a trace.dat: events only counted */
	const char *const *roots; /* graph: trees whose outermost call matches */
	size_t nroots;
	unsigned long long count; /* stop after this many (0: no limit) */
	/* graph under tracing_thresh (-t): only returns come, trees are built
	 * from them (0: entries and returns) */
	unsigned long long thresh_ns;
	/* a recording: whether it holds only returns (a tracing_thresh
	 * capture) is found from its events */
	bool recorded;
	/* user functions' calls (uprobes): -D levels from the root (0: all);
	 * the kernel applies -D and -t to its own, the pipeline to these */
	int max_depth;
	/* tracing chosen tasks: only theirs counted; other tasks' calls (their
	 * half of a context switch) shown marked in the tree, else left out */
	struct nop_session *by_task;
	bool show_others;
	/* the run's probes: kernel ones' return values and arguments are
	 * joined to their calls (NULL: none) */
	const struct nop_uprobes *probes;
	/* --errors: only calls that returned a negative errno, and in call
	 * trees the calls they were made from */
	bool errors;
	/* why: of each tree whose root failed, only the calls from the root
	 * down to where its error began, then an ORIGIN item (errors too) */
	bool why;
	/* catch: trees held until their root (outermost call) ends, then
	 * shown whole if it lasted longer than slower_ns (0: no such test) or,
	 * with errors, failed; count is then of trees caught */
	bool catching;
	/* catch with the kernel's gate: the buffer is read in the windows the
	 * gate opens; what it overwrote between them is no loss (no lost
	 * event shown; the summary counts what was missed) */
	bool gated;
	unsigned long long slower_ns;
	/* catch: also a root slower than its function's running p99, judged
	 * after this many calls of it (0: not) */
	unsigned long long outliers;
	/* catch -o DIR: each caught tree written by catch_file (seq: the
	 * catch's number; from: its first event's stamp; it ends in what was
	 * read so far) as a file it names in path (path left "": no file for
	 * this one, the run goes on; 0, or -1 with errno); the trees then go
	 * there only, the output gets the catch lines */
	int (*catch_file)(void *ctx, unsigned long long seq, unsigned long long from, char *path, size_t len);
	void *catch_ctx;
};
struct nop_pipeline;
/* *p a pipeline as cfg asks (view, filters, stop conditions); 0, or -1
 * with err; free with nop_pipeline_free */
int nop_pipeline_new(struct nop_pipeline **p, const struct nop_pipeline_cfg *cfg,
		     struct nop_error *err);
/* One round of the source's events; *more: call again. */
enum nop_flow nop_pipeline_drain(struct nop_pipeline *p, struct nop_source *src, bool *more,
				 struct nop_error *err);
/* src's rounds until it says empty, or -c's count is reached; 0, or -1
 * with err */
int nop_pipeline_drain_all(struct nop_pipeline *p, struct nop_source *src, struct nop_error *err);
/* A recording's events, counted from the pages it saved (after the
 * capture; nop_source_record_to without count_now) */
enum nop_flow nop_pipeline_count_saved(struct nop_pipeline *p, struct nop_source *src,
				       struct nop_dat *dat, struct nop_error *err);
/* What the sink has written so far, out (a live run, after each round). */
enum nop_flow nop_pipeline_flush(struct nop_pipeline *p, struct nop_error *err);
/* An interval ended: the stats sink prints its figures (text: a dated
 * table; JSON: an interval_stats object per function) or, live, keeps
 * them for nop_pipeline_rows; then they join the whole run's. 0, or -1
 * with err (the output failed). No stats sink: nothing. */
int nop_pipeline_tick(struct nop_pipeline *p, const struct nop_tick *t, struct nop_error *err);
/* The last interval's rows (functions with calls in it), in no order;
 * owned by p, valid until the next tick. NULL with *n 0: none. */
const struct nop_stat_row *nop_pipeline_rows(const struct nop_pipeline *p, size_t *n);
/* One function's figures over the whole run so far, to the last tick (its
 * row's name, as nop_pipeline_rows gives it), into *row (name: the one
 * given) and log2. false: no such function yet, or no stats sink. */
bool nop_pipeline_func(const struct nop_pipeline *p, const char *name, struct nop_stat_row *row,
		       unsigned long long log2[NOP_LOG2_BUCKETS]);
/* End the run for this reason (the first one given counts; signo: SIGNAL). */
void nop_pipeline_stop(struct nop_pipeline *p, enum nop_stop why, int signo);
/* catch: the trees open now are caught (a user saw a hang), at the next
 * event; nothing otherwise */
void nop_pipeline_catch_now(struct nop_pipeline *p);
/* the output's reader went away (| head), whatever stopped the run first:
 * a normal end (exit 0) */
bool nop_pipeline_output_closed(const struct nop_pipeline *p);
/* -c N reached (whatever stopped the run first) */
bool nop_pipeline_count_reached(const struct nop_pipeline *p);
/* why the pipeline stopped (NOP_STOP_NONE while it runs) */
enum nop_stop nop_pipeline_stopped(const struct nop_pipeline *p);
/* The events' time span (a file's duration). */
unsigned long long nop_pipeline_span(const struct nop_pipeline *p);
/* The end: calls still open, then the summary (sum gives duration, buffer
 * counters and exit status; the pipeline adds its own counts), flushed.
 * A closed output is no error (| head); a failed one is. */
int nop_pipeline_finish(struct nop_pipeline *p, struct nop_summary *sum, struct nop_error *err);
/* the counts so far; owned by p */
const struct nop_summary *nop_pipeline_summary(const struct nop_pipeline *p);
/* releases p, its sink and its engines (the output FILE stays the caller's) */
void nop_pipeline_free(struct nop_pipeline *p);

/* catch -o DIR (catchfiles.c): each caught call's pages, and before_ns
 * before it, as DIR/catch-NNNN.dat, described as desc says. The pages
 * come from the live sources it keeps (nop_catchfiles_keep) in a ring
 * per CPU twice buffer_kb (0: 1408) long. write is the pipeline's
 * catch_file (ctx: the catch files); a name refused there (a link, a
 * file put there) skips that file, told to skipped, and the run goes on.
 * desc's events and probes must outlive cf; its group is copied */
struct nop_catchfiles_cfg {
	const char *dir;
	unsigned long long before_ns;
	bool overwrite;
	const char *tracing_dir;
	int page_size;
	size_t buffer_kb;
	struct nop_dat_desc desc;
	void (*skipped)(void *ctx, const char *path, const char *why);
	void *ctx;
};
struct nop_catchfiles;
/* 0 with *cf (nop_catchfiles_free frees), or -1 with err */
int nop_catchfiles_new(struct nop_catchfiles **cf, const struct nop_catchfiles_cfg *cfg, struct nop_error *err);
/* src's pages kept as they are read, before they are decoded */
void nop_catchfiles_keep(struct nop_catchfiles *cf, struct nop_source *src);
int nop_catchfiles_write(void *ctx, unsigned long long seq, unsigned long long from, char *path, size_t len);
/* the files skipped (cf NULL: 0) */
unsigned long long nop_catchfiles_skipped(const struct nop_catchfiles *cf);
void nop_catchfiles_free(struct nop_catchfiles *cf);

/* catch with the kernel's gate (gated.c), as a capture's loop drives it:
 * nothing read until one of the session's snapshot triggers fires; then
 * its snapshot (snap) through p, then every event of the buffer until
 * the kernel counts no new hits for a second and no caught tree is open;
 * then the triggers armed again. NULL: out of memory */
struct nop_gated;
struct nop_gated *nop_gated_new(struct nop_session *s, struct nop_source *snap, struct nop_pipeline *p);
/* a look: a fired trigger's snapshot read, and one taken and read when
 * asked (SIGUSR1: the trees open now); 0, or -1 with err */
int nop_gated_look(struct nop_gated *g, bool asked, struct nop_error *err);
/* reading every event since a snapshot (the caller drains the buffer) */
bool nop_gated_following(const struct nop_gated *g);
/* after a round that read all there was: following ends, the triggers
 * armed again, once the hits stopped; 0, or -1 with err */
int nop_gated_settle(struct nop_gated *g, struct nop_error *err);
/* tracing stopped: a fired trigger's snapshot read (read: the output
 * still wants it), the kernel's final counts of root calls and of hits,
 * and *rest: whether the buffer holds events to read (following, or hits
 * since the last look); 0, or -1 with err */
int nop_gated_end(struct nop_gated *g, bool read, unsigned long long *roots, unsigned long long *hits,
		  bool *rest, struct nop_error *err);
/* the snapshots read */
unsigned long long nop_gated_snapshots(const struct nop_gated *g);
void nop_gated_free(struct nop_gated *g);

/* ---- nopctl diff: what changed between two sets of runs -------------- */
enum nop_diff_format { NOP_DIFF_TEXT, NOP_DIFF_JSON, NOP_DIFF_FOLDED, NOP_DIFF_SVG };
struct nop_diff_cfg {
	/* each side's runs: trace.dat files (nopctl's or trace-cmd's) or
	 * nopctl's JSON output of graph, stats or trace */
	const char *const *a, *const *b;
	size_t na, nb;
	enum nop_diff_format format;
	FILE *out;
	bool all;	   /* unchanged functions and paths too */
	double alpha;	   /* the time test's level (0: 0.001) */
	double min_change; /* the least relative move of a median that counts (0: 0.2;
			    * one run a side 0.5) */
};
struct nop_diff_result {
	size_t funcs_changed, paths_changed;
	unsigned long long lost;     /* events the inputs lost */
	unsigned long long untimed;  /* calls whose time the inputs lack */
};
/* Compares side a with side b and writes it to cfg->out; 0 (res: what
 * changed, what the inputs lost), or -1 with err. */
int nop_diff(const struct nop_diff_cfg *cfg, struct nop_diff_result *res, struct nop_error *err);

/* JSON string escaping (RFC 8259), used by every JSON writer: valid
 * UTF-8 as is, control bytes and bytes of no valid UTF-8 escaped. */
void nop_json_str(FILE *out, const char *s);
/* s as text shows a string nopctl did not write (a control byte, C1
 * too, or a byte of no valid UTF-8 as \xNN), written to out */
void nop_text_put(FILE *out, const char *s);

/* One print call per field, for text and JSON alike: in JSON mode the key
 * and value, in text mode the value through the text format (nothing when
 * it is NULL). Objects are one line. A key is a string constant: its
 * quoted form is kept by its address (one thread). */
struct nop_fields {
	FILE *out;
	bool json;
	int n, nitems;
	size_t len;	/* JSON: the line is built in buf, written at close */
	size_t cap;
	char *buf;	/* own, or a sink's buffer of lines (nop_fields_open_at) */
	bool keep;	/* close leaves the line in buf for its owner to write */
	char own[1024];
};

/* starts a record on out: text, or a JSON object when json */
void nop_fields_open(struct nop_fields *f, FILE *out, bool json);
/* ends the record (newline; the JSON object closed) and writes it */
void nop_fields_close(struct nop_fields *f);
/* a number: JSON "key":v, text fmt with v (NULL fmt: JSON only) */
void nop_field_u64(struct nop_fields *f, const char *key, const char *fmt, unsigned long long v);
/* JSON only: a value already in JSON (an object nopctl built) */
void nop_field_json(struct nop_fields *f, const char *key, const char *json);
/* a signed number, as nop_field_u64 */
void nop_field_i64(struct nop_fields *f, const char *key, const char *fmt, long long v);
/* a string: JSON "key":"v" quoted, text fmt with v (NULL fmt: JSON only) */
void nop_field_str(struct nop_fields *f, const char *key, const char *fmt, const char *v);
/* text: fmt as it is (no conversion), or nothing when NULL */
void nop_field_bool(struct nop_fields *f, const char *key, const char *fmt, bool v);

/* ---- lockdown ----------------------------------------------------------- */
/* "none", "integrity", "confidentiality"; "absent" (no lockdown LSM) or
 * "unknown" (securityfs unreadable and not on the kernel command line) */
const char *nop_lockdown_mode(void);

/* ---- doctor: every way tracing can fail here, one finding per check ---- */
enum nop_check { NOP_CHECK_OK, NOP_CHECK_WARN, NOP_CHECK_FAIL };
struct nop_finding {
	const char *id;	     /* stable, for scripts: "tracefs", "tracer.function", ... */
	const char *subject; /* the PATTERN a pattern.* finding is about, else NULL */
	enum nop_check status;
	const char *seen;    /* what was found */
	const char *fix;     /* what to do; NULL when nothing */
};
typedef void (*nop_finding_fn)(void *ctx, const struct nop_finding *f);
/* Runs every check (briefly enabling each tracer, confined to one
 * function, in a scratch session it journals and restores) and every
 * PATTERN's; leaves tracefs, and its mount, as it found them. */
int nop_doctor(const char *const *patterns, size_t n, nop_finding_fn fn, void *ctx);

/* The nopctl that holds the top level now (its top-level.lock): its pid,
 * 0 if none does. */
int nop_top_level_holder(void);

/* ---- inspect: ftrace's patch site of one function ------------------------ */
/* INT3: x86-64's ftrace patching it; BRK: arm64's brk in the call site (a kprobe) */
enum nop_site_state { NOP_SITE_NOP, NOP_SITE_CALL, NOP_SITE_JMP, NOP_SITE_INT3, NOP_SITE_OTHER, NOP_SITE_BRK };
struct nop_site {
	char func[NOP_NAME_MAX];
	char module[64];
	unsigned long long addr;      /* the symbol (kallsyms) */
	unsigned long long site;      /* the patched instruction */
	const char *site_from;	      /* where site came from */
	unsigned char bytes[16];      /* from addr */
	bool endbr;		      /* endbr64 first (IBT) */
	bool sealed;		      /* an endbr64 objtool sealed into a NOP */
	enum nop_site_state state;
	unsigned long long target;    /* call/jmp */
	char target_sym[160];	      /* "ftrace_caller+0x0" or "" */
	char enabled[512];	      /* its enabled_functions record, "" if none */
};
/* s as a word ("nop", "call", ...); static */
const char *nop_site_state_name(enum nop_site_state s);
/* what s means on this machine, a phrase; static */
const char *nop_site_meaning(enum nop_site_state s);
/* site filled with func's patch site as the CPU sees it (/proc/kcore); 0, or -1 with err */
int nop_inspect(const char *tracing_dir, const char *func, struct nop_site *site,
		struct nop_error *err);

#endif
