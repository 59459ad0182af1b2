# t-blackbox.sh - the black box (issue 57): tracing armed in the
# persistent instance (reserve_mem=12M:4096:nopctl
# trace_instance=nopctl@nopctl, tests.mk's line), the guest taken down
# (sysrq's immediate reset, a panic, reboot -f), and the next boot's
# nopctl blackbox show checked against what the test did before the end.
# A test whose first part takes the guest down has an after_ part that
# the next boot runs as its verdict (lib.sh's run_suites finds the test
# named by the "nopctl-test NAME" marker in the previous boot's buffer).
# 6.1 and 5.10 have no persistent buffer: refused, with the reason.

REBOOT_INSTANCE=$TR/instances/nopctl
BB=$REBOOT_INSTANCE

# persistent buffers came in 6.12
bb_kernel() { case $KVER in 5.* | 6.[0-9].* | 6.1[01].*) return 1 ;; esac; return 0; }

# bb_files: the instance's settings, as a disarm must leave them
bb_files() {
	for f in current_tracer tracing_on set_ftrace_filter set_ftrace_notrace set_ftrace_pid set_event_pid \
		options/function-fork options/event-fork events/enable; do
		echo "== $f"; cat "$BB/$f" 2>&1
	done
}

# bb_down HOW: the marker that names this test to the next boot, then the end
bb_down() {
	echo "nopctl-test $1" > "$BB/trace_marker"
	sync
	case $2 in
	reset) echo b > /proc/sysrq-trigger ;;
	panic) echo c > /proc/sysrq-trigger ;;
	reboot) reboot -f ;;
	hang) kill -STOP $(pidof watchdog) ;; # nothing pets the watchdog now
	esac
	sleep 30
	fail "the guest did not go down ($2)"
}

# bb_has SELECT COND FILE: FILE's JSON lines hold one that SELECT picks, and
# every one it picks has COND
bb_has() { grep '^{' "$3" | jq -e -s "map(select($1)) | length >= 1 and all($2)" > /dev/null; }

# bb_show: the previous boot's events as JSON lines in $T/show.json
bb_show() {
	expect_rc 0 nopctl blackbox show -j
	cp "$T/out" "$T/show.json"
}

t_blackbox_0_refusals_and_restore() {
	if ! bb_kernel; then
		expect_rc 3 nopctl blackbox arm do_sys_openat2
		grep -q "keeps no trace buffer across a reboot (persistent ring buffers came in 6.12)" "$T/err" ||
			fail "6.1's refusal: $(cat "$T/err")"
		expect_rc 3 nopctl blackbox show
		nopctl doctor -j > "$T/doc" 2> /dev/null || true
		bb_has '.id == "blackbox"' '.status == "warn" and (.fix | test("came in 6.12"))' "$T/doc" ||
			fail "doctor's black box line: $(grep blackbox "$T/doc")"
		return 0
	fi
	[ -d "$BB" ] || fail "no persistent instance $BB: $(cat /proc/cmdline)"
	expect_rc 0 nopctl blackbox status -j
	bb_has '.type == "blackbox"' '.instance == "nopctl" and .state == "not armed"' "$T/out" ||
		fail "status before arming: $(cat "$T/out")"
	expect_rc 2 nopctl blackbox show
	grep -q "holds no events of the previous boot" "$T/err" || fail "show of an empty box: $(cat "$T/err")"
	expect_rc 2 nopctl blackbox arm
	expect_rc 2 nopctl blackbox arm uopen:main
	expect_rc 2 nopctl blackbox arm no_such_function_here
	expect_rc 2 nopctl blackbox frob
	expect_rc 2 nopctl blackbox arm -p 1 -- true
	expect_rc 2 nopctl blackbox arm -m dummy
	expect_rc 2 nopctl blackbox status -p 1
	expect_rc 2 nopctl blackbox disarm do_sys_openat2
	bb_files > "$T/before"
	expect_rc 0 nopctl blackbox arm -j vfs_read do_sys_openat2
	bb_has '.type == "blackbox_armed"' '.size_kb > 10000' "$T/out" || fail "arm -j: $(cat "$T/out")"
	[ "$(cat "$BB/current_tracer")" = function ] && [ "$(cat "$BB/tracing_on")" = 1 ] ||
		fail "armed: tracer $(cat "$BB/current_tracer"), on $(cat "$BB/tracing_on")"
	# nopctl exited; the box stays armed, status says by whom
	expect_rc 0 nopctl status -j
	bb_has '.type == "blackbox"' '.state == "armed" and (.armed_by | test("root .uid 0.*vfs_read do_sys_openat2"))' "$T/out" ||
		fail "status when armed: $(grep blackbox "$T/out")"
	# any other nopctl's cleanup leaves it alone
	expect_rc 0 nopctl trace -d 0.2 -q -o /dev/null do_sys_openat2
	[ "$(cat "$BB/current_tracer")" = function ] || fail "another run's cleanup disarmed the box"
	expect_rc 4 nopctl blackbox arm vfs_read
	expect_rc 0 nopctl blackbox disarm
	bb_files > "$T/after"
	cmp -s "$T/before" "$T/after" || fail "disarm did not put the instance back: $(diff "$T/before" "$T/after")"
	[ "$(grep -vc '^#' "$BB/trace")" = 0 ] || fail "disarm left this boot's events in the buffer"
	# reset disarms it too
	expect_rc 0 nopctl blackbox arm -G do_sys_openat2
	expect_rc 0 nopctl reset -j
	bb_has '.type == "reset"' '.disarmed_blackbox == true' "$T/out" || fail "reset: $(cat "$T/out")"
	bb_files > "$T/after"
	cmp -s "$T/before" "$T/after" || fail "reset did not put the instance back: $(diff "$T/before" "$T/after")"
	nopctl doctor -j > "$T/doc" 2> /dev/null || true
	bb_has '.id == "blackbox"' '.status == "ok" and .subject == "nopctl"' "$T/doc" ||
		fail "doctor's black box line: $(grep blackbox "$T/doc")"
}

# bb_armed_down NAME HOW N ARM...: the box armed with ARM, N opens by a
# task named opener, then the guest taken down HOW (its next boot runs
# after_NAME); before 6.12, the refusal
bb_armed_down() {
	_name=$1 _how=$2 _n=$3
	shift 3
	if ! bb_kernel; then # no persistent buffer: refused, with the reason
		expect_rc 3 nopctl blackbox arm "$@"
		grep -q "keeps no trace buffer across a reboot" "$T/err" || fail "the refusal: $(cat "$T/err")"
		return 0
	fi
	expect_rc 0 nopctl blackbox arm "$@"
	opener "$_n" /etc/hostname
	bb_down "$_name" "$_how"
}

# bb_opens TYPE N: the previous boot's events (bb_show) hold the opener's
# N opens as events of TYPE (a jq test of .type)
bb_opens() {
	bb_show
	_got=$(jq -c "select(($1) and .func == \"do_sys_openat2\" and .comm == \"opener\")" "$T/show.json" | wc -l)
	[ "$_got" = "$2" ] || fail "the opener's $2 opens: $_got shown"
}

# bb_stopped COND: a "stopped" object of show's has COND
bb_stopped() {
	bb_has ".type == \"stopped\" and ($1)" true "$T/show.json" ||
		fail "none stopped where $1: $(grep stopped "$T/show.json")"
}

# sysrq's immediate reset (no panic, no shutdown): the opens, then the
# reset from this shell, whose last call is sysrq's reboot handler
t_blackbox_1_reset() { bb_armed_down t_blackbox_1_reset reset 400 do_sys_openat2 'sysrq_handle_*'; }
after_t_blackbox_1_reset() {
	expect_rc 0 nopctl blackbox status -j
	bb_has '.type == "blackbox"' '.state == "holds the previous boot'"'"'s events"' "$T/out" ||
		fail "status after the reset: $(cat "$T/out")"
	bb_opens '.type == "func"' 400
	bb_stopped '.task != null and .func == "sysrq_handle_reboot"'
	bb_stopped '.cpu != null and .func == "sysrq_handle_reboot"'
	# read once from the kernel, kept: the same again; --save for trace-cmd
	expect_rc 0 nopctl blackbox show -j --save "$T/box.dat"
	cmp -s "$T/out" "$T/show.json" || fail "a second show differs"
	n=$(trace-cmd report "$T/box.dat" 2> /dev/null | grep -c 'opener-[0-9]* .*do_sys_openat2')
	[ "$n" = 400 ] || fail "trace-cmd report of --save: $n of the opener's 400 opens"
	rm -f /run/nopctl/blackbox-nopctl.last-boot.dat
}

# a panic (panic=-1: the kernel reboots at once): function_graph of
# the functions named, the crash handler entered and never returned
t_blackbox_2_panic() { bb_armed_down t_blackbox_2_panic panic 300 -G do_sys_openat2 sysrq_handle_crash panic; }
after_t_blackbox_2_panic() {
	bb_opens '.type == "call" or .type == "exit"' 300
	bb_stopped '.task != null and (.func == "panic" or .func == "sysrq_handle_crash") and .open'
	# every format report has: the table's calls of do_sys_openat2, the
	# opener's among them; folded stacks
	expect_rc 0 nopctl blackbox show --stats -j
	bb_has '.type == "func_stats" and .func == "do_sys_openat2"' '.calls >= 300' "$T/out" ||
		fail "show --stats: $(grep do_sys_openat2 "$T/out")"
	expect_rc 0 nopctl blackbox show -F folded
	grep -q '^do_sys_openat2 [0-9]*$' "$T/out" || fail "folded: $(head -3 "$T/out")"
	rm -f /run/nopctl/blackbox-nopctl.last-boot.dat
}

# reboot -f: the reboot system call, no shutdown of anything
t_blackbox_3_reboot() { bb_armed_down t_blackbox_3_reboot reboot 200 do_sys_openat2 kernel_restart; }
after_t_blackbox_3_reboot() {
	bb_opens '.type == "func"' 200
	bb_stopped '.task == "reboot" and .func == "kernel_restart"'
	rm -f /run/nopctl/blackbox-nopctl.last-boot.dat
}

# QEMU's watchdog's driver and the core it needs, loaded as the suite is
# read, before any test's snapshot, in every boot (as a machine's boot
# loads its drivers): the previous boot's module is there to be named.
# Nothing opens /dev/watchdog until t_blackbox_4_watchdog: it does not run
if bb_kernel && [ -f "/modules/$KVER/i6300esb.ko" ]; then
	for m in watchdog i6300esb; do
		grep -q "^$m " /proc/modules || insmod "/modules/$KVER/$m.ko" || echo "# $KVER: cannot load $m.ko" >&3
	done
fi

# a hang a watchdog resets: QEMU's i6300esb (run.sh), petted every half
# second by busybox's watchdog until it stops (SIGSTOP: the box hung, as
# the watchdog sees it); the hardware resets the machine some 2-4 s later
t_blackbox_4_watchdog() {
	if bb_kernel; then
		i=0
		while [ ! -c /dev/watchdog ] && [ $i -lt 50 ]; do usleep 100000; i=$((i + 1)); done
		[ -c /dev/watchdog ] || fail "no /dev/watchdog after insmod i6300esb"
	fi
	! bb_kernel || watchdog -F -T 2 -t 500ms /dev/watchdog &
	bb_armed_down t_blackbox_4_watchdog hang 100 do_sys_openat2 'esb_timer_*'
}
after_t_blackbox_4_watchdog() {
	# the driver loaded again (as the suite is read): where the kernel
	# says where the previous boot's modules were (6.15 and later), the
	# watchdog daemon's last call is named, the driver's keepalive (its
	# last pet); 6.12 does not say, and show says so
	bb_opens '.type == "func"' 100
	case $KVER in
	6.12.*)
		bb_stopped '.task == "watchdog" and (.func | startswith("0x"))'
		grep -q "does not say where the previous boot's modules were" "$T/err" || fail "show's note: $(cat "$T/err")" ;;
	*) bb_stopped '.task == "watchdog" and .func == "esb_timer_keepalive"' ;;
	esac
	rm -f /run/nopctl/blackbox-nopctl.last-boot.dat
}
