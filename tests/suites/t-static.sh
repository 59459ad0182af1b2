# t-static.sh - the static binary (make static) on a root with no shared
# library at all (NOPCTL_VM_STATIC=1: busybox-static, nopctl-static and
# static helpers only): trace, graph, record, report and doctor work.

t_static_root_has_no_shared_library() {
	libs=$(find / -xdev \( -name '*.so' -o -name '*.so.*' -o -name 'ld-linux*' \) 2>/dev/null | head -5)
	[ -z "$libs" ] || fail "shared libraries in the root: $libs"
	# the loader a dynamic nopctl would need is not there
	[ ! -e /lib64/ld-linux-x86-64.so.2 ] || fail "a loader in the root"
}

t_static_trace() {
	expect_rc 0 nopctl trace -j do_sys_openat2 -- opener 5
	[ "$(grep -c '"func":"do_sys_openat2"' "$T/out")" = 5 ] || { head -5 "$T/out"; fail "not 5 hits"; }
}

t_static_graph_record_report() {
	top_buffer_may_expand # graph roots take the top level (instances lack set_graph_function)
	expect_rc 0 nopctl graph do_sys_openat2 -- opener 3
	[ "$(grep -c 'do_sys_openat2() {' "$T/out")" = 3 ] || { head -5 "$T/out"; fail "graph: not 3 trees"; }
	expect_rc 0 nopctl record -q -G -o "$T/g.dat" do_sys_openat2 -- opener 4
	expect_rc 0 nopctl report "$T/g.dat"
	[ "$(grep -c 'do_sys_openat2() {' "$T/out")" = 4 ] || { head -5 "$T/out"; fail "report: not 4 trees"; }
	expect_rc 0 nopctl report --stats -j "$T/g.dat"
	grep -q '"func":"do_sys_openat2","calls":4,' "$T/out" || { head -3 "$T/out"; fail "stats: not 4 calls"; }
}

t_static_doctor() {
	expect_rc 0 nopctl doctor do_sys_openat2
	grep -q "^ok   tracer.function " "$T/out" || { cat "$T/out"; fail "doctor does not find the function tracer"; }
}
