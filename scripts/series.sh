#!/usr/bin/env bash
# `make series`: the work as a patch series against the pristine kernel,
# written by git, in build/series/.
#
# Each file scripts/series/NN-* is one patch: a "Contents:" line naming
# patches/ files (applied in the order given) and overlay paths (copied as
# prepare-tree.sh copies them), then the commit message. Without a message,
# the one patches/ file's own header is the message. scripts/series/cover is
# the cover letter's subject and text; the benchmark table is appended from
# docs/benchmarks.md. Every file prepare-tree.sh puts in the tree must be in exactly
# one patch, so that the series builds the tree `make build` builds.
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
	step "recording the pristine linux-$KVER tree in git (once, ~2 min): $BASE_GIT"
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

# Files of the overlay, as prepare-tree.sh finds them.
# Not tools/blazesym: its patches are blazesym's, not the kernel's.
overlay_files() { (cd "$ROOT" && find "$@" \( -name target -o -path tools/blazesym \) -prune -o -type f ! -name '.*' -print); }

covered=$(mktemp)
trap 'rm -f "$covered"' EXIT
# In byte order whatever the locale: 09 before 09b (a UTF-8 collation ignores
# the hyphen and puts 09b-* first).
for def in $(LC_ALL=C; printf '%s\n' "$DEFS"/[0-9]*); do
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
			mapfile -t -O "${#files[@]}" files < <(overlay_files "$c")
			(cd "$ROOT" && overlay_files "$c" | xargs -r cp --parents -t "$TREE")
			overlay_files "$c" >>"$covered"
			;;
		esac
	done
	[ -n "$msg" ] || die "$def: no message, and not a single patches/ file to take it from"
	git -C "$TREE" add -f -- "${files[@]}"
	# -s adds the project's Signed-off-by unless the message ends with it.
	printf '%s\n' "$msg" | git -C "$TREE" commit -q -s -F -
	note "$(git -C "$TREE" log -1 --format=%s)"
done

# Everything make build puts in the tree, in exactly one patch.
want=$( (sed -e '/^#/d' -e '/^$/d' -e 's|^|patches/|' "$ROOT/patches/series"
	overlay_files bpf_ksym kallsyms_query kallsyms_iter include rust samples Documentation tools) | sort)
have=$(sort "$covered")
[ "$(printf '%s\n' "$have" | uniq -d)" = "" ] ||
	die "in two patches of scripts/series: $(printf '%s\n' "$have" | uniq -d | tr '\n' ' ')"
missing=$(comm -23 <(printf '%s\n' "$want") <(printf '%s\n' "$have" | sort -u))
[ -z "$missing" ] || die "in no patch of scripts/series (add them to one): ${missing//$'\n'/ }"

git -C "$TREE" format-patch -q --cover-letter --base="$base" -o "$OUT" "$base..HEAD"
cover=$(ls "$OUT"/0000-*)
python3 - "$cover" "$DEFS/cover" "$ROOT/docs/benchmarks.md" <<'EOF'
import sys
cover, text, readme = sys.argv[1:]
subject, _, blurb = open(text).read().partition('\n\n')
# The judged rows of docs/benchmarks.md's make bench table: C and Rust at 10,000 symbols.
rows = []
for line in open(readme):
    cells = [c.strip().replace('*', '') for c in line.strip().strip('|').split('|')]
    if len(cells) >= 9 and cells[1] in ('icount', 'tcg') and cells[0] != 'workload':
        if cells[1] == 'icount' or cells[0] == 'kallsyms_read':
            rows.append((cells[0], cells[1], cells[2], cells[3], cells[4], cells[8]))
head = ('workload', 'mode', 'unit', 'C', 'Rust', 'Rust/C')
w = [max(len(r[i]) for r in rows + [head]) for i in range(6)]
table = '\n'.join('  ' + '  '.join(c.ljust(w[i]) for i, c in enumerate(r)).rstrip()
                  for r in [head] + rows)
s = open(cover).read()
s = s.replace('*** SUBJECT HERE ***', subject.strip())
s = s.replace('*** BLURB HERE ***', blurb.rstrip() + '\n\n' + table + '\n')
open(cover, 'w').write(s)
EOF
written=("$OUT"/*.patch)
note "series: $OUT (${#written[@]} files, cover letter included); base $base"
note "to apply: git am $OUT/*.patch on a linux-$KVER tree"
