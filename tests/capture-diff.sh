#!/bin/sh
# capture-diff.sh - record nopctl diff's fixtures on this host (run by
# hand as root; the results are committed): the user functions of
# udiff-a and udiff-b (tests/progs/udiff.c: one source, three known
# changes), five runs of each, as function_graph recordings
# (tests/fixtures/diff/{a,b}N.dat.gz); the first run of each also as
# graph's JSON and stats' JSON.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
b=$top/build
fx=$top/tests/fixtures/diff
make -C "$top" -s all build/tests/helpers/udiff-a build/tests/helpers/udiff-b
mkdir -p "$fx"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for i in 1 2 3 4 5; do
	for s in a b; do
		"$b/nopctl" record -q -G -o "$tmp/$s$i.dat" "$b/tests/helpers/udiff-$s:*" -- "$b/tests/helpers/udiff-$s" > /dev/null
		gzip -9c "$tmp/$s$i.dat" > "$fx/$s$i.dat.gz"
	done
done
for s in a b; do
	"$b/nopctl" report -q -j "$tmp/${s}1.dat" | gzip -9c > "$fx/${s}1.graph.json.gz"
	"$b/nopctl" report -q --stats -j "$tmp/${s}1.dat" > "$fx/${s}1.stats.json"
done
ls -l "$fx"
