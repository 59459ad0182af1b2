/* uwho N1 N2 - one function called from two known paths a known number of
 * times (issue 43, stats --callers of user functions): target() N1 times
 * from via_a() and N2 times from via_b(), both called from main(). It
 * prints "via_a N1" and "via_b N2". Built with frame pointers (uwho) and
 * without (uwho-nofp): the kernel unwinds a user stack by them. */
#include <stdio.h>
#include <stdlib.h>

#define NOINLINE __attribute__((noinline))

static volatile int sink;

NOINLINE int target(int i)
{
	return i + sink;
}

NOINLINE int via_a(int i)
{
	return target(i) + sink;
}

NOINLINE int via_b(int i)
{
	return target(i) + 1 + sink;
}

int main(int argc, char **argv)
{
	int n1 = argc > 1 ? atoi(argv[1]) : 7, n2 = argc > 2 ? atoi(argv[2]) : 3;

	for (int i = 0; i < n1; i++)
		sink += via_a(i);
	for (int i = 0; i < n2; i++)
		sink += via_b(i);
	printf("via_a %d\nvia_b %d\n", n1, n2);
	return 0;
}
