# lib.sh - what the host suites share: the build to test ($b), a scratch
# directory ($tmp, removed at exit) and the pass/fail counters (ok, bad).
top=$(cd "$(dirname "$0")/../.." && pwd)
b=${NOPCTL_BUILD:-$top/build}
case $b in /*) ;; *) b=$top/$b ;; esac
pass=0
fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }

# need_root NAME: uprobes need root; else the suite fails, said as NAME's
need_root() {
	[ "$(id -u)" = 0 ] && return 0
	echo "$1: not root; uprobes need root"
	echo "$1: 0 passed, 1 failed"
	exit 1
}
