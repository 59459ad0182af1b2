/* stamp - copy stdin to stdout, each line prefixed with the time it was
 * read (CLOCK_REALTIME, seconds with nanoseconds) and a space: when a
 * tool's output reached its reader (bench B8: a catch within 1 s). */
#include <stdio.h>
#include <time.h>

int main(void)
{
	char line[65536];

	while (fgets(line, sizeof(line), stdin)) {
		struct timespec ts;

		clock_gettime(CLOCK_REALTIME, &ts);
		printf("%lld.%09ld %s", (long long)ts.tv_sec, ts.tv_nsec, line);
		fflush(stdout);
	}
	return 0;
}
