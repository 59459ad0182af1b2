#!/bin/sh
# peers.sh - fetch the newer trace-cmd releases the guest runs beside the
# host's 3.1.6 (Debian 12): 3.3 from Debian 13 (trixie) and 3.4 from sid,
# each with the libraries and loader of its own release (this machine's
# libc is older), through a private apt state: its own sources list, lists
# and cache under the cache directory; this machine's sources stay as
# they are. Prints one directory per release, VERSION:DIR; DIR holds the
# unpacked packages (usr/bin/trace-cmd, usr/lib/x86_64-linux-gnu/...).
# mkinitramfs.sh puts each under /opt and a trace-cmd-VERSION launcher in
# /usr/bin.
set -eu
cache=${NOPCTL_VM_CACHE:-/var/cache/nopctl/kernels}/peers
mkdir -p "$cache"
# one fetch at a time: the suites' guests are built side by side (vm-check
# starts the load suite beside the others), each asking for the peers
exec 9> "$cache/.lock"
flock 9
. "$(dirname "$0")/apt.sh"
APT_STATE=$cache/apt
st=$APT_STATE
mkdir -p "$st"
{ apt_source trixie; apt_source sid; } > "$st/sources.list"
# what trace-cmd loads (ldd in the unpacked tree), plus the plugins
pkgs="trace-cmd libtracefs1 libtraceevent1 libtraceevent1-plugin libzstd1 zlib1g libc6"

# fetch RELEASE: the newest trace-cmd of RELEASE and its libraries, once
fetch() {
	_rel=$1
	[ -f "$cache/$_rel.version" ] && [ -x "$cache/$_rel/usr/bin/trace-cmd" ] && return 0
	ls "$st/lists/"*_"$_rel"_*Packages >/dev/null 2>&1 || papt apt-get update >/dev/null 2>&1 ||
		papt apt-get update >&2
	rm -rf "$cache/$_rel" "$cache/$_rel.tmp" "$cache"/*.deb
	mkdir -p "$cache/$_rel.tmp"
	for p in $pkgs; do
		(cd "$cache" && papt apt-get download -q "$p/$_rel" >/dev/null 2>&1) ||
			(cd "$cache" && papt apt-get download "$p/$_rel" >&2)
	done
	for d in "$cache"/*.deb; do dpkg-deb -x "$d" "$cache/$_rel.tmp"; done
	papt apt-cache show "trace-cmd/$_rel" | sed -n 's/^Version: \([0-9.]*\).*/\1/p' | head -n 1 \
		> "$cache/$_rel.version"
	rm -f "$cache"/*.deb
	mv "$cache/$_rel.tmp" "$cache/$_rel"
}

for rel in trixie sid; do
	fetch "$rel"
	echo "$(cat "$cache/$rel.version"):$cache/$rel"
done
