# t-fixture.sh - not a test suite: records the raw ring-buffer pages that
# the host's decoder tests replay (tests/capture-fixtures.sh runs it).

# save DIR BUFFER: the kernel's own text view, then the raw pages (reading
# them consumes them) and each CPU's counters
save() {
	mkdir -p "$1"
	cat "$2/trace" > "$1/trace.txt"
	for c in 0 1; do
		timeout 2 cat "$2/per_cpu/cpu$c/trace_pipe_raw" > "$1/cpu$c.raw" || true
		cat "$2/per_cpu/cpu$c/stats" > "$1/cpu$c.stats"
	done
}

# capture DIR GLOB BUFKB STACK WORKLOAD...: trace GLOB in a fresh instance
# while WORKLOAD runs; keep the kernel's text view, then the raw pages.
capture() {
	dir=$1 glob=$2 kb=$3 stack=$4
	shift 4
	i=$TR/instances/fixture
	mkdir "$i"
	echo "$kb" > "$i/buffer_size_kb"
	echo 0 > "$i/tracing_on"
	echo "$glob" > "$i/set_ftrace_filter"
	echo function > "$i/current_tracer"
	echo "$stack" > "$i/options/func_stack_trace"
	echo 1 > "$i/tracing_on"
	"$@"
	echo 0 > "$i/tracing_on"
	save "$dir" "$i"
	echo nop > "$i/current_tracer"
	rmdir "$i"
}

# graph_capture DIR KB ROOT DEPTH PIDS WORKLOAD...: function_graph at the top
# level (6.1 has it nowhere else), then everything put back
graph_capture() {
	dir=$1 kb=$2 root=$3 depth=$4 pids=$5
	shift 5
	echo 0 > "$TR/tracing_on"
	echo "$kb" > "$TR/buffer_size_kb"
	echo "$root" > "$TR/set_graph_function"
	echo "$depth" > "$TR/max_graph_depth"
	echo "$pids" > "$TR/set_ftrace_pid"
	echo function_graph > "$TR/current_tracer"
	echo > "$TR/trace"
	echo 1 > "$TR/tracing_on"
	"$@"
	echo 0 > "$TR/tracing_on"
	save "$dir" "$TR"
	echo nop > "$TR/current_tracer"
	echo > "$TR/set_graph_function"
	echo > "$TR/set_ftrace_pid"
	echo 0 > "$TR/max_graph_depth"
	echo 1408 > "$TR/buffer_size_kb"
	echo 1 > "$TR/tracing_on"
}

t_capture() {
	mount -t tracefs nodev "$TR" 2>/dev/null || true
	f=/tmp/fixture/$(uname -r | cut -d- -f1 | cut -d. -f1,2)
	mkdir -p "$f/events/ftrace"
	cp "$TR/events/header_page" "$TR/events/header_event" "$f/events/"
	for e in function kernel_stack funcgraph_entry funcgraph_exit; do
		mkdir -p "$f/events/ftrace/$e"
		cp "$TR/events/ftrace/$e/format" "$f/events/ftrace/$e/"
	done
	[ -f "$TR/buffer_subbuf_size_kb" ] && cp "$TR/buffer_subbuf_size_kb" "$f/"
	# calls with caller stacks, from two CPUs
	capture "$f/stack" do_sys_openat2 1024 1 sh -c 'opener 20 & opener 20; wait'
	# a buffer far too small for what is traced: lost events
	capture "$f/lost" 'vfs_*' 8 0 sh -c 'opener 3000 & opener 3000; wait'
	# function_graph: roots do_sys_openat2, three levels, two CPUs
	graph_capture "$f/graph" 1024 do_sys_openat2 3 '' sh -c 'opener 10 & opener 10; wait'
	# starting in the middle of calls: a task already running, no root
	sh -c 'while :; do opener 50; done' > /dev/null 2>&1 &
	w=$!
	usleep 200000
	graph_capture "$f/graph-midcall" 1024 '' 4 "$w" usleep 300000
	kill $w
	# a buffer far too small: lost pages in the middle of call trees
	graph_capture "$f/graph-lost" 8 do_sys_openat2 0 '' sh -c 'opener 200 & opener 200; wait'
	grep -ho '[A-Za-z_][A-Za-z0-9_.]*' "$f"/*/trace.txt | sort -u > /tmp/names
	# each symbol and the one after it: a symbol's extent ends where the next begins
	grep -A1 -wFf /tmp/names /proc/kallsyms | grep -v '^--$' | cut -d' ' -f1-3 | sort -u > "$f/kallsyms"
	echo "BEGIN-FIXTURE" >&3
	(cd /tmp/fixture && tar cf - . | gzip -9 | base64) >&3
	echo "END-FIXTURE" >&3
}
