/* latency DIR HOLD CMD [ARG...] - start and stop latency of a tracer.
 * Runs CMD; DIR is the tracefs buffer it will use ("%d" stands for CMD's
 * pid). start_s: from exec until DIR's current_tracer is not nop and its
 * tracing_on is 1. Then HOLD seconds, SIGINT, and stop_s: from the signal
 * until CMD has exited (everything restored). One JSON object on stdout. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int first_char(const char *dir, const char *file)
{
	char path[4300], buf[16] = "";
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	if (!(f = fopen(path, "r")))
		return 0;
	if (!fgets(buf, sizeof(buf), f))
		buf[0] = 0;
	fclose(f);
	return buf[0];
}

int main(int argc, char **argv)
{
	char dir[4096];
	double t0, ton = -1, tint, hold;
	int st;
	pid_t pid;

	if (argc < 4) {
		fprintf(stderr, "usage: latency DIR HOLD CMD [ARG...]\n");
		return 127;
	}
	hold = atof(argv[2]);
	t0 = now();
	if ((pid = fork()) == 0) {
		signal(SIGINT, SIG_DFL);
		execvp(argv[3], argv + 3);
		_exit(127);
	}
	snprintf(dir, sizeof(dir), argv[1], (int)pid);
	while (now() - t0 < 300) {
		/* current_tracer starting "n" is nop; tracing_on "1" */
		if (first_char(dir, "tracing_on") == '1' && first_char(dir, "current_tracer") &&
		    first_char(dir, "current_tracer") != 'n') {
			ton = now();
			break;
		}
		if (waitpid(pid, &st, WNOHANG) == pid) {
			printf("{\"start_s\":null,\"stop_s\":null,\"status\":%d}\n", st);
			return 1;
		}
		usleep(500);
	}
	usleep((useconds_t)(hold * 1e6));
	tint = now();
	kill(pid, SIGINT);
	waitpid(pid, &st, 0);
	printf("{\"start_s\":%.6f,\"stop_s\":%.6f,\"status\":%d}\n", ton < 0 ? -1 : ton - t0,
	       now() - tint, WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st));
	return 0;
}
