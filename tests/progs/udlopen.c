/* udlopen N DELAY_MS - sleep DELAY_MS, then dlopen libnopdemo.so (found
 * through this program's RUNPATH) and call its lib_add N times: a library
 * a process loads after tracing began. */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 10, ms = argc > 2 ? atol(argv[2]) : 1000, sum = 0;
	void *h;
	int (*add)(int, int);

	usleep((useconds_t)ms * 1000);
	if (!(h = dlopen("libnopdemo.so", RTLD_NOW)) || !(add = (int (*)(int, int))dlsym(h, "lib_add"))) {
		fprintf(stderr, "udlopen: %s\n", dlerror());
		return 1;
	}
	for (long i = 0; i < n; i++)
		sum += add((int)i, 1);
	return sum == -1;
}
