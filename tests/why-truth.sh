#!/bin/sh
# why-truth.sh JSON PLAIN SRC - nopctl why's JSON (JSON) against the truth
# of uwhy (PLAIN: its own output, "case NN calls C failed F origin FUNC";
# SRC: the directory of its sources, each failure's line marked "origin
# NN"). Prints a line per case that is wrong, a "# " line per case
# answered with candidates, and, last, "exact E
# candidates C": cases whose marked line was the one line named, and
# those where it was among candidates. Exit 1 when a case is wrong (a
# count, an origin function, a line neither exact nor among candidates).
# Run on the host (t-why.sh) and in the guests (busybox sh, jq).
json=$1 plain=$2 src=$3
exact=0 cands=0 wrong=0
for k in 01 02 03 04 05 06 07 08 09 10 11 12 13 14 15 16 17 18 19 20; do
	set -- $(grep "^case $k " "$plain")
	failed=$6 origin=$8
	where=$(grep -n "origin $k\b" "$src/uwhy.c" "$src/uwhylib.c" "$src/uwhyxx.cpp")
	file=$(basename "${where%%:*}") rest=${where#*:} line=${rest%%:*}
	sel="select(.type == \"why\" and .chain[0].func == \"case_$k\")"
	n=$(jq -s "map($sel) | length" "$json")
	if [ "$n" != "$failed" ]; then
		echo "case $k: $n failures explained, $failed made"
		wrong=$((wrong + 1))
		continue
	fi
	other=$(jq -c "$sel | select(.func != \"$origin\") | .func" "$json" | head -1)
	if [ -n "$other" ]; then
		echo "case $k: origin $other, not $origin"
		wrong=$((wrong + 1))
		continue
	fi
	# the line: the same in every failure of the case
	got=$(jq -r "$sel | \"\(.file // \"\" | split(\"/\") | last):\(.line) \(.exact) \(.lines)\"" "$json" | sort -u)
	case $got in
	"$file:$line true [$line]") exact=$((exact + 1)) ;;
	"$file:"*" false "*)
		if echo "${got##* }" | tr '[],' '   ' | grep -qw "$line"; then
			cands=$((cands + 1))
			echo "# case $k: $file:$line among candidates $got"
		else
			echo "case $k: candidates $got lack $file:$line"
			wrong=$((wrong + 1))
		fi
		;;
	*)
		echo "case $k: line $got, not $file:$line"
		wrong=$((wrong + 1))
		;;
	esac
done
echo "exact $exact candidates $cands"
[ "$wrong" = 0 ]
