/* uoff N - known waits and a known run, the truth nopctl's kernel events
 * and off-CPU time are held to (issue 43). It forks a feeder, prints
 * "pid P", and blocks reading a line from stdin (no switch of it happens
 * while a tracer attaches); on a line it runs
 *   N x work():     nanosleep of 2 ms (off CPU, sleeping: S)
 *   N x readpipe(): asks the feeder, which sleeps 5 ms and then writes;
 *                   read() waits for it (off CPU, S)
 *   N x spin():     a busy loop until this thread has run 2 ms more
 *                   (CLOCK_THREAD_CPUTIME_ID: on CPU)
 * then prints "done W C W C W C": each phase's wall time (CLOCK_MONOTONIC)
 * and this thread's CPU time in it (CLOCK_THREAD_CPUTIME_ID), ns, over
 * its N calls: wall less CPU is the time it spent off CPU. It blocks
 * reading a line again; at end of input it ends the feeder and exits. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define NOINLINE __attribute__((noinline))

static int req[2], data[2];

static unsigned long long now(clockid_t c)
{
	struct timespec ts;

	clock_gettime(c, &ts);
	return (unsigned long long)ts.tv_sec * 1000000000ULL + (unsigned long long)ts.tv_nsec;
}

NOINLINE void work(void)
{
	struct timespec ts = { 0, 2000000L };

	nanosleep(&ts, NULL);
}

NOINLINE void readpipe(void)
{
	char c = 'r';

	if (write(req[1], &c, 1) != 1 || read(data[0], &c, 1) != 1)
		exit(1);
}

NOINLINE void spin(void)
{
	unsigned long long end = now(CLOCK_THREAD_CPUTIME_ID) + 2000000ULL;

	while (now(CLOCK_THREAD_CPUTIME_ID) < end)
		;
}

static void feeder(void)
{
	struct timespec ts = { 0, 5000000L };
	char c;

	close(req[1]); /* its end of input is the parent's closing it */
	close(data[0]);
	while (read(req[0], &c, 1) == 1) {
		nanosleep(&ts, NULL);
		if (write(data[1], &c, 1) != 1)
			break;
	}
	_exit(0);
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 50;
	char line[64];
	pid_t f;

	if (n <= 0 || pipe(req) || pipe(data))
		return 2;
	if ((f = fork()) < 0)
		return 1;
	if (f == 0)
		feeder();
	close(req[0]);
	close(data[1]);
	setvbuf(stdout, NULL, _IONBF, 0);
	printf("pid %d\n", (int)getpid());
	while (fgets(line, sizeof(line), stdin)) {
		unsigned long long w[4], c[4];

		w[0] = now(CLOCK_MONOTONIC);
		c[0] = now(CLOCK_THREAD_CPUTIME_ID);
		for (int i = 0; i < n; i++)
			work();
		w[1] = now(CLOCK_MONOTONIC);
		c[1] = now(CLOCK_THREAD_CPUTIME_ID);
		for (int i = 0; i < n; i++)
			readpipe();
		w[2] = now(CLOCK_MONOTONIC);
		c[2] = now(CLOCK_THREAD_CPUTIME_ID);
		for (int i = 0; i < n; i++)
			spin();
		w[3] = now(CLOCK_MONOTONIC);
		c[3] = now(CLOCK_THREAD_CPUTIME_ID);
		printf("done %llu %llu %llu %llu %llu %llu\n", w[1] - w[0], c[1] - c[0], w[2] - w[1], c[2] - c[1],
		       w[3] - w[2], c[3] - c[2]);
	}
	close(req[1]);
	waitpid(f, NULL, 0);
	return 0;
}
