#!/bin/sh
# run.sh - make bench: boot each Debian kernel with the bench suite
# (bench/t-bench.sh: nopctl, trace-cmd, perf and cat in the same boot),
# keep the raw figures in bench/results/<kernel>.json, print the tables.
# BENCH_RUNS: runs per figure (the median is reported), default 3.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
work=${NOPCTL_VM_WORK:-$top/build/bench}
# one guest at a time: figures are not shared with another guest's load
export NOPCTL_VM_JOBS=${NOPCTL_VM_JOBS:-1}
export NOPCTL_VM_WORK="$work" NOPCTL_VM_BENCH=1 NOPCTL_VM_TIMEOUT="${NOPCTL_VM_TIMEOUT:-7200}"
# BENCH_BASELINE=FILE: that nopctl binary (an earlier build) also reads
# B1's files, in the same turns, as nopctl-baseline
[ -n "${BENCH_BASELINE:-}" ] && export NOPCTL_VM_BASELINE="$(cd "$(dirname "$BENCH_BASELINE")" && pwd)/$(basename "$BENCH_BASELINE")"
# BENCH_ONLY=3,4: only those figures; the others' results are kept
export NOPCTL_VM_APPEND="nopctl.runs=${BENCH_RUNS:-3} ${BENCH_ONLY:+nopctl.bench=$BENCH_ONLY} ${NOPCTL_VM_APPEND:-}"
# only this run's verdicts are read back: an earlier run's (another
# kernel, other figures) would replace the figures kept for its kernel
rm -f "$work"/*.results
sh "$top/tests/vm/run.sh" bench
rc=$?
mkdir -p "$top/bench/results"
for res in "$work"/*.results; do
	[ -f "$res" ] || continue
	kver=$(sed -n 's/^DONE //p' "$res" | head -n 1)
	[ -n "$kver" ] || continue
	out="$top/bench/results/$kver.json"
	old='[]'
	[ -n "${BENCH_ONLY:-}" ] && [ -f "$out" ] && old=$(jq -c --arg only ",$BENCH_ONLY," \
		'[.results[] | (.bench | ltrimstr("B")) as $b | select(($only | contains("," + $b + ",")) | not)]' "$out")
	sed -n 's/^BENCH //p' "$res" | jq -s --arg k "$kver" --arg d "$(date -u +%Y-%m-%dT%H:%M:%SZ)" \
		--arg host "$(uname -m), QEMU TCG single-threaded, 2 vCPUs, 1 GB" \
		--argjson old "$old" \
		'{ kernel: $k, date: $d, machine: $host,
		   results: ($old + map(. + { date: $d }) | sort_by(.bench)) }' > "$out.new" &&
		mv "$out.new" "$out"
	sh "$top/bench/table.sh" "$out"
done
exit $rc
