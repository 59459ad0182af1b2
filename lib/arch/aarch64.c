/* aarch64.c - arm64's side of arch.h: the AAPCS64, Debian's
 * aarch64-linux-gnu, and the kernel's arm64 uprobes and ftrace. The
 * instruction classes are the kernel's own masks and values
 * (arch/arm64/include/asm/insn.h), so an instruction is refused or
 * leaves a function exactly where the kernel decides it does. */
#if defined(__aarch64__)
#include <elf.h>
#include <string.h>

#include "arch/arch.h"

/* the AAPCS64's registers for integer and pointer arguments, in order,
 * as uprobe fetch arguments name them (arm64's regs_query_register_offset) */
static const char *const arg_regs[] = { "%x0", "%x1", "%x2", "%x3", "%x4", "%x5", "%x6", "%x7" };

const struct nop_arch nop_arch = {
	.elf_machine = EM_AARCH64,
	.name = "arm64",
	.not_this_machine = "is not a 64-bit arm64 ELF file: this machine cannot run its functions",
	.triplet = "aarch64-linux-gnu",
	/* glibc's FLAG_AARCH64_LIB64 | FLAG_ELF_LIBC6 (elf/cache.c,
	 * sysdeps/generic/ldconfig.h) */
	.ldcache_flags = 0x0a03,
	.arg_regs = arg_regs,
	.narg_regs = sizeof(arg_regs) / sizeof(arg_regs[0]),
	.ret_reg = "%x0",
	/* bl put the return address in the link register, which the first
	 * instruction has not yet saved (or signed: paciasp) */
	.entry_caller = "%x30",
	.site_len = 4,
	.site_idle = "the NOP 1f 20 03 d5 where ftrace's bl goes: ftrace is not tracing it",
	.kprobes_on_ftrace = false, /* a brk on the function's first instruction */
	.refused = "every instruction of it is one the kernel's arm64 uprobes refuse (an exclusive or"
		   " literal load or store, MRS or MSR of a system register, an exception, or a hint"
		   " other than nop, bti and pointer authentication's)",
};

/* an instruction word against one of the kernel's (mask, value) pairs */
static bool is(uint32_t w, uint32_t mask, uint32_t value)
{
	return (w & mask) == value;
}

#define B_IMM	  0xFC000000, 0x14000000
#define BL_IMM	  0xFC000000, 0x94000000
#define CBZ	  0x7F000000, 0x34000000
#define CBNZ	  0x7F000000, 0x35000000
#define TBZ	  0x7F000000, 0x36000000
#define TBNZ	  0x7F000000, 0x37000000
#define BCOND	  0xFF000010, 0x54000000
#define BR	  0xFFFFFC1F, 0xD61F0000
#define BR_AUTH	  0xFEFFF800, 0xD61F0800
#define BLR	  0xFFFFFC1F, 0xD63F0000
#define BLR_AUTH  0xFEFFF800, 0xD63F0800
#define RET	  0xFFFFFC1F, 0xD65F0000
#define RET_AUTH  0xFFFFFBFF, 0xD65F0BFF
#define ERET	  0xFFFFFFFF, 0xD69F03E0
#define ERET_AUTH 0xFFFFFBFF, 0xD69F0BFF
#define EXCEPTION 0xFF000000, 0xD4000000 /* svc, hvc, smc, brk, hlt, dcps */
#define BRK	  0xFFE0001F, 0xD4200000
#define HINT	  0xFFFFF01F, 0xD503201F
#define BTI	  0xFFFFFF3F, 0xD503241F /* bti, bti c, bti j, bti jc */
#define MRS	  0xFFF00000, 0xD5300000
#define MSR_IMM	  0xFFF8F01F, 0xD500401F
#define MSR_REG	  0xFFF00000, 0xD5100000
#define ADR	  0x9F000000, 0x10000000
#define ADRP	  0x9F000000, 0x90000000
#define LDR_LIT	  0xBF000000, 0x18000000
#define LDRSW_LIT 0xFF000000, 0x98000000
#define PRFM_LIT  0xFF000000, 0xD8000000
#define EXCLUSIVE 0x3F800000, 0x08000000 /* ldxr, stxr, ldaxr, stlxr, ldxp, ... */

#define NOP	     0xD503201Fu
#define SPCLREG_DAIF 0xDA11u /* MRS's system register field */

static uint32_t word(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* Capstone 4.0.2 decodes no ARMv8.3 pointer authentication branch (retaa,
 * braa, blraa, eretaa: nor LSE's atomics): with SKIPDATA it hands each
 * such word on as a 4-byte ".byte" (id 0), which the kernel's masks
 * classify, and the function is read on past it */
cs_err nop_arch_disasm_open(csh *h)
{
	cs_err e = cs_open(CS_ARCH_ARM64, CS_MODE_ARM, h);

	if (e == CS_ERR_OK) {
		cs_option(*h, CS_OPT_DETAIL, CS_OPT_ON);
		cs_option(*h, CS_OPT_SKIPDATA, CS_OPT_ON);
	}
	return e;
}

/* movz, movn, orr Rd, zr, zr (0): Rd holds a constant (the A64
 * encodings; sf, bit 31, the width); into w0/x0, a load of the value;
 * csel w0/x0, Rn, Rm: the constant Rn or Rm holds (the zero register: 0).
 * A call forgets x0-x18; any other instruction the register in its bits
 * 0-4 (Rd of most, which a store or compare does not write: forgotten
 * all the same, a constant missed, never one made up) */
int nop_arch_ret_const(csh h, const cs_insn *in, struct nop_arch_regs *r, long long values[2], unsigned *bytes)
{
	int n = 0;

	uint32_t w = word(in->bytes), rd = w & 0x1f;
	unsigned long long imm = (unsigned long long)((w >> 5) & 0xffff) << (16 * ((w >> 21) & 3));
	unsigned width = w >> 31 ? 8 : 4;
	bool known = true;
	long long v;

	(void)h;
	if (is(w, BL_IMM) || is(w, BLR_AUTH) || (w & 0xfffffc1f) == 0xd63f0000) { /* bl, blr */
		r->known &= ~0x7ffffu;
		return 0;
	}
	if ((w & 0x7f800000) == 0x52800000) /* movz */
		v = (long long)imm;
	else if ((w & 0x7f800000) == 0x12800000) /* movn */
		v = width == 4 ? (long long)(int32_t)~(uint32_t)imm : (long long)~imm;
	else if ((w & 0x7fffffe0) == 0x2a1f03e0) /* orr Rd, zr, zr */
		v = 0;
	else
		known = false;
	if (known && rd != 31) {
		r->v[rd] = v;
		r->known |= 1u << rd;
		if (rd == 0) {
			*bytes = width;
			values[n++] = v;
		}
		return n;
	}
	if ((w & 0x7fe00c00) == 0x1a800000 && rd == 0) { /* csel: either */
		uint32_t src[2] = { (w >> 5) & 0x1f, (w >> 16) & 0x1f };

		*bytes = width;
		for (int k = 0; k < 2; k++)
			if (src[k] == 31 || (r->known >> src[k] & 1))
				values[n++] = src[k] == 31 ? 0 : r->v[src[k]];
	}
	if (rd != 31)
		r->known &= ~(1u << rd);
	return n;
}

/* b.cond, cbz, cbnz, tbz and tbnz are NOP_INSN_ON, as x86-64's jcc: a
 * probe on one fires whether or not it branches, so it is no exit */
enum nop_insn_flow nop_arch_insn_flow(const cs_insn *in, unsigned long long *target)
{
	uint32_t w = word(in->bytes);
	const cs_arm64 *a;

	if (is(w, RET_AUTH))
		return NOP_INSN_RETURN;
	if (is(w, BR_AUTH) || is(w, BLR_AUTH) || is(w, ERET_AUTH))
		return NOP_INSN_OUT;
	if (in->id == 0) /* not decoded, and no branch */
		return NOP_INSN_ON;
	a = &in->detail->arm64;
	switch (in->id) {
	case ARM64_INS_RET:
		return NOP_INSN_RETURN;
	case ARM64_INS_B:
		if (a->cc != ARM64_CC_INVALID)
			return NOP_INSN_ON;
		if (a->op_count == 1 && a->operands[0].type == ARM64_OP_IMM) {
			*target = (unsigned long long)a->operands[0].imm;
			return NOP_INSN_JUMP;
		}
		return NOP_INSN_OUT;
	case ARM64_INS_BL:
	case ARM64_INS_BLR:
	case ARM64_INS_BR:
	case ARM64_INS_SVC:
	case ARM64_INS_HVC:
	case ARM64_INS_SMC:
	case ARM64_INS_BRK:
	case ARM64_INS_HLT:
	case ARM64_INS_DCPS1:
	case ARM64_INS_DCPS2:
	case ARM64_INS_DCPS3:
	case ARM64_INS_ERET:
		return NOP_INSN_OUT;
	default:
		return NOP_INSN_ON;
	}
}

/* the hints the kernel steps out of line (aarch64_insn_is_steppable_hint):
 * nop, xpaclri, the pointer authentication hints, bti; by CRm:op2 */
static bool steppable_hint(uint32_t w)
{
	switch ((w & 0xFE0) >> 5) {
	case 0x00:			      /* nop */
	case 0x07:			      /* xpaclri */
	case 0x08: case 0x0A: case 0x0C: case 0x0E: /* pacia1716, pacib1716, autia1716, autib1716 */
	case 0x18: case 0x19: case 0x1A: case 0x1B: /* paciaz, paciasp, pacibz, pacibsp */
	case 0x1C: case 0x1D: case 0x1E: case 0x1F: /* autiaz, autiasp, autibz, autibsp */
	case 0x20: case 0x22: case 0x24: case 0x26: /* bti, bti c, bti j, bti jc */
		return true;
	default:
		return false;
	}
}

/* aarch64_insn_is_steppable (arch/arm64/kernel/probes/decode-insn.c) */
static bool steppable(uint32_t w)
{
	if (((w >> 26) & 7) == 5) { /* branches, exceptions, system instructions */
		if (is(w, B_IMM) || is(w, BL_IMM) || is(w, CBZ) || is(w, CBNZ) || is(w, TBZ) || is(w, TBNZ) ||
		    is(w, RET) || is(w, RET_AUTH) || is(w, BR) || is(w, BR_AUTH) || is(w, BLR) ||
		    is(w, BLR_AUTH) || is(w, BCOND) || is(w, MSR_IMM) || is(w, MSR_REG) || is(w, EXCEPTION) ||
		    is(w, ERET) || is(w, ERET_AUTH))
			return false;
		if (is(w, MRS)) /* the value read stepping may be wrong, but for DAIF's */
			return ((w & 0x1FFFE0) >> 5) == SPCLREG_DAIF;
		if (is(w, HINT))
			return steppable_hint(w);
		return true;
	}
	return !(is(w, LDR_LIT) || is(w, LDRSW_LIT) || is(w, ADR) || is(w, ADRP) || is(w, PRFM_LIT) ||
		 is(w, EXCLUSIVE));
}

/* The kernel's uprobes refuse (-EINVAL) what arm_probe_decode_insn
 * rejects (arch/arm64/kernel/probes/decode-insn.c, as
 * arch_uprobe_analyze_insn calls it): an instruction it can neither
 * step out of line nor simulate. It simulates b.cond, cbz, cbnz, tbz,
 * tbnz, adr, adrp, b, bl, br, blr and ret; it refuses, among others, the
 * exclusive loads and stores (ldxr, stxr, ldaxr, stlxr, ldxp, ...), the
 * literal loads (ldr, ldrsw, prfm: the kprobe path alone simulates
 * them), MSR, MRS but of DAIF (mrs x0, tpidr_el0 too), svc and every
 * other exception, the pointer authentication branches (retaa, braa,
 * blraa) and the hints but nop, bti and pointer authentication's */
bool nop_arch_probe_refused(const cs_insn *in)
{
	uint32_t w = word(in->bytes);

	if (steppable(w))
		return false;
	return !(is(w, BCOND) || is(w, CBZ) || is(w, CBNZ) || is(w, TBZ) || is(w, TBNZ) || is(w, ADR) ||
		 is(w, ADRP) || is(w, B_IMM) || is(w, BL_IMM) || is(w, BR) || is(w, BLR) || is(w, RET));
}

/* ftrace's call site (arch/arm64/kernel/ftrace.c, ftrace_call_adjust and
 * ftrace_init_nop): -fpatchable-function-entry=2 (6.1), or =4,2 with
 * DYNAMIC_FTRACE_WITH_CALL_OPS (6.4 and later: two NOPs before the
 * symbol hold its ops' address), puts two NOPs at the entry, after a
 * bti c where the kernel is built with ARM64_BTI_KERNEL (clang only:
 * GCC's bug 106671 keeps it off, and Debian's kernels have none). At
 * boot the first becomes mov x9, x30; the second, the site ftrace lists,
 * is the NOP of an idle site or a bl into ftrace while traced */
unsigned nop_arch_site_offset(const unsigned char *bytes)
{
	return is(word(bytes), BTI) ? 8 : 4;
}

/* the site's word: the NOP, or bl imm26 (its target site + imm26 * 4);
 * a brk in it or in the mov before it (a kprobe on the function's entry
 * is a brk #0x4 on the mov: a kprobe on the site itself is refused
 * without KPROBES_ON_FTRACE, which arm64 does not have) */
void nop_arch_patch_site(struct nop_site *s)
{
	const unsigned char *p = s->bytes + (s->site - s->addr);
	uint32_t w = word(p);

	s->endbr = s->sealed = false;
	if (is(w, BRK) || (s->site >= s->addr + 4 && is(word(p - 4), BRK))) {
		s->state = NOP_SITE_BRK;
		return;
	}
	if (w == NOP) {
		s->state = NOP_SITE_NOP;
		return;
	}
	if (!is(w, BL_IMM)) {
		s->state = NOP_SITE_OTHER;
		return;
	}
	s->state = NOP_SITE_CALL;
	s->target = s->site + (unsigned long long)((long long)((int32_t)(w << 6) >> 6) * 4);
}
#endif
