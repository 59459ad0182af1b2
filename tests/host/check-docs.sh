#!/bin/sh
# check-docs.sh - every command in the table, and every option its --help
# lists, appears in the man page and the bash completion.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
b=${NOPCTL_BUILD:-$top/build}
case $b in /*) ;; *) b=$top/$b ;; esac
bin=$b/nopctl
man=$top/man/nopctl.1.scd
comp=$top/completions/nopctl.bash
pass=0
fail=0
tmp_docs=$(mktemp)
check() {
	if grep -q -e "$2" "$3"; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL: $1"; fi
}
cmds=$("$bin" help | sed -n 's/^  \([a-z]*\) .*/\1/p')
[ -n "$cmds" ] || { echo "FAIL: nopctl help lists no commands"; fail=$((fail + 1)); }
for c in $cmds; do
	check "man page lacks command $c" "nopctl $c\|^\*$c\*" "$man"
	check "completion lacks command $c" "cmds=.*$c" "$comp"
	for o in $("$bin" "$c" --help | grep -o -- '--[a-z-]*' | sort -u); do
		[ "$o" = --help ] && continue
		check "man page lacks $c $o" "$o" "$man"
		check "completion lacks $c $o" "^	$c).*$o\b" "$comp"
	done
done
# README.md names every command, and each of its examples ("$ nopctl CMD
# ...") uses a command of the table and options that command's --help lists
readme=$top/README.md
for c in $cmds; do
	check "README.md lacks command $c" "\`$c\`\|nopctl $c" "$readme"
done
grep -o '^\$ nopctl [a-z]*.*' "$readme" | while read -r _ _ c rest; do
	if ! echo "$cmds" | grep -qx "$c"; then
		echo "FAIL: README example of an unknown command: nopctl $c"
		continue
	fi
	for o in $(echo "$rest" | sed 's/#.*//; s/--  *.*//' | grep -o -- '--[a-z][a-z-]*' | sort -u); do
		"$bin" "$c" --help | grep -q -- "$o" || echo "FAIL: README example: nopctl $c has no $o"
	done
done > "$tmp_docs" 2>&1
if [ -s "$tmp_docs" ]; then
	cat "$tmp_docs"
	fail=$((fail + $(wc -l < "$tmp_docs")))
else
	pass=$((pass + 1))
fi
rm -f "$tmp_docs"
# the completion itself, driven as bash drives it
complete_words() {
	bash -c '. /usr/share/bash-completion/bash_completion; . "$1"; shift
		COMP_LINE="$*"; COMP_POINT=${#COMP_LINE}; read -ra COMP_WORDS <<< "$*"
		[[ $COMP_LINE == *" " ]] && COMP_WORDS+=("")
		COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); _nopctl; echo "${COMPREPLY[*]}"' _ "$comp" "$@"
}
for case in "nopctl statu|status" "nopctl st|stats status" "nopctl rec|record" "nopctl report --st|--stats" "nopctl trace --du|--duration" "nopctl trace --format |text json" \
	"nopctl help tr|trace" "nopctl list --j|--json" "nopctl graph --format |text json folded dot chrome" "nopctl stats --so|--sort"; do
	got=$(complete_words "${case%%|*}")
	[ "$got" = "${case#*|}" ] && pass=$((pass + 1)) || { fail=$((fail + 1)); echo "FAIL: completing '${case%%|*}' gave '$got'"; }
done
echo "docs: $pass passed, $fail failed"
[ "$fail" = 0 ]
