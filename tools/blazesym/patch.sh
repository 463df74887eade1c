#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Fetch blazesym 0.2.7 and blazesym-c from crates.io (through cargo) and
# apply the KALLSYMS_QUERY patches of patches/ to blazesym.
#
# Usage: patch.sh [BUILD_DIR]
#
# BUILD_DIR defaults to $BPF_KSYM_BUILD/blazesym, or to
# build/blazesym of this checkout without BPF_KSYM_BUILD. It ends up with:
#
#   BUILD_DIR/pristine/blazesym-0.2.7     the crate as published
#   BUILD_DIR/pristine/blazesym-c-0.1.11  likewise
#   BUILD_DIR/patched/blazesym-0.2.7      with patches/*.patch applied
#   BUILD_DIR/patched/blazesym-c-0.1.11   unchanged (needs no patch)
#
# Both trees are recreated from the registry's copy on every run. Any
# patch that does not apply exactly (fuzz, offset or reject) is an error.

set -euo pipefail

BLAZESYM_VERSION=0.2.7
# The newest blazesym-c on crates.io that depends on blazesym =0.2.7
# (0.1.10 takes blazesym <=0.2.6).
BLAZESYM_C_VERSION=0.1.11

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
build=${1:-${BPF_KSYM_BUILD:+$BPF_KSYM_BUILD/blazesym}}
build=${build:-$here/../../build/blazesym}

say() {
	printf 'patch.sh: %s\n' "$*"
}

die() {
	printf 'patch.sh: error: %s\n' "$*" >&2
	exit 1
}

command -v cargo >/dev/null || die "cargo not found"
command -v patch >/dev/null || die "patch not found"
command -v python3 >/dev/null || die "python3 not found"

shopt -s nullglob
patches=("$here"/patches/*.patch)
shopt -u nullglob
[ ${#patches[@]} -gt 0 ] || die "no patches in $here/patches"

mkdir -p "$build"
build=$(cd "$build" && pwd)

# A scratch crate depending on exactly the versions we want: `cargo
# fetch` downloads them into the registry cache and `cargo metadata`
# tells us where their sources are.
fetch=$build/fetch
say "fetching blazesym $BLAZESYM_VERSION and blazesym-c $BLAZESYM_C_VERSION into the cargo registry ($fetch)"
rm -rf "$fetch"
mkdir -p "$fetch/src"
cat >"$fetch/Cargo.toml" <<EOF
[package]
name = "bpf-ksym-blazesym-fetch"
version = "0.0.0"
edition = "2021"
publish = false

[workspace]

[dependencies]
blazesym = "=$BLAZESYM_VERSION"
blazesym-c = "=$BLAZESYM_C_VERSION"
EOF
echo 'fn main() {}' >"$fetch/src/main.rs"
cargo fetch --manifest-path "$fetch/Cargo.toml" ||
	die "cargo fetch failed"

# Print the source directory of the package $1 at version $2.
src_dir() {
	cargo metadata --manifest-path "$fetch/Cargo.toml" --format-version 1 |
		python3 -c '
import json, os, sys
name, version = sys.argv[1:3]
for pkg in json.load(sys.stdin)["packages"]:
    if pkg["name"] == name and pkg["version"] == version:
        print(os.path.dirname(pkg["manifest_path"]))
        break
else:
    sys.exit(f"{name} {version} not in cargo metadata")
' "$1" "$2"
}

blazesym_src=$(src_dir blazesym "$BLAZESYM_VERSION") ||
	die "cannot locate blazesym $BLAZESYM_VERSION sources"
blazesym_c_src=$(src_dir blazesym-c "$BLAZESYM_C_VERSION") ||
	die "cannot locate blazesym-c $BLAZESYM_C_VERSION sources"

# blazesym-c must use the blazesym we patch.
grep -q "^version = \"=$BLAZESYM_VERSION\"" "$blazesym_c_src/Cargo.toml" ||
	die "blazesym-c $BLAZESYM_C_VERSION does not depend on blazesym =$BLAZESYM_VERSION"

for tree in pristine patched; do
	say "creating $build/$tree"
	rm -rf "${build:?}/$tree"
	mkdir -p "$build/$tree"
	for src in "$blazesym_src" "$blazesym_c_src"; do
		say "  copying $src"
		cp -a "$src" "$build/$tree/"
		# Registry bookkeeping, not part of the crate.
		rm -f "$build/$tree/$(basename "$src")/.cargo-ok"
	done
done

target=$build/patched/blazesym-$BLAZESYM_VERSION
for p in "${patches[@]}"; do
	say "applying $(basename "$p") to $target"
	# No fuzz; any offset, fuzz or reject is reported and fails.
	if ! out=$(patch -p1 -F0 -N --no-backup-if-mismatch -r - -d "$target" <"$p" 2>&1); then
		printf '%s\n' "$out" >&2
		die "$(basename "$p") does not apply"
	fi
	printf '%s\n' "$out" | sed 's/^/    /'
	if printf '%s\n' "$out" | grep -Eqi 'offset|fuzz|reject|FAILED'; then
		die "$(basename "$p") does not apply exactly"
	fi
done

say "done: $build/pristine and $build/patched"
say "blazesym-c needs no patch: blaze_symbolize_kernel_abs_addrs() goes through Symbolizer::symbolize()"
