#!/bin/sh
# t-cli.sh - what a new user meets first, where no kernel is involved
# (issue 19): nopctl report of recorded trace.dat files (fuzz/corpus/dat)
# and the messages of bad input. Each check names what it expects.
set -u
. "$(dirname "$0")/lib.sh"
n=$b/nopctl
dat=$top/fuzz/corpus/dat
# run WANT CMD...: exit code WANT, output in $tmp/out, $tmp/err
run() {
	want=$1
	shift
	rc=0
	"$@" > "$tmp/out" 2> "$tmp/err" || rc=$?
	[ "$rc" = "$want" ] && ok || bad "exit $rc, wanted $want: $* ($(head -c 300 "$tmp/err"))"
}
has() { grep -q -e "$2" "$tmp/$1" && ok || bad "$tmp/$1 lacks '$2': $(head -c 300 "$tmp/$1")"; }

# #4: the views made of calls refuse a function tracer recording
for v in --stats "-F folded" "-F dot" "-F chrome"; do
	# shellcheck disable=SC2086 # v is words
	run 2 "$n" report $v "$dat/stack-6.1.dat"
	has err 'record -G'
	[ -s "$tmp/out" ] && bad "report $v printed output before refusing"
done
run 0 "$n" report "$dat/stack-6.1.dat"
has err '^nopctl: 42 events in'

# #12: -c N shows N calls, and the summary says calls (graph) or events
for c in 1 3 20 77; do
	run 0 "$n" report -j -c $c "$dat/graph-6.12.dat"
	[ "$(grep -c '"type":"\(call\|exit\)"' "$tmp/out")" = $c ] && ok || bad "report -c $c showed $(grep -c '"type":"\(call\|exit\)"' "$tmp/out") calls"
	has out "\"events\":$c,\"counted\":\"calls\""
done
run 0 "$n" report "$dat/graph-6.12.dat"
has err '^nopctl: 221 calls in'

# #11: --hist of a function not in the table is refused; the histogram
# starts at its first bucket with calls, and its columns line up
run 2 "$n" report --stats --hist vfs_read "$dat/graph-6.12.dat"
has err 'no call of vfs_read was recorded'
run 0 "$n" report --stats --hist do_sys_openat2 "$dat/graph-6.12.dat"
sed -n '/^# do_sys_openat2: 22 calls/,$p' "$tmp/out" | sed 1,2d > "$tmp/hist"
[ "$(awk -F'|' '{ s += $2 } END { print s }' "$tmp/hist")" = 22 ] && ok || bad "histogram does not add up to 22: $(cat "$tmp/hist")"
head -1 "$tmp/hist" | grep -q '^ *32.768 us - 65.536 us *| *7 |' && ok || bad "histogram's first line: $(head -1 "$tmp/hist")"
[ "$(grep '|' "$tmp/hist" | awk '{ print index($0, "|") }' | sort -u | wc -l)" = 1 ] && ok || bad "histogram columns out of line: $(cat "$tmp/hist")"
grep '^# DURATION' "$tmp/out" | awk '{ print index($0, "|") }' > "$tmp/hcol"
[ "$(cat "$tmp/hcol")" = "$(head -1 "$tmp/hist" | awk '{ print index($0, "|") }')" ] && ok || bad "histogram header out of line"

# #7: -o a character device is written as it is; a directory is named
run 0 "$n" report -o /dev/null "$dat/graph-6.12.dat"
run 2 "$n" report -o /tmp "$dat/graph-6.12.dat"
has err '/tmp is a directory; give a file name'
# issue 54 #19: a directory to read is named as such, usage (2), not a
# kernel that cannot (3)
mkdir "$tmp/recdir"
run 2 "$n" report "$tmp/recdir"
has err "$tmp/recdir is a directory, not a trace.dat file"
grep -q 'kernel' "$tmp/err" && bad "report DIR blames the kernel: $(cat "$tmp/err")" || ok

# #40: the library names what would work, the command line which option
# does it (text and JSON alike)
run 2 "$n" trace '!vfs_read'
has err "'!' at position 1"
has err '-n PATTERN'
run 2 "$n" trace -j 'nolib:foo' -- true
has out '"message":"no library .nolib. found.*-m MODULE PATTERN'
: > "$tmp/exists.dat"
run 2 "$n" record -o "$tmp/exists.dat" "$b/tests/helpers/ufuncs-pie:main" -- "$b/tests/helpers/ufuncs-pie" 1
has err 'exists; remove it or add --overwrite'

# #41.4: -o onto a kernel file system (tracefs, debugfs, sysfs, procfs) is
# refused before anything is set up, the file untouched
for f in /sys/kernel/tracing/set_ftrace_notrace /proc/self/comm; do
	[ -e "$f" ] || { bad "$f missing on this host"; continue; }
	before=$(cat "$f" 2> /dev/null | md5sum)
	run 2 "$n" trace --overwrite -o "$f" "$b/tests/helpers/ufuncs-pie:main" -- "$b/tests/helpers/ufuncs-pie" 1
	has err "kernel file system"
	[ "$(cat "$f" 2> /dev/null | md5sum)" = "$before" ] && ok || bad "-o $f changed it"
done
run 2 "$n" record --overwrite -o /sys/kernel/tracing/new.dat "$b/tests/helpers/ufuncs-pie:main" -- "$b/tests/helpers/ufuncs-pie" 1
has err "kernel file system"

# #41.5: record --overwrite onto another user's file writes a new
# root-owned 0600 file there, never root's data into theirs
: > "$tmp/theirs.dat"
chown nobody "$tmp/theirs.dat"
chmod 0644 "$tmp/theirs.dat"
ln "$tmp/theirs.dat" "$tmp/theirs.link" 2> /dev/null || true
run 0 "$n" record --overwrite -o "$tmp/theirs.dat" "$b/tests/helpers/ufuncs-pie:main" -- "$b/tests/helpers/ufuncs-pie" 1
[ "$(stat -c '%U %a' "$tmp/theirs.dat")" = "root 600" ] && ok || bad "record --overwrite kept $(stat -c '%U %a' "$tmp/theirs.dat")"
[ ! -s "$tmp/theirs.link" ] && ok || bad "record --overwrite wrote into another user's file (its other link has $(stat -c %s "$tmp/theirs.link") bytes)"
"$n" report "$tmp/theirs.dat" > /dev/null 2>&1 && ok || bad "the replaced recording does not read"

# and trace's text output likewise
: > "$tmp/theirs.txt"
chown nobody "$tmp/theirs.txt"
run 0 "$n" trace --overwrite -o "$tmp/theirs.txt" "$b/tests/helpers/ufuncs-pie:main" -- "$b/tests/helpers/ufuncs-pie" 1
[ "$(stat -c %U "$tmp/theirs.txt")" = root ] && grep -q main "$tmp/theirs.txt" && ok ||
	bad "trace --overwrite onto another user's file: $(stat -c %U "$tmp/theirs.txt")"

# #41.10: no byte of a file reaches the terminal as a control character:
# a function name with an escape sequence (same length, in the recording's
# kallsyms) is shown with \x1b in every text view, escaped in JSON
python3 - "$dat/graph-6.12.dat" "$tmp/esc.dat" <<'PY'
import sys
d = open(sys.argv[1], 'rb').read()
i = d.index(b' do_sys_openat2\n', d.index(b'do_sys_openat2') - 20)
d = d[:i] + b' do_\x1b[41mopenat\n' + d[i + 16:]
open(sys.argv[2], 'wb').write(d)
PY
for v in "" "--stats" "-F folded" "-F dot"; do
	# shellcheck disable=SC2086 # v is words
	"$n" report $v "$tmp/esc.dat" > "$tmp/esc.out" 2>&1
	grep -Eq 'do_(\\)+x1b\[41mopenat' "$tmp/esc.out" && ok || bad "report $v does not show the name escaped"
	! grep -q "$(printf '\033')" "$tmp/esc.out" && ok || bad "report $v printed an ESC byte"
done
"$n" report -j "$tmp/esc.dat" > "$tmp/esc.out" 2>&1
grep -q 'do_\\u001b\[41mopenat' "$tmp/esc.out" && ok || bad "report -j does not escape the name"

# #54.12, #54.15: strings from a binary or the kernel reach the terminal
# with their control bytes (C0, DEL, C1 as a byte or as UTF-8) as \xNN and
# anything else that is UTF-8 as it is; JSON keeps UTF-8 and jq reads it.
# A program's symbol renamed to a terminal escape, and the program naming
# its task (prctl PR_SET_NAME) with ESC, BEL, 0x9b or with UTF-8. (JSON
# gives a byte of no valid UTF-8, 0x9b, back as the code point of its
# value: U+009B.)
cat > "$tmp/evil.c" <<'C'
#include <stdio.h>
#include <sys/prctl.h>
__attribute__((noinline)) int tick(int i) { __asm__ volatile("" ::: "memory"); return i + 1; }
int main(int argc, char **argv)
{
	int s = 0;

	if (argc > 1)
		prctl(PR_SET_NAME, argv[1]);
	for (int i = 0; i < 3; i++)
		s = tick(s);
	printf("%d\n", s);
	return 0;
}
C
esc=$(printf '\033')
bel=$(printf '\007')
c1=$(printf '\233')
raw() { LC_ALL=C grep -q "[$esc$bel$c1]" "$1" || LC_ALL=C grep -q "$(printf '\302\233')" "$1"; }
evilsym=$(printf '\033[31mtick\233\033]0;pwn\007')
evilsym_json=$(printf '\033[31mtick\302\233\033]0;pwn\007')
cc -O1 -o "$tmp/evil0" "$tmp/evil.c" && objcopy --redefine-sym "tick=$evilsym" "$tmp/evil0" "$tmp/evil" &&
	ok || bad "cannot build the program with a renamed symbol"
run 0 "$n" list "$tmp/evil:*"
raw "$tmp/out" && bad "list printed a symbol's control bytes raw" || ok
has out '^\\x1b\[31mtick\\x9b\\x1b\]0;pwn\\x07 \['
run 0 "$n" list -j "$tmp/evil:*tick*"
[ "$(jq -r .func "$tmp/out")" = "$evilsym_json" ] && ok || bad "list -j does not give the symbol back: $(cat "$tmp/out")"
for c in "list $tmp/evil:tick" "trace $tmp/evil:tick -- $tmp/evil" "doctor $tmp/evil:tick"; do
	# shellcheck disable=SC2086 # c is words
	"$n" $c > "$tmp/out" 2> "$tmp/err"
	grep -q 'close names: \\x1b\[31mtick' "$tmp/out" "$tmp/err" && ok || bad "$c: no close name shown escaped: $(cat "$tmp/err" "$tmp/out" | head -c 300)"
	raw "$tmp/out" || raw "$tmp/err" && bad "$c printed a symbol's control bytes raw" || ok
done
evilcomm=$(printf 'e\033[31m\233\007x')
for name in "$evilcomm" "$(printf 'caf\303\251-\344\270\255')"; do
	json=$name
	[ "$name" = "$evilcomm" ] && json=$(printf 'e\033[31m\302\233\007x')
	run 0 "$n" trace "$tmp/evil0:tick" -- "$tmp/evil0" "$name"
	has out '3$'
	raw "$tmp/out" && bad "trace printed a task name's control bytes raw: $(grep -c . "$tmp/out")" || ok
	run 0 "$n" trace -j "$tmp/evil0:tick" -- "$tmp/evil0" "$name"
	[ "$(grep '"func"' "$tmp/out" | jq -r .comm | sort -u)" = "$json" ] && ok || bad "trace -j: the task's name is not given back: $(grep '"func"' "$tmp/out" | head -1)"
	run 0 "$n" record -o "$tmp/evil.dat" --overwrite "$tmp/evil0:tick" -- "$tmp/evil0" "$name"
	run 0 "$n" report "$tmp/evil.dat"
	grep -q tick "$tmp/out" && ok || bad "report shows no call of tick"
	raw "$tmp/out" && bad "report printed a task name's control bytes raw" || ok
	run 0 "$n" report -j "$tmp/evil.dat"
	[ "$(grep '"func"' "$tmp/out" | jq -r .comm | sort -u)" = "$json" ] && ok || bad "report -j: the task's name is not given back: $(grep '"func"' "$tmp/out" | head -1)"
done
run 0 "$n" trace "$tmp/evil0:tick" -- "$tmp/evil0" "$evilcomm"
has out 'e\\x1b\[31m\\x9b\\x07x-'
run 0 "$n" trace "$tmp/evil0:tick" -- "$tmp/evil0" "$(printf 'caf\303\251-\344\270\255')"
has out "$(printf 'caf\303\251-\344\270\255')-"

# #41.15: as a user, tracefs readable by root only (mode 0700) is said so,
# not taken for a hidden or empty tracefs
if [ "$(stat -c %a /sys/kernel/tracing)" = 700 ]; then
	# a copy nobody can run wherever the checkout is
	un=$(mktemp /tmp/nopctl-user.XXXXXX)
	install -m 755 "$n" "$un"
	for c in list inspect; do
		rc=0
		su nobody -s /bin/sh -c "$un $c vfs_read" > "$tmp/out" 2> "$tmp/err" || rc=$?
		[ "$rc" = 3 ] && ok || bad "$c as nobody: exit $rc, wanted 3"
		has err 'root only'
		grep -q 'lockdown' "$tmp/err" && bad "$c as nobody blames lockdown: $(cat "$tmp/err")" || ok
	done
	rm -f "$un"
else
	bad "/sys/kernel/tracing is not mode 700 here: $(stat -c %a /sys/kernel/tracing)"
fi

# #41.15: record past the file size limit (ulimit -f 100: a write cut
# short, then refused) says so, not a stale errno
rc=0
(ulimit -f 100; exec "$n" record -q -o "$tmp/fsize.dat" "$b/tests/helpers/libubench.so:bench_fn" -- "$b/tests/helpers/ubench" 200000) > /dev/null 2> "$tmp/err" || rc=$?
[ "$rc" = 1 ] && ok || bad "record past ulimit -f: exit $rc, wanted 1"
has err 'file size limit'

# #41.15: a clean run's summary says nothing was lost, and no zero
# counter; singulars are singular
run 0 "$n" report "$dat/graph-6.12.dat"
has err '^nopctl: 221 calls in [0-9.]* s, nothing lost, stopped by end of file$'
run 0 "$n" stats -o /dev/null "$b/tests/helpers/libubench.so:bench_fn" -- "$b/tests/helpers/ubench" 3
has err '^nopctl: deepest call stack: 1 level$'

# #1: report | head: exit 0, no message
{ "$n" report "$dat/graph-6.12.dat" 2> "$tmp/err"; echo $? > "$tmp/rc"; } | head -1 > /dev/null
[ "$(cat "$tmp/rc")" = 0 ] && ok || bad "report | head exited $(cat "$tmp/rc")"
grep -qi error "$tmp/err" && bad "report | head: $(cat "$tmp/err")" || ok

# #13: report has no -f; the pattern message names '$'; -d takes no 1e3
run 0 "$n" report --help
grep -q -- '--force\|-f,' "$tmp/out" && bad "report --help lists --force" || ok
run 2 "$n" trace 'a(b'
has err "'\\$'"
run 2 "$n" trace -d 1e3 do_sys_openat2
has err "invalid value '1e3' for --duration"

# issue 42: catch's warm-up is 100 calls at least; --outliers is a
# condition of its own; the help shows its optional value
run 2 "$n" catch --outliers=50 do_sys_openat2
has err "invalid value '50' for --outliers: give a warm-up of 100"
run 2 "$n" catch do_sys_openat2
has err "or --outliers"
run 0 "$n" catch --help
has out -- "--outliers\[=N\]"
run 2 "$n" catch --slower-than 1s --before 10ms do_sys_openat2
has err "give -o DIR/, a directory (made if absent)"

# issue 14: a binary's functions, listed without the kernel (an alias once)
h=$b/tests/helpers
run 0 "$n" list "$h/ufuncs-pie:parse_*"
[ "$(cat "$tmp/out")" = "parse_alias [ufuncs-pie]" ] && ok || bad "list of parse_*: $(cat "$tmp/out")"
run 0 "$n" list -j "$h/ucxx:ns::Parser::parse*"
[ "$(jq -r '.func' "$tmp/out" | sort | tr '\n' ,)" = "ns::Parser::parse(char const*),ns::Parser::parse(int)," ] && ok ||
	bad "list of C++ overloads: $(cat "$tmp/out")"
run 2 "$n" list "$h/ufuncs-pie:parse_lin"
has err 'close names: parse_line'
run 2 "$n" trace "$h/ufuncs-pie:parse_line" -d 1 -j 'x y:z'
has err 'invalid binary'

# issue 14: recordings of user functions (uprobes on the host's 6.18: record -G of
# tokenize and parse_line, ufuncs-pie 5; record of ucxx's parse overloads, ucxx 3)
run 0 "$n" report --stats -j "$dat/uprobes-graph-6.18.dat"
[ "$(jq -r 'select(.func == "tokenize") | "\(.calls) \(.max_depth)"' "$tmp/out")" = "10 1" ] && ok ||
	bad "report of a user -G recording: $(cat "$tmp/out")"
[ "$(jq -r 'select(.func == "parse_line") | .calls' "$tmp/out")" = 5 ] && ok || bad "parse_line calls"
run 0 "$n" report -j "$dat/uprobes-hits-6.18.dat"
[ "$(grep -c '"func":"ns::Parser::parse(int)"' "$tmp/out")" = 3 ] && ok || bad "report of user hits: $(head -c 300 "$tmp/out")"
run 2 "$n" report --stats "$dat/uprobes-hits-6.18.dat"
has err 'record -G'

# issue 15: recordings from the VM of 'record -G ./uopen:main --retval
# do_sys_openat2 -- uopen 2 1' (6.1: kretprobes) and with --args too (6.12:
# fprobes): two opens of /etc/hostname, one of /nonexistent/nopctl, each
# under main, each with its return value and arguments
j='select(.func == "do_sys_openat2" and .depth == 1 and .type != "entry")'
run 0 "$n" report -j "$dat/joined-retval-6.1.dat"
[ "$(jq -c "$j | .retval" "$tmp/out" | tr '\n' ,)" = "4,4,-2," ] && ok ||
	bad "6.1 recording: the opens under main: $(jq -c "$j" "$tmp/out")"
run 0 "$n" report -j "$dat/joined-args-retval-6.12.dat"
[ "$(jq -c "$j | [.retval, .error]" "$tmp/out" | tr '\n' ,)" = '[4,null],[4,null],[-2,"ENOENT"],' ] && ok ||
	bad "6.12 recording: return values: $(jq -c "$j" "$tmp/out")"
e='select(.func == "do_sys_openat2" and .depth == 1 and .type == "entry") | .args'
[ "$(jq -c "$e | [.dfd, .filename]" "$tmp/out" | tr '\n' ,)" = '[-100,"/etc/hostname"],[-100,"/etc/hostname"],[-100,"/nonexistent/nopctl"],' ] && ok ||
	bad "6.12 recording: arguments: $(jq -c "$e" "$tmp/out")"
run 0 "$n" report "$dat/joined-args-retval-6.12.dat"
has out '^ *0) *uopen-[0-9]* *| *| *do_sys_openat2(dfd=-100, filename="/nonexistent/nopctl", how=0x[0-9a-f]*) {$'
has out '} /\* do_sys_openat2 \*/ /\* = -2 (ENOENT) \*/$'
# --errors: the failed opens and the calls they came from (main), nothing
# else (the loader's failed searches for libc are trees of their own)
run 0 "$n" report -j --errors "$dat/joined-args-retval-6.12.dat"
[ "$(jq -c "$j | .retval" "$tmp/out" | tr '\n' ,)" = "-2," ] && ok || bad "report --errors: $(jq -c "$j" "$tmp/out")"
[ "$(jq -c 'select((.type == "exit" or .type == "call") and (.retval // 0) >= 0 and .func != "main")' "$tmp/out" | wc -l)" = 0 ] &&
	ok || bad "report --errors kept calls that did not fail: $(grep -v summary "$tmp/out" | head -c 600)"
[ "$(jq -c 'select(.func == "main")' "$tmp/out" | wc -l)" = 2 ] && ok || bad "report --errors: main, the caller"

# issue 43: -e and --filter are checked before anything is set up;
# --callers wants hits with their stacks, -F folded is its format
run 2 "$n" graph --filter 'a == 1' -e sched:sched_switch do_sys_openat2
has err "invalid value 'a == 1' for --filter: give it after the -e EVENT it filters"
run 2 "$n" graph -e sched:sched_switch --filter 'a == 1' --filter 'b == 2' do_sys_openat2
has err 'one filter per -e EVENT'
run 2 "$n" graph -e sched:sched_switch --filter "$(printf 'a == 1\nb')" do_sys_openat2
has err 'a filter is one line'
run 2 "$n" stats -F folded do_sys_openat2
has err '-F folded is the format of --callers'
run 2 "$n" stats --callers -D 3 do_sys_openat2
has err 'give PATTERNs, and none of -D'
run 2 "$n" report --callers "$dat/graph-6.12.dat"
has err "nopctl record -s PATTERN"
run 0 "$n" report --callers -j "$dat/stack-6.1.dat"
[ "$(jq -c 'select(.type == "callers" and .count == 42 and .stack[0] == "__x64_sys_openat")' "$tmp/out" | wc -l)" = 1 ] && ok ||
	bad "report --callers: not one stack of 42 from __x64_sys_openat: $(head -c 300 "$tmp/out")"

# issue 45: intervals and bounded recordings, refused before tracefs
run 2 "$n" stats -i 5ms do_sys_openat2
has err '10ms or more'
run 2 "$n" stats -i 1s --callers do_sys_openat2
has err 'give one of them'
run 2 "$n" record -o "$tmp/r.dat" --max-size 100K do_sys_openat2
has err 'give a size of 1M or more'
run 2 "$n" record -o "$tmp/r.dat" --max-size 8Q do_sys_openat2
has err 'such as 8M or 2G'
run 2 "$n" record -o "$tmp/r.dat" --rotate 1 --max-size 8M do_sys_openat2
has err 'from 2 to'
run 2 "$n" record -o "$tmp/r.dat" --rotate 3 do_sys_openat2
has err 'give --max-size SIZE or --split TIME too'
run 2 "$n" record -o "$tmp/r.dat" -c 5 --max-size 8M do_sys_openat2
has err '\-c cannot be combined'
: > "$tmp/r.dat.2"
run 2 "$n" record -o "$tmp/r.dat" --split 1s do_sys_openat2
has err "r.dat.2 exists"
[ -e "$tmp/r.dat.1" ] && bad "record created r.dat.1 before refusing" || ok
# a part of a --split recording (uprobes, 6.18): read whole, the call cut
# at its start no loss
run 0 "$n" report "$dat/uprobes-split-part-6.18.dat"
has err '^nopctl: 1008 calls in 0.101 s, nothing lost, .*1 call whose entry was not seen'
run 2 "$n" top -o "$tmp/x" do_sys_openat2
has err "'nopctl top' does not take"
run 0 "$n" top --help
has out '\-i, --interval TIME'

echo "cli: $pass passed, $fail failed"
[ "$fail" = 0 ]
