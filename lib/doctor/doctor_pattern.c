/* doctor_pattern.c - one PATTERN: can ftrace patch it, and if not, the
 * likely reason; and who else already patches it (other ftrace users,
 * kprobes, BPF trampolines). */
#include <stdlib.h>
#include <string.h>

#include "doctor/doctor.h"

static int count_modules(void)
{
	struct nop_error e;
	char *v = nop_read_file("/proc/modules", NULL, &e);
	int n = 0;

	for (char *p = v; p && *p; p++)
		n += *p == '\n';
	free(v);
	return n;
}

static void suggestions(struct doc *d, const char *pat, char *out, size_t len)
{
	const char *near[4];
	size_t n = d->have_funcs ? nop_funcs_suggest(&d->funcs, pat, near, 4) : 0;

	snprintf(out, len, n ? "close traceable names:" : "see 'nopctl list' for what can be traced");
	for (size_t i = 0; i < n; i++) {
		size_t off = strlen(out);

		snprintf(out + off, len - off, "%s %s", i ? "," : "", near[i]);
	}
}

static void traceable(struct doc *d, const char *pat)
{
	char fix[700], clones[1100] = "";
	struct nop_error e;
	struct nop_ksym k;
	size_t n;

	if (d->have_funcs && (n = nop_funcs_count(&d->funcs, pat, NULL))) {
		doc_say(d, "pattern.traceable", pat, NOP_CHECK_OK, NULL,
			"%zu traceable function%s match%s", n, n == 1 ? "" : "s", n == 1 ? "es" : "");
		return;
	}
	suggestions(d, pat, fix, sizeof(fix));
	if (nop_pattern_is_glob(pat)) {
		doc_say(d, "pattern.traceable", pat, NOP_CHECK_FAIL, fix,
			d->have_funcs ? "no traceable function matches"
				      : "cannot tell: available_filter_functions cannot be read");
		return;
	}
	if (nop_ksym_lookup(pat, &k, &e)) {
		doc_say(d, "pattern.traceable", pat, NOP_CHECK_FAIL, fix, "not traceable; %s", e.msg);
		return;
	}
	for (int i = 0; i < k.nclones; i++)
		if (!d->have_funcs || nop_funcs_count(&d->funcs, k.clones[i], NULL)) {
			size_t off = strlen(clones);

			snprintf(clones + off, sizeof(clones) - off, "%s%s", off ? ", " : "", k.clones[i]);
		}
	if (!d->have_funcs) {
		doc_say(d, "pattern.traceable", pat, NOP_CHECK_WARN, NULL,
			"cannot tell: available_filter_functions cannot be read; kallsyms %s",
			k.found ? "has it" : "does not have it");
	} else if (*clones) {
		snprintf(fix, sizeof(fix), "trace the clone by its name: nopctl trace '%s.*'", pat);
		doc_say(d, "pattern.traceable", pat, NOP_CHECK_FAIL, fix,
			"not traceable under this name: the compiler made a specialized copy"
			" (.isra/.constprop/.part/.cold clone) that ftrace lists instead: %s", clones);
	} else if (k.found && strchr("tTwW", k.type)) {
		doc_say(d, "pattern.traceable", pat, NOP_CHECK_FAIL,
			"trace its callers or callees instead (nopctl graph CALLER shows them)",
			"in the kernel (kallsyms: %c %llx%s%s%s) but not traceable: marked notrace or"
			" noinstr, or in a section ftrace never patches (__init, .noinstr.text,"
			" .entry.text)", k.type, k.addr, *k.module ? " [" : "", k.module,
			*k.module ? "]" : "");
	} else if (k.found) {
		doc_say(d, "pattern.traceable", pat, NOP_CHECK_FAIL, fix,
			"a kernel symbol, but not a function (kallsyms type %c: data)", k.type);
	} else {
		size_t off = strlen(fix);

		snprintf(fix + off, sizeof(fix) - off,
			 "; load its module first, or trace the caller it is inlined into");
		doc_say(d, "pattern.traceable", pat, NOP_CHECK_FAIL, fix,
			"not in this kernel's symbols: inlined into every caller, compiled out by the"
			" kernel's configuration, or in a module that is not loaded (%d loaded)",
			count_modules());
	}
}

/* the symbol a kprobe_events or kprobes/list line probes, in place */
static char *probed(char *tok)
{
	char *c = strchr(tok, ':');

	if (c && strncmp(tok, "0x", 2))
		tok = c + 1; /* MOD:SYM */
	tok[strcspn(tok, "+ \t")] = 0;
	return tok;
}

static bool hits(const char *name, const char *mod, const char *pat)
{
	struct nop_func fn = { .name = (char *)name, .module = (char *)mod };

	return nop_func_matches(&fn, pat, NULL);
}

/* How many users a matching line stands for. enabled_functions: its
 * "(N)", the ftrace ops on the site, a kprobe on an ftrace site among
 * them. kprobe_events: none of its own where kprobes sit on ftrace (an
 * enabled one is one of those ops; a disabled one patches nothing).
 * kprobes/list: a kprobe that is not on the ftrace site ("[FTRACE]"), an
 * int3 ftrace does not count. */
static int ef_users(const char *tdir, const char *line)
{
	const char *p = strchr(line, '(');
	int n = p ? atoi(p + 1) : 0;

	return n > 0 ? n : 1;
}

static int defined_only(const char *tdir, const char *line)
{
	return 0;
}

static int int3_kprobe(const char *tdir, const char *line)
{
	return strstr(line, "[FTRACE]") ? 0 : 1;
}

/* Without KPROBES_ON_FTRACE (arm64) an enabled kprobe event is a
 * breakpoint of its own, in no enabled_functions record: a user where
 * kprobes/list, which lists it, could not be read. Its enable file in
 * tdir says whether it is enabled. */
static int kprobe_event(const char *tdir, const char *line)
{
	char group[128], event[128], path[4200];
	const char *name = strchr(line, ':'); /* "p:GROUP/EVENT SYMBOL", "r16:..." */
	struct nop_error e;
	char *v;
	int on;

	if (!name || sscanf(name + 1, "%127[^/ ]/%127s", group, event) != 2)
		return 0;
	snprintf(path, sizeof(path), "%s/events/%s/%s/enable", tdir, group, event);
	v = nop_read_file(path, NULL, &e);
	on = v && v[0] == '1';
	free(v);
	return on;
}

/* lines of a file whose probed symbol matches pat, into out; the users
 * they stand for (weight) */
static int users_in(const struct doc *d, const char *path, int field, const char *what, const char *pat,
		    int (*weight)(const char *tdir, const char *line), char *out, size_t len, bool *readable)
{
	struct nop_error e;
	char *v = nop_read_file(path, NULL, &e);
	int n = 0, shown = 0;

	*readable = v != NULL;
	for (char *save, *l = v ? strtok_r(v, "\n", &save) : NULL; l; l = strtok_r(NULL, "\n", &save)) {
		char line[600], *tok, *s2;
		int i = 0;

		snprintf(line, sizeof(line), "%s", nop_trim(l));
		for (tok = strtok_r(line, " \t", &s2); tok && i < field; tok = strtok_r(NULL, " \t", &s2))
			i++;
		if (!tok || *tok == '#' || !hits(probed(tok), NULL, pat))
			continue;
		n += weight(d->tdir, nop_trim(l));
		if (shown++ < 3) {
			size_t off = strlen(out);

			snprintf(out + off, len - off, "%s%s: %.160s", off ? "; " : "", what, nop_trim(l));
		}
	}
	free(v);
	return n;
}

static void users(struct doc *d, const char *pat)
{
	char path[4200], seen[1600] = "";
	bool ok_ef, ok_kp, ok_list;
	int n;

	n = users_in(d, nop_path(path, sizeof(path), d->tdir, "enabled_functions"), 0,
		     "enabled_functions", pat, ef_users, seen, sizeof(seen), &ok_ef);
	/* every kprobe, perf's and BPF's too, where debugfs is mounted */
	n += users_in(d, "/sys/kernel/debug/kprobes/list", 2, "kprobes/list", pat, int3_kprobe, seen,
		      sizeof(seen), &ok_list);
	n += users_in(d, nop_path(path, sizeof(path), d->tdir, "kprobe_events"), 1, "kprobe_events", pat,
		      nop_arch.kprobes_on_ftrace || ok_list ? defined_only : kprobe_event, seen, sizeof(seen),
		      &ok_kp);
	if (n)
		doc_say(d, "pattern.users", pat, NOP_CHECK_WARN,
			"ftrace calls every user of a site, so nopctl can share it; but the other user"
			" pays for nopctl's tracing too, and a livepatch (flag I) or a BPF direct call"
			" (flag D, '->') may refuse or slow other users: see 'nopctl status', bpftool prog",
			"%d other user%s already patch%s it: %s", n, n == 1 ? "" : "s",
			n == 1 ? "es" : "", seen);
	else if (!ok_ef)
		doc_say(d, "pattern.users", pat, NOP_CHECK_WARN, NULL,
			"cannot tell: enabled_functions cannot be read");
	else
		doc_say(d, "pattern.users", pat, NOP_CHECK_OK, NULL,
			"nothing else patches it: no other ftrace user and no kprobe event%s%s%s",
			ok_list ? " or kprobe (BPF, perf)" : "", seen[0] ? "; defined but not enabled: " : "",
			seen);
}

void doc_check_pattern(struct doc *d, const char *pat)
{
	struct nop_error e;

	if (nop_upattern(pat)) {
		doc_check_upattern(d, pat);
		return;
	}
	if (nop_pattern_check(pat, &e)) {
		doc_say(d, "pattern.valid", pat, NOP_CHECK_FAIL,
			"give a function name or a glob (*, ?, [...]) of one", "%s", e.msg);
		return;
	}
	if (!d->tdir)
		return;
	traceable(d, pat);
	users(d, pat);
}
