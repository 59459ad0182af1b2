# t-bench.sh - the benchmark suite (issue 5), run in the guest by
# bench/run.sh: each t_bench_* measures nopctl and its peers in the same
# boot and sends "BENCH {json}" lines to the host; it fails only when a
# measurement could not be made, never on a target.

TDIR=/sys/kernel/tracing
RUNS=$(sed -n 's/.*nopctl.runs=\([0-9]*\).*/\1/p' /proc/cmdline)
RUNS=${RUNS:-3}
# nopctl.scale=0.01 shrinks every workload, for a quick try of the suite
SCALE=$(sed -n 's/.*nopctl.scale=\([0-9.]*\).*/\1/p' /proc/cmdline)
SCALE=${SCALE:-1}
# nopctl.bench=3,4 runs only those figures (bench/run.sh keeps the others' results)
ONLY=$(sed -n 's/.*nopctl.bench=\([0-9a-z,]*\).*/\1/p' /proc/cmdline)
selected() { [ -z "$ONLY" ] || echo ",$ONLY," | grep -q ",$1,"; }
scaled() { echo "$1 $SCALE" | awk '{ printf "%d", $1 * $2 + 1 }'; }
BKB=4096 # per-CPU buffer, KB, for every tool

# a figure's line; it says how many runs its median is of (B2 and B4 run once)
bench() {
	case $1 in *'"runs":'*) ;; *) set -- "$1,\"runs\":$RUNS" ;; esac
	echo "BENCH {\"kernel\":\"$KVER\",$1}" >&3
	echo "BENCH $1"
}
median() { sort -n | awk '{ a[NR] = $1 } END { print (NR ? a[int((NR + 1) / 2)] : "null") }'; }
cpu_s() { jq '.user_s + .sys_s' "$1"; }

# function_graph events in a text view (kernel, trace-cmd, perf, nopctl
# all print them alike): "f() {" one, "}" one, "f();" two (entry and exit)
graph_events() {
	awk '{ sub(/[ \t]+$/, "") } /\{$/ { n++; next } /\);$/ { n += 2; next } /\}$|\}[ ]*\/\*.*\*\/$/ { n++ } END { print n + 0 }' "$1"
}

# do_sys_openat2 trees delivered, in any tool's text view: the truth to
# hold them against is the opener's own count of calls (other tasks'
# opens, system-wide, add a few)
graph_roots() {
	grep -Ec 'do_sys_openat2\(\) \{[[:space:]]*$|do_sys_openat2\(\);[[:space:]]*$' "$1"
}

# CPU seconds used so far by process $1 and every descendant alive
# (trace-cmd reads each CPU in a child of its own)
tree_cpu() {
	cat /proc/[0-9]*/stat 2> /dev/null | awk -v root="$1" '
		{ par[$1] = $4; cpu[$1] = $14 + $15 }
		END { for (p in par) { q = p; while (q && q != root && q in par && q != par[q]) q = par[q]
			if (q == root) n += cpu[p] } printf "%.2f", n / 100 }'
}

# lost events in the top-level buffer now (what trace-cmd, perf and cat use)
top_lost() {
	cat "$TDIR"/per_cpu/cpu*/stats | awk '/^overrun:|^dropped events:/ { n += $NF } END { print n + 0 }'
}

# events per do_sys_openat2 call of the opener workload (function_graph)
per_open() {
	[ -n "${PER:-}" ] && return
	nopctl record -q -G -b 16384 -o "$T/cal.dat" do_sys_openat2 -- opener 200 > "$T/cal.out" 2>&1 ||
		{ cat "$T/cal.out"; fail "calibration record failed"; }
	PER=$(nopctl report --stats -j "$T/cal.dat" | jq -s '[.[] | select(.type == "func_stats") | .calls] | add * 2 / 200 | floor')
	[ "$PER" -gt 0 ] || fail "calibration: $PER events per open"
	echo "events per open: $PER"
}

# the trace-cmd releases in the guest: "VERSION COMMAND" per line, the
# host's (Debian 12's) first, then those tests/vm/peers.sh fetched
tracecmds() {
	echo "$(trace-cmd -v 2>&1 | sed -n 's/.*version \([0-9.]*\).*/\1/p' | head -n 1) trace-cmd"
	for _tc in /usr/bin/trace-cmd-*; do [ -x "$_tc" ] && echo "${_tc##*/trace-cmd-} $_tc"; done
	return 0
}

# b1 FILE WRITER TOOL...: each tool's CPU decoding FILE (written by WRITER)
b1() {
	_f=$1 _w=$2
	shift 2
	events=$(nopctl report --stats -j "$_f" | jq -s '[.[] | select(.type == "func_stats") | .calls] | add * 2')
	[ "$events" -ge "$(scaled 1000000)" ] || fail "$_w's file: only $events events"
	# the tools take turns, one run each per round (as in B5): a ratio's
	# two sides then share the guest's drifts within the boot
	set -- "nopctl report" "nopctl report -j" "nopctl report --stats" "$@"
	# BENCH_BASELINE: an earlier build in the same turns
	command -v nopctl-baseline > /dev/null &&
		set -- "$@" "nopctl-baseline report" "nopctl-baseline report -j" "nopctl-baseline report --stats"
	_k=0
	for tool in "$@"; do _k=$((_k + 1)); rm -f "$T/r.$_k.json"; done
	_lost=false
	for i in $(seq "$RUNS"); do
		_k=0
		for tool in "$@"; do
			_k=$((_k + 1))
			# 5: the file says events were lost while it was recorded
			# (its reader fell behind): every event it holds was read
			rusage -o "$T/r.$_k.json" $tool "$_f" > /dev/null 2>&1 || {
				_rc=$?
				case $tool:$_rc in nopctl*:5) _lost=true ;; *) fail "$tool: exit $_rc" ;; esac
			}
		done
	done
	_k=0
	for tool in "$@"; do
		_k=$((_k + 1))
		cpus=$(jq -s -c 'map(.user_s + .sys_s)' "$T/r.$_k.json")
		m=$(jq '.user_s + .sys_s' "$T/r.$_k.json" | median)
		rss=$(jq -s 'map(.maxrss_kb) | max' "$T/r.$_k.json")
		bench "\"bench\":\"B1\",\"file\":\"$_w\",\"bytes\":$(wc -c < "$_f"),\"tool\":\"${tool#/usr/bin/}\",\"events\":$events,\"recorded_with_loss\":$_lost,\"cpu_s\":$cpus,\"median_cpu_s\":$m,\"events_per_cpu_s\":$(echo "$events $m" | awk '{ printf "%.0f", $1 / $2 }'),\"maxrss_kb\":$rss"
		[ "$tool" = "nopctl report --stats" ] && stats_cpu=$m
	done
	b1_zstd_floor "$_f" "$_w" "$events" "$stats_cpu"
}

# The part of a compressed file's reading no reader can avoid: libzstd
# (or zlib) decompressing its pages. Its share of nopctl report --stats's
# CPU (perf's samples in the library) times that run's median CPU, as
# events per CPU-second: the speed of decompression alone, the ceiling of
# any reader of this file on this CPU.
b1_zstd_floor() {
	case $2 in nopctl) return 0 ;; esac
	perf record -q -e cpu-clock -F 999 -o "$T/z.data" nopctl report --stats "$1" > /dev/null 2>&1 ||
		{ _rc=$?; [ "$_rc" = 5 ] || fail "perf record of nopctl report --stats: exit $_rc"; }
	share=$(perf report -i "$T/z.data" --sort dso --stdio 2> /dev/null |
		awk '/libzstd|libz\.so/ { sub(/%/, "", $1); n += $1 } END { printf "%.2f", n }')
	rm -f "$T/z.data"
	echo "$share" | awk '{ exit !($1 > 0) }' || fail "no samples in libzstd or zlib"
	bench "\"bench\":\"B1\",\"file\":\"$2\",\"bytes\":$(wc -c < "$1"),\"tool\":\"decompression alone\",\"share_of_stats_pct\":$share,\"events\":$3,\"median_cpu_s\":$(echo "$4 $share" | awk '{ printf "%.3f", $1 * $2 / 100 }'),\"events_per_cpu_s\":$(echo "$3 $4 $share" | awk '{ printf "%.0f", $1 / ($2 * $3 / 100) }')"
}

# B1: decoding one capture of >= 1M function_graph events (the opens
# asked for 1.15M by the calibration: a long run makes fewer events per
# open than its 200 opens, 985,102 for 1.05M asked once), as nopctl
# record writes it and as each trace-cmd release records it (its default
# layout: version 7, zstd), each file read by nopctl and by the release
# that wrote it
t_bench_1_decode() {
	selected 1 || return 0
	cd "$T"
	top_buffer_may_expand # trace-cmd records at the top level
	save_top
	per_open
	n=$(scaled $((1150000 / PER)))
	rusage -o "$T/rec.json" nopctl record -q -G -b 16384 -o "$T/b1.dat" do_sys_openat2 -- opener $n ||
		fail "record of $n opens: exit $?"
	b1 "$T/b1.dat" nopctl "trace-cmd report"
	rm -f "$T/b1.dat"
	tracecmds > "$T/tcs"
	while read -r ver tc; do
		$tc record -q -p function_graph -g do_sys_openat2 -b 16384 -o "$T/b1tc.dat" -F opener $n \
			> "$T/b1tc.log" 2>&1 || { tail -5 "$T/b1tc.log"; fail "$tc record: exit $?"; }
		restore_top
		b1 "$T/b1tc.dat" "trace-cmd $ver" "$tc report"
		rm -f "$T/b1tc.dat"
	done < "$T/tcs"
}

# start a graph reader ($1: nopctl, trace-cmd, perf, cat) on do_sys_openat2
# in the background; reader pid in $rpid, its output in $T/out.$1
start_reader() {
	case $1 in
	nopctl) rusage -o "$T/ru.$1" nopctl graph -b $BKB do_sys_openat2 > "$T/out.$1" 2> "$T/err.$1" & ;;
	trace-cmd) rusage -o "$T/ru.$1" trace-cmd stream -p function_graph -g do_sys_openat2 -b $BKB > "$T/out.$1" 2> "$T/err.$1" & ;;
	perf) rusage -o "$T/ru.$1" perf ftrace -a -G do_sys_openat2 -m ${BKB}K > "$T/out.$1" 2> "$T/err.$1" & ;;
	cat)
		echo $BKB > "$TDIR/buffer_size_kb"
		echo do_sys_openat2 > "$TDIR/set_graph_function"
		echo function_graph > "$TDIR/current_tracer"
		rusage -o "$T/ru.$1" cat "$TDIR/trace_pipe" > "$T/out.$1" 2> "$T/err.$1" & ;;
	esac
	rpid=$!
	rm -f "$T/wl.json"
	# tracing on: the reader's buffer has function_graph and tracing_on
	_i=0
	until grep -q function_graph "$TDIR/current_tracer" "$TDIR"/instances/*/current_tracer 2>/dev/null &&
		[ "$(cat "$TDIR/tracing_on")" = 1 ]; do
		_i=$((_i + 1)); [ $_i -lt 1200 ] || fail "$1 did not start"; usleep 50000
	done
	sleep 1
	cpu0=$(tree_cpu "$rpid") # from here on, reading only: not the tracer switch
}

# stop it; lost events from its own report (nopctl) or the top level
stop_reader() {
	lost=$(top_lost)
	cpu=$(echo "$(tree_cpu "$rpid") $cpu0" | awk '{ printf "%.2f", $1 - $2 }')
	kill -INT "$rpid" 2> /dev/null
	[ "$1" = cat ] && { echo nop > "$TDIR/current_tracer"; echo > "$TDIR/set_graph_function"; }
	wait "$rpid" || true # tools switch function_graph off: no 30 s limit here
	case $1 in
	nopctl) lost=$({ sed -n 's/.*, lost \([0-9]*\) (page headers).*/\1/p' "$T/err.$1"
		sed -n 's/.*, overrun \([0-9]*\).*/\1/p' "$T/err.$1"
		sed -n 's/.*, dropped \([0-9]*\).*/\1/p' "$T/err.$1"; } |
		awk '{ n += $1 } END { print n + 0 }') ;;
	*) restore_top ;;
	esac
}

# the peers leave settings behind (trace-cmd reset picks its own clock and
# buffer size; perf ftrace leaves tracing_on 0 and irq-info 0): the top
# level is put back after each of their runs, so that every tool starts
# from the same state and the harness's snapshot stays the same
save_top() {
	_st=/tmp/bench.top
	{
		echo "echo $(sed 's/.*\[\(.*\)\].*/\1/' "$TDIR/trace_clock") > $TDIR/trace_clock"
		echo "echo $(sed 's/.*expanded: \([0-9]*\).*/\1/' "$TDIR/buffer_size_kb") > $TDIR/buffer_size_kb"
		echo "echo $(cat "$TDIR/tracing_on") > $TDIR/tracing_on"
		for _o in "$TDIR"/options/*; do echo "echo $(cat "$_o") > $_o"; done
	} > "$_st"
}
restore_top() {
	trace-cmd reset > /dev/null 2>&1 || true
	echo nop > "$TDIR/current_tracer"
	sh /tmp/bench.top 2> /dev/null || true
}

# B2: live streaming at rising rates
t_bench_2_stream() {
	selected 2 || return 0
	cd "$T"
	top_buffer_may_expand # trace-cmd, perf and cat read the top level
	per_open
	save_top
	for rate in 250 1000 0; do
		n=$(scaled $([ $rate = 0 ] && echo 4000 || echo $((rate * 4))))
		# the limit beside the readers: the workload's own CPU untraced and
		# traced with no reader; their difference per event is what the
		# kernel spends writing an event, the readers' figure is theirs
		rm -f "$T/wl.json" # (rusage -o appends)
		rusage -o "$T/wl.json" opener $n /etc/hostname $rate
		cpu_u=$(cpu_s "$T/wl.json")
		rm -f "$T/wl.json"
		kernel_only rusage -o "$T/wl.json" opener $n /etc/hostname $rate
		cpu_k=$(cpu_s "$T/wl.json")
		bench "\"bench\":\"B2\",\"runs\":1,\"tool\":\"kernel alone\",\"rate\":$rate,\"opens\":$n,\"expected_opener\":$((n * PER)),\"untraced_cpu_s\":$cpu_u,\"workload_cpu_s\":$cpu_k,\"kernel_us_per_event\":$(echo "$cpu_k $cpu_u $n $PER" | awk '{ printf "%.3f", ($1 - $2) * 1e6 / ($3 * $4) }')"
		for tool in nopctl trace-cmd perf cat; do
			start_reader $tool
			rusage -o "$T/wl.json" opener $n /etc/hostname $rate
			sleep 2
			stop_reader $tool
			got=$(graph_events "$T/out.$tool")
			roots=$(graph_roots "$T/out.$tool")
			rm -f "$T/ru.$tool"
			wall=$(jq .wall_s "$T/wl.json")
			bench "\"bench\":\"B2\",\"runs\":1,\"tool\":\"$tool\",\"rate\":$rate,\"opens\":$n,\"workload_s\":$wall,\"expected_opener\":$((n * PER)),\"delivered\":$got,\"calls\":$n,\"roots\":$roots,\"lost\":${lost:-null},\"reader_cpu_s\":$cpu,\"cpu_s_per_million\":$(echo "$cpu $got" | awk '{ printf "%.3f", $2 ? $1 * 1e6 / $2 : 0 }')"
		done
	done
}

# B3: start and stop latency, one function and a glob of > 1000
t_bench_3_latency() {
	selected 3 || return 0
	cd "$T"
	save_top
	glob=
	for g in 'acpi_*' 'pci_*' '*_probe*' '*_init*'; do
		c=$(nopctl list "$g" | wc -l)
		[ "$c" -gt 1000 ] && glob=$g && break
	done
	[ -n "$glob" ] || fail "no glob of more than 1000 functions"
	for pat in do_sys_openat2 "$glob"; do
		n=$(nopctl list "$pat" | wc -l)
		for tool in nopctl trace-cmd perf; do
			rm -f "$T/lat"
			for i in $(seq "$RUNS"); do
				case $tool in
				nopctl) latency "$TDIR/instances/nopctl-%d" 1 nopctl trace -q "$pat" > "$T/lat.1" ;;
				trace-cmd) latency "$TDIR" 1 trace-cmd record -q -p function -l "$pat" -o "$T/l.dat" > "$T/lat.1" 2>/dev/null
					restore_top ;;
				perf) latency "$TDIR" 1 perf ftrace -a -T "$pat" > "$T/lat.1" 2>/dev/null
					restore_top ;;
				esac
				grep '^{' "$T/lat.1" >> "$T/lat"
			done
			s=$(jq .start_s "$T/lat" | median)
			t=$(jq .stop_s "$T/lat" | median)
			bench "\"bench\":\"B3\",\"tool\":\"$tool\",\"pattern\":\"$pat\",\"functions\":$n,\"start_s\":$(jq -s -c 'map(.start_s)' "$T/lat"),\"stop_s\":$(jq -s -c 'map(.stop_s)' "$T/lat"),\"median_start_s\":$s,\"median_stop_s\":$t"
		done
	done
}

# B4: peak RSS of graph and stats streaming 1M and 10M events
t_bench_4_memory() {
	selected 4 || return 0
	top_buffer_may_expand # graph roots on 6.12+ are traced at the top level
	per_open
	for mode in graph stats; do
		for m in 1 10; do
			n=$(scaled $((m * 1000000 / PER)))
			rc=0
			rusage -o "$T/m.json" nopctl $mode -q -b 16384 do_sys_openat2 -- opener $n > /dev/null 2> "$T/m.err" || rc=$?
			[ "$rc" = 0 ] || [ "$rc" = 5 ] || { cat "$T/m.err"; fail "nopctl $mode: exit $rc"; }
			bench "\"bench\":\"B4\",\"runs\":1,\"tool\":\"nopctl $mode\",\"events_millions\":$m,\"exit\":$rc,\"maxrss_kb\":$(jq .maxrss_kb "$T/m.json"),\"cpu_s\":$(cpu_s "$T/m.json")"
			rm -f "$T/m.json"
		done
	done
}

# the workload traced as the tools trace it, with no reader: the kernel's
# own cost (function_graph rooted at do_sys_openat2, this task only; the
# buffer overwrites what nobody reads), the floor every reader adds to
kernel_only() {
	echo 0 > "$TDIR/tracing_on"
	echo $BKB > "$TDIR/buffer_size_kb"
	echo do_sys_openat2 > "$TDIR/set_graph_function"
	echo function_graph > "$TDIR/current_tracer"
	# the command's children too (rusage forks the workload), as the
	# tools trace a command: without function-fork the opener itself was
	# not traced (0.53 s where traced it takes 3.2 s on 6.19)
	echo 1 > "$TDIR/options/function-fork"
	sh -c "echo \$\$ > $TDIR/set_ftrace_pid; echo 1 > $TDIR/tracing_on; exec $*"
	echo 0 > "$TDIR/tracing_on"
	echo nop > "$TDIR/current_tracer"
	echo > "$TDIR/set_graph_function"
	echo > "$TDIR/set_ftrace_pid"
	restore_top
}

# B5: wall time of the workload untraced, traced with no reader (the
# kernel's own cost), under nopctl graph (decoding and printing every event
# as it comes), under nopctl record -G and each trace-cmd release's record
# (both keep raw pages)
t_bench_5_overhead() {
	selected 5 || return 0
	cd "$T"
	top_buffer_may_expand # the kernel-alone run and trace-cmd trace at the top level
	save_top
	per_open
	n=$(scaled 20000)
	tracecmds > "$T/tcs"
	tools="untraced kernel nopctl nopctl-record $(awk '{ print "trace-cmd-" $1 }' "$T/tcs")"
	for how in $tools; do rm -f "$T/w.$how.json"; done
	# the tools take turns, run by run: a guest's speed drifts within a boot
	# (another guest starting on the host), and a tool whose runs were all
	# in one stretch took that stretch's speed as its own
	for i in $(seq "$RUNS"); do
		for how in $tools; do
			_w="$T/w.$how.json"
			case $how in
			untraced) rusage -o "$_w" opener $n ;;
			kernel) kernel_only rusage -o "$_w" opener $n ;;
			nopctl) nopctl graph -q -b $BKB do_sys_openat2 -- rusage -o "$_w" opener $n > /dev/null 2>&1 ;;
			nopctl-record) rm -f "$T/n.dat"
				nopctl record -q -G -b $BKB -o "$T/n.dat" do_sys_openat2 -- rusage -o "$_w" opener $n > /dev/null 2>&1 ;;
			trace-cmd-*) tc=$(awk -v v="${how#trace-cmd-}" '$1 == v { print $2 }' "$T/tcs")
				rm -f "$T/w.dat"
				$tc record -q -p function_graph -g do_sys_openat2 -b $BKB -o "$T/w.dat" -c -F rusage -o "$_w" opener $n > /dev/null 2>&1
				restore_top ;;
			esac
		done
	done
	for how in $tools; do
		bench "\"bench\":\"B5\",\"tool\":\"$how\",\"opens\":$n,\"events\":$((n * PER)),\"wall_s\":$(jq -s -c 'map(.wall_s)' "$T/w.$how.json"),\"median_wall_s\":$(jq .wall_s "$T/w.$how.json" | median)"
	done
}

# B6: the cost of one traced call of a user function (bench_fn in
# libubench.so, tests/progs): the workload's own loop time against the
# untraced loop, for nopctl (entry probes: trace, decoding and printing
# every call as JSON, and record, keeping raw pages as perf record does;
# entry and return probes: stats), perf probe -x + perf record of the same probes (the same kernel
# mechanism), the LD_PRELOAD wrapper and -finstrument-functions. A tracer's
# CPU per event: its process tree's CPU less the workload's own (a probe's
# trap is charged to the traced program), with N calls less with none (its
# start-up and teardown), over N. Events delivered are held against the
# calls made.
b6_run() { # how calls result-file: one traced run
	_u=$3
	case $1 in
	untraced) ubench "$2" > "$_u" ;;
	ld-preload) LD_PRELOAD=/usr/bin/libuwrap.so ubench "$2" > "$_u" 2> "$T/wrap.txt" ;;
	finstrument) ubench-finstr "$2" > "$_u" ;;
	nopctl-entry) rusage -o "$T/r.$2.json" nopctl trace -q -j -b $BKB --overwrite -o "$T/ev" "$lib:bench_fn" \
		-- sh -c "ubench $2 > $_u"
		got=$(grep -c '"func":"bench_fn"' "$T/ev") ;;
	nopctl-record) rm -f "$T/u.dat"
		rusage -o "$T/r.$2.json" nopctl record -q -b $BKB -o "$T/u.dat" "$lib:bench_fn" \
			-- sh -c "ubench $2 > $_u"
		got=$(nopctl report -j "$T/u.dat" | grep -c '"func":"bench_fn"') ;;
	nopctl-return) rusage -o "$T/r.$2.json" nopctl stats -q -j -b $BKB --overwrite -o "$T/ev" "$lib:bench_fn" \
		-- sh -c "ubench $2 > $_u"
		got=$(jq -s '[.[] | select(.type == "func_stats") | .calls] | add // 0' "$T/ev") ;;
	perf-entry|perf-return)
		perf probe -q -x "$lib" -a bench_fn > /dev/null 2>&1 || fail "perf probe"
		set -- "$@" -e probe_libubench:bench_fn
		if [ "$1" = perf-return ]; then
			perf probe -q -x "$lib" -a 'bench_fn%return' > /dev/null 2>&1 || fail "perf probe %return"
			set -- "$@" -e probe_libubench:bench_fn__return
		fi
		_how=$1 _n=$2
		shift 3
		rusage -o "$T/r.$_n.json" perf record -q -m 1024 "$@" -o "$T/p.data" -- sh -c "ubench $_n > $_u" \
			> /dev/null 2>&1
		# a call is its entry (and return) event
		got=$(perf script -i "$T/p.data" 2> /dev/null | grep -c 'bench_fn:')
		perf probe -q -d 'probe_libubench:*' > /dev/null 2>&1 ;;
	esac
	[ -s "$_u" ] || fail "$1: no figures from the workload"
}

t_bench_6_uprobes() {
	selected 6 || return 0
	cd "$T"
	# 100,000 calls: the tracers' per-event CPU then outweighs the noise of
	# their start-up (perf record's varied by more than 20,000 events'
	# worth between runs on 6.1)
	n=$(scaled 100000)
	lib=/usr/bin/libubench.so
	for how in untraced nopctl-entry nopctl-record nopctl-return perf-entry perf-return ld-preload finstrument; do
		rm -f "$T"/u.*.json "$T"/z.*.json "$T"/r.*.json
		got=
		for i in $(seq "$RUNS"); do
			b6_run $how 0 "$T/z.$i.json"
			b6_run $how "$n" "$T/u.$i.json"
		done
		loops=$(jq -s -c 'map(.loop_ns)' "$T"/u.*.json)
		m=$(jq .loop_ns "$T"/u.*.json | median)
		[ $how = untraced ] && base=$m
		per_event=null
		if [ -f "$T/r.$n.json" ]; then
			# CPU of the tracer's tree less the workload's, N calls and none
			cn=$(cat "$T"/u.*.json | jq -s . | jq --slurpfile r "$T/r.$n.json" \
				'[range(0; length) as $i | ($r[$i].user_s + $r[$i].sys_s) - .[$i].cpu_s] | sort | .[(length - 1) / 2 | floor]')
			c0=$(cat "$T"/z.*.json | jq -s . | jq --slurpfile r "$T/r.0.json" \
				'[range(0; length) as $i | ($r[$i].user_s + $r[$i].sys_s) - .[$i].cpu_s] | sort | .[(length - 1) / 2 | floor]')
			per_event=$(echo "$cn $c0 $n" | awk '{ printf "%.2f", ($1 - $2) / $3 * 1e6 }')
		fi
		bench "\"bench\":\"B6\",\"tool\":\"$how\",\"calls\":$n,\"loop_ns\":$loops,\"median_loop_ns\":$m,\"ns_per_call\":$(echo "$m $n" | awk '{ printf "%.1f", $1 / $2 }'),\"overhead_ns_per_call\":$(echo "$m ${base:-$m} $n" | awk '{ printf "%.1f", ($1 - $2) / $3 }'),\"ratio_untraced\":$(echo "$m ${base:-$m}" | awk '{ printf "%.2f", $1 / $2 }'),\"reader_cpu_us_per_event\":$per_event,\"delivered\":${got:-null}"
	done
	# no loss at 100k calls/s: as many events as calls, whatever rate the
	# traced program reaches under emulation (said beside it)
	m=$(scaled 100000)
	nopctl trace -q -j -b $BKB --overwrite -o "$T/ev" "$lib:bench_fn" -- sh -c "ubench $m 100000 > $T/rate.json"
	rc=$?
	got=$(grep -c '"func":"bench_fn"' "$T/ev")
	bench "\"bench\":\"B6\",\"tool\":\"nopctl-entry\",\"rate\":100000,\"calls\":$m,\"delivered\":$got,\"exit\":$rc,\"achieved_per_s\":$(jq '.calls / .loop_ns * 1e9 | floor' "$T/rate.json")"
}

# B6': start and stop with many user functions probed (bench/b6prime.sh:
# from the tracer's launch to umany's main, from its last instruction to
# the tracer's exit), 10 to 10,000 functions, nopctl (entries; entries and
# exits) against perf probe -x + perf record (entries; up to 100: each
# probe is an event of its own, 9.6 s to stop 100 natively) and bpftrace
# where the guest has it; "6p" in BENCH_ONLY
t_bench_6p_many_probes() {
	selected 6p || return 0
	for n in 10 100 1000 10000; do
		for tool in nopctl-trace nopctl-stats perf bpftrace; do
			case $tool in perf) [ "$n" -le 100 ] || continue ;;
			bpftrace) command -v bpftrace > /dev/null || continue ;; esac
			rm -f "$T/b6p.json"
			for i in $(seq "$RUNS"); do
				sh /tests/b6prime.sh "$tool" "$n" "$(command -v umany)" >> "$T/b6p.json"
			done
			if jq -e -s 'all(.start_s)' "$T/b6p.json" > /dev/null; then
				bench "\"bench\":\"B6p\",\"tool\":\"$tool\",\"functions\":$n,\"start_s\":$(jq -s -c 'map(.start_s)' "$T/b6p.json"),\"stop_s\":$(jq -s -c 'map(.stop_s)' "$T/b6p.json"),\"median_start_s\":$(jq .start_s "$T/b6p.json" | median),\"median_stop_s\":$(jq .stop_s "$T/b6p.json" | median)"
			else
				bench "\"bench\":\"B6p\",\"tool\":\"$tool\",\"functions\":$n,\"failed\":$(jq -s -c 'map(.error // .exit)' "$T/b6p.json")"
			fi
		done
	done
}

# B7: what reading the ring buffer costs the reader per event, by read()
# of trace_pipe_raw and through the memory-mapped buffer (Linux 6.10+),
# the reading alone (bench/progs/readcost.c: trace_marker events, each
# page's records walked), in the same boot; 6.1 cannot map
t_bench_7_read_mechanism() {
	selected 7 || return 0
	n=$(scaled 1000000)
	for mode in read mmap; do
		rm -f "$T/rc.json"
		for i in $(seq "$RUNS"); do
			readcost $mode $n >> "$T/rc.json" || [ $? = 3 ] || fail "readcost $mode: exit $?"
		done
		if jq -e -s 'all(.supported)' "$T/rc.json" > /dev/null; then
			bench "\"bench\":\"B7\",\"tool\":\"$mode\",\"events\":$n,\"read\":$(jq -s -c 'map(.read)' "$T/rc.json"),\"ns_per_event\":$(jq -s -c 'map(.ns_per_event)' "$T/rc.json"),\"median_ns_per_event\":$(jq .ns_per_event "$T/rc.json" | median)"
		else
			bench "\"bench\":\"B7\",\"tool\":\"$mode\",\"supported\":false"
		fi
	done
}

# B8: catch while nothing is caught (issue 42). The workload of B5 (opens
# that all succeed) under catch --errors and catch --slower-than 1s of
# do_sys_openat2, judged by the kernel's gate and in user space
# (NOPCTL_CATCH_GATE=0), beside graph and the kernel alone: the workload's
# wall time, and nopctl's own CPU per root call (its process tree's CPU
# less the workload's, with N opens less with one: set-up and teardown
# left out). Then how long after a slow call returned its catch line
# reached the reader (stamp), and peak RSS over many root calls.
b8_run() { # how n: one run; the workload's rusage in w8.HOW.N, nopctl's in t8.HOW.N
	_w="$T/w8.$1.$2.json"
	_t="$T/t8.$1.$2.json"
	case $1 in
	untraced) rusage -o "$_w" opener $2 > /dev/null ;;
	kernel) kernel_only rusage -o "$_w" opener $2 > /dev/null ;;
	graph) rusage -o "$_t" nopctl graph -q -b $BKB do_sys_openat2 -- rusage -o "$_w" opener $2 > /dev/null 2>&1 ;;
	catch-*)
		_c=--errors
		case $1 in *slower*) _c="--slower-than 1s" ;; esac
		_g=1
		case $1 in *-user) _g=0 ;; esac
		# shellcheck disable=SC2086 # _c is words
		rusage -o "$_t" env NOPCTL_CATCH_GATE=$_g nopctl catch $_c -q -b $BKB do_sys_openat2 -- \
			rusage -o "$_w" opener $2 > /dev/null 2>&1 ;;
	esac
}
t_bench_8_catch() {
	selected 8 || return 0
	cd "$T"
	top_buffer_may_expand # graph roots and the kernel-alone run are at the top level
	save_top
	per_open
	n=$(scaled 20000)
	tools="untraced kernel graph catch-errors catch-errors-user catch-slower catch-slower-user"
	rm -f "$T"/w8.* "$T"/t8.*
	for i in $(seq "$RUNS"); do
		for how in $tools; do
			b8_run $how $n
			case $how in untraced | kernel) ;; *) b8_run $how 1 ;; esac
		done
	done
	for how in $tools; do
		wall=$(jq .wall_s "$T/w8.$how.$n.json" | median)
		cpu=null
		if [ -f "$T/t8.$how.$n.json" ]; then
			# per run: (tool - workload) with n opens less the same with one
			jq '.user_s + .sys_s' "$T/t8.$how.$n.json" > "$T/a"
			jq '.user_s + .sys_s' "$T/w8.$how.$n.json" > "$T/b"
			jq '.user_s + .sys_s' "$T/t8.$how.1.json" > "$T/c"
			jq '.user_s + .sys_s' "$T/w8.$how.1.json" > "$T/d"
			cpu=$(awk -v n=$n 'FILENAME == ARGV[1] { a[FNR] = $1 } FILENAME == ARGV[2] { b[FNR] = $1 }
				FILENAME == ARGV[3] { c[FNR] = $1 } FILENAME == ARGV[4] { printf "%.3f\n", ((a[FNR] - b[FNR]) - (c[FNR] - $1)) * 1e6 / n }' \
				"$T/a" "$T/b" "$T/c" "$T/d" | median)
		fi
		bench "\"bench\":\"B8\",\"tool\":\"$how\",\"opens\":$n,\"events\":$((n * PER)),\"wall_s\":$(jq -s -c 'map(.wall_s)' "$T/w8.$how.$n.json"),\"median_wall_s\":$wall,\"reader_us_per_root\":$cpu"
	done
	# a catch on stdout within 1 s of the root call's return: stuck()
	# sleeps 1.5 s in hrtimer_nanosleep, the command lives 2 s more
	for g in 1 0; do
		rm -f "$T/lat8"
		for i in $(seq "$RUNS"); do
			env NOPCTL_CATCH_GATE=$g nopctl catch --slower-than 1s -j -b $BKB hrtimer_nanosleep -- \
				sh -c "uslow hang 1500 2> $T/ret8; sleep 2" 2> /dev/null | stamp > "$T/st8"
			ret=$(awk '$1 == "returned" { print $2 }' "$T/ret8")
			got=$(awk '/"type":"catch"/ { print $1; exit }' "$T/st8")
			[ -n "$ret" ] && [ -n "$got" ] || fail "B8 latency: no catch ($(head -c 300 "$T/st8"))"
			echo "$got $ret" | awk '{ printf "%.3f\n", $1 - $2 }' >> "$T/lat8"
		done
		bench "\"bench\":\"B8\",\"tool\":\"latency-$([ $g = 1 ] && echo kernel || echo user)\",\"latency_s\":$(jq -s -c . "$T/lat8"),\"median_latency_s\":$(median < "$T/lat8")"
	done
	# peak RSS: root calls of getppid, the kernel's gate at 1M and 4M,
	# user space at 0.2M and 1M (every call read)
	root=$(nopctl list '__do_sys_getppid' | head -n 1)
	[ -n "$root" ] || root=$(nopctl list '*sys_getppid' | head -n 1)
	for g in 1 0; do
		for m in $([ $g = 1 ] && echo "1 4" || echo "0.2 1"); do
			calls=$(echo "$m $SCALE" | awk '{ printf "%d", $1 * $2 * 1000000 }')
			rm -f "$T/m8.json"
			rc=0
			rusage -o "$T/m8.json" env NOPCTL_CATCH_GATE=$g nopctl catch --errors -j -b $BKB "$root" -- uslow sys $calls > "$T/m8.out" 2> "$T/m8.err" || rc=$?
			bench "\"bench\":\"B8\",\"runs\":1,\"tool\":\"rss-$([ $g = 1 ] && echo kernel || echo user)\",\"roots\":$calls,\"exit\":$rc,\"maxrss_kb\":$(jq .maxrss_kb "$T/m8.json"),\"summary\":$(grep '"type":"summary"' "$T/m8.out" || echo null)"
		done
	done
}
