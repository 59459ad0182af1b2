/* run.h - what the capture loop (runner.c), the report (report.c), the
 * event routing (route.c) and the child and signals (process.c) share. */
#ifndef NOPCTL_RUN_H
#define NOPCTL_RUN_H

#include <signal.h>

#include "cmd.h"

struct run {
	struct opts *o;
	struct nop_graph *graph; /* graph, stats, report */
	bool recording;		 /* record: pages saved raw, events counted */
	const char **roots;	 /* graph roots asked for; NULL: every tree */
	size_t nroots;
	struct { unsigned long long addr; int wanted; } root_cache[256];
	struct nop_sink sink;
	struct nop_summary sum;
	struct nop_session *sess; /* live captures: which tasks are traced */
	bool by_task;		  /* -p or COMMAND */
	bool show_others;	  /* graph lines show other tasks' calls, marked */
	struct { int pid; signed char traced; } task_cache[64];
	const char *stop; /* why the loop ended; NULL while running */
	int sigfd;
	pid_t child;
	int child_status;
	bool child_exited; /* exited, not yet reaped (see handle_signals) */
	bool out_closed; /* the reader went away (EPIPE): a normal end */
	int out_errno;	 /* any other write error */
};


/* route.c: decoded events to the sink, graph events through the engine */
int on_event(void *ctx, const struct nop_event *ev);
int on_call(void *ctx, const struct nop_gitem *gi);
int output_failed(struct run *r);
int setup_output(struct run *r, enum run_mode mode, FILE *out, struct nop_resolver *res,
		 struct nop_error *err);

/* process.c: signals into a signalfd; COMMAND started and reaped */
int signals_block(sigset_t *set);
pid_t spawn(char **argv, int *go_fd, int *err_fd);
void handle_signals(struct run *r);
void reap_child(struct run *r);
long long task_switches(const pid_t *pids, size_t n);

#endif
