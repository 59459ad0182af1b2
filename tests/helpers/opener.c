/* opener N [PATH] - open (and close) PATH exactly N times: a workload whose
 * call count is known. Built static so that it runs in the bare guest. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	long n = argc > 1 ? strtol(argv[1], NULL, 10) : 1;
	const char *path = argc > 2 ? argv[2] : "/etc/hostname";

	for (long i = 0; i < n; i++) {
		int fd = open(path, O_RDONLY);

		if (fd < 0) {
			perror(path);
			return 1;
		}
		close(fd);
	}
	return 0;
}
