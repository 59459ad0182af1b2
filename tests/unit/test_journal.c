/* test_journal.c - journal and restore on a scratch copy of the files
 * (plain files stand in for tracefs here; the VM suites test the kernel). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "../../lib/internal.h"

static char dir[64], jdir[80];

static void put(const char *rel, const char *v)
{
	char p[256];
	FILE *f;

	snprintf(p, sizeof(p), "%s/%s", dir, rel);
	f = fopen(p, "w");
	fputs(v, f);
	fclose(f);
}

static char *get(const char *rel)
{
	char p[256];

	snprintf(p, sizeof(p), "%s/%s", dir, rel);
	return nop_read_file(p, NULL, NULL);
}

static int setup(void **state)
{
	strcpy(dir, "/tmp/nopctl-jt-XXXXXX");
	assert_non_null(mkdtemp(dir));
	snprintf(jdir, sizeof(jdir), "%s/run", dir);
	nop_journal_set_dir(jdir);
	return 0;
}

static int teardown(void **state)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	return system(cmd);
}

static void restore_values(void **state)
{
	struct nop_journal *j;
	struct nop_error err;
	char *v;

	put("current_tracer", "nop\n");
	put("buffer_size_kb", "7 (expanded: 1408)\n");
	put("trace_clock", "[local] global counter\n");
	assert_int_equal(nop_journal_open(&j, dir, &err), 0);
	assert_int_equal(nop_journal_file(j, "current_tracer", "nop\n", &err), 0);
	assert_int_equal(nop_journal_file(j, "buffer_size_kb", "7 (expanded: 1408)\n", &err), 0);
	assert_int_equal(nop_journal_file(j, "trace_clock", "[local] global counter\n", &err), 0);
	/* a second record of one file: the oldest value wins */
	assert_int_equal(nop_journal_file(j, "current_tracer", "function\n", &err), 0);
	put("current_tracer", "function_graph");
	put("trace_clock", "global");
	assert_int_equal(nop_journal_finish(j, &err), 0);
	assert_string_equal(v = get("current_tracer"), "nop");
	free(v);
	/* still unexpanded (6.12 and later keep the top level's promise when
	 * an instance traces): left alone, a write would allocate it */
	assert_string_equal(v = get("buffer_size_kb"), "7 (expanded: 1408)\n");
	free(v);
	assert_string_equal(v = get("trace_clock"), "local");
	free(v);
	/* the journal is gone once restored */
	char jp[128];

	snprintf(jp, sizeof(jp), "%s/%d.journal", jdir, (int)getpid());
	assert_int_equal(access(jp, F_OK), -1);
}

/* 6.1 drops the promise at the first tracer use anywhere: the top level
 * then reads a bare 7 and would trace into 7 KB; it gets the promised size */
static void restore_dropped_promise(void **state)
{
	struct nop_journal *j;
	struct nop_error err;
	char *v;

	put("buffer_size_kb", "7 (expanded: 1408)\n");
	assert_int_equal(nop_journal_open(&j, dir, &err), 0);
	assert_int_equal(nop_journal_file(j, "buffer_size_kb", "7 (expanded: 1408)\n", &err), 0);
	put("buffer_size_kb", "7\n");
	assert_int_equal(nop_journal_finish(j, &err), 0);
	assert_string_equal(v = get("buffer_size_kb"), "1408");
	free(v);
}

static void journal_dir_must_be_private(void **state)
{
	struct nop_journal *j;
	struct nop_error err;
	char link[128];

	mkdir(jdir, 0700);
	chmod(jdir, 0777);
	assert_int_equal(nop_journal_open(&j, dir, &err), -1);
	assert_non_null(strstr(err.msg, "refusing"));
	rmdir(jdir);
	snprintf(link, sizeof(link), "%s/elsewhere", dir);
	mkdir(link, 0700);
	assert_int_equal(symlink(link, jdir), 0);
	assert_int_equal(nop_journal_open(&j, dir, &err), -1);
	assert_non_null(strstr(err.msg, "refusing"));
	unlink(jdir);
}

/* replay a journal of this text; its path in p */
static int replay_text(const char *text, char *p, size_t len)
{
	struct nop_error err;
	FILE *f;

	mkdir(jdir, 0700);
	snprintf(p, len, "%s/99999999.journal", jdir);
	f = fopen(p, "w");
	fputs(text, f);
	fclose(f);
	return nop_journal_replay(p, NULL, &err);
}

static void replay_rejects_garbage(void **state)
{
	char p[128];

	assert_int_equal(replay_text("something else\n", p, sizeof(p)), -1);
	assert_int_equal(access(p, F_OK), 0); /* left for a person to look at */
}

/* replay a journal of the given body (after its two header lines) */
static int replay_body(const char *body)
{
	char text[1024], p[128];

	snprintf(text, sizeof(text), "nopctl-journal 1\ntracing %s\n%s", dir, body);
	return replay_text(text, p, sizeof(p));
}

/* A journal cut short (ENOSPC, RLIMIT_FSIZE, a crash mid-write) ends in a
 * line without its newline: "file buffer_size_kb 31" would set the buffer
 * to 1 KB. Only whole lines count, and only whole bytes of hex. */
static void replay_ignores_cut_lines(void **state)
{
	char *v;

	put("buffer_size_kb", "1408\n");
	put("current_tracer", "function\n");
	assert_int_equal(replay_body("file buffer_size_kb 31"), 0);
	assert_string_equal(v = get("buffer_size_kb"), "1408\n");
	free(v);
	assert_int_equal(replay_body("file current_tracer 6e6f7\n"), 0); /* "no" and half a byte */
	assert_string_equal(v = get("current_tracer"), "function\n");
	free(v);
}

/* Names in a journal are data: none may lead out of the tracing directory. */
static void replay_stays_inside(void **state)
{
	char victim[128], outside[128];
	struct stat st;

	snprintf(victim, sizeof(victim), "%s/victim", dir);
	mkdir(victim, 0700);
	snprintf(outside, sizeof(outside), "%s/instances", dir);
	mkdir(outside, 0700);
	assert_int_equal(replay_body("instance ../victim\n"), 0);
	assert_int_equal(stat(victim, &st), 0); /* not removed */
	snprintf(outside, sizeof(outside), "%s/../nopctl-jt-outside", dir);
	assert_int_equal(replay_body("file ../nopctl-jt-outside 6f6b\nfile /tmp/nopctl-jt-abs 6f6b\n"), 0);
	assert_int_equal(access(outside, F_OK), -1);
	assert_int_equal(access("/tmp/nopctl-jt-abs", F_OK), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(restore_values, setup, teardown),
		cmocka_unit_test_setup_teardown(restore_dropped_promise, setup, teardown),
		cmocka_unit_test_setup_teardown(journal_dir_must_be_private, setup, teardown),
		cmocka_unit_test_setup_teardown(replay_rejects_garbage, setup, teardown),
		cmocka_unit_test_setup_teardown(replay_ignores_cut_lines, setup, teardown),
		cmocka_unit_test_setup_teardown(replay_stays_inside, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
