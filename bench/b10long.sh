#!/bin/sh
# b10long.sh [N] - bench B10: long runs (issue 45), natively through
# uprobes (as root, on a kernel with uprobes; all of it in one boot):
#  1. stats -i 1s over N calls of bench_fn (ubench N, as fast as it
#     goes): nopctl's RSS each second, and its CPU per call (its rusage
#     less the workload's own), against stats without -i on the same N;
#  2. top in a tmux pane at 100,000 calls a second: its CPU as a share of
#     one core over 20 s, against stats -i 1s on the same workload, and
#     the time between two screens (the interval is 1 s; the first change,
#     from the screen's opening line, left out);
#  3. record -G --max-size 8M --rotate 3 over calls that make about
#     200 MB: the most files and the largest one seen while it ran (a
#     look every 20 ms), each file read by nopctl report and trace-cmd
#     report, the newest holding the last calls.
# Prints one JSON object per figure (B10_ONLY=record: the third alone).
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
b=${NOPCTL_BUILD:-$top/build}
n=${1:-10000000}
h=$b/tests/helpers
T=$(mktemp -d)
trap 'tmux kill-session -t b10 2> /dev/null || true; rm -rf "$T"' EXIT
export LD_LIBRARY_PATH=$h
fn="$h/libubench.so:bench_fn"

# cpu_of PID: its user+system clock ticks so far
cpu_of() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }
hz=$(getconf CLK_TCK)

# B10_ONLY=record: the third alone
if [ "${B10_ONLY:-}" != record ]; then
# 1. stats with and without -i: RSS each second, CPU per call
for iv in "-i 1s" ""; do
	rm -f "$T/ru"
	# shellcheck disable=SC2086
	"$h/rusage" -o "$T/ru" "$b/nopctl" stats -q -j $iv "$fn" -- "$h/ubench" "$n" > "$T/out" 2> /dev/null &
	r=$!
	sleep 1
	pid=$(pgrep -x nopctl | head -1)
	: > "$T/rss"
	while kill -0 "$pid" 2> /dev/null; do
		awk '/^VmRSS/ { print $2 }' "/proc/$pid/status" >> "$T/rss" 2> /dev/null || true
		sleep 1
	done
	wait "$r" || true
	cpu=$(grep '"loop_ns"' "$T/out" | jq -r .cpu_s)
	got=$(jq -s 'map(select(.type == "func_stats" and .func == "bench_fn"))[0].calls' "$T/out")
	# RSS after the first minute: its spread
	jq -c -n --arg iv "${iv:-none}" --argjson n "$n" --argjson got "$got" --argjson prog "$cpu" \
		--slurpfile ru "$T/ru" --rawfile rss "$T/rss" \
		'($rss | split("\n") | map(select(length > 0) | tonumber)) as $r
		 | ($r[60:] // []) as $late
		 | {figure: "B10 stats", interval: $iv, calls: $n, calls_read: $got, wall_s: $ru[0].wall_s,
		    rss_kb_first: $r[0], rss_kb_at_60s: ($r[59] // null), rss_kb_last: $r[-1],
		    rss_kb_spread_after_60s: (if ($late | length) > 0 then ($late | max) - ($late | min) else null end),
		    reader_ns_per_call: ((($ru[0].user_s + $ru[0].sys_s) - $prog) * 1e9 / $n | floor)}'
done

# 2. top at 100,000 calls a second, and stats -i beside it
calls=4000000 # 40 s at 100,000 a second
for what in top stats; do
	if [ "$what" = top ]; then
		tmux new-session -d -s b10 -x 160 -y 40 "LD_LIBRARY_PATH=$h $b/nopctl top '$fn' -- $h/ubench $calls 100000 2> /dev/null; sleep 60"
	else
		"$b/nopctl" stats -q -i 1s "$fn" -- "$h/ubench" "$calls" 100000 > /dev/null 2>&1 &
	fi
	sleep 5
	pid=$(pgrep -x nopctl | head -1)
	c0=$(cpu_of "$pid")
	t0=$(date +%s.%N)
	: > "$T/screens"
	last=
	while [ "$(echo "$(date +%s.%N) - $t0 < 20" | bc)" = 1 ]; do
		if [ "$what" = top ]; then
			s=$(tmux capture-pane -p -t b10 | head -1 | grep -o 'interval [0-9]*' || true)
			[ "$s" != "$last" ] && { date +%s.%N >> "$T/screens"; last=$s; }
		fi
		sleep 0.02
	done
	c1=$(cpu_of "$pid")
	t1=$(date +%s.%N)
	jq -c -n --arg what "$what" --argjson cpu "$(( c1 - c0 ))" --argjson hz "$hz" \
		--argjson secs "$(echo "$t1 - $t0" | bc)" --rawfile sc "$T/screens" \
		'($sc | split("\n") | map(select(length > 0) | tonumber)) as $t
		 | [range(2; $t | length) as $i | $t[$i] - $t[$i - 1]] as $gaps
		 | {figure: "B10 top", tool: $what, rate: 100000, cpu_share_of_a_core: ($cpu / $hz / $secs * 1000 | floor / 1000),
		    screens: ($t | length), gap_s_min: ($gaps | min), gap_s_max: ($gaps | max)}'
	if [ "$what" = top ]; then tmux kill-session -t b10; else wait || true; fi
	pkill -f "ubench $calls" 2> /dev/null || true
	sleep 1
done

fi

# 3. record --max-size 8M --rotate 3 over about 200 MB
mkdir "$T/rec"
calls=${B10_RECORD_CALLS:-3200000}
(while :; do
	ls -l "$T/rec" 2> /dev/null | awk '/r\.dat\.[0-9]+$/ { n++; if ($5 > m) m = $5 } END { print n + 0, m + 0 }'
	sleep 0.02
done) > "$T/watch" &
w=$!
rm -f "$T/ru"
"$h/rusage" -o "$T/ru" "$b/nopctl" record -G -o "$T/rec/r.dat" --max-size 8M --rotate 3 "$fn" -- "$h/ubench" "$calls" \
	> /dev/null 2> "$T/err" || true
kill "$w"
readable=0 tc=0 files=0
for f in "$T"/rec/r.dat.*; do
	files=$((files + 1))
	"$b/nopctl" report -q --stats "$f" > /dev/null 2>&1 && readable=$((readable + 1))
	trace-cmd report "$f" > /dev/null 2>&1 && tc=$((tc + 1))
done
newest=$(ls "$T/rec" | sort -t. -k3 -n | tail -1)
last_calls=$("$b/nopctl" report -q --stats -j "$T/rec/$newest" | jq -s 'map(select(.type == "func_stats"))[0].calls // 0')
removed=$(sed -n 's/.*; \([0-9]*\) older removed.*/\1/p' "$T/err")
jq -c -n --argjson calls "$calls" --argjson files "$files" --argjson readable "$readable" --argjson tc "$tc" \
	--argjson removed "${removed:-0}" --argjson last "$last_calls" --arg summary "$(tail -1 "$T/err")" \
	--slurpfile ru "$T/ru" --rawfile watch "$T/watch" \
	'($watch | split("\n") | map(select(length > 0) | split(" ") | map(tonumber))) as $w
	 | {figure: "B10 record", calls: $calls, files_at_end: $files, removed: $removed,
	    written_mb: (($removed + $files) * 8), most_files_seen: ([$w[][0]] | max),
	    largest_file_seen: ([$w[][1]] | max), readable_by_nopctl: $readable, readable_by_trace_cmd: $tc,
	    newest_file_calls: $last, wall_s: $ru[0].wall_s, summary: $summary}'
