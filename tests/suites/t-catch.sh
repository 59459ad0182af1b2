# t-catch.sh - nopctl catch on a real kernel (issues 42 and 54): only the
# slow, failing or outlying root calls, each tree whole; the kernel's gate
# set up and given back; catch files.

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
	# the kernel judges kernel roots where it has hist triggers (not
	# Debian's 5.10: there catch says why it reads every call)
	case $KVER in
	5.10.*) gate='.gate == "user"' hits= ;;
	*) gate='.gate == "kernel" and .missed == 0' hits=' and .hits == .caught' ;;
	esac
	expect_rc_json 0 "$T/k.json" nopctl catch --slower-than 50ms -j -o "$T/k.json" hrtimer_nanosleep -- uslow slow 700
	case $KVER in 5.10.*)
		grep -q "every call read and judged here (this kernel has no hist triggers)" "$T/err" ||
			{ cat "$T/err"; fail "no reason for the gate's absence"; } ;;
	esac
	k=$(over50)
	[ "$k" != 7 ] && echo "# $KVER: $k naps over 50 ms, 7 of them slow" >&3
	all_of summary ".roots == 700 and .caught >= 7 and .caught <= $k and .lost == 0 and .overrun == 0 and .gaps == 0 and $gate$hits" "$T/k.json"
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
	all_of summary ".roots == 707 and .caught == 7 and $gate" "$T/e.json"
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
	# an hour: no open reaches it, so the count stays 1 while it runs (an
	# open stalled over 1 s by a loaded emulator's host was caught once,
	# spending it until nopctl armed it again)
	for how in INT KILL; do
		nopctl catch --errors --slower-than 1h -p "$a" do_sys_openat2 > "$T/bg.out" 2> "$T/bg.$how" &
		n=$!
		wait_for "$T/bg.$how" "the kernel judges"
		cat "$TR/kprobe_events" "$TR/synthetic_events" "$TR/events/nopctl_$n/catch0_ret/trigger" \
			"$TR/events/synthetic/nopctl_${n}_lat/trigger" > "$T/gate" 2>&1
		# (grep -c prints 0 and exits 1 where nothing matches: the 0 wanted)
		head -c 2000 "$TR/snapshot" | grep -c 'Snapshot is freed' >> "$T/gate" || true
		grep -q "^r[0-9]*:nopctl_$n/catch0_ret do_sys_openat2" "$T/gate" && grep -q "^nopctl_${n}_lat[[:space:]]u64 lat" "$T/gate" &&
			grep -q '^snapshot:count=1 if ret < 0' "$T/gate" && grep -q '^snapshot:count=1 if lat > 3600000000' "$T/gate" &&
			[ "$(tail -n 1 "$T/gate")" = 0 ] ||
			{ kill -INT "$n"; reap "$n"; fail "$how: the gate is not in place: $(cat "$T/gate" "$T/bg.out")"; }
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
		rc=0
		nopctl report -j "$f" 2> "$T/r.err" > "$T/r.json" || rc=$?
		[ "$rc" = 0 ] || fail "report of $f: exit $rc: $(tail -n 3 "$T/r.err") $(grep '"type":"summary"' "$T/r.json")"
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
	only_named_syms "$T/d/catch-0001.dat" hrtimer_nanosleep
	# without --before the session still records switches (a call's
	# time off CPU): the file holds their format, trace-cmd names them
	mkdir -p "$T/e"
	expect_rc 0 nopctl catch --slower-than 50ms -c 1 -o "$T/e" hrtimer_nanosleep -- uslow slow 140
	trace-cmd report "$T/e/catch-0001.dat" > "$T/tc" 2>&1 || fail "trace-cmd report: $(tail -2 "$T/tc")"
	grep -q 'sched_switch:.*prev_comm=uslow' "$T/tc" && ! grep -q 'UNKNOWN EVENT' "$T/tc" ||
		fail "a catch file without --before: its switches $(grep -c 'UNKNOWN EVENT' "$T/tc") unknown events, $(grep -c sched_switch: "$T/tc") named"
}

# issue 42: --outliers catches the 7 slow sleeps among 1500 (the first,
# call 0, comes in the warm-up and is not judged: 6), and a few % of the
# rest: p99 means 1 % of steady calls (the unit test holds that), but a
# stall of the emulator's host slows tens of 1 us sleeps in a row, each
# over a p99 taken before the stall (up to 40 of 1400 seen on 6.1 with a
# second guest beside it): a tenth still tells a p99 from a median; every
# call caught was over its p99 then; SIGUSR1 catches a sleep still running at once. The
# sleeps' trees are some 110,000 calls/s: -b 4096 holds them (6.12 lost
# 769 with the default buffer under emulation)
t_catch_outliers_and_signal() {
	top_buffer_may_expand # graph roots take the top level (instances lack set_graph_function)
	expect_rc 0 nopctl catch --outliers=100 -b 4096 -j -o "$T/o.json" hrtimer_nanosleep -- uslow slow 1500
	[ "$(jq -c 'select(.type == "catch" and .reason == "outlier" and .duration_ns > 50000000 and .duration_ns > .limit_ns)' "$T/o.json" | wc -l)" = 6 ] ||
		fail "not the 6 slow sleeps after the warm-up: $(jq -c 'select(.type == "catch")' "$T/o.json" | head -3)"
	[ "$(jq -c 'select(.type == "catch" and (.reason != "outlier" or .duration_ns <= .limit_ns))' "$T/o.json" | wc -l)" = 0 ] ||
		fail "caught under its p99: $(jq -c 'select(.type == "catch" and .duration_ns <= .limit_ns)' "$T/o.json" | head -3)"
	all_of summary '.roots == 1500 and .warmup == 100 and .warming == 100 and .caught >= 6 and .caught <= 6 + 1400 / 10 and .gaps == 0' "$T/o.json"
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
