#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# `make lint`: the checks that need no kernel build, one line each; any
# finding fails. (Clippy runs in every kernel build instead: kmake passes
# CLIPPY=1 and build-kernel.sh fails on a Rust warning.)
#
#   shell scripts  shellcheck on scripts/, tools/blazesym/ and .ci/run
#   rustfmt        our Rust files and the upstream ones our patches change,
#                  with the kernel's .rustfmt.toml
#   checkpatch     --strict on every patch of build/series, minus the
#                  messages scripts/checkpatch.allow explains
#   ksym-query     cargo fmt --check, cargo clippy -D warnings and its unit tests
#   blazesym       tools/blazesym/test.sh: blazesym 0.2.7's own unit tests with
#                  and without the KALLSYMS_QUERY patches (no new failure), the
#                  patches' tests, clippy; then fmt and clippy of blazesym-check
#   htmldocs       Documentation/bpf and userspace-api build with no warning from
#                  our pages or the kernel-doc of the uapi header
#   uapi-doc       the uapi header's kernel-doc against the struct layout and
#                  the errnos the code returns (scripts/check-uapi-doc.py)
#   paths          the files and directories README.md, HACKING.md, tools/*/README.md
#                  and our two rst pages name exist, in the repository, the
#                  kernel tree or build/ (scripts/check-paths.py)
#   kconfig        every Kconfig of our directories is sourced by the top-level
#                  Kconfig and by exactly one patch, and nothing else is
#   overlay        HACKING.md's table of where each folder lands in the kernel
#                  tree is scripts/overlay.map, the one the scripts copy by
#   figures        the documents' figures: scripts/bench_docs.py check, whose
#                  docstring says what it checks
#   examples       the reference's example programs compile with -Werror
#   results.py     unit tests (pytest): results.py's and upstream.py's on recorded
#                  guest logs, check-paths.py's, bench_docs.py's, doc_figures.py's,
#                  prepare-tree.sh's, boot.sh's KVM probe
set -euo pipefail
. "$(dirname "$0")/lib.sh"

SRC=$BUILD/src
LOGS=$BUILD/lint
mkdir -p "$LOGS"
failed=0

# check NAME CMD...: run CMD, log to $LOGS/NAME.log, print one line.
check() {
	local name=$1 t0
	shift
	t0=$(date +%s)
	if "$@" >"$LOGS/$name.log" 2>&1; then
		note "$(printf 'ok    %-11s %3ss' "$name" $(($(date +%s) - t0)))"
	else
		note "$(printf 'FAIL  %-11s %3ss  (%s)' "$name" $(($(date +%s) - t0)) "$LOGS/$name.log")"
		sed 's/^/      | /' "$LOGS/$name.log" | head -30 >&2
		failed=1
	fi
}

shell() {
	shellcheck "$ROOT"/scripts/*.sh "$ROOT"/scripts/guest/* "$ROOT"/tools/blazesym/*.sh \
		"$ROOT/.ci/run"
}

rust_format() {
	local files=() f
	# Ours, where the tree holds them, and the upstream files our patches change.
	mapfile -t files < <( (cd "$ROOT" && find bpf_ksym kallsyms_query kallsyms_iter rust -name '*.rs') | to_tree
		sed -n 's|^+++ b/\(.*\.rs\)$|\1|p' "$ROOT"/patches/*.patch)
	for f in $(printf '%s\n' "${files[@]}" | sort -u); do
		rustfmt --check --edition 2021 --config-path "$SRC/.rustfmt.toml" "$SRC/$f" || return 1
	done
}

# checkpatch's messages, "<patch> <TYPE>: <text>", minus the allowed ones.
checkpatch() {
	local p n out rc=0
	[ -s "$BUILD/series/ORDER" ] || { echo "no build/series/ORDER: make series did not run"; return 1; }
	local d patches=()
	while read -r d; do
		[ -e "$BUILD/series/$d/0000-cover-letter.patch" ] || { echo "no series $d in build/series"; return 1; }
		patches+=("$BUILD/series/$d"/0*.patch)
	done <"$BUILD/series/ORDER"
	for p in "${patches[@]}"; do
		n=$(basename "$(dirname "$p")")/$(basename "$p")
		[ "${n#*/}" != 0000-cover-letter.patch ] || continue
		out=$( (cd "$SRC" || exit; scripts/checkpatch.pl --strict --show-types --terse "$p" || true) |
			grep -E '(ERROR|WARNING|CHECK):' || true)
		while IFS= read -r line; do
			[ -n "$line" ] || continue
			type=$(sed -n 's/.*\(ERROR\|WARNING\|CHECK\):\([A-Z_]*\):.*/\2/p' <<<"$line")
			if ! allowed "$n" "$type"; then
				echo "$n: $line"
				rc=1
			fi
		done <<<"$out"
	done
	return $rc
}

# allowed PATCH TYPE: whether scripts/checkpatch.allow has "TYPE <glob>" for it.
allowed() {
	local type glob
	while read -r type glob _; do
		case "$type" in '' | '#'*) continue ;; esac
		# shellcheck disable=SC2254 # the allow-list holds globs
		[ "$type" = "$2" ] && case "$1" in $glob) return 0 ;; esac
	done <"$ROOT/scripts/checkpatch.allow"
	return 1
}

ksym_query() {
	local manifest=$ROOT/tools/ksym-query/Cargo.toml
	cargo fmt --check --manifest-path "$manifest" &&
		cargo clippy -q --offline --manifest-path "$manifest" --target-dir "$BUILD/ksym-query-lint" \
			--all-targets -- -D warnings &&
		cargo test -q --offline --manifest-path "$manifest" --target-dir "$BUILD/ksym-query-lint"
}

# Fetches blazesym from crates.io; its build directory is the one initramfs.sh's
# build.sh then reuses.
blazesym() {
	# build.sh first: it patches again if the patches changed; test.sh would not.
	bash "$ROOT/tools/blazesym/build.sh" "$BUILD/blazesym" &&
		bash "$ROOT/tools/blazesym/test.sh" "$BUILD/blazesym" &&
		(cd "$BUILD/blazesym/check" && cargo fmt --check &&
			cargo clippy -q --release -- -D warnings)
}

# Sphinx from Debian (the kernel's scripts accept 5.3); warnings about our pages and
# the header's kernel-doc only, as SPHINXDIRS alone leaves links into the rest of the
# tree unresolved.
htmldocs() {
	# -E: read every page again; sphinx would not, nor warn, for an unchanged one.
	make -C "$SRC" O="$BUILD/docs" SPHINXDIRS="bpf userspace-api" SPHINXOPTS=-E \
		PYTHON3=/usr/bin/python3 SPHINXBUILD=/usr/bin/sphinx-build htmldocs \
		>"$BUILD/docs.log" 2>&1 || {
		cat "$BUILD/docs.log"
		return 1
	}
	! grep -E '(Documentation/bpf/bpf_ksym|userspace-api/kallsyms_query|kallsyms_query\.h).*([Ww]arning|WARNING|ERROR|CRITICAL)' \
		"$BUILD/docs.log"
}

uapi_doc() { /usr/bin/python3 "$ROOT/scripts/check-uapi-doc.py" --root "$ROOT"; }

# The kernel tree as fetch-source.sh unpacked it: the upstream files the documents name.
paths() {
	/usr/bin/python3 "$ROOT/scripts/check-paths.py" --root "$ROOT" --kernel "$CACHE/linux-$KVER"
}

# The top-level Kconfig names what the patches wire into the kernel's menus.
kconfig() {
	local listed wired ours p
	listed=$(sed -n 's/^source "\(.*\)"$/\1/p' "$ROOT/Kconfig" | sort)
	wired=$(grep -v '^#' "$ROOT/patches/series" | while read -r p; do
		sed -n 's/^+source "\(.*\)"$/\1/p' "$ROOT/patches/$p"
	done | to_repo | sort)
	ours=$(cd "$ROOT" && find . -mindepth 2 -maxdepth 2 -name Kconfig | sed 's|^\./||' | sort)
	printf 'top-level Kconfig:  %s\nsourced by patches: %s\nour directories:    %s\n' \
		"$(tr '\n' ' ' <<<"$listed")" "$(tr '\n' ' ' <<<"$wired")" "$(tr '\n' ' ' <<<"$ours")"
	[ "$listed" = "$ours" ] && [ "$wired" = "$ours" ]
}

# HACKING.md shows the overlay's map: the table between its markers, as scripts/overlay.map.
overlay_doc() {
	local shown map
	# shellcheck disable=SC2016 # the backquotes are markdown's, not expansions
	shown=$(sed -n '/^<!-- overlay map: scripts\/overlay.map -->$/,/^<!-- end overlay map -->$/p' \
		"$ROOT/HACKING.md" | sed -n 's/^| `\([^`]*\)\/` | `\([^`]*\)\/`.*|$/\1 \2/p')
	map=$(overlay_map | awk '{ print $1, $2 }')
	printf 'HACKING.md:          %s\nscripts/overlay.map: %s\n' "$(tr '\n' ' ' <<<"$shown")" \
		"$(tr '\n' ' ' <<<"$map")"
	[ -n "$shown" ] && [ "$shown" = "$map" ]
}

figures() { /usr/bin/python3 "$ROOT/scripts/bench_docs.py" check; }

# The reference's examples, as a tool author would build them: the uapi header, libc.
examples() {
	local inc=$LOGS/uapi-include f
	mkdir -p "$inc/linux"
	cp "$ROOT/include/uapi/linux/kallsyms_query.h" "$inc/linux/"
	for f in "$ROOT"/tools/testing/selftests/bpf_ksym/kallsyms_query_example_*.c; do
		gcc -std=gnu11 -Wall -Wextra -Werror -I"$inc" -o "$LOGS/$(basename "$f" .c)" "$f" ||
			return 1
	done
}

unit_tests() { /usr/bin/python3 -m pytest -q -p no:cacheprovider "$ROOT/scripts/tests"; }

step "lint (logs in $LOGS)"
check shellcheck shell
check rustfmt rust_format
check checkpatch checkpatch
check ksym-query ksym_query
check blazesym blazesym
check htmldocs htmldocs
check uapi-doc uapi_doc
check paths paths
check kconfig kconfig
check overlay overlay_doc
check figures figures
check examples examples
check results.py unit_tests
[ $failed = 0 ] || die "lint found problems (above); each check's log is in $LOGS"
