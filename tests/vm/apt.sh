# apt.sh - a private apt state for Debian releases this machine's own
# sources do not carry (kernels.sh, peers.sh): its own sources list, lists
# and cache under one directory, so that the machine's apt stays as it is.
# Set APT_STATE to the directory and write "$APT_STATE/sources.list";
# then 'papt apt-get ...' and 'papt apt-cache ...' use that state only.
# Releases are signed with keys bookworm's debian-archive-keyring carries.
papt() {
	_cmd=$1
	shift
	mkdir -p "$APT_STATE/lists/partial" "$APT_STATE/cache/archives/partial"
	"$_cmd" -o Dir::Etc::SourceList="$APT_STATE/sources.list" -o Dir::Etc::SourceParts=/nonexistent \
		-o Dir::State::Lists="$APT_STATE/lists" -o Dir::Cache="$APT_STATE/cache" -o Dir::State::Status=/dev/null \
		-o APT::Sandbox::User=root "$@"
}
# an archive line for RELEASE; ARCHIVE debian-security for its security
# updates (NOPCTL_DEBIAN_MIRROR is the host that serves both)
apt_source() {
	echo "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] ${NOPCTL_DEBIAN_MIRROR:-http://deb.debian.org}/${2:-debian} $1 main"
}
