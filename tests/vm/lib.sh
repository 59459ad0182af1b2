# lib.sh - the guest's test runner. A suite is a file of t_* functions;
# each runs in its own subshell under 'set -e', its verdict goes to ttyS1
# (fd 3), and after each one tracefs must be exactly as it was before.
T=/tmp/t
TR=/sys/kernel/tracing
KVER=$(uname -r)

fail() { echo "FAIL: $*"; exit 1; }

# expect_rc WANT CMD... : run CMD, output in $T/out and $T/err
expect_rc() {
	want=$1
	shift
	rc=0
	"$@" > "$T/out" 2> "$T/err" || rc=$?
	[ "$rc" = "$want" ] || { echo "--- stdout"; head -20 "$T/out"; echo "--- stderr"; head -20 "$T/err"; fail "exit $rc, wanted $want: $*"; }
}

# Every tracefs file nopctl may touch, the instances, and the journals.
snap() {
	{
		for f in current_tracer tracing_on set_ftrace_filter set_ftrace_notrace set_ftrace_pid \
			set_graph_function set_graph_notrace max_graph_depth tracing_thresh buffer_size_kb \
			tracing_cpumask trace_clock; do
			echo "== $f"
			cat "$TR/$f" 2>&1
		done
		for o in "$TR"/options/*; do echo "$o=$(cat "$o")"; done
		echo "== instances"
		ls "$TR/instances"
		echo "== journals"
		ls /run/nopctl 2>/dev/null | grep -v lock || true
	} > "$1"
}

same() { cmp -s "$1" "$2" || { diff "$1" "$2" | head -20; return 1; }; }

# A shell that opens /etc/hostname every few ms, from its own pid.
opener_loop() { sh -c 'while :; do read x < /etc/hostname; usleep 5000; done' & echo $!; }

# json_lines FILE: every line parses on its own
json_lines() {
	n=0
	while IFS= read -r line; do
		printf '%s\n' "$line" | jq -e . > /dev/null || fail "not JSON: $line"
		n=$((n + 1))
	done < "$1"
	[ "$n" -gt 0 ] || fail "no JSON lines in $1"
}

run_suites() {
	files=
	for s in "$@"; do files="$files /tests/t-$s.sh"; . "/tests/t-$s.sh"; done
	tests=$(grep -ho '^t_[a-z0-9_]*()' $files | tr -d '()')
	echo "PLAN $(echo $tests | wc -w)" >&3
	for t in $tests; do
		rm -rf "$T"
		mkdir -p "$T"
		[ -d "$TR/instances" ] && snap /tmp/snap.before
		rc=0
		( set -e; "$t" ) > /tmp/log 2>&1 < /dev/null || rc=$?
		[ -f /tmp/snap.before ] || snap /tmp/snap.before
		snap /tmp/snap.after
		if [ "$rc" = 0 ] && ! same /tmp/snap.before /tmp/snap.after >> /tmp/log; then
			rc=1
			echo "tracefs was not left as it was found" >> /tmp/log
		fi
		if [ "$rc" = 0 ]; then
			echo "RESULT pass $KVER $t" >&3
		else
			echo "RESULT fail $KVER $t" >&3
			tail -n 30 /tmp/log | sed 's/^/#   /' >&3
		fi
		rm -f /tmp/snap.before
	done
	echo "DONE $KVER" >&3
}
