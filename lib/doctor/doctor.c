/* doctor.c - nopctl doctor: every way tracing can fail on this machine,
 * one finding per check. The tracer checks really enable each tracer,
 * confined to one function, in a scratch session that is journaled and
 * restored like any other. */
#include <errno.h>
#include <assert.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mount.h>
#include <unistd.h>

#include "doctor/doctor.h"

static_assert(NOP_TRACER_FUNCTION == 0 && NOP_TRACER_GRAPH == 1, "tried[] index");

void doc_say(struct doc *d, const char *id, const char *subject, enum nop_check st,
	     const char *fix, const char *fmt, ...)
{
	struct nop_finding f = { .id = id, .subject = subject, .status = st, .fix = fix };
	char seen[2048];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(seen, sizeof(seen), fmt, ap);
	va_end(ap);
	f.seen = seen;
	d->fn(d->ctx, &f);
}

/* a tracefs file, trimmed, or NULL with errno */
char *doc_read(struct doc *d, const char *rel, struct nop_error *e)
{
	char path[4200], *v;

	v = nop_read_file(nop_path(path, sizeof(path), d->tdir, rel), NULL, e);
	if (v)
		memmove(v, nop_trim(v), strlen(nop_trim(v)) + 1);
	return v;
}

static void check_privileges(struct doc *d)
{
	struct nop_error e;
	char *st = nop_read_file("/proc/self/status", NULL, &e), *cap;
	unsigned long long eff = 0;

	if (st && (cap = strstr(st, "CapEff:")))
		eff = strtoull(cap + 7, NULL, 16);
	free(st);
	if (geteuid() == 0)
		doc_say(d, "privileges", NULL, NOP_CHECK_OK, NULL, "running as root");
	else
		doc_say(d, "privileges", NULL, NOP_CHECK_FAIL, "run nopctl as root (sudo nopctl ...)",
			"running as uid %u%s: tracefs files are root's", (unsigned)geteuid(),
			eff & (1ULL << 21) ? " with CAP_SYS_ADMIN" : " without CAP_SYS_ADMIN");
}

static bool check_tracefs(struct doc *d)
{
	static char dir[4096];
	struct nop_error e;

	if (nop_mounted("tracefs", dir, sizeof(dir))) {
		d->tdir = dir;
		doc_say(d, "tracefs", NULL, NOP_CHECK_OK, NULL, "mounted at %s", dir);
		return true;
	}
	if (!nop_fs_supported("tracefs")) {
		doc_say(d, "tracefs", NULL, NOP_CHECK_FAIL,
			"use a kernel built with CONFIG_FTRACE (every distribution kernel is)",
			"this kernel has no tracefs (not in /proc/filesystems)");
		return false;
	}
	if (!(d->tdir = nop_tracefs_dir(&e))) {
		doc_say(d, "tracefs", NULL, NOP_CHECK_FAIL, "mount -t tracefs nodev /sys/kernel/tracing",
			"not mounted, and mounting it failed: %s", e.msg);
		return false;
	}
	if (nop_mounted("tracefs", dir, sizeof(dir)))
		d->mounted_here = dir;
	doc_say(d, "tracefs", NULL, NOP_CHECK_OK, NULL,
		"not mounted; mountable: nopctl mounts it at %s when it runs"
		" (doctor unmounts it again)", d->tdir);
	return true;
}

static bool check_access(struct doc *d)
{
	struct nop_error e;
	char *v = doc_read(d, "available_tracers", &e);

	if (!v) {
		bool locked = !strcmp(nop_lockdown_mode(), "confidentiality");

		doc_say(d, "tracefs.access", NULL, NOP_CHECK_FAIL,
			locked ? "boot without lockdown=confidentiality"
			: e.sys_errno == ENOENT ? "use a kernel built with CONFIG_FTRACE"
			: e.sys_errno == EPERM && geteuid() == 0 ? "nothing nopctl can change: the kernel"
								   " or a security policy forbids tracefs"
								 : "run nopctl as root",
			"%s%s", e.msg,
			locked ? ": kernel lockdown 'confidentiality' hides and forbids tracefs files" : "");
		return false;
	}
	snprintf(d->tracers, sizeof(d->tracers), "%s", v);
	doc_say(d, "tracefs.access", NULL, NOP_CHECK_OK, NULL, "readable; available_tracers: %s", v);
	free(v);
	return true;
}

static void check_lockdown(struct doc *d)
{
	const struct nop_lockdown *l = nop_lockdown();

	if (!strcmp(l->mode, "none"))
		doc_say(d, "lockdown", NULL, NOP_CHECK_OK, NULL, "none (%s)", l->how);
	else if (!strcmp(l->mode, "integrity"))
		doc_say(d, "lockdown", NULL, NOP_CHECK_OK, NULL,
			"integrity: blocks changes to the running kernel (unsigned modules, /dev/mem,"
			" kexec), not tracing (%s)", l->how);
	else if (!strcmp(l->mode, "confidentiality"))
		doc_say(d, "lockdown", NULL, NOP_CHECK_FAIL,
			"boot without lockdown=confidentiality (and, with Secure Boot, with at most"
			" lockdown=integrity); lockdown cannot be lowered while the kernel runs",
			"confidentiality: blocks tracefs, /proc/kcore (inspect), kprobes, perf and"
			" BPF reads of kernel memory (%s)", l->how);
	else if (!strcmp(l->mode, "absent"))
		doc_say(d, "lockdown", NULL, NOP_CHECK_OK, NULL, "this kernel has no lockdown LSM (%s)", l->how);
	else
		doc_say(d, "lockdown", NULL, NOP_CHECK_WARN,
			geteuid() ? "run nopctl as root" : "mount -t securityfs none /sys/kernel/security",
			"unknown: %s", l->how);
}

static void check_funcs(struct doc *d)
{
	struct nop_error e;
	size_t mods = 0;

	if (nop_funcs_load(d->tdir, &d->funcs, &e)) {
		doc_say(d, "filter_functions", NULL, NOP_CHECK_FAIL,
			e.sys_errno == EPERM ? "nothing nopctl can change: the kernel (or the machine's"
					       " host) forbids the function tracer; trace in a VM"
					     : NULL,
			"%s%s", e.msg, e.sys_errno == EPERM ? " (EPERM)" : "");
		return;
	}
	d->have_funcs = true;
	for (size_t i = 0; i < d->funcs.n; i++)
		mods += d->funcs.v[i].module != NULL;
	doc_say(d, "filter_functions", NULL, NOP_CHECK_OK, NULL,
		"%zu traceable functions, %zu of them in modules", d->funcs.n, mods);
}

/* One function to try the tracers on: rarely called, present everywhere. */
static void pick_probe(struct doc *d)
{
	static const char *const names[] = { "do_sys_openat2", "do_sys_open", "vfs_fsync", "vfs_read" };
	struct nop_error e;
	struct nop_ksym k;

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]) && !d->probe[0]; i++)
		if (d->have_funcs ? nop_funcs_count(&d->funcs, names[i], NULL) > 0
				  : nop_ksym_lookup(names[i], &k, &e) == 0 && k.found)
			snprintf(d->probe, sizeof(d->probe), "%s", names[i]);
	if (!d->probe[0] && d->have_funcs && d->funcs.n)
		snprintf(d->probe, sizeof(d->probe), "%s", d->funcs.v[0].name);
}

static bool listed(const char *tracers, const char *t)
{
	size_t n = strlen(t);

	for (const char *p = tracers; (p = strstr(p, t)); p += n)
		if ((p == tracers || p[-1] == ' ') && (p[n] == 0 || p[n] == ' '))
			return true;
	return false;
}

static void check_tracer(struct doc *d, enum nop_tracer t)
{
	const char *name = t == NOP_TRACER_GRAPH ? "function_graph" : "function";
	const char *id = t == NOP_TRACER_GRAPH ? "tracer.function_graph" : "tracer.function";
	const char *probe = d->probe;
	struct nop_session_cfg cfg = { .tracing_dir = d->tdir, .tracer = t, .filters = &probe,
				       .nfilters = 1 };
	struct nop_session *s;
	struct nop_error e, e2;
	char where[200];
	bool roots = true, inst;
	int ret;

	if (!listed(d->tracers, name)) {
		doc_say(d, id, NULL, NOP_CHECK_FAIL,
			t == NOP_TRACER_GRAPH ? "graph and stats need a kernel with CONFIG_FUNCTION_GRAPH_TRACER"
					      : "use a kernel built with CONFIG_FUNCTION_TRACER",
			"not in available_tracers (%s)", d->tracers);
		return;
	}
	if (!probe[0]) {
		doc_say(d, id, NULL, NOP_CHECK_WARN, NULL,
			"listed, but not tried: no function to confine it to");
		return;
	}
	if (nop_session_open(&s, &cfg, &e)) {
		if (e.status == NOP_EBUSY)
			doc_say(d, id, NULL, NOP_CHECK_WARN, "try again when the top level is free",
				"listed, not tried: %s", e.msg);
		else
			doc_say(d, id, NULL, NOP_CHECK_FAIL,
				e.sys_errno == EPERM ? "nothing nopctl can change: the kernel (or the"
						       " machine's host) forbids it; trace in a VM" : NULL,
				"available_tracers lists %s, but the kernel refuses it: %s", name, e.msg);
		return;
	}
	if (nop_session_instance(s))
		roots = nop_path_exists(nop_session_dir(s), "set_graph_function");
	snprintf(where, sizeof(where), "%s%s",
		 nop_session_instance(s) ? "in an instance" : "at the top level only (instances do not offer it)",
		 t == NOP_TRACER_GRAPH && !roots
			 ? "; instances have no set_graph_function: graph roots need the top level" : "");
	inst = nop_session_instance(s) != NULL;
	ret = nop_session_start(s, &e);
	if (!ret)
		ret = nop_session_stop(s, &e);
	if (nop_session_close(s, NULL, 0, &e2) && !ret) {
		e = e2;
		ret = -1;
	}
	if (ret)
		doc_say(d, id, NULL, NOP_CHECK_FAIL, NULL, "enabling it (on %s) failed: %s", probe, e.msg);
	else
		doc_say(d, id, NULL, NOP_CHECK_OK, NULL, "works %s (tried on %s)", where, probe);
	d->tried[t] = ret ? 0 : inst ? 1 : 2;
}

static bool doc_has(struct doc *d, const char *rel)
{
	return nop_path_exists(d->tdir, rel);
}

/* What this kernel offers beyond the function tracers: 6.19 prints
 * arguments from BTF itself; probe events give return values and
 * user-space functions (fprobe events since 6.5, listed in README) */
static void check_features(struct doc *d)
{
	struct nop_error e;
	char *readme = doc_read(d, "README", &e);
	bool fprobe = readme && strstr(readme, "f[:[<group>/][<event>]]");

	doc_say(d, "features", NULL, NOP_CHECK_OK, NULL,
		"function arguments from BTF (options/func-args, options/funcgraph-args): %s;"
		" kprobe events: %s; fprobe events: %s; uprobe events: %s",
		doc_has(d, "options/func-args") && doc_has(d, "options/funcgraph-args") ? "yes" : "no",
		doc_has(d, "kprobe_events") ? "yes" : "no", fprobe ? "yes" : "no",
		doc_has(d, "uprobe_events") ? "yes" : "no");
	free(readme);
}

/* the top level's buffer as doctor found it: before the tracer checks,
 * which on 6.1 allocate it (a tracer in any instance drops its promise) */
static void check_buffer(struct doc *d)
{
	struct nop_error e;
	char *v, *tot, *b;

	v = doc_read(d, "buffer_size_kb", &e);
	tot = doc_read(d, "buffer_total_size_kb", &e);
	if (v && (b = strstr(v, "(expanded: ")))
		/* a fresh boot: "7 (expanded: 1408)" */
		doc_say(d, "buffer", NULL, NOP_CHECK_OK, NULL,
			"top level: not allocated yet (a %.*s KB placeholder per CPU; %.*s KB per CPU"
			" once a tracer runs there); nopctl's instances get %.*s KB per CPU unless -b",
			(int)strcspn(v, " "), v, (int)strcspn(b + 11, ")"), b + 11,
			(int)strcspn(b + 11, ")"), b + 11);
	else
		doc_say(d, "buffer", NULL, NOP_CHECK_OK, NULL,
			"top level: %s KB per CPU, %s KB in all; nopctl's instances get the same unless -b",
			v ? v : "?", tot ? tot : "?");
	free(v);
	free(tot);
}

/* the black box: this boot's persistent instance, or why there is none
 * (kernels before 6.12 have no persistent buffer; 6.12 and later need
 * it on the command line) */
static void check_blackbox(struct doc *d)
{
	struct nop_error e;
	struct nop_bbox b;

	if (nop_bbox_find(d->tdir, &b, &e)) {
		doc_say(d, "blackbox", NULL, NOP_CHECK_WARN, e.msg, "no persistent trace instance this boot:"
			" the black box cannot be armed");
		return;
	}
	doc_say(d, "blackbox", b.name, NOP_CHECK_OK, NULL, "persistent instance %s: %llu KB kept across warm"
		" reboots, panics and watchdog resets; %s", b.name, b.size_kb,
		b.armed ? "armed" : b.last_boot && b.entries ? "holds the previous boot's events (nopctl blackbox show)"
		: strcmp(b.tracer, "nop") ? "in use by someone else" : "not armed");
}

static void check_settings(struct doc *d)
{
	struct nop_error e;
	char *v, *b;

	struct nop_kcaps c;

	nop_kcaps_read(d->tdir, &c);
	if (c.graph_retval)
		doc_say(d, "funcgraph_retval", NULL, NOP_CHECK_OK, NULL,
			"supported: graph --retval shows every traced function's return value");
	else if (c.fprobe || c.kretprobe)
		doc_say(d, "funcgraph_retval", NULL, NOP_CHECK_OK, NULL,
			nop_kcaps_retval_kind(&c) == NOP_PROBE_KRETPROBE
			? "no options/funcgraph-retval: --retval places kretprobes on the functions PATTERN"
			  " names (not their callees)"
			: "no options/funcgraph-retval: --retval places fprobe exit events on the functions"
			  " PATTERN names (not their callees)");
	else
		doc_say(d, "funcgraph_retval", NULL, NOP_CHECK_WARN,
			"return values need Linux 6.5 or later built with CONFIG_FUNCTION_GRAPH_RETVAL, or kprobe events",
			"no options/funcgraph-retval and no kprobe_events: --retval exits 3 here");
	if (c.btf_args)
		doc_say(d, "args", NULL, NOP_CHECK_OK, NULL,
			"--args fetches arguments by their BTF names through fprobe events");
	else if (c.kprobe_args)
		doc_say(d, "args", NULL, NOP_CHECK_OK, NULL,
			"--args fetches arguments through kprobe events ($argN), named and typed from the"
			" kernel's BTF");
	else
		doc_say(d, "args", NULL, NOP_CHECK_WARN, "arguments by name need fprobe events with BTF"
			" names (Linux 6.6 or later, CONFIG_PROBE_EVENTS_BTF_ARGS) or kprobe events with"
			" $argN (Linux 4.20 or later)",
			"no probe events that fetch arguments: --args exits 3 here");
	/* catch: the kernel's gate (probes/catchgate.c) needs these three */
	{
		bool snap = nop_path_exists(d->tdir, "snapshot"), synth = nop_path_exists(d->tdir, "synthetic_events");

		if (snap && c.kretprobe && c.hist)
			doc_say(d, "catch", NULL, NOP_CHECK_OK, NULL,
				"kernel roots judged in the kernel: snapshot triggers on kretprobes (--errors)%s;"
				" user functions and --outliers judged as they are read",
				synth ? " and on a synthetic latency event (--slower-than)"
				      : "; --slower-than judged as read (no synthetic_events)");
		else
			doc_say(d, "catch", NULL, NOP_CHECK_WARN, "CONFIG_TRACER_SNAPSHOT, CONFIG_KPROBE_EVENTS and"
				" CONFIG_HIST_TRIGGERS let the kernel judge root calls",
				"no %s: catch reads and judges every call",
				!snap ? "snapshot" : !c.kretprobe ? "kprobe_events" : "hist triggers");
	}
	v = doc_read(d, "trace_clock", &e);
	if (v && (b = strchr(v, '['))) {
		b[strcspn(b, "]")] = 0;
		doc_say(d, "trace_clock", NULL, strcmp(b + 1, "counter") ? NOP_CHECK_OK : NOP_CHECK_WARN,
			strcmp(b + 1, "counter") ? NULL : "echo local > trace_clock (counter gives no time)",
			"%s", b + 1);
	}
	free(v);
}

static void check_journal_dir(struct doc *d)
{
	struct nop_error e;

	if (nop_journal_dir_check(&e) == 0)
		doc_say(d, "journal_dir", NULL, NOP_CHECK_OK, NULL, "%s: a directory only its owner can write",
			nop_journal_dir());
	else if (e.sys_errno == ENOENT)
		doc_say(d, "journal_dir", NULL, NOP_CHECK_OK, NULL,
			"%s does not exist yet: nopctl creates it (0700) at first use", nop_journal_dir());
	else
		doc_say(d, "journal_dir", NULL, NOP_CHECK_FAIL,
			"remove it; nopctl creates it again, root-owned and 0700", "%s", e.msg);
}

int nop_doctor(const char *const *patterns, size_t n, nop_finding_fn fn, void *ctx)
{
	struct doc d = { .fn = fn, .ctx = ctx };

	check_privileges(&d);
	check_lockdown(&d);
	if (!check_tracefs(&d) || !check_access(&d))
		d.tdir = NULL;
	else {
		check_funcs(&d);
		check_journal_dir(&d);
		doc_check_users(&d);
		check_buffer(&d);
		pick_probe(&d);
		check_tracer(&d, NOP_TRACER_FUNCTION);
		check_tracer(&d, NOP_TRACER_GRAPH);
		if (d.tried[0] && d.tried[1])
			doc_say(&d, "instances", NULL, NOP_CHECK_OK, NULL,
				"function runs in instances: %s; function_graph: %s",
				d.tried[0] == 1 ? "yes" : "no", d.tried[1] == 1 ? "yes"
				: "no (graph and stats take the top level, one session at a time)");
		check_settings(&d);
		check_features(&d);
		check_blackbox(&d);
		doc_check_uprobes(&d);
		doc_check_lost(&d);
	}
	for (size_t i = 0; i < n; i++)
		doc_check_pattern(&d, patterns[i]); /* without tracefs: only pattern.valid */
	if (d.have_funcs)
		nop_funcs_free(&d.funcs);
	if (d.mounted_here)
		umount2(d.mounted_here, MNT_DETACH);
	return 0;
}
