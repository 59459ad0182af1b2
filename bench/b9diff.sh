#!/bin/sh
# b9diff.sh [N] [RUNS] - bench B9: what nopctl diff costs. Records RUNS
# function_graph runs a side of N calls of bench_fn (ubench N, through
# uprobes: run natively, as root, on a kernel with uprobes), then runs
# nopctl diff on one run a side and on all of them, each under rusage
# (bench/progs/rusage.c): CPU seconds and peak RSS. Prints one JSON
# object per comparison.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
b=${NOPCTL_BUILD:-$top/build}
n=${1:-1000000}
runs=${2:-3}
h=$b/tests/helpers
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
a= bb=
for i in $(seq 1 "$runs"); do
	for s in a b; do
		"$b/nopctl" record -q -G -b 65536 -o "$T/$s$i.dat" "$h/libubench.so:bench_fn" -- "$h/ubench" "$n" > /dev/null
	done
	a=$a${a:+,}$T/a$i.dat bb=$bb${bb:+,}$T/b$i.dat
done
for cmp in "1 $T/a1.dat $T/b1.dat" "$runs $a $bb"; do
	set -- $cmp
	rm -f "$T/ru" # rusage -o appends
	"$h/rusage" -o "$T/ru" "$b/nopctl" diff -j "$2" "$3" > "$T/out" 2> /dev/null || true
	# every call of every run was read: bench_fn's count in the table
	got=$(jq -s 'map(select(.type == "diff_func" and .func == "bench_fn"))[0] | .a.calls' "$T/out")
	jq -c --argjson runs "$1" --argjson n "$n" --argjson got "$got" \
		'{figure: "B9", runs_a_side: $runs, calls_per_run: $n, calls_read_per_run: $got, wall_s, cpu_s: (.user_s + .sys_s),
		  maxrss_kb, ns_per_call: ((.user_s + .sys_s) * 1e9 / ($n * 2 * $runs) | floor),
		  bytes_per_call: (.maxrss_kb * 1024 / ($n * 2 * $runs) | floor)}' "$T/ru"
done
