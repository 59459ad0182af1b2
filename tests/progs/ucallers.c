/* ucallers N1 N2 - one kernel function reached from two known paths a
 * known number of times (issue 43, stats --callers): N1 open(2) and N2
 * openat(2) system calls of /etc/hostname, each closed; both reach
 * do_sys_openat2, through __x64_sys_open and __x64_sys_openat. arm64 has
 * no open(2): the first N1 are openat2(2) there (__arm64_sys_openat2 and
 * __arm64_sys_openat). Static: no loader opens anything. It prints
 * "open N1" and "openat N2". */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>
#ifndef SYS_open
#include <linux/openat2.h>
#endif

int main(int argc, char **argv)
{
	long n1 = argc > 1 ? atol(argv[1]) : 10, n2 = argc > 2 ? atol(argv[2]) : 10;

	for (long i = 0; i < n1; i++) {
#ifdef SYS_open
		long fd = syscall(SYS_open, "/etc/hostname", O_RDONLY);
#else
		struct open_how how = { .flags = O_RDONLY };
		long fd = syscall(SYS_openat2, AT_FDCWD, "/etc/hostname", &how, sizeof(how));
#endif

		if (fd < 0)
			return 1;
		close((int)fd);
	}
	for (long i = 0; i < n2; i++) {
		long fd = syscall(SYS_openat, AT_FDCWD, "/etc/hostname", O_RDONLY);

		if (fd < 0)
			return 1;
		close((int)fd);
	}
	printf("open %ld\nopenat %ld\n", n1, n2);
	return 0;
}
