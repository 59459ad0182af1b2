/* session/session.h - the session area of libnopctl: owning kernel state
 * and giving it back: sessions, the journal and its replay, shared
 * settings, probe events, reset. Its header includes the one of the area
 * before it (lib/README.md: the order): a file sees its own area and those
 * below, never one above. */
#ifndef NOPCTL_AREA_SESSION_H
#define NOPCTL_AREA_SESSION_H

#include "tracefs/tracefs.h"

/* catch's gate (nopctl.h): its texts, built from validated parts */
#define NOP_GATE_TEXT 320
struct nop_gate_plan {
	char group[64];			     /* the probes' group (the session's) */
	char probes[2 * NOP_GATE_FUNCS][NOP_GATE_TEXT]; /* kprobe_events lines, created in order */
	size_t nprobes;
	char synth[NOP_GATE_TEXT];	     /* synthetic_events line, or "" */
	char synth_name[80];
	struct nop_gate_trigger {
		char rel[160];		     /* events/GROUP/EVENT/trigger */
		char text[NOP_GATE_TEXT];
	} trig[4 * NOP_GATE_FUNCS + 4];	     /* appended in order */
	size_t ntrig;
	/* of trig: the snapshot triggers ("snapshot:1 if ..."), armed again
	 * after each time they fire */
	size_t arm[NOP_GATE_FUNCS + 1];
	size_t narm;
	/* hist files ("events/.../hist") and the trigger whose counts they
	 * sum: every root call's return; the calls that met the condition */
	struct nop_gate_count { char rel[160]; char prefix[48]; } roots[NOP_GATE_FUNCS], hits[NOP_GATE_FUNCS + 1];
	size_t nroots, nhits;
};

/* one probe of a run (struct nop_uprobes): what the session creates in
 * uprobe_events, kprobe_events or dynamic_events */
struct nop_uprobe {
	enum nop_probe_kind kind;
	char *fetch; /* kernel probes: what the event fetches, built by nopctl */
	char *path, *sym, *shown;
	char bin[256];
	char event[64];	/* built by nopctl: [A-Za-z0-9_] */
	unsigned long long offset, vaddr;
	bool ret;	/* a return probe */
	bool uret;	/* ret: a uretprobe (else a probe on a ret or tail-jump instruction) */
	bool leaf;	/* an entry probe on a ret instruction: entry and exit at once */
	bool moved;	/* an entry probe after a first instruction the kernel refuses */
	/* one event of many probes (trace, graph, stats): the probe is told
	 * by an immediate it fetches, its index (id=\\N) */
	bool shared;
	size_t nshared; /* a shared event's first probe: how many it has */
	unsigned char rv; /* an exit where the return register is the value: its type
			     (NOP_RV_*, base/base.h); 0: none shown */
	size_t func;	/* the function's key: the index of its entry probe */
	/* why: a function's entry probe: its instructions that put a
	 * constant in the return register (nop_arch_ret_const) */
	struct nop_rvload *loads;
	size_t nloads;
};

struct nop_rvload {
	unsigned long long vaddr;
	long long value;
	unsigned bytes; /* 4: a 32-bit register written, zero-extended */
};

/* an argument probe, of either kind (a recording says FARGS for both) */
static inline bool nop_probe_args(enum nop_probe_kind k)
{
	return k == NOP_PROBE_FARGS || k == NOP_PROBE_KARGS;
}

/* the gate (cfg.gate): one of its snapshot triggers fired (the snapshot
 * holds the buffer as it was); false without a gate */
bool nop_session_gate_fired(struct nop_session *s);
/* the gate's fired triggers armed again (after the snapshot was read) */
int nop_session_gate_rearm(struct nop_session *s, struct nop_error *err);
/* a snapshot taken now (SIGUSR1); 0, or -1 with err */
int nop_session_snapshot(struct nop_session *s, struct nop_error *err);
/* the gate's counts: root calls that returned, and those that met the
 * condition (the kernel's hist triggers) */
void nop_session_gate_counts(struct nop_session *s, unsigned long long *roots, unsigned long long *hits);

void nop_instance_name(char *buf, size_t len, pid_t pid);

pid_t nop_instance_owner(const char *name); /* of "nopctl-<pid>"; 0: not nopctl's */

pid_t nop_probe_group_owner(const char *name);

/* Is pid a task the session traces (set_ftrace_pid, children included)?
 * 1 yes, 0 no, -1 gone and not listed: a traced child only if its fork
 * was seen (the caller reads the fork events) */
int nop_session_traces(struct nop_session *s, int pid);

/* Another user of the top level (a tracer, filters or pids): 1 and why. */
int nop_top_level_user(const char *tracing_dir, char *why, size_t len);

void nop_walk_end(struct nop_walk *w);

/* the kernel events that tell the pipeline a traced task forked or
 * exec'd ("SYSTEM/EVENT" under events/) */
#define NOP_NPROCESS_EVENTS 3

extern const char *const nop_process_events[NOP_NPROCESS_EVENTS];
/* catch --before: the context switches recorded too ("SYSTEM/EVENT") */
#define NOP_NSWITCH_EVENTS 2
extern const char *const nop_switch_events[NOP_NSWITCH_EVENTS];

extern const char *nop_pidns_link; /* /proc/self/ns/pid; tests point it elsewhere */

/* Does a process hold an flock on path (a journal, top-level.lock)? (owners.c) */
bool nop_lock_held(const char *path);

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
/* "what name": a synthetic event nopctl is about to create ("synthetic"),
 * a snapshot buffer it is about to allocate ("snapshot", the buffer's
 * directory relative to tracefs) */
int nop_journal_note(struct nop_journal *j, const char *what, const char *name, struct nop_error *err);

/* Restore what the journal names (what still holds nopctl's values) and
 * delete it. */
int nop_journal_finish(struct nop_journal *j, struct nop_replay *rep, struct nop_error *err);

/* a journal nobody holds (EBUSY if one is), or one whose lock we hold */
const char *nop_journal_path(const struct nop_journal *j);

int nop_journal_fd(const struct nop_journal *j);

void nop_journal_release(struct nop_journal *j); /* closed (lock released) and freed */
/* a journaled file's name within its buffer: "instances/NAME/FILE" is FILE */
const char *nop_buffer_rel(const char *rel);
/* a session's settings left in place, its journal kept as name (a name
 * no pid's journal has: no cleanup replays it), s freed; 0, or -1 with
 * err and everything restored */
int nop_session_keep(struct nop_session *s, const char *name, struct nop_error *err);
/* kept as nop_journal_dir()/name.journal, released and freed: 0, or -1 with err */
int nop_journal_keep(struct nop_journal *j, const char *name, struct nop_error *err);

int nop_journal_replay(const char *path, struct nop_replay *rep, struct nop_error *err);

/* the same, 1 (nothing done) when a running nopctl holds it, 2 when it is
 * not to be trusted (replay.c: left in place, named in rep); tracing_dir:
 * the tracing directory this nopctl uses, which it must name */
int nop_journal_replay_unheld(const char *path, const char *tracing_dir, struct nop_replay *rep,
			      struct nop_error *err);
int nop_journal_replay_locked(const char *path, int fd, const char *tracing_dir,
			      struct nop_replay *rep, struct nop_error *err);

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

/* nopctl's probe events (probes.c): created journaled, removed by name */
int nop_probes_create(struct nop_journal *j, const char *tracing_dir, const char *group,
		      const struct nop_uprobes *u, bool (*stop)(void *), void *stop_ctx,
		      struct nop_error *err);

int nop_probe_remove(const char *tracing_dir, const char *ge, struct nop_replay *rep,
		     struct nop_error *err);

/* a probe event "group/event" deleted, whoever made it; -1 with err */
int nop_probe_delete(const char *tracing_dir, const char *ge, struct nop_error *err);

int nop_probes_reset_stale(const char *tracing_dir, struct nop_replay *rep, struct nop_error *err);

/* catch's kernel gate (gate.c): made journaled; fired (1) or not; its
 * spent snapshot triggers armed again; the kernel's counts */
int nop_gate_create(struct nop_journal *j, const char *tracing_dir, const struct nop_gate_plan *g,
		    struct nop_error *err);
bool nop_gate_fired(const char *tracing_dir, const struct nop_gate_plan *g);
int nop_gate_rearm(const char *tracing_dir, const struct nop_gate_plan *g, struct nop_error *err);
void nop_gate_counts(const char *tracing_dir, const struct nop_gate_plan *g, unsigned long long *roots,
		     unsigned long long *hits);
/* an event's triggers removed (rel: its trigger file) */
void nop_clear_triggers(const char *tracing_dir, const char *rel);
/* replay: nopctl's synthetic event removed; the snapshot buffer of the
 * buffer at rel freed */
int nop_synth_remove(const char *tracing_dir, const char *name, struct nop_replay *rep, struct nop_error *err);
void nop_snapshot_free(const char *tracing_dir, const char *rel);
/* Put back one tracefs file's prior value as read from it (restore.c). */
int nop_restore_file(const char *tracing_dir, const char *rel, const char *prior,
		     struct nop_error *err);

int nop_instance_remove(const char *tracing_dir, const char *name, struct nop_error *err);

/* the same at once: 1 (left) when a process holds one of its files open */
int nop_instance_remove_unheld(const char *tracing_dir, const char *name, struct nop_error *err);

/* a list file's entry as read back, in the form it is written in */
const char *nop_list_writable(const char *rel, const char *entry, char *buf, size_t len);

/* tasks.c: pid in a set_ftrace_pid list; listed or descended from a
 * listed task (1), not (0), gone (-1); some task of a list still running */
bool nop_pid_listed(const char *list, int pid);

int nop_pid_traced(const char *list, int pid, unsigned long long since);
/* when pid started, in clock ticks since boot; 0 if unknown */
unsigned long long nop_task_started(int pid);

bool nop_pids_run(const char *list);

bool nop_task_runs(int pid); /* /proc/PID/stat exists, not a zombie */

/* A session's file written (journaled like every other); for pidns.c */
int nop_session_write(struct nop_session *s, const char *rel, const char *val, struct nop_error *err);

/* nopctl in a PID namespace below the first (owners.c) */
bool nop_pidns_nested(void);

/* pid's tag, as its journal is named ("<pid>", nested "<pid>-ns<inode>") */
void nop_owner_tag(char *buf, size_t len, pid_t pid);

/* "nopctl-<pid>" of any PID namespace ("nopctl-<pid>-ns<inode>") */
bool nop_instance_of_any_ns(const char *name);

/* another PID namespace's probe group "nopctl_<pid>_ns<inode>": the path
 * of its session's instance ("instances/nopctl-<pid>-ns<inode>") in buf;
 * else NULL */
const char *nop_instance_of_group(const char *group, char *buf, size_t len);

/* pidns.c: in a nested PID namespace, the first namespace's pids of the
 * n tasks pids (into kpids) and of nopctl itself (*self), learned from
 * events in the session's buffer before anything else is set */
int nop_kernel_pids(struct nop_session *s, const pid_t *pids, size_t n, pid_t *kpids, pid_t *self,
		    struct nop_error *err);

/* a process reading the top level's buffer (trace_pipe, trace_pipe_raw
 * open): its pid and name, or 0 (toplevel.c) */
pid_t nop_top_level_reader(const char *tracing_dir, char *comm, size_t len);
/* the entries the top level's snapshot holds (0: none, or not
 * allocated); catch's gate clears it (toplevel.c) */
unsigned long long nop_top_level_snapshot(const char *tracing_dir);

#endif
