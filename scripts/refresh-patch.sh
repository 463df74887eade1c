#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# `make refresh-patch P=<file in patches/>`: rewrite patches/P from the prepared tree
# ($BUILD/src, scripts/prepare-tree.sh) after its files were edited there.
#
# For each file P changes: the pristine file with the patches before P in patches/series
# applied (as prepare-tree.sh applies them), against $BUILD/src's file with the changes of
# the patches after P that touch it taken back out (patch -R, no fuzz), so that they still
# apply on top. P keeps its message (everything before its first "diff --git") and the
# format of the others (diff --git a/f b/f, --- a/f, +++ b/f, unified diff). Before
# patches/P is replaced, the whole series must apply to the pristine tree with no fuzz and
# give $BUILD/src's content of P's files; `make series`'s order (scripts/series/order) must
# apply as well. Only P's files are read: edits to other files of the tree are not looked
# at. Files P does not change yet cannot be added to it here (new files belong to the
# overlay, not to patches/).
set -euo pipefail
. "$(dirname "$0")/lib.sh"

PRISTINE=$CACHE/linux-$KVER
SRC=$BUILD/src
P=${1:-}
P=${P#patches/}
mapfile -t SERIES < <(sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$ROOT/patches/series")
[ -n "$P" ] || die "usage: make refresh-patch P=<file in patches/>, one of: ${SERIES[*]}"
[ -f "$ROOT/patches/$P" ] || die "no patches/$P (patches/series lists: ${SERIES[*]})"
idx=
for i in "${!SERIES[@]}"; do [ "${SERIES[$i]}" = "$P" ] && idx=$i; done
[ -n "$idx" ] || die "patches/$P is not in patches/series"
[ -f "$PRISTINE/.complete" ] || die "no kernel source at $PRISTINE: run 'make source' first"
[ -f "$SRC/.bpf_ksym_tree" ] || die "no prepared tree at $SRC: 'make tree', edit its files, then refresh"
[ "$(cat "$SRC/.bpf_ksym_pristine" 2>/dev/null)" = "linux-$KVER $(stat -c %Y "$PRISTINE/.complete")" ] ||
	die "$SRC was prepared from another download than $PRISTINE: 'make tree' would copy it again"

# The files a patch changes, in its order; a patch's part for one file.
touched() { sed -n 's|^+++ b/\([^[:space:]]*\).*|\1|p' "$1"; }
part() { awk -v h="diff --git a/$2 b/$2" '/^diff --git /{on = ($0 == h)} on' "$1"; }

mapfile -t files < <(touched "$ROOT/patches/$P")
[ "${#files[@]}" -gt 0 ] || die "patches/$P changes no file"
stage=$(mktemp -d)
tmp=
trap 'rm -rf "$stage" ${tmp:+"$tmp"}' EXIT
mkdir -p "$stage/a" "$stage/b" "$stage/parts"
new=$stage/$P
sed '/^diff --git /,$d' "$ROOT/patches/$P" >"$new"
step "refreshing patches/$P from $SRC (patch $((idx + 1)) of ${#SERIES[@]} in patches/series)"
kept=0
for f in "${files[@]}"; do
	[ -f "$PRISTINE/$f" ] || die "patches/$P creates $f: not supported here (new files go in the overlay)"
	[ -f "$SRC/$f" ] || die "no $SRC/$f: the prepared tree lacks a file patches/$P changes"
	mkdir -p "$stage/a/$(dirname "$f")" "$stage/b/$(dirname "$f")"
	cp "$PRISTINE/$f" "$stage/a/$f"
	cp "$SRC/$f" "$stage/b/$f"
	# base: pristine, then the patches before P (as prepare-tree.sh applies them).
	for q in "${SERIES[@]:0:idx}"; do
		part "$ROOT/patches/$q" "$f" >"$stage/parts/x"
		[ -s "$stage/parts/x" ] || continue
		patch -s -p1 -d "$stage/a" --no-backup-if-mismatch <"$stage/parts/x" >/dev/null ||
			die "patches/$q does not apply to $PRISTINE/$f"
	done
	# new: the tree's file without the changes of the patches after P, last one first.
	later=()
	for q in "${SERIES[@]:idx+1}"; do
		part "$ROOT/patches/$q" "$f" >"$stage/parts/x"
		[ -s "$stage/parts/x" ] && later=("$q" "${later[@]}")
	done
	for q in "${later[@]}"; do
		part "$ROOT/patches/$q" "$f" >"$stage/parts/x"
		patch -R -s -p1 --fuzz=0 -d "$stage/b" --no-backup-if-mismatch <"$stage/parts/x" >/dev/null ||
			die "$SRC/$f: patches/$q (after $P) no longer comes off it as it is; an edit there" \
				"touches its lines: make that edit in $q, or refresh $q first"
	done
	# GNU diff's unified format, as the patches' hunks are (no text after a hunk's @@).
	rc=0
	diff -u --label "a/$f" --label "b/$f" "$stage/a/$f" "$stage/b/$f" >"$stage/parts/d" || rc=$?
	case $rc in
	0) note "$f: no change left against the patches before $P; dropped from it" ;;
	1)
		printf 'diff --git a/%s b/%s\n' "$f" "$f" >>"$new"
		cat "$stage/parts/d" >>"$new"
		kept=$((kept + 1))
		note "$f: $(grep -c '^@@' "$stage/parts/d") hunk(s)," \
			"+$(($(grep -c '^+' "$stage/parts/d") - 1)) -$(($(grep -c '^-' "$stage/parts/d") - 1)) lines"
		;;
	*) die "diff failed on $f" ;;
	esac
done
[ "$kept" -gt 0 ] || die "patches/$P would change nothing: left as it was"

# check ORDER-NAME FUZZ PATCH...: apply the patches (patches/P being the new one) to pristine
# copies of the files they change; fail on a patch that does not apply with that fuzz.
check() {
	local name=$1 fuzz=$2 q path out offset=()
	shift 2
	rm -rf "$stage/check"
	mkdir -p "$stage/check"
	for q in "$@"; do
		path=$ROOT/patches/$q
		[ "$q" = "$P" ] && path=$new
		touched "$path"
	done | sort -u | while read -r f; do
		mkdir -p "$stage/check/$(dirname "$f")"
		cp "$PRISTINE/$f" "$stage/check/$f"
	done
	for q in "$@"; do
		path=$ROOT/patches/$q
		[ "$q" = "$P" ] && path=$new
		out=$(patch -p1 --fuzz="$fuzz" -d "$stage/check" --no-backup-if-mismatch <"$path" 2>&1) ||
			die "$name: patches/$q does not apply after the new $P$([ "$fuzz" = 0 ] && echo ' without fuzz'):" \
				"$(grep -E 'FAILED|rej|malformed' <<<"$out" | head -3 | tr '\n' ' ')"
		if grep -q 'with fuzz' <<<"$out"; then
			note "$name: patches/$q applies only with fuzz (series.sh accepts it; refresh $q too)"
		elif grep -q 'offset' <<<"$out"; then
			offset+=("${q%%-*}")
		fi
	done
	[ "${#offset[@]}" = 0 ] || note "$name: with line offsets (as git am and patch allow): ${offset[*]}"
}
check "patches/series" 0 "${SERIES[@]}"
for f in "${files[@]}"; do
	cmp -s "$stage/check/$f" "$SRC/$f" ||
		die "the series with the new $P does not give $SRC/$f (patches/$P left as it was)"
done
note "patches/series: all ${#SERIES[@]} patches apply to $PRISTINE with no fuzz and give $SRC's files of $P"
# make series applies the same patches in scripts/series/order's order (default fuzz, as
# series.sh).
mapfile -t order < <(sed -e 's/#.*//' -e '/^[[:space:]]*$/d' -e '/^series /d' "$ROOT/scripts/series/order" |
	while read -r def; do
		sed -n '1s/^Contents: *//p' "$ROOT/scripts/series/$def" | tr ' ' '\n' | sed -n 's|^patches/||p'
	done)
check "make series's order" 2 "${order[@]}"

if cmp -s "$new" "$ROOT/patches/$P"; then
	note "patches/$P: unchanged (the tree's files already are what it makes them)"
else
	tmp=$(mktemp "$ROOT/patches/.$P.XXXXXX")
	cp "$new" "$tmp"
	chmod --reference="$ROOT/patches/$P" "$tmp"
	mv "$tmp" "$ROOT/patches/$P"
	note "patches/$P: rewritten ($kept file(s); review it with: git diff patches/$P)"
fi
