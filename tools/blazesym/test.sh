#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Host tests of the blazesym KALLSYMS_QUERY patches.
#
# Usage: test.sh [BUILD_DIR]   (default as patch.sh's)
#
# 1. patch.sh, unless BUILD_DIR/patched holds the patches as they are now
#    (set REPATCH=1 to force);
# 2. (blazesym's unit test data files are not generated: blazesym-dev,
#    which makes them, is not published);
# 3. the new code's unit tests (src/kernel/kquery.rs, against a mock of
#    the ioctl, so they run on kernels without KALLSYMS_QUERY);
# 4. blazesym's library unit tests, patched and pristine, comparing the
#    failures;
# 5. clippy (blazesym's lints) on the patched library, with and without
#    the `bpf` feature, and a build of the bpf feature;
# 6. blazesym-c built against the patched blazesym, and a C program
#    calling blaze_symbolize_kernel_abs_addrs() on this kernel;
# 7. each patch on its own: the series applied up to it, clippy-clean with
#    and without `bpf`, failing no library unit test the pristine tree
#    passes (EACH=0 skips it).
#
# Ends with one summary line. Exit status 0 if the new tests pass, the
# patched tree, and each patch on its own, fails no test the pristine one
# passes, and clippy is clean.

set -uo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
build=${1:-${BPF_KSYM_BUILD:+$BPF_KSYM_BUILD/blazesym}}
build=${build:-$here/../../build/blazesym}
JOBS=${JOBS:-2}

# Features blazesym-dev enables for blazesym's own tests (minus `bpf`,
# whose unit tests need blazesym-dev's BPF objects, built with clang).
FEATURES=apk,breakpad,gsym,tracing,test,xz

export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-$build/target}
# blazesym's .cargo/config.toml runs tests through `sudo ... runner.sh`,
# which drops the page cache; run them directly instead.
export CARGO_TARGET_X86_64_UNKNOWN_LINUX_GNU_RUNNER=env
export RUST_BACKTRACE=0

say() {
	printf 'test.sh: %s\n' "$*"
}

status=0
fail() {
	printf 'test.sh: FAIL: %s\n' "$*" >&2
	status=1
}

# As build.sh: the patched tree is made again when the patches changed (their
# hash in patched/.patches), so that the tests never run on an older series.
stamp=$(cat "$here"/patches/*.patch | sha256sum | cut -d' ' -f1)
if [ "$(cat "$build/patched/.patches" 2>/dev/null)" != "$stamp" ] || [ -n "${REPATCH:-}" ]; then
	"$here/patch.sh" "$build" || exit 1
	echo "$stamp" >"$build/patched/.patches"
fi
mkdir -p "$build/logs"
build=$(cd "$build" && pwd)
logs=$build/logs
patched=$build/patched/blazesym-0.2.7
blazesym_c=$build/patched/blazesym-c-0.1.11

# 2. Test data: blazesym's unit tests read files that its unpublished
# blazesym-dev crate generates (it is not on crates.io, and the crate leaves
# it out). The tests that need them fail with and without the patches alike;
# step 4 compares the two, so they cannot hide a new failure.
say "no test data files (blazesym-dev is not published): the tests that need them fail in both trees"

# Run `cargo test --lib` in $1, logging to $2, with further arguments.
run_tests() {
	local dir=$1 log=$2
	shift 2
	(cd "$dir" && cargo test -j"$JOBS" --lib --features "$FEATURES" "$@") >"$log" 2>&1
}

# Print "passed failed ignored" summed over the test results of log $1.
counts() {
	awk '/^test result:/ { p += $4; f += $6; i += $8 } END { printf "%d %d %d\n", p, f, i }' "$1"
}

# Print the failed tests of log $1, sorted.
failures() {
	sed -n 's/^test \(.*\) \.\.\. FAILED$/\1/p' "$1" | sort
}

# 3. The new unit tests.
say "running the KALLSYMS_QUERY unit tests (kernel::kquery)"
run_tests "$patched" "$logs/kquery.log" -- kernel::kquery
read -r kq_pass kq_fail _ < <(counts "$logs/kquery.log")
if [ "$kq_pass" -eq 0 ] || [ "$kq_fail" -ne 0 ]; then
	fail "kernel::kquery tests: $kq_pass passed, $kq_fail failed (see $logs/kquery.log)"
fi
grep '^test kernel::kquery' "$logs/kquery.log" | sed 's/^/    /'

# 4. All library unit tests, patched and pristine.
for tree in patched pristine; do
	dir=$build/$tree/blazesym-0.2.7
	say "running blazesym's library unit tests ($tree)"
	run_tests "$dir" "$logs/lib-$tree.log"
	if ! grep -q '^test result:' "$logs/lib-$tree.log"; then
		fail "blazesym ($tree) tests did not build (see $logs/lib-$tree.log)"
	fi
done
read -r p_pass p_fail p_ign < <(counts "$logs/lib-patched.log")
read -r o_pass o_fail o_ign < <(counts "$logs/lib-pristine.log")
new_failures=$(comm -23 <(failures "$logs/lib-patched.log") <(failures "$logs/lib-pristine.log"))
if [ -n "$new_failures" ]; then
	fail "tests failing only with the patches: $(echo "$new_failures" | tr '\n' ' ')"
fi
if [ "$p_fail" -ne 0 ]; then
	say "tests failing with and without the patches (environment):"
	comm -12 <(failures "$logs/lib-patched.log") <(failures "$logs/lib-pristine.log") |
		sed 's/^/    /'
fi

# 5. Clippy, with blazesym's lints (Cargo.toml [lints], .clippy.toml),
#    each run with a log of its own.
clippy=clean
for run in "bpf:--lib --features $FEATURES,bpf" "test:--lib --profile test --features $FEATURES" \
	"no-default:--lib --no-default-features"; do
	name=${run%%:*}
	args=${run#*:}
	log=$logs/clippy-$name.log
	say "cargo clippy $args (log: $log)"
	# shellcheck disable=SC2086 # $args is a list of arguments
	if ! (cd "$patched" && cargo clippy -j"$JOBS" $args -- -D warnings) \
		>"$log" 2>&1; then
		clippy=dirty
		fail "clippy $args (see $log)"
	fi
done

# 6. blazesym-c, built against the patched blazesym, and its kernel
#    symbolization entry point from C.
capi=failed
say "building blazesym-c against the patched blazesym"
if (cd "$blazesym_c" &&
	cargo build -j"$JOBS" --lib --config "patch.crates-io.blazesym.path='$patched'") \
	>"$logs/blazesym-c.log" 2>&1; then
	lib=$CARGO_TARGET_DIR/debug/libblazesym_c.a
	cat >"$build/capi_kernel.c" <<'EOF'
/* blaze_symbolize_kernel_abs_addrs() on the address of a kernel symbol. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include "blazesym.h"

int main(int argc, char **argv)
{
	unsigned long long addr;
	struct blaze_symbolize_src_kernel src = { .type_size = sizeof(src) };
	struct blaze_symbolizer *symbolizer = blaze_symbolizer_new();
	const struct blaze_syms *syms;
	uint64_t addrs[2];

	if (argc != 3 || sscanf(argv[1], "%llx", &addr) != 1 || !symbolizer)
		return 2;
	addrs[0] = addr + 1;
	addrs[1] = 1;	/* no symbol */
	syms = blaze_symbolize_kernel_abs_addrs(symbolizer, &src, addrs, 2);
	if (!syms) {
		fprintf(stderr, "symbolization failed: %s\n", blaze_err_str(blaze_err_last()));
		return 1;
	}
	printf("%#llx: %s+%#zx\n", addr + 1, syms->syms[0].name ? syms->syms[0].name : "<none>",
	       syms->syms[0].offset);
	printf("0x1: %s\n", syms->syms[1].name ? syms->syms[1].name : "<none>");
	if (!syms->syms[0].name || strcmp(syms->syms[0].name, argv[2]) || syms->syms[0].offset != 1)
		return 1;
	blaze_syms_free(syms);
	blaze_symbolizer_free(symbolizer);
	return 0;
}
EOF
	addr=$(awk '$3 == "vfs_read" { print $1; exit }' /proc/kallsyms)
	if [ -z "$addr" ] || [ "$addr" = 0000000000000000 ]; then
		capi="skipped (no vfs_read address in /proc/kallsyms)"
	elif cc -I"$blazesym_c/include" -o "$build/capi_kernel" "$build/capi_kernel.c" "$lib" \
		-lpthread -ldl -lm >>"$logs/blazesym-c.log" 2>&1 &&
		"$build/capi_kernel" "$addr" vfs_read >>"$logs/blazesym-c.log" 2>&1; then
		capi=ok
		sed 's/^/    /' "$logs/blazesym-c.log" | tail -n 2
	else
		fail "blaze_symbolize_kernel_abs_addrs() from C (see $logs/blazesym-c.log)"
	fi
else
	fail "blazesym-c does not build against the patched blazesym (see $logs/blazesym-c.log)"
fi

# 7. Each patch on its own, as a maintainer applies the series: the tree with
#    the patches up to it.
each=skipped
if [ "${EACH:-1}" != 0 ]; then
	each=ok
	series=$build/each/blazesym-0.2.7
	rm -rf "$build/each"
	mkdir -p "$build/each"
	cp -a "$build/pristine/blazesym-0.2.7" "$series"
	n=0
	for p in "$here"/patches/*.patch; do
		n=$((n + 1))
		say "patch $n alone: $(basename "$p")"
		if ! patch -s -p1 -d "$series" --no-backup-if-mismatch <"$p" >"$logs/each-$n.log" 2>&1; then
			fail "patch $n does not apply to the ones before it (see $logs/each-$n.log)"
			each=failed
			break
		fi
		for args in "--lib --features $FEATURES,bpf" "--lib --no-default-features"; do
			# shellcheck disable=SC2086 # $args is a list of arguments
			if ! (cd "$series" && cargo clippy -j"$JOBS" $args -- -D warnings) \
				>>"$logs/each-$n.log" 2>&1; then
				fail "patch $n alone: clippy $args (see $logs/each-$n.log)"
				each=failed
			fi
		done
		run_tests "$series" "$logs/each-$n-tests.log"
		new=$(comm -23 <(failures "$logs/each-$n-tests.log") <(failures "$logs/lib-pristine.log"))
		if ! grep -q '^test result:' "$logs/each-$n-tests.log" || [ -n "$new" ]; then
			fail "patch $n alone: tests do not build or fail where pristine's pass:" \
				"$(echo "$new" | tr '\n' ' ')(see $logs/each-$n-tests.log)"
			each=failed
		fi
	done
	[ "$each" != ok ] || each="ok ($n patches)"
fi

if ioctl_kernel=$(python3 - <<'EOF'
import errno, fcntl, struct
q = bytearray(160)
struct.pack_into("<QQ", q, 0, 160, 0x08)
try:
    with open("/proc/kallsyms", "rb") as f:
        fcntl.ioctl(f, 0xC0A06612, q)
    print("yes")
except OSError as e:
    print("no (%s)" % errno.errorcode.get(e.errno, e.errno))
EOF
); then :; fi

say "SUMMARY: kquery unit tests $kq_pass passed/$kq_fail failed;" \
	"lib tests patched $p_pass passed/$p_fail failed/$p_ign ignored," \
	"pristine $o_pass passed/$o_fail failed/$o_ign ignored," \
	"new failures: $(echo "$new_failures" | grep -c .);" \
	"clippy $clippy; blazesym-c C API $capi; each patch alone: $each;" \
	"KALLSYMS_QUERY v2 on this kernel: $ioctl_kernel"
exit $status
