#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# `make series`: the work as patch series against the pristine kernel,
# written by git, in build/series/<name>/, one directory per series.
#
# scripts/series/order lists the patches in the order they are sent, and
# where each series starts ("series NAME COVER"); a series builds on those
# before it. Each patch is a file of scripts/series/ named there: a
# "Contents:" line naming patches/ files (applied in the order given) and
# overlay paths (repository paths, copied where scripts/overlay.map puts them,
# as prepare-tree.sh copies them), then the commit
# message. Without a message, the one patches/ file's own header is the
# message. COVER is the cover letter's subject and text; one whose text ends
# with a colon gets make bench's table from docs/bench/bench.json after it.
# build/series/ORDER lists the series' directories in order, for
# series-check.sh and lint.sh. Every file prepare-tree.sh puts in the tree
# must be in exactly one patch, so that the series builds the tree
# `make build` builds.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

PRISTINE=$CACHE/linux-$KVER
BASE_GIT=$CACHE/linux-$KVER.git
OUT=$BUILD/series
TREE=$BUILD/series-tree
DEFS=$ROOT/scripts/series
[ -f "$PRISTINE/.complete" ] || die "no kernel source at $PRISTINE: run 'make source' first"

# The project's identity signs the patches: git's configured one, else (a fresh clone in CI)
# the author of the checked-out commit.
name=$(git -C "$ROOT" config user.name || git -C "$ROOT" log -1 --format=%an)
email=$(git -C "$ROOT" config user.email || git -C "$ROOT" log -1 --format=%ae)
export GIT_AUTHOR_NAME=$name GIT_AUTHOR_EMAIL=$email
export GIT_COMMITTER_NAME=$name GIT_COMMITTER_EMAIL=$email
# The same input gives the same series: dates are those of the repo's HEAD.
GIT_AUTHOR_DATE=$(git -C "$ROOT" log -1 --format=%aI)
export GIT_AUTHOR_DATE GIT_COMMITTER_DATE=$GIT_AUTHOR_DATE

# The pristine tree as one commit, kept next to the source download.
if [ ! -s "$BASE_GIT/bpf_ksym-base" ]; then
	step "recording the pristine linux-$KVER tree in git, once: $BASE_GIT; how long: docs/testing.md (Times)"
	rm -rf "$BASE_GIT"
	git init -q --bare "$BASE_GIT"
	g() { git --git-dir="$BASE_GIT" --work-tree="$PRISTINE" "$@"; }
	g add -A -f -- . ':(exclude).complete'
	g commit -q -m "Linux $KVER (linux-source-$KVER as Debian ships it)"
	g rev-parse HEAD >"$BASE_GIT/bpf_ksym-base"
fi
base=$(cat "$BASE_GIT/bpf_ksym-base")

step "applying scripts/series/ to a fresh checkout of linux-$KVER ($TREE)"
rm -rf "$TREE" "$OUT"
git clone -q --shared --no-checkout "$BASE_GIT" "$TREE"
git -C "$TREE" checkout -q -b bpf_ksym "$base"

covered=$(mktemp)
trap 'rm -f "$covered"' EXIT
# The series, in order: name, cover letter, and the commit it starts after.
names=() covers=() starts=() listed=()
# The order file without comments and blank lines (a last line without its newline too).
order=$(sed -e 's/#.*//' -e 's/^[[:space:]]*//' -e 's/[[:space:]]*$//' -e '/^$/d' "$DEFS/order")
while read -r word name cover; do
	if [ "$word" = series ]; then
		if [ -z "$name" ] || [ ! -f "$DEFS/$cover" ]; then
			die "scripts/series/order: want 'series NAME COVER' with an existing COVER: $word $name $cover"
		fi
		case " ${names[*]} " in *" $name "*) die "scripts/series/order: two series called $name" ;; esac
		if [ ${#starts[@]} -gt 0 ] && [ "${starts[-1]}" = "$(git -C "$TREE" rev-parse HEAD)" ]; then
			die "scripts/series/order: series ${names[-1]} has no patch"
		fi
		names+=("$name") covers+=("$cover") starts+=("$(git -C "$TREE" rev-parse HEAD)")
		listed+=("$cover")
		continue
	fi
	listed+=("$word")
	[ ${#names[@]} -gt 0 ] || die "scripts/series/order: $word comes before any 'series' line"
	def=$DEFS/$word
	[ -f "$def" ] || die "scripts/series/order names $word: no such file in scripts/series/"
	contents=$(sed -n '1s/^Contents: *//p' "$def")
	[ -n "$contents" ] || die "$def: the first line must be 'Contents: ...'"
	msg=$(sed '1,2d' "$def")
	files=()
	for c in $contents; do
		case "$c" in
		patches/*.patch)
			patch -s -p1 -d "$TREE" --no-backup-if-mismatch <"$ROOT/$c" ||
				die "$c does not apply at $(basename "$def")"
			mapfile -t -O "${#files[@]}" files < <(sed -n 's|^+++ b/\([^[:space:]]*\).*|\1|p' "$ROOT/$c")
			echo "$c" >>"$covered"
			[ -n "$msg" ] || msg=$(sed '/^diff --git /,$d' "$ROOT/$c")
			;;
		*)
			[ -e "$ROOT/$c" ] || die "$def: no such path $c"
			mapfile -t -O "${#files[@]}" files < <(overlay_files "$c" | to_tree)
			overlay_files "$c" | overlay_copy "$TREE"
			overlay_files "$c" >>"$covered"
			;;
		esac
	done
	[ -n "$msg" ] || die "$def: no message, and not a single patches/ file to take it from"
	git -C "$TREE" add -f -- "${files[@]}"
	# -s adds the project's Signed-off-by unless the message ends with it.
	printf '%s\n' "$msg" | git -C "$TREE" commit -q -s -F -
	note "$(git -C "$TREE" log -1 --format=%s)"
done <<<"$order"
[ ${#names[@]} -gt 0 ] || die "scripts/series/order starts no series"
[ "${starts[-1]}" != "$(git -C "$TREE" rev-parse HEAD)" ] ||
	die "scripts/series/order: series ${names[-1]} has no patch"
unused=$(comm -23 <(find "$DEFS" -maxdepth 1 -type f ! -name order -printf '%f\n' | sort) \
	<(printf '%s\n' "${listed[@]}" | sort))
[ -z "$unused" ] || die "in scripts/series/ but not in its order file: ${unused//$'\n'/ }"

# Everything make build puts in the tree, in exactly one patch.
want=$( (sed -e '/^#/d' -e '/^$/d' -e 's|^|patches/|' "$ROOT/patches/series"
	mapfile -t dirs < <(overlay_dirs)
	overlay_files "${dirs[@]}") | sort)
have=$(sort "$covered")
[ "$(printf '%s\n' "$have" | uniq -d)" = "" ] ||
	die "in two patches of scripts/series: $(printf '%s\n' "$have" | uniq -d | tr '\n' ' ')"
missing=$(comm -23 <(printf '%s\n' "$want") <(printf '%s\n' "$have" | sort -u))
[ -z "$missing" ] || die "in no patch of scripts/series (add them to one): ${missing//$'\n'/ }"

# One directory per series; each lists the series before it as prerequisites.
mkdir -p "$OUT"
: >"$OUT/ORDER"
for i in "${!names[@]}"; do
	from=${starts[$i]}
	to=${starts[$((i + 1))]:-$(git -C "$TREE" rev-parse HEAD)}
	dir=$OUT/${names[$i]}
	git -C "$TREE" format-patch -q --cover-letter --base="$base" -o "$dir" "$from..$to"
	echo "${names[$i]}" >>"$OUT/ORDER"
	python3 - "$(ls "$dir"/0000-*)" "$DEFS/${covers[$i]}" "$ROOT/docs/bench/bench.json" <<'EOF'
import json
import os
import sys
cover, text, records = sys.argv[1:]
subject, _, blurb = open(text).read().partition('\n\n')
blurb = blurb.rstrip() + '\n'
# A text that ends with a colon gets make bench's judged rows at 10,000 symbols after it.
if blurb.rstrip().endswith(':'):
    rows = []
    if os.path.exists(records):
        for r in json.load(open(records))['records']:
            if r['n'] in (0, 10000) and (r['mode'] == 'icount' or r['workload'] == 'kallsyms_read'):
                rows.append((r['workload'], r['mode'], r['unit'], '%.4g' % r['c'],
                             '%.4g' % r['rust'], '%.3f' % (r['rust'] / r['c'])))
    head = ('workload', 'mode', 'unit', 'C', 'Rust', 'Rust/C')
    w = [max(len(r[i]) for r in rows + [head]) for i in range(6)]
    blurb += '\n' + '\n'.join('  ' + '  '.join(c.ljust(w[i]) for i, c in enumerate(r)).rstrip()
                              for r in [head] + rows) + '\n'
    if not rows:
        blurb += '  (no records in docs/bench/bench.json: run make bench)\n'
s = open(cover).read()
s = s.replace('*** SUBJECT HERE ***', subject.strip())
s = s.replace('*** BLURB HERE ***', blurb)
open(cover, 'w').write(s)
EOF
	written=("$dir"/*.patch)
	note "series ${names[$i]}: $dir (${#written[@]} files, cover letter included)"
done
note "base $base; to apply: git am each series of $OUT/ORDER in turn on a linux-$KVER tree"
