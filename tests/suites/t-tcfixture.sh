# t-tcfixture.sh - not a test suite: records trace.dat files with every
# trace-cmd release the guest has (3.1.6, Debian 12's; and on x86-64 those
# peers.sh fetched) in the layouts they write, each with that release's
# own `report -R -t`, and two of nopctl's own recordings with trace-cmd's
# report of them, for the host's reader tests (tests/capture-tracecmd.sh
# runs it; the results are committed under tests/fixtures/tracecmd/ and,
# from the arm64 guest, tests/fixtures/tracecmd-arm64/).
# Small: the programs traced are short, the one event system recorded
# beside ftrace is sched (one event), and the symbols a recording keeps
# are only those its events name (a kallsyms of them, bound over
# /proc/kallsyms while recording; trace-cmd copies the whole file).

# rec TC NAME ARGS...: TC record ARGS into NAME.dat, and TC's own view
rec() {
	_tc=$1 _name=$2
	shift 2
	clock=$(sed 's/.*\[\(.*\)\].*/\1/' "$TR/trace_clock")
	kb=$(sed 's/.*expanded: \([0-9]*\).*/\1/' "$TR/buffer_size_kb")
	(cd /tmp/tcf && "$_tc" record -o "$_name.dat" "$@" > "/tmp/tcf/$_name.log" 2>&1) ||
		{ cat "/tmp/tcf/$_name.log"; fail "$_tc record $*"; }
	trace_cmd_reset
	"$_tc" report -R -t "/tmp/tcf/$_name.dat" > "/tmp/tcf/$_name.report" 2>&1
	rm -f "/tmp/tcf/$_name.log"
}

# the layouts one release writes
layouts() {
	_tc=$1 v=$2
	rec "$_tc" "$v-graph-zstd" -p function_graph -g do_sys_openat2 -e sched:sched_process_exec -F opener 3
	# no -e: the file holds the format of every event of the kernel
	# (about 1,500), as most users' recordings do (the report cost guard)
	rec "$_tc" "$v-graph-allfmt" -p function_graph -g do_sys_openat2 -F opener 30
	rec "$_tc" "$v-v6-stack" --file-version 6 -p function -l do_sys_openat2 --func-stack \
		-e sched:sched_process_exec -F opener 4
	rec "$_tc" "$v-graph-none" --compression none -p function_graph -g do_sys_openat2 \
		-e sched:sched_process_exec -F opener 2
	"$_tc" list -c 2>/dev/null | grep -q zlib &&
		rec "$_tc" "$v-func-zlib" --compression zlib -p function -l do_sys_openat2 \
			-e sched:sched_process_exec -F opener 5
	# two buffers: the top level's function hits, an instance's trees
	rec "$_tc" "$v-instance" -p function -l do_sys_openat2 -e sched:sched_process_exec \
		-B nopctl_fixture -p function_graph -g do_sys_openat2 -e sched:sched_process_exec -F opener 2
	# version 6's instances (BUFFER options pointing at more flyrecords)
	rec "$_tc" "$v-v6-instance" --file-version 6 -p function -l do_sys_openat2 -e sched:sched_process_exec \
		-B nopctl_fixture -p function -l do_sys_openat2 -e sched:sched_process_exec -F opener 2
	# a time stamp correction: DATE (--date). x86-tsc's (TSC2NSEC) needs
	# the TSC's frequency from perf, which TCG does not give: trace-cmd
	# then writes raw cycles and no TSC2NSEC option to test.
	rec "$_tc" "$v-date" --date -p function -l do_sys_openat2 -e sched:sched_process_exec -F opener 2
	grep -qw wakeup "$TR/available_tracers" &&
		rec "$_tc" "$v-latency" -p wakeup -e sched:sched_process_exec -F opener 2
	return 0
}

# nop_rec NAME ARGS...: nopctl record ARGS into NAME.dat, and the guest's
# trace-cmd's view of it (what readers on the other machine are held to)
nop_rec() {
	_name=$1
	shift
	nopctl record -o "/tmp/tcf/$_name.dat" "$@" > "/tmp/tcf/$_name.log" 2>&1 ||
		{ cat "/tmp/tcf/$_name.log"; fail "nopctl record $*"; }
	trace-cmd report -R -t "/tmp/tcf/$_name.dat" > "/tmp/tcf/$_name.report" 2>&1
	rm -f "/tmp/tcf/$_name.log"
}

t_capture_tracecmd() {
	mount -t tracefs nodev "$TR" 2>/dev/null || true
	mkdir -p /tmp/tcf
	# the symbols these workloads name: a first recording, read back
	trace_cmd_record -p function_graph -g do_sys_openat2 -o /tmp/names.dat -F opener 30
	trace_cmd_record -p function -l do_sys_openat2 --func-stack -o /tmp/names2.dat -F opener 3
	{ trace-cmd report /tmp/names.dat; trace-cmd report /tmp/names2.dat; } 2>/dev/null |
		grep -o '[A-Za-z_][A-Za-z0-9_.]*' | sort -u > /tmp/names
	rm -f /tmp/names.dat /tmp/names2.dat
	grep -A1 -wFf /tmp/names /proc/kallsyms | grep -v '^--$' | sort -u > /tmp/kallsyms.small
	mount --bind /tmp/kallsyms.small /proc/kallsyms
	layouts trace-cmd "$(trace-cmd -v 2>&1 | sed -n 's/.*version \([0-9.]*\).*/\1/p' | head -n 1)"
	for tc in /usr/bin/trace-cmd-*; do
		[ -x "$tc" ] && layouts "$tc" "${tc##*/trace-cmd-}"
	done
	nop_rec nopctl-graph -G -e sched:sched_process_exec do_sys_openat2 -- opener 3
	nop_rec nopctl-func -e sched:sched_process_exec do_sys_openat2 -- opener 3
	# a program's own functions, their exits by uretprobes and ret probes
	nop_rec nopctl-user -G "/usr/bin/ureal-O0:*" -- ureal-O0 fork 3
	umount /proc/kallsyms
	uname -r > /tmp/tcf/KERNEL
	echo "BEGIN-FIXTURE" >&3
	(cd /tmp/tcf && tar cf - . | gzip -9 | base64) >&3
	echo "END-FIXTURE" >&3
}
