#!/bin/sh
# layers.sh BUILD - the library's areas call one way: a file in lib/AREA
# may call functions defined in its own area and in the areas before it in
# AREAS, never in one after it; cmd/ includes nothing of lib/ but
# nopctl.h, and nopctl.h declares no function cmd/ does not call, nor a
# macro or type no one of them needs; cmd/'s files call one another with
# no circle. Read from the objects' symbols (nm, or $NM), so a call counts whatever
# header declared it. KNOWN lists the calls against the order that stand
# until the boundary they cross is mended (none stands now); a new one
# fails the check, and so does a KNOWN entry that no longer happens
# (remove it).
set -eu
build=${1:-build}
AREAS="base arch tracefs session symbols probes tracedat events graph sink pipeline diff blackbox doctor"
KNOWN="
"
rank() {
	i=0
	for a in $AREAS; do
		[ "$a" = "$1" ] && { echo $i; return; }
		i=$((i + 1))
	done
	echo "layers: lib/$1 is not an area of lib/README.md's order" >&2
	exit 1
}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for c in lib/*/*.c; do
	f=${c#lib/}
	f=${f%.c}
	o=$build/lib/$f.o
	[ -f "$o" ] || { echo "layers: no $o: build first" >&2; exit 1; }
	"${NM:-nm}" --defined-only "$o" | awk -v f="$f" '$2 ~ /^[TDBR]$/ { print $3, f }' >> "$tmp/defs"
	"${NM:-nm}" -u "$o" | awk -v f="$f" '{ print $2, f }' >> "$tmp/uses"
done
[ -s "$tmp/defs" ] || { echo "layers: no objects under $build/lib" >&2; exit 1; }
sort -u "$tmp/defs" > "$tmp/d"
sort -u "$tmp/uses" > "$tmp/u"
join "$tmp/u" "$tmp/d" | awk '{ print $2, "->", $3 }' | sort -u > "$tmp/calls"
bad=0
while read -r from _ to; do
	fa=${from%%/*} ta=${to%%/*}
	[ "$fa" = "$ta" ] && continue
	[ "$(rank "$fa")" -ge "$(rank "$ta")" ] && continue
	echo "$from -> $to" >> "$tmp/up"
done < "$tmp/calls"
touch "$tmp/up"
echo "$KNOWN" | sed '/^$/d' | sort > "$tmp/known"
sort -u "$tmp/up" -o "$tmp/up"
comm -23 "$tmp/up" "$tmp/known" | while read -r l; do
	echo "layers: lib/${l%% *}.c calls into a later area: $l (lib/README.md: the order)"
done > "$tmp/new"
comm -13 "$tmp/up" "$tmp/known" | while read -r l; do
	echo "layers: $l no longer happens: take it out of KNOWN in tests/layers.sh"
done >> "$tmp/new"
# cmd/ includes its own headers and nopctl.h, nothing else of lib/
grep -n '#include "' cmd/*.c cmd/*.h | while IFS= read -r l; do
	inc=${l#*#include \"}
	inc=${inc%%\"*}
	case $inc in
	*/*) [ "$inc" = ../lib/nopctl.h ] ;; # of lib/, nopctl.h only
	*) [ -f "cmd/$inc" ] ;;
	esac || echo "layers: cmd/ includes more of lib/ than nopctl.h: $l"
done >> "$tmp/new"
# includes point the same way: a file of lib/AREA includes the headers of
# its area and of those before it (KNOWN's calls excepted), never
# internal.h, which is the tests' and fuzz targets' view of all of them
for f in lib/*/*.c lib/*/*.h; do
	fa=${f#lib/}
	fa=${fa%%/*}
	grep -o '^#include "[^"]*"' "$f" | sed 's/^#include "//; s/"$//' | while read -r inc; do
		case $inc in
		internal.h) echo "layers: $f includes internal.h: include its area's header" ;;
		*/*)
			ia=${inc%%/*}
			[ "$(rank "$fa")" -ge "$(rank "$ia")" ] && continue
			echo "$KNOWN" | grep -q "^${fa}/$(basename "$f" .c) -> ${ia}/" && continue
			echo "layers: $f includes $inc, of a later area (lib/README.md: the order)" ;;
		esac
	done
done >> "$tmp/new"
# nopctl.h declares what cmd/ calls, and nothing else (internal.h the rest)
grep -oE '\bnop_[a-z0-9_]+ *\(' lib/nopctl.h | sed 's/ *($//' | sort -u > "$tmp/public"
for o in "$build"/cmd/*.o; do "${NM:-nm}" -u "$o"; done | awk '{ print $2 }' | sort -u > "$tmp/cmduse"
comm -23 "$tmp/public" "$tmp/cmduse" | sed 's/^/layers: nopctl.h declares what cmd\/ never calls (move it to internal.h): /' >> "$tmp/new"
# and the macros, structs and enums cmd/ names (an enum: it or one of
# its constants), or that the header's other declarations need
cat cmd/*.c cmd/*.h > "$tmp/cmdtext"
grep -oE '^#define NOP_[A-Z0-9_]+|^(struct|enum) nop_[a-z0-9_]+ \{' lib/nopctl.h | sed 's/^#define //; s/ {$//' |
	while read -r kind name; do
		[ -n "$name" ] || { name=$kind; kind=macro; }
		uses=$name
		[ "$kind" != enum ] ||
			uses="$uses $(awk -v e="enum $name {" 'index($0, e) == 1 { on = 1 } on { print } on && /};/ { exit }' lib/nopctl.h |
				grep -oE '\bNOP_[A-Z0-9_]+' | tr '\n' ' ')"
		need=
		for u in $uses; do
			if grep -qw -- "$u" "$tmp/cmdtext" || [ "$(grep -cw -- "$u" lib/nopctl.h)" -gt 1 ]; then
				need=1
				break
			fi
		done
		[ -n "$need" ] || echo "layers: nopctl.h defines $kind $name, which neither cmd/ nor the header's declarations use (move it to its area's header)"
	done >> "$tmp/new"
# cmd/'s files call each other without a circle (tsort finds one)
for o in "$build"/cmd/*.o; do
	f=$(basename "$o" .o)
	"${NM:-nm}" --defined-only "$o" | awk -v f="$f" '$2 == "T" { print $3, f }'
done | sort > "$tmp/cmddef"
for o in "$build"/cmd/*.o; do
	f=$(basename "$o" .o)
	"${NM:-nm}" -u "$o" | awk -v f="$f" '{ print $2, f }'
done | sort > "$tmp/cmdundef"
join "$tmp/cmdundef" "$tmp/cmddef" | awk '$2 != $3 { print $2, $3 }' | sort -u > "$tmp/cmdcalls"
loop=$(tsort "$tmp/cmdcalls" 2>&1 > /dev/null | sed -n 's/^tsort: //p' | grep -v 'contains a loop' | tr '\n' ' ')
[ -z "$loop" ] || echo "layers: cmd/ files call each other in a circle: $loop" >> "$tmp/new"
if [ -s "$tmp/new" ]; then
	cat "$tmp/new"
	exit 1
fi
echo "layers: $(wc -l < "$tmp/calls") calls between files, $(wc -l < "$tmp/known") against the order (known), none new"
