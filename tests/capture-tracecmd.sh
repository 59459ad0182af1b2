#!/bin/sh
# capture-tracecmd.sh - record trace.dat files with each trace-cmd release
# (3.1.6, and 3.3 and 3.4 from peers.sh) in the 6.12 guest, and two with
# nopctl, with trace-cmd's report of each, into tests/fixtures/tracecmd/
# (run by hand; the results are committed and read by
# tests/host/t-tracecmd.sh). NOPCTL_VM_ARCH=arm64: in the arm64 6.12
# guest (Debian's arm64 trace-cmd 3.1.6, nopctl cross-built), into
# tests/fixtures/tracecmd-arm64/: the recordings x86-64 reads.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
case ${NOPCTL_VM_ARCH:-} in
arm64)
	out=$top/tests/fixtures/tracecmd-arm64 work=$top/build/vm-tcfixture-arm64
	make -C "$top" -s CROSS_COMPILE=aarch64-linux-gnu- all helpers
	export NOPCTL_BUILD=$top/build/aarch64-linux-gnu ;;
*)
	out=$top/tests/fixtures/tracecmd work=$top/build/vm-tcfixture
	make -C "$top" -s all build/tests/helpers/opener ;;
esac
NOPCTL_VM_ONLY=${NOPCTL_VM_ONLY:-6.12} NOPCTL_VM_WORK=$work sh "$top/tests/vm/run.sh" tcfixture || true
rm -rf "$out"
mkdir -p "$out"
for r in "$work"/*.results; do
	tr -d '\r' < "$r" | sed -n '/^BEGIN-FIXTURE/,/^END-FIXTURE/p' | sed '1d;$d' | base64 -d |
		tar xzf - -C "$out"
done
gzip -9 "$out"/*.report
ls -la "$out"
