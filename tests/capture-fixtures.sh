#!/bin/sh
# capture-fixtures.sh - record decoder fixtures from both VM kernels into
# tests/fixtures/<version>/ (run by hand; the results are committed).
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
work=$top/build/vm-fixture
make -C "$top" -s all build/tests/helpers/opener
NOPCTL_VM_WORK=$work sh "$top/tests/vm/run.sh" fixture || true
for r in "$work"/*.results; do
	tr -d '\r' < "$r" | sed -n '/^BEGIN-FIXTURE/,/^END-FIXTURE/p' | sed '1d;$d' | base64 -d | tar xzf - -C "$top/tests/fixtures"
done
ls -R "$top/tests/fixtures" | head -40
