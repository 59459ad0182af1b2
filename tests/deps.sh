#!/bin/sh
# deps.sh - install what building and testing nopctl needs, from Debian's
# archive, on a machine that has never seen the project (run as root).
# On x86-64 also what make check's arm64 guests need (--cross alone: only
# that): the cross compilers, arm64 made a foreign architecture of dpkg,
# the :arm64 libraries the Makefile links (shared and static), cmocka,
# and libstdc++6, which qemu-user's runs load from the multiarch
# directory (make CROSS_COMPILE=aarch64-linux-gnu-, tests/README.md); and
# the arm64 VM suites' qemu-system-aarch64, cpio and xz (their root,
# NOPCTL_VM_ARCH=arm64: tests/vm/arm64.sh).
set -eu
need="build-essential pkg-config libtracefs-dev libtraceevent-dev libelf-dev libzstd-dev zlib1g-dev libbz2-dev liblzma-dev libdw-dev libbpf-dev libcapstone-dev libjson-c-dev libncurses-dev tmux g++ trace-cmd libcmocka-dev graphviz
qemu-system-x86 busybox-static cpio xz-utils jq scdoc bash-completion valgrind libc6-dbg clang linux-perf python3.11-dbg debuginfod curl strace"
cross() {
	need="$need gcc-aarch64-linux-gnu g++-aarch64-linux-gnu pkg-config qemu-user qemu-system-arm cpio xz-utils scdoc"
	for p in libtracefs-dev libtraceevent-dev libelf-dev libzstd-dev zlib1g-dev libbz2-dev liblzma-dev \
		libdw-dev libbpf-dev libcapstone-dev libjson-c-dev libncurses-dev libcmocka-dev libstdc++6; do
		need="$need $p:arm64"
	done
	dpkg --print-foreign-architectures | grep -qx arm64 || dpkg --add-architecture arm64
}
case "${1:-}" in
--cross)
	need=
	cross
	;;
"")
	case $(dpkg --print-architecture) in
	amd64) cross ;;
	arm64) need="$need qemu-system-arm" ;; # make demo's guest (tests/demo.sh)
	esac
	;;
*)
	echo "usage: sh tests/deps.sh [--cross]" >&2
	exit 2
	;;
esac
missing=
for p in $need; do
	dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q '^install ok installed' || missing="$missing $p"
done
if [ -n "$missing" ]; then
	echo "deps.sh: installing$missing"
	apt-get update -qq
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $missing >/dev/null
fi
