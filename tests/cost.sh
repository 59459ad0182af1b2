#!/bin/sh
# cost.sh BUILD - what `nopctl report` costs, in instructions per call of
# the committed recordings (and a recording's walk after its capture, per
# event: tests/cost/walk.c), counted by callgrind (the same count for the
# same binary and file, however busy the machine), held to the budgets
# in tests/cost.budget. A figure over its budget fails; one well under
# it is printed, so the budget can be lowered. A budget is raised only by
# a commit that says why.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
b=${1:-$top/build}
case $b in /*) ;; *) b=$top/$b ;; esac
bin=$b/nopctl
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
pass=0
fail=0
# a fixed environment: ld.so's work depends on it
run_env="env -i PATH=/usr/bin:/bin LC_ALL=C"
while read -r fixture view budget; do
	case $fixture in ''|'#'*) continue ;; esac
	f=$top/tests/fixtures/$fixture
	if [ "$view" = walk ]; then
		# a recording's one walk after its capture: its pages (a
		# captured set 50 times over) counted and their addresses
		# noted, instructions per event in walk() only
		calls=$(cd "$top/tests" && $run_env valgrind --tool=callgrind --callgrind-out-file=/dev/null \
			--toggle-collect=walk "$b/tests/cost-walk" "$(dirname "$f")" "$(basename "$f")" 50 "$T/w.dat" 2> "$T/err")
	else
		case $f in *.gz) gzip -dc "$f" > "$T/in.dat"; f=$T/in.dat ;; esac
		case $view in text) opt= ;; json) opt=-j ;; stats) opt=--stats ;; esac
		# the calls the file holds, as the text view's summary counts them
		calls=$("$bin" report "$f" 2>&1 > /dev/null | sed -n 's/^nopctl: \([0-9]*\) calls in .*/\1/p')
		$run_env valgrind --tool=callgrind --callgrind-out-file=/dev/null \
			"$bin" report $opt "$f" > /dev/null 2> "$T/err"
	fi
	ir=$(sed -n 's/.*Collected : \([0-9]*\).*/\1/p' "$T/err")
	if [ -z "$ir" ] || [ -z "$calls" ] || [ "$calls" = 0 ]; then
		echo "FAIL: $fixture $view: no count ($(tail -2 "$T/err"))"
		fail=$((fail + 1))
		continue
	fi
	per=$((ir / calls))
	if [ "$per" -gt "$budget" ]; then
		echo "FAIL: $fixture $view: $per instructions a call ($ir for $calls), over the budget of $budget"
		fail=$((fail + 1))
	else
		[ $((per * 10)) -lt $((budget * 9)) ] &&
			echo "cost: $fixture $view: $per instructions a call, budget $budget: lower it"
		pass=$((pass + 1))
	fi
done < "$top/tests/cost.budget"
echo "cost: $pass passed, $fail failed"
[ "$fail" = 0 ]
