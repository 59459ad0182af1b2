/* libuwrap.so - the LD_PRELOAD article's approach, for bench B6: a
 * wrapper of bench_fn that times every call (clock_gettime around the
 * real one, found with dlsym(RTLD_NEXT)) and prints calls, total, avg,
 * min and max at exit. */
#include <dlfcn.h>
#include <stdio.h>
#include <time.h>

static int (*real)(int);
static unsigned long long calls, total, min = ~0ULL, max;

static unsigned long long ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (unsigned long long)ts.tv_sec * 1000000000ULL + (unsigned long long)ts.tv_nsec;
}

int bench_fn(int x)
{
	unsigned long long t0, d;
	int r;

	if (!real)
		real = (int (*)(int))dlsym(RTLD_NEXT, "bench_fn");
	t0 = ns();
	r = real(x);
	d = ns() - t0;
	calls++;
	total += d;
	min = d < min ? d : min;
	max = d > max ? d : max;
	return r;
}

__attribute__((destructor)) static void report(void)
{
	fprintf(stderr, "bench_fn: calls %llu total %llu ns avg %llu ns min %llu ns max %llu ns\n", calls,
		total, calls ? total / calls : 0, calls ? min : 0, max);
}
