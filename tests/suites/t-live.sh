# t-live.sh - long runs (issue 45): stats -i, top in a real terminal
# (tmux), bounded recordings. The truth is opener's own count of opens.

# the sum of the interval_stats objects' calls of FUNC, and how many
# intervals had some
interval_calls() { jq -s --arg f "$2" '[.[] | select(.type == "interval_stats" and .func == $f) | .calls] | add // 0' "$1"; }

t_stats_interval_every_call_once() {
	top_buffer_may_expand # graph roots take the top level (instances lack set_graph_function)
	# 40 opens at 20 a second: about 2 s, 4 intervals of 500 ms
	expect_rc 0 nopctl stats -j -D 1 -i 500ms do_sys_openat2 -- opener 40 /dev/null 20
	jq -e . "$T/out" > /dev/null || fail "not JSON lines"
	[ "$(interval_calls "$T/out" do_sys_openat2)" = 40 ] || { grep interval "$T/out"; fail "the intervals' calls are not 40"; }
	[ "$(jq -s '[.[] | select(.type == "func_stats" and .func == "do_sys_openat2") | .calls][0]' "$T/out")" = 40 ] ||
		fail "the whole run is not 40 calls"
	# one interval object per interval, numbered from 1, each with its time
	n=$(jq -s '[.[] | select(.type == "interval")] | length' "$T/out")
	[ "$n" -ge 4 ] || fail "$n intervals in a run of 2 s at 500 ms"
	jq -e -n '[inputs | select(.type == "interval")] | [.[].interval] == [range(1; length + 1)]
		and all(.[]; (.time | test("^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:.]+Z$")) and .span_ns > 0)' "$T/out" > /dev/null ||
		{ grep '"interval"' "$T/out"; fail "intervals not numbered 1.. with times"; }
	# no interval holds all of them: they came over time
	jq -e -n '[inputs | select(.type == "interval_stats" and .func == "do_sys_openat2")] | length >= 3 and all(.[]; .calls < 40)' "$T/out" > /dev/null ||
		{ grep interval_stats "$T/out"; fail "the calls did not spread over the intervals"; }
	# text: a dated block per interval, then the whole run's table
	expect_rc 0 nopctl stats -D 1 -i 500ms do_sys_openat2 -- opener 20 /dev/null 20
	[ "$(grep -cE '^-- [0-9-]+T[0-9:.]+Z interval [0-9]+ \(' "$T/out")" -ge 2 ] || { cat "$T/out"; fail "no dated blocks"; }
	grep -A 2 '^-- whole run' "$T/out" | grep -Eq '^do_sys_openat2 +20 ' || { cat "$T/out"; fail "no whole-run table of 20"; }
}

t_stats_interval_refused_where_it_cannot() {
	expect_rc 2 nopctl stats -i 5ms do_sys_openat2 -- opener 1
	grep -q "10ms or more" "$T/err" || fail "no hint for a too short interval"
	expect_rc 2 nopctl stats -i 1s --callers do_sys_openat2 -- opener 1
	grep -q -- "--callers" "$T/err" || fail "-i with --callers not refused by name"
}

# tmux_screen: the pane's text now
tmux_screen() { tmux capture-pane -p -t live; }

# wait_screen TEXT: until the pane shows TEXT (30 s at most)
wait_screen() {
	_i=0
	until tmux_screen | grep -q -- "$1"; do
		_i=$((_i + 1))
		[ $_i -lt 300 ] || { tmux_screen; fail "the screen never showed '$1'"; }
		usleep 100000
	done
}

t_top_in_a_terminal() {
	top_buffer_may_expand
	# opener at 100 opens a second for 60 s, under top in a 150x30 pane
	tmux new-session -d -s live -x 150 -y 30 \
		"nopctl top -D 1 do_sys_openat2 -- opener 6000 /dev/null 100 2> $T/err; echo rc=\$? > $T/rc; sleep 600"
	wait_screen 'CALLS/s'
	wait_screen 'interval 2 '
	row=$(tmux_screen | grep -E ' do_sys_openat2$' || true)
	rate=$(echo "$row" | awk '{ print $1 }')
	# 100 a second, within what the emulator's timing allows
	[ "$rate" -ge 50 ] && [ "$rate" -le 150 ] || { tmux_screen; fail "calls/s $rate, not about 100"; }
	tmux_screen | grep -q '^q quit  space pause  / filter  sort:' || { tmux_screen; fail "no help line"; }
	# a sort key, a filter that matches nothing, then cleared; pause
	tmux send-keys -t live n
	wait_screen 'sort: name'
	tmux send-keys -t live / z z z Enter
	wait_screen 'no function matches the filter'
	tmux send-keys -t live / BSpace BSpace BSpace o p e n Enter
	wait_screen 'filter: open'
	tmux_screen | grep -q ' do_sys_openat2$' || { tmux_screen; fail "the filter hid do_sys_openat2"; }
	tmux send-keys -t live Space
	wait_screen '\[paused\]'
	at=$(tmux_screen | head -1)
	sleep 2
	[ "$(tmux_screen | head -1)" = "$at" ] || fail "the screen moved while paused"
	tmux send-keys -t live Space
	# Enter: do_sys_openat2's own screen; its histogram's counts add up
	# to the whole run's calls on the same screen (each screen is drawn
	# whole; a capture may meet one half drawn: three tries)
	tmux send-keys -t live Enter
	wait_screen '^whole run '
	i=0
	until tmux_screen > "$T/screen" && sed -n 2p "$T/screen" | grep -q '^do_sys_openat2$' &&
		[ "$(awk -F'|' '/^  .* - .*\|/ { n += $2 } END { print n + 0 }' "$T/screen")" = \
		  "$(awk '/^whole run/ { print $3 }' "$T/screen")" ]; do
		i=$((i + 1))
		[ $i -lt 3 ] || { cat "$T/screen"; fail "do_sys_openat2's screen: the histogram is not its calls"; }
		usleep 300000
	done
	tmux send-keys -t live Escape
	wait_screen 'CALLS/s'
	tmux send-keys -t live q
	wait_for "$T/rc" rc=
	grep -q rc=0 "$T/rc" || { cat "$T/rc" "$T/err"; fail "top did not exit 0 on q"; }
	# the screen given back: the whole run's table printed after it
	wait_screen '^-- whole run'
	wait_screen '^do_sys_openat2 '
	grep -q 'stopped by quit' "$T/err" || { cat "$T/err"; fail "no 'stopped by quit'"; }
	tmux kill-server
}

t_top_ctrl_c_restores() {
	top_buffer_may_expand
	tmux new-session -d -s live -x 120 -y 20 \
		"nopctl top -D 1 do_sys_openat2 -- opener 6000 /dev/null 100 2> $T/err; echo rc=\$? > $T/rc; sleep 600"
	wait_screen 'interval 1 '
	tmux send-keys -t live C-c
	# the pane's shell dies of the SIGINT too: nopctl's stderr tells
	wait_for "$T/err" 'stopped by SIGINT'
	pid=$(pidof nopctl || true)
	[ -z "$pid" ] || reap_any "$pid"
	tmux kill-server 2> /dev/null || true # the pane's shell may have died of it
	# the harness checks that tracefs is as it was after this test
}

t_top_not_a_terminal_is_stats_interval() {
	top_buffer_may_expand
	expect_rc 0 nopctl top -i 500ms -j -D 1 do_sys_openat2 -- opener 20 /dev/null 20
	[ "$(interval_calls "$T/out" do_sys_openat2)" = 20 ] || { cat "$T/out"; fail "top | cat: not 20 calls in its intervals"; }
	grep -q "a table every interval" "$T/err" || fail "top did not say it prints tables"
}

# reap_any PID: a process not ours ends (30 s at most)
reap_any() {
	_i=0
	while [ -d "/proc/$1" ]; do
		_i=$((_i + 1))
		[ $_i -lt 300 ] || fail "pid $1 did not exit"
		usleep 100000
	done
}

# files_of DIR: the recording's files there, one a line
files_of() { ls "$1" | grep -E '^r\.dat(\.[0-9]+)?$'; }

# opens_in FILE: do_sys_openat2's calls whose entry is in FILE (a call
# cut by a new file has its entry in one and its return in the next)
opens_in() {
	_rc=0
	nopctl report -j "$1" > "$T/rep" 2> /dev/null || _rc=$?
	[ $_rc = 0 ] || { tail -n 1 "$T/rep" >&2; echo "FAIL: nopctl report $1: exit $_rc" >&2; exit 1; }
	jq -s '[.[] | select(.func == "do_sys_openat2" and (.type == "entry" or .type == "call") and .entry != "not seen")] | length' "$T/rep"
}

t_record_rotate_bounded_and_every_file_read() {
	top_buffer_may_expand
	mkdir "$T/rec"
	# watch the directory while it is written: never more than 3 files
	(while :; do files_of "$T/rec" | wc -l; usleep 20000; done) > "$T/counts" 2>/dev/null &
	w=$!
	# version 6: the files' number is the subject, compressed files hold
	# four times the opens (t_load_record_rotate_loses_no_more: version 7);
	# a reader starved beside other guests loses events, counted (exit 5)
	expect_ok_or_lost nopctl record --compression none -G -b 4096 -o "$T/rec/r.dat" --max-size 1M --rotate 3 do_sys_openat2 -- opener 3000 /dev/null 300
	kill $w
	[ "$(sort -n "$T/counts" | tail -1)" -le 3 ] || fail "more than 3 files at a time: $(sort -n "$T/counts" | uniq -c)"
	grep -q '^nopctl: files: .*r\.dat\.[0-9]* (.*older removed' "$T/err" || { cat "$T/err"; fail "no file list with removed ones"; }
	[ "$(files_of "$T/rec" | wc -l)" = 3 ] || { ls -l "$T/rec"; fail "not 3 files kept"; }
	for f in $(files_of "$T/rec"); do
		[ "$(wc -c < "$T/rec/$f")" -le 1048576 ] || fail "$f is larger than 1M"
		# each file whole: read with no loss but the kernel's counted
		# one (a call cut at its start, or its CPU cut apart, is no gap)
		report_reads "$T/rec/$f" || fail "$f not read whole"
		trace-cmd report "$T/rec/$f" > /dev/null 2>&1 || fail "trace-cmd cannot read $f"
	done
	# the newest is the highest number and holds the run's last opens
	last=$(files_of "$T/rec" | sort -t. -k3 -n | tail -1)
	nopctl report -q -j "$T/rec/$last" | tail -n 40 | grep -q '"func":"do_sys_openat2"' || fail "$last does not end in opens"
}

# issue 54 #7: a recording compressed as trace-cmd 3's are (version 7,
# zstd chunks), read by both with every open; version 6 on request
t_record_compressed_read_by_both() {
	for z in zstd none; do
		expect_rc 0 nopctl record --compression $z -G -o "$T/$z.dat" do_sys_openat2 -- opener 300 /dev/null 300
		n=$(opens_in "$T/$z.dat")
		[ "$n" = 300 ] || fail "--compression $z: nopctl reads $n opens, not 300"
		n=$(trace-cmd report "$T/$z.dat" 2> /dev/null | grep -c 'do_sys_openat2() {' || true)
		[ "$n" = 300 ] || fail "--compression $z: trace-cmd reads $n opens, not 300"
	done
	v=$(dd if="$T/zstd.dat" bs=1 skip=10 count=1 2> /dev/null)$(dd if="$T/zstd.dat" bs=1 skip=18 count=4 2> /dev/null)
	[ "$v" = 7zstd ] || fail "the default file begins '$v', not version 7 with zstd"
	[ "$(dd if="$T/none.dat" bs=1 skip=10 count=1 2> /dev/null)" = 6 ] || fail "--compression none: not version 6"
	s7=$(wc -c < "$T/zstd.dat")
	s6=$(wc -c < "$T/none.dat")
	echo "# $KVER 300 opens: version 7 (zstd) $s7 bytes, version 6 $s6" >&3
	[ $((s7 * 3)) -lt "$s6" ] || fail "compressed $s7 bytes, uncompressed $s6: not 3x smaller"
}

t_record_rotate_every_call_in_some_file() {
	top_buffer_may_expand
	mkdir "$T/rec"
	# every file kept: each of opener's 1500 opens has its entry in one,
	# and no file says a call was lost: with the guest's CPUs read far
	# apart (a busy host), opener moving from the CPU cut later to the
	# one cut sooner ends calls in one file that began in the next.
	# -b 4096: the subject is rotation; a starved reader's loss is counted
	# (uncompressed: version 6 files, more of them for the opens)
	expect_rc 0 nopctl record --compression none -G -b 4096 -o "$T/rec/r.dat" --max-size 1M --rotate 1000 do_sys_openat2 -- opener 1500 /dev/null 300
	n=$(files_of "$T/rec" | wc -l)
	[ "$n" -ge 3 ] || { ls -l "$T/rec"; fail "only $n files of 1M"; }
	total=0
	for f in $(files_of "$T/rec"); do
		c=$(opens_in "$T/rec/$f")
		total=$((total + c))
	done
	[ "$total" = 1500 ] || fail "the files hold $total opens, not 1500"
}

# issue 55: a recording's pages are walked once after they are written,
# counted and the addresses their events name noted; each file keeps
# those symbols only: one file, one counted as its pages came (-c), and
# rotated files written on their own thread, each read by trace-cmd by
# name
t_record_keeps_the_symbols_its_events_name() {
	top_buffer_may_expand
	expect_rc 0 nopctl record -G -o "$T/a.dat" do_sys_openat2 -- opener 50 /dev/null
	only_named_syms "$T/a.dat" do_sys_openat2
	expect_rc 0 nopctl record -G -c 100000000 -o "$T/b.dat" do_sys_openat2 -- opener 50 /dev/null
	only_named_syms "$T/b.dat" do_sys_openat2
	mkdir "$T/rec"
	expect_rc 0 nopctl record --compression none -G -b 4096 -o "$T/rec/r.dat" --max-size 1M --rotate 1000 do_sys_openat2 -- opener 1500 /dev/null 300
	n=0
	for f in $(files_of "$T/rec"); do
		only_named_syms "$T/rec/$f" do_sys_openat2
		c=$(trace-cmd report "$T/rec/$f" 2> /dev/null | grep -c 'do_sys_openat2() {' || true)
		[ "$c" -gt 0 ] || fail "trace-cmd names no do_sys_openat2 in $f"
		n=$((n + 1))
	done
	[ "$n" -ge 3 ] || { ls -l "$T/rec"; fail "only $n files of 1M"; }
}

t_record_split_every_call_in_one_file() {
	top_buffer_may_expand
	mkdir "$T/rec"
	# 60 opens over 3 s, a file a second: each open whole in one file
	expect_rc 0 nopctl record -G -o "$T/rec/r.dat" --split 1s do_sys_openat2 -- opener 60 /dev/null 20
	n=$(files_of "$T/rec" | wc -l)
	[ "$n" -ge 3 ] || { ls -l "$T/rec"; fail "$n files in 3 s at --split 1s"; }
	total=0
	for f in $(files_of "$T/rec"); do
		c=$(nopctl report -q --stats -j "$T/rec/$f" | jq -s '[.[] | select(.type == "func_stats" and .func == "do_sys_openat2") | .calls][0] // 0')
		total=$((total + c))
	done
	[ "$total" = 60 ] || fail "the files hold $total opens, not 60"
}

# a module loaded while a rotation runs: the files written after it name
# its functions (dummy's, called by its init under do_init_module), as
# a recording of one file does
t_record_split_names_a_module_loaded_later() {
	top_buffer_may_expand
	! grep -q '^dummy ' /proc/modules || rmmod dummy
	mkdir "$T/rec"
	nopctl record -G -o "$T/rec/r.dat" --split 1s do_init_module > "$T/out" 2> "$T/err" &
	n=$!
	wait_for "$T/err" tracing
	sleep 1
	insmod "/modules/$KVER/dummy.ko" || fail "cannot load dummy for $KVER"
	sleep 3
	kill -INT "$n"
	reap "$n"
	rmmod dummy
	[ "$reaped" = 0 ] || fail "record: exit $reaped: $(tail -3 "$T/err")"
	for f in $(files_of "$T/rec"); do nopctl report -q -j "$T/rec/$f"; done > "$T/r.json"
	jq -r 'select(.type == "entry" or .type == "call" or .type == "exit") | .func' "$T/r.json" | sort -u > "$T/funcs"
	grep -q '^do_init_module$' "$T/funcs" || fail "no do_init_module in the files: $(head -5 "$T/funcs")"
	grep -q '^dummy_' "$T/funcs" || fail "no function of dummy named: $(grep -c '^0x' "$T/funcs") unnamed, $(grep -m 5 '^0x' "$T/funcs")"
}

# the size bound ends the recording, not COMMAND (issue 54 #6): it runs
# on untraced to its own end and status
t_record_max_size_stops() {
	top_buffer_may_expand
	expect_rc 7 nopctl record -G -o "$T/r.dat" --max-size 1M do_sys_openat2 -- sh -c 'opener 6000 /dev/null 1000; echo done; exit 7'
	[ "$(wc -c < "$T/r.dat")" -le 1048576 ] || fail "r.dat is larger than 1M"
	grep -q 'stopped by size limit' "$T/err" || { cat "$T/err"; fail "not stopped by the size limit"; }
	grep -qx done "$T/out" && grep -q 'command runs on untraced' "$T/err" || { cat "$T/err"; fail "the command did not run on"; }
	report_reads "$T/r.dat" || fail "nopctl cannot read r.dat"
	trace-cmd report "$T/r.dat" > /dev/null 2>&1 || fail "trace-cmd cannot read r.dat"
	expect_rc 2 nopctl record -o "$T/x.dat" --rotate 3 do_sys_openat2 -- opener 1
	grep -q -- '--max-size' "$T/err" || fail "--rotate alone not refused"
}

# Issue 45 measured the kernel's own function profiler against stats: none
# of Debian's three kernels is built with it (docs/kernel-notes.md). A
# kernel that has it is to be measured again before this test changes.
t_no_function_profiler_here() {
	[ ! -e "$TR/function_profile_enabled" ] && [ ! -d "$TR/trace_stat" ] ||
		fail "this kernel has the function profiler: measure it against stats (issue 45) and update docs/kernel-notes.md"
}
