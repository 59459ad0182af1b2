#!/bin/sh
# t-tracecmd.sh - trace.dat files written by trace-cmd 3.1.6, 3.3 and 3.4
# in the 6.12 guest (tests/fixtures/tracecmd/, tests/capture-tracecmd.sh):
# versions 6 and 7, zstd, zlib and no compression, two instances in one
# file (both versions), a DATE time correction, function hits with stacks
# and function_graph trees. nopctl's
# reader must give the very events the writing release's own
# `trace-cmd report -R -t` printed (tests/tc-events.sh: each entry's time
# in ns, CPU, task and function, each hit's, and as many exits), and
# every view must read each file without a complaint.
# Across machines (issue 56): tests/fixtures/tracecmd-arm64/ holds the
# same made on arm64 (trace-cmd 3.1.6 and nopctl itself, in the arm64
# 6.12 guest), read here by x86-64's nopctl and by this host's trace-cmd,
# each held to arm64's trace-cmd report; the recordings nopctl made on
# either machine are held to trace-cmd's report of them too. Built with
# CROSS_COMPILE, NOPCTL_RUN (qemu-user) runs the other machine's nopctl on
# the x86-64 files (make CROSS_COMPILE=aarch64-linux-gnu- unit-check).
set -u
. "$(dirname "$0")/lib.sh"
run=${NOPCTL_RUN:-}
n=0
for dat in "$top"/tests/fixtures/tracecmd/*.dat "$top"/tests/fixtures/tracecmd-arm64/*.dat; do
	fx=$(dirname "$dat")
	name=$(basename "$dat" .dat)
	case $name in nopctl-user) continue ;; esac # user functions: below
	case $fx in *-arm64) name=arm64/$name ;; esac
	n=$((n + 1))
	gzip -dc "$fx/${name#arm64/}.report.gz" | sh "$top/tests/tc-events.sh" tc > "$tmp/tc"
	# shellcheck disable=SC2086 # run is a command and its options
	$run "$b/nopctl" report -j "$dat" 2> "$tmp/err" | sh "$top/tests/tc-events.sh" nopctl > "$tmp/nop"
	if [ ! -s "$tmp/tc" ]; then
		bad "$name: trace-cmd's report of it has no events (a fixture that tests nothing)"
	elif cmp -s "$tmp/tc" "$tmp/nop"; then
		ok
	else
		bad "$name: nopctl's events differ from trace-cmd's ($(wc -l < "$tmp/tc") lines; < trace-cmd, > nopctl):"
		head -3 "$tmp/err"
		diff "$tmp/tc" "$tmp/nop" | head -6
	fi
	# this host's trace-cmd reads the other machine's file as it did
	case $name in arm64/*)
		trace-cmd report -R -t "$dat" 2> "$tmp/tcerr" | sh "$top/tests/tc-events.sh" tc > "$tmp/here"
		cmp -s "$tmp/tc" "$tmp/here" && ok ||
			{ bad "$name: this host's trace-cmd reads other events than arm64's:"; head -3 "$tmp/tcerr"
			  diff "$tmp/tc" "$tmp/here" | head -6; } ;;
	esac
	# the other views: exit 0 and nothing on stderr but the summary
	for args in "" "--stats" "-F folded"; do
		rc=0
		# shellcheck disable=SC2086 # args are words
		$run "$b/nopctl" report $args "$dat" > "$tmp/out" 2> "$tmp/err" || rc=$?
		hits_only=$(grep -q '^E ' "$tmp/tc" || echo yes)
		case $hits_only:$args in
		yes:--stats | yes:-F*)
			# function hits, no calls: refused, naming record -G
			[ "$rc" = 2 ] && grep -q 'record -G' "$tmp/err" && ok ||
				bad "$name: report $args: exit $rc, wanted 2 naming record -G: $(head -c 300 "$tmp/err")" ;;
		*)
			[ "$rc" = 0 ] && [ -s "$tmp/out" ] && [ "$(grep -vc -e '^nopctl: .* stopped by end of file' -e '^nopctl: deepest call stack' "$tmp/err")" = 0 ] && ok ||
				bad "$name: report $args: exit $rc: $(head -c 300 "$tmp/err")" ;;
		esac
	done
done
# a program's own functions recorded on arm64 (record -G of ureal-O0 fork
# 3: leaf() 3 times in it and 3 in its forked child; leaf() calls nothing,
# so its exits are a uretprobe's), read here: each call paired, as the
# file's UNAME option says arm64 pairs them (a return pops nothing there)
dat=$top/tests/fixtures/tracecmd-arm64/nopctl-user.dat
n=$((n + 1))
# shellcheck disable=SC2086 # run is a command and its options
$run "$b/nopctl" report --stats -j "$dat" > "$tmp/out" 2> "$tmp/err"
grep -q '"func":"leaf","calls":6,' "$tmp/out" && grep -q '"no_entry":0,"no_exit":0,' "$tmp/out" && ok ||
	bad "arm64/nopctl-user: stats: not leaf's 6 calls, each paired: $(grep -e leaf -e summary "$tmp/out" | head -c 400)"
# shellcheck disable=SC2086
$run "$b/nopctl" report -j "$dat" > "$tmp/out" 2> "$tmp/err"
[ "$(grep -c '"type":"\(call\|exit\)".*"func":"leaf",.*"duration_ns":[0-9]' "$tmp/out")" = 6 ] &&
	[ "$(grep -c '"exit":"unwound"' "$tmp/out")" = 0 ] && ok ||
	bad "arm64/nopctl-user: graph: not 6 calls of leaf, each returned: $(grep leaf "$tmp/out" | head -3)"
# this host's trace-cmd sees each probe's hits as arm64's did (counted:
# another release may lay a line out otherwise)
gzip -dc "$top/tests/fixtures/tracecmd-arm64/nopctl-user.report.gz" | grep -o ' [a-z_0-9]*: ' | sort | uniq -c > "$tmp/theirs"
trace-cmd report -R -t "$dat" 2> /dev/null | grep -o ' [a-z_0-9]*: ' | sort | uniq -c > "$tmp/here"
grep -q ' 6  leaf__return: ' "$tmp/theirs" && cmp -s "$tmp/theirs" "$tmp/here" && ok ||
	bad "arm64/nopctl-user: this host's trace-cmd reads it otherwise than arm64's: $(diff "$tmp/theirs" "$tmp/here" | head -4)"
# every release and layout the fixtures claim is there
for want in 3.1.6-graph-zstd 3.1.6-graph-allfmt 3.1.6-graph-none 3.1.6-v6-stack 3.1.6-instance 3.1.6-v6-instance 3.1.6-date \
	3.3.1-func-zlib 3.3.1-graph-zstd 3.3.1-instance 3.4-func-zlib 3.4-graph-zstd 3.4-instance 3.4-v6-stack \
	3.4-v6-instance 3.4-date; do
	[ -f "$top/tests/fixtures/tracecmd/$want.dat" ] && ok || bad "fixture $want.dat is missing"
done
for want in 3.1.6-graph-zstd 3.1.6-graph-allfmt 3.1.6-graph-none 3.1.6-v6-stack 3.1.6-instance 3.1.6-v6-instance \
	3.1.6-date nopctl-graph nopctl-func nopctl-user; do
	[ -f "$top/tests/fixtures/tracecmd-arm64/$want.dat" ] && ok || bad "fixture arm64/$want.dat is missing"
done
echo "tracecmd: $pass passed, $fail failed ($n files)"
[ "$fail" = 0 ]
