/* ucode.c - where a user function's probes go, from its machine code
 * (Capstone, in the machine's mode: arch.h): the entry, and every
 * instruction that leaves the function (its returns and direct jumps out
 * of it, in it and in its .cold fragments).
 *
 * Probing those instructions leaves the stack alone: a uretprobe writes a
 * trampoline's address over the return address, which C++'s unwinder
 * cannot find unwind information for (std::terminate), and which the
 * kernel keeps at most 64 deep per task. At a ret the stack pointer is
 * where it was at the entry (it points at the return address), which
 * pairs the two exactly.
 *
 * A probed ret costs the kernel two exceptions a call on x86-64 (the
 * breakpoint, then the single step of the ret out of line: its uprobes
 * emulate jumps, calls and nops, not ret), one on arm64 (whose uprobes
 * simulate ret); a uretprobe's return one breakpoint (6.1), or a
 * system call from its trampoline (6.11 and later, x86-64). A function that calls
 * nothing, jumps out of itself only by returning and never enters the
 * kernel (reaches_out false) cannot be unwound through by an exception or
 * be more than one deep in the kernel's uretprobe stack, so it gets the
 * cheaper uretprobe (uprobes.c).
 *
 * The kernel's uprobes refuse some instructions (nop_arch_probe_refused:
 * on x86-64 a lock or segment prefix; on arm64 exclusive and literal
 * loads, MRS, MSR, exceptions and most hints). None of those moves the
 * stack pointer, so a function that begins with one is entered, for the
 * probe, at the next instruction.
 */
#include <capstone/capstone.h>
#include <errno.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>

#include "probes/probes.h"

/* the bytes at [vaddr, vaddr + size) in an executable section of e */
static const unsigned char *code_at(Elf *e, unsigned long long vaddr, unsigned long long size)
{
	for (Elf_Scn *scn = NULL; (scn = elf_nextscn(e, scn));) {
		GElf_Shdr sh;
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_PROGBITS || !(sh.sh_flags & SHF_EXECINSTR) ||
		    vaddr < sh.sh_addr || vaddr + size > sh.sh_addr + sh.sh_size)
			continue;
		d = elf_getdata(scn, NULL);
		return d && d->d_buf && d->d_size == sh.sh_size ? (const unsigned char *)d->d_buf + (vaddr - sh.sh_addr)
								: NULL;
	}
	return NULL;
}

/* a fragment of f: "NAME.cold" or "NAME.cold.N" (GCC's hot/cold split) */
static bool fragment_of(const char *frag, const char *name)
{
	size_t n = strlen(name);

	return !strncmp(frag, name, n) && !strncmp(frag + n, ".cold", 5) &&
	       (!frag[n + 5] || frag[n + 5] == '.');
}

struct range {
	unsigned long long lo, hi;
};

static bool inside(const struct range *r, size_t n, unsigned long long a)
{
	for (size_t i = 0; i < n; i++)
		if (a >= r[i].lo && a < r[i].hi)
			return true;
	return false;
}

static int add_exit(struct nop_ucode *c, unsigned long long vaddr, bool ret)
{
	size_t cap = c->cap;

	if (nop_grow((void **)&c->exits, &c->cap, c->nexit + 1, sizeof(*c->exits)) ||
	    nop_grow((void **)&c->at_ret, &cap, c->nexit + 1, sizeof(*c->at_ret)))
		return -1;
	c->at_ret[c->nexit] = ret;
	c->exits[c->nexit++] = vaddr;
	return 0;
}

/* one piece of the function (rs[which]: rs[0] itself, the rest its
 * fragments): its exits; in rs[0], where the entry probe goes too */
static int scan(csh h, cs_insn *in, Elf *e, const struct range *rs, size_t nr, size_t which, bool loads_too,
		struct nop_ucode *c)
{
	/* the registers' constants, from the piece's first instruction (a
	 * jump into it from elsewhere may bring others: a constant missed,
	 * or one kept that a jump replaced; why checks loads against the
	 * source where it can) */
	struct nop_arch_regs regs[1] = { { { 0 }, 0 } };
	unsigned long long size = rs[which].hi - rs[which].lo;
	const unsigned char *code = code_at(e, rs[which].lo, size);
	const uint8_t *p = code;
	size_t left = size;
	uint64_t addr = rs[which].lo;
	bool entry_open = which == 0;

	if (!code)
		return 1;
	while (left && cs_disasm_iter(h, &p, &left, &addr, in)) {
		bool bad = nop_arch_probe_refused(in);
		unsigned long long to = 0;
		enum nop_insn_flow flow = nop_arch_insn_flow(in, &to);

		if (entry_open) {
			if (!bad)
				entry_open = false;
			else
				c->skip += in->size;
		}
		c->reaches_out |= flow == NOP_INSN_OUT;
		long long v[2];
		unsigned bytes = 8;
		int nv = loads_too ? nop_arch_ret_const(h, in, regs, v, &bytes) : 0;

		for (int k = 0; k < nv; k++) {
			if (nop_grow((void **)&c->loads, &c->capload, c->nloads + 1, sizeof(*c->loads)))
				return -1;
			c->loads[c->nloads++] = (struct nop_rvload){ in->address, v[k], bytes };
		}
		if (flow == NOP_INSN_RETURN) {
			if (bad)
				c->blind++;
			else if (add_exit(c, in->address, true))
				return -1;
		} else if (flow == NOP_INSN_JUMP && !inside(rs, nr, to)) {
			/* a tail call: the frame is gone, the stack pointer is the entry's */
			c->reaches_out = true;
			if (bad)
				c->blind++;
			else if (add_exit(c, in->address, false))
				return -1;
		}
	}
	if (entry_open) /* nothing but refused instructions */
		c->refused = nop_arch.refused;
	return left ? 1 : 0; /* bytes Capstone could not decode: exits may be missing */
}

int nop_ucode_scan(const struct nop_ubin *b, size_t i, bool loads_too, struct nop_ucode *c, struct nop_error *err)
{
	const struct nop_usym *s = &b->v[i];
	struct range rs[8] = { { s->vaddr, s->vaddr + s->size } };
	size_t nr = 1;
	cs_insn *in = NULL;
	csh h;
	int ret = 0;

	memset(c, 0, sizeof(*c));
	if (!b->elf) {
		c->undecoded = true;
		return 0;
	}
	for (size_t k = 0; k < b->nfrag && nr < sizeof(rs) / sizeof(*rs); k++) {
		const struct nop_usym *f = &b->v[b->frag[k]];

		if (fragment_of(f->name, s->name))
			rs[nr++] = (struct range){ f->vaddr, f->vaddr + f->size };
	}
	if (nop_arch_disasm_open(&h) != CS_ERR_OK) {
		nop_error_set(err, NOP_EINTERNAL, ENOMEM, "the disassembler (Capstone) could not start");
		return -1;
	}
	if (!(in = cs_malloc(h)))
		ret = -1;
	for (size_t k = 0; k < nr && ret >= 0; k++) {
		int r = scan(h, in, (Elf *)b->elf, rs, nr, k, loads_too, c);

		if (r < 0)
			ret = -1;
		else if (r > 0)
			c->undecoded = true;
	}
	if (in)
		cs_free(in, 1);
	cs_close(&h);
	if (ret) {
		nop_ucode_free(c);
		nop_error_set(err, NOP_EINTERNAL, ENOMEM, "out of memory");
	}
	return ret;
}

bool nop_ucode_has_exit(const struct nop_ucode *c, unsigned long long vaddr)
{
	for (size_t i = 0; i < c->nexit; i++)
		if (c->exits[i] == vaddr)
			return true;
	return false;
}

void nop_ucode_free(struct nop_ucode *c)
{
	free(c->exits);
	free(c->at_ret);
	free(c->loads);
	memset(c, 0, sizeof(*c));
}
