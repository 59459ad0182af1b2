#!/bin/sh
# t-files.sh - the files of catch and of bounded recordings (issue 54,
# items 2, 6, 14, 16), natively with user functions: a directory of catch
# files made when -o names one that is not there (and refused where the
# trust rules refuse); a size bound that ends the recording, not the
# program; a file under its final name always whole (kill -9 mid-rotation,
# ENOSPC on a small tmpfs); a planted link at one name skipped, the run
# going on.
set -u
. "$(dirname "$0")/lib.sh"
bin=$b/nopctl
h=$b/tests/helpers
T=$tmp
no() { bad "$@"; }
need_root files
trap 'umount "$T/small" 2> /dev/null; rm -rf "$T"; [ -z "${busy:-}" ] || kill $busy 2> /dev/null' EXIT
has_tc() { command -v trace-cmd > /dev/null; }

# whole FILE...: every file read whole by nopctl report and trace-cmd report
whole() {
	for f in "$@"; do
		"$bin" report -q "$f" > /dev/null 2> "$T/whole.err" || { echo "nopctl report $f: $(tail -1 "$T/whole.err")"; return 1; }
		if has_tc; then
			trace-cmd report "$f" > "$T/whole.out" 2> "$T/whole.err" ||
				{ echo "trace-cmd report $f: $(tail -1 "$T/whole.err")"; return 1; }
			# every event's format in the file (a catch's switches: off-CPU time)
			! grep -q 'UNKNOWN EVENT' "$T/whole.out" ||
				{ echo "trace-cmd report $f: $(grep -c 'UNKNOWN EVENT' "$T/whole.out") events of no format"; return 1; }
		fi
	done
	return 0
}

# ---- item 6: --max-size without --rotate ends the recording, not COMMAND
rc=0
"$bin" record --max-size 1M -o "$T/m.dat" "$h/libubench.so:bench_fn" -- \
	sh -c "'$h/ubench' 700000 > /dev/null; echo done; exit 7" > "$T/m.out" 2> "$T/m.err" || rc=$?
[ "$rc" = 7 ] && grep -qx done "$T/m.out" && ok ||
	no "--max-size: exit $rc (the command's own: 7), output '$(cat "$T/m.out")': $(tail -3 "$T/m.err")"
grep -q "stopped at the size limit" "$T/m.err" && grep -q "command runs on untraced" "$T/m.err" && ok ||
	no "--max-size: the summary does not say where it stopped: $(cat "$T/m.err")"
w=$(whole "$T/m.dat") && ok || no "--max-size: $w"
inst=$(sed -n 's/.* in instance \(nopctl-[0-9]*\).*/\1/p' "$T/m.err")
[ -n "$inst" ] && [ ! -e "/sys/kernel/tracing/instances/$inst" ] && ok || no "--max-size left its instance '$inst'"

# ---- item 7: files compressed as trace-cmd 3 writes them (version 7,
# zstd chunks), version 6 with --compression none; every call in each, as
# nopctl and trace-cmd read them
calls() { # FILE: bench_fn's calls as nopctl report and trace-cmd report count them
	c=$("$bin" report -q "$1" 2> /dev/null | grep -c ' bench_fn ')
	has_tc && c="$c $(trace-cmd report "$1" 2> /dev/null | grep -c ' bench_fn: ')"
	echo "$c"
}
for z in zstd none; do
	rc=0
	"$bin" record --compression $z -o "$T/z-$z.dat" "$h/libubench.so:bench_fn" -- "$h/ubench" 50000 \
		> /dev/null 2> "$T/z.err" || rc=$?
	got=$(calls "$T/z-$z.dat")
	want=50000
	has_tc && want="50000 50000"
	[ "$rc" = 0 ] && [ "$got" = "$want" ] && ok || no "--compression $z: exit $rc, calls $got: $(tail -2 "$T/z.err")"
done
head=$(dd if="$T/z-zstd.dat" bs=1 skip=10 count=1 2> /dev/null)$(dd if="$T/z-zstd.dat" bs=1 skip=18 count=4 2> /dev/null)
[ "$head" = 7zstd ] && [ "$(dd if="$T/z-none.dat" bs=1 skip=10 count=1 2> /dev/null)" = 6 ] && ok ||
	no "versions: the default's '$head' (7zstd), --compression none's not 6"
s7=$(stat -c %s "$T/z-zstd.dat")
s6=$(stat -c %s "$T/z-none.dat")
[ $((s7 * 4)) -lt "$s6" ] && ok || no "compressed: $s7 bytes against $s6 uncompressed (not 4x smaller)"
rc=0
"$bin" record --compression lz4 -o "$T/z-lz4.dat" "$h/libubench.so:bench_fn" -- "$h/ubench" 10 > /dev/null 2> "$T/z.err" || rc=$?
[ "$rc" = 2 ] && grep -q "give zstd or none" "$T/z.err" && [ ! -e "$T/z-lz4.dat" ] && ok ||
	no "--compression lz4: exit $rc: $(cat "$T/z.err")"
# the bound holds for the bytes on disk, and is used: every file but the
# newest near 1M, none over it; every call in one of them
rc=0
"$bin" record --max-size 1M --rotate 100 -o "$T/zb/r.dat" "$h/libubench.so:bench_fn" -- "$h/ubench" 1000000 \
	> /dev/null 2> "$T/zb.err" || rc=$?
n=0 sum=0 sumtc=0 sizes=""
for f in $(ls "$T"/zb/r.dat.* | awk -F. '{ print $NF, $0 }' | sort -n | cut -d' ' -f2); do
	n=$((n + 1))
	set -- $(calls "$f") 0
	sum=$((sum + $1))
	sumtc=$((sumtc + $2))
	sizes="$sizes $(stat -c %s "$f")"
done
over=$(echo "$sizes" | tr ' ' '\n' | awk '$1 > 1048576' | wc -l)
small=$(echo "$sizes" | tr ' ' '\n' | sed '$d' | awk 'NF && $1 < 900000' | wc -l)
has_tc || sumtc=1000000
grep -q "nothing lost" "$T/zb.err" || sum=1000000 sumtc=1000000 # what was lost is counted, not judged here
[ "$rc" = 0 ] && [ "$n" -ge 2 ] && [ "$over" = 0 ] && [ "$small" = 0 ] && [ "$sum" = 1000000 ] && [ "$sumtc" = 1000000 ] && ok ||
	no "--max-size 1M, compressed: exit $rc, $n files of$sizes bytes, calls $sum (trace-cmd $sumtc): $(tail -2 "$T/zb.err")"

# ---- item 2: catch -o DIR/ makes DIR (0700); a link, a shared directory refused
rc=0
strace -f -qq -e trace=openat -o "$T/c.strace" \
	"$bin" catch --slower-than 50ms -o "$T/caught/" "$h/uslow:nap" -- "$h/uslow" slow 140 > "$T/c.out" 2> "$T/c.err" || rc=$?
[ "$rc" = 0 ] && [ "$(stat -c %a "$T/caught" 2> /dev/null)" = 700 ] && [ -f "$T/caught/catch-0001.dat" ] &&
	n=$(ls "$T/caught" | wc -l) && [ "$n" -ge 7 ] &&
	[ "$n" -le "$(sed -n 's/^over50ms \([0-9]*\)$/\1/p' "$T/c.err")" ] && ok || # (uslow's naps over 50 ms)
	no "catch -o DIR/ (absent): exit $rc, $(ls -la "$T/caught" 2>&1 | head -3): $(tail -2 "$T/c.err")"
w=$(whole "$T/caught"/catch-*.dat) && ok || no "catch -o DIR/: $w"
# kallsyms read once for all the files: each read (tens of ms here, far
# more under emulation) held up the reader while the buffer filled
k=$(grep -c '"/proc/kallsyms"' "$T/c.strace")
[ "$k" = 1 ] && ok || no "catch -o DIR/: /proc/kallsyms read $k times for $(ls "$T/caught" | wc -l) files"
# -o c1, absent, no slash: the trees as text in a file c1, and said so
rc=0
"$bin" catch --slower-than 50ms -o "$T/c1" "$h/uslow:nap" -- "$h/uslow" slow 14 > /dev/null 2> "$T/c.err" || rc=$?
[ "$rc" = 0 ] && [ -f "$T/c1" ] && grep -q "nap" "$T/c1" &&
	grep -q "writes the caught trees as text to $T/c1; for a directory of catch files give -o $T/c1/" "$T/c.err" && ok ||
	no "catch -o c1 (absent): exit $rc: $(cat "$T/c.err")"
mkdir "$T/shared" "$T/real"
chmod 0777 "$T/shared"
ln -s "$T/real" "$T/link"
for d in shared link; do
	rc=0
	"$bin" catch --slower-than 50ms -o "$T/$d/" "$h/uslow:nap" -- "$h/uslow" slow 14 > /dev/null 2> "$T/c.err" || rc=$?
	[ "$rc" = 2 ] && grep -q "refusing" "$T/c.err" && [ -z "$(ls "$T/$d/")" ] && ok ||
		no "catch -o $d/: exit $rc, wanted 2 refused: $(cat "$T/c.err")"
done
# another user's own directory (root recording in a user's home): taken
mkdir "$T/home"
chown nobody "$T/home" && chmod 0755 "$T/home"
rc=0
"$bin" catch --slower-than 50ms -o "$T/home/" "$h/uslow:nap" -- "$h/uslow" slow 14 > /dev/null 2> "$T/c.err" || rc=$?
[ "$rc" = 0 ] && [ -f "$T/home/catch-0001.dat" ] && ok ||
	no "catch -o into another user's 0755 directory: exit $rc: $(tail -2 "$T/c.err")"
# record --rotate into a directory not there: made, 0700
rc=0
"$bin" record --max-size 1M --rotate 2 -o "$T/rot/r.dat" "$h/libubench.so:bench_fn" -- "$h/ubench" 100000 100000 \
	> /dev/null 2> "$T/r.err" || rc=$?
[ "$rc" = 0 ] && [ "$(stat -c %a "$T/rot" 2> /dev/null)" = 700 ] && ls "$T/rot" | grep -q "^r\.dat\.[0-9]*$" && ok ||
	no "record --rotate -o DIR/FILE (DIR absent): exit $rc: $(tail -2 "$T/r.err")"

# ---- items 14, 16: a planted link at the next rotation name is skipped
mkdir "$T/pl"
ln -s "$T/victim" "$T/pl/r.dat.2"
rc=0
"$bin" record --compression none --overwrite --max-size 1M --rotate 3 -o "$T/pl/r.dat" "$h/libubench.so:bench_fn" -- \
	"$h/ubench" 400000 200000 > /dev/null 2> "$T/pl.err" || rc=$?
n=$(ls "$T/pl" | grep -c '^r\.dat\.[0-9]*$')
# (a file rotated away before its writer's turn is never written: then
# its name was never reached, and the link is left as it is, unsaid)
said() {
	grep -q "skipped, the last $T/pl/r.dat.2 (a symbolic link there)" "$T/pl.err" &&
		grep -q "^nopctl: skipped $T/pl/r.dat.2: a symbolic link there; the recording goes on" "$T/pl.err"
}
[ "$rc" = 0 ] && [ -L "$T/pl/r.dat.2" ] && [ ! -e "$T/victim" ] && [ "$n" -ge 3 ] &&
	{ said || { ! grep -q "r\.dat\.2\($\|[^0-9]\)" "$T/pl.err" && grep -q "^nopctl: files: .* older removed" "$T/pl.err"; }; } && ok ||
	no "a link at the next rotation name: exit $rc, $n files: $(ls -l "$T/pl") $(tail -3 "$T/pl.err")"
w=$(whole $(ls "$T"/pl/r.dat.* | grep -v 'r\.dat\.2$')) && ok || no "rotation past a link: $w"
# catch --overwrite: a link at one catch file's name, the others written
mkdir "$T/cl"
ln -s "$T/victim" "$T/cl/catch-0002.dat"
rc=0
"$bin" catch --overwrite --slower-than 50ms -o "$T/cl" "$h/uslow:nap" -- "$h/uslow" slow 140 > /dev/null 2> "$T/cl.err" || rc=$?
[ "$rc" = 0 ] && [ ! -e "$T/victim" ] && [ "$(ls "$T/cl" | grep -c 'catch-.*dat$')" = 7 ] && [ -f "$T/cl/catch-0007.dat" ] &&
	grep -q "skipped $T/cl/catch-0002.dat" "$T/cl.err" && ok ||
	no "catch with a link at one name: exit $rc: $(ls "$T/cl" | tr '\n' ' ') $(tail -3 "$T/cl.err")"

# ---- kill -9 mid-rotation: every file under a final name whole, none empty;
# on a box kept busy by others (a loop per CPU and one more): files are
# written all the same, not only when a CPU is idle
busy=""
for i in $(seq 0 "$(nproc)"); do
	sh -c 'while :; do :; done' &
	busy="$busy $!"
done
for how in "--max-size 1M --rotate 3" "--split 300ms --rotate 4"; do
	rm -rf "$T/k9"
	mkdir "$T/k9"
	# shellcheck disable=SC2086
	"$bin" record $how -o "$T/k9/r.dat" "$h/libubench.so:bench_fn" -- "$h/ubench" 2000000 200000 \
		> /dev/null 2> "$T/k9.err" &
	pid=$!
	# a file finished, the next one being written: then killed (1 MB
	# of zstd holds about 500,000 calls: 6 s of ubench's traced calls on
	# a quiet host, three times that on a busy one)
	i=0
	while [ "$i" -lt 1200 ] && kill -0 "$pid" 2> /dev/null && ! ls "$T/k9" | grep -q '^r\.dat\.[0-9]*$'; do
		sleep 0.1
		i=$((i + 1))
	done
	sleep 0.4
	kill -9 "$pid"
	wait "$pid" 2> /dev/null
	pkill -x ubench 2> /dev/null # its parent is gone: not ours to wait for
	n=$(ls "$T/k9" | grep -c '^r\.dat\.[0-9]*$')
	w=$(whole "$T"/k9/r.dat.*) && [ "$n" -ge 1 ] && ok || no "kill -9 ($how): $n files: $w"
	[ -z "$(find "$T/k9" -type f -empty)" ] && ok || no "kill -9 ($how): an empty file left: $(ls -la "$T/k9")"
	"$bin" reset > /dev/null 2>&1
	[ -z "$(ls -A "$T/k9" | grep -v '^r\.dat\.[0-9]*$')" ] && ok || no "kill -9 ($how): left $(ls -A "$T/k9")"
done
# shellcheck disable=SC2086
kill $busy

# ---- ENOSPC mid-rotation on a 2 MB tmpfs: the files done stay readable
mkdir "$T/small"
if mount -t tmpfs -o size=2m tmpfs "$T/small"; then
	rc=0
	"$bin" record --max-size 1M --rotate 5 -o "$T/small/r.dat" "$h/libubench.so:bench_fn" -- \
		"$h/ubench" 1500000 > /dev/null 2> "$T/sp.err" || rc=$?
	n=$(ls "$T/small" | grep -c '^r\.dat\.[0-9]*$')
	w=$(whole "$T"/small/r.dat.*) && [ "$n" -ge 1 ] && [ "$rc" != 0 ] && grep -q "No space left" "$T/sp.err" && ok ||
		no "ENOSPC mid-rotation: exit $rc, $n files ($(ls -la "$T/small")): $w $(tail -2 "$T/sp.err")"
	# the files line names those left whole, and only those
	listed=$(sed -n 's/^nopctl: files: //p' "$T/sp.err" | tr ',' '\n' | sed 's/^ *//; s/ (.*//; s/;.*//' | sort)
	[ -n "$listed" ] && [ "$listed" = "$(ls "$T"/small/r.dat.* | sort)" ] && ok ||
		no "ENOSPC: files listed '$listed', there: $(ls "$T"/small/r.dat.*)"
	[ -z "$(find "$T/small" -type f -empty)" ] && ok || no "ENOSPC: an empty file left: $(ls -la "$T/small")"
	umount "$T/small"
else
	no "cannot mount a tmpfs"
fi
"$bin" reset > /dev/null 2>&1

echo "files: $pass passed, $fail failed"
[ "$fail" = 0 ]
