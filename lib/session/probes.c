/* probes.c - nopctl's probe events in tracefs: created in its own group
 * (nopctl_<pid>), each journaled before it is made, and removed by name:
 * at the session's end, by a replay of its journal after a crash, or as
 * an orphan group of a nopctl that no longer runs. Other users' probes
 * are never touched: every removal names one of nopctl's events.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "session/session.h"

static int write_def(const char *tracing_dir, const char *file, const char *def, struct nop_error *err)
{
	char path[4200];

	snprintf(path, sizeof(path), "%s/%s", tracing_dir, file);
	return nop_write_file(path, def, true, err);
}

/* a kernel function's probe: kprobe_events takes kprobes and kretprobes
 * on every kernel, fprobes are in dynamic_events only */
static int create_kernel(const char *tracing_dir, const char *ge, const struct nop_uprobe *p,
			 struct nop_error *err)
{
	char def[4400];
	bool kprobe = p->kind == NOP_PROBE_KRETPROBE || p->kind == NOP_PROBE_KARGS;
	const char *file = kprobe ? "kprobe_events" : "dynamic_events";

	snprintf(def, sizeof(def), "%c:%s %s%s %s", p->kind == NOP_PROBE_KRETPROBE ? 'r' : kprobe ? 'p' : 'f', ge,
		 p->sym, p->kind == NOP_PROBE_FEXIT ? "%return" : "", p->fetch);
	if (write_def(tracing_dir, file, def, err) == 0)
		return 0;
	nop_error_set(err, err->sys_errno == ENOENT ? NOP_EKERNEL : err->sys_errno == EINVAL ||
		      err->sys_errno == E2BIG ? NOP_EUSAGE : NOP_EKERNEL, err->sys_errno,
		      "the kernel refused the %s on %s (%s in %s): %s%s",
		      nop_probe_args(p->kind) ? "argument probe" : "return probe", p->sym, def, file,
		      strerror(err->sys_errno), err->sys_errno == ENOENT ? " (no such tracefs file)" : "");
	return -1;
}

/* An event of its own names its value by its type (a recording's reader
 * has no DWARF): rv_s4 a signed 4-byte integer, rv_u1, rv_p8 a pointer,
 * rv_x8 a value not shown (void, a tail call) */
static const char *rv_name(unsigned char rv)
{
	static char n[8];

	snprintf(n, sizeof(n), "rv_%c%d", !rv ? 'x' : rv & NOP_RV_POINTER ? 'p' : rv & NOP_RV_SIGNED ? 's' : 'u',
		 rv ? rv & 0xf : 8);
	return n;
}

/* u->v[i]'s event is an earlier probe's too (a shared event: its first
 * probe counts them) */
static bool event_before(const struct nop_uprobes *u, size_t i)
{
	return u->v[i].shared && !u->v[i].nshared;
}

/* user probes' definitions, written to uprobe_events many lines a write:
 * the kernel parses a write line by line (trace_parse_run_command), and
 * a write of its own per probe costs a system call each */
struct batch {
	char *buf;
	size_t len, cap;
	size_t first, last; /* the probes it holds */
};

static int flush_batch(struct batch *b, const char *tracing_dir, const struct nop_uprobes *u,
		       struct nop_error *err)
{
	const struct nop_uprobe *f = &u->v[b->first], *l = &u->v[b->last];

	if (!b->len)
		return 0;
	b->len = 0;
	if (write_def(tracing_dir, "uprobe_events", b->buf, err) == 0)
		return 0;
	if (err->sys_errno == ENOENT)
		nop_error_set(err, NOP_EKERNEL, ENOENT, "this kernel has no uprobe_events"
			      " (CONFIG_UPROBE_EVENTS is off): user-space functions cannot be"
			      " traced here");
	else
		nop_error_set(err, err->sys_errno == EINVAL || err->sys_errno == E2BIG ? NOP_EUSAGE : NOP_EKERNEL,
			      err->sys_errno, "the kernel refused a probe on %s%s%s (%s at offset 0x%llx%s):"
			      " %s (its error_log in tracefs says which)", f->shown, f == l ? "" : " .. ",
			      f == l ? "" : l->shown, f->path, f->offset, f == l ? "" : " and after",
			      strerror(err->sys_errno));
	return -1;
}

static int add_to_batch(struct batch *b, size_t i, const char *def, struct nop_error *err)
{
	size_t n = strlen(def);

	if (nop_grow((void **)&b->buf, &b->cap, b->len + n + 2, 1)) {
		nop_error_set(err, NOP_EINTERNAL, ENOMEM, "out of memory");
		return -1;
	}
	if (!b->len)
		b->first = i;
	b->last = i;
	memcpy(b->buf + b->len, def, n);
	b->len += n;
	b->buf[b->len++] = '\n';
	b->buf[b->len] = 0;
	return 0;
}

/* Written in batches: the kernel compares each new uprobe with every one
 * defined, so thousands take seconds, and stop() is asked between them */
#define BATCH_BYTES (64 << 10)
int nop_probes_create(struct nop_journal *j, const char *tracing_dir, const char *group,
		      const struct nop_uprobes *u, bool (*stop)(void *), void *stop_ctx,
		      struct nop_error *err)
{
	char ge[200], def[4400];
	bool returns = false;
	struct batch b = { 0 };
	int ret = 0;

	for (size_t i = 0; i < u->n; i++)
		returns |= u->v[i].ret && u->v[i].kind == NOP_PROBE_USER;
	for (size_t i = 0; i < u->n && !ret; i++) {
		const struct nop_uprobe *p = &u->v[i];

		snprintf(ge, sizeof(ge), "%s/%s", group, p->event);
		if (!event_before(u, i) && nop_journal_probe(j, ge, err)) {
			ret = -1;
			break;
		}
		if (p->kind != NOP_PROBE_USER) {
			ret = flush_batch(&b, tracing_dir, u, err) || create_kernel(tracing_dir, ge, p, err) ? -1 : 0;
			continue;
		}
		/* with returns probed (calls, not hits), an entry also fetches
		 * its return address (nop_arch.entry_caller): the call
		 * site, which the DOT view names; entries and exits fetch the
		 * stack pointer, which pairs an exit with its entry exactly
		 * (recursion) and tells which calls an exception or a longjmp
		 * unwound. An exit is a probe on an instruction that leaves
		 * the function (ucode.c), a uretprobe only where its code was
		 * not read. Hits need neither (each fetch is a read of the
		 * traced program's memory at every call), but for their
		 * callers: a stack the kernel unwinds from a function's entry
		 * by frame pointers skips the caller itself */
		snprintf(def, sizeof(def), "%c:%s %s:0x%llx%s%s%s%s", p->uret ? 'r' : 'p', ge, p->path,
			 p->offset, returns ? " sp=%sp:x64" : "",
			 (returns || u->callers) && !p->ret ? " caller=" : "",
			 (returns || u->callers) && !p->ret ? nop_arch.entry_caller : "",
			 (returns || u->callers) && !p->ret ? ":x64" : "");
		/* --retval: an exit's return register (at a ret: the value; a
		 * uretprobe's $retval), which the decoder keeps where it is the
		 * value */
		/* --args: the parameters, from DWARF (uprobes.c) */
		if (p->fetch)
			snprintf(def + strlen(def), sizeof(def) - strlen(def), " %s", p->fetch);
		if (u->retval && p->ret)
			snprintf(def + strlen(def), sizeof(def) - strlen(def), " %s=%s:x64",
				 p->shared ? "rv" : rv_name(p->rv), p->uret ? "$retval" : nop_arch.ret_reg);
		/* a shared event's probe: its index, which tells the decoder
		 * which probe fired (the arguments' names and types are the
		 * same for every probe of the event; the value is its own) */
		if (p->shared)
			snprintf(def + strlen(def), sizeof(def) - strlen(def), " id=\\%zu:u32", i);
		if (add_to_batch(&b, i, def, err) || (b.len > BATCH_BYTES && flush_batch(&b, tracing_dir, u, err)))
			ret = -1;
		else if (!b.len && stop && stop(stop_ctx)) {
			nop_error_set(err, NOP_EINTERNAL, EINTR, "set-up stopped before tracing began");
			ret = -1;
		}
	}
	if (!ret)
		ret = flush_batch(&b, tracing_dir, u, err);
	free(b.buf);
	return ret;
}

static bool exists(const char *tracing_dir, const char *ge)
{
	char rel[300];

	snprintf(rel, sizeof(rel), "events/%s", ge);
	return nop_path_exists(tracing_dir, rel);
}

/* "group/event": [A-Za-z0-9_] on both sides, the group nopctl's */
static bool ours(const char *ge)
{
	const char *slash = strchr(ge, '/');
	char group[128];

	if (!slash || (size_t)(slash - ge) >= sizeof(group))
		return false;
	memcpy(group, ge, (size_t)(slash - ge));
	group[slash - ge] = 0;
	if (!nop_probe_group_owner(group))
		return false;
	for (const char *c = slash + 1; *c; c++)
		if (!(*c == '_' || (*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') ||
		      (*c >= '0' && *c <= '9')))
			return false;
	return slash[1] != 0;
}

/* dynamic_events removes any kind (6.1 and later); uprobe_events and
 * kprobe_events each their own */
int nop_probe_delete(const char *tracing_dir, const char *ge, struct nop_error *err)
{
	char def[300];
	struct nop_error e2;

	snprintf(def, sizeof(def), "-:%s", ge);
	if (write_def(tracing_dir, "dynamic_events", def, err) == 0 ||
	    write_def(tracing_dir, "uprobe_events", def, &e2) == 0 ||
	    write_def(tracing_dir, "kprobe_events", def, &e2) == 0)
		return 0;
	return -1;
}

int nop_probe_remove(const char *tracing_dir, const char *ge, struct nop_replay *rep,
		     struct nop_error *err)
{
	char path[4300], *v;
	struct nop_error e2;

	if (!ours(ge) || !exists(tracing_dir, ge))
		return 0; /* never created, or gone */
	/* enabled at the top level (an instance's go with it). Only then:
	 * any write to an event's enable file, 0 too, allocates the top-level
	 * buffer while it is still a placeholder on 6.12 and 6.19 ("7
	 * (expanded: 1408)" becomes "1410") */
	snprintf(path, sizeof(path), "%s/events/%s/enable", tracing_dir, ge);
	if ((v = nop_read_file(path, NULL, &e2)) && strcmp(nop_trim(v), "0"))
		nop_write_file(path, "0", false, &e2);
	free(v);
	/* the kernel keeps a probe that has triggers (catch's gate: EBUSY) */
	snprintf(path, sizeof(path), "events/%s/trigger", ge);
	if (nop_path_exists(tracing_dir, path))
		nop_clear_triggers(tracing_dir, path);
	if (nop_probe_delete(tracing_dir, ge, err) == 0)
		return 0;
	nop_replay_left(rep, ge, err->sys_errno == EBUSY ? "probe in use by another tool (perf?):"
			" left" : "probe could not be removed");
	return -1;
}

/* Groups nopctl_<pid> of a nopctl that no longer runs (killed before its
 * journal said so, or its journal lost): every event of them removed */
struct stale {
	const char *tracing_dir;
	struct nop_replay *rep;
	struct nop_error *err;
	int ret;
};

static void remove_stale(void *ctx, const struct nop_probe_info *p)
{
	struct stale *st = ctx;
	struct nop_error e2;
	char ge[300], name[300];
	const char *inst;

	snprintf(ge, sizeof(ge), "%s/%s", p->group, p->event);
	if (!p->owner && (inst = nop_instance_of_group(p->group, name, sizeof(name)))) {
		/* another PID namespace's: while its session lives, its instance
		 * does (held open), and the kernel refuses to remove an enabled
		 * probe (EBUSY: left) */
		if (!nop_path_exists(st->tracing_dir, inst) &&
		    nop_probe_delete(st->tracing_dir, ge, &e2) < 0 && e2.sys_errno != EBUSY)
			st->ret = -1;
		return;
	}
	/* our own pid's too: cleanup comes before our first change */
	if (!p->owner || nop_owner_alive(p->owner))
		return;
	if (nop_probe_remove(st->tracing_dir, ge, st->rep, st->ret ? &e2 : st->err))
		st->ret = -1;
}

int nop_probes_reset_stale(const char *tracing_dir, struct nop_replay *rep, struct nop_error *err)
{
	struct stale st = { .tracing_dir = tracing_dir, .rep = rep, .err = err };

	nop_probes_list(tracing_dir, remove_stale, &st);
	return st.ret;
}

/* uprobe_events and kprobe_events, line by line ("p:grp/ev target..."),
 * and the fprobes of dynamic_events (which repeats the others) */
int nop_probes_list(const char *tracing_dir, nop_probe_fn fn, void *ctx)
{
	static const char *const files[] = { "uprobe_events", "kprobe_events", "dynamic_events" };
	static const char *const kinds[] = { "uprobe", "kprobe", "fprobe" };
	int n = 0;

	for (size_t i = 0; i < ARRAY_SIZE(files); i++) {
		char path[4200], *text, *save;
		struct nop_error e2;

		snprintf(path, sizeof(path), "%s/%s", tracing_dir, files[i]);
		if (!(text = nop_read_file(path, NULL, &e2)))
			continue;
		for (char *l = strtok_r(text, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
			struct nop_probe_info p = { .kind = kinds[i], .type = l[0] };
			char *ge = strchr(l, ':'), *sp = ge ? strchr(ge, ' ') : NULL, *slash, *target;

			if (!ge || !sp || (i == 2) != (l[0] == 'f' || l[0] == 't'))
				continue;
			*sp = 0;
			target = nop_trim(sp + 1);
			/* where it is placed; its fetch arguments after it are not */
			target[strcspn(target, " \t")] = 0;
			p.target = target;
			if ((slash = strchr(++ge, '/'))) {
				*slash = 0;
				p.group = ge;
				p.event = slash + 1;
			} else {
				p.group = "";
				p.event = ge;
			}
			p.owner = nop_probe_group_owner(p.group);
			fn(ctx, &p);
			n++;
		}
		free(text);
	}
	return n;
}
