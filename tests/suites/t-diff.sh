# t-diff.sh - nopctl diff on a real kernel (issue 44), held to udiff-a and
# udiff-b's known changes.

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
