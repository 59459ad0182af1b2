/* uslow MODE N - a known few slow or failing calls among many, the truth
 * that nopctl catch is held to (issue 42):
 *   slow N   nap() N times: 7 of them (the first of every N/7) sleep
 *            100 ms, the rest 1 us; each calls inner() once
 *   fail N   tryopen() N times: 7 of them open a path that does not
 *            exist and return -errno (-2), the rest open /etc/hostname
 *            and return 0
 *   hang N   nap() 100 times (1 us each), then stuck() once: inner(), a
 *            sleep of N ms, inner() again (a hang a user sees); on stderr
 *            "returned S.NS", the time stuck() returned (CLOCK_REALTIME)
 *   sys N    getppid() N times, the system call each time (bench B8:
 *            memory over millions of root calls)
 * It prints "calls FUNC N" and "slow 7" or "failed 7" (hang: "stuck 1");
 * slow also, on stderr, "over50ms K": the naps that took more than 50 ms as it timed
 * them, the 7 and any 1 us nap a loaded host stalled that long (a
 * catch of nap(), or of the sleep inside it, over 50 ms is one of them). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define NOINLINE __attribute__((noinline))

static volatile int sink;

NOINLINE int inner(int i)
{
	return i + sink;
}

NOINLINE int nap(int i, int slow)
{
	struct timespec ts = { 0, slow ? 100000000L : 1000L };

	nanosleep(&ts, NULL);
	return inner(i);
}

NOINLINE int tryopen(int i, int fail)
{
	int fd = open(fail ? "/nonexistent/uslow" : "/etc/hostname", O_RDONLY);

	if (fd < 0)
		return -errno;
	close(fd);
	return inner(i) & 0;
}

NOINLINE int stuck(int ms)
{
	struct timespec ts = { ms / 1000, ms % 1000 * 1000000L };
	int r = inner(ms);

	nanosleep(&ts, NULL);
	return r + inner(ms);
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "slow";
	int n = argc > 2 ? atoi(argv[2]) : 1000, every = n / 7 > 0 ? n / 7 : 1, odd = 0;

	if (!strcmp(mode, "sys")) {
		for (int i = 0; i < n; i++)
			sink += (int)syscall(SYS_getppid);
		printf("calls getppid %d\n", n);
		return 0;
	}
	if (!strcmp(mode, "hang")) {
		for (int i = 0; i < 100; i++)
			(void)nap(i, 0);
		struct timespec at;

		(void)stuck(n);
		clock_gettime(CLOCK_REALTIME, &at);
		fprintf(stderr, "returned %lld.%09ld\n", (long long)at.tv_sec, at.tv_nsec);
		printf("stuck 1\n");
		return 0;
	}
	int over = 0;

	for (int i = 0; i < n; i++) {
		int pick = i % every == 0 && odd < 7;
		struct timespec t0, t1;

		odd += pick;
		if (!strcmp(mode, "fail")) {
			(void)tryopen(i, pick);
			continue;
		}
		clock_gettime(CLOCK_MONOTONIC, &t0);
		(void)nap(i, pick);
		clock_gettime(CLOCK_MONOTONIC, &t1);
		over += (t1.tv_sec - t0.tv_sec) * 1000000000LL + (t1.tv_nsec - t0.tv_nsec) > 50000000LL;
	}
	printf("calls %s %d\n%s %d\n", strcmp(mode, "fail") ? "nap" : "tryopen", n,
	       strcmp(mode, "fail") ? "slow" : "failed", odd);
	if (strcmp(mode, "fail"))
		fprintf(stderr, "over50ms %d\n", over);
	return 0;
}
