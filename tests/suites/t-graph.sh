# t-graph.sh - nopctl graph and stats on a real kernel (issue 3).

t_graph_tree() {
	top_buffer_may_expand # graph roots take the top level (instances lack set_graph_function)
	expect_rc 0 nopctl graph do_sys_openat2 -- cat /etc/hostname
	grep -Eq '^ +[0-9]+\) +cat-[0-9]+ +\| +\| do_sys_openat2\(\) \{$' "$T/out" || fail "no root line"
	grep -Eq '\| +[+!#*@$ ]? +[0-9]+\.[0-9]{3} us \|   [a-z_0-9.]+\(\);$' "$T/out" || fail "no timed leaf one level down"
	grep -Eq '\| +[+!#*@$ ]? +[0-9]+\.[0-9]{3} us \| \} /\* do_sys_openat2 \*/( /\* off CPU [^*]*\*/)?$' "$T/out" || fail "no timed close of the root"
	# the command is traced from fork: before exec it still has nopctl's
	# name, so the check is on the pid
	pids=$(grep -E '^ +[0-9]+\) ' "$T/out" | sed -E 's/^ +[0-9]+\) +[^ ]*-([0-9]+) .*/\1/' | sort -u)
	[ "$(echo "$pids" | wc -l)" = 1 ] || { echo "$pids"; fail "a task other than the command's"; }
	# only trees of the root asked for (6.1 also records context-switch tails)
	# (the call column is after the second '|'; depth 0 is not indented)
	sed -nE 's/^ +[0-9]+\) [^|]*\|[^|]*\| //p' "$T/out" | grep -v '^ ' |
		grep -vE '^(do_sys_openat2\(\) \{|\} /\* do_sys_openat2 \*/( /\* off CPU [^*]*\*/)?)$' &&
		fail "a tree that is not rooted at do_sys_openat2"
	true
}

t_graph_json_nesting() {
	top_buffer_may_expand # graph roots take the top level (instances lack set_graph_function)
	expect_rc 0 nopctl graph -j do_sys_openat2 -- cat /etc/hostname
	grep '^{' "$T/out" > "$T/json"
	json_lines "$T/json"
	all_of entry '.func != null and .depth >= 0' "$T/json"
	all_of call '.duration_ns >= 0 and .self_ns == .duration_ns and .depth >= 1' "$T/json"
	all_of exit '.duration_ns >= .self_ns' "$T/json"
	# entries and exits pair up like brackets
	jq -r 'select(.type == "entry" or .type == "exit") | .type' "$T/json" |
		awk '/entry/ { d++ } /exit/ { d--; if (d < 0) bad = 1 } END { exit (bad || d != 0) }' ||
		fail "entries and exits do not pair up"
}

t_stats_exact_count() {
	top_buffer_may_expand # graph roots take the top level (instances lack set_graph_function)
	expect_rc 0 nopctl stats -j do_sys_openat2 -- opener 7
	json_lines "$T/out"
	all_of func_stats 'true' "$T/out"
	jq -e -s 'map(select(.type == "func_stats" and .func == "do_sys_openat2"))[0]
		| .calls == 7 and .min_ns <= .p50_ns and .p50_ns <= .p99_ns and .p99_ns <= .max_ns
		  and .self_ns <= .total_ns and .max_depth == 0' "$T/out" > /dev/null ||
		{ grep do_sys_openat2 "$T/out"; fail "do_sys_openat2 is not 7 calls with ordered figures"; }
	expect_rc 0 nopctl stats --sort calls --hist do_sys_openat2 do_sys_openat2 -- opener 3
	grep -q '^# do_sys_openat2: 3 calls' "$T/out" || fail "no histogram"
	[ "$(grep -E '^ +[0-9.]+ [nmu]?s - ' "$T/out" | awk -F'|' '{ s += $2 } END { print s }')" = 3 ] ||
		fail "histogram buckets do not add up to 3"
}

t_graph_depth_and_threshold() {
	top_buffer_may_expand # graph roots take the top level (instances lack set_graph_function)
	expect_rc 0 nopctl graph -j -D 2 do_sys_openat2 -- opener 2
	[ "$(jq -s '[.[] | select(.depth != null) | .depth] | max' "$T/out")" = 1 ] || fail "-D 2 went deeper than 1"
	expect_rc 0 nopctl graph -j -t 20us do_sys_openat2 -- opener 5
	grep '^{' "$T/out" > "$T/json"
	jq -e -s '[.[] | select(.duration_ns != null) | .duration_ns] | length > 0 and min >= 20000' "$T/json" \
		> /dev/null || fail "-t 20us let faster calls through"
}

t_graph_retval() {
	top_buffer_may_expand # graph roots take the top level (instances lack set_graph_function)
	expect_rc 0 nopctl graph -j --retval do_sys_openat2 -- cat /etc/hostname
	if [ -f "$TR/options/funcgraph-retval" ]; then
		all_of exit 'has("retval")' "$T/out"
	else
		# no Debian kernel has it: a return probe on the pattern's
		# function (t-retval.sh checks the values)
		grep -q 'return values of 1 function through' "$T/err" || { cat "$T/err"; fail "mechanism not said"; }
		grep '^{' "$T/out" | jq -s -e 'any(.[]; .func == "do_sys_openat2" and .type != "entry" and .retval >= 3)' > /dev/null ||
			{ grep -e do_sys_openat2 -e summary "$T/out"; fail "no fd returned"; }
	fi
}

t_graph_pictures() {
	top_buffer_may_expand # graph roots take the top level (instances lack set_graph_function)
	expect_rc 0 nopctl graph -F folded -D 3 do_sys_openat2 -- opener 3
	grep -Eq '^do_sys_openat2;[a-z_0-9.;]+ [0-9]+$' "$T/out" || fail "no folded stacks"
	grep -Evq '^[^ ]+ [0-9]+$' "$T/out" && fail "a line that is not 'stack ns'"
	expect_rc 0 nopctl graph -F dot -D 2 do_sys_openat2 -- opener 2
	grep -q '^digraph nopctl {' "$T/out" || fail "no digraph"
	# edges numbered by first call: the root's first callee comes first
	grep '^	"do_sys_openat2" -> ' "$T/out" > "$T/edges"
	# a timer interrupt during one of the calls adds its own callees of the
	# root, once (seen on 6.1 in CI: irq_enter_rcu, __sysvec_apic_timer_interrupt,
	# irq_exit_rcu as #3-#5, 1x); the opens' own callees are called twice
	grep -Ev -e '-> "(__)?(irq_[a-z_]*|sysvec_[a-z_]*|[a-z_]*_interrupt)"' "$T/edges" > "$T/calls"
	# (6.19 calls getname_flags where 6.1 and 6.12 call getname)
	head -n 1 "$T/calls" | grep -Eq '"getname(_flags)?" \[label="#[0-9]*, 2x"\];$' || { cat "$T/edges"; fail "getname is not the first callee, twice"; }
	grep -v ', 2x"' "$T/calls" && fail "an edge of the root not called twice"
	sed 's/.*#\([0-9]*\),.*/\1/' "$T/edges" | sort -n -c || fail "edges out of call order"
	expect_rc 0 nopctl graph -F chrome -D 2 do_sys_openat2 -- opener 2
	jq -e '.traceEvents | map(select(.ph == "X")) | length > 0 and all(.dur >= 0 and .name != null)' \
		"$T/out" > /dev/null || fail "chrome output is not trace events"
}

t_graph_needs_a_root() {
	expect_rc 2 nopctl graph
	grep -q 'root function, -p PID or -- COMMAND' "$T/err" || fail "no reason"
	expect_rc 2 nopctl graph -F svg do_sys_openat2
	expect_rc 2 nopctl stats --sort bogus do_sys_openat2
	expect_rc 2 nopctl graph -t 5ns do_sys_openat2
}

t_graph_options_reach_the_kernel() {
	top_buffer_may_expand # graph roots take the top level (instances lack set_graph_function)
	a=$(opener_loop)
	nopctl graph -q --no-irqs --no-sleep-time -D 3 -t 2us -p "$a" do_sys_openat2 > "$T/bg" 2>&1 &
	n=$!
	wait_for "$T/bg" do_sys_openat2
	# graph roots put it at the top level on both kernels
	for kv in options/funcgraph-irqs=0 options/sleep-time=0 max_graph_depth=3 tracing_thresh=2 \
		current_tracer=function_graph set_graph_function=do_sys_openat2; do
		[ "$(cat "$TR/${kv%%=*}")" = "${kv#*=}" ] || fail "${kv%%=*} is $(cat "$TR/${kv%%=*}") while running"
	done
	kill -INT "$n"
	reap "$n"
	kill "$a"
	[ "$reaped" = 0 ] || fail "exit $reaped"
	# the harness then checks every one of them is back
}

# issue 19 #3: with -t the kernel records only returns at or above it; the
# trees are built from them: calls below the root at their depth, none
# 'entry not seen', every duration at or above the threshold
t_threshold_trees() {
	top_buffer_may_expand # graph roots take the top level (instances lack set_graph_function)
	expect_rc 0 nopctl graph -j -t 20us do_sys_openat2 -- opener 10
	grep '^{' "$T/out" > "$T/json"
	jq -e -s '[.[] | select(.entry == "not seen")] | length == 0' "$T/json" > /dev/null ||
		{ grep 'not seen' "$T/json" | head -3; fail "calls shown as 'entry not seen'"; }
	jq -e -s '[.[] | select(.depth != null and .depth >= 1)] | length > 0' "$T/json" > /dev/null ||
		fail "no call below the root"
	jq -e -s '[.[] | select(.duration_ns != null) | .duration_ns] | min >= 20000' "$T/json" > /dev/null ||
		fail "a call under the threshold"
	all_of summary '.threshold_ns == 20000 and .gaps == 0 and .no_entry == 0' "$T/json"
	[ "$(jq -s '[.[] | select(.depth == 0 and (.type == "exit" or .type == "call"))] | length' "$T/json")" -le 10 ] ||
		fail "more roots than calls"
	# the kernel's own rule, checked on the tree: a caller lasts at least as
	# long as its known callees, and its self time is what they leave
	all_of exit '.self_ns <= .duration_ns' "$T/json"
	expect_rc 0 nopctl stats -j -t 20us do_sys_openat2 -- opener 10
	jq -e -s '[.[] | select(.type == "func_stats" and .max_depth >= 1)] | length > 0' "$T/out" > /dev/null ||
		fail "stats -t has no callee"
	# and a recording of such a capture: found to hold only returns
	expect_rc 0 nopctl record -G -t 20us -o "$T/t.dat" do_sys_openat2 -- opener 10
	expect_rc 0 nopctl report -j "$T/t.dat"
	grep -q '"entry":"not seen"' "$T/out" && fail "report of a -t recording: calls shown as 'entry not seen'"
	jq -e -s '[.[] | select(.depth != null and .depth >= 1)] | length > 0' "$T/out" > /dev/null ||
		fail "report of a -t recording: no call below the root"
	all_of summary '.returns_only == true and .gaps == 0' "$T/out"
}

# issue 19 #9: status during a top-level graph names its roots and owner
t_status_names_top_level_graph() {
	top_buffer_may_expand # graph roots take the top level (instances lack set_graph_function)
	nopctl graph -d 60 do_sys_openat2 > /dev/null 2> "$T/bg" &
	n=$!
	wait_for "$T/bg" "tracing 1 pattern"
	expect_rc 0 nopctl status
	grep -q "^top: nopctl pid $n (running).*set_graph_function=\[do_sys_openat2\]" "$T/out" ||
		{ kill -INT "$n"; reap "$n"; fail "status: $(cat "$T/out")"; }
	expect_rc 0 nopctl status -j
	kill -INT "$n"
	reap "$n"
	jq -e -s "map(select(.instance == \"top\"))[0] | .owner_pid == $n and .set_graph_function == \"do_sys_openat2\"" \
		"$T/out" > /dev/null || fail "status -j: $(head -2 "$T/out")"
}

# issue 19 #11, #12: --hist of a function the run never saw is refused;
# -c N shows N calls, named as calls
t_hist_and_count() {
	top_buffer_may_expand # graph roots take the top level (instances lack set_graph_function)
	expect_rc 2 nopctl stats --hist no_such_function_x do_sys_openat2 -- true
	grep -q "no traceable function matches 'no_such_function_x'" "$T/err" || fail "message: $(cat "$T/err")"
	expect_rc 2 nopctl stats --hist vfs_read do_sys_openat2 -- opener 3
	grep -q 'no call of vfs_read was recorded' "$T/err" || fail "message: $(cat "$T/err")"
	expect_rc 0 nopctl graph -j -c 20 do_sys_openat2 -- opener 100
	[ "$(grep -c '"type":"\(call\|exit\)"' "$T/out")" = 20 ] || fail "-c 20 showed $(grep -c '"type":"\(call\|exit\)"' "$T/out") calls"
	all_of summary '.events == 20 and .counted == "calls" and .gaps == 0' "$T/out"
	expect_rc 0 nopctl graph -c 20 do_sys_openat2 -- opener 100
	grep -q '^nopctl: 20 calls in' "$T/err" || fail "summary: $(tail -1 "$T/err")"
}

# issue 41 #17: a graph of every function of a short command (no root,
# the first thing a user tries) comes out whole: its exec and exit are
# some 20,000 calls in 50 ms, more than the kernel's default buffer held
# while the reader began (6.1, 6.12: 10,000-15,000 lost, exit 5)
t_whole_command_graph_whole() {
	top_buffer_may_expand # 6.1 runs function_graph at the top level only
	expect_rc 0 nopctl graph -j -o "$T/g.json" -- opener 3
	all_of summary '.lost == 0 and .overrun == 0 and .gaps == 0 and (.no_entry // 0) == 0' "$T/g.json"
	[ "$(jq -c 'select((.type == "call" or .type == "exit") and .func == "do_sys_openat2")' "$T/g.json" | wc -l)" -ge 3 ] ||
		fail "not the command's 3 opens in its graph"
	expect_rc 0 nopctl stats -j -o "$T/s.json" -- opener 3
	all_of summary '.lost == 0 and .overrun == 0' "$T/s.json"
}

# issue 41 #11: events the kernel overwrote mean the buffer was full,
# whatever the samples between reads showed (9,199 lost at "22 %"): the
# peak says 100 and the remedy is named
t_overrun_means_full() {
	top_buffer_may_expand # 6.1 runs function_graph at the top level only
	expect_rc 5 nopctl graph -b 100 -j -o "$T/g.json" -- opener 3
	all_of summary '.overrun > 0 and .buffer_peak_pct == 100' "$T/g.json"
	expect_rc 5 nopctl graph -b 100 -o /dev/null -- opener 3
	grep -q 'buffer was 100% full at its peak: a larger -b KB' "$T/err" || { cat "$T/err"; fail "no remedy named"; }
}

# issue 41 #13: a graph of a root at the top level, of a shell loop whose
# children make the calls (seen once with 0 calls; not reproduced since)
t_graph_top_shell_loop() {
	top_buffer_may_expand
	expect_rc 0 nopctl graph -T -d 2 -j -o "$T/g.json" do_sys_openat2 -- sh -c 'while :; do cat /etc/hostname > /dev/null; done'
	[ "$(jq -c 'select((.type == "call" or .type == "exit") and .func == "do_sys_openat2")' "$T/g.json" | wc -l)" -ge 10 ] ||
		{ grep summary "$T/g.json"; fail "not the loop's opens"; }
}

# issue 42: catch shows exactly the slow or failed root calls, each with
# its whole tree: 7 nanosleeps of 100 ms among 700 of 1 us
# (hrtimer_nanosleep, and the program's own nap), 7 failed opens among
# 707 (do_sys_openat2 --errors); -c 2 stops after two whole trees
# over50: the naps uslow timed over 50 ms in the run whose stderr is
# $T/err: the 7 slow ones, and any 1 us nap a loaded host stalled as long
# (a sleep, or a nap, caught over 50 ms is one of them: at least 7, at
# most this many)
over50() {
	sed -n 's/^over50ms \([0-9]*\)$/\1/p' "$T/err"
}

t_catch_exact() {
	top_buffer_may_expand # graph roots take the top level (instances lack set_graph_function)
	expect_rc_json 0 "$T/k.json" nopctl catch --slower-than 50ms -j -o "$T/k.json" hrtimer_nanosleep -- uslow slow 700
	k=$(over50)
	[ "$k" != 7 ] && echo "# $KVER: $k naps over 50 ms, 7 of them slow" >&3
	all_of summary ".roots == 700 and .caught >= 7 and .caught <= $k and .lost == 0 and .overrun == 0 and .gaps == 0 and .gate == \"kernel\" and .hits == .caught and .missed == 0" "$T/k.json"
	caught=$(jq -s 'map(select(.type == "summary"))[0].caught' "$T/k.json")
	# the same judged in user space, every call read
	expect_rc_json 0 "$T/ku.json" env NOPCTL_CATCH_GATE=0 nopctl catch --slower-than 50ms -j -o "$T/ku.json" hrtimer_nanosleep -- uslow slow 700
	ku=$(over50)
	all_of summary ".roots == 700 and .caught >= 7 and .caught <= $ku and .lost == 0 and .gaps == 0 and .gate == \"user\"" "$T/ku.json"
	[ "$(jq -c 'select(.type == "catch" and .duration_ns > 50000000)' "$T/ku.json" | wc -l)" = "$(jq -s 'map(select(.type == "summary"))[0].caught' "$T/ku.json")" ] ||
		fail "user space: not a catch line over 50 ms per catch"
	[ "$(jq -c 'select(.type == "catch" and .duration_ns >= 100000000)' "$T/ku.json" | wc -l)" -ge 7 ] || fail "user space: not the 7 slow sleeps"
	[ "$(jq -c 'select((.type == "exit" or .type == "call") and .func == "hrtimer_nanosleep" and .depth == 0 and .duration_ns > 50000000)' "$T/k.json" | wc -l)" = "$caught" ] ||
		fail "not a sleep over 50 ms per catch"
	[ "$(jq -c 'select((.type == "exit" or .type == "call") and .func == "hrtimer_nanosleep" and .depth == 0 and .duration_ns >= 100000000)' "$T/k.json" | wc -l)" -ge 7 ] ||
		fail "not the 7 slow sleeps"
	# whole: each caught sleep went to sleep inside (schedule at some depth)
	[ "$(jq -c 'select(.func == "schedule" and .depth > 0)' "$T/k.json" | wc -l)" -ge 7 ] || fail "caught trees not whole"
	expect_rc 0 nopctl catch --slower-than 50ms -j -o "$T/u.json" /usr/bin/uslow:nap -- uslow slow 700
	u=$(over50)
	all_of summary ".roots == 700 and .caught >= 7 and .caught <= $u" "$T/u.json"
	[ "$(jq -c 'select(.func == "inner" and .depth == 1)' "$T/u.json" | wc -l)" = "$(jq -s 'map(select(.type == "summary"))[0].caught' "$T/u.json")" ] ||
		fail "user trees not whole"
	# paced: 700 unpaced opens' trees overflowed 6.19's default buffer once
	expect_rc 0 nopctl catch --errors -b 4096 -j -o "$T/e.json" do_sys_openat2 -- sh -c 'opener 700 /etc/hostname 300; for i in 1 2 3 4 5 6 7; do opener 1 /nonexistent; done; true'
	all_of summary '.roots == 707 and .caught == 7 and .gate == "kernel" and .missed == 0' "$T/e.json"
	[ "$(jq -c 'select(.func == "do_sys_openat2" and .depth == 0 and .error == "ENOENT")' "$T/e.json" | wc -l)" = 7 ] ||
		fail "not the 7 failed opens, each with ENOENT"
	expect_rc 0 nopctl catch --slower-than 50ms -c 2 -j -o "$T/two.json" hrtimer_nanosleep -- uslow slow 700
	all_of summary '.caught == 2 and .stop == "count"' "$T/two.json"
	# a line per catch, before its tree, says why; its calls are the tree's
	[ "$(jq -c 'select(.type == "catch" and .reason == "slower" and .function == "hrtimer_nanosleep" and .task == "uslow" and .duration_ns > 50000000 and .limit_ns == 50000000)' "$T/k.json" | wc -l)" = "$caught" ] ||
		fail "not a catch line per slow sleep: $(jq -c 'select(.type == "catch")' "$T/k.json" | head -2)"
	jq -e -s '(map(select(.type == "catch") | .calls) | add) == (map(select(.type == "entry" or .type == "call")) | length)' "$T/k.json" > /dev/null ||
		fail "the catch lines' calls are not the trees'"
	[ "$(jq -c 'select(.type == "catch" and .reason == "error" and .errno == "ENOENT" and .function == "do_sys_openat2")' "$T/e.json" | wc -l)" = 7 ] ||
		fail "not a catch line per failed open"
}

# issue 42: catch's gate (probe events, hist and snapshot triggers, a
# synthetic latency event, the top level's snapshot buffer) is in place
# while it runs and gone on every ending: the command's end, SIGINT, and
# kill -9 then reset; another user's trigger stays
t_catch_gate_restored() {
	top_buffer_may_expand # graph roots take the top level (instances lack set_graph_function)
	echo 'hist:keys=common_pid' >> "$TR/events/sched/sched_process_exec/trigger"
	snap "$T/before"
	expect_rc 0 nopctl catch --errors --slower-than 50ms -j -o "$T/c.json" do_sys_openat2 -- opener 20 /etc/hostname
	all_of summary '.gate == "kernel" and .roots == 20 and .caught == 0 and .hits == 0' "$T/c.json"
	snap "$T/after"
	same "$T/before" "$T/after" || fail "catch's gate not removed at the command's end"
	a=$(opener_loop)
	for how in INT KILL; do
		nopctl catch --errors --slower-than 1s -p "$a" do_sys_openat2 > /dev/null 2> "$T/bg.$how" &
		n=$!
		wait_for "$T/bg.$how" "the kernel judges"
		cat "$TR/kprobe_events" "$TR/synthetic_events" "$TR/events/nopctl_$n/catch0_ret/trigger" \
			"$TR/events/synthetic/nopctl_${n}_lat/trigger" > "$T/gate" 2>&1
		head -c 2000 "$TR/snapshot" | grep -c 'Snapshot is freed' >> "$T/gate"
		grep -q "^r[0-9]*:nopctl_$n/catch0_ret do_sys_openat2" "$T/gate" && grep -q "^nopctl_${n}_lat[[:space:]]u64 lat" "$T/gate" &&
			grep -q '^snapshot:count=1 if ret < 0' "$T/gate" && grep -q '^snapshot:count=1 if lat > 1000000' "$T/gate" &&
			[ "$(tail -n 1 "$T/gate")" = 0 ] ||
			{ kill -INT "$n"; reap "$n"; fail "$how: the gate is not in place: $(cat "$T/gate")"; }
		kill -$how "$n"
		reap "$n"
		[ $how = INT ] || expect_rc 0 nopctl reset
		snap "$T/after"
		same "$T/before" "$T/after" || fail "catch's gate not removed after SIG$how"
	done
	kill "$a"
	grep -q '^hist:keys=common_pid' "$TR/events/sched/sched_process_exec/trigger" || fail "another user's trigger went"
	echo '!hist:keys=common_pid' >> "$TR/events/sched/sched_process_exec/trigger"
}

# issue 42: catch -o DIR writes each catch as a trace.dat that trace-cmd
# and nopctl report read, its sleep whole; --before adds what came before
# and the context switches (sched_switch in the file)
t_catch_files() {
	top_buffer_may_expand # graph roots take the top level (instances lack set_graph_function)
	mkdir -p "$T/d"
	expect_rc 0 nopctl catch --slower-than 50ms --before 20ms -j -o "$T/d" hrtimer_nanosleep -- uslow slow 700
	# what the gate's buffer overwrote between catches is no loss: no
	# lost line beside a summary that says nothing was lost (issue 54 #3)
	! grep -q '"type":"lost"' "$T/out" || fail "lost lines beside 'nothing lost': $(grep -m2 '"type":"lost"' "$T/out")"
	k=$(over50)
	c=$(grep '^{' "$T/out" | jq -c 'select(.type == "catch" and (.file | test("/catch-[0-9]{4}.dat$")))' | wc -l)
	[ "$c" -ge 7 ] && [ "$c" -le "$k" ] ||
		fail "$c catch lines with a file, for 7 slow sleeps and $k naps over 50 ms: $(head -3 "$T/out")"
	n=0 slow=0 i=0
	while [ "$i" -lt "$c" ]; do
		i=$((i + 1))
		f=$T/d/catch-$(printf %04d "$i").dat
		d=$(grep '^{' "$T/out" | jq -s "map(select(.type == \"catch\"))[$((i - 1))].duration_ns")
		nopctl report -j "$f" 2> /dev/null > "$T/r.json"
		# the caught tree whole: its root's entry and exit, the call
		# and its duration as the catch line said
		jq -e -s "map(select(.type == \"exit\" and .func == \"hrtimer_nanosleep\" and .depth == 0 and .duration_ns == $d)) | length == 1" "$T/r.json" > /dev/null || continue
		n=$((n + 1))
		# a slow sleep (100 ms) went off the CPU: its context switches
		[ "$d" -ge 100000000 ] && trace-cmd report "$f" 2> /dev/null | grep -q 'sched_switch:.*prev_comm=uslow' && slow=$((slow + 1))
	done
	[ "$n" = "$c" ] || fail "$n of $c catch files hold their sleep whole"
	[ "$slow" -ge 7 ] || fail "$slow of the 7 slow sleeps' files hold their context switches"
	trace-cmd report "$T/d/catch-0001.dat" > "$T/tc" 2>&1 || fail "trace-cmd report: $(tail -2 "$T/tc")"
}

# issue 42: --outliers catches the 7 slow sleeps among 1500 (the first,
# call 0, comes in the warm-up and is not judged: 6), and a few % of the
# rest: p99 means 1 % of steady calls (the unit test holds that), but a
# stall of the emulator's host slows tens of 1 us sleeps in a row, each
# over a p99 taken before the stall (up to 40 of 1400 seen on 6.1 with a
# second guest beside it): 5 % still tells a p99 from a median; SIGUSR1 catches a sleep still running at once. The
# sleeps' trees are some 110,000 calls/s: -b 4096 holds them (6.12 lost
# 769 with the default buffer under emulation)
t_catch_outliers_and_signal() {
	top_buffer_may_expand # graph roots take the top level (instances lack set_graph_function)
	expect_rc 0 nopctl catch --outliers=100 -b 4096 -j -o "$T/o.json" hrtimer_nanosleep -- uslow slow 1500
	[ "$(jq -c 'select(.type == "catch" and .reason == "outlier" and .duration_ns > 50000000 and .duration_ns > .limit_ns)' "$T/o.json" | wc -l)" = 6 ] ||
		fail "not the 6 slow sleeps after the warm-up: $(jq -c 'select(.type == "catch")' "$T/o.json" | head -3)"
	all_of summary '.roots == 1500 and .warmup == 100 and .warming == 100 and .caught >= 6 and .caught <= 6 + 1400 / 20 and .gaps == 0' "$T/o.json"
	nopctl catch --slower-than 1h -j hrtimer_nanosleep -- uslow hang 5000 > "$T/h.out" 2> "$T/h.err" &
	n=$!
	wait_for "$T/h.err" "tracing 1 pattern"
	sleep 3
	kill -USR1 "$n"
	reap "$n"
	[ "$reaped" = 0 ] || fail "catch, SIGUSR1: exit $reaped: $(tail -3 "$T/h.err") $(grep '"type":"\(summary\|catch\)"' "$T/h.out")"
	grep '^{' "$T/h.out" > "$T/h.json"
	[ "$(jq -c 'select(.type == "catch" and .reason == "signal" and .function == "hrtimer_nanosleep" and .duration_ns == null and .calls >= 1)' "$T/h.json" | wc -l)" = 1 ] ||
		fail "SIGUSR1: no catch of the open sleep: $(head -c 600 "$T/h.out")"
	[ "$(grep -n '"type":"catch"' "$T/h.out" | cut -d: -f1)" -lt "$(grep -n '^stuck 1' "$T/h.out" | cut -d: -f1)" ] ||
		fail "SIGUSR1: the catch came only at the end: $(grep -v '^{' "$T/h.out")"
	[ "$(jq -c 'select(.type == "exit" and .func == "hrtimer_nanosleep" and .depth == 0 and .duration_ns > 4000000000)' "$T/h.json" | wc -l)" = 1 ] ||
		fail "SIGUSR1: the sleep's tree did not end whole"
	all_of summary '.caught == 1 and .roots == 101 and .gaps == 0' "$T/h.json"
}

# issue 43: every sched_switch of a task that the kernel recorded is in its
# tree (graph -p, no root: the whole task), as many as trace-cmd records
# of the same run in its own instance. uoff is blocked reading a line while
# both attach and again when both stop: the two see the same window
t_events_switches_as_trace_cmd() {
	clock=$(sed 's/.*\[\(.*\)\].*/\1/' "$TR/trace_clock")
	kb=$(sed 's/.*expanded: \([0-9]*\).*/\1/' "$TR/buffer_size_kb")
	mkfifo "$T/in"
	uoff 20 < "$T/in" > "$T/uoff.out" &
	u=$!
	exec 4> "$T/in"
	wait_for "$T/uoff.out" "^pid $u"
	nopctl graph -j -o "$T/g.json" -b 4096 -p "$u" -e sched:sched_switch 2> "$T/g.err" &
	n=$!
	trace-cmd record -B nopcmp -e sched:sched_switch -P "$u" -o "$T/tc.dat" > "$T/tc.log" 2>&1 &
	tc=$!
	wait_for "$T/g.err" "tracing"
	# trace-cmd's own words go to a file, buffered: its instance's event on
	i=0
	until [ "$(cat "$TR/instances/nopcmp/events/sched/sched_switch/enable" 2> /dev/null)" = 1 ]; do
		i=$((i + 1))
		[ $i -lt 300 ] || fail "trace-cmd did not start: $(cat "$T/tc.log")"
		usleep 100000
	done
	sleep 1
	echo go >&4
	wait_for "$T/uoff.out" "^done"
	sleep 1
	kill -INT "$n" "$tc"
	reap "$n"
	[ "$reaped" = 0 ] || fail "graph -p -e: exit $reaped: $(tail -3 "$T/g.err")"
	reap "$tc"
	exec 4>&-
	wait "$u"
	trace_cmd_reset
	all_of summary '.lost == 0 and .overrun == 0 and .gaps == 0' "$T/g.json"
	mine=$(jq -c "select(.type == \"event\" and .name == \"sched:sched_switch\" and (.fields.prev_pid == $u or .fields.next_pid == $u))" "$T/g.json" | wc -l)
	# uoff on either side: "uoff:123 [120] S ==> swapper/0:0 [120]" (the
	# sched plugin) or "prev_pid=123 ... next_pid=0 ..." (the format's)
	theirs=$(trace-cmd report "$T/tc.dat" 2> /dev/null | grep 'sched_switch:' | grep -c -E "[:]$u \[[0-9]+\]|_pid=$u( |\$)")
	echo "# $KVER: switches of uoff: nopctl $mine, trace-cmd $theirs" >&3
	[ "$mine" -ge 80 ] && [ "$mine" = "$theirs" ] || fail "nopctl showed $mine switches of uoff, trace-cmd recorded $theirs"
	[ "$(jq -c "select(.type == \"event\" and .pid != $u)" "$T/g.json" | wc -l)" = 0 ] ||
		fail "a switch of uoff outside its tree: $(jq -c "select(.type == \"event\" and .pid != $u)" "$T/g.json" | head -3)"
	# each of its 20 sleeps (nanosleep's system call) switched out, sleeping, inside it
	[ "$(jq -c "select(.type == \"event\" and .depth > 0 and .fields.prev_pid == $u and .fields.prev_state == 1)" "$T/g.json" | wc -l)" -ge 40 ] ||
		fail "uoff's waits are not inside its calls"
}

# issue 43: events in the trees, text and JSON, in trace's lines, in
# stats' table, in a recording both readers show; a filter reaches only
# the event's own filter file, in nopctl's instance
t_events_beside_calls() {
	top_buffer_may_expand # graph roots take the top level (instances lack set_graph_function)
	expect_rc 0 nopctl graph -j -o "$T/g.json" -e sched:sched_switch hrtimer_nanosleep -- uslow slow 7
	[ "$(jq -c 'select(.type == "event" and .name == "sched:sched_switch" and .depth > 0 and .fields.prev_comm == "uslow" and .fields.prev_state == 1)' "$T/g.json" | wc -l)" -ge 7 ] ||
		fail "the 7 slow sleeps' switches are not in their trees: $(grep '"event"' "$T/g.json" | head -2)"
	expect_rc 0 nopctl graph -e sched:sched_switch hrtimer_nanosleep -- uslow slow 7
	grep -q '|   .*/\* sched_switch: prev_comm="uslow", prev_pid=[0-9]*, prev_prio=[0-9]*, prev_state=1, next_comm=' "$T/out" ||
		fail "no sched_switch comment in the text tree: $(grep sched_switch "$T/out" | head -2)"
	# trace: an event line per open's system call entry, as many as opens
	expect_rc 0 nopctl trace -j -o "$T/t.json" -e syscalls:sys_enter_openat do_sys_openat2 -- opener 20 /etc/hostname
	o=$(jq -c 'select(.type == "func" and .func == "do_sys_openat2" and .comm == "opener")' "$T/t.json" | wc -l)
	[ "$o" -ge 20 ] && [ "$(jq -c 'select(.type == "event" and .name == "syscalls:sys_enter_openat" and .comm == "opener")' "$T/t.json" | wc -l)" = "$o" ] ||
		fail "trace -e: $o opens, $(jq -c 'select(.type == "event")' "$T/t.json" | wc -l) events"
	# a filter, in nopctl's instance's filter file only, while it runs
	echo 1 > "$TR/events/sched/sched_wakeup/enable"
	nopctl trace -j -o "$T/f.json" -e sched:sched_switch --filter 'prev_state == 1' -e sched:sched_wakeup do_sys_openat2 -- uslow slow 70 2> "$T/f.err" &
	n=$!
	wait_for "$T/f.err" "tracing"
	f=$(cat "$TR/instances/nopctl-$n/events/sched/sched_switch/filter" "$TR/instances/nopctl-$n/events/sched/sched_switch/enable" 2>&1)
	top=$(cat "$TR/events/sched/sched_switch/filter" "$TR/events/sched/sched_switch/enable" "$TR/events/sched/sched_wakeup/enable")
	reap "$n"
	[ "$reaped" = 0 ] || fail "trace -e --filter: exit $reaped: $(tail -2 "$T/f.err")"
	[ "$f" = "$(printf 'prev_state == 1\n1')" ] || fail "the instance's sched_switch: $f"
	[ "$top" = "$(printf 'none\n0\n1')" ] || fail "the top level's events changed while nopctl ran: $top"
	[ "$(cat "$TR/events/sched/sched_wakeup/enable")" = 1 ] || fail "another user's sched_wakeup was turned off"
	echo 0 > "$TR/events/sched/sched_wakeup/enable"
	echo > "$TR/trace" # the other user's wakeups, read: nopctl keeps unread ones
	[ "$(jq -c 'select(.type == "event" and .name == "sched:sched_switch")' "$T/f.json" | wc -l)" -ge 7 ] &&
		[ "$(jq -c 'select(.type == "event" and .name == "sched:sched_switch" and .fields.prev_state != 1)' "$T/f.json" | wc -l)" = 0 ] ||
		fail "trace -e --filter: events that do not pass it, or none"
	# stats: the events' counts
	expect_rc 0 nopctl stats -j -o "$T/s.json" -e sched:sched_switch hrtimer_nanosleep -- uslow slow 7
	jq -e -s 'any(.type == "event_stats" and .name == "sched:sched_switch" and .count >= 7) and
		(map(select(.type == "event_stats") | .count) | add) == map(select(.type == "summary"))[0].kernel_events' "$T/s.json" > /dev/null ||
		fail "stats -e: $(grep event_stats "$T/s.json")"
	# recorded: nopctl report and trace-cmd report show every one
	expect_rc 0 nopctl record -G -o "$T/r.dat" -e sched:sched_switch hrtimer_nanosleep -- uslow slow 7
	rec=$(sed -n 's/.* and \([0-9]*\) kernel events.*/\1/p' "$T/err")
	[ "${rec:-0}" -ge 14 ] || fail "record -e: $(tail -1 "$T/err")"
	expect_rc 0 nopctl report -j "$T/r.dat"
	[ "$(jq -c 'select(.type == "event" and .name == "sched:sched_switch")' "$T/out" | wc -l)" = "$rec" ] || fail "nopctl report: not the $rec events"
	[ "$(trace-cmd report "$T/r.dat" 2> /dev/null | grep -c 'sched_switch:')" = "$rec" ] || fail "trace-cmd report: not the $rec events"
	expect_rc 0 nopctl report -F chrome "$T/r.dat"
	[ "$(jq '[.traceEvents[] | select(.ph == "i" and .name == "sched:sched_switch")] | length' "$T/out")" = "$rec" ] ||
		fail "chrome: not an instant event per switch"
}

# issue 43: off-CPU time against the truth: uoff measures each phase's
# wall time and its own CPU time (wall less CPU: the time it was off CPU).
# 50 sleeps of 2 ms in work() and 50 waits of ~5 ms on a pipe in
# readpipe(): their off-CPU time within 10 % of uoff's, sleeping (S);
# spin()'s 50 x 2 ms of CPU: its time on CPU within 10 % of uoff's. The
# same for the kernel's hrtimer_nanosleep under work()
t_offcpu_exact() {
	echo go | nopctl stats -j -o "$T/s.json" /usr/bin/uoff:work /usr/bin/uoff:readpipe /usr/bin/uoff:spin -- uoff 50 > "$T/u.out" 2> "$T/s.err" ||
		fail "stats: $(tail -2 "$T/s.err")"
	set -- $(grep '^done' "$T/u.out")
	[ $# = 7 ] || fail "uoff said $(cat "$T/u.out")"
	ww=$2 wc=$3 rw=$4 rc=$5 sw=$6 sc=$7
	row() { jq -c "select(.type == \"func_stats\" and .func == \"$1\")" "$T/s.json"; }
	off_work=$(row work | jq '.off_cpu_ns')
	off_read=$(row readpipe | jq '.off_cpu_ns')
	on_spin=$(row spin | jq '.total_ns - .off_cpu_ns')
	# the intervals the kernel gave no switch back, no switch out
	unpaired() { jq -r -s 'map(select(.type == "summary"))[0] | "\(.offcpu_unpaired // 0) back, \(.offcpu_unpaired_out // 0) out"' "$1"; }
	echo "# $KVER: off CPU: work $off_work ns (uoff $((ww - wc))), readpipe $off_read ($((rw - rc))); spin on CPU $on_spin ($sc);" \
		"switches not recorded: $(unpaired "$T/s.json")" >&3
	within() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(b > 0 && a >= b * 0.9 && a <= b * 1.1) }'; }
	within "$off_work" "$((ww - wc))" || fail "work(): off CPU $off_work ns, uoff was off $((ww - wc))"
	within "$off_read" "$((rw - rc))" || fail "readpipe(): off CPU $off_read ns, uoff was off $((rw - rc))"
	within "$on_spin" "$sc" || fail "spin(): on CPU $on_spin ns, uoff ran $sc"
	[ "$(row work | jq '.calls')" = 50 ] && row work | jq -e '.waits.S >= 0.9 * .off_cpu_ns' > /dev/null &&
		row readpipe | jq -e '.waits.S >= 0.9 * .off_cpu_ns' > /dev/null || fail "the waits are not sleeps: $(row work) $(row readpipe)"
	# the kernel's side: the sleeps' system call, off CPU as long
	top_buffer_may_expand # graph roots take the top level (instances lack set_graph_function)
	echo go | nopctl graph -j -o "$T/k.json" hrtimer_nanosleep -- uoff 50 > "$T/u.out" 2> "$T/k.err" || fail "graph, kernel: $(tail -2 "$T/k.err")"
	p=$(sed -n 's/^pid //p' "$T/u.out")
	set -- $(grep '^done' "$T/u.out")
	# uoff's own sleeps (its feeder, a child it forked, sleeps too)
	off_k=$(jq -s "map(select(.pid == $p and .func == \"hrtimer_nanosleep\" and .depth == 0 and .duration_ns != null) | .off_cpu_ns // 0) | add" "$T/k.json")
	echo "# $KVER: off CPU: hrtimer_nanosleep $off_k ns (uoff's work $(($2 - $3))); switches not recorded: $(unpaired "$T/k.json")" >&3
	within "$off_k" "$(($2 - $3))" || fail "hrtimer_nanosleep: off CPU $off_k ns, uoff's work was off $(($2 - $3))"
	jq -e -s 'map(select(.type == "summary"))[0] | .off_cpu_ns > 0 and .off_cpu.S > 0 and .root_ns >= .off_cpu_ns' "$T/k.json" > /dev/null ||
		fail "the summary's on and off CPU: $(jq -c 'select(.type == "summary")' "$T/k.json")"
	# in the tree: each sleep's line says it
	echo go | nopctl graph hrtimer_nanosleep -- uoff 5 > "$T/g.out" 2> "$T/g.err" || fail "graph: $(tail -2 "$T/g.err")"
	p=$(sed -n 's/^pid //p' "$T/g.out")
	[ "$(grep "uoff-$p " "$T/g.out" | grep -c '} /\* hrtimer_nanosleep \*/ /\* off CPU [0-9.]* [mu]s (S')" = 5 ] ||
		fail "not an off CPU comment on each sleep: $(grep 'hrtimer_nanosleep \*/' "$T/g.out" | head -5); $(tail -1 "$T/g.err")"
}

# nopctl diff against a known truth (issue 44): udiff-a and udiff-b are one
# source built twice, B adding one extra() call (times), calling
# loop_body() (umask) 10 times as often and making slow() (nanosleep)
# sleep twice as long: 10 ms against 5 (udiff N 5), as a loaded host
# delays a guest's wake-up by its scheduler's slice, a few ms, which
# 1 ms against 2 does not outlast. Five runs a side are compared, as user functions
# (uprobes) and as the kernel's trees of the program's own system calls
# (function_graph): exactly the three changes, slow()'s wait the self
# time of the path in nanosleep's tree the task slept in (where the
# scheduler may itself take other paths on a longer sleep: 6.12's
# deadline server arms its timer; and an interrupt's work that lands in a
# system call is no part of it: ten times the calls, ten times the
# interrupts in them, RCU's batches freed there by softirqs grow); and one
# build's runs against each
# other (five and five, each a mix of runs that came after B's and after
# A's: a set of only the one or the other differs, in page-cache work),
# in the trees of every system call it makes (exec's and exit's too), show
# nothing. One run a side cannot tell a
# change from the run's own conditions: the kernel's paths differ from
# run to run (a slab's slow path, an interrupt's entry), and under the
# emulator a phase of a run can be half again as slow; of each pair of
# single runs the test holds the counts of user functions exact and
# slow() changed.
t_diff_exact() {
	top_buffer_may_expand # graph roots take the top level (instances lack set_graph_function)
	want_u='["main>loop_body","calls"] ["main>slow","time"] ["main>work>extra","only_b"]'
	dchanges() { # A B: $got the changed paths, sorted, one line; $drc the exit
		drc=0
		nopctl diff -j "$1" "$2" > "$T/d.json" 2> "$T/d.err" || drc=$?
		got=$(jq -c 'select(.type == "diff_path" and .changed) | [(.path | join(">")), (.change | join("+"))]' "$T/d.json" | sort | tr '\n' ' ' | sed 's/ $//')
	}
	rec() { # FILE ARGS...: a recording, its exit 0
		_f=$1
		shift
		nopctl record -G -o "$_f" "$@" > /dev/null 2> "$T/r.err" || fail "record $*: exit $?: $(tail -2 "$T/r.err")"
	}
	# a guest's first runs of a program are slow (the emulator translates
	# each code path the first time it runs; a run's own conditions, which
	# one run a side cannot tell from a change): one run of each first, not
	# compared
	for s in a b; do
		rec "$T/warm$s.dat" "/usr/bin/udiff-$s:*" -- "udiff-$s" 50 5
	done
	slow_row() { # [FILE]: main>slow's p and medians, A and B
		jq -c 'select(.type == "diff_path" and (.path | join(">")) == "main>slow") | [.p, .self_median_a_ns, .self_median_b_ns]' "$@"
	}
	ua= ub= ka= kb= slow_seen=0 per_run=
	for i in 1 2 3 4 5; do
		for s in a b; do
			rec "$T/u$s$i.dat" "/usr/bin/udiff-$s:*" -- "udiff-$s" 50 5
			rec "$T/k$s$i.dat" __x64_sys_umask __x64_sys_times __x64_sys_nanosleep __x64_sys_clock_nanosleep -- "udiff-$s" 50 5
		done
		# two more runs of udiff-a, back to back: the first after
		# udiff-b's (another program's pages were the newest), the
		# second after udiff-a's; which set each goes to alternates
		for k in $((i % 2 * 5 + i)) $(((1 - i % 2) * 5 + i)); do
			rec "$T/alla$k.dat" -b 16384 '__x64_sys_*' -- udiff-a
		done
		ua=$ua${ua:+,}$T/ua$i.dat ub=$ub${ub:+,}$T/ub$i.dat ka=$ka${ka:+,}$T/ka$i.dat kb=$kb${kb:+,}$T/kb$i.dat
		dchanges "$T/ua$i.dat" "$T/ub$i.dat"
		counts=$(echo "$got" | tr ' ' '\n' | sed 's/+time"/"/' | grep -v '"time"\]$' | tr '\n' ' ')
		[ "$drc" = 6 ] && [ "$counts" = '["main>loop_body","calls"] ["main>work>extra","only_b"] ' ] ||
			fail "run $i, user functions: exit $drc, changed $got (wanted $want_u): $(head -c 300 "$T/d.err")"
		# one run a side, slow()'s 20 sleeps of 5 ms against 20 of 10
		# ms: a guest's stalls can stretch a few of A's past B's, so
		# most pairs, not every one
		if echo "$got" | grep -qF '["main>slow","time"]'; then
			slow_seen=$((slow_seen + 1))
			per_run="$per_run $(slow_row "$T/d.json")"
		else
			echo "# $KVER: run $i, one run a side: slow()'s time not a change: $(nopctl diff --all -j "$T/ua$i.dat" "$T/ub$i.dat" | slow_row)" >&3
		fi
		for r in u k all; do
			dchanges "$T/${r}a$i.dat" "$T/${r}a$i.dat"
			[ "$drc" = 0 ] && [ -z "$got" ] || fail "run $i ($r) against itself: exit $drc, changed $got"
		done
	done
	echo "# $KVER: slow() in each pair judged changed, [p, median A, median B]:$per_run" >&3
	[ "$slow_seen" -ge 3 ] || fail "one run a side: slow()'s time a change in $slow_seen pairs of 5"
	dchanges "$ua" "$ub"
	[ "$got" = "$want_u" ] || fail "user functions, five runs a side: changed $got; slow(): $(slow_row "$T/d.json")," \
		"per run: $(for i in 1 2 3 4 5; do nopctl diff --all -j "$T/ua$i.dat" "$T/ub$i.dat" | slow_row; done)"
	funcs=$(jq -c 'select(.type == "diff_func" and .changed) | .func' "$T/d.json" | sort | tr '\n' ' ')
	[ "$funcs" = '"extra" "loop_body" "slow" ' ] || fail "user functions, five runs a side: functions changed: $funcs"
	dchanges "$ka" "$kb"
	echo "# $KVER: system calls, five runs a side: $got" >&3
	[ "$drc" = 6 ] || fail "system calls: exit $drc: $(head -c 300 "$T/d.err")"
	echo "$got" | tr ' ' '\n' | awk '
		$0 == "[\"__x64_sys_times\",\"only_b\"]" { e++; next }
		$0 == "[\"__x64_sys_umask\",\"calls\"]" { l++; next }
		/^\["__x64_sys_(clock_)?nanosleep>.*","time"\]$/ { s++; next }
		/^\["__x64_sys_(clock_)?nanosleep>/ { next } # the scheduler itself, on a longer sleep
		/>(irq_enter_rcu|irq_exit_rcu|handle_softirqs|__sysvec_[a-z_]*)[>"]/ { next } # an interrupt in a call
		{ other++ }
		END { exit !(e == 1 && l == 1 && s >= 1 && !other) }' ||
		fail "system calls, five runs a side: changed $got; wanted times only in B, umask's calls, and time under nanosleep only"
	dchanges "$T/alla1.dat,$T/alla2.dat,$T/alla3.dat,$T/alla4.dat,$T/alla5.dat" \
		"$T/alla6.dat,$T/alla7.dat,$T/alla8.dat,$T/alla9.dat,$T/alla10.dat"
	[ "$drc" = 0 ] && [ -z "$got" ] ||
		fail "udiff-a's system calls, runs 1-5 against 6-10: exit $drc, changed $got $(jq -c 'select(.type == "diff_func" and .changed)' "$T/d.json" | head -c 1500)"
}

# issue 54 #3: with the gate, what the buffer overwrote between catches is
# no loss: 20,000 opens between 7 failures overrun it (6.1: lost lines of
# 260,000 and 309,000 events on stdout beside "nothing lost"); one story
t_catch_gate_overwrites_not_lost() {
	top_buffer_may_expand # graph roots take the top level (instances lack set_graph_function)
	mkdir -p "$T/d"
	rc=0
	nopctl catch --errors -o "$T/d" do_sys_openat2 -- uslow fail 20000 > "$T/out" 2> "$T/err" || rc=$?
	[ "$rc" = 0 ] || [ "$rc" = 5 ] || fail "exit $rc: $(tail -3 "$T/err")"
	grep -q "judged in the kernel" "$T/err" || fail "not gated: $(tail -2 "$T/err")"
	grep -q ", nothing lost," "$T/err" || fail "the summary: $(tail -1 "$T/err")"
	! grep -q 'LOST' "$T/out" || fail "lost lines beside 'nothing lost': $(grep -m2 LOST "$T/out")"
	[ "$(ls "$T/d" | grep -c '^catch-[0-9]*\.dat$')" -ge 1 ] || fail "no catch file: $(head -3 "$T/out")"
}
