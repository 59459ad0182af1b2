/* run.h - what the capture (runner.c) and the child and signals
 * (process.c) share. */
#ifndef NOPCTL_RUN_H
#define NOPCTL_RUN_H

#include <signal.h>

#include "cmd.h"
#include "top.h"

/* -u USER (a name or a uid), looked up before anything is set up */
struct as_user {
	uid_t uid;
	gid_t gid;
	char name[64], home[512];
	gid_t groups[1024]; /* its supplementary groups, looked up before the fork */
	int ngroups;
};

/* One live capture, from set-up to the exit code; whatever it holds is
 * released by its teardown, however far set-up got. */
struct run {
	struct opts *o;
	enum run_mode mode;
	enum nop_tracer tracer;
	struct nop_error err;
	unsigned long long dat_skipped;   /* record: file names skipped, said so far */
	const char *tdir;
	FILE *out;
	const char **roots; /* graph roots: o->patterns, or expanded for -m */
	size_t nroots;
	struct nop_cpuset cpus, *cpusp;
	struct nop_session *sess;
	struct nop_source *src;
	struct nop_resolver *res;
	struct nop_pipeline *pipe;
	struct nop_dat *dat;
	struct nop_summary sum;
	unsigned long long t0;
	struct nop_cpu_stats at0; /* buffer counters when tracing began */
	int peak_fill;		  /* the fullest a CPU's buffer was seen, % */
	unsigned long long fill_at; /* when it was last looked at (ns) */
	unsigned long long alive_at; /* when -p tasks were last looked for */
	long long ran0;		     /* -p tasks' context switches then */
	int sigfd;
	sigset_t sigs;	  /* the signals sigfd takes */
	int setup_signal; /* a signal that stopped the set-up */
	pid_t child;
	int go, ef; /* the child's start and exec-error pipes */
	int child_status;
	bool child_exited; /* exited, not yet reaped (see handle_signals) */
	bool child_ended;  /* still running at the end: nopctl sent it SIGTERM */
	struct as_user user; /* -u: who COMMAND runs as */
	/* user-space patterns (uprobes.c): taken out of o->patterns, which
	 * keeps the kernel's; the pipeline's roots are both kinds' globs */
	struct nop_uprobes uprobes;
	size_t nuser;
	const char **proots;
	size_t nproots;
	/* --retval, --args (kprobes.c): probes added to uprobes, or
	 * function_graph's own return values */
	size_t nkprobes;
	bool graph_retval;
	/* catch (kprobes.c): the kernel's gate, the snapshots it takes read
	 * through snap as gated drives it; or why every call is judged here */
	struct nop_gate_plan *gate;
	char gate_why[160];
	struct nop_source *snap;
	struct nop_gated *gated;
	bool snap_asked; /* SIGUSR1: a snapshot to take and read */
	struct nop_catchfiles *catches; /* catch -o DIR */
	/* -i: intervals so far, when the next ends, when this one began */
	unsigned long long ticks, tick_at, tick_from;
	struct top *top; /* top's screen (topscreen.c) */
	/* available_filter_functions, read once a run (run_funcs) */
	struct nop_funcs funcs;
	bool funcs_read;
	unsigned long long split_at; /* record --split: when the next file begins */
	struct nop_cpu_stats at_full; /* buffer counters when --max-size was reached */
};


/* uprobes.c: BINARY:GLOB patterns to r->uprobes (command: COMMAND's path) */
int user_probes(struct run *r, const char *command);

/* kprobes.c: --retval, --args on the kernel PATTERNs' functions, of
 * the run's kernel functions f (read whenever there are PATTERNs) */
int kernel_probes(struct run *r, const struct nop_funcs *f);

/* kprobes.c: catch's kernel gate where the kernel can judge (r->gate),
 * on the PATTERNs' functions of f */
int catch_gate(struct run *r, const struct nop_funcs *f);

/* process.c: signals into a signalfd; COMMAND started and reaped */
int signals_block(sigset_t *set);
/* Descriptors for a buffer file and a record file per online CPU: the
 * soft limit raised to the hard one, or an error before anything is set. */
int fd_limit_for_cpus(struct nop_error *err);
int as_user_lookup(const char *user, struct as_user *as, struct nop_error *err);
/* as NULL: the command runs as nopctl does */
pid_t spawn(char **argv, const struct as_user *as, int *go_fd, int *err_fd);
void handle_signals(struct run *r);
void reap_child(struct run *r);
/* COMMAND waited for to its own end, untraced (the recording ended at its
 * size bound): the signals nopctl gets passed on to it */
void wait_child(struct run *r);
long long task_switches(const pid_t *pids, size_t n);

#endif
