#!/bin/sh
# arm64.sh OUT.cpio.gz - an arm64 guest's root (mkinitramfs.sh with
# NOPCTL_VM_ARCH=arm64): busybox-static, jq and trace-cmd from Debian's
# :arm64 packages, unpacked (never installed) under the cache directory;
# the cross-built nopctl and helpers (make CROSS_COMPILE=aarch64-linux-gnu-);
# every library they load, found by their NEEDED entries (ldd cannot run
# an arm64 program) in those packages or the host's :arm64 libraries
# (deps.sh --cross), under /lib/aarch64-linux-gnu, the loader at
# /lib/ld-linux-aarch64.so.1; each kernel's dummy.ko, and the virtio
# console's modules where a kernel has them as modules (6.1), in load
# order under /modules/KVER/boot (the init loads them). No tmux,
# valgrind or newer trace-cmd: the suites that need them (live,
# valgrind, tcfixture) are not run on arm64. NOPCTL_VM_STATIC=1: the
# static nopctl and helpers on a root with no shared library.
set -eu
out=$1
top=$(cd "$(dirname "$0")/../.." && pwd)
b=${NOPCTL_BUILD:-$top/build/aarch64-linux-gnu}
case $b in /*) ;; *) b=$top/$b ;; esac
kcache=${NOPCTL_VM_CACHE:-/var/cache/nopctl/kernels-arm64}
uc=$kcache/userland
mkdir -p "$uc"
for f in "$b/nopctl" "$b/tests/helpers/opener"; do
	[ -f "$f" ] || { echo "arm64.sh: no $f (make CROSS_COMPILE=aarch64-linux-gnu- and its HELPERS)" >&2; exit 1; }
done

# the packages, once: guests built side by side share the cache
exec 9> "$uc/.lock"
flock 9
for p in busybox-static jq libjq1 libonig5 trace-cmd; do
	[ -f "$uc/$p.done" ] && continue
	rm -f "$uc"/*.deb
	(cd "$uc" && apt-get download -q "$p:arm64" >/dev/null 2>&1) || (cd "$uc" && apt-get download "$p:arm64" >&2)
	dpkg-deb -x "$uc"/"$p"_*.deb "$uc/root"
	rm -f "$uc"/*.deb
	: > "$uc/$p.done"
done
flock -u 9

root=$(mktemp -d)
chmod 0755 "$root"
trap 'rm -rf "$root"' EXIT
lib=$root/lib/aarch64-linux-gnu
mkdir -p "$root"/bin "$root"/sbin "$root"/proc "$root"/sys "$root"/dev "$root"/tmp \
	"$root"/etc "$root"/run "$root"/tests "$root"/usr/bin "$lib"
cp "$uc/root/bin/busybox" "$root/bin/busybox"
suitefiles="$top/tests/suites/t-*.sh $top/tests/tc-events.sh $top/tests/why-truth.sh"
# NOPCTL_VM_STATIC=1: no shared library at all, as mkinitramfs.sh's: the
# static nopctl and static helpers only, for t-static.sh
if [ -n "${NOPCTL_VM_STATIC:-}" ]; then
	rmdir "$lib"
	cp "$b/nopctl-static" "$root/usr/bin/nopctl"
	for h in opener uopen-static ufuncs-static; do cp "$b/tests/helpers/$h" "$root/usr/bin/"; done
	suitefiles=$top/tests/suites/t-static.sh
else
	cp -L /usr/lib/aarch64-linux-gnu/ld-linux-aarch64.so.1 "$root/lib/ld-linux-aarch64.so.1"

	# needed ELF: each library ELF names in NEEDED, and theirs, into $lib;
	# a name found in none of the directories is a library of the helpers
	# (libnopdemo.so beside them in /usr/bin) or fails the build
	needed() {
		for _l in $(readelf -d "$1" 2>/dev/null | sed -n 's/.*(NEEDED).*\[\(.*\)\]$/\1/p'); do
			[ -e "$lib/$_l" ] || [ "$_l" = ld-linux-aarch64.so.1 ] && continue
			_found=
			for _d in "$uc/root/usr/lib/aarch64-linux-gnu" "$uc/root/lib/aarch64-linux-gnu" \
				/usr/lib/aarch64-linux-gnu /lib/aarch64-linux-gnu; do
				[ -f "$_d/$_l" ] || continue
				cp -L "$_d/$_l" "$lib/$_l"
				_found=1
				break
			done
			if [ -n "$_found" ]; then
				needed "$lib/$_l"
			elif [ ! -f "$root/usr/bin/$_l" ]; then
				echo "arm64.sh: $1 needs $_l, found nowhere" >&2
				exit 1
			fi
		done
	}
	add() {
		cp "$1" "$root/usr/bin/$(basename "$1")"
		needed "$1"
	}
	add "$b/nopctl"
	add "$uc/root/usr/bin/jq"
	add "$uc/root/usr/bin/trace-cmd"
	for h in "$b"/tests/helpers/*; do cp "$h" "$root/usr/bin/"; done
	# uwhy's sources, under /usr/src/nopctl-why and the path its DWARF
	# names (t-uprobes.sh puts them there at run time: a checkout under
	# /tmp is hidden by the guest's tmpfs)
	mkdir -p "$root/usr/src/nopctl-why$top/tests/progs"
	cp "$top"/tests/progs/uwhy* "$root/usr/src/nopctl-why$top/tests/progs/"
	for h in "$root"/usr/bin/*; do
		case $(od -An -c -N4 "$h" | tr -d ' ') in *ELF) needed "$h" ;; esac
	done
fi

# per kernel: dummy.ko for the -m tests, and the virtio console's modules
# (with the transport's) where they are not built in, decompressed
for kd in "$kcache"/linux-image-*/lib/modules/*; do
	case $kd in *-dbg/*) continue ;; esac
	[ -d "$kd/kernel" ] || continue
	kver=${kd##*/}
	mkdir -p "$root/modules/$kver/boot"
	n=0
	for m in net/dummy virtio/virtio_ring virtio/virtio virtio/virtio_pci_legacy_dev \
		virtio/virtio_pci_modern_dev virtio/virtio_pci char/virtio_console; do
		ko=$(ls "$kd/kernel/drivers/$m".ko* 2>/dev/null | head -n 1)
		[ -n "$ko" ] || continue
		case $m in
		net/dummy) dst=$root/modules/$kver/dummy.ko ;;
		*) n=$((n + 1)); dst=$root/modules/$kver/boot/$n-${m##*/}.ko ;;
		esac
		case $ko in
		*.xz) xz -dc "$ko" > "$dst" ;;
		*.zst) zstd -qdc "$ko" > "$dst" ;;
		*) cp "$ko" "$dst" ;;
		esac
	done
done

cp "$top"/tests/vm/init "$root"/init
cp "$top"/tests/suites/lib.sh $suitefiles "$root"/tests/
echo nopctl-guest > "$root"/etc/hostname
printf 'root:x:0:0:root:/:/bin/sh\nnobody:x:65534:65534:nobody:/:/bin/sh\n' > "$root"/etc/passwd
chmod +x "$root"/init
(cd "$root" && find . | cpio -o -H newc --quiet) | gzip -1 > "$out"
