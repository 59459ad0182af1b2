/* test_probes.c - the probes area's logic on real data without tracefs:
 * kernel functions' signatures from the running kernel's BTF
 * (/sys/kernel/btf/vmlinux, which the development host and CI have), and
 * the kernel probes a run places by what the kernel offers. */
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
 * name through fprobes with BTF arguments, else kprobes fetching $argN
 * named and typed from BTF (a string through its pointer), refused
 * (exit 3) with neither */
static void kernel_probes_by_what_the_kernel_offers(void **state)
{
	struct nop_kcaps k612 = { .kretprobe = true, .fprobe = true, .btf_args = true, .kprobe_args = true };
	struct nop_kcaps k61 = { .kretprobe = true, .kprobe_args = true };
	struct nop_kcaps no_args = { .kretprobe = true };
	struct nop_kcaps fprobe_only = { .fprobe = true, .btf_args = true };
	struct nop_uprobes u = { 0 };
	struct nop_error err;

	assert_int_equal(nop_kcaps_retval_kind(&k612), NOP_PROBE_KRETPROBE);
	assert_int_equal(nop_kcaps_retval_kind(&fprobe_only), NOP_PROBE_FEXIT);
	assert_int_equal(nop_kprobes_add(&u, "do_sys_openat2", NULL, true, true, &k612, &err), 0);
	assert_int_equal(nop_kprobes_count(&u, NOP_PROBE_KRETPROBE), 1);
	assert_int_equal(nop_kprobes_count(&u, NOP_PROBE_FARGS), 1);
	assert_string_equal(u.v[1].fetch, "dfd:s32 filename:string how:x64");
	nop_uprobes_free(&u);
	memset(&u, 0, sizeof(u));
	assert_int_equal(nop_kprobes_add(&u, "do_sys_openat2", NULL, false, true, &k61, &err), 0);
	assert_int_equal(nop_kprobes_count(&u, NOP_PROBE_KARGS), 1);
	assert_string_equal(u.v[0].fetch, "dfd=$arg1:s32 filename=+0($arg2):string how=$arg3:x64");
	assert_string_equal(u.v[0].event, "do_sys_openat2" NOP_KARGS_SUFFIX);
	nop_uprobes_free(&u);
	memset(&u, 0, sizeof(u));
	assert_int_equal(nop_kprobes_add(&u, "do_sys_openat2", NULL, false, true, &no_args, &err), -1);
	assert_int_equal(err.status, NOP_EKERNEL);
	nop_uprobes_free(&u);
}

/* catch's gate (issue 42): its texts for do_sys_openat2 (BTF: an int on
 * 6.19, fetched as s32 there), one arm per condition, the clock the
 * buffer uses named (a hist trigger would set its own); a kernel without
 * the snapshot file or hist triggers, or a function whose name no probe
 * takes: none */
static void catch_gate_texts(void **state)
{
	char dir[] = "/tmp/nopctl-gate-XXXXXX";
	const char *f[] = { "do_sys_openat2" }, *bad[] = { "foo.isra.0" };
	struct nop_gate_plan *g = calloc(1, sizeof(*g));
	struct nop_error err;
	char group[64], want[400];

	assert_non_null(g);
	assert_non_null(mkdtemp(dir));
	put_text(dir, "kprobe_events", "");
	put_text(dir, "synthetic_events", "");
	put_text(dir, "trace_clock", "[local] global counter\n");
	assert_int_equal(nop_gate_plan(g, dir, f, 1, NULL, true, 0, &err), 1); /* no snapshot file */
	put_text(dir, "snapshot", "");
	/* no hist triggers (Debian's 5.10): README lists none */
	assert_int_equal(nop_gate_plan(g, dir, f, 1, NULL, true, 0, &err), 1);
	assert_non_null(strstr(err.msg, "no hist triggers"));
	put_text(dir, "README", "\t\t    snapshot\n\t\t    hist (see below)\n");
	assert_int_equal(nop_gate_plan(g, dir, bad, 1, NULL, true, 0, &err), 1);
	assert_int_equal(nop_gate_plan(g, dir, f, 1, NULL, true, 50000000, &err), 0);
	nop_probe_group(group, sizeof(group), getpid());
	assert_string_equal(g->group, group);
	assert_int_equal(g->nprobes, 2);
	snprintf(want, sizeof(want), "p:%s/catch0_in do_sys_openat2", group);
	assert_string_equal(g->probes[0], want);
	snprintf(want, sizeof(want), "r:%s/catch0_ret do_sys_openat2 ret=$retval:s", group);
	assert_memory_equal(g->probes[1], want, strlen(want)); /* s32 or s64 by the host's BTF */
	assert_int_equal(g->narm, 2);
	assert_string_equal(g->trig[g->arm[0]].text, "snapshot:1 if ret < 0 && ret >= -4095");
	snprintf(want, sizeof(want), "events/%s/catch0_ret/trigger", group);
	assert_string_equal(g->trig[g->arm[0]].rel, want);
	assert_string_equal(g->trig[g->arm[1]].text, "snapshot:1 if lat > 50000 && lat < 9223372036854775808");
	snprintf(want, sizeof(want), "events/synthetic/%s_lat/trigger", group);
	assert_string_equal(g->trig[g->arm[1]].rel, want);
	snprintf(want, sizeof(want), "%s_lat u64 lat", group);
	assert_string_equal(g->synth, want);
	for (size_t i = 0; i < g->ntrig; i++)
		if (strstr(g->trig[i].text, "common_timestamp"))
			assert_non_null(strstr(g->trig[i].text, ":clock=local"));
	assert_int_equal(g->nroots, 1);
	assert_int_equal(g->nhits, 2);
	free(g);
	for (const char *n = "kprobe_events\0synthetic_events\0trace_clock\0snapshot\0"; *n; n += strlen(n) + 1) {
		char path[4200];

		snprintf(path, sizeof(path), "%s/%s", dir, n);
		unlink(path);
	}
	rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(signatures_from_btf),
		cmocka_unit_test(kernel_probes_by_what_the_kernel_offers),
		cmocka_unit_test(catch_gate_texts),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
