/* opener N [PATH [RATE [N2 RATE2]]] - open (and close) PATH exactly N
 * times: a workload whose call count is known; RATE > 0 paces it to RATE
 * opens a second (each open is due at a fixed time from the start, so a
 * late one does not slow the rest). N2 RATE2: then N2 more at RATE2, one
 * process at two loads. OPENER_NAME set: the process takes that name
 * first (prctl PR_SET_NAME), as programs name their threads. Built static
 * so that it runs in the bare guest. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

static int run(long n, const char *path, long rate)
{
	struct timespec t0, t;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (long i = 0; i < n; i++) {
		int fd = open(path, O_RDONLY);

		if (fd < 0) {
			perror(path);
			return 1;
		}
		close(fd);
		if (rate > 0) {
			/* sleep until open i+1 is due */
			double due = (double)(i + 1) / rate, el;

			clock_gettime(CLOCK_MONOTONIC, &t);
			el = (t.tv_sec - t0.tv_sec) + (t.tv_nsec - t0.tv_nsec) / 1e9;
			if (due > el)
				usleep((useconds_t)((due - el) * 1e6));
		}
	}
	return 0;
}

int main(int argc, char **argv)
{
	const char *path = argc > 2 ? argv[2] : "/etc/hostname";

	if (getenv("OPENER_NAME"))
		prctl(PR_SET_NAME, getenv("OPENER_NAME"));

	if (run(argc > 1 ? strtol(argv[1], NULL, 10) : 1, path, argc > 3 ? strtol(argv[3], NULL, 10) : 0))
		return 1;
	return argc > 5 ? run(strtol(argv[4], NULL, 10), path, strtol(argv[5], NULL, 10)) : 0;
}
