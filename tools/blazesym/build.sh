#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build the guest-side checkers of the blazesym patches (release):
#
#   DIR/bin/blazesym-check       check/: text vs kq blazesym, compare and bench
#   DIR/bin/blazesym-capi-check  capi_check.c against libblazesym_c.a, itself
#                                built from DIR/patched/blazesym-c-0.1.11 with
#                                blazesym patched to DIR/patched/blazesym-0.2.7
#   DIR/bin/blazesym-capi-bench-kq    capi_bench.c against the same library
#   DIR/bin/blazesym-capi-bench-text  capi_bench.c against blazesym-c 0.1.11
#                                and blazesym 0.2.7 as published
#
# The capi_bench programs are linked static and non-PIE, as make
# bench-query's C clients are, each with one blazesym.
#
# Usage: build.sh DIR
#
# Runs patch.sh DIR first if DIR/patched is missing. Cargo's target
# directory is DIR/target; JOBS (default 2) sets cargo's -j. The binaries
# but capi_bench are linked dynamically against glibc: copy them and what
# ldd lists into the guest. To cross-build, set CARGO_BUILD_TARGET (a Rust
# triple), cargo's linker settings for it, and CC to a C compiler for that
# target; the binaries are then as those settings link them (static, say).

set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

say() {
	printf 'build.sh: %s\n' "$*"
}

die() {
	printf 'build.sh: error: %s\n' "$*" >&2
	exit 1
}

[ $# -eq 1 ] || die "usage: build.sh DIR"
JOBS=${JOBS:-2}
command -v cargo >/dev/null || die "cargo not found"
CC=${CC:-cc}
command -v "${CC%% *}" >/dev/null || die "${CC%% *} not found"

mkdir -p "$1"
build=$(cd "$1" && pwd)
# An empty CARGO_BUILD_TARGET is an error to cargo ("target was empty"), patch.sh's cargo
# fetch included: no target is the host's.
[ -n "${CARGO_BUILD_TARGET:-}" ] || unset CARGO_BUILD_TARGET

# The patched tree is made again only when the patches changed: a new copy
# would make cargo rebuild blazesym.
stamp=$(cat "$here"/patches/*.patch | sha256sum | cut -d' ' -f1)
if [ "$(cat "$build/patched/.patches" 2>/dev/null)" != "$stamp" ]; then
	say "patches changed or $build/patched missing: running patch.sh $build"
	"$here/patch.sh" "$build"
	echo "$stamp" >"$build/patched/.patches"
fi

patched=$build/patched/blazesym-0.2.7
capi=$build/patched/blazesym-c-0.1.11
[ -f "$patched/Cargo.toml" ] || die "$patched is not a crate"
[ -f "$capi/Cargo.toml" ] || die "$capi is not a crate"

export CARGO_TARGET_DIR=$build/target
# Where cargo puts what it builds: under the triple when one is given.
out=$CARGO_TARGET_DIR${CARGO_BUILD_TARGET:+/$CARGO_BUILD_TARGET}/release
mkdir -p "$build/bin"

# 1. blazesym-check: Cargo.toml from the template, in DIR/check, with the
#    sources linked from here (nothing is generated in the source tree).
crate=$build/check
say "generating $crate/Cargo.toml from $here/check/Cargo.toml.in (@PATCHED@ = $patched)"
mkdir -p "$crate"
sed "s|@PATCHED@|$patched|g" "$here/check/Cargo.toml.in" >"$crate/Cargo.toml.new"
mv "$crate/Cargo.toml.new" "$crate/Cargo.toml"
ln -sfn "$here/check/src" "$crate/src"
say "cargo build --release -j$JOBS (blazesym-check; target dir $CARGO_TARGET_DIR)"
cargo build --release -j"$JOBS" --manifest-path "$crate/Cargo.toml"
cp "$out/blazesym-check" "$build/bin/blazesym-check"
say "built $build/bin/blazesym-check"

# 2. libblazesym_c.a against the patched blazesym: the same as a
#    [patch.crates-io] section, given on the command line so that the
#    crate's Cargo.toml stays as published.
override="patch.crates-io.blazesym.path='$patched'"
say "cargo build --release -j$JOBS --lib --config \"$override\" (blazesym-c)"
(cd "$capi" && cargo build --release -j"$JOBS" --lib --config "$override")
used=$(cd "$capi" && cargo tree --config "$override" -e normal -i blazesym --depth 0 2>/dev/null | head -n 1)
case $used in
*"($patched)"*) say "blazesym-c uses $used" ;;
*) die "blazesym-c does not use the patched blazesym (cargo tree: ${used:-nothing})" ;;
esac
lib=$out/libblazesym_c.a
[ -f "$lib" ] || die "$lib not built"

say "$CC capi_check.c -> $build/bin/blazesym-capi-check"
# shellcheck disable=SC2086 # CC may carry the target's flags
$CC -O2 -Wall -Wextra -I"$capi/include" -o "$build/bin/blazesym-capi-check" \
	"$here/capi_check.c" "$lib" -lpthread -ldl -lm

# 3. capi_bench, once against each blazesym: the published one is built in a
#    target directory of its own (the library's file name is the same).
bench_h=$here/../bpf/bpf_ksym_bench
capi_bench() { # library output-name
	say "$CC -static -no-pie capi_bench.c $1 -> $build/bin/$2"
	# shellcheck disable=SC2086 # CC may carry the target's flags
	$CC -O2 -Wall -Wextra -static -no-pie -I"$capi/include" -I"$bench_h" \
		-o "$build/bin/$2" "$here/capi_bench.c" "$1" -lpthread -ldl -lm
}
capi_bench "$lib" blazesym-capi-bench-kq
published=$build/pristine/blazesym-c-0.1.11
say "cargo build --release -j$JOBS --lib (blazesym-c as published; target dir $build/target-published)"
(cd "$published" && CARGO_TARGET_DIR=$build/target-published cargo build --release -j"$JOBS" --lib)
capi_bench "$build/target-published${CARGO_BUILD_TARGET:+/$CARGO_BUILD_TARGET}/release/libblazesym_c.a" \
	blazesym-capi-bench-text
say "done: $build/bin/blazesym-check $build/bin/blazesym-capi-check $build/bin/blazesym-capi-bench-{kq,text}"
