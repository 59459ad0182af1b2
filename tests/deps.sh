#!/bin/sh
# deps.sh - install what building and testing nopctl needs, from Debian's
# archive, on a machine that has never seen the project (run as root).
set -eu
need="build-essential pkg-config libtracefs-dev libtraceevent-dev libelf-dev libzstd-dev zlib1g-dev libbz2-dev liblzma-dev libdw-dev libbpf-dev libcapstone-dev libjson-c-dev libncurses-dev tmux g++ trace-cmd libcmocka-dev graphviz
qemu-system-x86 busybox-static cpio xz-utils jq scdoc bash-completion valgrind libc6-dbg clang linux-perf python3.11-dbg debuginfod curl strace"
missing=
for p in $need; do
	dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q '^install ok installed' || missing="$missing $p"
done
if [ -n "$missing" ]; then
	echo "deps.sh: installing$missing"
	apt-get update -qq
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $missing >/dev/null
fi
