/* uopen N M - a program whose system calls are known: N times open_ok()
 * (opens /etc/hostname: an fd >= 3), then M times open_missing() (opens
 * /nonexistent/nopctl: -2, ENOENT), each called by main. For return
 * values, --errors, --args and the joined user/kernel timeline (each open
 * is a do_sys_openat2 under one of the two). Built -O0: calls stay calls. */
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

/* the paths are copied to the stack: a probe reads the string without
 * faulting its page in, and a program's first use of a page of .rodata
 * is a fault (the first open showed "(fault)" on 6.12) */
int open_ok(void)
{
	char path[] = "/etc/hostname";
	int fd = open(path, O_RDONLY);

	if (fd >= 0)
		close(fd);
	return fd;
}

int open_missing(void)
{
	char path[] = "/nonexistent/nopctl";

	return open(path, O_RDONLY);
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1, m = argc > 2 ? atol(argv[2]) : 0;

	for (long i = 0; i < n; i++)
		if (open_ok() < 3)
			return 1;
	for (long i = 0; i < m; i++)
		if (open_missing() != -1)
			return 1;
	return 0;
}
