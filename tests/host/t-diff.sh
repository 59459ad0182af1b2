#!/bin/sh
# t-diff.sh - nopctl diff held to a known truth: udiff-a and udiff-b
# (tests/progs/udiff.c) are one source built twice, B adding one call of
# extra() under work(), calling loop_body() 10 times as often and making
# slow() sleep twice as long. Recorded five times each on a host
# (tests/fixtures/diff/, tests/capture-diff.sh), every pair must show
# exactly those three changes, as functions and as paths, and nothing
# else; so must all five runs a side at once; two to four runs a side
# show the two changes of counts (time needs five); a run against itself
# or against another run of the same build shows none; the JSON of graph
# and of stats read as the recordings are; bad input is refused; many
# tasks and many names cost time and memory in proportion, and many
# calls no more memory than a few.
set -u
. "$(dirname "$0")/lib.sh"
fx=$top/tests/fixtures/diff
for f in "$fx"/*.gz; do
	gzip -dc "$f" > "$tmp/$(basename "$f" .gz)"
done
cp "$fx"/*.stats.json "$tmp/"
n=$b/nopctl
want_funcs='["extra","only_b"] ["loop_body","calls"] ["slow","time"]'
want_paths='["main>loop_body","calls"] ["main>slow","time"] ["main>work>extra","only_b"]'

# funcs/paths A B [OPTIONS]: the changed ones, sorted, one line
changes() {
	rc=0
	"$n" diff -j "$@" > "$tmp/j" 2> "$tmp/err" || rc=$?
	funcs=$(jq -c 'select(.type == "diff_func" and .changed) | [.func, (.change | join("+"))]' "$tmp/j" | sort | tr '\n' ' ' | sed 's/ $//')
	paths=$(jq -c 'select(.type == "diff_path" and .changed) | [(.path | join(">")), (.change | join("+"))]' "$tmp/j" | sort | tr '\n' ' ' | sed 's/ $//')
	first=$(jq -c 'select(.type == "diff_summary") | .first_divergence' "$tmp/j")
}

exact() { # LABEL A B: the three changes and no other
	changes "$2" "$3"
	[ "$rc" = 6 ] && [ "$funcs" = "$want_funcs" ] && [ "$paths" = "$want_paths" ] &&
		[ "$first" = '["main","work","extra"]' ] && ok ||
		bad "$1: exit $rc (wanted 6); functions $funcs (wanted $want_funcs); paths $paths (wanted $want_paths); first $first: $(head -c 300 "$tmp/err")"
}

none() { # LABEL A B: nothing changed
	changes "$2" "$3"
	[ "$rc" = 0 ] && [ -z "$funcs" ] && [ -z "$paths" ] && [ "$first" = null ] && ok ||
		bad "$1: exit $rc (wanted 0): changed $funcs $paths: $(head -c 300 "$tmp/err")"
}

for i in 1 2 3 4 5; do
	exact "run $i" "$tmp/a$i.dat" "$tmp/b$i.dat"
	none "run $i against itself" "$tmp/a$i.dat" "$tmp/a$i.dat"
done
exact "five runs a side" "$tmp/a1.dat,$tmp/a2.dat,$tmp/a3.dat,$tmp/a4.dat,$tmp/a5.dat" \
	"$tmp/b1.dat,$tmp/b2.dat,$tmp/b3.dat,$tmp/b4.dat,$tmp/b5.dat"
# another run of the same build is noise, never a change
for i in 2 3 4 5; do
	none "udiff-a run 1 against run $i" "$tmp/a1.dat" "$tmp/a$i.dat"
	none "udiff-b run 1 against run $i" "$tmp/b1.dat" "$tmp/b$i.dat"
done
none "A's runs split in two" "$tmp/a1.dat,$tmp/a2.dat" "$tmp/a3.dat,$tmp/a4.dat,$tmp/a5.dat"
none "B's runs split in two" "$tmp/b1.dat,$tmp/b2.dat,$tmp/b3.dat" "$tmp/b4.dat,$tmp/b5.dat"

# two to four runs a side (or one against several): too few for a split
# of the runs to tell time from noise, but a function only one side calls
# in every run, and a count of the program's own the same in every run of
# each side and different between them, are changes whatever the runs
want_counts_f='["extra","only_b"] ["loop_body","calls"]'
want_counts_p='["main>loop_body","calls"] ["main>work>extra","only_b"]'
few() { # LABEL A B: the two changes of counts, and what was not judged said
	changes "$2" "$3"
	judged=$(jq -c 'select(.type == "diff_summary") | [.judged, .not_judged]' "$tmp/j")
	[ "$rc" = 6 ] && [ "$funcs" = "$want_counts_f" ] && [ "$paths" = "$want_counts_p" ] &&
		[ "$first" = '["main","work","extra"]' ] &&
		[ "$judged" = '[["steady_counts","steady_failures"],["time","varying_counts"]]' ] && ok ||
		bad "$1: exit $rc (wanted 6); functions $funcs (wanted $want_counts_f); paths $paths (wanted $want_counts_p); first $first; judged $judged: $(head -c 300 "$tmp/err")"
}
few "two runs a side" "$tmp/a1.dat,$tmp/a2.dat" "$tmp/b1.dat,$tmp/b2.dat"
few "three runs a side" "$tmp/a1.dat,$tmp/a2.dat,$tmp/a3.dat" "$tmp/b1.dat,$tmp/b2.dat,$tmp/b3.dat"
few "four runs a side" "$tmp/a2.dat,$tmp/a3.dat,$tmp/a4.dat,$tmp/a5.dat" "$tmp/b1.dat,$tmp/b3.dat,$tmp/b4.dat,$tmp/b5.dat"
few "one run against three" "$tmp/a4.dat" "$tmp/b1.dat,$tmp/b2.dat,$tmp/b5.dat"
rc=0
"$n" diff "$tmp/a1.dat,$tmp/a2.dat,$tmp/a3.dat" "$tmp/b1.dat,$tmp/b2.dat,$tmp/b3.dat" > "$tmp/t" 2> "$tmp/err" || rc=$?
grep -q '^# 3 runs against 3: judged: ' "$tmp/t" && grep -q '^# not judged: time' "$tmp/t" &&
	grep -Eq '^extra .*only in B$' "$tmp/t" && ! grep -q 'nothing is judged' "$tmp/t" && [ "$rc" = 6 ] && ok ||
	bad "three runs a side, text: exit $rc: $(head -c 1500 "$tmp/t")"
changes "$tmp/a1.dat,$tmp/a2.dat,$tmp/a3.dat,$tmp/a4.dat,$tmp/a5.dat" "$tmp/b1.dat,$tmp/b2.dat,$tmp/b3.dat,$tmp/b4.dat,$tmp/b5.dat"
jq -e -n '[inputs | select(.type == "diff_summary")][0] | .judged == ["counts","failures","time"] and .not_judged == []' \
	"$tmp/j" > /dev/null && ok || bad "five runs a side: what is judged: $(grep diff_summary "$tmp/j")"

# the figures behind the verdicts: the calls counted, slow's median about doubled
changes "$tmp/a1.dat" "$tmp/b1.dat"
fn() { jq -e -n "[inputs | select(.type == \"diff_func\" and .func == \"$1\")][0] | $2" "$tmp/j" > /dev/null; }
fn loop_body '.a.calls == 200 and .b.calls == 2000' &&
	fn slow '.p < 0.001 and (.self_median_b_ns / .self_median_a_ns) > 1.8 and (.self_median_b_ns / .self_median_a_ns) < 2.2' &&
	fn extra '.a == null and .b.calls == 1' && ok ||
	bad "the figures of loop_body, slow and extra: $(grep -E '"(loop_body|slow|extra)"' "$tmp/j" | head -c 600)"

# graph's JSON reads as its recording does
exact "graph JSON" "$tmp/a1.graph.json" "$tmp/b1.graph.json"
none "graph JSON against its recording" "$tmp/a1.graph.json" "$tmp/a1.dat"

# stats' rows: calls and functions only one side has; no time verdict
# from one run a side (nothing tells noise from change), no call flow
changes "$tmp/a1.stats.json" "$tmp/b1.stats.json"
[ "$rc" = 6 ] && [ "$funcs" = '["extra","only_b"] ["loop_body","calls"]' ] && [ -z "$paths" ] && ok ||
	bad "stats JSON: exit $rc, functions $funcs, paths $paths"

# trace-cmd's recordings (tests/fixtures/tracecmd/): the same file, none;
# two recordings of different runs, their calls counted
tc=$top/tests/fixtures/tracecmd
none "trace-cmd 3.3.1's graph against itself" "$tc/3.3.1-graph-zstd.dat" "$tc/3.3.1-graph-zstd.dat"
changes "$tc/3.1.6-graph-none.dat" "$tc/3.4-graph-zstd.dat"
[ "$rc" = 6 ] && fn do_sys_openat2 '.a.calls >= 1 and .b.calls >= 1' && ok ||
	bad "trace-cmd 3.1.6's graph against 3.4's: exit $rc: $(head -c 300 "$tmp/err")"

# text: the table, and the call flow marked like diff -u
rc=0
"$n" diff "$tmp/a1.dat" "$tmp/b1.dat" > "$tmp/t" 2> "$tmp/err" || rc=$?
grep -q '^# first divergence: main > work > extra: only in B$' "$tmp/t" &&
	grep -Eq '^\+     extra +1 call, ' "$tmp/t" &&
	grep -Eq '^-   loop_body +200 calls, ' "$tmp/t" && grep -Eq '^\+   loop_body +2000 calls, .*calls 200 -> 2000' "$tmp/t" &&
	grep -Eq '^-   slow +20 calls, self 1\.[0-9]+ ms per call$' "$tmp/t" &&
	grep -Eq '^\+   slow +20 calls, self 2\.[0-9]+ ms per call .*self .* -> .* per call \(\+' "$tmp/t" &&
	grep -Eq '^  main ' "$tmp/t" && grep -q '^# 3 of 8 functions changed' "$tmp/t" && [ "$rc" = 6 ] && ok ||
	bad "text: exit $rc: $(cat "$tmp/t" "$tmp/err" | head -c 1500)"

# folded: one line per path with self time, A's and B's
"$n" diff -F folded "$tmp/a1.dat" "$tmp/b1.dat" > "$tmp/f" 2> "$tmp/err"
awk '$1 == "main;slow" && $3 > 1.8 * $2 && $3 < 2.2 * $2 { s = 1 }
     $1 == "main;work;extra" && $2 == 0 && $3 > 0 { e = 1 }
     $1 == "main;loop_body" && $3 > 5 * $2 { l = 1 }
     NF != 3 { bad = 1 }
     END { exit !(s && e && l && !bad) }' "$tmp/f" && ok ||
	bad "folded: $(head -c 600 "$tmp/f")"

# svg: well-formed, extra drawn red (B only; a changed path at least
# 1 px wide however short), slow red
"$n" diff -F svg -o "$tmp/d.svg" "$tmp/a1.dat" "$tmp/b1.dat" 2> "$tmp/err"
python3 -c 'import sys, xml.etree.ElementTree as E; E.parse(sys.argv[1])' "$tmp/d.svg" 2> "$tmp/xerr" &&
	grep -q '<title>extra (A 0 ns, B [^;]*; only in B)</title><rect [^>]*width="1.0" [^>]*fill="rgb(255,' "$tmp/d.svg" &&
	grep -q '<title>slow (A [^;]*; self [^<]*)</title><rect [^>]*fill="rgb(255,' "$tmp/d.svg" && ok ||
	bad "svg: $(head -c 300 "$tmp/xerr") $(grep -E '<title>(extra|slow)' "$tmp/d.svg" | head -c 600)"

# --all: the unchanged too; --min-change 200: slow's +95% no longer counts
"$n" diff --all "$tmp/a1.dat" "$tmp/b1.dat" > "$tmp/t" 2>&1
grep -Eq '^helper .* =$' "$tmp/t" && grep -q '^# 3 of 8 functions changed$' "$tmp/t" && ok ||
	bad "--all: $(head -c 800 "$tmp/t")"
changes "$tmp/a1.dat" "$tmp/b1.dat" --min-change 200
[ "$funcs" = '["extra","only_b"] ["loop_body","calls"]' ] && ok || bad "--min-change 200: $funcs"

# failures (--retval): uslow's tryopen() fails 7 times in 14 calls, and
# in 7 calls all 7 times; what the traced command printed among the JSON
# lines is passed over
for nn in 14 7; do
	"$n" graph -q -j --retval "$b/tests/helpers/uslow:tryopen" -- "$b/tests/helpers/uslow" fail $nn > "$tmp/f$nn.json" 2> "$tmp/err" ||
		bad "graph --retval uslow fail $nn: $(head -c 300 "$tmp/err")"
done
changes "$tmp/f14.json" "$tmp/f7.json"
fn tryopen '.a.errors == 7 and .b.errors == 7 and .a.calls == 14 and .b.calls == 7 and .b.errnos.ENOENT == 7 and (.change | index("errors") != null)' &&
	"$n" diff "$tmp/f14.json" "$tmp/f7.json" | grep -q '^+ tryopen .* 7 failed (ENOENT 7)  (calls 14 -> 7 (x0.50), fails more or less: failed 7 of 14 -> 7 of 7 (B: ENOENT 7))$' && ok ||
	bad "failures: $(grep tryopen "$tmp/j" | head -c 600)"

# bad input: exit 2, a message naming what would work, nothing written
for args in "$tmp/a1.dat" "$tmp/a1.dat $tmp/b1.dat $tmp/b2.dat" "$tmp/a1.dat, $tmp/b1.dat" \
	"$tmp/nonexistent.dat $tmp/b1.dat" "$top/README.md $tmp/b1.dat" "-F dot $tmp/a1.dat $tmp/b1.dat" \
	"--alpha 2 $tmp/a1.dat $tmp/b1.dat" "--min-change -1 $tmp/a1.dat $tmp/b1.dat"; do
	rc=0
	# shellcheck disable=SC2086 # args are words
	"$n" diff $args > "$tmp/out" 2> "$tmp/err" || rc=$?
	[ "$rc" = 2 ] && [ ! -s "$tmp/out" ] && grep -Eq 'give|formats are|cannot open|not a trace.dat' "$tmp/err" && ok ||
		bad "diff $args: exit $rc (wanted 2): $(head -c 300 "$tmp/err")"
done
echo '{"type":"entry"}' > "$tmp/empty.json"
rc=0
"$n" diff -j "$tmp/empty.json" "$tmp/b1.dat" > "$tmp/out" 2> "$tmp/err" || rc=$?
[ "$rc" = 2 ] && jq -e -n '[inputs | select(.type == "error")][0] | .status == 2' "$tmp/out" > /dev/null && grep -q 'holds no calls' "$tmp/err" && ok ||
	bad "a JSON file without calls: exit $rc: $(head -c 300 "$tmp/err")"

# many tasks: one call in each of 400,000 pids is linear work (a second
# or two); a look-up of each pid among all the others took 58 s at
# 160,000 pids, and grows as their square (some six minutes at 400,000)
awk 'BEGIN { for (i = 1; i <= 400000; i++)
	printf "{\"type\":\"call\",\"pid\":%d,\"func\":\"f%d\",\"depth\":0,\"duration_ns\":100,\"self_ns\":100}\n", i, i % 3 }' > "$tmp/pids.json"
rc=0
timeout 120 "$n" diff -j "$tmp/pids.json" "$tmp/pids.json" > "$tmp/j" 2> "$tmp/err" || rc=$?
[ "$rc" = 0 ] && jq -e -n '[inputs | select(.type == "diff_func" and .func == "f1")][0] | .a.calls == 133334' "$tmp/j" > /dev/null && ok ||
	bad "400,000 pids of one call: exit $rc (124: still running after 120 s): $(head -c 300 "$tmp/err")"
rm -f "$tmp/pids.json"

# peak_kb CMD...: CMD's peak resident size in KiB (a process doing
# nothing else); negative: its exit status, when not 0
peak_kb() {
	python3 -c 'import resource, subprocess, sys
rc = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL).returncode
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss if rc == 0 else -rc)' "$@"
}

# many names: 100,000 functions called once each, a side's memory per
# name (its peak resident size, of a process doing nothing else) held
# to 3.6 KiB a name; every call's times were pooled in arrays of 16 at
# the least, four a name, and copied once more per run (4.4 KiB a name)
awk 'BEGIN { for (i = 1; i <= 100000; i++)
	printf "{\"type\":\"call\",\"pid\":%d,\"func\":\"some_module_function_name_%d\",\"depth\":0,\"duration_ns\":%d,\"self_ns\":%d,\"binary\":\"/usr/bin/prog\"}\n", 1000 + i % 50, i, 100 + i % 97, 100 + i % 97 }' > "$tmp/names.json"
kb=$(peak_kb "$n" diff -q "$tmp/names.json" "$tmp/names.json")
[ "$kb" -gt 0 ] && [ "$kb" -le $((100000 * 36 / 10)) ] && ok ||
	bad "100,000 names: peak $kb KiB (wanted 360,000 KiB at most; negative: the exit)"
rm -f "$tmp/names.json"

# many calls: a day's recording diffs in a fixed memory. Two functions
# called 50,000 and 500,000 times (durations spread over a few us): ten
# times the calls cost no more memory than the first (each call's two
# times were kept: 13.8 MB for the first, 67.7 MB for the second)
calls_json() {
	awk -v n="$1" 'BEGIN { for (i = 1; i <= n; i++)
		printf "{\"type\":\"call\",\"pid\":7,\"func\":\"f%d\",\"depth\":0,\"duration_ns\":%d,\"self_ns\":%d,\"binary\":\"/usr/bin/prog\"}\n", i % 2, 1000 + (i * 7919) % 5003, 500 + (i * 104729) % 3001 }'
}
calls_json 50000 > "$tmp/calls1.json"
calls_json 500000 > "$tmp/calls10.json"
kb1=$(peak_kb "$n" diff -q "$tmp/calls1.json" "$tmp/calls1.json")
kb10=$(peak_kb "$n" diff -q "$tmp/calls10.json" "$tmp/calls10.json")
[ "$kb1" -gt 0 ] && [ "$kb10" -gt 0 ] && [ "$kb10" -le $((kb1 + 4096)) ] && ok ||
	bad "50,000 calls a side peak at $kb1 KiB, 500,000 at $kb10 KiB (wanted at most 4 MiB more; negative: the exit)"
rm -f "$tmp/calls1.json" "$tmp/calls10.json"

# hostile input is refused, exit 2, before it costs memory: what is no
# regular file (a device, a pipe: /dev/zero grew past 5 GB), a line
# longer than any nopctl prints, a name longer than any symbol
mkfifo "$tmp/fifo"
head -c 2000000 /dev/zero | tr '\0' x | sed 's/^/{"type":"call","pid":1,"depth":0,"func":"/; s/$/"}/' > "$tmp/longline.json"
{ head -n 3 "$tmp/a1.graph.json"; printf '{"type":"call","pid":1,"depth":0,"func":"'; head -c 100000 /dev/zero | tr '\0' x; echo '"}'; } > "$tmp/longname.json"
for bad in "/dev/zero:not a regular file" "$tmp/fifo:not a regular file" "$tmp:not a regular file" \
	"$tmp/longline.json:line 1 is longer than" "$tmp/longname.json:line 4 names a function of 100000 bytes"; do
	f=${bad%%:*} why=${bad#*:}
	rc=0
	(ulimit -v 4000000 && timeout 20 "$n" diff "$f" "$tmp/b1.dat") > "$tmp/out" 2> "$tmp/err" || rc=$?
	[ "$rc" = 2 ] && [ ! -s "$tmp/out" ] && grep -qF "$f" "$tmp/err" && grep -qF "$why" "$tmp/err" && grep -q 'give ' "$tmp/err" && ok ||
		bad "diff $f: exit $rc (wanted 2, '$why'): $(head -c 300 "$tmp/err")"
done
# a traced command's own long line among graph's JSON is passed over
{ head -c 3000000 /dev/zero | tr '\0' y; echo; cat "$tmp/a1.graph.json"; } > "$tmp/output.json"
none "a command's 3 MB line among graph's JSON" "$tmp/output.json" "$tmp/a1.graph.json"
echo "diff: $pass passed, $fail failed"
[ "$fail" = 0 ]
