/* test_alloc.c - an allocation that fails anywhere in a report: the run
 * ends non-zero with a message, or, where nopctl can do without it, with
 * exactly the output of a run where nothing failed; never a quiet success
 * with less. malloc, calloc, realloc and strdup of nopctl's own code are
 * wrapped (-Wl,--wrap, see tests.mk): in a child, the Nth one fails. */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "../../cmd/cmd.h"

static long calls, fail_at = -1;

static bool fail_now(void)
{
	return ++calls == fail_at;
}

void *__real_malloc(size_t n);
void *__real_calloc(size_t n, size_t sz);
void *__real_realloc(void *p, size_t n);
char *__real_strdup(const char *s);

void *__wrap_malloc(size_t n)
{
	return fail_now() ? (errno = ENOMEM, NULL) : __real_malloc(n);
}

void *__wrap_calloc(size_t n, size_t sz)
{
	return fail_now() ? (errno = ENOMEM, NULL) : __real_calloc(n, sz);
}

void *__wrap_realloc(void *p, size_t n)
{
	return fail_now() ? (errno = ENOMEM, NULL) : __real_realloc(p, n);
}

char *__wrap_strdup(const char *s)
{
	return fail_now() ? (errno = ENOMEM, NULL) : __real_strdup(s);
}

/* nopctl report ARGS FILE in a child whose Nth allocation fails (0: none);
 * its stdout and stderr in files; returns its exit code, *used the number
 * of allocations it made */
static int report(const char *file, bool stats, enum nop_encoding enc, long n, long *used)
{
	int pfd[2], rc;
	pid_t pid;

	assert_int_equal(pipe(pfd), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		const char *pats[] = { file };
		struct opts o = { .patterns = pats, .npatterns = 1, .stats = stats, .enc = enc };
		int out = open("/tmp/nopctl-alloc.out", O_WRONLY | O_CREAT | O_TRUNC, 0600);
		int err = open("/tmp/nopctl-alloc.err", O_WRONLY | O_CREAT | O_TRUNC, 0600);

		dup2(out, 1);
		dup2(err, 2);
		close(pfd[0]);
		fail_at = n ? n : -1;
		calls = 0;
		rc = cmd_report(&o);
		fflush(stdout);
		fflush(stderr);
		if (write(pfd[1], &calls, sizeof(calls)) < 0)
			_exit(99);
		_exit(rc);
	}
	close(pfd[1]);
	if (read(pfd[0], used, sizeof(*used)) != sizeof(*used))
		*used = 0;
	close(pfd[0]);
	assert_int_equal(waitpid(pid, &rc, 0), pid);
	assert_true(WIFEXITED(rc));
	return WEXITSTATUS(rc);
}

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf = NULL;
	size_t len = 0, n;
	char chunk[4096];

	assert_non_null(f);
	while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0) {
		buf = __real_realloc(buf, len + n + 1);
		memcpy(buf + len, chunk, n);
		len += n;
	}
	fclose(f);
	if (!buf)
		buf = __real_calloc(1, 1);
	buf[len] = 0;
	return buf;
}

static void every_failure_reported(const char *file, bool stats, enum nop_encoding enc)
{
	long used = 0, u;
	char *want, *got, *msg;
	int rc = report(file, stats, enc, 0, &used);

	assert_int_equal(rc, 0);
	assert_true(used > 0);
	want = slurp("/tmp/nopctl-alloc.out");
	for (long n = 1; n <= used; n++) {
		rc = report(file, stats, enc, n, &u);
		got = slurp("/tmp/nopctl-alloc.out");
		msg = slurp("/tmp/nopctl-alloc.err");
		if (rc == 0 && strcmp(got, want))
			fail_msg("allocation %ld of %ld failed: exit 0 with other output (stderr: %.200s)", n,
				 used, msg);
		if (rc != 0 && !strstr(msg, "nopctl: "))
			fail_msg("allocation %ld of %ld failed: exit %d without a message", n, used, rc);
		free(got);
		free(msg);
	}
	free(want);
}

static void report_graph_text(void **state)
{
	every_failure_reported("../fuzz/corpus/dat/graph-6.12.dat", false, NOP_ENC_TEXT);
}

static void report_graph_stats(void **state)
{
	every_failure_reported("../fuzz/corpus/dat/graph-6.12.dat", true, NOP_ENC_TEXT);
}

static void report_functions_json(void **state)
{
	every_failure_reported("../fuzz/corpus/dat/stack-6.1.dat", false, NOP_ENC_JSON);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(report_graph_text),
		cmocka_unit_test(report_graph_stats),
		cmocka_unit_test(report_functions_json),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
