/* doctor_user.c - nopctl doctor's user-space checks: uprobe events tried
 * on a function of nopctl's own binary (in a scratch session, journaled and
 * removed), the probes defined now, and a BINARY:GLOB pattern's binary,
 * its symbols and the probes others have on its functions. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "doctor/doctor.h"

struct probes_seen {
	int mine_live, mine_dead, others;
	const char *path; /* a binary: others' probes on it */
	char on[600];
};

static void seen(void *ctx, const struct nop_probe_info *p)
{
	struct probes_seen *s = ctx;
	size_t n = s->path ? strlen(s->path) : 0, off = strlen(s->on);

	if (p->owner)
		(void)(nop_owner_alive(p->owner) ? s->mine_live++ : s->mine_dead++);
	else
		s->others++;
	if (s->path && !p->owner && !strncmp(p->target, s->path, n) && p->target[n] == ':')
		snprintf(s->on + off, sizeof(s->on) - off, "%s%s/%s (%s)", off ? ", " : "", p->group,
			 p->event, p->target + n + 1);
}

/* uprobes tried: an entry probe on nopctl's own main, enabled and removed */
void doc_check_uprobes(struct doc *d)
{
	struct nop_ubin b;
	struct nop_uprobes u = { 0 };
	struct nop_session *s;
	struct nop_error e, e2;
	struct probes_seen ps = { 0 };
	char self[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	char *defs = doc_read(d, "uprobe_events", &e);
	int ret;

	free(defs);
	if (!defs && e.sys_errno == ENOENT) {
		doc_say(d, "uprobes", NULL, NOP_CHECK_FAIL,
			"use a kernel built with CONFIG_UPROBE_EVENTS",
			"no uprobe_events: user-space functions (BINARY:GLOB) cannot be traced");
		return;
	}
	if (n <= 0 || (self[n] = 0, nop_ubin_load(self, &b, &e))) {
		doc_say(d, "uprobes", NULL, NOP_CHECK_WARN, NULL, "not tried: nopctl's own binary"
			" cannot be read (%s)", n <= 0 ? strerror(errno) : e.msg);
		return;
	}
	ret = nop_uprobes_add(&u, &b, "main", true, false, &e);
	nop_ubin_free(&b);
	if (!ret && !u.n) {
		doc_say(d, "uprobes", NULL, NOP_CHECK_WARN, NULL, "not tried: nopctl's binary has no"
			" symbol 'main' (stripped)");
		nop_uprobes_free(&u);
		return;
	}
	struct nop_session_cfg cfg = { .tracing_dir = d->tdir, .tracer = NOP_TRACER_NONE,
				       .uprobes = &u };
	if (!ret && !(ret = nop_session_open(&s, &cfg, &e))) {
		ret = nop_session_start(s, &e) || nop_session_stop(s, &e) ? -1 : 0;
		if (nop_session_close(s, NULL, 0, &e2) && !ret) {
			e = e2;
			ret = -1;
		}
	}
	nop_uprobes_free(&u);
	if (ret)
		doc_say(d, "uprobes", NULL, NOP_CHECK_FAIL,
			e.sys_errno == EPERM ? "the kernel forbids it here (lockdown, or the machine's"
			" host): trace in a VM" : NULL, "a uprobe on nopctl's own main failed: %s", e.msg);
	else
		doc_say(d, "uprobes", NULL, NOP_CHECK_OK, NULL, "work: a probe on nopctl's own main was"
			" created, enabled and removed");
	nop_probes_list(d->tdir, seen, &ps);
	doc_say(d, "probes", NULL, ps.mine_dead ? NOP_CHECK_WARN : NOP_CHECK_OK,
		ps.mine_dead ? "run 'nopctl reset'" : NULL,
		"probe events defined now: %d of running nopctl sessions, %d of dead ones, %d of other"
		" tools (nopctl never touches those; 'nopctl status' lists them)",
		ps.mine_live, ps.mine_dead, ps.others);
}

/* What glob matches in b (n functions), and where their probes go: a
 * function whose first instruction the kernel refuses to probe (a lock or
 * segment prefix) is entered after it; one with no instruction it takes
 * cannot be traced */
static void doc_probe_sites(struct doc *d, const char *pat, const struct nop_ubin *b, const char *glob,
			    size_t n)
{
	struct nop_uprobes u = { 0 };
	struct nop_error e;
	char moved[300] = "";
	size_t nmoved = 0;

	if (nop_uprobes_add(&u, b, glob, true, true, &e)) {
		doc_say(d, "pattern.traceable", pat, NOP_CHECK_FAIL, NULL, "%s", e.msg);
		return;
	}
	for (size_t i = 0; i < u.n; i++)
		if (u.v[i].moved && nmoved++ < 3) {
			size_t off = strlen(moved);

			snprintf(moved + off, sizeof(moved) - off, "%s%s", off ? ", " : "", u.v[i].shown);
		}
	doc_say(d, "pattern.traceable", pat, u.refused ? NOP_CHECK_WARN : NOP_CHECK_OK,
		u.refused ? "those functions cannot be traced by uprobes" : NULL,
		"%zu function%s of %s match%s%s%zu%s%s%s; %zu not probeable (every instruction refused)",
		n, n == 1 ? "" : "s", b->name, n == 1 ? "es" : "",
		"; entered after a first instruction the kernel refuses (lock or segment prefix): ",
		nmoved, nmoved ? " (" : "", moved, nmoved > 3 ? ", ...)" : nmoved ? ")" : "", u.refused);
	nop_uprobes_free(&u);
}

/* BINARY:GLOB: the binary as nopctl finds it, what it matches, who else
 * probes its functions */
void doc_check_upattern(struct doc *d, const char *pat)
{
	char bin[PATH_MAX], path[PATH_MAX];
	const char *glob;
	struct nop_ubin b;
	struct nop_error e;
	struct probes_seen ps = { .path = path };
	size_t n;

	if (nop_upattern_split(pat, bin, sizeof(bin), &glob, &e) ||
	    nop_ubin_find(bin, 0, NULL, path, sizeof(path), &e) || nop_ubin_load(path, &b, &e)) {
		doc_say(d, "pattern.binary", pat, NOP_CHECK_FAIL,
			e.remedy == NOP_REMEDY_MODULE ? "give a program's or library's path, or a library name"
							" (libc, libssl); a kernel module's functions are"
							" -m MODULE PATTERN"
						      : "give a program's or library's path, or a library name"
							" (libc, libssl)",
			"%s", e.msg);
		return;
	}
	doc_say(d, "pattern.binary", pat, b.has_symtab ? NOP_CHECK_OK : NOP_CHECK_WARN,
		b.has_symtab ? NULL : "install its debug symbols for its other functions",
		"%s: %s, %zu functions (%s%s)%s", path, b.pie ? "PIE or shared library" : "not PIE", b.n,
		b.debug_file[0] ? "stripped; symbols from " : b.has_symtab ? ".symtab" : "stripped: .dynsym only",
		b.debug_file, b.go ? "; a Go program: graph and stats refuse it (its goroutines' stacks"
		" move)" : "");
	n = nop_ubin_count(&b, glob);
	if (n)
		doc_probe_sites(d, pat, &b, glob, n);
	else if (nop_ubin_no_match(&b, glob, &e))
		doc_say(d, "pattern.traceable", pat, NOP_CHECK_FAIL, NULL, "%s", e.msg);
	nop_ubin_free(&b);
	if (!d->tdir)
		return;
	nop_probes_list(d->tdir, seen, &ps);
	doc_say(d, "pattern.users", pat, NOP_CHECK_OK, NULL, "%s%s",
		ps.on[0] ? "other tools' probes on this binary (they stay; both fire): " :
		"no other tool's probe on this binary", ps.on);
}
