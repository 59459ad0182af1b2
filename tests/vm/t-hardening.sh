# t-hardening.sh - kill -9 at any point of a run, and nopctl beside other
# tracing users (issue 4). The harness also compares full snapshots around
# every test.

# start a top-level trace, kill -9 it after $1 ms; reset must restore all
kill9_after() {
	nopctl trace -q --top-level -s -p "$a" do_sys_openat2 > /dev/null 2>&1 &
	_n=$!
	usleep $(($1 * 1000))
	kill -9 "$_n"
	reap "$_n"
	expect_rc 0 nopctl reset
	snap "$T/after"
	same "$T/before" "$T/after" || fail "not restored after kill -9 at $1 ms"
}

t_kill9_at_any_point() {
	top_buffer_may_expand # a tracer at the top level (nopctl or trace-cmd)
	a=$(opener_loop)
	echo 1 > "$TR/options/function-fork" # a prior value to put back
	snap "$T/before"
	# start-up: validating, journaling, writing the filters, the tracer
	for ms in 0 20 60 150 400 1000; do kill9_after $ms; done
	# streaming, then shutdown: SIGINT, and kill -9 while it restores
	for ms in 0 10 50; do
		nopctl trace -j --top-level -s -p "$a" do_sys_openat2 > "$T/bg.$ms" 2>&1 &
		n=$!
		wait_for "$T/bg.$ms" do_sys_openat2
		kill -INT "$n"
		usleep $((ms * 1000))
		kill -9 "$n" 2> /dev/null || true
		reap "$n"
		expect_rc 0 nopctl reset
		snap "$T/after"
		same "$T/before" "$T/after" || fail "not restored after kill -9 ${ms} ms into shutdown"
	done
	kill "$a"
	echo 0 > "$TR/options/function-fork"
}

# function_graph patches every traceable function (~35,000 sites, seconds
# under emulation): kill -9 in the middle of switching it on, and off
t_kill9_while_patching() {
	top_buffer_may_expand # a tracer at the top level (nopctl or trace-cmd)
	snap "$T/before"
	nopctl graph -q do_sys_openat2 > "$T/g1" 2>&1 &
	n=$!
	sleep 3
	kill -9 "$n"
	reap "$n"
	expect_rc 0 nopctl reset
	snap "$T/after"
	same "$T/before" "$T/after" || fail "not restored after kill -9 while switching function_graph on"
	a=$(opener_loop)
	nopctl graph -j -p "$a" do_sys_openat2 > "$T/g2" 2>&1 &
	n=$!
	wait_for "$T/g2" do_sys_openat2
	kill -INT "$n"
	sleep 2
	kill -9 "$n" 2> /dev/null || true
	reap "$n"
	kill "$a"
	expect_rc 0 nopctl reset
	snap "$T/after"
	same "$T/before" "$T/after" || fail "not restored after kill -9 while switching function_graph off"
}

# an instance session killed: the next nopctl run cleans up, no reset needed
t_kill9_next_run_cleans_up() {
	killed_session
	[ -f "/run/nopctl/$n.journal" ] && ls "$TR/instances" | grep -q "nopctl-$n" ||
		fail "kill -9 should leave its instance and journal"
	expect_rc 0 nopctl trace -q do_sys_openat2 -- true
	ls "$TR/instances" | grep -q "nopctl-$n" && fail "the next run left the stale instance"
	[ -f "/run/nopctl/$n.journal" ] && fail "the next run left the stale journal"
	true
}

# trace-cmd at the top level: nopctl traces in an instance beside it,
# refuses the top level saying who holds it, and trace-cmd loses nothing
t_beside_trace_cmd() {
	top_buffer_may_expand # a tracer at the top level (nopctl or trace-cmd)
	clock=$(sed 's/.*\[\(.*\)\].*/\1/' "$TR/trace_clock")
	kb=$(sed 's/.*expanded: \([0-9]*\).*/\1/' "$TR/buffer_size_kb")
	cd "$T"
	trace-cmd record -p function -l do_sys_openat2 -o "$T/tc.dat" -c -F sh -c 'sleep 6; opener 7' > "$T/tc.log" 2>&1 &
	tc=$!
	i=0
	until [ "$(cat "$TR/current_tracer")" = function ]; do
		i=$((i + 1)); [ $i -lt 100 ] || fail "trace-cmd did not start"; usleep 100000
	done
	rc1=0 rc2=0
	nopctl trace -j do_sys_openat2 -- cat /etc/hostname > "$T/n1" 2>&1 || rc1=$?
	nopctl trace --top-level do_sys_openat2 -- true > "$T/n2" 2>&1 || rc2=$?
	filt=$(cat "$TR/set_ftrace_filter")
	reap "$tc"
	trace_cmd_reset
	[ "$rc1" = 0 ] && grep -q '"comm":"cat"' "$T/n1" || { cat "$T/n1"; fail "nopctl beside trace-cmd: exit $rc1"; }
	[ "$rc2" = 4 ] && grep -q "current_tracer is 'function'" "$T/n2" || { cat "$T/n2"; fail "top level: exit $rc2, wanted 4 naming the holder"; }
	[ "$filt" = do_sys_openat2 ] || fail "trace-cmd's filter changed to '$filt'"
	[ "$(trace-cmd report "$T/tc.dat" 2>/dev/null | grep -c 'opener.*function: *do_sys_openat2')" = 7 ] ||
		{ trace-cmd report "$T/tc.dat" 2>&1 | tail; fail "trace-cmd did not get its 7 calls"; }
}

# two graph sessions where function_graph needs the top level: the second
# refuses with exit 4 and says another nopctl holds it
t_two_graph_sessions() {
	top_buffer_may_expand # a tracer at the top level (nopctl or trace-cmd)
	a=$(opener_loop)
	nopctl graph -j -p "$a" do_sys_openat2 > "$T/g1" 2>&1 &
	n=$!
	wait_for "$T/g1" do_sys_openat2
	rc=0
	nopctl graph do_sys_openat2 -- true > "$T/g2" 2>&1 || rc=$?
	nopctl doctor -j > "$T/doc" 2>&1 || true
	kill -INT "$n"
	reap "$n"
	kill "$a"
	[ "$rc" = 4 ] || { cat "$T/g2"; fail "second graph session: exit $rc, wanted 4"; }
	grep -q "another nopctl (pid $n) is using the top-level tracer" "$T/g2" || { cat "$T/g2"; fail "message does not name pid $n"; }
	[ "$reaped" = 0 ] || fail "the first session ended with $reaped"
	jq -e -s 'any(.id == "top_level" and .status == "warn" and (.seen | test("another nopctl .pid '$n'. holds the top level")))
		and any(.id == "sessions" and .seen == "1 nopctl session(s) running")' "$T/doc" > /dev/null ||
		{ cat "$T/doc"; fail "doctor does not see the nopctl holding the top level"; }
}
