/* udiff N - one source built twice, the truth nopctl diff is held to
 * (issue 44). main calls setup(), work(i) N times, loop_body() 200
 * times, slow() 20 times and report(); work() and setup() call helper().
 * Built with -DVERSION_B it differs in exactly three ways:
 *   work(3) also calls extra() once;
 *   loop_body() runs 10 times as often (2000 calls);
 *   slow() sleeps 2 ms instead of 1 ms.
 * loop_body, extra and slow each make one system call (umask, times,
 * nanosleep: each a function the kernel can trace, unlike getpid's), so a
 * kernel graph of either build shows the same three changes: a system
 * call only B makes, one made 10 times as often, and one that waits twice
 * as long. It prints "calls FUNC N" for each of the
 * three. udiff N MS: slow() sleeps MS ms (B: twice that) instead of 1. */
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <sys/times.h>
#include <time.h>
#include <unistd.h>

#define NOINLINE __attribute__((noinline))

#ifdef VERSION_B
#define LOOPS 2000
#define SLOW_TIMES 2
#else
#define LOOPS 200
#define SLOW_TIMES 1
#endif
#define SLOWS 20

static volatile unsigned long sink;
static int nloop, nextra, nslow;
static long slow_ns = SLOW_TIMES * 1000000L;

NOINLINE void helper(int i)
{
	sink += (unsigned long)i * 7;
}

NOINLINE void setup(void)
{
	for (int i = 0; i < 10; i++)
		helper(i);
}

NOINLINE void extra(void)
{
	struct tms t;

	nextra++;
	sink += (unsigned long)syscall(SYS_times, &t);
}

NOINLINE void work(int i)
{
	for (int k = 0; k < 100; k++)
		sink += (unsigned long)(k ^ i);
	helper(i);
#ifdef VERSION_B
	if (i == 3)
		extra();
#endif
}

NOINLINE void loop_body(void)
{
	nloop++;
	sink += (unsigned long)syscall(SYS_umask, 022);
}

NOINLINE void slow(void)
{
	struct timespec ts = { slow_ns / 1000000000L, slow_ns % 1000000000L };

	nslow++;
	nanosleep(&ts, NULL);
}

NOINLINE void report(void)
{
	printf("calls loop_body %d\ncalls extra %d\ncalls slow %d\n", nloop, nextra, nslow);
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 50;

	if (argc > 2)
		slow_ns = SLOW_TIMES * 1000000L * atol(argv[2]);

	setup();
	for (int i = 0; i < n; i++)
		work(i);
	for (int i = 0; i < LOOPS; i++)
		loop_body();
	for (int i = 0; i < SLOWS; i++)
		slow();
	report();
	return 0;
}
