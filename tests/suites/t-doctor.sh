# t-doctor.sh - nopctl doctor and nopctl inspect on real kernels (issue 4):
# every finding is produced here by the situation it describes.

# finding ID [SUBJECT] JQ-CONDITION: doctor -j output in $T/out has it
finding() {
	_sel=".id == \"$1\""
	[ $# = 3 ] && _sel="$_sel and .subject == \"$2\"" && shift
	jq -e -s "any(.type == \"finding\" and $_sel and ($2))" "$T/out" > /dev/null ||
		{ grep "\"$1\"" "$T/out"; fail "no finding $1 with $2"; }
}

t_doctor_healthy() {
	fresh=$(grep -c expanded "$TR/buffer_size_kb" || true)
	expect_rc 0 nopctl doctor -j do_sys_openat2
	json_lines "$T/out"
	all_of finding '(.id | length > 0) and (.status | test("^(ok|warn|fail)$")) and (.seen | length > 0)' "$T/out"
	finding privileges '.status == "ok"'
	finding lockdown '.status == "ok" and (.seen | test("^none \\(read from /sys/kernel/security/lockdown\\)"))'
	finding tracefs '.status == "ok" and (.seen | test("mounted at /sys/kernel/tracing"))'
	finding filter_functions '.status == "ok" and (.seen | test("^[0-9]+ traceable functions"))'
	finding tracer.function '.status == "ok" and (.seen | test("works in an instance"))'
	case $KVER in
	5.10.* | 6.1.*) finding tracer.function_graph '.status == "ok" and (.seen | test("at the top level only"))'
	       finding instances '(.seen | test("function_graph: no"))' ;;
	*) finding tracer.function_graph '.status == "ok" and (.seen | test("in an instance; instances have no set_graph_function"))'
	   finding instances '(.seen | test("function_graph: yes"))' ;;
	esac
	# no Debian kernel has funcgraph-retval: kretprobes instead
	finding funcgraph_retval '.status == "ok" and (.seen | test("kretprobes"))'
	case $FPROBES in
	no) finding args '.status == "ok" and (.seen | test("kprobe events"))' ;;
	*) finding args '.status == "ok" and (.seen | test("fprobe events"))' ;;
	esac
	# catch's gate needs hist triggers, which Debian's 5.10 is built without
	case $KVER in
	5.10.*) finding catch '.status == "warn" and (.seen | test("^no hist triggers: catch reads and judges every call"))' ;;
	*) finding catch '.status == "ok" and (.seen | test("^kernel roots judged in the kernel"))' ;;
	esac
	case $KVER/$FPROBES in
	5.10.* | 6.1.* | */no) finding features '.status == "ok" and .seen == "function arguments from BTF (options/func-args, options/funcgraph-args): no; kprobe events: yes; fprobe events: no; uprobe events: yes"' ;;
	6.12.*) finding features '.status == "ok" and .seen == "function arguments from BTF (options/func-args, options/funcgraph-args): no; kprobe events: yes; fprobe events: yes; uprobe events: yes"' ;;
	*) finding features '.status == "ok" and .seen == "function arguments from BTF (options/func-args, options/funcgraph-args): yes; kprobe events: yes; fprobe events: yes; uprobe events: yes"' ;;
	esac
	# the top-level buffer as doctor found it: a fresh boot's placeholder
	# or the size it was given
	if [ "$fresh" = 1 ]; then
		finding buffer '.seen | test("^top level: not allocated yet \\(a 7 KB placeholder per CPU; 1408 KB per CPU once a tracer runs there\\)")'
	else
		finding buffer '.seen | test("^top level: [0-9]+ KB per CPU")'
	fi
	finding top_level '.status == "ok"'
	finding stale '.status == "ok"'
	finding trace_clock '.status == "ok"'
	finding pattern.traceable do_sys_openat2 '.status == "ok" and (.seen | test("^1 traceable function matches"))'
	finding pattern.users do_sys_openat2 '.status == "ok"'
	jq -e -s 'last | .type == "summary" and .fail == 0 and .verdict == "tracing can work here"' "$T/out" > /dev/null ||
		fail "summary: $(tail -n 1 "$T/out")"
	expect_rc 0 nopctl doctor
	grep -q '^ok   tracer.function  *works in an instance' "$T/out" || { cat "$T/out"; fail "text output"; }
	grep -q 'tracing can work here' "$T/out" || fail "no verdict in text"
}

t_doctor_untraceable_reasons() {
	cut -d' ' -f1 "$TR/available_filter_functions" > "$T/afuncs"
	# a traceable clone (X.constprop.N, X.isra.N) whose X is not listed
	clone=$(awk '{ a[$1] } END { for (f in a) if (f ~ /^[a-z_0-9]+\.(constprop|isra)\.[0-9]+$/) {
		b = f; sub(/\..*/, "", b); if (!(b in a)) { print b; exit } } }' "$T/afuncs")
	# a core-kernel text symbol ftrace does not list (notrace, noinstr, ...)
	notr=$(awk 'NR == FNR { b = $1; sub(/\..*/, "", b); base[b]; next }
		($2 == "t" || $2 == "T") && NF == 3 && $3 ~ /^[a-z][a-z_0-9]+$/ && !($3 in base) { print $3; exit }' \
		"$T/afuncs" /proc/kallsyms)
	[ -n "$clone" ] && [ -n "$notr" ] || fail "no clone ($clone) or notrace ($notr) example in this kernel"
	echo "clone: $clone notrace: $notr"
	expect_rc 2 nopctl doctor -j "$clone" "$notr" no_such_function_xyz 'a:mod:b'
	finding pattern.traceable "$clone" ".status == \"fail\" and (.seen | test(\"clone\")) and (.fix | test(\"$clone\\\\.\\\\*\"))"
	finding pattern.traceable "$notr" '.status == "fail" and (.seen | test("notrace")) and (.seen | test("kallsyms: [tT]"))'
	finding pattern.traceable no_such_function_xyz '.status == "fail" and (.seen | test("inlined")) and (.seen | test("module that is not loaded"))'
	# a ':' makes it BINARY:GLOB (issue 14): no library 'a', and the kernel's way named
	finding pattern.binary 'a:mod:b' '.status == "fail" and (.seen | test("no library .a.")) and (.fix | test("-m MODULE"))'
	jq -e -s 'last | .verdict == "tracing works, but not every PATTERN can be traced"' "$T/out" > /dev/null ||
		fail "summary: $(tail -n 1 "$T/out")"
	# the clone it points to is traceable
	expect_rc 0 nopctl list "$clone.*"
	[ -s "$T/out" ] || fail "nopctl list '$clone.*' is empty"
}

t_doctor_sees_other_users() {
	# a kprobe on the function, and another tool's function tracer at the top level
	# (both allocate the top-level buffer, whatever ran before this test)
	top_buffer_may_expand
	# kprobes/list: every kprobe, BPF's too (debugfs, once a boot)
	grep -q " /sys/kernel/debug debugfs " /proc/mounts || mount -t debugfs none /sys/kernel/debug
	echo 'p:nopctl_test/open do_sys_openat2' > "$TR/kprobe_events"
	echo 1 > "$TR/events/nopctl_test/open/enable"
	echo do_sys_openat2 > "$TR/set_ftrace_filter"
	echo function > "$TR/current_tracer"
	rc=0
	nopctl doctor -j do_sys_openat2 > "$T/out" 2> "$T/err" || rc=$?
	# nopctl traces beside them, and leaves them as they were
	rc2=0
	nopctl trace -j do_sys_openat2 -- cat /etc/hostname > "$T/tr" 2>&1 || rc2=$?
	kp=$(cat "$TR/events/nopctl_test/open/enable")
	tracer=$(cat "$TR/current_tracer")
	filt=$(cat "$TR/set_ftrace_filter")
	echo 0 > "$TR/events/nopctl_test/open/enable"
	echo > "$TR/kprobe_events"
	umount /sys/kernel/debug
	echo nop > "$TR/current_tracer"
	echo > "$TR/set_ftrace_filter"
	[ "$rc" = 0 ] || { cat "$T/out" "$T/err"; fail "doctor exit $rc"; }
	[ "$rc2" = 0 ] && grep -q '"comm":"cat"' "$T/tr" || { cat "$T/tr"; fail "trace beside them: exit $rc2"; }
	[ "$kp" = 1 ] && [ "$tracer" = function ] && [ "$filt" = do_sys_openat2 ] ||
		fail "the others' settings changed: kprobe enable=$kp tracer=$tracer filter=$filt"
	finding pattern.users do_sys_openat2 '.status == "warn" and (.seen | test("kprobe_events: p:nopctl_test/open do_sys_openat2")) and (.seen | test("enabled_functions: do_sys_openat2")) and (.seen | test("kprobes/list: [0-9a-f]+ +k +do_sys_openat2"))'
	finding top_level '.status == "warn" and (.seen | test("current_tracer is .function."))'
	finding tracer.function '.status == "ok"'
	case $KVER in
	5.10.* | 6.1.*) finding tracer.function_graph '.status == "warn" and (.seen | test("not tried"))' ;;
	*) finding tracer.function_graph '.status == "ok"' ;;
	esac
}

t_doctor_stale_and_lost() {
	killed_session
	# another tool's instance whose small buffer overflowed
	o=$TR/instances/other
	mkdir "$o"
	echo do_sys_openat2 > "$o/set_ftrace_filter"
	echo 4 > "$o/buffer_size_kb"
	echo function > "$o/current_tracer"
	opener 3000
	echo 0 > "$o/tracing_on"
	rc=0
	nopctl doctor -j > "$T/out" 2> "$T/err" || rc=$?
	echo nop > "$o/current_tracer"
	rmdir "$o"
	[ "$rc" = 0 ] || { cat "$T/out" "$T/err"; fail "doctor exit $rc"; }
	finding stale ".status == \"warn\" and (.seen | test(\"instance nopctl-$n .pid $n is gone.\")) and (.seen | test(\"journal .*$n.journal\"))"
	finding lost '.status == "warn" and (.seen | test("other: [1-9][0-9]* overrun"))'
	finding instances.others '(.seen | test("other .tracer function."))'
	# doctor only looks: the stale instance is still there for reset
	ls "$TR/instances" | grep -q "nopctl-$n" || fail "doctor removed the stale instance"
	expect_rc 0 nopctl reset
}

t_doctor_mounts_and_unmounts() {
	umount "$TR"
	rc=0
	nopctl doctor -j > "$T/out" 2> "$T/err" || rc=$?
	mounted=$(grep -c ' /sys/kernel/tracing tracefs' /proc/mounts || true)
	mount -t tracefs nodev "$TR"
	[ "$rc" = 0 ] || { cat "$T/out" "$T/err"; fail "doctor exit $rc"; }
	[ "$mounted" = 0 ] || fail "doctor left tracefs mounted"
	finding tracefs '.status == "ok" and (.seen | test("not mounted; mountable"))'
}

# the patch site: a NOP while idle, a call into ftrace while traced, a NOP
# again. The idle NOP is P6's from 5.14 on; 5.10 writes K8's where the
# CPU lacks NOPL, as QEMU's qemu64 does
t_inspect_patch_site() {
	case $KVER in 5.10.*) nop5='66 66 66 66 90' ;; *) nop5='0f 1f 44 00 00' ;; esac
	expect_rc 0 nopctl inspect -j do_sys_openat2
	cp "$T/out" "$T/idle"
	if [ "$(uname -m)" = aarch64 ]; then
		# arm64 (no BTI in Debian's kernels): the mov x9, x30 ftrace
		# wrote at boot, then the NOP its bl replaces
		jq -e '.state == "nop" and .function == "do_sys_openat2" and .site_offset == 4 and
			(.bytes | split(" ") | .[0:8] | join(" ")) == "e9 03 1e aa 1f 20 03 d5" and
			.enabled == ""' "$T/idle" > /dev/null || { cat "$T/idle"; fail "idle site is not mov x9, x30 and the NOP"; }
	else
		jq -e --arg nop5 "$nop5" '.state == "nop" and .function == "do_sys_openat2" and
			(.site_offset == (if .endbr64 or .endbr64_sealed then 4 else 0 end)) and
			.site_offset as $o | (.bytes | split(" ") | .[$o:$o + 5] | join(" ")) == $nop5 and
			.enabled == ""' "$T/idle" > /dev/null || { cat "$T/idle"; fail "idle site is not the 5-byte NOP"; }
	fi
	case $KVER in
	5.10.* | 6.1.*) jq -e '.site_from == "kallsyms"' "$T/idle" > /dev/null || fail "no _addrs file before 6.6" ;;
	*) jq -e '.site_from == "available_filter_functions_addrs"' "$T/idle" > /dev/null ||
		{ cat "$T/idle"; fail "6.12: the site from available_filter_functions_addrs"; } ;;
	esac
	a=$(opener_loop)
	nopctl trace -q -p "$a" do_sys_openat2 > "$T/bg" 2>&1 &
	n=$!
	wait_for "$T/bg" do_sys_openat2
	rc=0
	nopctl inspect -j do_sys_openat2 > "$T/busy" 2>&1 || rc=$?
	nopctl inspect do_sys_openat2 > "$T/busy.txt" 2>&1 || rc=$?
	kill -INT "$n"
	reap "$n"
	kill "$a"
	[ "$rc" = 0 ] || { cat "$T/busy"; fail "inspect while traced: exit $rc"; }
	jq -e '.state == "call" and .target != "0x0" and (.target_symbol | length > 0) and
		(.enabled | startswith("do_sys_openat2 ("))' "$T/busy" > /dev/null ||
		{ cat "$T/busy"; fail "traced site is not a call into ftrace"; }
	grep -q 'site        call: a call into ftrace' "$T/busy.txt" || { cat "$T/busy.txt"; fail "text"; }
	# the kernel's record as it reads (6.x parts it with tabs), not escaped
	grep -q '^  enabled_functions: do_sys_openat2 (' "$T/busy.txt" && ! grep -q '\\x' "$T/busy.txt" ||
		{ cat "$T/busy.txt"; fail "enabled_functions line escaped or missing"; }
	expect_rc 0 nopctl inspect -j do_sys_openat2
	jq -e '.state == "nop" and .enabled == ""' "$T/out" > /dev/null || { cat "$T/out"; fail "not a NOP again after the trace"; }
	expect_rc 2 nopctl inspect 'do_sys_*'
	expect_rc 2 nopctl inspect no_such_function_xyz
	grep -q 'no traceable function' "$T/err" || fail "unknown function: $(cat "$T/err")"
}

t_doctor_not_root() {
	rc=0
	su -s /bin/sh nobody -c 'nopctl doctor -j' > "$T/out" 2> "$T/err" || rc=$?
	[ "$rc" = 3 ] || { cat "$T/out" "$T/err"; fail "doctor as nobody: exit $rc, wanted 3"; }
	finding privileges '.status == "fail" and (.seen | test("uid 65534 without CAP_SYS_ADMIN")) and (.fix | test("as root"))'
	finding tracefs.access '.status == "fail" and (.fix | test("as root"))'
}

t_doctor_settings_and_journal_dir() {
	clock=$(sed 's/.*\[\(.*\)\].*/\1/' "$TR/trace_clock")
	echo counter > "$TR/trace_clock"
	mkdir -p /run/nopctl
	chmod 0777 /run/nopctl
	rc=0
	nopctl doctor -j > "$T/out" 2> "$T/err" || rc=$?
	rc2=0
	nopctl trace do_sys_openat2 -- true > "$T/tr" 2>&1 || rc2=$?
	chmod 0700 /run/nopctl
	echo "$clock" > "$TR/trace_clock"
	[ "$rc" = 3 ] || { cat "$T/out"; fail "doctor with an unsafe journal directory: exit $rc, wanted 3"; }
	finding journal_dir '.status == "fail" and (.seen | test("refusing journal directory /run/nopctl"))'
	finding trace_clock '.status == "warn" and .seen == "counter"'
	finding buffer '.status == "ok" and (.seen | test("KB per CPU"))'
	[ "$rc2" != 0 ] && grep -q 'refusing journal directory' "$T/tr" || { cat "$T/tr"; fail "trace ran with a world-writable journal directory (exit $rc2)"; }
}
