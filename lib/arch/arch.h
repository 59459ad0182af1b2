/* arch.h - what differs between the machines nopctl runs on, one small
 * interface per concern. nopctl traces the machine it runs on, so each
 * is the build target's: one file per machine (x86_64.c, aarch64.c),
 * compiled whole for its target and empty for any other. A trace.dat
 * records its own machine's facts in its header and is read by those,
 * not by these. */
#ifndef NOPCTL_ARCH_H
#define NOPCTL_ARCH_H

#include <capstone/capstone.h>
#include <stdint.h>

#include "base/base.h"

/* what the hot paths need as constants: kernel functions are aligned to
 * 1 << NOP_KFUNC_ALIGN_SHIFT bytes */
#if defined(__x86_64__)
#define NOP_KFUNC_ALIGN_SHIFT 4
#define NOP_ARCH_MACHINE "x86_64" /* as uname(2) names it */
#elif defined(__aarch64__)
#define NOP_ARCH_MACHINE "aarch64"
/* 4 bytes, an instruction: arm64 kernels align functions to 8 only with
 * DYNAMIC_FTRACE_WITH_CALL_OPS (6.4 and later; Debian's 6.1 has them at
 * every multiple of 4) */
#define NOP_KFUNC_ALIGN_SHIFT 2
#else
#error "nopctl: no lib/arch file for this machine"
#endif

struct nop_arch {
	/* ELF: the machine (EM_*) of the programs this one runs, as
	 * messages name it */
	uint16_t elf_machine;
	const char *name;
	const char *not_this_machine; /* an ELF file of another machine: what is wrong */
	/* libraries: Debian's multiarch directory name, and the flags of
	 * this machine's libraries in the ld.so cache */
	const char *triplet;
	int32_t ldcache_flags;
	/* uprobe fetch arguments: the integer and pointer parameters'
	 * registers in order, the return value's, and the caller at a
	 * function's first instruction */
	const char *const *arg_regs;
	size_t narg_regs;
	const char *ret_reg;
	const char *entry_caller;
	/* ftrace's patch site: its instruction's length, and what an idle
	 * one holds, as inspect says it */
	unsigned site_len;
	const char *site_idle;
	/* a kprobe on a function's ftrace site is one of ftrace's users of
	 * it (KPROBES_ON_FTRACE), not a breakpoint of its own */
	bool kprobes_on_ftrace;
	/* why a function none of whose instructions the kernel's uprobes
	 * take cannot be probed */
	const char *refused;
};

extern const struct nop_arch nop_arch;

/* the bytes a return takes off the stack (a uretprobe's stack pointer
 * less its call's entry's) on the machine uname(2) names so; -1 for one
 * nopctl does not know (machines.c, compiled for every target: a
 * trace.dat may come from either) */
int nop_arch_ret_pops(const char *machine);

/* Exits of a user function (probes/ucode.c): Capstone for this machine
 * with details on; 0, or Capstone's error */
cs_err nop_arch_disasm_open(csh *h);

/* what an instruction does to the flow out of its function */
enum nop_insn_flow {
	NOP_INSN_ON,	 /* the next instruction, or a jump */
	NOP_INSN_RETURN, /* returns: an exit */
	NOP_INSN_JUMP,	 /* a direct jump to *target: an exit where that is outside */
	NOP_INSN_OUT,	 /* calls, enters the kernel or jumps somewhere unknown */
};
enum nop_insn_flow nop_arch_insn_flow(const cs_insn *in, unsigned long long *target);

/* The constants a function's general registers hold, as a scan in code
 * order knows them (why: which return gave a value); zeroed at the start */
struct nop_arch_regs {
	long long v[32];
	uint32_t known;
};

/* the constants the instruction may put in the return register (why:
 * which return gave a value), directly or by a conditional move from
 * registers r says hold them: how many (0-2) into values, and *bytes of
 * the register it writes (4: a 32-bit write, zero-extended; 8: the whole
 * register). r follows what each instruction writes (h: the
 * disassembler, for that) */
int nop_arch_ret_const(csh h, const cs_insn *in, struct nop_arch_regs *r, long long values[2], unsigned *bytes);

/* the kernel's uprobes refuse a probe on the instruction (why, for a
 * function none of whose instructions can be probed: nop_arch.refused) */
bool nop_arch_probe_refused(const cs_insn *in);

/* ftrace's patch site (inspect): where it is when the kernel does not
 * list it, as an offset from the function's symbol whose first bytes
 * are given (at least 16) */
unsigned nop_arch_site_offset(const unsigned char *bytes);

/* s->bytes (from s->addr) at s->site decoded: s->state and s->target,
 * and what precedes the site (x86-64: s->endbr, s->sealed; arm64: a brk
 * in the mov before the site, where a kprobe on the function sits, is
 * NOP_SITE_BRK) */
void nop_arch_patch_site(struct nop_site *s);

#endif
