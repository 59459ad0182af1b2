#!/bin/sh
# mkinitramfs.sh OUT.cpio.gz - the guest's root: busybox-static, the fresh
# nopctl with its shared libraries, jq (a real JSON parser), trace-cmd, tmux,
# valgrind, the test helpers and the suites.
# NOPCTL_VM_ARCH=arm64: an arm64 guest's root (arm64.sh): the cross-built
# nopctl and helpers (build/aarch64-linux-gnu), busybox, jq and trace-cmd
# from Debian's :arm64 packages, the virtio console's modules.
set -eu
out=$1
top=$(cd "$(dirname "$0")/../.." && pwd)
if [ "${NOPCTL_VM_ARCH:-amd64}" = arm64 ]; then
	exec sh "$top/tests/vm/arm64.sh" "$out"
fi
b=${NOPCTL_BUILD:-$top/build}
case $b in /*) ;; *) b=$top/$b ;; esac
root=$(mktemp -d)
chmod 0755 "$root" # mktemp makes it 0700: other users could not reach /bin
trap 'rm -rf "$root"' EXIT
mkdir -p "$root"/bin "$root"/sbin "$root"/proc "$root"/sys "$root"/dev "$root"/tmp \
	"$root"/etc "$root"/run "$root"/tests "$root"/usr/bin
cp /bin/busybox "$root"/bin/busybox
# pack SUITE_FILES...: the guest's init, lib.sh and those files, its
# identity, and the root into $out
pack() {
	cp "$top"/tests/vm/init "$root"/init
	cp "$top"/tests/suites/lib.sh "$@" "$root"/tests/
	echo nopctl-guest > "$root"/etc/hostname
	printf 'root:x:0:0:root:/:/bin/sh\nnobody:x:65534:65534:nobody:/:/bin/sh\n' > "$root"/etc/passwd
	chmod +x "$root"/init
	(cd "$root" && find . | cpio -o -H newc --quiet) | gzip -1 > "$out"
}
# NOPCTL_VM_STATIC=1: a root with no shared library at all, the static
# nopctl (make static) and the static helpers only, for t-static.sh
if [ -n "${NOPCTL_VM_STATIC:-}" ]; then
	cp "$b/nopctl-static" "$root/usr/bin/nopctl"
	for h in opener uopen-static ufuncs-static; do cp "$b/tests/helpers/$h" "$root/usr/bin/"; done
	pack "$top"/tests/suites/t-static.sh
	exit 0
fi
# a program and every library it loads, at the same paths
add() {
	cp "$1" "$root/usr/bin/$(basename "$1")"
	ldd "$1" | awk '/=>/ { print $3 } /^\t\/lib/ { print $1 }' | while read -r lib; do
		[ -f "$lib" ] || continue
		mkdir -p "$root$(dirname "$lib")"
		cp -L "$lib" "$root$lib"
	done
}
add "$b/nopctl"
add "$(command -v jq)"
add "$(command -v trace-cmd)" # the peer, for record/report round trips
# a real terminal for nopctl top (t-live.sh): tmux, and the terminfo
# entries of its panes
add "$(command -v tmux)"
for t in s/screen s/screen-256color t/tmux t/tmux-256color d/dumb; do
	mkdir -p "$root/usr/share/terminfo/${t%/*}"
	cp -L "/lib/terminfo/$t" "$root/usr/share/terminfo/$t" 2>/dev/null ||
		cp -L "/usr/share/terminfo/$t" "$root/usr/share/terminfo/$t"
done
# tmux wants a UTF-8 locale: glibc's C.UTF-8 (libc-bin)
mkdir -p "$root/usr/lib/locale"
cp -r /usr/lib/locale/C.utf8 "$root/usr/lib/locale/"
# the newer trace-cmd releases (peers.sh), each with its own loader and
# libraries under /opt/trace-cmd-VERSION, run as trace-cmd-VERSION
peers=$(sh "$top/tests/vm/peers.sh") || { echo "mkinitramfs.sh: cannot fetch trace-cmd's newer releases" >&2; exit 1; }
for pv in $peers; do
	v=${pv%%:*} src=${pv#*:} dst=$root/opt/trace-cmd-${pv%%:*}
	mkdir -p "$dst/lib"
	cp "$src/usr/bin/trace-cmd" "$dst/"
	for l in ld-linux-x86-64.so.2 libc.so.6 libm.so.6 libtraceevent.so.1 libtracefs.so.1 libzstd.so.1 libz.so.1; do
		cp -L "$src/usr/lib/x86_64-linux-gnu/$l" "$dst/lib/"
	done
	cp -r "$src/usr/lib/x86_64-linux-gnu/traceevent" "$dst/lib/"
	printf '#!/bin/sh\nd=/opt/trace-cmd-%s\nTRACEEVENT_PLUGIN_DIR=$d/lib/traceevent/plugins exec "$d/lib/ld-linux-x86-64.so.2" --library-path "$d/lib" "$d/trace-cmd" "$@"\n' \
		"$v" > "$root/usr/bin/trace-cmd-$v"
	chmod +x "$root/usr/bin/trace-cmd-$v"
done
# valgrind's memcheck, for leak checks of complete runs (t-valgrind.sh)
add /usr/bin/valgrind.bin
mv "$root/usr/bin/valgrind.bin" "$root/usr/bin/valgrind"
mkdir -p "$root/usr/libexec/valgrind"
for f in memcheck-amd64-linux vgpreload_core-amd64-linux.so vgpreload_memcheck-amd64-linux.so default.supp; do
	cp "/usr/libexec/valgrind/$f" "$root/usr/libexec/valgrind/"
done
# memcheck must redirect ld.so's strlen: it needs ld.so's symbols (libc6-dbg)
id=$(readelf -n /lib64/ld-linux-x86-64.so.2 | awk '/Build ID/ { print $3 }')
dbg=/usr/lib/debug/.build-id/$(echo "$id" | cut -c1-2)/$(echo "$id" | cut -c3-).debug
mkdir -p "$root$(dirname "$dbg")"
cp "$dbg" "$root$dbg"
for h in "$b"/tests/helpers/*; do cp "$h" "$root/usr/bin/"; done
# uwhy's sources, under /usr/src/nopctl-why and the path its DWARF names
# (t-uprobes.sh puts them there at run time: a checkout under /tmp is
# hidden by the guest's tmpfs)
mkdir -p "$root/usr/src/nopctl-why$top/tests/progs"
cp "$top"/tests/progs/uwhy* "$root/usr/src/nopctl-why$top/tests/progs/"
# a small module with no dependencies and traceable functions, per kernel,
# for -m tests; QEMU's watchdog's driver and the watchdog core it needs
# (t-blackbox.sh)
for ko in "${NOPCTL_VM_CACHE:-/var/cache/nopctl/kernels}"/*/lib/modules/*/kernel/drivers/net/dummy.ko* \
	"${NOPCTL_VM_CACHE:-/var/cache/nopctl/kernels}"/*/usr/lib/modules/*/kernel/drivers/net/dummy.ko* \
	"${NOPCTL_VM_CACHE:-/var/cache/nopctl/kernels}"/*/lib/modules/*/kernel/drivers/watchdog/i6300esb.ko* \
	"${NOPCTL_VM_CACHE:-/var/cache/nopctl/kernels}"/*/usr/lib/modules/*/kernel/drivers/watchdog/i6300esb.ko* \
	"${NOPCTL_VM_CACHE:-/var/cache/nopctl/kernels}"/*/lib/modules/*/kernel/drivers/watchdog/watchdog.ko* \
	"${NOPCTL_VM_CACHE:-/var/cache/nopctl/kernels}"/*/usr/lib/modules/*/kernel/drivers/watchdog/watchdog.ko*; do
	[ -f "$ko" ] || continue
	kver=$(echo "$ko" | sed 's|.*/lib/modules/\([^/]*\)/.*|\1|')
	name=$(basename "$ko" .xz)
	mkdir -p "$root/modules/$kver"
	case $ko in
	*.xz) xz -dc "$ko" > "$root/modules/$kver/$name" ;;
	*) cp "$ko" "$root/modules/$kver/$name" ;;
	esac
done
# make bench: perf (linux-perf) beside trace-cmd, and the bench suite
if [ -n "${NOPCTL_VM_BENCH:-}" ]; then
	add "$(command -v perf)"
	# BENCH_BASELINE (bench/run.sh): an earlier nopctl, as nopctl-baseline,
	# read B1's files in the same turns: a change judged in one boot
	if [ -n "${NOPCTL_VM_BASELINE:-}" ]; then
		mkdir -p "$root/baseline"
		cp "$NOPCTL_VM_BASELINE" "$root/baseline/nopctl-baseline"
		add "$root/baseline/nopctl-baseline"
		rm -rf "$root/baseline"
	fi
	cp "$top"/bench/t-*.sh "$top"/bench/b6prime.sh "$root"/tests/
fi
pack "$top"/tests/suites/t-*.sh "$top"/tests/tc-events.sh "$top"/tests/why-truth.sh
