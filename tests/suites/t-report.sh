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
	expect_tc_report "$T/t.dat" -- nopctl report -j "$T/t.dat"
	[ "$(grep -c '"func":"do_sys_openat2"' "$T/out")" = 6 ] ||
		{ head -5 "$T/out"; fail "nopctl report does not see trace-cmd's 6 calls"; }
	trace_cmd_record -p function_graph -g do_sys_openat2 -o "$T/tg.dat" -F opener 3
	expect_tc_report "$T/tg.dat" -- nopctl report --stats -j "$T/tg.dat"
	jq -e -s 'map(select(.func == "do_sys_openat2"))[0].calls == 3' "$T/out" > /dev/null ||
		{ head -5 "$T/out"; fail "nopctl report --stats does not count trace-cmd's 3"; }
	# both file versions, compressed and not, read by nopctl's own reader
	for v in "--file-version 6" "--file-version 7 --compression any"; do
		trace_cmd_record -p function -l do_sys_openat2 -o "$T/v.dat" $v -F opener 2
		expect_tc_report "$T/v.dat" -- nopctl report -j "$T/v.dat"
		[ "$(grep -c '"func":"do_sys_openat2"' "$T/out")" = 2 ] ||
			{ cat "$T/err"; fail "nopctl report does not read trace-cmd's file ($v)"; }
	done
}

# Every trace-cmd release in the guest (Debian 12's 3.1.6; 3.3 and 3.4,
# tests/vm/peers.sh) records on this kernel in its default layout (version
# 7, zstd) and, for the newer ones, with zlib: nopctl reads the very
# events that release's own report prints (tests/tc-events.sh)
t_each_tracecmd_release_read_by_nopctl() {
	top_buffer_may_expand
	cd "$T"
	for tc in trace-cmd /usr/bin/trace-cmd-*; do
		z=
		[ "$tc" = trace-cmd ] || z="--compression zlib"
		trace_cmd_record_with "$tc" -p function_graph -g do_sys_openat2 $z -o "$T/r.dat" -F opener 2
		"$tc" report -R -t "$T/r.dat" 2> /dev/null | sh /tests/tc-events.sh tc > "$T/tc.ev"
		expect_tc_report "$T/r.dat" "$tc" -- nopctl report -j "$T/r.dat"
		sh /tests/tc-events.sh nopctl < "$T/out" > "$T/nop.ev"
		[ "$(grep -c 'do_sys_openat2$' "$T/tc.ev")" -ge 2 ] || { head "$T/tc.ev"; fail "$tc: not 2 trees"; }
		cmp -s "$T/tc.ev" "$T/nop.ev" || { diff "$T/tc.ev" "$T/nop.ev" | head; fail "$tc $z: nopctl's events differ"; }
		rm -f "$T/r.dat"
	done
}
