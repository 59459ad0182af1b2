#!/bin/sh
# t-why.sh - nopctl why on user functions (issue 58), held to the truth of
# uwhy (tests/progs/uwhy.c): 20 failures planted at lines marked
# "origin NN" in its sources, each case failing a known number of times,
# built -O0 and -O2. For each build: every case's failures named, each
# with its origin function (20 of 20) and the marked line: exact in at
# least 18 cases, the others a set of candidate lines that holds it; the
# program's own output as untraced; JSON and text agree; no probe left.
set -u
. "$(dirname "$0")/lib.sh"
bin=$b/nopctl
h=$b/tests/helpers
src=$top/tests/progs
T=$tmp
no() { bad "$@"; }
need_root why

for o in O0 O2; do
	"$h/uwhy-$o" > "$T/plain-$o.out" || no "uwhy-$o untraced: exit $?"
	rc=0
	(cd "$h" && "$bin" why -j -o "$T/$o.json" "./uwhy-$o:case_*" 'libuwhy.so:lib_*' -- "./uwhy-$o") \
		> "$T/$o.out" 2> "$T/$o.err" || rc=$?
	[ "$rc" = 0 ] && ok || no "why uwhy-$o: exit $rc: $(tail -2 "$T/$o.err")"
	cmp -s "$T/plain-$o.out" "$T/$o.out" && ok || no "uwhy-$o's output changed under why: $(diff "$T/plain-$o.out" "$T/$o.out" | head -3)"
	jq -e . "$T/$o.json" > /dev/null 2>&1 && ok || no "why -j uwhy-$o: not JSON lines: $(head -c 300 "$T/$o.json")"
	sh "$top/tests/why-truth.sh" "$T/$o.json" "$T/plain-$o.out" "$src" > "$T/$o.truth" && ok ||
		no "uwhy-$o against its truth: $(head -3 "$T/$o.truth")"
	set -- $(tail -1 "$T/$o.truth")
	echo "# why uwhy-$o: $2 of 20 lines exact, $4 as candidates holding the line"
	[ "$2" -ge 18 ] && [ $(($2 + $4)) = 20 ] && ok || no "uwhy-$o: $2 lines exact, $4 candidates"
	# text: a line per failure, as JSON has them, and the count by origin
	(cd "$h" && "$bin" why "./uwhy-$o:case_*" 'libuwhy.so:lib_*' -- "./uwhy-$o") > "$T/$o.txt" 2> /dev/null
	total=$(jq -s 'map(select(.type == "why")) | length' "$T/$o.json")
	[ "$(grep -c ': .* from .*() at \|: .* from .*) at ' "$T/$o.txt")" = "$total" ] && ok ||
		no "why text uwhy-$o: $(grep -c ' from ' "$T/$o.txt") lines of $total: $(grep ' from ' "$T/$o.txt" | head -2)"
	grep -q "^ *3  -17 from l8() at uwhy.c:$(grep -n 'origin 17' "$src/uwhy.c" | cut -d: -f1), via l7 > l6 > l5 > l4 > l3 > l2 > l1 > case_17$" "$T/$o.txt" &&
		grep -q "^$total failures, 20 origins:" "$T/$o.txt" && ok ||
		no "why text uwhy-$o: the count by origin: $(sed -n '/failures,/,$p' "$T/$o.txt" | head -4)"
	grep -q 'NULL from np_find() at.*, via case_07 (as -1)$' "$T/$o.txt" && ok ||
		no "why text uwhy-$o: a NULL translated: $(grep np_find "$T/$o.txt" | head -1)"
done
[ -z "$(ls /sys/kernel/tracing/instances 2> /dev/null | grep nopctl)" ] &&
	! grep -q nopctl /sys/kernel/tracing/uprobe_events 2> /dev/null && ok || no "why left probes or an instance"

# bad input: no root named
rc=0
"$bin" why -- true > /dev/null 2> "$T/noroot.err" || rc=$?
[ "$rc" = 2 ] && grep -q 'give the root function' "$T/noroot.err" && ok || no "why with no root: exit $rc: $(cat "$T/noroot.err")"

echo "why: $pass passed, $fail failed"
[ "$fail" = 0 ]
