# t-demo.sh - the README's demo inside the guest: output goes to the host.
t_demo() {
	a=$(opener_loop)
	nopctl trace -d 3 do_sys_openat2 > "$T/out" 2>&1
	kill "$a"
	head -n 12 "$T/out" | sed 's/^/# /' >&3
	echo "# ..." >&3
	tail -n 1 "$T/out" | sed 's/^/# /' >&3
}
