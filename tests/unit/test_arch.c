/* test_arch.c - the machine's side of arch.h on its own instructions, no
 * kernel: what the build target's file says of an instruction (does it
 * leave the function, do the kernel's uprobes refuse it) and of ftrace's
 * patch site as /proc/kcore would show it. The tests of a machine are
 * compiled for it alone (lib/arch has one file per machine); arm64's run
 * on an x86-64 host under qemu-user (tests/README.md). */
#include <elf.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "../../lib/internal.h"
#include "unit.h"

/* every state has a name and a meaning, the idle one this machine's */
static void site_states_named(void **state)
{
	assert_string_equal(nop_site_state_name(NOP_SITE_NOP), "nop");
	assert_string_equal(nop_site_state_name(NOP_SITE_CALL), "call");
	assert_string_equal(nop_site_state_name(NOP_SITE_INT3), "int3");
	assert_string_equal(nop_site_state_name(NOP_SITE_OTHER), "other");
	assert_string_equal(nop_site_state_name(NOP_SITE_BRK), "brk");
	assert_ptr_equal(nop_site_meaning(NOP_SITE_NOP), nop_arch.site_idle);
	for (int s = NOP_SITE_NOP; s <= NOP_SITE_BRK; s++)
		assert_true(*nop_site_meaning((enum nop_site_state)s));
	assert_true(nop_arch.site_len > 0 && nop_arch.narg_regs >= 6);
}

#if defined(__x86_64__)
static void x86_site(const unsigned char *b, size_t n, struct nop_site *s)
{
	memset(s, 0, sizeof(*s));
	memcpy(s->bytes, b, n);
	s->addr = 0xffffffff81000000ULL;
	s->site = s->addr + nop_arch_site_offset(s->bytes);
	nop_arch_patch_site(s);
}

/* the idle site: P6's 5-byte NOP (5.14 on), K8's (5.10 on a CPU without
 * NOPL, as QEMU's qemu64), each after an endbr64 or not; a call rel32
 * into a trampoline; anything else is not an ftrace site */
static void x86_site_states(void **state)
{
	static const unsigned char p6[] = { 0x0f, 0x1f, 0x44, 0x00, 0x00, 0x41, 0x55 };
	static const unsigned char k8[] = { 0x66, 0x66, 0x66, 0x66, 0x90, 0x41, 0x55 };
	static const unsigned char ibt_p6[] = { 0xf3, 0x0f, 0x1e, 0xfa, 0x0f, 0x1f, 0x44, 0x00, 0x00 };
	static const unsigned char call[] = { 0xe8, 0xfb, 0x0f, 0x00, 0x00 };
	static const unsigned char push[] = { 0x41, 0x55, 0x49, 0x89, 0xf5 };
	struct nop_site s;

	(void)state;
	x86_site(p6, sizeof(p6), &s);
	assert_int_equal(s.state, NOP_SITE_NOP);
	x86_site(k8, sizeof(k8), &s);
	assert_int_equal(s.state, NOP_SITE_NOP);
	x86_site(ibt_p6, sizeof(ibt_p6), &s);
	assert_true(s.state == NOP_SITE_NOP && s.endbr && s.site == s.addr + 4);
	x86_site(call, sizeof(call), &s);
	assert_true(s.state == NOP_SITE_CALL && s.target == s.addr + 5 + 0xffb);
	x86_site(push, sizeof(push), &s);
	assert_int_equal(s.state, NOP_SITE_OTHER);
}
#endif

#if defined(__aarch64__)
/* one instruction word at an address, decoded as ucode.c decodes a function */
struct one {
	csh h;
	cs_insn *in;
};

static void decode(struct one *o, uint32_t w, uint64_t at)
{
	unsigned char b[4] = { w, w >> 8, w >> 16, w >> 24 };
	const uint8_t *p = b;
	size_t left = 4;

	assert_true(cs_disasm_iter(o->h, &p, &left, &at, o->in));
	assert_int_equal(left, 0);
}

static int one_open(void **state)
{
	struct one *o = calloc(1, sizeof(*o));

	if (!o || nop_arch_disasm_open(&o->h) != CS_ERR_OK || !(o->in = cs_malloc(o->h)))
		return -1;
	*state = o;
	return 0;
}

static int one_close(void **state)
{
	struct one *o = *state;

	cs_free(o->in, 1);
	cs_close(&o->h);
	free(o);
	return 0;
}

static enum nop_insn_flow flow(struct one *o, uint32_t w, uint64_t at, unsigned long long *to)
{
	*to = 0;
	decode(o, w, at);
	return nop_arch_insn_flow(o->in, to);
}

static bool refused(struct one *o, uint32_t w)
{
	decode(o, w, 0x1000);
	return nop_arch_probe_refused(o->in);
}

/* the encodings are aarch64-linux-gnu-as's */
static void arm64_insn_flow(void **state)
{
	struct one *o = *state;
	unsigned long long to;

	assert_int_equal(flow(o, 0xd65f03c0, 0x1000, &to), NOP_INSN_RETURN); /* ret */
	assert_int_equal(flow(o, 0xd65f0bff, 0x1000, &to), NOP_INSN_RETURN); /* retaa: Capstone 4 has it not */
	assert_int_equal(flow(o, 0xd65f0fff, 0x1000, &to), NOP_INSN_RETURN); /* retab */
	/* b: a jump to its target, out of the function (a tail call) or back in */
	assert_int_equal(flow(o, 0x14000400, 0x1000, &to), NOP_INSN_JUMP);   /* b 0x2000 */
	assert_true(to == 0x2000);
	assert_int_equal(flow(o, 0x17fffffe, 0x1008, &to), NOP_INSN_JUMP);   /* b 0x1000 */
	assert_true(to == 0x1000);
	/* conditional branches fire their probe either way: no exit */
	assert_int_equal(flow(o, 0x54000040, 0x1000, &to), NOP_INSN_ON);     /* b.eq */
	assert_int_equal(flow(o, 0xb4000040, 0x1000, &to), NOP_INSN_ON);     /* cbz x0 */
	assert_int_equal(flow(o, 0x37180040, 0x1000, &to), NOP_INSN_ON);     /* tbnz w0, #3 */
	assert_int_equal(flow(o, 0x94000010, 0x1000, &to), NOP_INSN_OUT);    /* bl */
	assert_int_equal(flow(o, 0xd63f0100, 0x1000, &to), NOP_INSN_OUT);    /* blr x8 */
	assert_int_equal(flow(o, 0xd61f0200, 0x1000, &to), NOP_INSN_OUT);    /* br x16 */
	assert_int_equal(flow(o, 0xd71f0822, 0x1000, &to), NOP_INSN_OUT);    /* braa x1, x2 */
	assert_int_equal(flow(o, 0xd63f087f, 0x1000, &to), NOP_INSN_OUT);    /* blraaz x3 */
	assert_int_equal(flow(o, 0xd4000001, 0x1000, &to), NOP_INSN_OUT);    /* svc #0 */
	assert_int_equal(flow(o, 0xd4207d00, 0x1000, &to), NOP_INSN_OUT);    /* brk #0x3e8 */
	assert_int_equal(flow(o, 0x8b020020, 0x1000, &to), NOP_INSN_ON);     /* add x0, x1, x2 */
	assert_int_equal(flow(o, 0xd503233f, 0x1000, &to), NOP_INSN_ON);     /* paciasp */
	assert_int_equal(flow(o, 0xf8200041, 0x1000, &to), NOP_INSN_ON);     /* ldadd: Capstone 4 has it not */
}

/* arm_probe_decode_insn's verdicts (arch/arm64/kernel/probes/decode-insn.c) */
static void arm64_probe_refused(void **state)
{
	struct one *o = *state;
	static const uint32_t no[] = {
		0xc85f7c20, /* ldxr x0, [x1] */
		0xc8027c20, /* stxr w2, x0, [x1] */
		0x885ffc20, /* ldaxr w0, [x1] */
		0x8803fc20, /* stlxr w3, w0, [x1] */
		0xc87f0440, /* ldxp x0, x1, [x2] */
		0x58000040, /* ldr x0, <literal> */
		0xd53bd040, /* mrs x0, tpidr_el0 */
		0xd51b4400, /* msr fpcr, x0 */
		0xd4000001, /* svc #0 */
		0xd4200080, /* brk #0x4 */
		0xd65f0bff, /* retaa: a branch it neither steps nor simulates */
		0xd503203f, /* yield */
	};
	static const uint32_t yes[] = {
		0x8b020020, /* add x0, x1, x2 */
		0xa9bf7bfd, /* stp x29, x30, [sp, #-16]! */
		0xd53b4220, /* mrs x0, daif */
		0xd503201f, /* nop */
		0xd503233f, /* paciasp */
		0xd503245f, /* bti c */
		0xc8dffc20, /* ldar x0, [x1]: not exclusive */
		0xf8200041, /* ldadd x0, x1, [x2] */
		0xd65f03c0, /* ret: simulated */
		0x14000400, /* b */
		0x94000010, /* bl */
		0x54000040, /* b.eq */
		0xb4000040, /* cbz */
		0x90000000, /* adrp x0 */
		0xd63f0100, /* blr x8 */
	};

	for (size_t i = 0; i < sizeof(no) / sizeof(no[0]); i++)
		if (!refused(o, no[i]))
			fail_msg("%08x is refused by the kernel", no[i]);
	for (size_t i = 0; i < sizeof(yes) / sizeof(yes[0]); i++)
		if (refused(o, yes[i]))
			fail_msg("%08x is probed by the kernel", yes[i]);
}

/* 16 bytes from a symbol, words little-endian as /proc/kcore has them */
static void put_words(struct nop_site *s, unsigned long long addr, const uint32_t w[4])
{
	memset(s, 0, sizeof(*s));
	s->addr = addr;
	for (int i = 0; i < 16; i++)
		s->bytes[i] = (unsigned char)(w[i / 4] >> (8 * (i % 4)));
}

/* do_sys_openat2 of Debian's 6.1.0-57 (arm64, -fpatchable-function-entry=2,
 * no CALL_OPS, no BTI): nop, nop, paciasp, sub sp, sp, #0x50 in the
 * image, the first nop made mov x9, x30 at boot (ftrace_init_nop); no
 * available_filter_functions_addrs, so the site is found from kallsyms */
static void arm64_site_61(void **state)
{
	const unsigned long long fn = 0xffff80000839dd90ULL;
	const uint32_t idle[4] = { 0xaa1e03e9, 0xd503201f, 0xd503233f, 0xd10143ff };
	/* bl ftrace_caller (0xffff80000802cb6c, before the function) */
	const uint32_t traced[4] = { 0xaa1e03e9, 0x97f23b76, 0xd503233f, 0xd10143ff };
	/* a kprobe on do_sys_openat2: brk #0x4 over the mov */
	const uint32_t kprobed[4] = { 0xd4200080, 0xd503201f, 0xd503233f, 0xd10143ff };
	struct nop_site s;

	put_words(&s, fn, idle);
	assert_int_equal(nop_arch_site_offset(s.bytes), 4);
	s.site = fn + 4;
	nop_arch_patch_site(&s);
	assert_int_equal(s.state, NOP_SITE_NOP);
	assert_false(s.endbr || s.sealed);
	put_words(&s, fn, traced);
	s.site = fn + nop_arch_site_offset(s.bytes);
	nop_arch_patch_site(&s);
	assert_int_equal(s.state, NOP_SITE_CALL);
	assert_true(s.target == 0xffff80000802cb6cULL);
	put_words(&s, fn, kprobed);
	s.site = fn + nop_arch_site_offset(s.bytes);
	nop_arch_patch_site(&s);
	assert_int_equal(s.state, NOP_SITE_BRK);
	/* a site that is not ftrace's: paciasp where the bl would be */
	put_words(&s, fn, idle);
	s.site = fn + 8;
	nop_arch_patch_site(&s);
	assert_int_equal(s.state, NOP_SITE_OTHER);
}

/* 6.12 with DYNAMIC_FTRACE_WITH_CALL_OPS (=4,2: the ops literal is in the
 * two NOPs before the symbol, not read) and a bti c first, as a kernel
 * built with ARM64_BTI_KERNEL has it (clang); do_sys_openat2 of Debian's
 * 6.12.118 moved 4 bytes on. The site, from available_filter_functions_addrs
 * or found past the bti, is +8 */
static void arm64_site_612_bti(void **state)
{
	const unsigned long long fn = 0xffff800080444360ULL;
	const uint32_t idle[4] = { 0xd503245f, 0xaa1e03e9, 0xd503201f, 0xd503233f };
	/* bl ftrace_caller (0xffff80008002d228) */
	const uint32_t traced[4] = { 0xd503245f, 0xaa1e03e9, 0x97efa3b0, 0xd503233f };
	const uint32_t kprobed[4] = { 0xd503245f, 0xd4200080, 0xd503201f, 0xd503233f };
	/* a bl forwards, to a module's ftrace PLT or a trampoline after it */
	const uint32_t ahead[4] = { 0xd503245f, 0xaa1e03e9, 0x94001000, 0xd503233f };
	struct nop_site s;

	put_words(&s, fn, idle);
	assert_int_equal(nop_arch_site_offset(s.bytes), 8);
	s.site = fn + 8;
	nop_arch_patch_site(&s);
	assert_int_equal(s.state, NOP_SITE_NOP);
	put_words(&s, fn, traced);
	s.site = fn + 8;
	nop_arch_patch_site(&s);
	assert_int_equal(s.state, NOP_SITE_CALL);
	assert_true(s.target == 0xffff80008002d228ULL);
	put_words(&s, fn, kprobed);
	s.site = fn + 8;
	nop_arch_patch_site(&s);
	assert_int_equal(s.state, NOP_SITE_BRK);
	put_words(&s, fn, ahead);
	s.site = fn + 8;
	nop_arch_patch_site(&s);
	assert_int_equal(s.state, NOP_SITE_CALL);
	assert_true(s.target == fn + 8 + 0x4000);
	/* Debian's own 6.12 (GCC: no bti): the site at +4, as on 6.1 */
	{
		const uint32_t deb[4] = { 0xaa1e03e9, 0x97efa3b1, 0xd503233f, 0xd10143ff };

		put_words(&s, fn, deb);
		assert_int_equal(nop_arch_site_offset(s.bytes), 4);
		s.site = fn + 4;
		nop_arch_patch_site(&s);
		assert_int_equal(s.state, NOP_SITE_CALL);
		assert_true(s.target == 0xffff80008002d228ULL);
	}
}

/* nopctl inspect's whole path on 6.12's do_sys_openat2 while traced: its
 * symbol and ftrace_caller in kallsyms, its site listed in
 * available_filter_functions_addrs, its words in an ELF core like
 * /proc/kcore (the ops literal's two NOPs before it); then the site
 * found from kallsyms alone, as 6.1 has it */
static void arm64_inspect(void **state)
{
	char dir[] = "/tmp/nopctl-arch-XXXXXX", path[4200], core[4200], syms[4200];
	const unsigned long long fn = 0xffff800080444360ULL;
	const uint32_t text[8] = { 0xd503201f, 0xd503201f, 0xaa1e03e9, 0x97efa3b1,
				   0xd503233f, 0xd10143ff, 0xd503201f, 0xd503201f };
	Elf64_Ehdr eh = { .e_ident = { ELFMAG0, ELFMAG1, ELFMAG2, ELFMAG3, ELFCLASS64, ELFDATA2LSB,
				       EV_CURRENT },
			  .e_type = ET_CORE, .e_machine = EM_AARCH64, .e_phoff = sizeof(Elf64_Ehdr),
			  .e_phentsize = sizeof(Elf64_Phdr), .e_phnum = 1 };
	Elf64_Phdr ph = { .p_type = PT_LOAD, .p_offset = 4096, .p_vaddr = fn - 8, .p_filesz = sizeof(text),
			  .p_memsz = sizeof(text) };
	struct nop_site s;
	struct nop_error err;
	FILE *f;

	assert_non_null(mkdtemp(dir));
	put_text(dir, "kallsyms", "ffff80008002d228 T ftrace_caller\n"
				  "ffff800080444360 t do_sys_openat2\n"
				  "ffff800080447390 T vfs_read\n");
	put_text(dir, "available_filter_functions_addrs", "ffff800080444364 do_sys_openat2\n");
	put_text(dir, "enabled_functions", "do_sys_openat2 (1)\tops: function_trace_ops\n");
	snprintf(core, sizeof(core), "%s/kcore", dir);
	assert_non_null(f = fopen(core, "w"));
	assert_int_equal(pwrite(fileno(f), &eh, sizeof(eh), 0), sizeof(eh));
	assert_int_equal(pwrite(fileno(f), &ph, sizeof(ph), sizeof(eh)), sizeof(ph));
	assert_int_equal(pwrite(fileno(f), text, sizeof(text), 4096), sizeof(text));
	fclose(f);
	snprintf(syms, sizeof(syms), "%s/kallsyms", dir);
	nop_kcore_path = core;
	nop_kallsyms_path = syms;
	if (nop_inspect(dir, "do_sys_openat2", &s, &err))
		fail_msg("%s", err.msg);
	assert_true(s.addr == fn && s.site == fn + 4);
	assert_string_equal(s.site_from, "available_filter_functions_addrs");
	assert_int_equal(s.state, NOP_SITE_CALL);
	assert_true(s.target == 0xffff80008002d228ULL);
	assert_string_equal(s.target_sym, "ftrace_caller+0");
	assert_string_equal(s.enabled, "do_sys_openat2 (1) ops: function_trace_ops");
	put_text(dir, "available_filter_functions_addrs", "");
	assert_int_equal(nop_inspect(dir, "do_sys_openat2", &s, &err), 0);
	assert_true(s.site == fn + 4);
	assert_string_equal(s.site_from, "kallsyms");
	assert_int_equal(s.state, NOP_SITE_CALL);
	nop_kallsyms_path = "/proc/kallsyms";
	nop_kcore_path = "/proc/kcore";
	for (const char *n = "kallsyms\0available_filter_functions_addrs\0enabled_functions\0kcore\0"; *n;
	     n += strlen(n) + 1) {
		snprintf(path, sizeof(path), "%s/%s", dir, n);
		unlink(path);
	}
	rmdir(dir);
}
#endif

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(site_states_named),
#if defined(__x86_64__)
		cmocka_unit_test(x86_site_states),
#endif
#if defined(__aarch64__)
		cmocka_unit_test_setup_teardown(arm64_insn_flow, one_open, one_close),
		cmocka_unit_test_setup_teardown(arm64_probe_refused, one_open, one_close),
		cmocka_unit_test(arm64_site_61),
		cmocka_unit_test(arm64_site_612_bti),
		cmocka_unit_test(arm64_inspect),
#endif
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
