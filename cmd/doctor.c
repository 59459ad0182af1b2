/* doctor.c - nopctl doctor: one finding per check, and an exit code that
 * says whether tracing can work here (0), a PATTERN cannot be traced (2),
 * or tracing cannot work on this machine (3). */
#include <string.h>

#include "cmd.h"

struct tally {
	struct opts *o;
	int n[3];
	bool system_fail, pattern_fail;
};

static void finding(void *ctx, const struct nop_finding *fd)
{
	static const char *const st[] = { "ok", "warn", "fail" };
	struct tally *t = ctx;
	struct nop_fields f;

	t->n[fd->status]++;
	if (fd->status == NOP_CHECK_FAIL)
		*(fd->subject ? &t->pattern_fail : &t->system_fail) = true;
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

	nop_doctor(o->patterns, o->npatterns, finding, &t);
	nop_fields_open(&f, stdout, o->enc == NOP_ENC_JSON);
	nop_field_str(&f, "type", NULL, "summary");
	nop_field_u64(&f, "ok", "doctor: %llu ok, ", t.n[NOP_CHECK_OK]);
	nop_field_u64(&f, "warn", "%llu warning(s), ", t.n[NOP_CHECK_WARN]);
	nop_field_u64(&f, "fail", "%llu failure(s): ", t.n[NOP_CHECK_FAIL]);
	nop_field_str(&f, "verdict", "%s",
		      t.system_fail ? "tracing cannot work here"
		      : t.pattern_fail ? "tracing works, but not every PATTERN can be traced"
				       : "tracing can work here");
	nop_fields_close(&f);
	fflush(stdout);
	return t.system_fail ? NOP_EKERNEL : t.pattern_fail ? NOP_EUSAGE : NOP_OK;
}
