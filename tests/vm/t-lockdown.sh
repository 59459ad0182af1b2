# t-lockdown.sh - the guest booted with lockdown=confidentiality (run.sh
# with NOPCTL_VM_APPEND): doctor names lockdown, the commands exit 3 and
# say why, and nothing changes.

t_lockdown_doctor() {
	expect_rc 3 nopctl doctor -j do_sys_openat2
	json_lines "$T/out"
	jq -e -s 'any(.id == "lockdown" and .status == "fail" and (.seen | test("^confidentiality: blocks tracefs")))' "$T/out" > /dev/null ||
		{ cat "$T/out"; fail "no lockdown finding"; }
	jq -e -s 'any(.id == "tracefs.access" and .status == "fail" and (.seen | test("lockdown .confidentiality. hides and forbids tracefs")))' "$T/out" > /dev/null ||
		{ cat "$T/out"; fail "no tracefs.access finding"; }
	jq -e -s 'last | .verdict == "tracing cannot work here"' "$T/out" > /dev/null || fail "verdict"
}

t_lockdown_commands_refused() {
	expect_rc 3 nopctl trace do_sys_openat2 -- true
	grep -q "lockdown is 'confidentiality'" "$T/err" || { cat "$T/err"; fail "trace does not name lockdown"; }
	expect_rc 3 nopctl graph do_sys_openat2 -- true
	expect_rc 3 nopctl inspect do_sys_openat2
	grep -q "confidentiality" "$T/err" || { cat "$T/err"; fail "inspect does not name lockdown"; }
	[ -z "$(ls "$TR/instances")" ] || fail "an instance was left"
}
