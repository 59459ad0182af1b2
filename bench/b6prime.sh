#!/bin/sh
# b6prime.sh TOOL N [BIN] - bench B6': how long a tracer takes to start
# (from its launch to the traced program's main: its probes placed and
# enabled) and to stop (from the program's last instruction to the
# tracer's exit: its probes disabled and removed) with N functions of
# umany (bench/progs/umany.sh: N = 10, 100, 1000 or 10000) probed. TOOL:
# nopctl-trace (entries), nopctl-stats (entries and exits), perf (perf
# probe -x + perf record + perf probe -d, entries), bpftrace (entries).
# Prints one JSON object; runs natively or in the VM (bench/t-bench.sh).
set -u
tool=$1 n=$2
bin=${3:-$(command -v umany)}
case $n in 10) g='f0000*' ;; 100) g='f000*' ;; 1000) g='f00*' ;; 10000) g='f0*' ;;
	*) echo "b6prime.sh: N is 10, 100, 1000 or 10000" >&2; exit 2 ;; esac
T=$(mktemp -d)
# /proc/uptime: the clock umany stamps (CLOCK_BOOTTIME), to 10 ms, in a
# guest too (busybox date has no %N)
now() { cut -d' ' -f1 /proc/uptime; }
t0=$(now)
rc=0
case $tool in
nopctl-trace) nopctl trace -q --force -o /dev/null "$bin:$g" -- "$bin" 2> "$T/err" || rc=$? ;;
nopctl-stats) nopctl stats -q --force -o /dev/null "$bin:$g" -- "$bin" 2> "$T/err" || rc=$? ;;
perf)
	ulimit -n 65536 2> /dev/null # perf record opens an event per probe and CPU
	# perf probe places at most 128 probes a command: 100 a command
	i=0
	while [ $i -lt "$n" ] && [ "$rc" = 0 ]; do
		args=$(seq $i $((i + 99 < n - 1 ? i + 99 : n - 1)) | awk '{ printf " -a f%05d", $1 }')
		# shellcheck disable=SC2086
		perf probe -q -x "$bin" $args 2>> "$T/err" || rc=$?
		i=$((i + 100))
	done
	{ [ "$rc" = 0 ] && perf record -q -e 'probe_umany:*' -o "$T/perf.data" -- "$bin"; } \
		2> "$T/err" || rc=$?
	perf probe -q -d 'probe_umany:*' 2>> "$T/err" || rc=$?
	;;
bpftrace) BPFTRACE_MAX_PROBES=$((n + 16)) bpftrace -e "uprobe:$bin:$g { @n = count(); }" -c "$bin" > /dev/null 2> "$T/err" || rc=$? ;;
*) echo "b6prime.sh: unknown tool $tool" >&2; exit 2 ;;
esac
t1=$(now)
main=$(awk '$1 == "main" { print $2 }' "$T/err")
done=$(awk '$1 == "done" { print $2 }' "$T/err")
if [ -z "$main" ] || [ -z "$done" ]; then
	echo "{\"bench\":\"B6'\",\"tool\":\"$tool\",\"functions\":$n,\"exit\":$rc,\"error\":$(head -c 300 "$T/err" | jq -Rs .)}"
else
	echo "$t0 $main $done $t1" | awk -v tool="$tool" -v n="$n" -v rc="$rc" '{
		printf "{\"bench\":\"B6'\''\",\"tool\":\"%s\",\"functions\":%d,\"exit\":%d,\"start_s\":%.3f,\"stop_s\":%.3f,\"total_s\":%.3f}\n",
			tool, n, rc, $2 - $1, $4 - $3, $4 - $1 }'
fi
rm -rf "$T"
