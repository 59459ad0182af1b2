/* doctor.c - nopctl doctor: one finding per check, what works here (kernel
 * functions, call graphs, user functions, kernel return values and
 * arguments), and an exit code: 0 when what was asked about can work (the
 * PATTERNs' kind: kernel or user functions; without PATTERNs, all three),
 * 2 when a PATTERN cannot be traced, 3 when what they need cannot work. */
#include <string.h>

#include "cmd.h"

/* what a run can do here, each blocked by the failures that stop it */
enum cap { CAP_KFUNC, CAP_GRAPH, CAP_USER, CAP_RETVAL, CAP_ARGS, NCAP };
static const struct {
	const char *name, *key;
} caps[NCAP] = {
	[CAP_KFUNC] = { "kernel functions", "kernel_functions" },
	[CAP_GRAPH] = { "call graphs", "call_graphs" },
	[CAP_USER] = { "user functions", "user_functions" },
	[CAP_RETVAL] = { "kernel return values", "kernel_return_values" },
	[CAP_ARGS] = { "kernel arguments", "kernel_arguments" },
};
#define KERNEL_CAPS (1u << CAP_KFUNC | 1u << CAP_GRAPH | 1u << CAP_RETVAL | 1u << CAP_ARGS)
#define ALL_CAPS ((1u << NCAP) - 1)

/* the capabilities a finding that is not ok takes away */
static unsigned blocks(const struct nop_finding *fd)
{
	static const struct {
		const char *id;
		unsigned caps;
		bool warn; /* a warning takes them away too */
	} map[] = {
		{ "tracefs", ALL_CAPS, false },		{ "tracefs.access", ALL_CAPS, false },
		{ "privileges", ALL_CAPS, false },	{ "lockdown", ALL_CAPS, false },
		{ "journal_dir", ALL_CAPS, false },	{ "uprobes", 1u << CAP_USER, false },
		{ "tracer.function_graph", 1u << CAP_GRAPH, false },
		{ "funcgraph_retval", 1u << CAP_RETVAL, true }, { "args", 1u << CAP_ARGS, true },
	};

	if (fd->subject || fd->status == NOP_CHECK_OK)
		return 0;
	for (size_t i = 0; i < sizeof(map) / sizeof(*map); i++)
		if (!strcmp(fd->id, map[i].id))
			return fd->status == NOP_CHECK_FAIL || map[i].warn ? map[i].caps : 0;
	/* the function tracer, the filter list, anything else of the kernel */
	return fd->status == NOP_CHECK_FAIL ? KERNEL_CAPS : 0;
}

struct tally {
	struct opts *o;
	int n[3];
	bool pattern_fail;
	unsigned blocked; /* capabilities taken away */
};

static void finding(void *ctx, const struct nop_finding *fd)
{
	static const char *const st[] = { "ok", "warn", "fail" };
	struct tally *t = ctx;
	struct nop_fields f;

	t->n[fd->status]++;
	t->pattern_fail |= fd->status == NOP_CHECK_FAIL && fd->subject;
	t->blocked |= blocks(fd);
	nop_fields_open(&f, stdout, t->o->enc == NOP_ENC_JSON);
	nop_field_str(&f, "type", NULL, "finding");
	nop_field_str(&f, "status", "%-5s", st[fd->status]);
	nop_field_str(&f, "id", "%-22s", fd->id);
	nop_field_str(&f, "subject", fd->subject ? "%s: " : NULL, fd->subject);
	nop_field_str(&f, "seen", "%s", fd->seen);
	nop_field_str(&f, "fix", fd->fix ? "\n      fix: %s" : NULL, fd->fix);
	nop_fields_close(&f);
}

int cmd_doctor(struct opts *o)
{
	struct tally t = { .o = o };
	struct nop_fields f;
	const unsigned core = 1u << CAP_KFUNC | 1u << CAP_GRAPH | 1u << CAP_USER;
	unsigned need = 0;
	char works[128] = "", fails[128] = "", json[256] = "";

	nop_doctor(o->patterns, o->npatterns, finding, &t);
	/* asked about patterns: what they need; else what every command does */
	for (size_t i = 0; i < o->npatterns; i++)
		need |= nop_upattern(o->patterns[i]) ? 1u << CAP_USER : 1u << CAP_KFUNC;
	if (!need)
		need = core;
	for (int c = CAP_KFUNC; c <= CAP_USER; c++) {
		char *to = t.blocked & 1u << c ? fails : works;

		snprintf(to + strlen(to), 128 - strlen(to), "%s%s", *to ? ", " : "", caps[c].name);
	}
	nop_fields_open(&f, stdout, o->enc == NOP_ENC_JSON);
	nop_field_str(&f, "type", NULL, "summary");
	nop_field_u64(&f, "ok", "doctor: %llu ok, ", t.n[NOP_CHECK_OK]);
	nop_field_u64(&f, "warn", "%llu warning(s), ", t.n[NOP_CHECK_WARN]);
	nop_field_u64(&f, "fail", "%llu failure(s): ", t.n[NOP_CHECK_FAIL]);
	for (int c = 0; c < NCAP; c++)
		snprintf(json + strlen(json), sizeof(json) - strlen(json), "%s\"%s\":%s", c ? "," : "{",
			 caps[c].key, t.blocked & 1u << c ? "false" : "true");
	strcat(json, "}");
	nop_field_json(&f, "capabilities", json);
	if (!(t.blocked & core))
		nop_field_str(&f, "verdict", "%s",
			      t.pattern_fail ? "tracing works, but not every PATTERN can be traced"
					     : "tracing can work here");
	else if ((t.blocked & core) == core)
		nop_field_str(&f, "verdict", "%s", "tracing cannot work here");
	else {
		char part[300];

		snprintf(part, sizeof(part), "tracing works in part: %s; not %s", works, fails);
		nop_field_str(&f, "verdict", "%s", part);
	}
	nop_fields_close(&f);
	/* each capability, yes or no */
	if (o->enc != NOP_ENC_JSON) {
		fputs("doctor:", stdout);
		for (int c = 0; c < NCAP; c++)
			printf("%s %s: %s", c ? "," : "", caps[c].name, t.blocked & 1u << c ? "no" : "yes");
		fputc('\n', stdout);
	}
	fflush(stdout);
	return t.blocked & need ? NOP_EKERNEL : t.pattern_fail ? NOP_EUSAGE : NOP_OK;
}
