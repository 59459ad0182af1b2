# t-demo.sh - the README's demo inside the guest: output goes to the host.
t_demo() {
	a=$(opener_loop)
	rc=0
	nopctl trace -d 3 do_sys_openat2 > "$T/out" 2>&1 || rc=$?
	kill "$a"
	head -n 12 "$T/out" | sed 's/^/# /' >&3
	echo "# ..." >&3
	tail -n 1 "$T/out" | sed 's/^/# /' >&3
	[ "$rc" = 0 ] || fail "nopctl trace exited $rc"
	grep -Eq ' +\[[0-9]{3}\] +[0-9]+\.[0-9]{6}: do_sys_openat2 <-' "$T/out" || fail "no do_sys_openat2 line"
}
