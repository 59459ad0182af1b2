/* test_blackbox.c - the persistent instance's last_boot_info as 6.12 and
 * 6.15+ write it, and a journaled file of an instance put back as the
 * kernel takes it (plain files stand in for tracefs; t-blackbox.sh boots
 * the kernels). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "../../lib/internal.h"
#include "unit.h"

static char dir[64];

static void put(const char *rel, const char *v)
{
	put_text(dir, rel, v);
}

static int setup(void **state)
{
	snprintf(dir, sizeof(dir), "/tmp/nopctl-bbox-XXXXXX");
	scratch_make(dir);
	return 0;
}

static int teardown(void **state)
{
	return scratch_remove(dir);
}

/* 6.12: "text delta:\t%ld\ndata delta:\t%ld"; "data" reads as hex
 * digits, and must not be taken for an address */
static void delta_of_6_12(void **state)
{
	struct bbox_boot bt;

	put("last_boot_info", "text delta:\t-429916160\ndata delta:\t-429916160\n");
	assert_int_equal(bbox_boot_read(dir, &bt), 0);
	assert_true(bt.known);
	assert_int_equal(bt.delta, -429916160LL);
	assert_int_equal(bt.nmods, 0);
	bbox_boot_free(&bt);
}

/* 6.15 and later: the previous boot's _text and its modules, sorted by
 * address; "# Current" once this boot traced there: nothing */
static void modules_of_6_15(void **state)
{
	struct bbox_boot bt;

	put("last_boot_info", "ffffffff9a200000\t[kernel]\nffffffffc0a10000\tdummy\nffffffffc0800000\text4\n");
	assert_int_equal(bbox_boot_read(dir, &bt), 0);
	assert_int_equal(bt.nmods, 2);
	assert_string_equal(bt.mods[0].name, "ext4");
	assert_true(bt.mods[0].prev == 0xffffffffc0800000ULL);
	assert_string_equal(bt.mods[1].name, "dummy");
	bbox_boot_free(&bt);
	put("last_boot_info", "# Current\n");
	assert_int_equal(bbox_boot_read(dir, &bt), -1);
	bbox_boot_free(&bt);
}

/* an instance's pid list journaled as "no pid" is put back empty, as a
 * top-level one is (the kernel refuses the words) */
static void instance_list_put_back(void **state)
{
	char p[256], *v;
	struct nop_error err;

	snprintf(p, sizeof(p), "%s/instances", dir);
	mkdir(p, 0700);
	snprintf(p, sizeof(p), "%s/instances/nopctl", dir);
	mkdir(p, 0700);
	put("instances/nopctl/set_ftrace_pid", "123\n");
	assert_int_equal(nop_restore_file(dir, "instances/nopctl/set_ftrace_pid", "no pid\n", &err), 0);
	snprintf(p, sizeof(p), "%s/instances/nopctl/set_ftrace_pid", dir);
	assert_non_null(v = nop_read_file(p, NULL, NULL));
	assert_string_equal(v, "");
	free(v);
	assert_string_equal(nop_buffer_rel("instances/nopctl/options/function-fork"), "options/function-fork");
	assert_string_equal(nop_buffer_rel("current_tracer"), "current_tracer");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(delta_of_6_12, setup, teardown),
		cmocka_unit_test_setup_teardown(modules_of_6_15, setup, teardown),
		cmocka_unit_test_setup_teardown(instance_list_put_back, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
