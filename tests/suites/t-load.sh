# t-load.sh - sustained load (issue 18): one process opens a file exactly
# 5,000 times at 1,000 opens/s, then 5,000 times at 2,000/s. Every call
# arrives (10,000 do_sys_openat2 roots or calls, no call shown without its
# entry or exit), or the loss is counted: a non-zero lost count and exit
# 5. The truth is the helper's count, never nopctl's own counters. One
# capture per mode, both rates in it: each function_graph switch patches
# every call site (15-20 s under TCG). A capture's output is 100 MB or
# more: busybox grep takes 1.6-2.4 s natively for a pass with a regular
# expression over 100 MB of JSON lines, 0.05 s for a fixed string (-F),
# so every pass over it is -F, a regular expression only on what that
# kept.
LOAD="opener 5000 /etc/hostname 1000 5000 2000"
WANT=10000

# summary_lost FILE: the JSON summary's loss counters, summed (gaps:
# events the kernel lost without counting them, seen as calls missing
# their entry or exit mid-capture; 6.1 drops a few per million)
summary_lost() {
	grep -F '"type":"summary"' "$1" | jq '.lost + .overrun + .dropped + (.unread // 0) + (.gaps // 0)'
}

# text_lost FILE: the same from a text summary (a counter is there only
# when it is not zero: "nothing lost" otherwise), one number a line
text_lost() {
	sed -n 's/.*, lost \([0-9]*\) (page headers).*/\1/p' "$1"
	sed -n 's/.*, overrun \([0-9]*\).*/\1/p' "$1"
	sed -n 's/.*, dropped \([0-9]*\).*/\1/p' "$1"
	sed -n 's/.* \([0-9]*\) left unread.*/\1/p; s/.* \([0-9]*\) events lost by the kernel.*/\1/p' "$1"
}
sum_lines() { awk '{ n += $1 } END { print n + 0 }'; }

# peak: how full the kernel's buffer got, from the last JSON summary in $T/out
peak() {
	_p=$(grep -F '"type":"summary"' "$T/out" 2>/dev/null | jq -r '.buffer_peak_pct // empty' 2>/dev/null)
	[ -z "$_p" ] || echo ", buffer $_p % full at most"
}

# json_complete FILE: no call shown, or counted, without its entry or exit
json_complete() {
	grep -F '"type":"summary"' "$1" | jq -e '.no_entry == 0 and .no_exit == 0' > /dev/null ||
		fail "calls without entry or exit counted, none lost: $(grep -F '"type":"summary"' "$1")"
	! grep -Fq '"not seen"' "$1" || fail "calls shown without their entry or exit, none lost"
}

# exact_or_counted WHAT GOT RC LOST: WANT arrived with exit 0 and nothing
# counted lost; or a loss counted, exit 5, and no more calls missing than
# events lost
exact_or_counted() {
	echo "# $KVER $1: $2 of $WANT calls, $4 events counted lost, exit $3$(peak)" >&3
	if [ "$4" = 0 ]; then
		[ "$3" = 0 ] || fail "$1: exit $3 with nothing lost"
		[ "$2" = "$WANT" ] || fail "$1: $2 of $WANT calls arrived and no loss was counted"
	else
		[ "$3" = 5 ] || fail "$1: $4 events lost, exit $3 (not 5)"
		[ "$2" -le "$WANT" ] || fail "$1: $2 calls, more than the $WANT made"
		[ $(($2 + $4)) -ge "$WANT" ] || fail "$1: $(($WANT - $2)) calls missing, $4 events counted lost"
	fi
}

t_load_trace_every_call() {
	rc=0
	nopctl trace -j do_sys_openat2 -- $LOAD > "$T/out" 2> "$T/err" || rc=$?
	got=$(grep -F '"func":"do_sys_openat2' "$T/out" | grep -c '"type":"func",.*"func":"do_sys_openat2"')
	exact_or_counted "trace -j" "$got" "$rc" "$(summary_lost "$T/out")"
}

t_load_graph_text_every_call() {
	top_buffer_may_expand # graph roots take the top level (instances lack set_graph_function)
	rc=0
	nopctl graph do_sys_openat2 -- $LOAD > "$T/out" 2> "$T/err" || rc=$?
	# (a call its task was switched out in ends "/* off CPU ... */")
	got=$(grep -F 'do_sys_openat2' "$T/out" | grep -Ec '\| (\} /\* do_sys_openat2 \*/|do_sys_openat2\(\);)( /\* off CPU [^*]*\*/)?$')
	lost=$(text_lost "$T/err" | sum_lines)
	grep -q 'stopped by' "$T/err" || { cat "$T/err"; fail "no summary"; }
	if [ "$lost" = 0 ]; then
		grep -F -e 'in a gap' -e 'not seen' "$T/out" | head -3
		grep -Fq -e 'in a gap' -e 'not seen' "$T/out" && fail "calls shown without their entry or exit, none lost"
		grep -q 'calls whose' "$T/err" && fail "the summary counts calls without entry or exit"
	fi
	exact_or_counted "graph" "$got" "$rc" "$lost"
}

t_load_graph_json_every_call() {
	top_buffer_may_expand
	rc=0
	nopctl graph -j do_sys_openat2 -- $LOAD > "$T/out" 2> "$T/err" || rc=$?
	got=$(grep -F '"func":"do_sys_openat2","depth":0,' "$T/out" |
		grep -E '"type":"(exit|call)".*"func":"do_sys_openat2","depth":0,' |
		grep -v '"context_switch"' | grep -vc '"entry":"not seen"')
	lost=$(summary_lost "$T/out")
	[ -n "$lost" ] || { tail -3 "$T/out"; fail "no summary"; }
	[ "$lost" != 0 ] || json_complete "$T/out"
	exact_or_counted "graph -j" "$got" "$rc" "$lost"
}

t_load_stats_every_call() {
	top_buffer_may_expand
	rc=0
	nopctl stats -j do_sys_openat2 -- $LOAD > "$T/out" 2> "$T/err" || rc=$?
	got=$(jq -s 'map(select(.type == "func_stats" and .func == "do_sys_openat2"))[0].calls' "$T/out")
	exact_or_counted "stats -j" "$got" "$rc" "$(summary_lost "$T/out")"
}

# one recording at both rates, read back as text, JSON and stats, and by
# trace-cmd: the file holds every call, or its summary counts the loss
# (the recording's counters, and the report's gaps: a recording only
# counts pages, so events the kernel lost uncounted show when it is read)
t_load_record_report_every_call() {
	top_buffer_may_expand
	rc=0
	nopctl record -G -o "$T/r.dat" do_sys_openat2 -- $LOAD > "$T/rec" 2>&1 || rc=$?
	grep -q 'stopped by' "$T/rec" || { cat "$T/rec"; fail "no summary"; }
	rrc=0
	nopctl report -j "$T/r.dat" > "$T/out" 2> "$T/err" || rrc=$?
	[ "$rc" = 0 ] && rc=$rrc
	lost=$( { text_lost "$T/rec"; summary_lost "$T/out"; } | sum_lines)
	got=$(grep -F '"func":"do_sys_openat2","depth":0,' "$T/out" |
		grep -E '"type":"(exit|call)".*"func":"do_sys_openat2","depth":0,' | grep -vc '"entry":"not seen"')
	exact_or_counted "record + report -j" "$got" "$rc" "$lost"
	[ "$lost" = 0 ] || return 0
	json_complete "$T/out"
	expect_rc 0 nopctl report --stats -j "$T/r.dat"
	got=$(jq -s 'map(select(.type == "func_stats" and .func == "do_sys_openat2"))[0].calls' "$T/out")
	[ "$got" = "$WANT" ] || fail "report --stats: $got calls of $WANT"
	trace-cmd report "$T/r.dat" > "$T/tc" 2>&1 || { tail -3 "$T/tc"; fail "trace-cmd cannot read it"; }
	got=$(grep -F 'do_sys_openat2(' "$T/tc" | grep -Ec 'do_sys_openat2\(\) \{|do_sys_openat2\(\);')
	[ "$got" = "$WANT" ] || fail "trace-cmd report: $got roots of $WANT"
}

# rotation (issue 54 #7): `record -G --max-size 8M --rotate 3` of 20,000
# unpaced opens loses no more than a plain record of the same run in the
# same boot (it lost a third to a half of the events while files were
# finished); every kept file whole and within the bound on disk
t_load_record_rotate_loses_no_more() {
	top_buffer_may_expand
	prc=0
	nopctl record -G -o "$T/p.dat" do_sys_openat2 -- opener 20000 > "$T/plain" 2>&1 || prc=$?
	plost=$(text_lost "$T/plain" | sum_lines)
	pcalls=$(sed -n 's/^nopctl: \([0-9]*\) events.*/\1/p' "$T/plain")
	pbytes=$(wc -c < "$T/p.dat")
	# the plain file holds every open, or its loss is counted
	got=$(nopctl report -q --stats -j "$T/p.dat" | jq -s '[.[] | select(.type == "func_stats" and .func == "do_sys_openat2") | .calls][0] // 0')
	[ $((got + plost)) -ge 20000 ] || fail "plain: $got opens, $plost events counted lost"
	rm "$T/p.dat" # the guest's memory holds its files
	mkdir "$T/rec"
	rrc=0
	nopctl record -G -o "$T/rec/r.dat" --max-size 8M --rotate 3 do_sys_openat2 -- opener 20000 > "$T/rot" 2>&1 || rrc=$?
	rlost=$(text_lost "$T/rot" | sum_lines)
	rcalls=$(sed -n 's/^nopctl: \([0-9]*\) events.*/\1/p' "$T/rot")
	rbytes=0
	kept=0
	for f in $(ls "$T/rec" | grep -E '^r\.dat\.[0-9]+$'); do
		b=$(wc -c < "$T/rec/$f")
		[ "$b" -le 8388608 ] || fail "$f: $b bytes on disk, more than 8M"
		rbytes=$((rbytes + b))
		c=$(nopctl report -q --stats -j "$T/rec/$f" | jq -s '[.[] | select(.type == "func_stats" and .func == "do_sys_openat2") | .calls][0] // 0')
		kept=$((kept + c))
		trace-cmd report "$T/rec/$f" > /dev/null 2>&1 || fail "trace-cmd cannot read $f"
	done
	grep -h "stopped by" "$T/plain" "$T/rot" | sed "s/^/# /" >&3
	echo "# $KVER plain: $pcalls events, $plost lost, exit $prc, $pbytes bytes; rotate 8M x3: $rcalls events, $rlost lost, exit $rrc, $rbytes bytes kept, $kept opens in them" >&3
	# trace-cmd on the same opens, for the figures (its overruns, its file)
	trace_cmd_record -p function_graph -g do_sys_openat2 -o "$T/tc.dat" -F opener 20000
	echo "# $KVER trace-cmd: overrun $(sed -n 's/.*overrun: *\([0-9]*\).*/\1/p' "$T/tc.log" | sum_lines), $(wc -c < "$T/tc.dat") bytes" >&3
	grep -q 'older removed' "$T/rot" || { cat "$T/rot"; fail "no file was rotated away"; }
	# the loss a run of this size may differ by from one run to the next
	[ "$rlost" -le $((plost + pcalls / 100 + 1000)) ] ||
		fail "rotation lost $rlost events, a plain record $plost (of $pcalls events)"
	[ "$kept" -gt 0 ] && [ "$kept" -le 20000 ] || fail "$kept opens in the kept files"
}
