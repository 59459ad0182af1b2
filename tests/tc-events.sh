#!/bin/sh
# tc-events.sh tc|nopctl - the events of a recording, one line each, in a
# form both tools' output reduce to, for comparing what nopctl decodes of
# a trace-cmd file with what trace-cmd report prints of it:
#   E TS CPU PID FUNC         a function_graph entry (its depth is left
#                             out: nopctl's views give the depth in the
#                             tree they build, an interrupt's entries
#                             below functions not traced are shallower)
#   X                         a function_graph exit (counted)
#   F TS CPU PID FUNC         a function tracer hit
# TS in nanoseconds. Input on stdin: `trace-cmd report -R -t FILE` (tc; any
# release: 3.3 and later print "[001]-0x0" and "func=NAME (0xADDR)"), or
# `nopctl report -j FILE` (nopctl). Output sorted.
set -eu
# Time stamps stay strings: with trace-cmd record --date they pass 2^53,
# beyond awk's and jq's doubles.
case ${1:-} in
tc)
	# a function not in the file's kallsyms: 3.3 and later print its name
	# empty ("func= (0xADDR)"), 3.1.6 and nopctl the address
	sed -E 's/(func|ip)= \((0x[0-9a-f]+)\)/\1=\2/' | sed -nE \
		-e 's/^.*-([0-9]+) +\[0*([0-9]+)\][^ ]* +([0-9]+)\.([0-9]{9}): +funcgraph_entry: +func=([^ ]+).* depth=([0-9]+).*$/E \3\4 \2 \1 \5/p' \
		-e 's/^.*: +funcgraph_exit: .*$/X/p' \
		-e 's/^.*-([0-9]+) +\[0*([0-9]+)\][^ ]* +([0-9]+)\.([0-9]{9}): +function: +ip=([^ ]+).*$/F \3\4 \2 \1 \5/p' |
		sed -E 's/^([EF]) 0+([0-9])/\1 \2/'
	;;
nopctl)
	# nopctl's JSON lines: type, ts, cpu, pid, comm, func, in that order
	sed -nE 's/^\{"type":"(entry|call|exit|func)","ts":([0-9]+),"cpu":([0-9]+),"pid":([0-9]+),"comm":"([^"\\]|\\.)*","func":"([^"]*)".*$/\1 \2 \3 \4 \6/p' |
		awk '$1 == "entry" { print "E", $2, $3, $4, $5 } $1 == "call" { print "E", $2, $3, $4, $5; print "X" }
			$1 == "exit" { print "X" } $1 == "func" { print "F", $2, $3, $4, $5 }'
	;;
*)
	echo "usage: tc-events.sh tc|nopctl < OUTPUT" >&2
	exit 2
	;;
esac | LC_ALL=C sort
