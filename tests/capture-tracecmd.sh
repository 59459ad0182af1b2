#!/bin/sh
# capture-tracecmd.sh - record trace.dat files with each trace-cmd release
# (3.1.6, and 3.3 and 3.4 from peers.sh) in the 6.12 guest, with each
# release's own report of them, into tests/fixtures/tracecmd/ (run by
# hand; the results are committed and read by tests/host/t-tracecmd.sh).
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
work=$top/build/vm-tcfixture
make -C "$top" -s all build/tests/helpers/opener
NOPCTL_VM_ONLY=${NOPCTL_VM_ONLY:-6.12} NOPCTL_VM_WORK=$work sh "$top/tests/vm/run.sh" tcfixture || true
rm -rf "$top/tests/fixtures/tracecmd"
mkdir -p "$top/tests/fixtures/tracecmd"
for r in "$work"/*.results; do
	tr -d '\r' < "$r" | sed -n '/^BEGIN-FIXTURE/,/^END-FIXTURE/p' | sed '1d;$d' | base64 -d |
		tar xzf - -C "$top/tests/fixtures/tracecmd"
done
gzip -9 "$top"/tests/fixtures/tracecmd/*.report
ls -la "$top/tests/fixtures/tracecmd"
