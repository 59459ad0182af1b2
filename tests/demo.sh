#!/bin/sh
# demo.sh - a few seconds of 'nopctl trace do_sys_openat2' on this machine;
# where its kernel refuses function tracing, nopctl says why, and the same
# run is shown inside the test VM of this machine's kind (Debian's newest
# kernel of the test bed under QEMU: 6.19 on x86-64, 6.12 on arm64, whose
# guest runs this build's arm64 nopctl). Exits non-zero when the VM run
# fails.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
b=${NOPCTL_BUILD:-$top/build}
case $b in /*) ;; *) b=$top/$b ;; esac
( while :; do cat /etc/hostname > /dev/null; sleep 0.3; done ) &
load=$!
"$b/nopctl" trace -d 3 do_sys_openat2
rc=$?
kill "$load"
[ "$rc" = 3 ] || exit "$rc"
echo
echo "demo: this kernel refuses the function tracer (above, exit 3). The same run in the test VM:"
log=$(mktemp)
trap 'rm -f "$log"' EXIT
rc=0
case $(uname -m) in
aarch64) NOPCTL_BUILD=$b NOPCTL_VM_ARCH=arm64 NOPCTL_VM_ONLY=6.12 sh "$top/tests/vm/run.sh" demo > "$log" 2>&1 || rc=$? ;;
*) NOPCTL_BUILD=$b NOPCTL_VM_ONLY=6.19 sh "$top/tests/vm/run.sh" demo > "$log" 2>&1 || rc=$? ;;
esac
if [ "$rc" = 0 ]; then
	sed -n 's/^\[[^]]*\] # \{0,1\}//p' "$log"
else
	cat "$log"
	echo "demo: the VM run failed (exit $rc)"
fi
exit "$rc"
