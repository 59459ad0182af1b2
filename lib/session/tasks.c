/* tasks.c - the tasks a session traces, from /proc and the kernel's pid
 * list: listed, descended from a listed task, still running. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "session/session.h"

bool nop_pid_listed(const char *list, int pid)
{
	char key[24];

	snprintf(key, sizeof(key), "%d", pid);
	return list && nop_list_has(list, key);
}

/* pid's parent from /proc; 0 when the task is gone, -1 without a parent */
static int parent_of(int pid)
{
	char path[64], line[128];
	int ppid = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", pid);
	if (!(f = fopen(path, "re")))
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "PPid: %d", &ppid) == 1)
			break;
	fclose(f);
	return ppid > 0 ? ppid : -1;
}

/* when pid started, in clock ticks since boot (/proc/PID/stat's 22nd
 * field); 0 if it cannot be read */
unsigned long long nop_task_started(int pid)
{
	char path[64], buf[1024], *p;
	unsigned long long t = 0;
	size_t n;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	if (!(f = fopen(path, "re")))
		return 0;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = 0;
	/* after the name's ')': state is field 3, starttime field 22 */
	if ((p = strrchr(buf, ')')))
		sscanf(p + 1, " %*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %*u %*u %*d %*d %*d %*d %*d %*d %llu", &t);
	return t;
}

/* The kernel drops a task from set_ftrace_pid when it exits, often
 * before nopctl reads its calls: a task that is gone may have been a
 * traced child or another task (the halves of context switches to a
 * traced task are recorded too), -1; one with a listed ancestor is
 * traced if it started after since (ticks since boot, 0: any time; a
 * child that existed before the list was written was never followed: the
 * kernel adds a child to it at its fork); the idle task never is. */
int nop_pid_traced(const char *list, int pid, unsigned long long since)
{
	int up = pid;
	unsigned long long st;

	if (nop_pid_listed(list, pid))
		return true;
	if (pid <= 0)
		return false;
	if (since && (st = nop_task_started(pid)) && st < since)
		return false;
	for (int hops = 0; hops < 64; hops++) {
		int parent = parent_of(up);

		if (parent == 0)
			return hops == 0 ? -1 : 0; /* pid itself is gone */
		if (parent < 0)
			return false;
		if (nop_pid_listed(list, parent))
			return true;
		up = parent;
	}
	return false;
}

/* pid runs: /proc/PID/stat exists and its state (after the name's ')')
 * is not Z (zombie) or X (dead) */
bool nop_task_runs(int pid)
{
	char path[64], buf[512], *p;
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	if (!(f = fopen(path, "re")))
		return false;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = 0;
	p = strrchr(buf, ')');
	return p && p[1] == ' ' && p[2] != 'Z' && p[2] != 'X';
}

bool nop_pids_run(const char *list)
{
	char *end;

	for (const char *p = list; *p; p = end) {
		long pid = strtol(p, &end, 10);

		if (end == p) {
			end = (char *)p + 1;
			continue;
		}
		if (pid > 0 && nop_task_runs((int)pid))
			return true;
	}
	return false;
}
