/* test_sink.c - JSON escaping, checked by a real parser (jq), and the
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
				"caf\xc3\xa9-\xe4\xb8\xad", "\xf0\x9f\x98\x80", "\xc2\x9b",
				"\xff\xfe", "" };

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
		 * their values; everything else, UTF-8 too, exactly */
		if (nasty[i][0] != '\xff')
			assert_string_equal(got, nasty[i]);
	}
}

/* what draw writes through a sink of fmt (events and summary alike) */
static void render_to(FILE *f, enum nop_encoding enc, void (*draw)(struct nop_sink *s, const void *arg),
		      const void *arg)
{
	struct nop_resolver *res = nop_resolver_new(NULL, NULL);
	struct nop_sink sink;
	struct nop_error err;

	assert_int_equal(nop_sink_init(&sink, &(struct nop_sink_cfg){ .enc = enc, .out = f, .diag = f, .res = res },
				       &err), 0);
	draw(&sink, arg);
	nop_sink_free(&sink);
	nop_resolver_free(res);
}

static char *render_with(enum nop_encoding enc, void (*draw)(struct nop_sink *s, const void *arg),
			 const void *arg)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	render_to(f, enc, draw, arg);
	fclose(f);
	return buf;
}

/* a scratch tracing directory (mkdtemp of dir) with a saved_cmdlines and,
 * unless NULL, a kallsyms of these lines */
static void scratch_dir(char *dir, const char *cmdlines, const char *kallsyms)
{
	const char *names[] = { "saved_cmdlines", "kallsyms" }, *text[] = { cmdlines, kallsyms };
	char path[64];
	FILE *f;

	assert_non_null(mkdtemp(dir));
	for (int i = 0; i < 2 && text[i]; i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
		assert_non_null(f = fopen(path, "w"));
		fputs(text[i], f);
		fclose(f);
	}
}

static void scratch_remove(const char *dir)
{
	char path[64];

	snprintf(path, sizeof(path), "%s/saved_cmdlines", dir);
	unlink(path);
	snprintf(path, sizeof(path), "%s/kallsyms", dir);
	unlink(path);
	rmdir(dir);
}

/* what draw writes through a sink of enc whose resolver reads dir (its
 * kallsyms too, if asked) */
static char *render_in(const char *dir, bool kallsyms, enum nop_encoding enc,
		       void (*draw)(struct nop_sink *s, const void *arg), const void *arg)
{
	struct nop_resolver *res;
	struct nop_sink sink;
	struct nop_error err;
	char *buf = NULL, path[64];
	size_t len = 0;
	FILE *f;

	assert_non_null(res = nop_resolver_new(dir, &err));
	snprintf(path, sizeof(path), "%s/kallsyms", dir);
	if (kallsyms)
		assert_int_equal(nop_resolver_load_kallsyms(res, path, &err), 0);
	f = open_memstream(&buf, &len);
	assert_int_equal(nop_sink_init(&sink, &(struct nop_sink_cfg){ .enc = enc, .out = f, .res = res }, &err), 0);
	draw(&sink, arg);
	nop_sink_free(&sink);
	fclose(f);
	nop_resolver_free(res);
	return buf;
}

/* the decimal helpers against printf, at every power of ten and either
 * side of it, with a sign and with leading zeros */
static void decimals_as_printf(void **state)
{
	unsigned long long vs[64];
	size_t n = 0;

	vs[n++] = 0;
	vs[n++] = ~0ULL;
	for (unsigned long long p = 1; n + 3 <= 64; p *= 10) {
		vs[n++] = p - 1;
		vs[n++] = p;
		vs[n++] = p + 1;
		if (p > ~0ULL / 10)
			break;
	}
	for (size_t i = 0; i < n; i++)
		for (int neg = 0; neg < 2; neg++)
			for (int zeros = 0; zeros <= 20; zeros += 6) {
				char want[64], got[64];
				size_t len = nop_dec_len(vs[i], neg, zeros);

				snprintf(want, sizeof(want), "%s%0*llu", neg ? "-" : "", zeros, vs[i]);
				assert_true(len <= NOP_DEC_MAX);
				memset(got, 'x', sizeof(got));
				nop_dec_put(got + len, vs[i], neg, zeros);
				got[len] = 0;
				assert_string_equal(got, want);
			}
}

static void draw_event(struct nop_sink *s, const void *ev)
{
	assert_int_equal(s->ops->event(s, ev), 0);
}

static char *render(enum nop_encoding enc, const struct nop_event *ev)
{
	return render_with(enc, draw_event, ev);
}

static void lines_sink(void **state)
{
	struct nop_event ev = { .type = NOP_EV_FUNC, .cpu = 1, .pid = 0, .ts = 7133809123ULL,
				.ip = 0x1234, .parent_ip = 0x5678 };
	char *s = render(NOP_ENC_TEXT, &ev);

	assert_string_equal(s, "          <idle>-0       [001]      7.133809: 0x1234 <-0x5678\n");
	free(s);
	s = render(NOP_ENC_JSON, &ev);
	assert_string_equal(s, "{\"type\":\"func\",\"ts\":7133809123,\"cpu\":1,\"pid\":0,\"comm\":\"<idle>\","
			       "\"func\":\"0x1234\",\"parent\":\"0x5678\"}\n");
	free(s);
	ev = (struct nop_event){ .type = NOP_EV_LOST, .cpu = 1, .ts = 5, .lost = -1 };
	s = render(NOP_ENC_JSON, &ev);
	assert_string_equal(s, "{\"type\":\"lost\",\"ts\":5,\"cpu\":1,\"count\":null,\"source\":\"page\"}\n");
	free(s);
	ev.lost = 12;
	s = render(NOP_ENC_TEXT, &ev);
	assert_non_null(strstr(s, "CPU:1 [LOST 12 EVENTS]"));
	free(s);
}

/* under -p, another task's call in its half of a context switch is shown
 * marked; the summary counts those calls apart from the traced task's */
static void draw_other_task(struct nop_sink *s, const void *arg)
{
	static const unsigned long long path[] = { 0x1234 };
	struct nop_gitem gi = { .kind = NOP_GI_LEAF, .pid = 15, .cpu = 1, .timed = true, .ts = 5,
				.func = 0x1234, .duration = 2000, .path = path, .npath = 1,
				.other_task = true };
	struct nop_summary sum = { .events = 3, .by_task = true, .other_tasks = 2, .exit_status = -1, .graph = true,
				   .stop_reason = "duration" };

	assert_int_equal(s->ops->graph(s, &gi), 0);
	assert_int_equal(s->ops->summary(s, &sum), 0);
}

/* issue 54 #8: off-CPU intervals the kernel gave no switch back, said */
static void draw_unpaired(struct nop_sink *s, const void *arg)
{
	struct nop_summary sum = { .events = 3, .exit_status = -1, .graph = true, .offcpu_unpaired = 2,
				   .offcpu_unpaired_out = 3, .stop_reason = "duration" };

	assert_int_equal(s->ops->summary(s, &sum), 0);
}

static void offcpu_unpaired_said(void **state)
{
	char *text = render_with(NOP_ENC_TEXT, draw_unpaired, NULL);
	char *json = render_with(NOP_ENC_JSON, draw_unpaired, NULL);

	assert_non_null(strstr(text, ", 2 off-CPU intervals without their switch back"));
	assert_non_null(strstr(json, "\"offcpu_unpaired\":2"));
	/* issue 54 #8: and those the kernel gave no switch out */
	assert_non_null(strstr(text, ", 3 off-CPU intervals without their switch out"));
	assert_non_null(strstr(json, "\"offcpu_unpaired_out\":3"));
	free(text);
	free(json);
}

static void other_task_marked(void **state)
{
	char *text = render_with(NOP_ENC_TEXT, draw_other_task, NULL);
	char *json = render_with(NOP_ENC_JSON, draw_other_task, NULL);

	assert_non_null(strstr(text, "0x1234(); /* context switch: task not traced */\n"));
	assert_non_null(strstr(text, "nopctl: 3 calls in 0.000 s, nothing lost, 2 of other tasks"
				     " (context switches), stopped by duration\n"));
	assert_non_null(strstr(json, "\"depth\":0,\"duration_ns\":2000,\"self_ns\":0,"
				     "\"context_switch\":true}\n"));
	assert_non_null(strstr(json, "\"dropped\":0,\"other_tasks\":2,\"stop\":\"duration\","
				     "\"no_entry\":0,\"no_exit\":0,\"gaps\":0}"));
	free(text);
	free(json);
}

/* Addresses with no name are shown as "0x...", written each time into one
 * buffer: a sink that cached a name's length by its address would cut the
 * longer one short (or show the first twice) */
static void draw_unnamed(struct nop_sink *s, const void *arg)
{
	static const unsigned long long path[] = { 0x1234 };
	struct nop_gitem gi = { .kind = NOP_GI_LEAF, .pid = 15, .cpu = 1, .timed = true, .ts = 5,
				.func = 0x1234, .duration = 2000, .path = path, .npath = 1 };

	assert_int_equal(s->ops->graph(s, &gi), 0);
	gi.func = 0xabcdef12345;
	assert_int_equal(s->ops->graph(s, &gi), 0);
	gi.func = 0x99;
	assert_int_equal(s->ops->graph(s, &gi), 0);
}

static void unnamed_addresses_whole(void **state)
{
	char *text = render_with(NOP_ENC_TEXT, draw_unnamed, NULL);
	char *json = render_with(NOP_ENC_JSON, draw_unnamed, NULL);

	assert_non_null(strstr(text, "| 0x1234();\n"));
	assert_non_null(strstr(text, "| 0xabcdef12345();\n"));
	assert_non_null(strstr(text, "| 0x99();\n"));
	assert_non_null(strstr(json, "\"func\":\"0x1234\","));
	assert_non_null(strstr(json, "\"func\":\"0xabcdef12345\","));
	assert_non_null(strstr(json, "\"func\":\"0x99\","));
	free(text);
	free(json);
}

/* Names are cached by address, two slots a hash: 700 functions (more than
 * the 1024 slots hold without three to a pair), called round after round
 * in both orders, each line names its own */
#define MANY_FUNCS 700
static void draw_many_names(struct nop_sink *s, const void *arg)
{
	for (int round = 0; round < 6; round++)
		for (int k = 0; k < MANY_FUNCS; k++) {
			unsigned long long a = 0xffffffff81000000ULL + 16ULL * (unsigned)(round & 1 ? MANY_FUNCS - 1 - k : k);
			struct nop_gitem gi = { .kind = NOP_GI_LEAF, .pid = 15, .cpu = 1, .timed = true,
						.ts = 5, .func = a, .duration = 2000, .path = &a, .npath = 1 };

			assert_int_equal(s->ops->graph(s, &gi), 0);
		}
}

static void names_cached_by_address(void **state)
{
	char dir[] = "/tmp/nopctl-names-XXXXXX", *ks = malloc((MANY_FUNCS + 1) * 40);
	size_t off = 0;

	for (int k = 0; k < MANY_FUNCS; k++)
		off += (size_t)sprintf(ks + off, "%llx T fn_%d\n", 0xffffffff81000000ULL + 16ULL * (unsigned)k, k);
	/* the last function's end: the symbol after it */
	sprintf(ks + off, "%llx T _etext\n", 0xffffffff81000000ULL + 16ULL * MANY_FUNCS);
	scratch_dir(dir, "15 task\n", ks);
	for (int e = 0; e < 2; e++) {
		char *out = render_in(dir, true, e ? NOP_ENC_JSON : NOP_ENC_TEXT, draw_many_names, NULL);
		const char *p = out;
		char want[32];

		for (int round = 0; round < 6; round++)
			for (int k = 0; k < MANY_FUNCS; k++) {
				snprintf(want, sizeof(want), e ? "\"func\":\"fn_%d\"" : "| fn_%d();\n",
					 round & 1 ? MANY_FUNCS - 1 - k : k);
				assert_non_null(p = strstr(p, want));
				p = strchr(p, '\n');
				assert_non_null(p);
			}
		free(out);
	}
	scratch_remove(dir);
	free(ks);
}

/* Lines are written to a file's descriptor a buffer at a time, what stdio
 * holds first: many buffers' worth of calls, with lines written through
 * stdio between them (the summary; a task switch's), reach a file as they
 * reach a memory stream (which is written through stdio) */
static void draw_many(struct nop_sink *s, const void *arg)
{
	static const unsigned long long path[] = { 0x1234 };
	struct nop_gitem gi = { .kind = NOP_GI_LEAF, .pid = 15, .cpu = 1, .timed = true, .ts = 5,
				.func = 0x1234, .duration = 2000, .path = path, .npath = 1 };
	struct nop_summary sum = { .events = 3, .exit_status = -1, .graph = true, .stop_reason = "duration" };

	for (int i = 0; i < 30000; i++) {
		gi.duration = (unsigned long long)i;
		gi.pid = 15 + i / 7000; /* a task switch line now and then */
		assert_int_equal(s->ops->graph(s, &gi), 0);
		if (i % 9000 == 0)
			assert_int_equal(s->ops->summary(s, &sum), 0);
	}
	assert_int_equal(s->ops->summary(s, &sum), 0);
}

static void lines_reach_a_file_in_order(void **state)
{
	for (int enc = NOP_ENC_TEXT; enc <= NOP_ENC_JSON; enc++) {
		char *want = render_with(enc, draw_many, NULL), *got;
		FILE *f = tmpfile();
		long len;

		assert_non_null(f);
		render_to(f, enc, draw_many, NULL);
		assert_int_equal(fflush(f), 0);
		assert_int_equal(fseek(f, 0, SEEK_END), 0);
		len = ftell(f);
		assert_true(len > 3 * NOP_SINK_OBUF);
		assert_int_equal(len, (long)strlen(want));
		got = calloc(1, (size_t)len + 1);
		rewind(f);
		assert_int_equal(fread(got, 1, (size_t)len, f), (size_t)len);
		assert_string_equal(got, want);
		free(got);
		free(want);
		fclose(f);
	}
}

/* A task can name itself anything (prctl PR_SET_NAME): control bytes in
 * a name (C1 too, a byte or UTF-8) are shown as \xNN in text, where a
 * terminal would obey them; JSON escapes them. The name comes from a
 * scratch saved_cmdlines. */
static void draw_evil_task(struct nop_sink *s, const void *arg)
{
	static const unsigned long long path[] = { 0x1234 };
	struct nop_event ev = { .type = NOP_EV_FUNC, .cpu = 1, .pid = 424242, .ts = 5, .ip = 0x1234 };
	struct nop_gitem gi = { .kind = NOP_GI_LEAF, .pid = 424242, .cpu = 1, .timed = true,
				.func = 0x1234, .path = path, .npath = 1 };
	struct nop_gitem other = gi;

	other.pid = 424243;
	assert_int_equal(s->ops->event(s, &ev), 0);
	assert_int_equal(s->ops->graph(s, &gi), 0);
	assert_int_equal(s->ops->graph(s, &other), 0); /* a task switch line, both names */
}

static void task_names_escaped(void **state)
{
	char dir[] = "/tmp/nopctl-comm-XXXXXX", *buf;

	scratch_dir(dir, "424242 \x1b]0;pwned\x07\n424243 ok\x1b[2J\x9b\xc2\x9b\n", NULL);
	for (int json = 0; json < 2; json++) {
		buf = render_in(dir, false, json ? NOP_ENC_JSON : NOP_ENC_TEXT, draw_evil_task, NULL);
		assert_null(strchr(buf, '\x1b'));
		assert_null(strchr(buf, '\x07'));
		if (json) {
			assert_non_null(strstr(buf, "\"comm\":\"\\u001b]0;pwned\\u0007\""));
			assert_non_null(strstr(buf, "\"comm\":\"ok\\u001b[2J\\u009b\\u009b\""));
		} else {
			assert_non_null(strstr(buf, "\\x1b]0;pwned\\x07-424242"));
			assert_non_null(strstr(buf, "=>  ok\\x1b[2J\\x9b\\xc2\\x9b-424243"));
		}
		free(buf);
	}
	scratch_remove(dir);
}

/* The graph lines are built in the sink's buffer and written a buffer at
 * a time: a line too long for it (arguments of 3,000 bytes) is cut in text
 * and whole in JSON, ends with its newline, and the lines written around
 * it another way (a lost-events line, the summary) keep their order. */
static void draw_long_call(struct nop_sink *s, const void *arg)
{
	static const unsigned long long path[] = { 0x1234 };
	struct nop_gitem gi = { .kind = NOP_GI_LEAF, .pid = 15, .cpu = 1, .timed = true, .ts = 5,
				.func = 0x1234, .duration = 2000, .path = path, .npath = 1, .args = arg };
	struct nop_event lost = { .type = NOP_EV_LOST, .cpu = 1, .ts = 6, .lost = 7 };
	struct nop_summary sum = { .events = 2, .exit_status = -1, .graph = true, .stop_reason = "duration" };

	assert_int_equal(s->ops->graph(s, &gi), 0);
	assert_int_equal(s->ops->event(s, &lost), 0);
	gi.args = NULL;
	gi.func = 0x5678;
	assert_int_equal(s->ops->graph(s, &gi), 0);
	assert_int_equal(s->ops->summary(s, &sum), 0);
}

static void long_lines_end_and_keep_order(void **state)
{
	char args[2 * 3000 + 16], *text, *json, *nl, *lost;

	memset(args, 'a', 3000);
	args[3000] = 0; /* the text form, then the JSON */
	memcpy(args + 3001, "{\"x\":\"", 6);
	memset(args + 3007, 'b', 2990);
	memcpy(args + 3007 + 2990, "\"}", 3);
	text = render_with(NOP_ENC_TEXT, draw_long_call, args);
	json = render_with(NOP_ENC_JSON, draw_long_call, args);
	assert_non_null(nl = strchr(text, '\n'));
	assert_int_equal(nl - text, 1023); /* cut, then its newline */
	assert_non_null(lost = strstr(text, "[LOST 7 EVENTS]"));
	assert_true(lost > nl && strchr(nl + 1, '\n') > lost);
	assert_true(strstr(text, "0x5678();") > lost);
	assert_true(strstr(text, "nopctl: 2 calls") > strstr(text, "0x5678();"));
	assert_non_null(nl = strchr(json, '\n'));
	assert_true(nl - json > 3000 && !memcmp(nl - 3, "\"}}", 3)); /* the whole args */
	assert_non_null(lost = strstr(json, "{\"type\":\"lost\""));
	assert_ptr_equal(lost, nl + 1);
	assert_true(strstr(json, "\"func\":\"0x5678\"") > lost);
	assert_true(strstr(json, "\"type\":\"summary\"") > strstr(json, "\"func\":\"0x5678\""));
	free(text);
	free(json);
}

/* Every shape of graph line, named functions (kallsyms) and a named
 * task: the common JSON line is built by hand, the others through the
 * fields; text copies names of up to 48 bytes from a cache 16 at a time.
 * Each line whole, as the fields wrote them all before. */
#define N48 "f_456789012345678901234567890123456789012345678"
#define N49 "g_4567890123456789012345678901234567890123456789"
static void draw_shapes(struct nop_sink *s, const void *arg)
{
	static const unsigned long long path[] = { 0x1000, 0x2000, 0x3000 };
	struct nop_gitem gi = { .kind = NOP_GI_ENTER, .pid = 424242, .cpu = 1, .ts = 5, .func = 0x1000,
				.path = path, .npath = 1 };

	assert_int_equal(s->ops->graph(s, &gi), 0);
	gi = (struct nop_gitem){ .kind = NOP_GI_LEAF, .pid = 424242, .cpu = 1, .ts = 6, .func = 0x2000,
				 .timed = true, .duration = 1234567, .self = 1234567, .depth = 1,
				 .path = path, .npath = 2 };
	assert_int_equal(s->ops->graph(s, &gi), 0);
	gi.func = 0x3000; /* 49 bytes: past the copy */
	gi.ts = 18446744073709551615ULL;
	gi.duration = 999;
	gi.self = 0;
	assert_int_equal(s->ops->graph(s, &gi), 0);
	gi.has_retval = true; /* through the fields from here on */
	gi.retval = -2;
	assert_int_equal(s->ops->graph(s, &gi), 0);
	gi = (struct nop_gitem){ .kind = NOP_GI_RETURN, .pid = 424242, .cpu = -1, .ts = 9, .func = 0x1000,
				 .path = path, .npath = 1, .at_end = true };
	assert_int_equal(s->ops->graph(s, &gi), 0);
	gi = (struct nop_gitem){ .kind = NOP_GI_RETURN, .pid = 7, .cpu = 0, .ts = 10, .func = 0x1000,
				 .timed = true, .duration = 20, .self = 10, .path = path, .npath = 1 };
	assert_int_equal(s->ops->graph(s, &gi), 0);
	gi.no_entry = true;
	gi.kind = NOP_GI_LEAF;
	assert_int_equal(s->ops->graph(s, &gi), 0);
}

static void graph_lines_of_every_shape(void **state)
{
	char dir[] = "/tmp/nopctl-shapes-XXXXXX", *buf;

	scratch_dir(dir, "424242 worker\n7 sixteen_bytes_ab\n",
		    "0000000000001000 T vfs_read\n0000000000002000 T " N48 "\n0000000000003000 T " N49 "\n"
		    "0000000000004000 T end\n");
	for (int json = 0; json < 2; json++) {
		buf = render_in(dir, true, json ? NOP_ENC_JSON : NOP_ENC_TEXT, draw_shapes, NULL);
		if (json)
			assert_string_equal(buf,
				"{\"type\":\"entry\",\"ts\":5,\"cpu\":1,\"pid\":424242,\"comm\":\"worker\",\"func\":\"vfs_read\",\"depth\":0}\n"
				"{\"type\":\"call\",\"ts\":6,\"cpu\":1,\"pid\":424242,\"comm\":\"worker\",\"func\":\"" N48 "\",\"depth\":1,\"duration_ns\":1234567,\"self_ns\":1234567}\n"
				"{\"type\":\"call\",\"ts\":18446744073709551615,\"cpu\":1,\"pid\":424242,\"comm\":\"worker\",\"func\":\"" N49 "\",\"depth\":1,\"duration_ns\":999,\"self_ns\":0}\n"
				"{\"type\":\"call\",\"ts\":18446744073709551615,\"cpu\":1,\"pid\":424242,\"comm\":\"worker\",\"func\":\"" N49 "\",\"depth\":1,\"duration_ns\":999,\"self_ns\":0,\"retval\":-2,\"error\":\"ENOENT\"}\n"
				"{\"type\":\"exit\",\"ts\":9,\"cpu\":-1,\"pid\":424242,\"comm\":\"worker\",\"func\":\"vfs_read\",\"depth\":0,\"duration_ns\":null,\"self_ns\":null,\"exit\":\"not seen\"}\n"
				"{\"type\":\"exit\",\"ts\":10,\"cpu\":0,\"pid\":7,\"comm\":\"sixteen_bytes_ab\",\"func\":\"vfs_read\",\"depth\":0,\"duration_ns\":20,\"self_ns\":10}\n"
				"{\"type\":\"call\",\"ts\":10,\"cpu\":0,\"pid\":7,\"comm\":\"sixteen_bytes_ab\",\"func\":\"vfs_read\",\"depth\":0,\"duration_ns\":20,\"self_ns\":10,\"entry\":\"not seen\"}\n");
		else
			assert_string_equal(buf,
				"   1)           worker-424242 |                  | vfs_read() {\n"
				"   1)           worker-424242 | #    1234.567 us |   " N48 "();\n"
				"   1)           worker-424242 |         0.999 us |   " N49 "();\n"
				"   1)           worker-424242 |         0.999 us |   " N49 "(); /* = -2 (ENOENT) */\n"
				"  -1)           worker-424242 |                  | } /* vfs_read: exit not seen */\n"
				"   0) sixteen_bytes_ab-7      |         0.020 us | } /* vfs_read */\n"
				"   0) sixteen_bytes_ab-7      |         0.020 us | vfs_read(); /* entered before the capture or in a gap */\n");
		free(buf);
	}
	scratch_remove(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(json_escape_roundtrip), cmocka_unit_test(decimals_as_printf),
		cmocka_unit_test(lines_sink),
		cmocka_unit_test(other_task_marked), cmocka_unit_test(offcpu_unpaired_said),
		cmocka_unit_test(unnamed_addresses_whole),
		cmocka_unit_test(names_cached_by_address),
		cmocka_unit_test(lines_reach_a_file_in_order),
		cmocka_unit_test(task_names_escaped),
		cmocka_unit_test(long_lines_end_and_keep_order),
		cmocka_unit_test(graph_lines_of_every_shape),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
