# t-lockdown.sh - the guest booted with lockdown=confidentiality (run.sh
# with NOPCTL_VM_APPEND), once with securityfs mounted and once without
# (nopctl.nosecurityfs): doctor names lockdown, the commands exit 3 and
# say why, and nothing changes (securityfs stays as it was).

# how nopctl learnt the lockdown mode, as doctor and trace say it
lockdown_source() {
	if grep -q ' securityfs ' /proc/mounts; then
		echo 'read from /sys/kernel/security/lockdown'
	else
		echo 'securityfs was not mounted: nopctl mounted it to read its lockdown file, and unmounted it again'
	fi
}

securityfs_as_it_was() {
	if grep -q 'nopctl\.nosecurityfs' /proc/cmdline; then
		grep -q ' securityfs ' /proc/mounts && fail "securityfs left mounted" || true
	else
		grep -q ' securityfs ' /proc/mounts || fail "securityfs unmounted"
	fi
}

t_lockdown_doctor() {
	how=$(lockdown_source)
	expect_rc 3 nopctl doctor -j do_sys_openat2
	json_lines "$T/out"
	jq -e -s --arg how "$how" 'any(.id == "lockdown" and .status == "fail"
		and (.seen | startswith("confidentiality: blocks tracefs")) and (.seen | contains($how)))' "$T/out" > /dev/null ||
		{ cat "$T/out"; fail "no lockdown finding ($how)"; }
	jq -e -s 'any(.id == "tracefs.access" and .status == "fail" and (.seen | test("lockdown .confidentiality. hides and forbids tracefs")))' "$T/out" > /dev/null ||
		{ cat "$T/out"; fail "no tracefs.access finding"; }
	jq -e -s 'last | .verdict == "tracing cannot work here"' "$T/out" > /dev/null || fail "verdict"
	securityfs_as_it_was
	expect_rc 3 nopctl doctor
	grep -q '^fail lockdown  *confidentiality' "$T/out" || { cat "$T/out"; fail "text: no lockdown finding"; }
	securityfs_as_it_was
}

t_lockdown_commands_refused() {
	how=$(lockdown_source)
	expect_rc 3 nopctl trace do_sys_openat2 -- true
	grep -q "lockdown is 'confidentiality' ($how)" "$T/err" || { cat "$T/err"; fail "trace does not name lockdown ($how)"; }
	grep -q "built without ftrace" "$T/err" && fail "blames the build: $(cat "$T/err")"
	expect_rc 3 nopctl graph do_sys_openat2 -- true
	grep -q "lockdown is 'confidentiality'" "$T/err" || { cat "$T/err"; fail "graph does not name lockdown"; }
	expect_rc 3 nopctl inspect do_sys_openat2
	grep -q "confidentiality" "$T/err" || { cat "$T/err"; fail "inspect does not name lockdown"; }
	# user-space functions (uprobes) too
	expect_rc 3 nopctl trace /usr/bin/ufuncs-pie:parse_line -- ufuncs-pie 1
	grep -q "lockdown is 'confidentiality'" "$T/err" || { cat "$T/err"; fail "a uprobe trace does not name lockdown"; }
	[ -z "$(ls "$TR/instances")" ] || fail "an instance was left"
	securityfs_as_it_was
}

t_lockdown_not_root() {
	# without root nopctl cannot mount securityfs: the kernel command line
	# names the mode
	rc=0
	su -s /bin/sh nobody -c 'nopctl doctor -j' > "$T/out" 2> "$T/err" || rc=$?
	[ "$rc" = 3 ] || { cat "$T/out" "$T/err"; fail "doctor as nobody: exit $rc, wanted 3"; }
	if grep -q 'nopctl\.nosecurityfs' /proc/cmdline; then
		jq -e -s 'any(.id == "lockdown" and .status == "fail"
			and (.seen | contains("lockdown=confidentiality on the kernel command line")))' "$T/out" > /dev/null ||
			{ cat "$T/out"; fail "no lockdown finding from the command line"; }
	else
		jq -e -s 'any(.id == "lockdown" and .status == "fail")' "$T/out" > /dev/null ||
			{ cat "$T/out"; fail "no lockdown finding"; }
	fi
	securityfs_as_it_was
}
