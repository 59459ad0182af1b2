#!/bin/sh
# queue.sh JOBS PLAN LOGDIR - run PLAN's lines (each a shell command: one
# guest, or the host's checks) JOBS at a time, in PLAN's order, each
# taken by whichever worker is free: with the longest lines first, two
# workers end within about the shortest line of each other. Each line's
# output goes to LOGDIR/N.log and is printed whole once every line has
# ended, in PLAN's order; each line's exit status and seconds as it ends.
# Exits 1 if any line did. Blank lines and lines starting with # are not
# run.
set -u
jobs=$1 plan=$2 logs=$3
mkdir -p "$logs"
rm -f "$logs"/*.log "$logs"/*.rc "$logs"/next
grep -v -e '^[[:space:]]*$' -e '^[[:space:]]*#' "$plan" > "$logs/plan"
n=$(wc -l < "$logs/plan")
echo 1 > "$logs/next"

# take: the next line's number, or nothing when none is left; the lock
# makes each number go to one worker
take() {
	(
		flock 9
		i=$(cat "$logs/next")
		[ "$i" -le "$n" ] || exit 0
		echo $((i + 1)) > "$logs/next"
		echo "$i"
	) 9> "$logs/lock"
}

worker() {
	while i=$(take) && [ -n "$i" ]; do
		cmd=$(sed -n "${i}p" "$logs/plan")
		start=$(date +%s)
		sh -c "$cmd" > "$logs/$i.log" 2>&1 < /dev/null
		rc=$?
		echo "$rc" > "$logs/$i.rc"
		echo "[queue $i/$n] exit $rc in $(($(date +%s) - start)) s: $cmd"
	done
}

w=0
pids=
while [ "$w" -lt "$jobs" ]; do
	worker &
	pids="$pids $!"
	w=$((w + 1))
done
for p in $pids; do wait "$p"; done

rc=0
i=1
while [ "$i" -le "$n" ]; do
	echo "== [queue $i/$n] $(sed -n "${i}p" "$logs/plan")"
	cat "$logs/$i.log" 2>/dev/null
	[ "$(cat "$logs/$i.rc" 2>/dev/null)" = 0 ] || rc=1
	i=$((i + 1))
done
exit $rc
