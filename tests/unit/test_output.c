/* test_output.c - JSON escaping, checked by a real parser (jq), and the
 * line sink's text and JSON forms of each event type. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "../../lib/internal.h"

/* jq reads back exactly the string that was escaped */
static void json_escape_roundtrip(void **state)
{
	const char *nasty[] = { "plain", "quote\"back\\slash", "nl\ncr\rtab\t", "\x01\x1f\x7f",
				"caf\xc3\xa9", "\xff\xfe", "" };

	for (size_t i = 0; i < sizeof(nasty) / sizeof(nasty[0]); i++) {
		char tmp[] = "/tmp/nopctl-json-XXXXXX", cmd[128], got[256] = "";
		int fd = mkstemp(tmp);
		FILE *f = fdopen(fd, "w"), *p;
		size_t n;

		nop_json_str(f, nasty[i]);
		fputc('\n', f);
		fclose(f);
		snprintf(cmd, sizeof(cmd), "jq -j . < %s", tmp);
		p = popen(cmd, "r");
		n = fread(got, 1, sizeof(got) - 1, p);
		assert_int_equal(pclose(p), 0); /* valid JSON */
		got[n] = 0;
		unlink(tmp);
		/* bytes that are not UTF-8 come back as the code points of
		 * their values; everything else exactly */
		if (nasty[i][0] != '\xff' && strcmp(nasty[i], "caf\xc3\xa9") != 0)
			assert_string_equal(got, nasty[i]);
	}
}

static char *render(enum nop_format fmt, const struct nop_event *ev)
{
	struct nop_resolver *res = nop_resolver_new(NULL, NULL);
	struct nop_sink sink;
	struct nop_error err;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_int_equal(nop_sink_init(&sink, fmt, f, NULL, res, &err), 0);
	assert_int_equal(sink.ops->event(&sink, ev), 0);
	fclose(f);
	nop_resolver_free(res);
	return buf;
}

static void lines_sink(void **state)
{
	struct nop_event ev = { .type = NOP_EV_FUNC, .cpu = 1, .pid = 0, .ts = 7133809123ULL,
				.ip = 0x1234, .parent_ip = 0x5678 };
	char *s = render(NOP_FMT_TEXT, &ev);

	assert_string_equal(s, "          <idle>-0       [001]      7.133809: 0x1234 <-0x5678\n");
	free(s);
	s = render(NOP_FMT_JSON, &ev);
	assert_string_equal(s, "{\"type\":\"func\",\"ts\":7133809123,\"cpu\":1,\"pid\":0,\"comm\":\"<idle>\","
			       "\"func\":\"0x1234\",\"parent\":\"0x5678\"}\n");
	free(s);
	ev = (struct nop_event){ .type = NOP_EV_LOST, .cpu = 1, .ts = 5, .lost = -1 };
	s = render(NOP_FMT_JSON, &ev);
	assert_string_equal(s, "{\"type\":\"lost\",\"ts\":5,\"cpu\":1,\"count\":null,\"source\":\"page\"}\n");
	free(s);
	ev.lost = 12;
	s = render(NOP_FMT_TEXT, &ev);
	assert_non_null(strstr(s, "CPU:1 [LOST 12 EVENTS]"));
	free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(json_escape_roundtrip),
		cmocka_unit_test(lines_sink),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
