# t-valgrind.sh - complete runs under valgrind's memcheck: no invalid
# access, no uninitialised use, no leak (definite, indirect or possible),
# from start-up to the last restore (issue 4).

# vg CMD...: memcheck, exit 99 on any error or leak. (valgrind's copy of
# nopctl in the forked child opens the program before the exec: one more
# do_sys_openat2 under the command's pid. Exact counts are checked by the
# other suites; here, at least the command's.)
vg() {
	valgrind -q --leak-check=full --show-leak-kinds=definite,indirect,possible \
		--errors-for-leak-kinds=definite,indirect,possible --error-exitcode=99 \
		--log-fd=9 "$@" 9>> "$T/vg.log"
}

# with -q valgrind writes only problems
vg_clean() {
	[ -s "$T/vg.log" ] || return 0
	head -40 "$T/vg.log"
	fail "valgrind reported problems"
}

t_valgrind_trace() {
	expect_rc 0 vg nopctl trace -j -s do_sys_openat2 -- opener 20
	[ "$(grep -c '"comm":"opener","func":"do_sys_openat2"' "$T/out")" -ge 20 ] || fail "trace under valgrind: fewer than 20 calls"
	vg_clean
	expect_rc 0 vg nopctl trace -j -d 1 'vfs_*' -n vfs_write
	vg_clean
}

t_valgrind_graph_and_stats() {
	top_buffer_may_expand # graph roots take the top level (instances lack set_graph_function)
	expect_rc 0 vg nopctl graph -j do_sys_openat2 -- opener 5
	[ "$(grep '^{' "$T/out" | jq -s '[.[] | select(.type == "entry" and .comm == "opener" and .func == "do_sys_openat2" and .depth == 0)] | length')" -ge 5 ] ||
		{ head -5 "$T/out"; fail "graph under valgrind: fewer than 5 trees"; }
	vg_clean
	expect_rc 0 vg nopctl record -q -G -o "$T/g.dat" do_sys_openat2 -- opener 3
	vg_clean
	expect_rc 0 vg nopctl report -F folded "$T/g.dat"
	vg_clean
	expect_rc 0 vg nopctl report --stats -j "$T/g.dat"
	vg_clean
}

t_valgrind_doctor_inspect() {
	expect_rc 2 vg nopctl doctor -j do_sys_openat2 no_such_fn_xyz
	vg_clean
	expect_rc 0 vg nopctl inspect -j do_sys_openat2
	vg_clean
}

t_valgrind_uprobes() {
	# ELF symbols, demangling, probes, user call stacks, DWARF lines
	expect_rc 0 vg nopctl graph -F dot /usr/bin/ucxx:main -- ucxx 3
	grep -q '#1 at ucxx.cpp:' "$T/out" || fail "dot under valgrind"
	vg_clean
	expect_rc 0 vg nopctl stats -j '/usr/bin/ufuncs-pie:*' libnopdemo:lib_add -- ufuncs-pie 20
	[ "$(grep '^{' "$T/out" | jq -r 'select(.func == "lib_add") | .calls')" = 20 ] || fail "stats under valgrind"
	vg_clean
	expect_rc 2 vg nopctl doctor -j /usr/bin/ufuncs-pie:parse_lin libc:malloc
	vg_clean
}

t_valgrind_kernel_probes() {
	top_buffer_may_expand # graph roots take the top level
	# BTF (libbpf), kernel probes, the join, --errors' held trees, a user
	# tree joined to the kernel's
	a=--args
	expect_rc 0 vg nopctl graph -j --errors $a do_sys_openat2 -- uopen-static 2 2
	[ "$(grep '^{' "$T/out" | jq -c 'select(.type == "exit" and .retval == -2)' | wc -l)" = 2 ] ||
		fail "--errors under valgrind"
	vg_clean
	expect_rc 0 vg nopctl graph -j /usr/bin/uopen:main --retval do_sys_openat2 -- uopen 2 1
	vg_clean
	expect_rc 0 vg nopctl stats --retval do_sys_openat2 -- uopen-static 1 1
	vg_clean
}
