/* test_tracefs.c - the tracefs area: available_filter_functions parsed,
 * matched and suggested from; a buffer's per-CPU counters and size as the
 * kernel writes them (files laid out here as tracefs has them), and its
 * settings as status shows them; event filters checked before they are
 * written. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <cmocka.h>

#include "../../lib/internal.h"
#include "unit.h"

static const char funcs_text[] =
	"do_sys_openat2\n"
	"do_sys_open\n"
	"vfs_read\n"
	"vfs_write\n"
	"foo.isra.0\n"
	"ext4_file_read_iter [ext4]\n"
	"ext4_file_write_iter [ext4]\n"
	"vfs_read\n" /* two static functions of one name */
	"__x64_sys_openat\n";

static void funcs_match(void **state)
{
	struct nop_funcs f;
	struct nop_error err;

	assert_int_equal(nop_funcs_parse(funcs_text, &f, &err), 0);
	assert_int_equal(f.n, 9);
	assert_string_equal(f.v[5].module, "ext4");
	assert_null(f.v[0].module);
	assert_int_equal(nop_funcs_count(&f, "vfs_*", NULL), 3);
	assert_int_equal(nop_funcs_count(&f, "do_sys_open", NULL), 1); /* exact, not a prefix */
	assert_int_equal(nop_funcs_count(&f, "*_read*", "ext4"), 1);
	assert_int_equal(nop_funcs_count(&f, "vfs_read", "ext4"), 0);
	assert_int_equal(nop_funcs_count(&f, "foo", NULL), 0);
	assert_int_equal(nop_funcs_count(&f, "do_sys_open[a-z]*", NULL), 1);
	nop_funcs_free(&f);
}

static void funcs_suggest(void **state)
{
	struct nop_funcs f;
	struct nop_error err;
	const char *s[5];
	size_t n;

	assert_int_equal(nop_funcs_parse(funcs_text, &f, &err), 0);
	n = nop_funcs_suggest(&f, "do_sys_open2", s, 5);
	assert_int_equal(n, 2); /* do_sys_open (1 edit) and do_sys_openat2 (2) */
	assert_string_equal(s[0], "do_sys_open");
	assert_string_equal(s[1], "do_sys_openat2");
	n = nop_funcs_suggest(&f, "foo", s, 5);
	assert_int_equal(n, 1);
	assert_string_equal(s[0], "foo.isra.0");
	n = nop_funcs_suggest(&f, "vfs_raed", s, 5);
	assert_true(n >= 1);
	assert_string_equal(s[0], "vfs_read");
	for (size_t i = 1; i < n; i++)
		assert_string_not_equal(s[i], "vfs_read"); /* listed once */
	assert_int_equal(nop_funcs_suggest(&f, "completely_unrelated_name", s, 5), 0);
	nop_funcs_free(&f);
}

/* dir/per_cpu/cpuN/name holding text */
static void put_file(const char *dir, int cpu, const char *name, const char *text)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/per_cpu", dir);
	mkdir(path, 0700);
	snprintf(path, sizeof(path), "%s/per_cpu/cpu%d", dir, cpu);
	mkdir(path, 0700);
	snprintf(path, sizeof(path), "per_cpu/cpu%d/%s", cpu, name);
	put_text(dir, path, text);
}

/* per_cpu/cpuN/stats as 6.12 writes it: "commit overrun" is no
 * "overrun", the timestamps are passed over */
static void cpu_stats_parsed(void **state)
{
	char dir[] = "/tmp/nopctl-tracefs-XXXXXX", cmd[300];
	struct nop_cpu_stats st;
	struct nop_error err;

	assert_non_null(mkdtemp(dir));
	put_file(dir, 0, "stats", "entries: 12\noverrun: 3\ncommit overrun: 5\nbytes: 4096\n"
				  "oldest event ts:  1234.567890\nnow ts:  1240.000001\n"
				  "dropped events: 7\nread events: 42\n");
	assert_int_equal(nop_cpu_stats_read(dir, 0, &st, &err), 0);
	assert_int_equal(st.entries, 12);
	assert_int_equal(st.overrun, 3);
	assert_int_equal(st.commit_overrun, 5);
	assert_int_equal(st.bytes, 4096);
	assert_int_equal(st.dropped, 7);
	assert_int_equal(st.read, 42);
	assert_int_equal(nop_cpu_stats_read(dir, 1, &st, &err), -1); /* no such CPU */
	snprintf(cmd, sizeof(cmd), "rm -r %s", dir);
	assert_int_equal(system(cmd), 0);
}

/* buffer_size_kb: a size, or a boot's placeholder before its first
 * tracing ("7 (expanded: 1408)"): the size tracing uses */
static void buffer_size_kb(void **state)
{
	char dir[] = "/tmp/nopctl-tracefs-XXXXXX", cmd[300];

	assert_non_null(mkdtemp(dir));
	put_file(dir, 0, "buffer_size_kb", "7 (expanded: 1408)\n");
	put_file(dir, 1, "buffer_size_kb", "4096\n");
	put_file(dir, 2, "buffer_size_kb", "nonsense\n");
	assert_int_equal(nop_cpu_buffer_kb(dir, 0), 1408);
	assert_int_equal(nop_cpu_buffer_kb(dir, 1), 4096);
	assert_int_equal(nop_cpu_buffer_kb(dir, 2), -1);
	assert_int_equal(nop_cpu_buffer_kb(dir, 3), -1); /* unreadable */
	snprintf(cmd, sizeof(cmd), "rm -r %s", dir);
	assert_int_equal(system(cmd), 0);
}

/* a buffer's settings as status shows them: list files' entries only
 * (the kernel's "####" comment and "no pid" are none), a file the buffer
 * lacks (an instance's set_graph_function) not had */
static void buffer_state(void **state)
{
	char dir[] = "/tmp/nopctl-tracefs-XXXXXX", cmd[300];
	struct nop_buffer_state st;

	assert_non_null(mkdtemp(dir));
	put_text(dir, "current_tracer", "function_graph\n");
	put_text(dir, "tracing_on", "1\n");
	put_text(dir, "set_ftrace_filter", "vfs_read\ndo_sys_openat2\n");
	put_text(dir, "set_ftrace_notrace", "#### no functions disabled ####\n");
	put_text(dir, "set_ftrace_pid", "no pid\n");
	for (int cpu = 0; cpu < nop_ncpus(); cpu++)
		put_file(dir, cpu, "stats", "entries: 1\noverrun: 2\ncommit overrun: 3\ndropped events: 4\n");
	assert_int_equal(nop_buffer_state_read(dir, &st), 0);
	assert_string_equal(st.tracer, "function_graph");
	assert_true(st.on);
	assert_true(st.has[NOP_LIST_FILTER] && st.has[NOP_LIST_NOTRACE] && st.has[NOP_LIST_PID]);
	assert_false(st.has[NOP_LIST_GRAPH]);
	assert_string_equal(st.list[NOP_LIST_FILTER], "vfs_read do_sys_openat2");
	assert_int_equal(st.nlist[NOP_LIST_FILTER], 2);
	assert_string_equal(st.list[NOP_LIST_NOTRACE], "");
	assert_int_equal(st.nlist[NOP_LIST_PID], 0);
	assert_int_equal(st.counts.overrun, 2ULL * (unsigned)nop_ncpus());
	assert_int_equal(st.counts.dropped, 4ULL * (unsigned)nop_ncpus());
	nop_buffer_state_free(&st);
	snprintf(cmd, sizeof(cmd), "rm -r %s", dir);
	assert_int_equal(system(cmd), 0);
}

/* a filter is one line of printable ASCII, NOP_EVENT_FILTER_MAX bytes at
 * most: a newline would end it there, the rest read as another */
static void event_filters(void **state)
{
	struct nop_error err;
	char *big = malloc(NOP_EVENT_FILTER_MAX + 2);

	assert_non_null(big);
	assert_int_equal(nop_event_filter_check("prev_state == 2", &err), 0);
	assert_int_equal(nop_event_filter_check("comm ~ \"cat*\" && pid != 1", &err), 0);
	assert_int_equal(nop_event_filter_check("", &err), -1);
	assert_int_equal(nop_event_filter_check("prev_state == 2\n0", &err), -1);
	assert_int_equal(err.status, NOP_EUSAGE);
	assert_int_equal(nop_event_filter_check("pid == 1\x7f", &err), -1);
	assert_int_equal(nop_event_filter_check("comm == \"\xc3\xa9\"", &err), -1);
	memset(big, 'a', NOP_EVENT_FILTER_MAX);
	big[NOP_EVENT_FILTER_MAX] = 0;
	assert_int_equal(nop_event_filter_check(big, &err), 0);
	big[NOP_EVENT_FILTER_MAX] = 'a';
	big[NOP_EVENT_FILTER_MAX + 1] = 0;
	assert_int_equal(nop_event_filter_check(big, &err), -1);
	free(big);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(funcs_match),
		cmocka_unit_test(funcs_suggest),
		cmocka_unit_test(cpu_stats_parsed),
		cmocka_unit_test(buffer_size_kb),
		cmocka_unit_test(buffer_state),
		cmocka_unit_test(event_filters),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
