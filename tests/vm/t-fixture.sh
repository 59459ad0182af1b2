# t-fixture.sh - not a test suite: records the raw ring-buffer pages that
# the host's decoder tests replay (tests/capture-fixtures.sh runs it).

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
	mkdir -p "$dir"
	cat "$i/trace" > "$dir/trace.txt"
	for c in 0 1; do
		timeout 2 cat "$i/per_cpu/cpu$c/trace_pipe_raw" > "$dir/cpu$c.raw" || true
		cat "$i/per_cpu/cpu$c/stats" > "$dir/cpu$c.stats"
	done
	echo nop > "$i/current_tracer"
	rmdir "$i"
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
	grep -ho '[A-Za-z_][A-Za-z0-9_.]*' "$f"/*/trace.txt | sort -u > /tmp/names
	# each symbol and the one after it: a symbol's extent ends where the next begins
	grep -A1 -wFf /tmp/names /proc/kallsyms | grep -v '^--$' | cut -d' ' -f1-3 | sort -u > "$f/kallsyms"
	echo "BEGIN-FIXTURE" >&3
	(cd /tmp/fixture && tar cf - . | gzip -9 | base64) >&3
	echo "END-FIXTURE" >&3
}
