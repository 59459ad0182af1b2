/* test_probes.c - the probes area's logic on real data without tracefs:
 * kernel functions' signatures from the running kernel's BTF
 * (/sys/kernel/btf/vmlinux, which the development host and CI have), and
 * the kernel probes a run places by what the kernel offers. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "../../lib/internal.h"

/* do_sys_openat2(int dfd, const char __user *filename, struct open_how *how)
 * since Linux 5.6, returning a signed integer (long, int in later kernels) */
static void signatures_from_btf(void **state)
{
	struct nop_ksig sig;
	struct nop_error err;

	assert_int_equal(access("/sys/kernel/btf/vmlinux", R_OK), 0);
	assert_int_equal(nop_kfunc_sig("do_sys_openat2", NULL, &sig, &err), 0);
	assert_true(sig.found);
	assert_int_equal(sig.ret.kind, NOP_KP_SIGNED);
	assert_true(sig.ret.size == 4 || sig.ret.size == 8);
	assert_int_equal(sig.n, 3);
	assert_string_equal(sig.p[0].name, "dfd");
	assert_int_equal(sig.p[0].kind, NOP_KP_SIGNED);
	assert_int_equal(sig.p[0].size, 4);
	assert_string_equal(sig.p[1].name, "filename");
	assert_int_equal(sig.p[1].kind, NOP_KP_STRING);
	assert_string_equal(sig.p[2].name, "how");
	assert_int_equal(sig.p[2].kind, NOP_KP_POINTER);
	/* a name BTF does not have: not found, no error */
	assert_int_equal(nop_kfunc_sig("no_such_function_xyz", NULL, &sig, &err), 0);
	assert_false(sig.found);
}

/* what each kernel offers decides the probe: a kretprobe wherever
 * kprobe_events is, an fprobe exit only without it; arguments by BTF
 * name need fprobes with BTF arguments, refused (exit 3) without */
static void kernel_probes_by_what_the_kernel_offers(void **state)
{
	struct nop_kcaps k612 = { .kretprobe = true, .fprobe = true, .btf_args = true };
	struct nop_kcaps k61 = { .kretprobe = true };
	struct nop_kcaps fprobe_only = { .fprobe = true, .btf_args = true };
	struct nop_uprobes u = { 0 };
	struct nop_error err;

	assert_int_equal(nop_kcaps_retval_kind(&k612), NOP_PROBE_KRETPROBE);
	assert_int_equal(nop_kcaps_retval_kind(&fprobe_only), NOP_PROBE_FEXIT);
	assert_int_equal(nop_kprobes_add(&u, "do_sys_openat2", NULL, true, true, &k612, &err), 0);
	assert_int_equal(nop_kprobes_count(&u, NOP_PROBE_KRETPROBE), 1);
	assert_int_equal(nop_kprobes_count(&u, NOP_PROBE_FARGS), 1);
	nop_uprobes_free(&u);
	memset(&u, 0, sizeof(u));
	assert_int_equal(nop_kprobes_add(&u, "do_sys_openat2", NULL, false, true, &k61, &err), -1);
	assert_int_equal(err.status, NOP_EKERNEL);
	nop_uprobes_free(&u);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(signatures_from_btf),
		cmocka_unit_test(kernel_probes_by_what_the_kernel_offers),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
