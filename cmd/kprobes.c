/* kprobes.c - --retval, --args and --errors on kernel functions: which
 * mechanism this kernel offers, and the probes on the functions the
 * PATTERNs name (not on their callees: a probe per function registered
 * with the kernel, where function_graph traces thousands). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>

#include "run.h"

/* Each return probe is a kprobe or fprobe the kernel registers and, for a
 * kretprobe, up to maxactive instances per function (6.1 shows the
 * default "r10" in kprobe_events: calls nested deeper, or on more CPUs at
 * once, are missed and counted in kprobe_profile) */
#define KPROBES_MAX 64

static const char *release(void)
{
	static struct utsname u;

	return uname(&u) == 0 ? u.release : "?";
}

int kernel_probes(struct run *r, const struct nop_funcs *f)
{
	struct opts *o = r->o;
	struct nop_kcaps c;
	bool ret = o->retval, args = o->args;
	size_t n = 0, nuser = r->uprobes.n;
	int rc = 0;

	if (!ret && !args)
		return 0;
	if (!o->npatterns && r->nuser)
		return 0; /* user functions' values and parameters come with their probes (uprobes.c) */
	if (!o->npatterns) {
		nop_error_set(&r->err, NOP_EUSAGE, 0, "--%s: name the kernel functions whose %s to show"
			      " (a PATTERN such as do_sys_openat2); user functions' are not fetched",
			      args ? "args" : o->errors ? "errors" : "retval",
			      args ? "arguments" : "return values");
		return -1;
	}
	nop_kcaps_read(r->tdir, &c);
	/* function_graph's own: every traced function's, with no probe */
	if (ret && r->tracer == NOP_TRACER_GRAPH && c.graph_retval) {
		r->graph_retval = true;
		ret = false;
	}
	if (ret && !c.kretprobe && !c.fprobe) {
		nop_error_set(&r->err, NOP_EKERNEL, 0, "--retval: this kernel (%s) has neither"
			      " funcgraph-retval nor kprobe_events (CONFIG_KPROBE_EVENTS)", release());
		return -1;
	}
	if (args && !c.btf_args && !c.kprobe_args) {
		nop_error_set(&r->err, NOP_EKERNEL, 0, "--args: this kernel (%s) cannot fetch arguments:"
			      " that needs fprobe events with BTF arguments (Linux 6.6 or later built with"
			      " CONFIG_PROBE_EVENTS_BTF_ARGS, such as Debian's 6.12 and 6.19) or kprobe events"
			      " that fetch $argN (Linux 4.20 or later)%s",
			      release(), c.func_args ? "" : "; it has no func-args option either");
		return -1;
	}
	if (!ret && !args)
		return 0;
	for (size_t i = 0; i < f->n && !rc; i++) {
		if (!func_traced(&f->v[i], o))
			continue;
		if (++n > KPROBES_MAX && !o->force) {
			nop_error_set(&r->err, NOP_EUSAGE, 0, "--%s would place probes on more than %d"
				      " kernel functions: each is a probe the kernel registers (and a"
				      " kretprobe keeps up to maxactive calls in flight per function);"
				      " narrow the patterns, or add --force", args ? "args" : "retval",
				      KPROBES_MAX);
			rc = -1;
			break;
		}
		rc = nop_kprobes_add(&r->uprobes, f->v[i].name, f->v[i].module, ret, args, &c, &r->err);
	}
	if (rc)
		return -1;
	r->nkprobes = r->uprobes.n - nuser; /* after the user functions' */
	if (!o->quiet) {
		size_t na = nop_kprobes_count(&r->uprobes, NOP_PROBE_FARGS) +
			    nop_kprobes_count(&r->uprobes, NOP_PROBE_KARGS),
		       nr = r->nkprobes - na;

		if (ret)
			fprintf(stderr, "nopctl: return values of %zu function%s through %s events\n", nr,
				nr == 1 ? "" : "s",
				nop_kprobes_count(&r->uprobes, NOP_PROBE_FEXIT) ? "fprobe exit" : "kretprobe");
		if (args)
			fprintf(stderr, "nopctl: arguments of %zu function%s through %s\n", na,
				na == 1 ? "" : "s",
				c.btf_args ? "fprobe events with BTF argument names"
					   : "kprobe events with $argN named and typed from BTF");
	}
	return 0;
}

/* catch: the kernel judges the root calls where it can (an errno returned,
 * a latency over the limit), and nopctl reads the buffer only in the
 * snapshots it takes then; elsewhere (user functions, --outliers, more
 * than NOP_GATE_FUNCS roots, a kernel without snapshot or synthetic
 * events, NOPCTL_CATCH_GATE=0) every call is read and judged here. Why
 * not: r->gate_why. */
int catch_gate(struct run *r, const struct nop_funcs *f)
{
	struct opts *o = r->o;
	const char *env = getenv("NOPCTL_CATCH_GATE"), *names[NOP_GATE_FUNCS];
	bool off = env && !strcmp(env, "0"), many = false;
	struct nop_error e2;
	size_t n = 0;

	if (!o->catching)
		return 0;
	if (o->outliers || r->nuser || !o->npatterns || r->tracer != NOP_TRACER_GRAPH || off) {
		snprintf(r->gate_why, sizeof(r->gate_why), "%s",
			 off ? "NOPCTL_CATCH_GATE=0"
			 : o->outliers		  ? "--outliers is judged against the calls seen"
						  : "user functions are judged as they come");
		return 0;
	}
	for (size_t i = 0; i < f->n && !many; i++)
		if (func_traced(&f->v[i], o)) {
			if (n == NOP_GATE_FUNCS)
				many = true;
			else if (!(names[n++] = strdup(f->v[i].name)))
				many = true;
		}
	if (!many) {
		if (!(r->gate = nop_gate_plan_new(r->tdir, names, n, o->module, o->errors, o->slower_ns, &e2)))
			snprintf(r->gate_why, sizeof(r->gate_why), "%s", e2.msg);
	} else {
		snprintf(r->gate_why, sizeof(r->gate_why), "more than %d root functions", NOP_GATE_FUNCS);
	}
	for (size_t i = 0; i < n; i++)
		free((char *)names[i]);
	return 0;
}
