#!/bin/sh
# kernels.sh - fetch and unpack the Debian kernels the VM suites boot.
# Prints one vmlinuz path per line. Cache: $NOPCTL_VM_CACHE (outside the repo).
#   5.10  bullseye's (Debian 11), through a private apt state like 6.19's
#   6.1   bookworm's default kernel
#   6.12  bookworm's 6.12 (+deb12)
#   6.19  trixie-backports, through a private apt state (its own sources
#         list, lists and cache under the cache directory), so that this
#         machine's own sources stay as they are
# The newest of each that the archive has.
# NOPCTL_VM_ARCH=arm64: instead bookworm's arm64 cloud kernels 6.1 and
# 6.12 (the host's apt, arm64 a foreign architecture: deps.sh --cross),
# each with its modules (virtio_console for 6.1's results port, dummy.ko),
# cache /var/cache/nopctl/kernels-arm64.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
arch=${NOPCTL_VM_ARCH:-amd64}
case $arch in
amd64) cache=${NOPCTL_VM_CACHE:-/var/cache/nopctl/kernels} ;;
arm64) cache=${NOPCTL_VM_CACHE:-/var/cache/nopctl/kernels-arm64} ;;
*) echo "kernels.sh: NOPCTL_VM_ARCH is amd64 or arm64, not $arch" >&2; exit 2 ;;
esac
mkdir -p "$cache"
cd "$cache"

# trixie-backports, through a private apt state (apt.sh)
. "$here/apt.sh"
APT_STATE=$cache/apt-trixie-backports
mkdir -p "$APT_STATE"
apt_source trixie-backports > "$APT_STATE/sources.list"
bpo_apt() { papt "$@"; }

# newest APT_CMD REGEX: the newest package whose name matches; an apt list
# that has never been updated knows none, so update it once and look again
newest() {
	_p=$($1 search --names-only "$2" 2>/dev/null | cut -d' ' -f1 | sort -V | tail -n 1)
	if [ -z "$_p" ]; then
		$3 update >/dev/null 2>&1 || true
		_p=$($1 search --names-only "$2" 2>/dev/null | cut -d' ' -f1 | sort -V | tail -n 1)
	fi
	[ -n "$_p" ] || { echo "kernels.sh: no package matches $2" >&2; return 1; }
	echo "$_p"
}

# unpack APT_CMD PKG: download PKG into $cache/PKG (once)
unpack() {
	ls "$2"/boot/vmlinuz-* >/dev/null 2>&1 && return 0
	rm -rf "$2" "$2".tmp "$2"_*.deb
	$1 download "$2" >&2 2>/dev/null || $1 download "$2" >&2
	mkdir -p "$2.tmp"
	dpkg-deb -x "$2"_*.deb "$2.tmp"
	rm -f "$2"_*.deb
	mv "$2.tmp" "$2"
}

# arm64: the image packages hold their modules; nothing else to fetch
if [ "$arch" = arm64 ]; then
	for re in '^linux-image-6\.1\.0-[0-9]+-cloud-arm64$' '^linux-image-6\.12\.[0-9]+\+deb12-cloud-arm64-unsigned$'; do
		pkg=$(newest apt-cache "$re" apt-get)
		unpack apt-get "$pkg"
		ls "$cache/$pkg"/boot/vmlinuz-*
	done
	exit 0
fi

for re in '^linux-image-6\.1\.0-[0-9]+-cloud-amd64$' '^linux-image-6\.12\.[0-9]+\+deb12-cloud-amd64-unsigned$'; do
	pkg=$(newest apt-cache "$re" apt-get)
	unpack apt-get "$pkg"
	ls "$cache/$pkg"/boot/vmlinuz-*
done

# 6.19: the image is linux-binary-*; its modules (dummy.ko for the -m
# tests, i6300esb.ko and the watchdog core for t-blackbox.sh's watchdog) are linux-modules-* of the same version, which the index no longer
# lists once newer kernels replaced it (seen 2026-11: 7.x listed, 6.19's
# modules only in the pool), so they come from the pool by name
pkg=$(newest "bpo_apt apt-cache" '^linux-binary-6\.19\.[0-9]+\+deb13-cloud-amd64$' "bpo_apt apt-get")
unpack "bpo_apt apt-get" "$pkg"
if ! ls "$pkg"/usr/lib/modules/*/kernel/drivers/net/dummy.ko* "$pkg"/usr/lib/modules/*/kernel/drivers/watchdog/watchdog.ko* >/dev/null 2>&1; then
	ver=$(bpo_apt apt-cache show "$pkg" | sed -n 's/^Version: //p' | head -n 1)
	mod=linux-modules-${pkg#linux-binary-}
	if ! bpo_apt apt-get download "$mod" >&2 2>/dev/null; then
		bpo_apt /usr/lib/apt/apt-helper download-file \
			"${NOPCTL_DEBIAN_MIRROR:-http://deb.debian.org}/debian/pool/main/l/linux/${mod}_${ver}_amd64.deb" \
			"$cache/${mod}_${ver}_amd64.deb" >&2 || { echo "kernels.sh: cannot fetch $mod $ver" >&2; exit 1; }
	fi
	dpkg-deb --fsys-tarfile "$mod"_*.deb | tar -x -C "$pkg" --wildcards '*/kernel/drivers/net/dummy.ko*' \
		'*/kernel/drivers/watchdog/i6300esb.ko*' '*/kernel/drivers/watchdog/watchdog.ko*'
	rm -f "$mod"_*.deb
fi
ls "$cache/$pkg"/boot/vmlinuz-*

# 5.10: bullseye's, and its security updates
APT_STATE=$cache/apt-bullseye
mkdir -p "$APT_STATE"
{ apt_source bullseye; apt_source bullseye-security debian-security; } > "$APT_STATE/sources.list"
pkg=$(newest "papt apt-cache" '^linux-image-5\.10\.0-[0-9]+-cloud-amd64$' "papt apt-get")
unpack "papt apt-get" "$pkg"
ls "$cache/$pkg"/boot/vmlinuz-*
