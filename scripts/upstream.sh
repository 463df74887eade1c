#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Build upstream's test_progs, its BPF objects and bpf_testmod from the prepared
# tree against the EXTRA_CONFIG=upstream kernel, and the initramfs that runs
# them (make test-upstream). Objects go to $KOUT/selftests-bpf, so a second run
# rebuilds only what changed.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
x86_only "make test-upstream"

[ "${EXTRA_CONFIG:-}" = upstream ] || die "upstream.sh builds the EXTRA_CONFIG=upstream flavour only"
[ -f "$KOUT/vmlinux" ] || die "no $KOUT/vmlinux: run 'make kernel BPF_KSYM=$BPF_KSYM EXTRA_CONFIG=upstream'"
bpf=$BUILD/src/tools/testing/selftests/bpf
obj=$KOUT/selftests-bpf
log=$obj.log
out=$BUILD/initramfs-$FLAVOR.cpio.gz
# test_progs and the modules it loads. No LLVM disassembler (SKIP_LLVM: only the
# JIT-dump tests use it, and libLLVM would not fit the initramfs), no man pages.
kmods=(bpf_testmod.ko bpf_test_no_cfi.ko bpf_test_modorder_x.ko bpf_test_modorder_y.ko
	bpf_test_rqspinlock.ko)
step "building upstream test_progs and bpf_testmod (first build: see docs/testing.md, Times; log $log)"
mkdir -p "$obj"
bmake() {
	make -C "$bpf" O="$KOUT" OUTPUT="$obj" LLVM=-"$LLVM_VER" SKIP_LLVM=1 SKIP_DOCS=1 \
		-j"$(nproc)" "$@"
}
# Each flavour signs its light skeletons with its own key (in $obj), but the
# Makefile writes the certificate test_progs trusts into the source tree,
# which the flavours share: kept from the other flavour's build, the signed
# skeletons' loads fail with ENOKEY (fentry_test, fexit_test, fentry_fexit).
# The same holds for the modules (built in the source tree, as kselftest does:
# a failed build of the other flavour leaves its .ko files, which make would
# keep) and libarena's objects (built there against the other flavour's
# vmlinux.h): each build starts without them and leaves build/src as the
# series makes it, also when it fails.
clean_tree() {
	rm -f "$bpf/verification_cert.h"
	make -s -C "$bpf/test_kmods" O="$KOUT" LLVM=-"$LLVM_VER" clean >>"$log" 2>&1 || true
	[ ! -d "$bpf/libarena" ] || make -s -C "$bpf/libarena" clean >>"$log" 2>&1 || true
}
: >"$log"
clean_tree
trap clean_tree EXIT
bmake "$obj/test_progs" "${kmods[@]/#/$obj/}" >>"$log" 2>&1 ||
	die "building test_progs failed; see $log"
clean_tree
trap - EXIT

step "building the test_progs initramfs"
root=$(mktemp -d "$BUILD/initramfs.XXXXXX")
trap 'rm -rf "$root"' EXIT
chmod 755 "$root"
mkdir -p "$root"/{bin,sbin,usr/bin,usr/sbin,proc,sys,dev,tmp,etc,upstream}
cp /bin/busybox "$root/bin/busybox"
cp "$ROOT/scripts/guest/init" "$root/init"
# What test_progs opens from its directory: its BPF objects, the modules,
# urandom_read and its library, and the lists of what to run.
cp "$obj/test_progs" "$root/upstream/"
cp "$obj"/*.bpf.o "${kmods[@]/#/$obj/}" "$root/upstream/"
for f in urandom_read liburandom_read.so uprobe_multi; do
	[ -e "$obj/$f" ] && cp "$obj/$f" "$root/upstream/"
done
cp "$ROOT/scripts/upstream/ALLOWLIST" "$ROOT/scripts/upstream/DENYLIST" "$root/upstream/"
# Which tree the run tests: the guest prints it, upstream.py reports it per log.
tree=$(git -C "$ROOT" describe --always --dirty 2>/dev/null) || tree=unknown
echo "$tree" >"$root/upstream/TREE"
echo 'root:x:0:0:root:/root:/bin/sh' >"$root/etc/passwd"
echo 'nobody:x:65534:65534:nobody:/:/bin/sh' >>"$root/etc/passwd"
# Dynamic programs with every library they load; iproute2's ip for the tests
# that set up network namespaces.
ip=$(command -v ip) || die "no ip (package iproute2)"
install_programs "$root" /upstream/test_progs /usr/bin/timeout "$ip"
# test_progs runs commands with system(): through a shell that looks them up on
# PATH. Busybox's runs its own applets first (its ip has no netns), so /bin/sh
# is dash (busybox --install leaves an existing /bin/sh alone).
dash=$(command -v dash) || die "no dash (package dash)"
install_programs "$root" "$dash"
ln -sf "$dash" "$root/bin/sh"
# glibc loads libgcc_s at run time to unwind a thread in pthread_exit().
gcc_s=$(ldconfig -p | awk '/libgcc_s\.so\.1 .*x86-64/ { print $NF; exit }')
[ -n "$gcc_s" ] || die "no libgcc_s.so.1 for x86-64 (package libgcc-s1)"
mkdir -p "$root$(dirname "$gcc_s")"
cp -L "$gcc_s" "$root$gcc_s"
(cd "$root" && find . | cpio -o -H newc --quiet | gzip -1) >"$out.tmp"
mv "$out.tmp" "$out"
note "initramfs: $out ($(du -h "$out" | cut -f1))"
