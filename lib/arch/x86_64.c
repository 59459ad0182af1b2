/* x86_64.c - x86-64's side of arch.h: the System V ABI, Debian's
 * x86_64-linux-gnu, and the kernel's x86 uprobes and ftrace. */
#if defined(__x86_64__)
#include <elf.h>
#include <string.h>

#include "arch/arch.h"

/* the System V x86-64 ABI's registers for integer and pointer
 * arguments, in order, as uprobe fetch arguments name them */
static const char *const arg_regs[] = { "%di", "%si", "%dx", "%cx", "%r8", "%r9" };

const struct nop_arch nop_arch = {
	.elf_machine = EM_X86_64,
	.name = "x86-64",
	.not_this_machine = "is not a 64-bit x86-64 ELF file: this machine cannot run its functions",
	.triplet = "x86_64-linux-gnu",
	.ldcache_flags = 0x0303, /* ELF libc6, x86-64 */
	.arg_regs = arg_regs,
	.narg_regs = sizeof(arg_regs) / sizeof(arg_regs[0]),
	.ret_reg = "%ax",
	/* a call pushed the return address: the stack's top word */
	.entry_caller = "$stack0",
	.site_len = 5,
	.site_idle = "a 5-byte NOP: ftrace is not tracing it",
	.kprobes_on_ftrace = true,
	.refused = "every instruction of it has a prefix the kernel's uprobes refuse (lock, or an ES,"
		   " CS, DS or SS segment)",
};

cs_err nop_arch_disasm_open(csh *h)
{
	cs_err e = cs_open(CS_ARCH_X86, CS_MODE_64, h);

	if (e == CS_ERR_OK)
		cs_option(*h, CS_OPT_DETAIL, CS_OPT_ON);
	return e;
}

enum nop_insn_flow nop_arch_insn_flow(const cs_insn *in, unsigned long long *target)
{
	const cs_x86 *x = &in->detail->x86;

	switch (in->id) {
	case X86_INS_RET:
	case X86_INS_RETF:
		return NOP_INSN_RETURN;
	case X86_INS_JMP:
		if (x->op_count == 1 && x->operands[0].type == X86_OP_IMM) {
			*target = (unsigned long long)x->operands[0].imm;
			return NOP_INSN_JUMP;
		}
		return NOP_INSN_OUT;
	case X86_INS_CALL:
	case X86_INS_LCALL:
	case X86_INS_SYSCALL:
	case X86_INS_SYSENTER:
	case X86_INS_INT:
	case X86_INS_INT3:
	case X86_INS_LJMP:
		return NOP_INSN_OUT;
	default:
		return NOP_INSN_ON;
	}
}

/* a general register's number (rax 0 .. r15 15) by any of its 32- or
 * 64-bit names; -1 for another register */
static int gpr(unsigned reg)
{
	static const unsigned r64[16] = { X86_REG_RAX, X86_REG_RCX, X86_REG_RDX, X86_REG_RBX, X86_REG_RSP, X86_REG_RBP,
					  X86_REG_RSI, X86_REG_RDI, X86_REG_R8,	 X86_REG_R9,  X86_REG_R10, X86_REG_R11,
					  X86_REG_R12, X86_REG_R13, X86_REG_R14, X86_REG_R15 };
	static const unsigned r32[16] = { X86_REG_EAX,	X86_REG_ECX,  X86_REG_EDX,  X86_REG_EBX,
					  X86_REG_ESP,	X86_REG_EBP,  X86_REG_ESI,  X86_REG_EDI,
					  X86_REG_R8D,	X86_REG_R9D,  X86_REG_R10D, X86_REG_R11D,
					  X86_REG_R12D, X86_REG_R13D, X86_REG_R14D, X86_REG_R15D };

	for (int i = 0; i < 16; i++)
		if (reg == r64[i] || reg == r32[i])
			return i;
	return -1;
}

/* mov $imm, REG; xor REG, REG (0); or $-1, REG (-1, GCC's -Os): REG holds
 * a constant; into %eax/%rax, a load of the value; cmovCC REG, %eax:
 * the constant REG holds, if any. Capstone's Intel order: the destination
 * first. A call, or any other write of a register, forgets it */
int nop_arch_ret_const(csh h, const cs_insn *in, struct nop_arch_regs *r, long long values[2], unsigned *bytes)
{
	int n = 0;

	const cs_x86 *x = &in->detail->x86;
	const cs_x86_op *d = &x->operands[0], *s = &x->operands[1];
	int dr = x->op_count == 2 && d->type == X86_OP_REG ? gpr(d->reg) : -1, sr;
	bool known = false;
	long long v = 0;
	cs_regs rd, wr;
	uint8_t nrd = 0, nwr = 0;

	if (in->id == X86_INS_CALL) {
		r->known = 0;
		return 0;
	}
	if (dr >= 0) {
		switch (in->id) {
		case X86_INS_MOV:
		case X86_INS_MOVABS:
			if ((known = s->type == X86_OP_IMM))
				v = s->imm;
			break;
		case X86_INS_XOR:
		case X86_INS_SUB:
			known = s->type == X86_OP_REG && s->reg == d->reg;
			break;
		case X86_INS_OR:
			if ((known = s->type == X86_OP_IMM && s->imm == -1))
				v = -1;
			break;
		default:
			/* the register keeps what it held, or takes that */
			if (in->id >= X86_INS_CMOVA && in->id <= X86_INS_CMOVS && s->type == X86_OP_REG &&
			    (sr = gpr(s->reg)) >= 0 && dr == 0) {
				*bytes = d->size == 4 ? 4 : 8;
				if (r->known & 1)
					values[n++] = r->v[0];
				if (r->known >> sr & 1)
					values[n++] = r->v[sr];
				r->known &= ~1u;
				return n;
			}
			break;
		}
	}
	if (known) {
		r->v[dr] = v;
		r->known |= 1u << dr;
		if (dr == 0) {
			*bytes = d->size == 4 ? 4 : 8;
			values[n++] = v;
		}
		return n;
	}
	/* any other write: forgotten */
	if (cs_regs_access(h, in, rd, &nrd, wr, &nwr) == CS_ERR_OK) {
		for (int i = 0; i < nwr; i++)
			if ((sr = gpr(wr[i])) >= 0)
				r->known &= ~(1u << sr);
	} else {
		r->known = 0;
	}
	return 0;
}

/* The kernel refuses a uprobe on an instruction with a lock or an ES,
 * CS, DS or SS segment prefix (arch/x86/kernel/uprobes.c, is_prefix_bad:
 * -ENOTSUPP, 524) */
bool nop_arch_probe_refused(const cs_insn *in)
{
	const cs_x86 *x = &in->detail->x86;

	for (int i = 0; i < 4; i++)
		switch (x->prefix[i]) {
		case X86_PREFIX_LOCK:
		case X86_PREFIX_ES:
		case X86_PREFIX_CS:
		case X86_PREFIX_DS:
		case X86_PREFIX_SS:
			return true;
		}
	return false;
}

static const unsigned char endbr64[4] = { 0xf3, 0x0f, 0x1e, 0xfa };
/* the idle site's 5-byte NOP: P6's, which every kernel from 5.14 writes;
 * 5.10 writes its ideal_nops[NOP_ATOMIC5], K8's where the CPU has no NOPL
 * (arch/x86/kernel/alternative.c, arch_init_ideal_nops; QEMU's qemu64) */
static const unsigned char nop5[5] = { 0x0f, 0x1f, 0x44, 0x00, 0x00 };
static const unsigned char k8_nop5[5] = { 0x66, 0x66, 0x66, 0x66, 0x90 };
/* objtool "seals" an endbr64 no indirect call can reach: a 4-byte NOP */
static const unsigned char sealed[4] = { 0x66, 0x0f, 0x1f, 0x00 };

/* the site is the first instruction, after an endbr64 where the kernel
 * is built with IBT */
unsigned nop_arch_site_offset(const unsigned char *bytes)
{
	return memcmp(bytes, endbr64, 4) && memcmp(bytes, sealed, 4) ? 0 : 4;
}

/* the 5-byte NOP of an idle site, an int3 while it is patched, or a
 * call (or jmp) rel32 into an ftrace trampoline */
void nop_arch_patch_site(struct nop_site *s)
{
	const unsigned char *p = s->bytes + (s->site - s->addr);
	int32_t rel;

	s->endbr = !memcmp(s->bytes, endbr64, 4);
	s->sealed = !memcmp(s->bytes, sealed, 4) && s->site == s->addr + 4;
	if (!memcmp(p, nop5, 5) || !memcmp(p, k8_nop5, 5)) {
		s->state = NOP_SITE_NOP;
		return;
	}
	if (p[0] == 0xcc) {
		s->state = NOP_SITE_INT3; /* being patched right now */
		return;
	}
	if (p[0] != 0xe8 && p[0] != 0xe9) {
		s->state = NOP_SITE_OTHER;
		return;
	}
	s->state = p[0] == 0xe8 ? NOP_SITE_CALL : NOP_SITE_JMP;
	memcpy(&rel, p + 1, 4);
	s->target = s->site + 5 + (long long)rel;
}
#endif
