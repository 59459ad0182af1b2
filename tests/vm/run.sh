#!/bin/sh
# run.sh SUITES... - boot each Debian kernel under QEMU (TCG) with a fresh
# initramfs, run the suites inside, collect verdicts from the second
# serial port, and end with "N passed, N failed". A guest that does not
# boot or does not finish counts as a failure, never as a skip.
# NOPCTL_VM_APPEND: more kernel parameters (lockdown=confidentiality).
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
suites=$(echo "${*:-trace}" | tr ' ' ,)
work=${NOPCTL_VM_WORK:-$top/build/vm}
mkdir -p "$work"
kernels=$(sh "$top/tests/vm/kernels.sh") || { echo "run.sh: cannot fetch kernels"; echo "0 passed, 1 failed"; exit 1; }
[ -n "${NOPCTL_VM_ONLY:-}" ] && kernels=$(echo "$kernels" | grep -F -- "-$NOPCTL_VM_ONLY.")
sh "$top/tests/vm/mkinitramfs.sh" "$work/initrd.gz" || { echo "0 passed, 1 failed"; exit 1; }
passed=0
failed=0
for k in $kernels; do
	name=$(basename "$k")
	res="$work/$name.results"
	con="$work/$name.console"
	rm -f "$res" "$con"
	start=$(date +%s)
	timeout "${NOPCTL_VM_TIMEOUT:-1500}" qemu-system-x86_64 -accel tcg,thread=single -m 1024 -smp 2 \
		-nodefaults -display none -no-reboot \
		-serial "file:$con" -serial "file:$res" \
		-kernel "$k" -initrd "$work/initrd.gz" \
		-append "console=ttyS0 quiet loglevel=3 panic=-1 nopctl.suites=$suites ${NOPCTL_VM_APPEND:-}" </dev/null
	qrc=$?
	p=$(grep -c '^RESULT pass' "$res" 2>/dev/null); p=${p:-0}
	f=$(grep -c '^RESULT fail' "$res" 2>/dev/null); f=${f:-0}
	plan=$(sed -n 's/^PLAN \([0-9]*\).*/\1/p' "$res" 2>/dev/null | head -n 1)
	grep -E '^(RESULT fail|#)' "$res" 2>/dev/null | sed "s/^/[$name] /"
	if [ -z "$plan" ] || ! grep -q '^DONE' "$res" 2>/dev/null; then
		echo "[$name] the guest did not finish (qemu exit $qrc); last console lines:"
		tail -n 20 "$con" 2>/dev/null | sed "s/^/[$name]   /"
		plan=${plan:-1}
	fi
	missing=$((plan - p - f))
	[ "$missing" -gt 0 ] && f=$((f + missing)) && echo "[$name] $missing test(s) gave no verdict"
	echo "[$name] $p passed, $f failed in $(($(date +%s) - start)) s"
	passed=$((passed + p))
	failed=$((failed + f))
done
[ -n "$kernels" ] || failed=$((failed + 1))
echo "vm: $passed passed, $failed failed"
[ "$failed" = 0 ]
