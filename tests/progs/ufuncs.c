/* ufuncs N [threads|fork|paced] - a program whose calls are known, to
 * trace through uprobes: per round of work, N times parse_line (which
 * calls tokenize twice) and lib_add (in libnopdemo.so when built dynamic);
 * fact(5) once (5 nested calls); sleeper(20) once (20 ms). "threads" runs
 * the work in a second thread too, "fork" in a child too: counts double;
 * "paced" sleeps 1 ms after each parse_line (a process to attach to);
 * "deep" recurses fact 80 deep instead of 5 (past the kernel's 64 nested
 * return probes per task).
 * Built -O0 so that every call stays a call. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

int lib_add(int a, int b);

int tokenize(const char *s, int k)
{
	return (int)strlen(s) + k;
}

int parse_line(const char *s)
{
	return tokenize(s, 1) + tokenize(s, 2);
}

/* another name of parse_line: probed once, counted once */
int parse_alias(const char *s) __attribute__((alias("parse_line")));

long fact(int n)
{
	return n <= 1 ? 1 : n * fact(n - 1);
}

void sleeper(int ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

static long n_rounds;
static int paced, fact_depth = 5;

void *work(void *arg)
{
	long sum = 0;

	for (long i = 0; i < n_rounds; i++) {
		sum += parse_line("hello world") + lib_add((int)i, 1);
		if (paced)
			usleep(1000);
	}
	sum += fact(fact_depth);
	sleeper(20);
	return (void *)sum;
}

int main(int argc, char **argv)
{
	pthread_t t;

	n_rounds = argc > 1 ? atol(argv[1]) : 10;
	paced = argc > 2 && !strcmp(argv[2], "paced");
	if (argc > 2 && !strcmp(argv[2], "deep"))
		fact_depth = 80;
	if (argc > 2 && !strcmp(argv[2], "threads")) {
		if (pthread_create(&t, NULL, work, NULL))
			return 1;
		work(NULL);
		pthread_join(t, NULL);
		return 0;
	}
	if (argc > 2 && !strcmp(argv[2], "fork")) {
		pid_t c = fork();

		work(NULL);
		if (c == 0)
			_exit(0);
		waitpid(c, NULL, 0);
		return 0;
	}
	work(NULL);
	return 0;
}
