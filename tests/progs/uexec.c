/* uexec - one source built twice, the truth a function's identity across
 * exec is held to (issue 54 #1): the same names in two binaries are two
 * functions. uexec1 PATH calls f() 3 times and cnt_open() 2 times, then
 * execs PATH (uexec2, built with -DSECOND), which calls h() 5 times and
 * cnt_open() 4 times. Each prints "calls FUNC N" for its own. */
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

#define NOINLINE __attribute__((noinline))

static volatile int sink;

/* opens /dev/null: a call with a system call in it */
NOINLINE int cnt_open(void)
{
	int fd = open("/dev/null", O_RDONLY);

	if (fd >= 0)
		close(fd);
	return fd >= 0;
}

#ifdef SECOND
NOINLINE void h(int i)
{
	sink += i;
}

int main(void)
{
	for (int i = 0; i < 5; i++)
		h(i);
	for (int i = 0; i < 4; i++)
		cnt_open();
	printf("calls h 5\ncalls cnt_open 4\ncalls main 1\n");
	return 0;
}
#else
NOINLINE void f(int i)
{
	sink += i;
}

int main(int argc, char **argv)
{
	for (int i = 0; i < 3; i++)
		f(i);
	for (int i = 0; i < 2; i++)
		cnt_open();
	printf("calls f 3\ncalls cnt_open 2\ncalls main 1\n");
	fflush(stdout);
	if (argc < 2)
		return 0;
	execv(argv[1], (char *[]){ argv[1], NULL });
	perror(argv[1]);
	return 127;
}
#endif
