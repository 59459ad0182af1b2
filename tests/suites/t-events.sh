# t-events.sh - kernel events beside the calls and off-CPU time (issue
# 43), held to trace-cmd's recording and to a program's own clock.

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
	theirs=$(trace-cmd report "$T/tc.dat" 2> /dev/null | grep 'sched_switch:' | grep -c -E "[:]$u \[[0-9]+\]|_pid=$u( |\$)" || true)
	echo "# $KVER: switches of uoff: nopctl $mine, trace-cmd $theirs" >&3
	[ "$mine" -ge 80 ] && [ "$mine" = "$theirs" ] || fail "nopctl showed $mine switches of uoff, trace-cmd recorded $theirs"
	[ "$(jq -c "select(.type == \"event\" and .pid != $u)" "$T/g.json" | wc -l)" = 0 ] ||
		fail "a switch of uoff outside its tree: $(jq -c "select(.type == \"event\" and .pid != $u)" "$T/g.json" | head -3)"
	# each time it slept (nanosleep's and read's system calls) it switched
	# out inside the call: every sleeping switch at a depth. How many there
	# are is the machine's: a sleep is skipped when its 2 ms timer, or the
	# feeder's reply 5 ms away, is already past by the time the task gets
	# to schedule(); most are there
	sl="select(.type == \"event\" and .fields.prev_pid == $u and .fields.prev_state == 1"
	inside=$(jq -c "$sl and .depth > 0)" "$T/g.json" | wc -l)
	slept=$(jq -c "$sl)" "$T/g.json" | wc -l)
	[ "$inside" = "$slept" ] && [ "$slept" -ge 20 ] ||
		fail "uoff's waits are not inside its calls: $inside of $slept sleeping switches, at depth 0: $(jq -c "$sl and .depth == 0)" "$T/g.json" | head -2)"
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
	# between the sleeps' own 50 x 2 ms (nanosleep sleeps at least that,
	# off CPU from just after it begins) and all uoff's work was off CPU:
	# a preemption on the way back to user space or between two calls is
	# off CPU but outside hrtimer_nanosleep (27 ms of 155 on arm64 6.12,
	# nopctl's reader sharing the guest's CPUs)
	awk -v k="$off_k" -v all="$(($2 - $3))" 'BEGIN { exit !(k >= 0.98 * 50 * 2000000 && k <= all * 1.1) }' ||
		fail "hrtimer_nanosleep: off CPU $off_k ns, outside [98 ms, all uoff's work was off, $(($2 - $3)) ns]"
	jq -e -s 'map(select(.type == "summary"))[0] | .off_cpu_ns > 0 and .off_cpu.S > 0 and .root_ns >= .off_cpu_ns' "$T/k.json" > /dev/null ||
		fail "the summary's on and off CPU: $(jq -c 'select(.type == "summary")' "$T/k.json")"
	# in the tree: each sleep's line says it
	echo go | nopctl graph hrtimer_nanosleep -- uoff 5 > "$T/g.out" 2> "$T/g.err" || fail "graph: $(tail -2 "$T/g.err")"
	p=$(sed -n 's/^pid //p' "$T/g.out")
	[ "$(grep "uoff-$p " "$T/g.out" | grep -c '} /\* hrtimer_nanosleep \*/ /\* off CPU [0-9.]* [mu]s (S')" = 5 ] ||
		fail "not an off CPU comment on each sleep: $(grep 'hrtimer_nanosleep \*/' "$T/g.out" | head -5); $(tail -1 "$T/g.err")"
}
