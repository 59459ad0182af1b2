/* test_session_journal.c - journal and restore on a scratch copy of the files
 * (plain files stand in for tracefs here; the VM suites test the kernel). */
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "../../lib/internal.h"
#include "unit.h"

static char dir[64], jdir[80];
static struct nop_replay replay_rep;
#define NULL_REPLAY (memset(&replay_rep, 0, sizeof(replay_rep)), &replay_rep)

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
	scratch_make(dir);
	snprintf(jdir, sizeof(jdir), "%s/run", dir);
	nop_journal_set_dir(jdir);
	return 0;
}

static int teardown(void **state)
{
	return scratch_remove(dir);
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
	assert_int_equal(nop_journal_finish(j, NULL_REPLAY, &err), 0);
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
	assert_int_equal(nop_journal_finish(j, NULL_REPLAY, &err), 0);
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
	/* a journal directory whose parent is missing (no /run): the path
	 * said, not the kernel blamed */
	snprintf(link, sizeof(link), "%s/gone/run", dir);
	nop_journal_set_dir(link);
	assert_int_equal(nop_journal_open(&j, dir, &err), -1);
	nop_journal_set_dir(jdir);
	assert_non_null(strstr(err.msg, "the directory it would be in does not exist"));
	assert_null(strstr(err.msg, "kernel"));
	assert_int_not_equal(err.status, NOP_EKERNEL);
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
	chmod(p, 0600); /* as nopctl creates its journals */
	return nop_journal_replay(p, NULL_REPLAY, &err);
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
	char text[4096], p[128];

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

/* A session killed with kill -9; another tool then set the top level
 * up for itself: the stale journal must not undo that. Only files that
 * still hold what nopctl wrote are put back; the others are named. */
static void replay_leaves_what_changed_since(void **state)
{
	char *v;

	put("current_tracer", "function_graph\n");
	put("set_ftrace_filter", "schedule\n");
	put("tracing_on", "1\n");
	put("tracing_cpumask", "3\n");
	/* nopctl: tracer function, filter do_sys_openat2, cpumask 3 */
	assert_int_equal(replay_body("file tracing_cpumask 330a\nwriting tracing_cpumask\n"
				     "holds tracing_cpumask 330a\n"
				     "file set_ftrace_filter 23232320616c6c0a\nwriting set_ftrace_filter\n"
				     "holds set_ftrace_filter 646f5f7379735f6f70656e6174320a\n"
				     "file tracing_on 310a\nwriting tracing_on\nholds tracing_on 300a\n"
				     "file current_tracer 6e6f700a\nwriting current_tracer\n"
				     "holds current_tracer 66756e6374696f6e0a\n"),
			 0);
	assert_string_equal(v = get("current_tracer"), "function_graph\n");
	free(v);
	assert_string_equal(v = get("set_ftrace_filter"), "schedule\n");
	free(v);
	/* follows current_tracer, which is someone else's now */
	assert_string_equal(v = get("tracing_on"), "1\n");
	free(v);
	/* ours still (another tool left it): put back ("3" was the prior) */
	assert_string_equal(v = get("tracing_cpumask"), "3");
	free(v);
	assert_int_equal(replay_rep.nleft, 3);
	assert_non_null(strstr(replay_rep.left, "current_tracer"));
	assert_non_null(strstr(replay_rep.left, "set_ftrace_filter"));
	assert_non_null(strstr(replay_rep.left, "tracing_on"));
}

/* Still nopctl's: all put back, current_tracer last; a write that was
 * cut (no "holds" after its "writing") is ours too. The top level nop
 * again, what its buffer holds was written by the session's own events
 * after the tracer's first switch back: emptied (issue 54 #11). */
static void replay_restores_what_is_still_ours(void **state)
{
	char *v;

	put("trace", "opener-412 [001] sched_process_exec: filename=/bin/usleep\n");
	put("current_tracer", "function\n");
	put("set_ftrace_filter", "do_sys_openat2\n");
	put("tracing_on", "0\n");
	assert_int_equal(replay_body("file set_ftrace_filter 23232320616c6c0a\nwriting set_ftrace_filter\n"
				     "holds set_ftrace_filter 646f5f7379735f6f70656e6174320a\n"
				     "file tracing_on 310a\nwriting tracing_on\nholds tracing_on 310a\n"
				     "file current_tracer 6e6f700a\nwriting current_tracer\n"
				     "holds current_tracer 66756e6374696f6e0a\nwriting tracing_on\n"),
			 0);
	assert_string_equal(v = get("current_tracer"), "nop");
	free(v);
	assert_string_equal(v = get("set_ftrace_filter"), "");
	free(v);
	assert_string_equal(v = get("tracing_on"), "1");
	free(v);
	assert_string_equal(v = get("trace"), "");
	free(v);
	assert_int_equal(replay_rep.nleft, 0);
}

/* Entries as they read back, in the form the kernel takes them. */
static void list_entries_written_back(void **state)
{
	char b[128];

	assert_string_equal(nop_list_writable("set_ftrace_filter", "ext4_sync_fs [ext4]", b, sizeof(b)),
			    "ext4_sync_fs:mod:ext4");
	assert_string_equal(nop_list_writable("set_graph_function", "ext4_sync_fs [ext4]", b, sizeof(b)),
			    "ext4_sync_fs");
	assert_string_equal(nop_list_writable("set_ftrace_filter", "schedule:traceoff:unlimited", b,
					      sizeof(b)), "schedule:traceoff");
	assert_string_equal(nop_list_writable("set_ftrace_filter", "schedule:traceoff:count=5", b,
					      sizeof(b)), "schedule:traceoff:5");
	assert_string_equal(nop_list_writable("set_ftrace_filter",
					      "vfs_read:enable_event:sched:sched_switch:unlimited", b,
					      sizeof(b)), "vfs_read:enable_event:sched:sched_switch");
	assert_string_equal(nop_list_writable("set_ftrace_filter", "vfs_read", b, sizeof(b)), "vfs_read");
}

/* A buffer whose CPUs differ reads "X": never written back as such. */
static void per_cpu_sizes_not_written_as_x(void **state)
{
	char *v;

	put("buffer_size_kb", "2048\n");
	assert_int_equal(replay_body("file buffer_size_kb 580a\nwriting buffer_size_kb\n"
				     "holds buffer_size_kb 323034380a\n"), 0);
	assert_string_equal(v = get("buffer_size_kb"), "2048\n");
	free(v);
}

/* A process that holds its journal is alive, whatever it is called (a
 * nopctl under valgrind or ld.so); one that does not is gone, even if
 * its pid now names a process called nopctl. */
/* a PID namespace for the test, as /proc/self/ns/pid reads */
static void pidns_is(const char *ns)
{
	static char link[2][128];
	static int which;

	which ^= 1; /* a new path: read anew */
	snprintf(link[which], sizeof(link[which]), "%s/ns-%d", dir, which);
	unlink(link[which]);
	assert_int_equal(symlink(ns, link[which]), 0);
	nop_pidns_link = link[which];
}

static void liveness_is_the_journal_lock(void **state)
{
	struct nop_reset_report rep;
	struct nop_error err;
	int go[2], done[2];
	char inst[160], c;
	pid_t live, impostor;

	pidns_is("pid:[4026531836]"); /* the first namespace */
	snprintf(inst, sizeof(inst), "%s/instances", dir);
	mkdir(inst, 0700);
	assert_int_equal(pipe(go), 0);
	assert_int_equal(pipe(done), 0);
	if ((live = fork()) == 0) {
		struct nop_journal *j;

		close(done[1]);
		prctl(PR_SET_NAME, "valgrind");
		if (nop_journal_open(&j, dir, &err))
			_exit(1);
		if (write(go[1], "x", 1) != 1 || read(done[0], &c, 1) < 0)
			_exit(1);
		_exit(0);
	}
	assert_int_equal(read(go[0], &c, 1), 1);
	if ((impostor = fork()) == 0) {
		close(done[1]);
		prctl(PR_SET_NAME, "nopctl-impostor");
		if (read(done[0], &c, 1) < 0)
			_exit(1);
		_exit(0);
	}
	snprintf(inst, sizeof(inst), "%s/instances/nopctl-%d", dir, (int)live);
	mkdir(inst, 0700);
	snprintf(inst, sizeof(inst), "%s/instances/nopctl-%d", dir, (int)impostor);
	mkdir(inst, 0700);
	{
		char p[160];
		FILE *f;

		snprintf(p, sizeof(p), "%s/%d.journal", jdir, (int)impostor);
		f = fopen(p, "w");
		fprintf(f, "nopctl-journal 1\ntracing %s\ninstance nopctl-%d\n", dir, (int)impostor);
		fclose(f);
		chmod(p, 0600);
	}
	assert_true(nop_owner_alive(live));
	assert_false(nop_owner_alive(impostor));
	assert_int_equal(nop_reset_stale(dir, &rep, &err), 0);
	assert_int_equal(rep.live_sessions, 1);
	assert_int_equal(rep.restored_journals, 1);
	snprintf(inst, sizeof(inst), "%s/instances/nopctl-%d", dir, (int)live);
	assert_int_equal(access(inst, F_OK), 0);
	snprintf(inst, sizeof(inst), "%s/instances/nopctl-%d", dir, (int)impostor);
	assert_int_equal(access(inst, F_OK), -1);
	close(done[1]);
	waitpid(live, NULL, 0);
	waitpid(impostor, NULL, 0);
	/* its journal stays with it: the live one left it, nobody replayed it */
	assert_false(nop_owner_alive(live));
}

/* A pid list the kernel grows (children followed) or empties (tasks that
 * exit) is still nopctl's; one holding only other pids is someone's. Probe
 * events' set_event_pid too (event-fork; the top level's was said to be
 * someone else's change when the traced command exited). */
static void pid_lists_followed_by_the_kernel(void **state)
{
	static const char *const files[] = { "set_ftrace_pid", "set_event_pid" };

	for (size_t i = 0; i < ARRAY_SIZE(files); i++) {
		const char *f = files[i];
		char body[256], *v;

		/* "no pid" -> "123" */
		snprintf(body, sizeof(body), "file %s 6e6f207069640a\nwriting %s\nholds %s 3132330a\n", f, f, f);
		put(f, "123\n456\n");
		assert_int_equal(replay_body(body), 0);
		assert_string_equal(v = get(f), "");
		free(v);
		put(f, "no pid\n");
		assert_int_equal(replay_body(body), 0);
		assert_int_equal(replay_rep.nleft, 0);
		put(f, "789\n");
		assert_int_equal(replay_body(body), 0);
		assert_string_equal(v = get(f), "789\n");
		free(v);
		assert_int_equal(replay_rep.nleft, 1);
	}
}

/* A session that holds a shared setting in a child process: it takes
 * max_graph_depth=val, says how that went, and waits; a byte on hold lets
 * it release and exit, SIGKILL is a kill -9. */
struct user {
	pid_t pid;
	int hold, status;
};

static void user_start(struct user *u, const char *val)
{
	int said[2], hold[2];
	unsigned char st;

	assert_int_equal(pipe(said), 0);
	assert_int_equal(pipe(hold), 0);
	if ((u->pid = fork()) == 0) {
		struct nop_journal *j;
		struct nop_error err = { 0 };
		struct nop_replay rep = { 0 };
		char c;

		close(hold[1]);
		if (nop_journal_open(&j, dir, &err))
			_exit(1);
		st = nop_shared_take(dir, dir, "max_graph_depth", val, false, &err) ? err.status : 0;
		if (write(said[1], &st, 1) != 1 || read(hold[0], &c, 1) < 0)
			_exit(1);
		nop_journal_finish(j, &rep, &err);
		_exit(nop_shared_release(dir, getpid(), &rep, &err) ? 1 : 0);
	}
	close(hold[0]);
	close(said[1]);
	assert_int_equal(read(said[0], &st, 1), 1);
	close(said[0]);
	u->hold = hold[1];
	u->status = st;
}

static void user_end(struct user *u, bool kill9)
{
	int ws;

	if (kill9)
		kill(u->pid, SIGKILL);
	else /* a byte, not EOF: later children hold this pipe's end too */
		assert_int_equal(write(u->hold, "x", 1), 1);
	close(u->hold);
	assert_int_equal(waitpid(u->pid, &ws, 0), u->pid);
}

static void depth_is(const char *want)
{
	char *v = get("max_graph_depth");

	assert_string_equal(nop_trim(v), want);
	free(v);
}

/* Two or three sessions sharing max_graph_depth, in every order of exit
 * and with kill -9: one value at a time, and the one before the first
 * user once the last is gone. */
static void shared_settings_one_value_at_a_time(void **state)
{
	struct nop_reset_report rep;
	struct nop_error err;
	struct user a, b, c;

	put("max_graph_depth", "0\n");
	/* A 3, then B 5: refused while A lives, never written */
	user_start(&a, "3");
	assert_int_equal(a.status, 0);
	depth_is("3");
	user_start(&b, "5");
	assert_int_equal(b.status, NOP_EBUSY);
	depth_is("3");
	user_end(&b, false);
	depth_is("3");
	user_end(&a, false);
	depth_is("0");
	/* every order of exit, each by exit or by kill -9 */
	for (int order = 0; order < 2; order++) {
		for (int k = 0; k < 4; k++) {
			user_start(&a, "3");
			user_start(&b, "3");
			assert_int_equal(b.status, 0);
			user_end(order ? &b : &a, k & 1);
			depth_is("3"); /* the other still runs */
			user_end(order ? &a : &b, k & 2);
			if (k & 2) /* the last killed: the next nopctl puts it back */
				assert_int_equal(nop_reset_stale(dir, &rep, &err), 0);
			depth_is("0");
		}
	}
	/* three: B ends, A is killed, C ends last */
	user_start(&a, "3");
	user_start(&b, "3");
	user_start(&c, "3");
	user_end(&b, false);
	user_end(&a, true);
	depth_is("3");
	user_end(&c, false);
	depth_is("0");
	/* changed by someone after the last user died: theirs */
	user_start(&a, "3");
	user_end(&a, true);
	put("max_graph_depth", "7\n");
	assert_int_equal(nop_reset_stale(dir, &rep, &err), 0);
	depth_is("7");
	assert_int_equal(rep.left_files, 1);
}

/* issue 13 #17, 41 #15: tracefs is shared between containers, /run/nopctl
 * and pids are not. An instance of another PID namespace has no owner
 * here, whatever pid it names: a reset removes it only if nobody holds it;
 * in a container, names carry its namespace. */
static void other_namespaces_instances_unheld_removed(void **state)
{
	struct nop_reset_report rep;
	struct nop_error err;
	char p[160], name[64];

	snprintf(p, sizeof(p), "%s/instances", dir);
	mkdir(p, 0700);
	/* from the first namespace: a container's nopctl-999999, its pid
	 * meaningless here; a live session holds a file of it open (the
	 * kernel then refuses the rmdir); nobody does here: removed */
	pidns_is("pid:[4026531836]");
	snprintf(p, sizeof(p), "%s/instances/nopctl-999999-ns4026532301", dir);
	mkdir(p, 0700);
	assert_int_equal(nop_instance_owner("nopctl-999999-ns4026532301"), 0);
	assert_int_equal(nop_reset_stale(dir, &rep, &err), 0);
	assert_int_equal(access(p, F_OK), -1);
	assert_int_equal(rep.removed_instances, 1);
	/* not a name nopctl gives: never touched */
	snprintf(p, sizeof(p), "%s/instances/nopctl-999999-nsx", dir);
	mkdir(p, 0700);
	assert_int_equal(nop_reset_stale(dir, &rep, &err), 0);
	assert_int_equal(access(p, F_OK), 0);
	rmdir(p);
	/* in a container: its own instances carry its namespace; the host's
	 * nopctl-999999 has no owner here, and goes only unheld */
	pidns_is("pid:[4026532301]");
	nop_instance_name(name, sizeof(name), 999999);
	assert_string_equal(name, "nopctl-999999-ns4026532301");
	assert_int_equal(nop_instance_owner(name), 999999);
	assert_int_equal(nop_instance_owner("nopctl-999999"), 0);
	snprintf(p, sizeof(p), "%s/instances/nopctl-999999", dir);
	mkdir(p, 0700);
	assert_int_equal(nop_reset_stale(dir, &rep, &err), 0);
	assert_int_equal(access(p, F_OK), -1);
	/* its own stale one goes, also when the pid is ours (a container's
	 * nopctl is pid 1 every time): cleanup comes before our first change */
	snprintf(p, sizeof(p), "%s/instances/%s", dir, name);
	mkdir(p, 0700);
	assert_int_equal(nop_reset_stale(dir, &rep, &err), 0);
	assert_int_equal(access(p, F_OK), -1);
	assert_int_equal(rep.removed_instances, 1);
	nop_instance_name(name, sizeof(name), getpid());
	snprintf(p, sizeof(p), "%s/instances/%s", dir, name);
	mkdir(p, 0700);
	assert_int_equal(nop_reset_stale(dir, &rep, &err), 0);
	assert_int_equal(access(p, F_OK), -1);
	pidns_is("pid:[4026531836]");
}

/* nop_read_file asks for 64 KiB a read: a file of many reads, its size
 * no multiple of that, comes back whole and exact, NUL-terminated */
static void read_file_whole_in_many_reads(void **state)
{
	size_t n = 5 * 65536 + 12345, len = 0;
	char *want = malloc(n), *got, p[128];
	FILE *f;

	assert_non_null(want);
	for (size_t i = 0; i < n; i++)
		want[i] = (char)('a' + (i * 7 + i / 4096) % 26);
	snprintf(p, sizeof(p), "%s/big", dir);
	assert_non_null(f = fopen(p, "w"));
	assert_int_equal(fwrite(want, 1, n, f), n);
	fclose(f);
	assert_non_null(got = nop_read_file(p, &len, NULL));
	assert_int_equal(len, n);
	assert_memory_equal(got, want, n);
	assert_int_equal(got[n], 0);
	free(got);
	free(want);
}

/* issue 41 #6: a journal is trusted only when it is nopctl's own kind of
 * file (regular, ours, 0600, one name) and names the tracing directory
 * this nopctl uses; any other is left in place, nothing of it replayed */
static void planted_journals_left_alone(void **state)
{
	struct nop_reset_report rep;
	struct nop_error err;
	char p[160], other[] = "/dev/shm/nopctl-jt-XXXXXX", *v;
	FILE *f;

	put("tracing_on", "1\n");
	mkdir(jdir, 0700);
	/* readable by others: not one nopctl wrote */
	snprintf(p, sizeof(p), "%s/99999991.journal", jdir);
	f = fopen(p, "w");
	fprintf(f, "nopctl-journal 1\ntracing %s\nfile tracing_on 30\n", dir);
	fclose(f);
	chmod(p, 0644);
	assert_int_equal(nop_reset_stale(dir, &rep, &err), 0);
	assert_string_equal(v = get("tracing_on"), "1\n");
	free(v);
	assert_int_equal(access(p, F_OK), 0); /* left where it was */
	assert_non_null(strstr(rep.left, "not trusted"));
	unlink(p);
	/* naming a directory that is not the tracing directory in use */
	assert_non_null(mkdtemp(other));
	snprintf(p, sizeof(p), "%s/tracing_on", other);
	f = fopen(p, "w");
	fputs("1\n", f);
	fclose(f);
	snprintf(p, sizeof(p), "%s/99999992.journal", jdir);
	f = fopen(p, "w");
	fprintf(f, "nopctl-journal 1\ntracing %s\nfile tracing_on 30\n", other);
	fclose(f);
	chmod(p, 0600);
	assert_int_equal(nop_reset_stale(dir, &rep, &err), 0);
	snprintf(p, sizeof(p), "%s/tracing_on", other);
	f = fopen(p, "r");
	assert_non_null(f);
	assert_int_equal(fgetc(f), '1');
	fclose(f);
	assert_non_null(strstr(rep.left, "not the tracing directory"));
	unlink(p);
	rmdir(other);
	snprintf(p, sizeof(p), "%s/99999992.journal", jdir);
	unlink(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(restore_values, setup, teardown),
		cmocka_unit_test_setup_teardown(planted_journals_left_alone, setup, teardown),
		cmocka_unit_test_setup_teardown(read_file_whole_in_many_reads, setup, teardown),
		cmocka_unit_test_setup_teardown(restore_dropped_promise, setup, teardown),
		cmocka_unit_test_setup_teardown(journal_dir_must_be_private, setup, teardown),
		cmocka_unit_test_setup_teardown(replay_rejects_garbage, setup, teardown),
		cmocka_unit_test_setup_teardown(replay_ignores_cut_lines, setup, teardown),
		cmocka_unit_test_setup_teardown(replay_stays_inside, setup, teardown),
		cmocka_unit_test_setup_teardown(replay_leaves_what_changed_since, setup, teardown),
		cmocka_unit_test_setup_teardown(replay_restores_what_is_still_ours, setup, teardown),
		cmocka_unit_test_setup_teardown(list_entries_written_back, setup, teardown),
		cmocka_unit_test_setup_teardown(per_cpu_sizes_not_written_as_x, setup, teardown),
		cmocka_unit_test_setup_teardown(liveness_is_the_journal_lock, setup, teardown),
		cmocka_unit_test_setup_teardown(pid_lists_followed_by_the_kernel, setup, teardown),
		cmocka_unit_test_setup_teardown(shared_settings_one_value_at_a_time, setup, teardown),
		cmocka_unit_test_setup_teardown(other_namespaces_instances_unheld_removed, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
