/* kprobes.c - return values and arguments of kernel functions where
 * function_graph gives none: no Debian kernel (6.1, 6.12, 6.19) is built
 * with CONFIG_FUNCTION_GRAPH_RETVAL, all have kprobe_events, 6.12 and
 * later fprobe events with arguments by their BTF names (earlier ones
 * kprobes fetching $argN, named and typed here from BTF). One probe per
 * function and purpose, in nopctl's group; what it fetches is built here
 * from the function's BTF signature (names checked character by
 * character), never from input.
 */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "probes/probes.h"

void nop_kcaps_read(const char *tracing_dir, struct nop_kcaps *c)
{
	char path[4200], *readme;
	struct nop_error e;

	memset(c, 0, sizeof(*c));
	c->graph_retval = nop_path_exists(tracing_dir, "options/funcgraph-retval");
	c->kretprobe = nop_path_exists(tracing_dir, "kprobe_events");
	c->func_args = nop_path_exists(tracing_dir, "options/func-args");
	/* tracefs's README lists the syntax this kernel accepts */
	snprintf(path, sizeof(path), "%s/README", tracing_dir);
	if (!(readme = nop_read_file(path, NULL, &e)))
		return;
	c->fprobe = nop_path_exists(tracing_dir, "dynamic_events") && strstr(readme, "f[:[<group>/][<event>]]");
	c->btf_args = c->fprobe && strstr(readme, "<argname>");
	c->kprobe_args = c->kretprobe && strstr(readme, "$arg<N>");
	c->hist = strstr(readme, "hist (see below)") != NULL;
	free(readme);
}

/* a kretprobe wherever kprobe_events is: 6.19's fprobe exit beside
 * function_graph can trip a kernel WARN (fprobe.c:472, fprobe_return),
 * a panic where panic_on_warn is set; kretprobes (rethook, not fgraph)
 * do not (docs/kernel-notes.md) */
enum nop_probe_kind nop_kcaps_retval_kind(const struct nop_kcaps *c)
{
	return c->kretprobe ? NOP_PROBE_KRETPROBE : NOP_PROBE_FEXIT;
}

/* a fetch type for a value of this kind */
static const char *fetch_type(const struct nop_kparam *p, char *buf, size_t len)
{
	switch (p->kind) {
	case NOP_KP_SIGNED: snprintf(buf, len, "s%d", p->size * 8); return buf;
	case NOP_KP_UNSIGNED: snprintf(buf, len, "u%d", p->size * 8); return buf;
	/* a user pointer is read as one where kernel and user addresses do
	 * not overlap (x86-64, arm64; Linux 5.8 and later) */
	case NOP_KP_STRING: return "string";
	default: return "x64";
	}
}

/* the longest name a probe event's argument may have (MAX_ARG_NAME_LEN,
 * kernel/trace/trace_probe.h) */
#define PROBE_ARG_NAME_MAX 32

/* The fetch arguments of an argument probe: by BTF name where probe
 * events take them (fprobe), else as kprobe fetches of $argN named and
 * typed from BTF. $argN is the Nth register-sized argument: after a
 * parameter whose registers are unknown (a struct passed by value) the
 * rest are left out; so is a parameter whose name is too long for the
 * kernel. A string is the memory its pointer points to (+0(...); a
 * register itself cannot be fetched as one). 0, or -1: too long for buf. */
static int args_fetch(const struct nop_ksig *sig, bool by_name, char *buf, size_t len)
{
	size_t off = 0;
	char t[16], from[24] = "";

	buf[0] = 0;
	for (int i = 0; i < sig->n; i++) {
		const struct nop_kparam *p = &sig->p[i];

		if (p->kind == NOP_KP_OTHER) {
			if (by_name)
				continue;
			break;
		}
		if (strlen(p->name) > PROBE_ARG_NAME_MAX)
			continue; /* the kernel refuses the name: this one left out */
		if (!by_name)
			snprintf(from, sizeof(from), p->kind == NOP_KP_STRING ? "=+0($arg%d)" : "=$arg%d", i + 1);
		off += (size_t)snprintf(buf + off, off < len ? len - off : 0, "%s%s%s:%s", off ? " " : "", p->name,
					from, fetch_type(p, t, sizeof(t)));
	}
	return off < len ? 0 : -1;
}

/* a name from available_filter_functions: what the kernel's symbols hold */
static bool func_ok(const char *f)
{
	for (const char *c = f; *c; c++)
		if (!isalnum((unsigned char)*c) && *c != '_' && *c != '.')
			return false;
	return *f && !isdigit((unsigned char)*f);
}

static int add(struct nop_uprobes *u, const char *func, enum nop_probe_kind kind, const char *fetch)
{
	struct nop_uprobe *p;

	if (nop_grow((void **)&u->v, &u->cap, u->n + 1, sizeof(*u->v)))
		return -1;
	p = &u->v[u->n];
	memset(p, 0, sizeof(*p));
	if (!(p->path = strdup("")) || !(p->sym = strdup(func)) || !(p->shown = strdup(func)) ||
	    !(p->fetch = strdup(fetch))) {
		free(p->path);
		free(p->sym);
		free(p->shown);
		return -1;
	}
	p->kind = kind;
	p->ret = !nop_probe_args(kind);
	p->func = u->n;
	if (nop_probe_event_name(u, func, nop_probe_args(kind) ? NOP_KARGS_SUFFIX : NOP_KRET_SUFFIX, p->event,
				 sizeof(p->event))) {
		free(p->path);
		free(p->sym);
		free(p->shown);
		free(p->fetch);
		return -1;
	}
	u->n++;
	return 0;
}

int nop_kprobes_add(struct nop_uprobes *u, const char *func, const char *module, bool ret,
		    bool args, const struct nop_kcaps *c, struct nop_error *err)
{
	struct nop_ksig sig;
	char fetch[1024], t[16];

	if (!func_ok(func)) {
		nop_error_set(err, NOP_EUSAGE, 0, "'%s' is not a kernel function name", func);
		return -1;
	}
	for (size_t i = 0; i < u->n; i++)
		if (u->v[i].kind != NOP_PROBE_USER && !strcmp(u->v[i].sym, func))
			return 0; /* two patterns, one function */
	if (nop_kfunc_sig(func, module, &sig, err))
		return -1;
	if (ret && !(sig.found && sig.ret.kind == NOP_KP_VOID)) {
		/* typed as BTF says: an int's -2 is 0xfffffffe in a 64-bit
		 * register (the upper half is not the callee's to set);
		 * without BTF, a long */
		snprintf(fetch, sizeof(fetch), "ret=$retval:%s",
			 sig.found ? fetch_type(&sig.ret, t, sizeof(t)) : "s64");
		if (sig.found && sig.ret.kind == NOP_KP_STRING)
			snprintf(fetch, sizeof(fetch), "ret=$retval:x64");
		if (add(u, func, nop_kcaps_retval_kind(c), fetch))
			goto oom;
	}
	if (args) {
		if (!c->btf_args && !c->kprobe_args) {
			nop_error_set(err, NOP_EKERNEL, 0, "arguments by name need probe events that fetch"
				      " arguments: fprobe events with BTF names (Linux 6.6 or later built with"
				      " CONFIG_PROBE_EVENTS_BTF_ARGS) or kprobe events with $argN (Linux 4.20"
				      " or later, CONFIG_HAVE_FUNCTION_ARG_ACCESS_API); this kernel has neither");
			return -1;
		}
		if (!sig.found) {
			nop_error_set(err, NOP_EUSAGE, 0, "arguments: the kernel's BTF has no signature for"
				      " %s (a compiler's clone, or a function of a module without BTF);"
				      " name the function it was made from", func);
			return -1;
		}
		if (args_fetch(&sig, c->btf_args, fetch, sizeof(fetch))) {
			nop_error_set(err, NOP_EINTERNAL, 0, "%s: too many arguments", func);
			return -1;
		}
		if (fetch[0] && add(u, func, c->btf_args ? NOP_PROBE_FARGS : NOP_PROBE_KARGS, fetch))
			goto oom;
	}
	return 0;
oom:
	nop_error_set(err, NOP_EINTERNAL, ENOMEM, "out of memory");
	return -1;
}

size_t nop_kprobes_count(const struct nop_uprobes *u, enum nop_probe_kind kind)
{
	size_t n = 0;

	for (size_t i = 0; i < u->n; i++)
		n += u->v[i].kind == kind;
	return n;
}
