#!/usr/bin/env bash
# Build the guest initramfs: busybox, bpftool, perf (with their libraries),
# the kselftests and BPF objects, and scripts/guest/.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

# One per registry: the test module is built against that kernel.
out=$BUILD/initramfs-$FLAVOR.cpio.gz
tests=$BUILD/tests
step "building selftests and initramfs"
mkdir -p "$tests"
# Upstream's tools/testing/selftests/bpf/progs/bpf_iter_ksym.c (patched by patches/0005),
# for iter_ksym_upstream_test, includes <vmlinux.h>: this flavour's BTF as C, dumped with
# the distribution's bpftool. One directory per flavour, as struct kallsym_iter differs
# between the registries; vmlinux.h is replaced only when the BTF changed, so the
# object is rebuilt only then. Without a built kernel there is neither.
gen=$BUILD/bpf-$FLAVOR
gen_arg=()
if [ -f "$KOUT/vmlinux" ]; then
	mkdir -p "$gen"
	/usr/sbin/bpftool btf dump file "$KOUT/vmlinux" format c >"$gen/vmlinux.h.tmp" ||
		die "bpftool could not dump the BTF of $KOUT/vmlinux"
	if cmp -s "$gen/vmlinux.h.tmp" "$gen/vmlinux.h"; then
		rm "$gen/vmlinux.h.tmp"
	else
		mv "$gen/vmlinux.h.tmp" "$gen/vmlinux.h"
	fi
	gen_arg=(GEN="$gen")
fi
make -s -C "$ROOT/tools/testing/selftests/bpf_ksym" KSRC="$BUILD/src" OUT="$tests" "${gen_arg[@]}" ||
	die "building tools/testing/selftests/bpf_ksym failed"
make -s -C "$ROOT/samples/kallsyms_query" OUT="$tests" ||
	die "building samples/kallsyms_query failed"
cargo build -q --release --offline --manifest-path "$ROOT/tools/ksym-query/Cargo.toml" \
	--target-dir "$BUILD/ksym-query" || die "building tools/ksym-query failed"
cp "$BUILD/ksym-query/release/ksym-query" "$tests/"
# The test module, against this variant's kernel build.
mod=$BUILD/test_module-$FLAVOR
rm -f "$tests/ksym_test_mod.ko"
mkdir -p "$mod"
cp "$ROOT/tools/testing/selftests/bpf_ksym/test_module/"{Makefile,ksym_test_mod.c} "$mod/"
if [ -f "$KOUT/Module.symvers" ]; then
	kmake M="$mod" modules >"$mod/build.log" 2>&1 ||
		die "building the test module failed; see $mod/build.log"
	cp "$mod/ksym_test_mod.ko" "$tests/"
fi

root=$(mktemp -d "$BUILD/initramfs.XXXXXX")
trap 'rm -rf "$root"' EXIT
chmod 755 "$root" # mktemp made it 0700: unprivileged guest users must traverse /
mkdir -p "$root"/{bin,sbin,usr/bin,usr/sbin,proc,sys,dev,tmp,bpf_ksym,etc}
cp /bin/busybox "$root/bin/busybox"
cp "$ROOT/scripts/guest/init" "$root/init"
cp "$ROOT/scripts/guest/demo.sh" "$ROOT/scripts/guest/kmemleak_scan.sh" "$tests"/*_test "$tests"/*.bpf.o \
	"$tests"/bench_registry "$tests"/bench_query "$tests"/kallsyms_query \
	"$ROOT/tools/testing/selftests/bpf_ksym/kallsyms_query.corpus" "$root/bpf_ksym/"
[ -f "$tests/ksym_test_mod.ko" ] && cp "$tests/ksym_test_mod.ko" "$root/bpf_ksym/"
[ -f "$gen/bpf_iter_ksym.bpf.o" ] && cp "$gen/bpf_iter_ksym.bpf.o" "$root/bpf_ksym/"
echo 'root:x:0:0:root:/root:/bin/sh' >"$root/etc/passwd"
echo 'nobody:x:65534:65534:nobody:/:/bin/sh' >>"$root/etc/passwd"

# Dynamic tools with every library they load.
cp "$tests/ksym-query" "$root/usr/bin/"
for bin in /usr/sbin/bpftool /usr/bin/perf /usr/bin/ksym-query; do
	[ -f "$root$bin" ] || cp "$bin" "$root$bin"
	ldd "$root$bin" | grep -oE '/[^ ]+' | while read -r lib; do
		mkdir -p "$root$(dirname "$lib")"
		cp -L "$lib" "$root$lib"
	done
done

(cd "$root" && find . | cpio -o -H newc --quiet | gzip -1) >"$out.tmp"
mv "$out.tmp" "$out"
note "initramfs: $out ($(du -h "$out" | cut -f1))"
