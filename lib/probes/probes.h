/* probes/probes.h - the probes area of libnopctl: what a run probes: user
 * functions' uprobes and their exits, kernel return-value and argument
 * probes. Its header includes the one of the area before it
 * (lib/README.md: the order): a file sees its own area and those below,
 * never one above. */
#ifndef NOPCTL_AREA_PROBES_H
#define NOPCTL_AREA_PROBES_H

#include "symbols/symbols.h"

/* nop_gate_plan_new's plan filled in g (catchgate.c): 0, or 1 when this
 * kernel or function cannot have one (why in err's message), -1 with err */
int nop_gate_plan(struct nop_gate_plan *g, const char *tracing_dir, const char *const *funcs, size_t n,
		  const char *module, bool errors, unsigned long long slower_ns, struct nop_error *err);

/* an entry probe's event name ends so when it is its function's exit too */
#define NOP_LEAF_SUFFIX "__leaf"
/* The address an event of a user function carries (its key) */
#define NOP_UKEY 0x7ff0000000000000ULL
#define NOP_UKEY_MASK 0xfff0000000000000ULL

int nop_uprobe_find(const struct nop_uprobes *u, unsigned long long key); /* index or -1 */

/* a probe named by its event only (a recording: no path, no binary) */
/* a probe's event name: sym's [A-Za-z0-9_], unique in u, then suffix */
int nop_probe_event_name(struct nop_uprobes *u, const char *sym, const char *suffix, char *out, size_t len);

/* kernel functions' signatures from BTF (kfuncsig.c) */
#define NOP_KSIG_MAX 8

enum nop_kp_kind { NOP_KP_VOID, NOP_KP_SIGNED, NOP_KP_UNSIGNED, NOP_KP_POINTER, NOP_KP_STRING,
		   NOP_KP_OTHER };

struct nop_kparam {
	char name[64];
	enum nop_kp_kind kind;
	int size; /* bytes */
};

struct nop_ksig {
	bool found; /* BTF knows the function */
	struct nop_kparam ret, p[NOP_KSIG_MAX];
	int n;
};

int nop_kfunc_sig(const char *func, const char *module, struct nop_ksig *sig, struct nop_error *err);

/* suffixes of kernel probes' events: a recording tells them apart */
#define NOP_KRET_SUFFIX "__kret"

#define NOP_KARGS_SUFFIX "__kargs"

/* what a probe event's name says: an entry (NAME), an exit (NAME__return,
 * NAME__return_N), an entry that returns at once (NAME__leaf); symlen:
 * NAME's length */
enum nop_probe_name { NOP_PN_ENTRY, NOP_PN_EXIT, NOP_PN_LEAF };

enum nop_probe_name nop_probe_name_parse(const char *event, size_t *symlen);

/* a recording's probe event: sym the first len bytes of event */
int nop_uprobes_add_named(struct nop_uprobes *u, const char *event, size_t len, bool ret);

/* Where a user function's probes go (ucode.c): its entry skip bytes in
 * (past a first instruction the kernel's uprobes refuse), and the
 * instructions that leave it (ret, a direct jump out: a tail call), in it
 * and in its .cold fragments */
struct nop_ucode {
	unsigned long long skip;
	unsigned long long *exits; /* addresses (vaddr), in code order */
	bool *at_ret; /* each: a ret (the return register holds the value), else a tail call */
	size_t nexit, cap;
	unsigned blind;	  /* exits the kernel cannot probe (refused prefixes) */
	bool undecoded;	  /* code not found or not all decoded: exits may be missing */
	bool reaches_out; /* an instruction calls, jumps out by a register or memory
			     operand, tail-calls or enters the kernel */
	const char *refused; /* no instruction of it can be probed: why */
	/* loads_too: the instructions that put a constant in the return
	 * register (nop_arch_ret_const), in code order */
	struct nop_rvload *loads;
	size_t nloads, capload;
};

int nop_ucode_scan(const struct nop_ubin *b, size_t i, bool loads_too, struct nop_ucode *c, struct nop_error *err);

bool nop_ucode_has_exit(const struct nop_ucode *c, unsigned long long vaddr);

void nop_ucode_free(struct nop_ucode *c);

/* the probe --retval places on a kernel function where function_graph
 * gives no return values (kprobes.c; doctor names the same) */
enum nop_probe_kind nop_kcaps_retval_kind(const struct nop_kcaps *c);

#endif
