# t-report.sh - record now, look later: nopctl's trace.dat read by
# trace-cmd, trace-cmd's read by nopctl (issue 3).

t_record_read_by_trace_cmd() {
	expect_rc 0 nopctl record -q -o "$T/n.dat" do_sys_openat2 -- opener 5
	[ "$(trace-cmd report "$T/n.dat" 2>/dev/null | grep -c 'function: *do_sys_openat2')" = 5 ] ||
		{ trace-cmd report "$T/n.dat" 2>&1 | head; fail "trace-cmd does not see 5 calls"; }
	expect_rc 0 nopctl report -j "$T/n.dat"
	[ "$(grep -c '"type":"func"' "$T/out")" = 5 ] || fail "nopctl report does not see 5 calls"
	expect_rc 2 nopctl record -q -o "$T/n.dat" do_sys_openat2 -- true
	grep -q exists "$T/err" || fail "record overwrote a file"
}

t_graph_record_read_by_trace_cmd() {
	top_buffer_may_expand # graph roots take the top level (instances lack set_graph_function)
	expect_rc 0 nopctl record -q -G -o "$T/g.dat" do_sys_openat2 -- opener 4
	[ "$(trace-cmd report "$T/g.dat" 2>/dev/null | grep -c 'do_sys_openat2() {')" = 4 ] ||
		fail "trace-cmd does not see 4 trees"
	expect_rc 0 nopctl report --stats -j "$T/g.dat"
	jq -e -s 'map(select(.func == "do_sys_openat2"))[0].calls == 4' "$T/out" > /dev/null ||
		fail "nopctl report --stats does not count 4"
}

t_trace_cmd_record_read_by_nopctl() {
	cd "$T"
	trace_cmd_record -p function -l do_sys_openat2 -o "$T/t.dat" -F opener 6
	expect_rc 0 nopctl report -j "$T/t.dat"
	[ "$(grep -c '"func":"do_sys_openat2"' "$T/out")" = 6 ] ||
		{ head -5 "$T/out"; fail "nopctl report does not see trace-cmd's 6 calls"; }
	trace_cmd_record -p function_graph -g do_sys_openat2 -o "$T/tg.dat" -F opener 3
	expect_rc 0 nopctl report --stats -j "$T/tg.dat"
	jq -e -s 'map(select(.func == "do_sys_openat2"))[0].calls == 3' "$T/out" > /dev/null ||
		{ head -5 "$T/out"; fail "nopctl report --stats does not count trace-cmd's 3"; }
	# both file versions pass the layout check made before libtracecmd
	# reads a file (issue 13 #7), compressed sections included
	for v in "--file-version 6" "--file-version 7 --compression any"; do
		trace_cmd_record -p function -l do_sys_openat2 -o "$T/v.dat" $v -F opener 2
		expect_rc 0 nopctl report -j "$T/v.dat"
		[ "$(grep -c '"func":"do_sys_openat2"' "$T/out")" = 2 ] ||
			{ cat "$T/err"; fail "nopctl report does not read trace-cmd's file ($v)"; }
	done
}
