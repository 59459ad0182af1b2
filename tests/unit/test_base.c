/* test_base.c - patterns, modules, CPU lists, string maps, pid sets, escaping:
 * everything checked before the kernel is touched. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "../../lib/internal.h"

static void pattern_ok(void **state)
{
	const char *good[] = { "do_sys_openat2", "vfs_*", "*_read", "foo.isra.0", "ext4_?et*",
			       "do_sys_open[a-z]*", "__x64_sys_openat", "a$b" };
	struct nop_error err;

	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++)
		assert_int_equal(nop_pattern_check(good[i], &err), 0);
	assert_true(nop_pattern_is_glob("vfs_*"));
	assert_false(nop_pattern_is_glob("vfs_read"));
}

static void pattern_rejects_filter_syntax(void **state)
{
	const char *bad[] = { "", "do_sys_openat2\nvfs_read", "a b", "a\tb", "!do_sys_openat2",
			      "do_sys_openat2:traceoff", "vfs_read:mod:ext4", "a\rb", "a\x01",
			      "[abc", "x/y", "a,b", "\xc3\xa9t\xc3\xa9", ".foo", "a;b", "a|b" };
	struct nop_error err;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		memset(&err, 0, sizeof(err));
		assert_int_equal(nop_pattern_check(bad[i], &err), -1);
		assert_int_equal(err.status, NOP_EUSAGE);
		assert_true(strlen(err.msg) > 10);
	}
	nop_pattern_check("a\nb", &err);
	assert_non_null(strstr(err.msg, "newline"));
	nop_pattern_check("x:traceoff", &err);
	assert_non_null(strstr(err.msg, "':'"));
}

static void pattern_length(void **state)
{
	char *big = malloc(1 << 20);
	struct nop_error err;

	memset(big, 'a', (1 << 20) - 1);
	big[(1 << 20) - 1] = 0;
	assert_int_equal(nop_pattern_check(big, &err), -1);
	assert_int_equal(err.status, NOP_EUSAGE);
	assert_non_null(strstr(err.msg, "too long"));
	big[NOP_NAME_MAX] = 0;
	assert_int_equal(nop_pattern_check(big, &err), 0);
	big[NOP_NAME_MAX] = 'a';
	big[NOP_NAME_MAX + 1] = 0;
	assert_int_equal(nop_pattern_check(big, &err), -1);
	free(big);
}

static void module_names(void **state)
{
	struct nop_error err;

	assert_int_equal(nop_module_check("ext4", &err), 0);
	assert_int_equal(nop_module_check("snd-hda_intel", &err), 0);
	assert_int_equal(nop_module_check("", &err), -1);
	assert_int_equal(nop_module_check("ext4\n", &err), -1);
	assert_int_equal(nop_module_check("a:b", &err), -1);
	assert_int_equal(nop_module_check("*", &err), -1);
}

/* More CPUs than a set holds (8192 > NOP_MAX_CPUS): the mask has a group
 * per 32 CPUs, and none is read past the set (the bytes after it here are
 * all ones, so a read past it shows); all CPUs is a mask of its own. */
static void cpu_masks_past_the_set(void **state)
{
	struct { struct nop_cpuset set; uint64_t after[128]; } t;
	struct nop_error err;
	static char mask[8192 / 32 * 9 + 16];
	char want[sizeof(mask)], *p = want;

	memset(t.after, 0xff, sizeof(t.after));
	assert_int_equal(nop_cpuset_parse("0", 8192, &t.set, &err), 0);
	nop_cpuset_mask(&t.set, 8192, mask, sizeof(mask));
	p += sprintf(p, "0");
	for (int g = 254; g > 0; g--)
		p += sprintf(p, ",00000000");
	sprintf(p, ",00000001");
	assert_string_equal(mask, want);
	nop_cpuset_mask(NULL, 8192, mask, sizeof(mask));
	p = want + sprintf(want, "ffffffff");
	for (int g = 255; g > 0; g--)
		p += sprintf(p, ",ffffffff");
	assert_string_equal(mask, want);
	nop_cpuset_mask(NULL, 2, mask, sizeof(mask));
	assert_string_equal(mask, "3");
}

static void cpu_lists(void **state)
{
	struct nop_cpuset set;
	struct nop_error err;
	char mask[64];

	assert_int_equal(nop_cpuset_parse("0-3,6", 8, &set, &err), 0);
	assert_true(nop_cpuset_has(&set, 0) && nop_cpuset_has(&set, 3) && nop_cpuset_has(&set, 6));
	assert_false(nop_cpuset_has(&set, 4) || nop_cpuset_has(&set, 7));
	nop_cpuset_mask(&set, 8, mask, sizeof(mask));
	assert_string_equal(mask, "4f");
	assert_int_equal(nop_cpuset_parse("33", 40, &set, &err), 0);
	nop_cpuset_mask(&set, 40, mask, sizeof(mask));
	assert_string_equal(mask, "2,00000000");
	const char *bad[] = { "", "8", "3-1", "a", "1,", "1-", "-1", "0 1", "1\n" };

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(nop_cpuset_parse(bad[i], 8, &set, &err), -1);
		assert_int_equal(err.status, NOP_EUSAGE);
	}
}

/* strmap: values zeroed at creation, found again by key, kept in the
 * order keys came, across the growth of its table */
static void string_maps(void **state)
{
	struct nop_strmap *m = nop_strmap_new(sizeof(long));
	char key[32];
	const char *k;

	assert_non_null(m);
	for (long i = 0; i < 5000; i++) {
		long *v;

		snprintf(key, sizeof(key), "k%ld", i);
		assert_non_null(v = nop_strmap_get(m, key));
		assert_int_equal(*v, 0);
		*v = i * 3;
	}
	assert_int_equal(nop_strmap_size(m), 5000);
	assert_int_equal(*(long *)nop_strmap_find(m, "k4321"), 4321 * 3);
	assert_null(nop_strmap_find(m, "k5000"));
	assert_int_equal(*(long *)nop_strmap_get(m, "k7"), 21); /* not created again */
	assert_int_equal(nop_strmap_size(m), 5000);
	assert_int_equal(*(long *)nop_strmap_at(m, 2500, &k), 2500 * 3);
	assert_string_equal(k, "k2500");
	nop_strmap_free(m);
}

/* addrset: values kept once each through its growth (pids rising, a
 * wrapped one, kernel addresses); found, and only those; 0 never */
static void addr_sets(void **state)
{
	struct nop_addrset s = { 0 };

	assert_false(nop_addrset_has(&s, 300));
	for (unsigned long long pid = 300; pid < 3300; pid += 3)
		assert_int_equal(nop_addrset_add(&s, pid), 0);
	assert_int_equal(nop_addrset_add(&s, 301), 0); /* pids wrapped */
	assert_int_equal(nop_addrset_add(&s, 2), 0);
	assert_int_equal(nop_addrset_add(&s, 303), 0); /* again: once */
	assert_int_equal(nop_addrset_add(&s, 0xffffffff81000010ULL), 0);
	assert_int_equal(nop_addrset_add(&s, 0), 0);
	assert_int_equal(s.n, 1003);
	assert_true(nop_addrset_has(&s, 2) && nop_addrset_has(&s, 301) && nop_addrset_has(&s, 3297) &&
		    nop_addrset_has(&s, 0xffffffff81000010ULL));
	assert_false(nop_addrset_has(&s, 1) || nop_addrset_has(&s, 302) || nop_addrset_has(&s, 3300) ||
		     nop_addrset_has(&s, 0) || nop_addrset_has(&s, 0xffffffff81000000ULL));
	nop_addrset_free(&s);
	assert_false(nop_addrset_has(&s, 300));
}

/* Strings from the kernel or a file (task names, symbols, event fields)
 * in text: what a terminal would obey (C0, DEL, C1 as a raw byte or as
 * UTF-8 U+0080-U+009F) and what is not UTF-8 as \xNN of each byte;
 * valid UTF-8 (2, 3 and 4 bytes) as is */
static void text_escaped(void **state)
{
	static const char *const cases[][2] = {
		{ "plain_name", "plain_name" },
		{ "\x1b[31mtick\x1b]0;pwn\x07", "\\x1b[31mtick\\x1b]0;pwn\\x07" },
		{ "a\x7f" "b\tc\nd", "a\\x7fb\\x09c\\x0ad" },
		{ "x\x9by", "x\\x9by" },			  /* C1, a raw byte */
		{ "x\xc2\x9by\xc2\x80", "x\\xc2\\x9by\\xc2\\x80" }, /* C1 as UTF-8 */
		{ "caf\xc3\xa9-\xe4\xb8\xad", "caf\xc3\xa9-\xe4\xb8\xad" },
		{ "\xc2\xa0\xf0\x9f\x98\x80\xf4\x8f\xbf\xbf", "\xc2\xa0\xf0\x9f\x98\x80\xf4\x8f\xbf\xbf" },
		{ "\xff\xfe", "\\xff\\xfe" },
		{ "\xa9z", "\\xa9z" },				  /* a continuation alone */
		{ "a\xe4\xb8", "a\\xe4\\xb8" },			  /* truncated at the end */
		{ "\xe4\xb8z", "\\xe4\\xb8z" },			  /* truncated inside */
		{ "\xc0\xaf\xe0\x80\xaf\xf0\x80\x80\xaf", "\\xc0\\xaf\\xe0\\x80\\xaf\\xf0\\x80\\x80\\xaf" }, /* overlong */
		{ "\xed\xa0\x80", "\\xed\\xa0\\x80" },		  /* a surrogate */
		{ "\xf4\x90\x80\x80", "\\xf4\\x90\\x80\\x80" },	  /* past U+10FFFF */
		{ "back\\slash \"q\"", "back\\slash \"q\"" },
		{ "", "" },
	};
	char buf[128];

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		assert_string_equal(nop_text_escape(buf, sizeof(buf), cases[i][0]), cases[i][1]);
		assert_int_equal(nop_text_clean(cases[i][0]), !strcmp(cases[i][0], cases[i][1]));
	}
	/* cut short: never inside an escape or a character */
	assert_string_equal(nop_text_escape(buf, 6, "ab\x1b" "cd"), "ab");
	assert_string_equal(nop_text_escape(buf, 7, "ab\x1b" "cd"), "ab\\x1b");
	assert_string_equal(nop_text_escape(buf, 5, "ab\xe4\xb8\xad"), "ab");
	assert_string_equal(nop_text_escape(buf, 1, "ab"), "");
}

static void collect(void *ctx, const char *p, size_t n)
{
	strncat(ctx, p, n);
}

/* quoted text (an event's string field, "..."): quotes and backslashes
 * escaped too, the rest as text; n bounds a field with no NUL */
static void quoted_text_escaped(void **state)
{
	char got[128] = "";

	nop_escape("a\"b\\c\x1b\x9b\xc3\xa9\xe4\xb8\xadZZZ", 12, NOP_ESC_QUOTED, collect, got);
	assert_string_equal(got, "a\\\"b\\\\c\\x1b\\x9b\xc3\xa9\xe4\xb8\xad");
	got[0] = 0;
	nop_escape("ab\xe4\xb8\xad", 4, NOP_ESC_QUOTED, collect, got); /* a character cut by n */
	assert_string_equal(got, "ab\\xe4\\xb8");
}

/* a text field prints its value escaped, whoever calls it (list,
 * doctor, stats' event names): its format's width counts the escape */
static void text_fields_escaped(void **state)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len);
	struct nop_fields f;

	nop_fields_open(&f, out, false);
	nop_field_str(&f, "name", "%-12s|", "sys\x1b:\xc2\x9bx");
	nop_field_item_str(&f, " %s", "\x07");
	nop_field_str(&f, "ok", " %s", "caf\xc3\xa9");
	nop_fields_close(&f);
	fclose(out);
	assert_string_equal(buf, "sys\\x1b:\\xc2\\x9bx| \\x07 caf\xc3\xa9\n");
	free(buf);
}

/* the same strings in JSON: valid UTF-8 as is, C0, DEL and C1 as \u00XX,
 * a byte of no valid UTF-8 as \u00XX of its value */
static void json_escaped(void **state)
{
	static const char *const cases[][2] = {
		{ "plain", "\"plain\"" },
		{ "q\"b\\", "\"q\\\"b\\\\\"" },
		{ "\x1b]0;x\x07\x7f\n", "\"\\u001b]0;x\\u0007\\u007f\\n\"" },
		{ "\x9b" "a\xc2\x9b", "\"\\u009ba\\u009b\"" },
		{ "caf\xc3\xa9-\xe4\xb8\xad", "\"caf\xc3\xa9-\xe4\xb8\xad\"" },
		{ "\xf0\x9f\x98\x80", "\"\xf0\x9f\x98\x80\"" },
		{ "\xff\xe4\xb8", "\"\\u00ff\\u00e4\\u00b8\"" },
		{ "\xc0\xaf\xed\xa0\x80", "\"\\u00c0\\u00af\\u00ed\\u00a0\\u0080\"" },
	};
	char buf[128];

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		size_t n = nop_json_quote(buf, sizeof(buf), cases[i][0]);

		assert_int_equal(n, strlen(cases[i][1]));
		assert_memory_equal(buf, cases[i][1], n);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(pattern_ok),	 cmocka_unit_test(pattern_rejects_filter_syntax),
		cmocka_unit_test(pattern_length), cmocka_unit_test(module_names),
		cmocka_unit_test(cpu_lists),
		cmocka_unit_test(string_maps),
		cmocka_unit_test(addr_sets),
		cmocka_unit_test(cpu_masks_past_the_set),
		cmocka_unit_test(text_escaped),
		cmocka_unit_test(quoted_text_escaped),
		cmocka_unit_test(text_fields_escaped),
		cmocka_unit_test(json_escaped),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
