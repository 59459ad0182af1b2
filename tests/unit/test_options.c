/* test_options.c - the one option parser, through the real command table. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "../../cmd/cmd.h"

static const struct cmd *cmd(const char *name)
{
	for (const struct cmd *c = nop_commands; c->name; c++)
		if (!strcmp(c->name, name))
			return c;
	fail();
	return NULL;
}

static int parse(const char *name, struct opts *o, struct nop_error *err, ...)
{
	static char *argv[32]; /* o->command points into it */
	int argc = 0;
	va_list ap;

	argv[argc++] = (char *)name;
	va_start(ap, err);
	for (char *a; (a = va_arg(ap, char *));)
		argv[argc++] = a;
	va_end(ap);
	argv[argc] = NULL;
	return opts_parse(cmd(name), argc, argv, o, err);
}

static void trace_options(void **state)
{
	struct opts o;
	struct nop_error err;

	assert_int_equal(parse("trace", &o, &err, "-j", "vfs_*", "-n", "vfs_write", "-d", "500ms",
			       "do_sys_openat2", "-c", "10", "--cpus", "0-1", "-s", "--", "cat",
			       "-n", "/etc/hostname", NULL), 0);
	assert_int_equal(o.npatterns, 2);
	assert_string_equal(o.patterns[0], "vfs_*");
	assert_string_equal(o.patterns[1], "do_sys_openat2");
	assert_int_equal(o.nnotrace, 1);
	assert_int_equal(o.duration_ns, 500000000ULL);
	assert_int_equal(o.count, 10);
	assert_true(o.stack);
	assert_int_equal(o.enc, NOP_ENC_JSON);
	assert_int_equal(o.view, NOP_VIEW_LINES);
	assert_string_equal(o.command[0], "cat");
	assert_string_equal(o.command[1], "-n"); /* the command's options are its own */
	opts_free(&o);
	assert_int_equal(parse("trace", &o, &err, "-p", "1", "x", NULL), 0); /* pid 1 exists */
	assert_true(o.npids >= 1);
	opts_free(&o);
}

static void bad_values(void **state)
{
	const char *cases[][3] = {
		{ "-d", "0" }, { "-d", "5x" }, { "-d", "-1" }, { "-c", "0" }, { "-c", "abc" },
		{ "-b", "0" }, { "-b", "99999999999" }, { "-p", "0" }, { "-p", "12ab" },
		{ "-F", "xml" }, { "--bogus" }, { "-m", "a:b" }, { "-o", "" },
		{ "-d", "0x10" }, { "-d", "1e3" }, { "-d", "1.5.2s" }, /* decimal numbers only */
	};
	struct opts o;
	struct nop_error err;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		memset(&err, 0, sizeof(err));
		assert_int_equal(parse("trace", &o, &err, cases[i][0], cases[i][1], "x", NULL), -1);
		assert_int_equal(err.status, NOP_EUSAGE);
		opts_free(&o);
	}
	/* each error names what a valid value holds */
	assert_int_equal(parse("trace", &o, &err, "-m", "a:b", "x", NULL), -1);
	assert_non_null(strstr(err.msg, "a module name may hold letters, digits, '_' and '-'"));
	assert_null(strstr(err.msg, "glob"));
	opts_free(&o);
	assert_int_equal(nop_pattern_check("a:b", &err), -1);
	assert_non_null(strstr(err.msg, "letters, digits, '_', '.', '$' and the globs"));
	assert_int_equal(parse("trace", &o, &err, "-d", "1.5s", "x", NULL), 0);
	assert_int_equal(o.duration_ns, 1500000000ULL);
	opts_free(&o);
	assert_int_equal(parse("trace", &o, &err, "x", "--", NULL), -1); /* nothing after -- */
	opts_free(&o);
	assert_int_equal(parse("status", &o, &err, "-s", NULL), -1); /* not status's option */
	assert_non_null(strstr(err.msg, "does not take --stack"));
	opts_free(&o);
	assert_int_equal(parse("status", &o, &err, "extra", NULL), -1);
	opts_free(&o);
	assert_int_equal(parse("list", &o, &err, "x", "--", "cmd", NULL), -1);
	opts_free(&o);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(trace_options),
		cmocka_unit_test(bad_values),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
