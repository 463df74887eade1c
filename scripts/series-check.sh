#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# `make series-check`: take build/series/ as a maintainer would. On a fresh
# checkout of the pristine tree, `git am` each patch, run checkpatch.pl
# --strict on it and build vmlinux (our config fragment, Rust registry, no
# debug info; incremental after the first patch, in build/kernel-series).
# Prints one line per patch, then compares the final tree with build/src,
# the tree `make build` builds. Fails if a patch does not apply or build, or
# the trees differ; checkpatch's messages are counted here and judged by
# `make lint` (scripts/checkpatch.allow). NO_BUILD=1 skips the builds (checkpatch
# only: what `make lint` runs).
set -euo pipefail
. "$(dirname "$0")/lib.sh"
x86_only "make series-check"

BASE_GIT=$CACHE/linux-$KVER.git
SERIES=$BUILD/series
TREE=$BUILD/series-check-tree
OUT=$BUILD/kernel-series
if [ ! -s "$BASE_GIT/bpf_ksym-base" ] || [ ! -d "$SERIES" ]; then
	die "no series: run 'make series' first"
fi
base=$(cat "$BASE_GIT/bpf_ksym-base")

step "fresh checkout of linux-$KVER for git am ($TREE)"
rm -rf "$TREE"
git clone -q --shared --no-checkout "$BASE_GIT" "$TREE"
git -C "$TREE" checkout -q -b series-check "$base"
# git am records the committer: the same identity as make series uses.
git -C "$TREE" config user.name "$(git -C "$ROOT" config user.name || git -C "$ROOT" log -1 --format=%an)"
git -C "$TREE" config user.email "$(git -C "$ROOT" config user.email || git -C "$ROOT" log -1 --format=%ae)"

mkdir -p "$OUT"
rm -f "$OUT"/checkpatch-*.log "$OUT"/build-*.log
frag=$OUT/series.config
printf '# CONFIG_DEBUG_INFO_DWARF5 is not set\nCONFIG_DEBUG_INFO_NONE=y\n' >"$frag"
mk() { make -C "$TREE" O="$OUT" LLVM=-"$LLVM_VER" -j"$(nproc)" "$@"; }
# Options a patch does not know yet are dropped; the next patch's Kconfig
# brings them back, so the config is made again before every build.
configure() {
	mk tinyconfig &&
		KCONFIG_CONFIG="$OUT/.config" "$TREE/scripts/kconfig/merge_config.sh" -m -O "$OUT" \
			"$OUT/.config" "${BASE_CONFIG[@]}" "$frag" &&
		mk olddefconfig
}

lines=()
failed=0
[ -s "$SERIES/ORDER" ] || die "no $SERIES/ORDER: run 'make series' again"
patches=()
while read -r d; do
	[ -e "$SERIES/$d/0000-cover-letter.patch" ] || die "no series $d in $SERIES: run 'make series' again"
	patches+=("$SERIES/$d"/0*.patch)
done <"$SERIES/ORDER"
for p in "${patches[@]}"; do
	n=$(basename "$(dirname "$p")")/$(basename "$p")
	case "$n" in */0000-cover-letter.patch) continue ;; esac
	applied=yes built=- cp=-
	if ! git -C "$TREE" am -q "$p" >"$OUT/am.log" 2>&1; then
		applied=NO failed=1
		git -C "$TREE" am --abort >/dev/null 2>&1 || true
		lines+=("$(printf '%-70.70s %-7s %-9s %s' "$n" "$applied" "-" "$(head -1 "$OUT/am.log")")")
		break
	fi
	# checkpatch: "total: E errors, W warnings, C checks, N lines checked".
	# checkpatch exits non-zero on any message: the table shows them instead.
	total=$( (cd "$TREE" || exit; scripts/checkpatch.pl --strict --quiet --show-types "$p" 2>&1 || true) |
		tee "$OUT/checkpatch-${n//\//-}.log" | sed -n 's/^total: //p')
	if [ -z "$total" ]; then
		cp=clean
	else
		cp=$(echo "$total" | sed 's/ lines checked//;s/ errors\?/E/;s/ warnings\?/W/;s/ checks\?/C/;s/, */ /g')
	fi
	if [ "${NO_BUILD:-0}" != 1 ]; then
		note "building after $n (log $OUT/build-${n//\//-}.log)"
		if { configure && mk vmlinux; } >"$OUT/build-${n//\//-}.log" 2>&1; then
			built=yes
		else
			built=NO failed=1
		fi
	fi
	lines+=("$(printf '%-70.70s %-7s %-6s %s' "$n" "$applied" "$built" "$cp")")
done

diff_out=$(diff -rq -x .git -x .bpf_ksym_tree -x .bpf_ksym_pristine -x .bpf_ksym_sums -x .complete -x ".checkpatch-camelcase.*" "$TREE" "$BUILD/src" || true)
step "series-check: $(git -C "$TREE" rev-list --count "$base..HEAD") patches on linux-$KVER"
printf '%-70s %-7s %-6s %s\n' patch applied built checkpatch
printf '%s\n' "${lines[@]}"
if [ -z "$diff_out" ]; then
	note "final tree = $BUILD/src (the tree make build builds)"
else
	failed=1
	printf '%s\n' "$diff_out" | head -20
	note "final tree differs from $BUILD/src: run 'make tree series' and check again"
fi
note "checkpatch logs: $OUT/checkpatch-*.log; make lint fails on any message"
note "that scripts/checkpatch.allow does not explain"
exit $failed
