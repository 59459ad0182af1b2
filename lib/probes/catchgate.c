/* catchgate.c - the texts of catch's kernel gate (struct nop_gate_plan):
 * per root function a kretprobe (and for --slower-than a kprobe at its
 * entry), the hist triggers that count its returns and the calls that met
 * the condition, one snapshot trigger per condition, and for --slower-than
 * a synthetic event carrying each call's latency. Built from a function
 * name as available_filter_functions has it (checked character by
 * character), its BTF return type, and numbers; never from input.
 *
 * The errno test follows the return type: an int's -2 is 0xfffffffe in
 * the 64-bit register (the upper half is not the callee's to set; 6.19's
 * do_sys_openat2 leaves it 0), so the value is fetched at the type's own
 * size and signedness.
 */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "probes/probes.h"

static bool name_ok(const char *f)
{
	for (const char *c = f; *c; c++)
		if (!isalnum((unsigned char)*c) && *c != '_')
			return false;
	return *f && !isdigit((unsigned char)*f) && strlen(f) < 128;
}

static int unable(struct nop_error *err, const char *fmt, ...)
{
	char msg[300];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	nop_error_set(err, NOP_EKERNEL, 0, "%s", msg);
	return 1;
}

static void trig(struct nop_gate_plan *g, const char *event, const char *fmt, ...)
{
	struct nop_gate_trigger *t = &g->trig[g->ntrig++];
	va_list ap;

	snprintf(t->rel, sizeof(t->rel), "events/%s/trigger", event);
	va_start(ap, fmt);
	vsnprintf(t->text, sizeof(t->text), fmt, ap);
	va_end(ap);
}

static void count(struct nop_gate_count *c, const char *event, const char *prefix)
{
	snprintf(c->rel, sizeof(c->rel), "events/%s/hist", event);
	snprintf(c->prefix, sizeof(c->prefix), "%s", prefix);
}

/* the filter that holds for a negative errno of this return type; NULL
 * where no value of it is one */
static const char *errno_test(const struct nop_ksig *sig, char *type, size_t len)
{
	if (!sig->found) { /* without BTF, a long */
		snprintf(type, len, "s64");
		return "ret < 0 && ret >= -4095";
	}
	switch (sig->ret.kind) {
	case NOP_KP_SIGNED:
		if (sig->ret.size < 2)
			return NULL;
		snprintf(type, len, "s%d", sig->ret.size * 8);
		return "ret < 0 && ret >= -4095";
	case NOP_KP_UNSIGNED:
	case NOP_KP_POINTER: /* ERR_PTR */
		if (sig->ret.size != 8)
			return NULL;
		snprintf(type, len, "u64");
		return "ret >= 18446744073709547521";
	default:
		return NULL;
	}
}

/* The buffer's trace clock ("[local] global ..."): a hist trigger that
 * reads common_timestamp sets the buffer's clock to its own (global
 * unless it names one), so the gate's name the one in use */
static int current_clock(const char *tracing_dir, char *buf, size_t len)
{
	char path[4200], *v, *open;
	struct nop_error e;
	size_t n;

	snprintf(path, sizeof(path), "%s/trace_clock", tracing_dir);
	if (!(v = nop_read_file(path, NULL, &e)))
		return -1;
	if (!(open = strchr(v, '[')) || (n = strcspn(open + 1, "]")) == 0 || n >= len) {
		free(v);
		return -1;
	}
	snprintf(buf, len, "%.*s", (int)n, open + 1);
	free(v);
	return name_ok(buf) ? 0 : -1;
}

int nop_gate_plan(struct nop_gate_plan *g, const char *tracing_dir, const char *const *funcs, size_t n,
		  const char *module, bool errors, unsigned long long slower_ns, struct nop_error *err)
{
	unsigned long long us = slower_ns / 1000;
	char ev[160], in[160], clock[32];
	struct nop_kcaps caps;

	memset(g, 0, sizeof(*g));
	if (!n || (!errors && !slower_ns))
		return unable(err, "no root function or condition");
	if (n > NOP_GATE_FUNCS)
		return unable(err, "more than %d root functions", NOP_GATE_FUNCS);
	nop_kcaps_read(tracing_dir, &caps);
	if (!nop_path_exists(tracing_dir, "snapshot") || !caps.kretprobe)
		return unable(err, "this kernel has no snapshot or kprobe_events");
	if (!caps.hist)
		return unable(err, "this kernel has no hist triggers");
	if (slower_ns && !nop_path_exists(tracing_dir, "synthetic_events"))
		return unable(err, "this kernel has no synthetic_events");
	if (slower_ns && current_clock(tracing_dir, clock, sizeof(clock)))
		return unable(err, "the trace clock could not be read");
	nop_probe_group(g->group, sizeof(g->group), getpid());
	if (slower_ns) {
		snprintf(g->synth_name, sizeof(g->synth_name), "%s_lat", g->group);
		snprintf(g->synth, sizeof(g->synth), "%s u64 lat", g->synth_name);
	}
	for (size_t i = 0; i < n; i++) {
		struct nop_ksig sig;
		struct nop_error e2;
		char type[8] = "s64";
		const char *test = NULL;

		if (!name_ok(funcs[i]))
			return unable(err, "'%s' is not a name a probe takes", funcs[i]);
		if (nop_kfunc_sig(funcs[i], module, &sig, &e2))
			sig.found = false;
		if (errors && !(test = errno_test(&sig, type, sizeof(type))))
			return unable(err, "%s does not return an errno the kernel can test", funcs[i]);
		snprintf(ev, sizeof(ev), "%s/catch%zu_ret", g->group, i);
		snprintf(in, sizeof(in), "%s/catch%zu_in", g->group, i);
		if (slower_ns)
			snprintf(g->probes[g->nprobes++], NOP_GATE_TEXT, "p:%s %s", in, funcs[i]);
		snprintf(g->probes[g->nprobes++], NOP_GATE_TEXT, "r:%s %s ret=$retval:%s", ev, funcs[i], type);
		/* every return counted; hist triggers on one event differ by key */
		trig(g, ev, "hist:keys=common_type:vals=hitcount");
		count(&g->roots[g->nroots++], ev, "hist:keys=common_type");
		if (errors) {
			g->arm[g->narm++] = g->ntrig;
			trig(g, ev, "snapshot:1 if %s", test);
			trig(g, ev, "hist:keys=common_cpu:vals=hitcount if %s", test);
			count(&g->hits[g->nhits++], ev, "hist:keys=common_cpu");
		}
		if (slower_ns) {
			/* each task's entry time, its latency at the return; a
			 * variable's name is one per function */
			trig(g, in, "hist:keys=common_pid:t%zu=common_timestamp.usecs:clock=%s", i, clock);
			trig(g, ev, "hist:keys=common_pid:l%zu=common_timestamp.usecs-$t%zu:clock=%s:onmatch(%s.catch%zu_in).%s($l%zu)",
			     i, i, clock, g->group, i, g->synth_name, i);
		}
	}
	if (slower_ns) {
		/* lat is u64: a return stamped before its entry (the trace
		 * clock is not strictly monotonic across CPUs: global's
		 * try-lock path, local's per-CPU clocks) wraps to 2^64 less a
		 * little, which is no call's latency */
		snprintf(ev, sizeof(ev), "synthetic/%s", g->synth_name);
		g->arm[g->narm++] = g->ntrig;
		trig(g, ev, "snapshot:1 if lat > %llu && lat < 9223372036854775808", us);
		trig(g, ev, "hist:keys=common_cpu:vals=hitcount if lat > %llu && lat < 9223372036854775808", us);
		count(&g->hits[g->nhits++], ev, "hist:keys=common_cpu");
	}
	return 0;
}

struct nop_gate_plan *nop_gate_plan_new(const char *tracing_dir, const char *const *funcs, size_t n,
					const char *module, bool errors, unsigned long long slower_ns,
					struct nop_error *err)
{
	struct nop_gate_plan *g = malloc(sizeof(*g));

	if (!g) {
		nop_error_set(err, NOP_EINTERNAL, ENOMEM, "out of memory");
		return NULL;
	}
	if (nop_gate_plan(g, tracing_dir, funcs, n, module, errors, slower_ns, err)) {
		free(g);
		return NULL;
	}
	return g;
}
