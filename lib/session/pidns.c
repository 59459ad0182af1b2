/* pidns.c - tasks named as the kernel names them, for a nopctl in a PID
 * namespace of its own (a container's).
 *
 * The kernel matches its pid lists (set_ftrace_pid, set_event_pid) with
 * task->pid, and each event's common_pid is task->pid: pids of the first
 * PID namespace, which a nested namespace can neither name nor look up
 * (its /proc, NSpid included, starts at its own level). So a task's pid
 * there is learned from an event about it: nopctl's own from a
 * trace_marker write (the event's common_pid), another task's from the
 * signal_generate event of a signal nopctl sends it (its field pid). The
 * signal is one the task discards on arrival: not caught, not blocked,
 * its action to ignore it, and no tracer stopping on it
 * (kernel/signal.c: prepare_signal drops it; the tracepoint fires all
 * the same). */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "session/session.h"

/* The common pid of a line of the text `trace`: "COMM-PID [CPU] ..." or,
 * with record-tgid, "COMM-PID (TGID) [CPU] ..."; -1 if not of that form. */
static int line_pid(const char *line, const char *end)
{
	const char *p = strstr(line, "] "), *q;

	if (!p || p > end || !(p = memrchr(line, '[', (size_t)(p - line))))
		return -1;
	while (p > line && p[-1] == ' ')
		p--;
	if (p > line && p[-1] == ')' && (q = memrchr(line, '(', (size_t)(p - line))))
		for (p = q; p > line && p[-1] == ' ';)
			p--;
	q = p;
	while (q > line && q[-1] >= '0' && q[-1] <= '9')
		q--;
	if (q == p || q == line || q[-1] != '-')
		return -1;
	return atoi(q);
}

/* a signal tid discards on arrival (and its thread group), or 0 */
static int ignored_signal(pid_t tid, pid_t *tgid)
{
	/* ignored unless caught; SIGCONT resumes a stopped task whatever
	 * its action, and a stop signal discards a pending SIGCONT */
	static const int by_default[] = { SIGURG, SIGWINCH, SIGCHLD };
	unsigned long long blk = ~0ULL, ign = 0, cgt = ~0ULL;
	char path[64], line[256];
	int tracer = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)tid);
	if (!(f = fopen(path, "re")))
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "Tgid: %d", tgid) != 1 && sscanf(line, "TracerPid: %d", &tracer) != 1 &&
		    sscanf(line, "SigBlk: %llx", &blk) != 1 && sscanf(line, "SigIgn: %llx", &ign) != 1)
			sscanf(line, "SigCgt: %llx", &cgt);
	fclose(f);
	if (tracer != 0)
		return 0;
	for (size_t i = 0; i < ARRAY_SIZE(by_default); i++) {
		unsigned long long bit = 1ULL << (by_default[i] - 1);

		if (!(blk & bit) && !(cgt & bit))
			return by_default[i];
	}
	for (int sig = 1; sig < 64; sig++) {
		unsigned long long bit = 1ULL << (sig - 1);

		if ((ign & bit) && !(blk & bit) && sig != SIGCONT && sig != SIGTSTP &&
		    sig != SIGTTIN && sig != SIGTTOU)
			return sig;
	}
	return 0;
}

/* the text of the buffer's `trace`, or NULL with err */
static char *trace_text(const char *dir, struct nop_error *err)
{
	char path[4200];

	return nop_read_file(nop_path(path, sizeof(path), dir, "trace"), NULL, err);
}

static int not_learned(struct nop_error *err, const char *what)
{
	nop_error_set(err, NOP_EKERNEL, 0,
		      "nopctl runs in a PID namespace of its own (a container's), where the"
		      " kernel knows tasks by other pids, and %s", what);
	return -1;
}

/* nopctl's own pid in the first namespace: its marker's common_pid */
static int own_pid(const char *dir, struct nop_error *err)
{
	char path[4200], token[80], *text, *at;
	struct timespec ts;
	int pid = -1;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	snprintf(token, sizeof(token), "nopctl-pid %d %lld.%09ld", (int)getpid(), (long long)ts.tv_sec,
		 ts.tv_nsec);
	if (nop_write_file(nop_path(path, sizeof(path), dir, "trace_marker"), token, false, err) ||
	    !(text = trace_text(dir, err)))
		return -1;
	if ((at = strstr(text, token))) {
		char *start = at;

		while (start > text && start[-1] != '\n')
			start--;
		pid = line_pid(start, at);
	}
	free(text);
	if (pid <= 0)
		return not_learned(err, "its own could not be learned (no trace_marker line of it)");
	return pid;
}

int nop_kernel_pids(struct nop_session *s, const pid_t *pids, size_t n, pid_t *kpids, pid_t *self,
		    struct nop_error *err)
{
	const char *dir = nop_session_dir(s);
	char filter[64], path[4200], *text = NULL, *line, *save;
	size_t got = 0;
	int ret = -1;

	if (nop_session_write(s, "tracing_on", "1", err) ||
	    nop_write_file(nop_path(path, sizeof(path), dir, "trace"), "", false, err) ||
	    (*self = own_pid(dir, err)) < 0)
		return -1;
	if (!n)
		return 0;
	if (!nop_path_exists(dir, "events/signal/signal_generate/enable"))
		return not_learned(err, "this kernel has no signal_generate event to learn them from");
	snprintf(filter, sizeof(filter), "common_pid == %d", (int)*self);
	if (nop_session_write(s, "events/signal/signal_generate/filter", filter, err) ||
	    nop_session_write(s, "events/signal/signal_generate/enable", "1", err))
		return -1;
	for (size_t i = 0; i < n; i++) {
		pid_t tgid = pids[i];
		int sig = ignored_signal(pids[i], &tgid);
		char why[160];

		if (!sig) {
			snprintf(why, sizeof(why), "task %d catches or blocks every signal that would"
				 " tell its pid without a change to it (or is ptraced)", (int)pids[i]);
			not_learned(err, why);
			goto out;
		}
		if (syscall(SYS_tgkill, tgid, pids[i], sig) < 0) {
			snprintf(why, sizeof(why), "task %d could not be told apart: %s", (int)pids[i],
				 strerror(errno));
			not_learned(err, why);
			goto out;
		}
	}
	if (!(text = trace_text(dir, err)))
		goto out;
	/* one event per signal, in the order they were sent */
	for (line = strtok_r(text, "\n", &save); line && got < n; line = strtok_r(NULL, "\n", &save)) {
		char *p = strstr(line, "signal_generate: "), *pid = NULL;

		for (char *q = p; q && (q = strstr(q, " pid=")); q++)
			pid = q;
		if (p && pid)
			kpids[got++] = (pid_t)atoi(pid + 5);
	}
	if (got < n) {
		not_learned(err, "some of its tasks' pids could not be learned (fewer signal events"
			    " than signals)");
		goto out;
	}
	ret = 0;
out:
	free(text);
	if (nop_session_write(s, "events/signal/signal_generate/enable", "0", ret ? NULL : err) ||
	    nop_session_write(s, "events/signal/signal_generate/filter", "0", ret ? NULL : err))
		ret = -1;
	return ret;
}
