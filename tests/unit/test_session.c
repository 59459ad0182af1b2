/* test_session.c - the session area's logic that needs no tracefs: which
 * tasks a pid list covers (tasks.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "../../lib/internal.h"

/* a pid that no task has any more: a child's, reaped */
static int gone_pid(void)
{
	pid_t p = fork();

	if (p == 0)
		_exit(0);
	assert_true(p > 0);
	assert_int_equal(waitpid(p, NULL, 0), p);
	return (int)p;
}

static void pid_lists(void **state)
{
	char list[64];

	snprintf(list, sizeof(list), "1\n%d\n", (int)getpid());
	assert_true(nop_pid_listed(list, (int)getpid()));
	assert_false(nop_pid_listed(list, (int)getpid() + 100000));
	assert_false(nop_pid_listed(NULL, 1));
}

/* traced: listed or descended from a listed task (1); gone, -1: the
 * kernel drops an exited child from the list before its calls are read,
 * and records other tasks' halves of context switches: only the forks
 * tell them apart (the pipeline's) */
static void traced_tasks(void **state)
{
	char list[64];

	snprintf(list, sizeof(list), "%d", (int)getppid());
	assert_int_equal(nop_pid_traced(list, (int)getpid(), 0), 1); /* the parent is listed */
	assert_int_equal(nop_pid_traced("999999999", (int)getpid(), 0), 0);
	assert_int_equal(nop_pid_traced("999999999", gone_pid(), 0), -1);
	assert_int_equal(nop_pid_traced("999999999", 0, 0), 0); /* the idle task */
	/* a child that existed before the list was written was never
	 * followed (issue 43: uoff's feeder under graph -p) */
	assert_int_equal(nop_pid_traced(list, (int)getpid(), nop_task_started((int)getpid()) + 1), 0);
	assert_int_equal(nop_pid_traced(list, (int)getpid(), nop_task_started((int)getpid())), 1);
	assert_true(nop_task_started((int)getpid()) > 0);
}

static void running_tasks(void **state)
{
	char list[64];

	snprintf(list, sizeof(list), "%d %d", gone_pid(), (int)getpid());
	assert_true(nop_pids_run(list));
	snprintf(list, sizeof(list), "%d", gone_pid());
	assert_false(nop_pids_run(list));
	assert_false(nop_pids_run(""));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(pid_lists),
		cmocka_unit_test(traced_tasks),
		cmocka_unit_test(running_tasks),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
