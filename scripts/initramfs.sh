#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Build the guest initramfs: busybox, bpftool, perf (with their libraries),
# the kselftests as kselftest installs them (/kselftest), the benchmarks, the
# sample, ksym-query and scripts/guest/.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

# One per registry: the test module is built against that kernel.
out=$BUILD/initramfs-$FLAVOR.cpio.gz
tests=$BUILD/tests
# Another architecture (ARCH=arm64): the same programs cross-built with clang and
# lld, static; Debian's busybox, bpftool and perf for it from $SYSROOT.
cross=() userld=-static benches=$tests cargo_target=() blazesym=$BUILD/blazesym
if [ "$ARCH" != x86_64 ]; then
	cross=(ARCH="$KARCH" CROSS_COMPILE="$TRIPLE-")
	userld="-static -fuse-ld=lld"
	benches=$tests/$ARCH
	cargo_target=(--target "$RUST_TRIPLE")
	blazesym=$BUILD/blazesym-$ARCH
fi
step "building selftests and initramfs"
mkdir -p "$tests"
# The kselftest way, against this flavour's build: its uapi headers
# (KHDR_INCLUDES), its vmlinux for BTF and its tree for the test module; static
# programs; installed with run_kselftest.sh into $ksft. Objects go under
# $KOUT/kselftest, one per flavour (struct kallsym_iter differs between them).
ksft=$KOUT/kselftest/kselftest_install
kmake headers_install >"$tests/headers-$FLAVOR.log" 2>&1 ||
	die "make headers_install failed; see $tests/headers-$FLAVOR.log"
# Rebuilt each time (docs/testing.md, Times): lib.mk's rules do not depend on the
# installed uapi.
rm -rf "$ksft" "$KOUT/kselftest/bpf_ksym"
make -s -C "$BUILD/src/tools/testing/selftests" TARGETS=bpf_ksym O="$KOUT" LLVM=-"$LLVM_VER" \
	"${cross[@]}" USERLDFLAGS="$userld" KSFT_INSTALL_PATH="$ksft" install \
	>"$tests/kselftest-$FLAVOR.log" 2>&1 ||
	die "building tools/testing/selftests/bpf_ksym failed; see $tests/kselftest-$FLAVOR.log"
[ -f "$ksft/bpf_ksym/test_module/ksym_test_mod.ko" ] ||
	die "the kselftest install has no test module; see $tests/kselftest-$FLAVOR.log"
# kselftest builds the module in the source tree: leave build/src as the series makes it.
make -s -C "$BUILD/src/tools/testing/selftests/bpf_ksym/test_module" KDIR="$KOUT" \
	LLVM=-"$LLVM_VER" "${cross[@]}" clean
# -B: their rules do not depend on the installed uapi headers.
mkdir -p "$benches"
make -s -B -C "$BUILD/src/tools/bpf/bpf_ksym_bench" OUTPUT="$benches" LDFLAGS=-static \
	KHDR_INCLUDES="-isystem $KOUT/usr/include" ${CROSS_CC:+CC="$CROSS_CC"} ||
	die "building tools/bpf/bpf_ksym_bench failed"
sample=$KOUT/samples/kallsyms_query/kallsyms_query
[ -x "$sample" ] || die "no $sample: CONFIG_SAMPLE_KALLSYMS_QUERY is off or the kernel is not built"
cargo build -q --release --offline --manifest-path "$ROOT/tools/ksym-query/Cargo.toml" \
	--target-dir "$BUILD/ksym-query" "${cargo_target[@]}" || die "building tools/ksym-query failed"
ksym_query=$BUILD/ksym-query/${cargo_target[1]:+${cargo_target[1]}/}release/ksym-query
# blazesym 0.2.7 from crates.io, as published and with tools/blazesym's
# patches, for blazesym_test (built the first time, then cached; docs/testing.md, Times).
note "blazesym: $blazesym (log $tests/blazesym-$ARCH.log)"
CARGO_BUILD_TARGET=${cargo_target[1]:-} CC=${CROSS_CC:-cc} \
	bash "$ROOT/tools/blazesym/build.sh" "$blazesym" >"$tests/blazesym-$ARCH.log" 2>&1 ||
	die "building tools/blazesym failed; see $tests/blazesym-$ARCH.log"

root=$(mktemp -d "$BUILD/initramfs.XXXXXX")
trap 'rm -rf "$root"' EXIT
chmod 755 "$root" # mktemp made it 0700: unprivileged guest users must traverse /
mkdir -p "$root"/{bin,sbin,usr/bin,usr/sbin,proc,sys,dev,tmp,bpf_ksym,etc}
if [ "$ARCH" = x86_64 ]; then cp /bin/busybox "$root/bin/busybox"
else cp "$SYSROOT/bin/busybox" "$root/bin/busybox"
fi
cp "$ROOT/scripts/guest/init" "$root/init"
cp -r "$ksft" "$root/kselftest"
cp "$ROOT/scripts/guest/demo.sh" "$ROOT/scripts/guest/kmemleak_scan.sh" \
	"$ROOT/scripts/guest/text_patch_repro.sh" \
	"$benches"/bench_registry "$benches"/bench_query "$root/bpf_ksym/"
echo 'root:x:0:0:root:/root:/bin/sh' >"$root/etc/passwd"
echo 'nobody:x:65534:65534:nobody:/:/bin/sh' >>"$root/etc/passwd"

# Dynamic tools with every library they load; coreutils' timeout for the
# kselftest runner (busybox's lacks --foreground).
cp "$ksym_query" "$sample" "$root/usr/bin/"
cp "$blazesym/bin/blazesym-check" "$blazesym/bin/blazesym-capi-check" \
	"$blazesym/bin/blazesym-capi-bench-kq" "$blazesym/bin/blazesym-capi-bench-text" "$root/usr/bin/"
if [ "$ARCH" = x86_64 ]; then
	install_programs "$root" /usr/sbin/bpftool /usr/bin/perf /usr/bin/timeout /usr/bin/ksym-query \
		/usr/bin/kallsyms_query /usr/bin/blazesym-check /usr/bin/blazesym-capi-check
else
	install_sysroot_programs "$root" /usr/sbin/bpftool /usr/bin/perf /usr/bin/timeout
fi

(cd "$root" && find . | cpio -o -H newc --quiet | gzip -1) >"$out.tmp"
mv "$out.tmp" "$out"
note "initramfs: $out ($(du -h "$out" | cut -f1))"
