#!/bin/sh
# run.sh SUITES... - boot each Debian kernel under QEMU (TCG) with a fresh
# initramfs, run the suites inside, collect verdicts from the second
# serial port, and end with "N passed, N failed". A guest that does not
# boot or does not finish counts as a failure, never as a skip.
# Guests run side by side, NOPCTL_VM_JOBS at a time (default: one per
# core; with -accel tcg,thread=single each guest uses one host thread).
# NOPCTL_VM_APPEND: more kernel parameters (lockdown=confidentiality).
# NOPCTL_VM_ONLY=6.1: only the kernel whose version is 6.1 (not 6.12);
# without it every kernel but 5.10.
# NOPCTL_VM_TESTS='stale|shared': only the tests whose names match (grep -E).
# NOPCTL_VM_SKIP='t_a|t_b': not the tests whose names match (grep -E).
# NOPCTL_VM_STATIC=1: the guest's root has no shared libraries, only the
# static nopctl (make static) and static helpers (the static suite).
# NOPCTL_VM_FAILED=FILE: each failure (its verdict and the first lines of
# its log) is appended there too, for a recap at the end of a long log.
# NOPCTL_VM_REBOOT=1: a reboot of the guest boots it again in the same
# machine, its memory kept (t-blackbox.sh: the persistent buffer); a
# power-off still ends it. x86's guest then has QEMU's i6300esb watchdog,
# which resets the machine when nothing pets it.
# NOPCTL_VM_ARCH=arm64: Debian's arm64 kernels (6.1, 6.12) under
# qemu-system-aarch64, one guest at a time, with the cross-built nopctl
# (NOPCTL_BUILD defaults to build/aarch64-linux-gnu); verdicts through a
# virtio console (the virt machine has one UART).
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
suites=$(echo "${*:-trace}" | tr ' ' ,)
arch=${NOPCTL_VM_ARCH:-amd64}
if [ "$arch" = arm64 ]; then
	export NOPCTL_VM_ARCH NOPCTL_BUILD="${NOPCTL_BUILD:-$top/build/aarch64-linux-gnu}"
	work=${NOPCTL_VM_WORK:-$NOPCTL_BUILD/vm}
else
	work=${NOPCTL_VM_WORK:-$top/build/vm}
fi
mkdir -p "$work"
kernels=$(sh "$top/tests/vm/kernels.sh") || { echo "run.sh: cannot fetch kernels"; echo "vm: 0 passed, 1 failed"; exit 1; }
if [ -n "${NOPCTL_VM_ONLY:-}" ]; then
	only=
	for k in $kernels; do
		case ${k##*/vmlinuz-} in "$NOPCTL_VM_ONLY".* | "$NOPCTL_VM_ONLY"-* | "$NOPCTL_VM_ONLY"+*) only="$only $k" ;; esac
	done
	kernels=$only
else
	# Debian 11's 5.10 runs only the suites tests.mk names for it
	only=
	for k in $kernels; do
		case ${k##*/vmlinuz-} in 5.10.*) ;; *) only="$only $k" ;; esac
	done
	kernels=$only
fi
# one initramfs per run: runs with other suites or parameters may share $work
tag=$(echo "$suites ${NOPCTL_VM_TESTS:-} ${NOPCTL_VM_APPEND:-} ${NOPCTL_VM_STATIC:+static}${NOPCTL_VM_SKIP:+ skip=$NOPCTL_VM_SKIP}" | cksum | cut -d' ' -f1)
initrd=$work/initrd-$tag.gz
sh "$top/tests/vm/mkinitramfs.sh" "$initrd" || { echo "vm: 0 passed, 1 failed"; exit 1; }

# boot KERNEL: one guest; verdicts in $work/NAME-TAG.results. The main
# suites take 20-22 min a guest in CI; at 25 min a guest slowed by its
# host (a second job beside the two guests) was cut off with 85 of 99
# verdicts, so a guest has 40 min.
boot() {
	_name=$(basename "$1")-$tag
	rm -f "$work/$_name.results" "$work/$_name.console"
	_start=$(date +%s)
	_kernel=$1
	_reboot=-no-reboot
	[ -z "${NOPCTL_VM_REBOOT:-}" ] || _reboot=
	[ -z "${NOPCTL_VM_REBOOT:-}" ] || [ "$arch" = arm64 ] || _reboot="-device i6300esb -action watchdog=reset"
	# the machine, its console and the results port: x86's second serial
	# port; arm64's virt machine has one UART, so a virtio console
	# (pauth-impdef: QEMU's own pointer authentication, far cheaper to
	# emulate than the architected QARMA)
	if [ "$arch" = arm64 ]; then
		_con=ttyAMA0
		set -- qemu-system-aarch64 -M virt -cpu max,pauth-impdef=on -serial "file:$work/$_name.console" \
			-device virtio-serial-pci -chardev "file,id=results,path=$work/$_name.results" \
			-device virtconsole,chardev=results
	else
		_con=ttyS0
		set -- qemu-system-x86_64 -serial "file:$work/$_name.console" -serial "file:$work/$_name.results"
	fi
	timeout "${NOPCTL_VM_TIMEOUT:-2400}" "$@" -accel tcg,thread=single -m 1024 -smp 2 \
		-nodefaults -display none $_reboot \
		-kernel "$_kernel" -initrd "$initrd" \
		-append "console=$_con quiet loglevel=3 panic=-1 nopctl.suites=$suites ${NOPCTL_VM_TESTS:+nopctl.only=$NOPCTL_VM_TESTS} ${NOPCTL_VM_SKIP:+nopctl.skip=$NOPCTL_VM_SKIP }${NOPCTL_VM_APPEND:-}" </dev/null
	_qrc=$?
	echo "$_qrc $(($(date +%s) - _start))" > "$work/$_name.qemu"
}

# report KERNEL: its verdicts; adds to $passed and $failed
report() {
	name=$(basename "$1")
	res=$work/$name-$tag.results
	read -r qrc secs < "$work/$name-$tag.qemu"
	p=$(grep -c '^RESULT pass' "$res" 2>/dev/null); p=${p:-0}
	f=$(grep -c '^RESULT fail' "$res" 2>/dev/null); f=${f:-0}
	plan=$(sed -n 's/^PLAN \([0-9]*\).*/\1/p' "$res" 2>/dev/null | head -n 1)
	grep -E '^(RESULT fail|#)' "$res" 2>/dev/null | sed "s/^/[$name] /"
	if [ -z "$plan" ] || ! grep -q '^DONE' "$res" 2>/dev/null; then
		echo "[$name] the guest did not finish (qemu exit $qrc); last console lines:"
		tail -n 20 "$work/$name-$tag.console" 2>/dev/null | sed "s/^/[$name]   /"
		plan=${plan:-1}
	fi
	# a rebooting suite began again: the previous boot's buffer, which
	# names the test that took the guest down, was lost
	plans=$(grep -c '^PLAN' "$res" 2>/dev/null)
	[ "${plans:-0}" -le 1 ] || { f=$((f + plans - 1)); echo "[$name] the suite began $plans times: a reboot lost the persistent buffer"; }
	missing=$((plan - p - f))
	[ "$missing" -gt 0 ] && f=$((f + missing)) && echo "[$name] $missing test(s) gave no verdict"
	[ "$f" -gt 0 ] && recap "$name" "$res" "$missing"
	echo "[$name] $p passed, $f failed in $secs s"
	# where a guest's time went, for keeping CI inside its 90 minutes
	sed -n 's/^RESULT [a-z]* [^ ]* \(t_[a-z0-9_]*\) in \([0-9]*\) s$/\2 \1/p' "$res" 2>/dev/null |
		sort -rn | head -n 5 | awk -v n="[$name]" '{ s = s (NR > 1 ? ", " : "") $2 " " $1 " s" }
			END { if (s != "") print n, "slowest:", s }'
	passed=$((passed + p))
	failed=$((failed + f))
}

# recap NAME RESULTS MISSING: the failures, 12 log lines each, to $NOPCTL_VM_FAILED
recap() {
	[ -n "${NOPCTL_VM_FAILED:-}" ] || return 0
	{
		awk -v n="[$1]" '/^RESULT fail/ { k = 12; print n, $0; next }
			/^RESULT|^DONE/ { k = 0 } k > 0 && /^#/ { k--; print n, $0 }' "$2" 2>/dev/null
		[ "$3" -gt 0 ] && echo "[$1] $3 test(s) gave no verdict (suites $suites)"
	} >> "$NOPCTL_VM_FAILED"
}

jobs=${NOPCTL_VM_JOBS:-$(nproc)}
[ "$arch" = arm64 ] && jobs=1
running=
for k in $kernels; do
	while [ "$(echo $running | wc -w)" -ge "$jobs" ]; do
		sleep 2
		still=
		for pid in $running; do kill -0 "$pid" 2>/dev/null && still="$still $pid"; done
		running=$still
	done
	boot "$k" &
	running="$running $!"
done
wait
passed=0
failed=0
for k in $kernels; do report "$k"; done
[ -n "$kernels" ] || failed=$((failed + 1))
echo "vm: $passed passed, $failed failed"
[ "$failed" = 0 ]
