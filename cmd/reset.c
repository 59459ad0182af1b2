/* reset.c - nopctl reset: undo what a killed nopctl left behind. */
#include <unistd.h>

#include "cmd.h"

int cmd_reset(struct opts *o)
{
	struct nop_error err = { 0 };
	struct nop_reset_report rep;
	struct nop_fields f;
	const char *tdir;
	int ret;

	if (geteuid() != 0) {
		nop_error_set(&err, NOP_EKERNEL, 0, "reset needs root; run nopctl as root");
		return report_error(o, &err);
	}
	if (!(tdir = nop_tracefs_dir(&err)))
		return report_error(o, &err);
	ret = nop_reset_stale(tdir, &rep, &err);
	/* the black box too: the one setting nopctl leaves on by design */
	struct nop_bbox b;
	struct nop_error e2;
	char bleft[600];
	int armed = nop_bbox_find(tdir, &b, &e2) == 0 && b.armed;

	if (armed && nop_bbox_disarm(tdir, &b, bleft, sizeof(bleft), ret ? &e2 : &err) < 0) {
		armed = false;
		ret = -1;
	}
	if (o->enc == NOP_ENC_JSON || !o->quiet) {
		nop_fields_open(&f, o->enc == NOP_ENC_JSON ? stdout : stderr, o->enc == NOP_ENC_JSON);
		nop_field_str(&f, "type", "nopctl: ", "reset");
		nop_field_u64(&f, "restored_journals", "restored %llu journal(s), ",
			      (unsigned long long)rep.restored_journals);
		nop_field_u64(&f, "removed_instances", "removed %llu stale instance(s)",
			      (unsigned long long)rep.removed_instances);
		nop_field_u64(&f, "live_sessions", ", left %llu running session(s) alone",
			      (unsigned long long)rep.live_sessions);
		nop_field_bool(&f, "disarmed_blackbox", armed ? ", disarmed the black box" : NULL, armed);
		if (rep.left_files || o->enc == NOP_ENC_JSON)
			nop_field_str(&f, "left", "; left as they are (changed since nopctl set"
				      " them, or not restorable): %s", rep.left);
		nop_fields_close(&f);
	}
	return ret ? report_error(o, &err) : 0;
}
