/* blackbox.c - nopctl blackbox arm|disarm|status|show: function or
 * function_graph tracing left running in the persistent instance, and,
 * after a crash, a hang or a reboot, its last events shown as report
 * shows a trace.dat, with where each CPU and task stopped. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd.h"

/* one line of the box's state (status and blackbox status) */
void blackbox_status_line(struct nop_fields *f, const struct nop_bbox *b)
{
	nop_fields_open(f, stdout, f->json);
	nop_field_str(f, "type", "blackbox:", "blackbox");
	nop_field_str(f, "instance", " instance %s", b->name);
	nop_field_u64(f, "size_kb", " (%llu KB)", b->size_kb);
	nop_field_str(f, "state", " %s", b->armed ? "armed" : b->last_boot && b->entries ? "holds the previous boot's events"
							 : strcmp(b->tracer, "nop") ? "in use by someone else"
							 : "not armed");
	if (b->armed)
		nop_field_str(f, "armed_by", " by %s", b->armed_by);
	nop_field_u64(f, "entries", ", %llu events", b->entries);
	if (b->saved[0] || f->json)
		nop_field_str(f, "saved", ", the previous boot's saved in %s", b->saved);
	nop_fields_close(f);
}

/* the box, after the cleanup every run starts with (a nopctl killed while
 * arming is put back first); status only looks */
static int find(struct opts *o, const char **tdir, struct nop_bbox *b, bool clean)
{
	struct nop_error err = { 0 };

	if (!(*tdir = clean ? prepare_tracefs(&err) : nop_tracefs_dir(&err)) || nop_bbox_find(*tdir, b, &err))
		return report_error(o, &err);
	return 0;
}

/* shift the verb off the patterns */
static const char *verb(struct opts *o)
{
	const char *v = o->npatterns ? o->patterns[0] : "status";

	if (o->npatterns) /* the array stays opts_free's to free */
		memmove(o->patterns, o->patterns + 1, --o->npatterns * sizeof(*o->patterns));
	return v;
}

static int arm(struct opts *o)
{
	struct nop_error err = { 0 };
	struct nop_funcs funcs = { 0 };
	struct nop_bbox_sizing sz;
	struct nop_bbox b;
	const char *tdir;
	char what[600];
	size_t off;
	pid_t self = getpid();
	int rc;

	if ((rc = check_pattern_args(o)))
		return rc;
	for (size_t i = 0; i < o->npatterns; i++)
		if (strchr(o->patterns[i], ':')) {
			nop_error_set(&err, NOP_EUSAGE, 0, "the black box traces kernel functions: %s names a program's",
				      o->patterns[i]);
			return report_error(o, &err);
		}
	if (!o->npatterns && !o->npids && !o->command) {
		nop_error_set(&err, NOP_EUSAGE, 0, "give the functions to keep (nopctl blackbox arm 'vfs_*'"
			      " do_sys_openat2), or a task: -p PID or -- COMMAND (every function it calls,"
			      " which fills the buffer in a fraction of a second)");
		return report_error(o, &err);
	}
	if (o->module && !o->npatterns) {
		nop_error_set(&err, NOP_EUSAGE, 0, "-m MODULE narrows PATTERNs: give the functions too");
		return report_error(o, &err);
	}
	if (o->command && o->npids) {
		nop_error_set(&err, NOP_EUSAGE, 0, "give -p PID or -- COMMAND, not both");
		return report_error(o, &err);
	}
	if (o->command && command_check(o->command[0], NULL, 0, &err))
		return report_error(o, &err);
	if ((rc = find(o, &tdir, &b, true)))
		return rc;
	if ((o->npatterns || o->nnotrace) && (load_funcs(tdir, &funcs, &err) || check_patterns(&funcs, o, &err))) {
		nop_funcs_free(&funcs);
		return report_error(o, &err);
	}
	off = (size_t)snprintf(what, sizeof(what), "%s", o->graph ? "function_graph" : "function");
	for (size_t i = 0; i < o->npatterns && off < sizeof(what); i++)
		off += (size_t)snprintf(what + off, sizeof(what) - off, " %s", o->patterns[i]);
	for (size_t i = 0; i < o->npids && off < sizeof(what); i++)
		off += (size_t)snprintf(what + off, sizeof(what) - off, " -p %d", (int)o->pids[i]);
	for (char **c = o->command; c && *c && off < sizeof(what); c++)
		off += (size_t)snprintf(what + off, sizeof(what) - off, "%s%s", c == o->command ? " -- " : " ", *c);
	struct nop_bbox_arm a = {
		.tracer = o->graph ? NOP_TRACER_GRAPH : NOP_TRACER_FUNCTION,
		.filters = o->patterns, .nfilters = o->npatterns,
		.notrace = o->notrace, .nnotrace = o->nnotrace, .module = o->module,
		/* -- COMMAND: nopctl becomes it once armed, the same pid */
		.pids = o->command ? &self : o->pids, .npids = o->command ? 1 : o->npids,
		.funcs = o->npatterns || o->nnotrace ? &funcs : NULL, .force = o->force, .what = what,
		/* a COMMAND waits for nothing: its first second is not measured */
		.measure_ms = o->command ? 0 : 1000,
	};

	rc = nop_bbox_arm(tdir, &b, &a, &sz, &err);
	nop_funcs_free(&funcs);
	if (rc)
		return report_error(o, &err);
	if (!o->quiet || o->enc == NOP_ENC_JSON) {
		struct nop_fields f = { .json = o->enc == NOP_ENC_JSON };
		unsigned long long kbs = sz.ms ? sz.bytes * 1000 / 1024 / sz.ms : 0;

		nop_fields_open(&f, f.json ? stdout : stderr, f.json);
		nop_field_str(&f, "type", "nopctl: ", "blackbox_armed");
		nop_field_str(&f, "instance", "the black box (instance %s) is armed: ", b.name);
		nop_field_str(&f, "what", "%s", what);
		nop_field_u64(&f, "size_kb", "; its %llu KB hold", b.size_kb);
		if (sz.seconds > 0) {
			nop_field_u64(&f, "history_ms", " about %llu ms of history", (unsigned long long)(sz.seconds * 1000));
			nop_field_u64(&f, "rate_kb_per_s", " at the rate measured now (%llu KB/s)", kbs);
		} else {
			nop_field_u64(&f, "measured_ms", " what is written (nothing was in the first %llu ms)", sz.ms);
		}
		if (!f.json)
			fputs("; it stays armed after nopctl exits: 'nopctl blackbox disarm' or 'nopctl reset' ends it,"
			      " and after a crash or a reboot 'nopctl blackbox show' reads it", stderr);
		nop_fields_close(&f);
	}
	if (o->command) {
		fflush(NULL);
		execvp(o->command[0], o->command);
		nop_error_set(&err, NOP_EUSAGE, 0, "cannot run %s: the black box stays armed", o->command[0]);
		return report_error(o, &err);
	}
	return 0;
}

static int disarm(struct opts *o)
{
	struct nop_error err = { 0 };
	struct nop_bbox b;
	const char *tdir;
	char left[600];
	int rc;

	if ((rc = find(o, &tdir, &b, true)))
		return rc;
	if ((rc = nop_bbox_disarm(tdir, &b, left, sizeof(left), &err)) < 0)
		return report_error(o, &err);
	if (!o->quiet || o->enc == NOP_ENC_JSON) {
		struct nop_fields f = { .json = o->enc == NOP_ENC_JSON };

		nop_fields_open(&f, f.json ? stdout : stderr, f.json);
		nop_field_str(&f, "type", "nopctl: ", "blackbox_disarmed");
		nop_field_str(&f, "instance", "the black box (instance %s)", b.name);
		nop_field_bool(&f, "was_armed", rc ? " was not armed by nopctl in this boot" : " is disarmed, as it was found",
			       rc == 0);
		if (left[0] || f.json)
			nop_field_str(&f, "left", "; left as they are (changed since nopctl set them): %s", left);
		nop_fields_close(&f);
	}
	return 0;
}

struct ends_out {
	struct nop_fields f;
	FILE *out;
	bool header;
};

static int one_end(void *ctx, const struct nop_bbox_end *e)
{
	struct ends_out *x = ctx;

	if (!x->f.json && !x->header) {
		fprintf(x->out, "# where it stopped: the last call of each CPU and task\n");
		x->header = true;
	}
	nop_fields_open(&x->f, x->out, x->f.json);
	nop_field_str(&x->f, "type", "# stopped:", "stopped");
	if (e->per_cpu)
		nop_field_i64(&x->f, "cpu", " CPU %lld", e->cpu);
	else
		nop_field_str(&x->f, "task", " task %s", e->comm);
	if (e->per_cpu)
		nop_field_str(&x->f, "comm", " %s", e->comm);
	nop_field_i64(&x->f, "pid", "-%lld", e->pid);
	nop_field_u64(&x->f, "ts_ns", NULL, e->ts);
	if (!x->f.json)
		fprintf(x->out, " at %llu.%06llu", e->ts / 1000000000ULL, e->ts % 1000000000ULL / 1000);
	nop_field_str(&x->f, "func", " in %s", e->func);
	nop_field_bool(&x->f, "open", e->open ? " (entered, never returned)" : NULL, e->open);
	nop_fields_close(&x->f);
	return 0;
}

/* --save FILE: the saved trace.dat copied, a new file (or replaced) */
static int copy(const char *from, const char *to, bool overwrite, struct nop_error *err)
{
	FILE *in = fopen(from, "rb"), *out = NULL;
	char buf[65536];
	size_t n;
	int fd = in ? nop_output_create(to, overwrite, 0644, false) : -1, e;

	if (fd >= 0 && !(out = fdopen(fd, "wb")))
		close(fd);
	while (out && (n = fread(buf, 1, sizeof(buf), in)) > 0 && fwrite(buf, 1, n, out) == n)
		;
	e = errno;
	if (out) {
		bool ok = !ferror(in) && !ferror(out);

		if (fclose(out) == 0 && ok) {
			fclose(in);
			return 0;
		}
		e = errno ? errno : EIO;
	}
	nop_error_set(err, NOP_EUSAGE, e, "cannot write %s: %s", to, strerror(e));
	if (e == EEXIST)
		err->remedy = NOP_REMEDY_OVERWRITE;
	if (in)
		fclose(in);
	return -1;
}

static int show(struct opts *o)
{
	struct nop_error err = { 0 };
	struct nop_bbox b;
	const char *tdir;
	size_t unnamed = 0;
	int rc;

	if (o->npatterns) {
		nop_error_set(&err, NOP_EUSAGE, 0, "blackbox show takes no PATTERN: it shows what the box holds");
		return report_error(o, &err);
	}
	if (o->save && output_check(&(struct opts){ .output = o->save, .overwrite = o->overwrite }, false, &err) < 0)
		return report_error(o, &err);
	if ((rc = find(o, &tdir, &b, true)))
		return rc;
	if (nop_bbox_save(tdir, &b, &unnamed, &err))
		return report_error(o, &err);
	if (unnamed == (size_t)-1 && !o->quiet)
		fprintf(stderr, "nopctl: this kernel does not say where the previous boot's modules were (6.15 and"
			" later do): their functions are shown as addresses\n");
	else if (unnamed && !o->quiet)
		fprintf(stderr, "nopctl: %zu kernel module(s) of the previous boot are not loaded now: their"
			" functions are shown as addresses (load them, then show again)\n", unnamed);
	if (o->save && copy(b.saved, o->save, o->overwrite, &err))
		return report_error(o, &err);
	o->patterns[0] = b.saved; /* the verb's place: the array holds one */
	o->npatterns = 1;
	rc = cmd_report(o);
	/* the ends after the report, where its format is lines of text or JSON */
	if (!rc || rc == NOP_ELOST) {
		bool lines = o->view == NOP_VIEW_LINES && !o->stats && !o->callers;
		struct ends_out x = { .f = { .json = o->enc == NOP_ENC_JSON }, .out = lines && !o->output ? stdout : stderr };

		if (nop_bbox_ends(b.saved, one_end, &x, &err))
			return report_error(o, &err);
	}
	return rc;
}

int cmd_blackbox(struct opts *o)
{
	struct nop_error err = { 0 };
	const char *v = verb(o);

	if (geteuid() != 0 && strcmp(v, "status")) {
		nop_error_set(&err, NOP_EKERNEL, 0, "blackbox %s needs root; run nopctl as root", v);
		return report_error(o, &err);
	}
	if (!strcmp(v, "arm"))
		return arm(o);
	if (o->graph || o->npids || o->command || o->nnotrace || o->module || o->force) {
		nop_error_set(&err, NOP_EUSAGE, 0, "-G, -p, -n, -m, -f and a COMMAND are blackbox arm's");
		return report_error(o, &err);
	}
	if (o->npatterns && strcmp(v, "show")) {
		nop_error_set(&err, NOP_EUSAGE, 0, "blackbox %s takes no PATTERN", v);
		return report_error(o, &err);
	}
	if (!strcmp(v, "disarm"))
		return disarm(o);
	if (!strcmp(v, "show"))
		return show(o);
	if (!strcmp(v, "status")) {
		struct nop_fields f = { .json = o->enc == NOP_ENC_JSON };
		struct nop_bbox b;
		const char *tdir;
		int rc = find(o, &tdir, &b, false);

		if (!rc)
			blackbox_status_line(&f, &b);
		return rc;
	}
	nop_error_set(&err, NOP_EUSAGE, 0, "no blackbox action '%s': arm, disarm, status or show", v);
	return report_error(o, &err);
}
