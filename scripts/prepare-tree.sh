#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Make $BUILD/src = pristine kernel + patches/series + the overlay directories
# of this repo, each where scripts/overlay.map puts it.  Only files whose
# content changed are rewritten, so make's timestamps stay meaningful and
# rebuilds stay incremental.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

PRISTINE=$CACHE/linux-$KVER
SRC=$BUILD/src
mapfile -t OVERLAY_DIRS < <(overlay_dirs)
[ -f "$PRISTINE/.complete" ] || die "no kernel source at $PRISTINE: run scripts/fetch-source.sh"

# Which pristine tree $SRC was copied from: a new download (another KVER, a
# re-extracted package) means a new copy, as the files we do not own would
# otherwise stay those of the old one.
origin="linux-$KVER $(stat -c %Y "$PRISTINE/.complete")"
if [ ! -f "$SRC/.bpf_ksym_tree" ] || [ "$(cat "$SRC/.bpf_ksym_pristine" 2>/dev/null)" != "$origin" ]; then
	step "copying pristine kernel tree to $SRC"
	rm -rf "$SRC"
	mkdir -p "$BUILD"
	cp -a "$PRISTINE" "$SRC"
	rm -f "$SRC/.complete"
	: >"$SRC/.bpf_ksym_tree"
	echo "$origin" >"$SRC/.bpf_ksym_pristine"
fi

# The files we own in the tree: those the patches touch, the overlay files,
# and whatever we owned last time (so a dropped patch or file is undone).
stage=$(mktemp -d "$BUILD/stage.XXXXXX")
trap 'rm -rf "$stage"' EXIT
owned_now=$stage.list
{
	cat "$SRC/.bpf_ksym_tree"
	while read -r p; do
		case "$p" in ''|'#'*) continue ;; esac
		sed -n 's|^+++ b/\([^[:space:]]*\).*|\1|p' "$ROOT/patches/$p"
	done <"$ROOT/patches/series"
	for d in "${OVERLAY_DIRS[@]}"; do
		if [ -d "$ROOT/$d" ]; then overlay_files "$d" | to_tree; fi
	done
} | sort -u >"$owned_now"

# Pristine copies of the patched files, the patches applied to them...
while read -r f; do
	if [ -f "$PRISTINE/$f" ]; then
		mkdir -p "$stage/$(dirname "$f")"
		cp -p "$PRISTINE/$f" "$stage/$f"
	fi
done <"$owned_now"
while read -r p; do
	case "$p" in ''|'#'*) continue ;; esac
	patch -s -p1 -d "$stage" --no-backup-if-mismatch <"$ROOT/patches/$p" ||
		die "patches/$p does not apply to linux-$KVER: refresh it against $PRISTINE"
done <"$ROOT/patches/series"
# ... then the overlay on top.
for d in "${OVERLAY_DIRS[@]}"; do
	if [ -d "$ROOT/$d" ]; then overlay_files "$d" | overlay_copy "$stage"; fi
done

# Edits made in $SRC since it was last prepared (HACKING: edit there, then make refresh-patch)
# that this run would overwrite or remove: stop, unless told to drop them. Edited: a file whose
# content is not what the last run wrote (its sums), or, for a tree prepared before the sums
# were kept, one changed since that run.
edited() {
	if [ -f "$SRC/.bpf_ksym_sums" ]; then
		(cd "$SRC" && LC_ALL=C sha256sum --quiet -c .bpf_ksym_sums 2>/dev/null | sed -n 's/: FAILED.*$//p')
	else
		while read -r f; do
			if [ "$SRC/$f" -nt "$SRC/.bpf_ksym_tree" ]; then echo "$f"; fi
		done <"$owned_now"
	fi
}
if [ "${BPF_KSYM_DISCARD_EDITS:-0}" != 1 ]; then
	lost=()
	while read -r f; do
		[ -n "$f" ] || continue
		if [ -e "$stage/$f" ]; then
			cmp -s "$stage/$f" "$SRC/$f" || lost+=("$f")
		elif grep -qxF -- "$f" "$owned_now"; then
			# Owned last time, owned no longer: the copy below removes it (or puts pristine's back).
			lost+=("$f")
		fi
	done < <(edited)
	if [ ${#lost[@]} -gt 0 ]; then
		printf 'error: %d file(s) of %s were edited since it was prepared, and preparing it again\n' \
			"${#lost[@]}" "$SRC" >&2
		printf 'would overwrite or remove them:\n' >&2
		for f in "${lost[@]}"; do
			by=()
			while read -r p; do
				case "$p" in '' | '#'*) continue ;; esac
				grep -qxF -- "+++ b/$f" "$ROOT/patches/$p" && by+=("$p")
			done <"$ROOT/patches/series"
			if [ ${#by[@]} -gt 0 ]; then
				printf '    %s  (changed by %s: keep it with make refresh-patch P=<the patch the edit belongs to>)\n' \
					"$f" "${by[*]}" >&2
			elif [ -e "$stage/$f" ]; then
				printf "    %s  (overlay: keep it with cp '%s' '%s')\n" "$f" "$SRC/$f" \
					"$ROOT/$(to_repo <<<"$f")" >&2
			else
				printf '    %s  (no longer in the repository or a patch: copy it somewhere first)\n' "$f" >&2
			fi
		done
		printf 'Or drop the edits: run the same make command with BPF_KSYM_DISCARD_EDITS=1.\n' >&2
		exit 1
	fi
fi

# Copy in by content; remove what we no longer own and pristine lacks.
changed=$(rsync -rlc --out-format='%n' "$stage/" "$SRC/" | grep -v '/$' || true)
while read -r f; do
	[ -n "$f" ] || continue
	if [ ! -e "$stage/$f" ] && [ ! -e "$PRISTINE/$f" ]; then
		rm -f "$SRC/$f"
		changed="$changed"$'\n'"(removed) $f"
	fi
done <"$owned_now"
# And the folders left empty that pristine lacks: those only our files were in (a folder the
# overlay map moved elsewhere).
(cd "$SRC" && find . -mindepth 1 -type d -empty -printf '%P\n') | while IFS= read -r d; do
	while [ "$d" != . ] && [ ! -d "$PRISTINE/$d" ] && rmdir "$SRC/$d" 2>/dev/null; do
		d=$(dirname "$d")
	done
done
(cd "$stage" && find . -type f | sed 's|^\./||') | sort >"$SRC/.bpf_ksym_tree"
# What this run wrote (the staged content, not what $SRC holds by now), for the next to tell
# edits made in $SRC since.
(cd "$stage" && xargs -r -d '\n' sha256sum -- <"$SRC/.bpf_ksym_tree") >"$SRC/.bpf_ksym_sums.new"
mv "$SRC/.bpf_ksym_sums.new" "$SRC/.bpf_ksym_sums"
rm -f "$owned_now"
n=$(printf '%s\n' "$changed" | grep -c . || true)
note "tree: $SRC ($n file(s) updated)"
