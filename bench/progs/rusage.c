/* rusage [-o FILE] CMD [ARG...] - run CMD and print what it cost as one
 * JSON object: wall, user and system seconds, peak RSS (KB) and exit
 * status. A static helper for the benchmarks in the bare guest. */
#include <signal.h>
#include <stdio.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static pid_t child;

/* a stop signal is for the command: pass it on */
static void forward(int sig)
{
	if (child > 0)
		kill(child, sig);
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	FILE *out = stderr;
	struct rusage ru;
	double t0;
	int st, i = 1;
	pid_t pid;

	if (argc > 2 && !strcmp(argv[1], "-o")) {
		if (!(out = fopen(argv[2], "a"))) {
			perror(argv[2]);
			return 127;
		}
		i = 3;
	}
	if (i >= argc) {
		fprintf(stderr, "usage: rusage [-o FILE] CMD [ARG...]\n");
		return 127;
	}
	signal(SIGINT, forward);
	signal(SIGTERM, forward);
	signal(SIGQUIT, forward);
	t0 = now();
	pid = fork();
	if (pid == 0) {
		/* a shell's background job starts with SIGINT ignored: not the command */
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		signal(SIGQUIT, SIG_DFL);
		execvp(argv[i], argv + i);
		perror(argv[i]);
		_exit(127);
	}
	child = pid;
	while (pid > 0 && wait4(pid, &st, 0, &ru) < 0 && errno == EINTR)
		;
	if (pid < 0) {
		perror("rusage");
		return 127;
	}
	fprintf(out, "{\"wall_s\":%.6f,\"user_s\":%.6f,\"sys_s\":%.6f,\"maxrss_kb\":%ld,\"status\":%d}\n",
		now() - t0, ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6,
		ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6, ru.ru_maxrss,
		WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st));
	fclose(out);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}
