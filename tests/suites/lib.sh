# lib.sh - the guest's test runner. A suite is a file of t_* functions;
# each runs in its own subshell under 'set -e', its verdict goes to ttyS1
# (fd 3; arm64: hvc0), and after each one tracefs must be exactly as it
# was before.
T=/tmp/t
TR=/sys/kernel/tracing
KVER=$(uname -r)

fail() { echo "FAIL: $*"; exit 1; }

# the kernel's names that differ between machines: a system call's
# wrapper ($SYS: ${SYS}openat), the function that calls the wrappers, and
# the outermost frame of a system call's kernel stack
case $(uname -m) in
aarch64) SYS=__arm64_sys_ SYSCALL_DISPATCH=invoke_syscall SYSCALL_ENTRY=el0t_64_sync ;;
*) SYS=__x64_sys_ SYSCALL_DISPATCH=do_syscall_64 SYSCALL_ENTRY=entry_SYSCALL_64 ;;
esac
# fprobe events ('f:' in dynamic_events): yes from 6.12 on, except on
# Debian's arm64 6.12, which is built without CONFIG_FPROBE
case "$(uname -m) $KVER" in
*" 5.10."* | *" 6.1."* | "aarch64 6.12."*) FPROBES=no ;;
*) FPROBES=yes ;;
esac

# expect_rc WANT CMD... : run CMD, output in $T/out and $T/err
# (sh has no locals: its variables start with _ to spare the caller's)
expect_rc() {
	_w=$1
	shift
	expect_rc_json "$_w" '' "$@"
}

# expect_rc_json WANT FILE CMD...: expect_rc, and on failure the summary
# object of the JSON CMD writes to FILE (-o: which count moved); FILE ''
# for none
expect_rc_json() {
	_want=$1 _json=$2
	shift 2
	_rc=0
	"$@" > "$T/out" 2> "$T/err" || _rc=$?
	[ "$_rc" = "$_want" ] || { echo "exit $_rc, wanted $_want: $*"; echo "--- stderr"; head -20 "$T/err"
		[ -z "$_json" ] || { echo "--- summary"; grep '"type":"summary"' "$_json" | cut -c1-1500; }
		echo "--- stdout"; head -20 "$T/out"; [ "$(wc -l < "$T/out")" -le 20 ] || tail -n 1 "$T/out"
		fail "exit $_rc, wanted $_want: $*"; }
}

# report_reads FILE: nopctl reports FILE with exit 0, or 5 where the
# kernel's own counters say what it lost (a reader starved beside other
# guests; said on the verdict port), never a gap only nopctl inferred
report_reads() {
	_rc=0
	nopctl report --stats "$1" > /dev/null 2> "$T/rep.err" || _rc=$?
	if [ "$_rc" = 5 ] && grep -Eq 'lost [0-9]+ \(page headers\)|overrun [0-9]+|dropped [0-9]+' "$T/rep.err"; then
		echo "# $KVER: $(basename "$1"): the kernel lost events: $(tail -n 1 "$T/rep.err" | cut -c1-300)" >&3
		return 0
	fi
	[ "$_rc" = 0 ] || { tail -n 2 "$T/rep.err"; echo "nopctl report $(basename "$1"): exit $_rc"; return 1; }
}

# expect_ok_or_lost CMD...: expect_rc 0, or 5 (events lost) in a test whose
# subject is not loss: on 6.19 beside the load suite, 'graph -p' captures
# now and then end with a lost event (buffers far from full; which counter
# moves is not known yet) and this test's other assertions still hold.
# The loss is said on the verdict port, where the CI log shows it.
expect_ok_or_lost() {
	_rc=0
	"$@" > "$T/out" 2> "$T/err" || _rc=$?
	if [ "$_rc" = 5 ]; then
		said_lost "$T/out"
		return 0
	fi
	[ "$_rc" = 0 ] || { echo "--- stdout"; head -20 "$T/out"; echo "--- stderr"; head -20 "$T/err"; fail "exit $_rc, wanted 0: $*"; }
}

# said_lost FILE: an exit 5 in a test not about loss said on the verdict
# port, with FILE's last line (the summary) and what the kernel said: a
# printk under function_graph once came with such a loss (6.19, CI), and
# once a warning whose last 3 lines ("---[ end trace ...") did not say
# where: its first lines
said_lost() {
	echo "# $KVER: events lost (exit 5) in a test not about loss: $(tail -n 1 "$1" | cut -c1-300)" >&3
	dmesg 2>/dev/null | grep -E -A 2 'WARNING:|BUG:|Oops' | head -n 6 | sed "s/^/# $KVER:   dmesg: /" >&3
	dmesg 2>/dev/null | tail -n 3 | sed "s/^/# $KVER:   dmesg: /" >&3
}

# tracing_warnings: how many warnings the kernel's tracing code has
# logged since boot (6.1 writes "WARNING: CPU: 0 PID: 1 at kernel/...",
# 6.19 "WARNING: kernel/..."); each test fails on a new one. Only these
# files: a soft lockup under an overloaded TCG host is not nopctl's doing
TRACING_WARNING='WARNING:.*(kernel/trace/|kernel/kprobes|kernel/events/uprobes|arch/x86/kernel/(ftrace|kprobes)|arch/arm64/kernel/(ftrace|probes))'
tracing_warnings() { dmesg 2>/dev/null | grep -c -E "$TRACING_WARNING"; }

# Every tracefs file nopctl may touch, the instances, and the journals.
snap() {
	{
		for f in current_tracer tracing_on set_ftrace_filter set_ftrace_notrace set_ftrace_pid set_ftrace_notrace_pid \
			set_graph_function set_graph_notrace max_graph_depth tracing_thresh \
			tracing_cpumask trace_clock set_event_pid set_event_notrace_pid \
			uprobe_events kprobe_events dynamic_events synthetic_events; do
			echo "== $f"
			# a file this kernel lacks (5.10: synthetic_events) is
			# snapped as cat's complaint, not an end under set -e
			cat "$TR/$f" 2>&1 || true
		done
		# raw: a buffer never expanded ("7 (expanded: 1408)") must stay so
		echo "== buffer_size_kb"
		cat "$TR/buffer_size_kb" 2>&1
		for o in "$TR"/options/*; do echo "$o=$(cat "$o")"; done
		# the top level's snapshot buffer: allocated or not (catch's gate)
		echo "== snapshot freed: $(head -c 2000 "$TR/snapshot" 2>/dev/null | grep -c 'Snapshot is freed')"
		echo "== event groups"
		ls "$TR/events"
		echo "== instances"
		ls "$TR/instances"
		echo "== journals"
		ls /run/nopctl 2>/dev/null | grep -v -e lock -e '^funcs-.*\.cache$' -e '^ksyms-.*\.cache$' || true
	} > "$1"
}

# same SNAP1 SNAP2: equal snapshots (buffer_size_kb as a size where this
# test may expand the top-level buffer: top_buffer_may_expand)
same() {
	if [ -f /tmp/top-may-expand ]; then
		as_size "$1" > "$1.size"
		as_size "$2" > "$2.size"
		set -- "$1.size" "$2.size"
	fi
	cmp -s "$1" "$2" || { diff "$1" "$2" | head -20; return 1; }
}

# top_buffer_may_expand: this test sets a tracer at the top level (nopctl
# there, or trace-cmd), and the kernel then expands the top-level buffer
# from its placeholder to the promised size ("7 (expanded: 1408)" ->
# "1410"): compare it as a size. Anywhere else the raw text must stay.
top_buffer_may_expand() { : > /tmp/top-may-expand; }

# as_size SNAPSHOT: the snapshot with its buffer_size_kb line as the size
# promised or had, in 8 KB units ("7 (expanded: 1408)" and "1410": 176)
as_size() {
	awk '/^== buffer_size_kb$/ { print; getline
		if (match($0, /expanded: [0-9]+/)) $0 = substr($0, RSTART + 10, RLENGTH - 10)
		if ($0 ~ /^[0-9]+$/) $0 = int($0 / 8) }
		{ print }' "$1"
}

# A shell that opens /etc/hostname every few ms, from its own pid.
opener_loop() { sh -c 'while :; do read x < /etc/hostname; usleep 5000; done' > /dev/null 2>&1 & echo $!; }

# killed_session: a nopctl trace session on an opener loop, killed -9 once
# it streams, leaving its instance and journal behind; its pid in $n
killed_session() {
	_a=$(opener_loop)
	nopctl trace -q -p "$_a" do_sys_openat2 > "$T/bg" 2>&1 &
	n=$!
	wait_for "$T/bg" do_sys_openat2
	kill -9 "$n"
	reap "$n"
	kill "$_a"
}

# wait_for FILE TEXT: until FILE holds TEXT (30 s at most). FILE must be
# new: a background job's "> FILE" may not have truncated it yet.
wait_for() {
	i=0
	until grep -q "$2" "$1" 2>/dev/null; do
		i=$((i + 1))
		[ $i -lt 300 ] || fail "no '$2' in $1 after 30 s"
		usleep 100000
	done
}

# reap PID: wait for a background job, 30 s at most; on a hang, show where
# it is stuck (its kernel stack) and fail. Sets $reaped to its exit code.
reap() {
	_i=0
	while [ -d "/proc/$1" ] && ! grep -q '^State:.*Z' "/proc/$1/status" 2>/dev/null; do
		_i=$((_i + 1))
		if [ $_i -ge 300 ]; then
			echo "pid $1 ($(cat "/proc/$1/comm")) still running after 30 s; wchan $(cat "/proc/$1/wchan"):"
			cat "/proc/$1/stack"
			ls -l "/proc/$1/fd"
			kill -9 "$1"
			fail "pid $1 did not exit"
		fi
		usleep 100000
	done
	reaped=0
	wait "$1" || reaped=$?
}

# json_lines FILE: every line parses on its own
json_lines() {
	_n=0
	while IFS= read -r line; do
		printf '%s\n' "$line" | jq -e . > /dev/null || fail "not JSON: $line"
		_n=$((_n + 1))
	done < "$1"
	[ "$_n" -gt 0 ] || fail "no JSON lines in $1"
}

# all_of TYPE FILTER FILE: FILE has objects of TYPE and every one passes
# FILTER (jq's -e alone only judges the last input)
all_of() {
	grep '^{' "$3" | jq -e -s "[.[] | select(.type == \"$1\")] | length > 0 and all($2)" > /dev/null ||
		{ grep '^{' "$3" | jq -c "select(.type == \"$1\") | select(($2) | not)" 2> /dev/null | head -3
		  fail "not every $1 object has $2"; }
}

# trace-cmd record leaves its settings behind, and trace-cmd reset picks
# its own (trace_clock local, where this kernel starts with global): put
# the top level back as it was, so the harness judges what nopctl did
trace_cmd_record() {
	trace_cmd_record_with trace-cmd "$@"
}

# the same with another release (trace-cmd-3.4)
trace_cmd_record_with() {
	_tc=$1
	shift
	clock=$(sed 's/.*\[\(.*\)\].*/\1/' "$TR/trace_clock")
	kb=$(sed 's/.*expanded: \([0-9]*\).*/\1/' "$TR/buffer_size_kb")
	"$_tc" record "$@" > "$T/tc.log" 2>&1 || { cat "$T/tc.log"; fail "$_tc record failed"; }
	trace_cmd_reset
}

# tc_report_rc FILE [TRACE-CMD]: the exit nopctl report owes a trace-cmd
# recording: 5 (events lost) when that trace-cmd's own report shows the
# file incomplete (a LOST line, or function_graph entries and exits that
# do not pair up: an event the kernel never wrote), else 0
tc_report_rc() {
	"${2:-trace-cmd}" report "$1" 2> /dev/null | awk '/\[LOST [0-9]* EVENTS\]/ { l++ }
		/funcgraph_entry.*\{$/ { o++ } /funcgraph_exit/ { c++ } END { if (l || o != c) print 5; else print 0 }'
}

# expect_tc_report FILE [TRACE-CMD] -- nopctl report ARGS...: the exit
# tc_report_rc owes, and a lost event said on the verdict port
expect_tc_report() {
	_tcf=$1 _tc=trace-cmd
	shift
	[ "$1" = -- ] || { _tc=$1; shift; }
	shift
	_owed=$(tc_report_rc "$_tcf" "$_tc")
	expect_rc "$_owed" "$@"
	[ "$_owed" = 0 ] || echo "# $KVER: $_tc's file is incomplete by its own report; nopctl: $(tail -n 1 "$T/err")" >&3
}

trace_cmd_reset() {
	top_buffer_may_expand
	trace-cmd reset > /dev/null 2>&1
	echo "$clock" > "$TR/trace_clock"
	echo "$kb" > "$TR/buffer_size_kb"
	echo 1 > "$TR/tracing_on"
}

run_suites() {
	files=
	for s in "$@"; do files="$files /tests/t-$s.sh"; . "/tests/t-$s.sh"; done
	tests=$(grep -ho '^t_[a-z0-9_]*()' $files | tr -d '()' | sort)
	only=$(sed -n 's/.*nopctl\.only=\([^ ]*\).*/\1/p' /proc/cmdline)
	[ -z "$only" ] || tests=$(echo "$tests" | grep -E "$only")
	skip=$(sed -n 's/.*nopctl\.skip=\([^ ]*\).*/\1/p' /proc/cmdline)
	[ -z "$skip" ] || tests=$(echo "$tests" | grep -Ev "$skip")
	# init leaves tracefs unmounted for the trace suite's first test, which
	# checks that nopctl mounts it; without that suite, mount it here
	echo "$tests" | grep -q t_00_mounts_tracefs_itself || mount -t tracefs nodev "$TR"
	# a suite that takes the guest down (t-blackbox.sh, REBOOT_INSTANCE):
	# after the reboot, the previous boot's buffer names the test that did
	# ("nopctl-test NAME"); the tests before it gave their verdicts in an
	# earlier boot, its after_NAME part gives its own, and the run goes on
	resume=
	[ -z "${REBOOT_INSTANCE:-}" ] || [ ! -f "$REBOOT_INSTANCE/trace" ] ||
		resume=$(grep -o 'nopctl-test t_[a-z0-9_]*' "$REBOOT_INSTANCE/trace" | tail -n 1 | cut -d' ' -f2)
	[ -z "${REBOOT_INSTANCE:-}" ] || echo "# $KVER: boot $(cat /proc/sys/kernel/random/boot_id | cut -c1-8), resuming ${resume:-nothing}; markers: $(grep -o 'nopctl-test t_[a-z0-9_]*' "$REBOOT_INSTANCE/trace" | tr '\n' ' ')" >&3
	[ -n "$resume" ] || echo "PLAN $(echo $tests | wc -w)" >&3
	for t in $tests; do
		if [ -n "$resume" ]; then
			[ "$t" = "$resume" ] || continue
			resume=
			t=after_$t
		fi
		rm -rf "$T"
		mkdir -p "$T"
		[ -d "$TR/instances" ] && snap /tmp/snap.before
		# 5.10 and 6.1 drop the top level's promise at the first tracer use in
		# any instance (t_01_top_buffer_keeps_its_size): there every test
		# may leave it expanded, to the promised size
		case $KVER in 5.10.* | 6.1.*) top_buffer_may_expand ;; esac
		t0=$(date +%s)
		warned=$(tracing_warnings)
		# not 'cmd || rc=$?': a subshell left of || runs with -e ignored
		# (POSIX), and a test's failing step would pass unseen
		( set -e; "$t" ) > /tmp/log 2>&1 < /dev/null
		rc=$?
		# a nopctl the test left running would hold the top level and its
		# probes through every later test: a failure of this test, ended
		# here (SIGTERM restores what it changed)
		left=$(pidof nopctl || true)
		if [ -n "$left" ]; then
			rc=1
			echo "the test left nopctl running (pid $left)" >> /tmp/log
			kill $left 2> /dev/null
			i=0
			while [ -n "$(pidof nopctl)" ] && [ "$i" -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
			[ -z "$(pidof nopctl)" ] || { kill -9 $(pidof nopctl); nopctl reset > /dev/null 2>&1; }
		fi
		# (6.19's fprobe exit beside function_graph, in some boots)
		if [ "$(tracing_warnings)" -gt "$warned" ]; then
			rc=1
			{ dmesg | grep -E -A 3 "$TRACING_WARNING" | tail -n 8
			  echo "the kernel's tracing code logged a warning during the test"; } >> /tmp/log
		fi
		[ -f /tmp/snap.before ] || snap /tmp/snap.before
		snap /tmp/snap.after
		if [ "$rc" = 0 ] && ! same /tmp/snap.before /tmp/snap.after >> /tmp/log; then
			rc=1
			echo "tracefs was not left as it was found" >> /tmp/log
		fi
		# the seconds let run.sh name the suite's slowest tests
		secs="in $(($(date +%s) - t0)) s"
		t=${t#after_}
		if [ "$rc" = 0 ]; then
			echo "RESULT pass $KVER $t $secs" >&3
		else
			echo "RESULT fail $KVER $t $secs" >&3
			# the verdict first: a recap keeps a failure's first lines
			grep '^FAIL: ' /tmp/log | tail -n 1 | cut -c1-2000 | sed 's/^/#   /' >&3
			tail -n 30 /tmp/log | sed 's/^/#   /' >&3
		fi
		rm -f /tmp/snap.before /tmp/top-may-expand
	done
	echo "DONE $KVER" >&3
}

# kept_syms FILE: the kernel symbols a trace.dat keeps (its kallsyms
# section as trace-cmd reads it), one "ADDR TYPE NAME" a line
kept_syms() { trace-cmd dump --kallsyms "$1" 2> /dev/null | grep -E '^[0-9a-f]{8,16} [tTwW] '; }

# only_named_syms FILE ROOT: FILE keeps the symbols its events name, ROOT
# among them, not all of kallsyms (a recording's pages are walked once
# after they are written, counted and their addresses noted)
only_named_syms() {
	_n=$(kept_syms "$1" | wc -l)
	_all=$(grep -c ' [tTwW] ' /proc/kallsyms)
	[ "$_n" -gt 0 ] && [ $((_n * 20)) -lt "$_all" ] || fail "$1 keeps $_n of kallsyms' $_all functions"
	kept_syms "$1" | grep -q " $2\$" || fail "$1 does not keep $2, which its events name"
}
