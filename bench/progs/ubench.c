/* ubench N [RATE] - N calls of bench_fn (in libubench.so, or compiled in
 * with -finstrument-functions for ubench-finstr), RATE a second (0: as fast
 * as it can); prints {"calls":N,"loop_ns":T,"cpu_s":C} with the loop's own
 * wall time, start-up left out, and its CPU (a probe's trap is charged to
 * the traced program: a tracer's own CPU is its process's less this). The workload of bench B6: the cost of one traced call
 * is (loop_ns traced - loop_ns untraced) / N. */
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <time.h>

int bench_fn(int x);

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1000000, rate = argc > 2 ? atol(argv[2]) : 0;
	double t0 = now(), t;
	long sum = 0;

	for (long i = 0; i < n; i++) {
		sum += bench_fn((int)i);
		if (rate > 0) {
			/* call i+1 is due at a fixed time from the start */
			double due = t0 + (double)(i + 1) * 1e9 / rate;
			struct timespec ts;

			while ((t = now()) < due) {
				ts.tv_sec = 0;
				ts.tv_nsec = (long)(due - t) > 50000 ? 50000 : (long)(due - t);
				nanosleep(&ts, NULL);
			}
		}
	}
	struct rusage ru;
	double loop = now() - t0;

	getrusage(RUSAGE_SELF, &ru);
	printf("{\"calls\":%ld,\"loop_ns\":%.0f,\"cpu_s\":%.6f,\"sum\":%ld}\n", n, loop,
	       ru.ru_utime.tv_sec + ru.ru_stime.tv_sec + (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6, sum);
	return 0;
}
