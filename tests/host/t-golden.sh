#!/bin/sh
# t-golden.sh - nopctl report of recorded trace.dat files (fuzz/corpus/dat)
# in every format, byte for byte as the build before the pipeline moved into
# lib/ printed it (tests/golden/FILE.ARGS.out and .err, made with 942b54c).
# A deliberate change of output regenerates them: sh t-golden.sh --update.
set -u
. "$(dirname "$0")/lib.sh"
for dat in graph-6.12 stack-6.1; do
	for args in "" "-j" "--stats" "--stats -j" "-F folded" "-F dot" "-F chrome" "--callers" "--callers -j" "--callers -F folded"; do
		n=$(echo "report $args" | tr -c 'a-z0-9\n' '_' | sed 's/_*$//;s/__*/_/g')
		# shellcheck disable=SC2086 # args are words
		"$b/nopctl" report $args "$top/fuzz/corpus/dat/$dat.dat" > "$tmp/out" 2> "$tmp/err"
		if [ "${1:-}" = --update ]; then
			cp "$tmp/out" "$top/tests/golden/$dat.$n.out"
			cp "$tmp/err" "$top/tests/golden/$dat.$n.err"
		fi
		if cmp -s "$tmp/out" "$top/tests/golden/$dat.$n.out" && cmp -s "$tmp/err" "$top/tests/golden/$dat.$n.err"; then
			pass=$((pass + 1))
		else
			fail=$((fail + 1))
			echo "FAIL: nopctl report $args $dat.dat differs:"
			diff "$tmp/out" "$top/tests/golden/$dat.$n.out" | head -5
			diff "$tmp/err" "$top/tests/golden/$dat.$n.err" | head -5
		fi
	done
done
echo "golden: $pass passed, $fail failed"
[ "$fail" = 0 ]
