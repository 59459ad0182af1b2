#!/bin/sh
# capture-cost.sh - record the uprobe fixture of tests/cost.sh on this
# host (run by hand as root; the result is committed): 10,000 calls of
# ubench's bench_fn (bench/progs/ubench.c, libubench.so) under main, as
# a function_graph recording of user functions
# (tests/fixtures/cost/ubench.dat.gz). Many calls against report's
# start-up: its instructions a call are those of the calls.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
b=$top/build
h=$b/tests/helpers
fx=$top/tests/fixtures/cost
make -C "$top" -s all build/tests/helpers/ubench build/tests/helpers/libubench.so
mkdir -p "$fx"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$b/nopctl" record -q -G -o "$tmp/ubench.dat" "$h/ubench:*" "$h/libubench.so:bench_fn" -- "$h/ubench" 10000 > /dev/null
gzip -9c "$tmp/ubench.dat" > "$fx/ubench.dat.gz"
ls -l "$fx"
