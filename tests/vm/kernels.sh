#!/bin/sh
# kernels.sh - fetch and unpack the Debian kernels the VM suites boot.
# Prints one vmlinuz path per line. Cache: $NOPCTL_VM_CACHE (outside the repo).
set -eu
cache=${NOPCTL_VM_CACHE:-/var/cache/nopctl/kernels}
mkdir -p "$cache"
cd "$cache"
# bookworm's default 6.1 and the 6.12 backport; the newest of each the archive has
for re in '^linux-image-6\.1\.0-[0-9]+-cloud-amd64$' '^linux-image-6\.12\.[0-9]+\+deb12-cloud-amd64-unsigned$'; do
	pkg=$(apt-cache search --names-only "$re" | cut -d' ' -f1 | sort -V | tail -n 1)
	if [ -z "$pkg" ]; then
		# an apt list that has never been updated knows no kernels
		apt-get update >/dev/null 2>&1 || true
		pkg=$(apt-cache search --names-only "$re" | cut -d' ' -f1 | sort -V | tail -n 1)
	fi
	[ -n "$pkg" ] || { echo "kernels.sh: no package matches $re" >&2; exit 1; }
	if ! ls "$pkg"/boot/vmlinuz-* >/dev/null 2>&1; then
		rm -rf "$pkg" "$pkg"_*.deb
		apt-get download "$pkg" >&2 2>/dev/null || apt-get download "$pkg" >&2
		mkdir -p "$pkg.tmp"
		dpkg-deb -x "$pkg"_*.deb "$pkg.tmp"
		rm -f "$pkg"_*.deb
		mv "$pkg.tmp" "$pkg"
	fi
	ls "$cache/$pkg"/boot/vmlinuz-*
done
