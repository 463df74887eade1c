#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# `make configs`: build the kernel in every configuration the new options'
# `depends on` allows and users build, one line per configuration.
#
# Each entry is our fragments ($BASE_CONFIG in lib.sh, Rust registry) with one
# change. Matrix kernels build vmlinux only and without debug info (no DWARF,
# no BTF): that halves the build, and none of the options under test depends
# on it. Each has its own build directory (build/kernel-matrix-<name>), so a
# second run is incremental. CONFIGS="name ..." picks entries.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
# Each entry has its architecture: x86-64's, or its own (ENTRY_ARCH below).
[ "$ARCH" = x86_64 ] || die "make configs builds each entry for its own architecture; run it without ARCH"

declare -A CHANGE=(
	[ours]=''
	[no-bpf-syscall]='# CONFIG_BPF_SYSCALL is not set'
	[no-modules]='# CONFIG_MODULES is not set'
	[no-bpf-jit]='# CONFIG_BPF_JIT is not set'
	[no-kallsyms-all]='# CONFIG_KALLSYMS_ALL is not set'
	[no-kunit]='# CONFIG_KUNIT is not set'
	[no-iter-sections]=$'# CONFIG_KPROBES is not set\n# CONFIG_FTRACE is not set\n# CONFIG_DEBUG_FS is not set\n# CONFIG_KALLSYMS_QUERY is not set'
	[no-rust]='# CONFIG_RUST is not set'
	[no-initrd]='# CONFIG_BLK_DEV_INITRD is not set'
	[cfi]=$'CONFIG_CFI=y\nCONFIG_CFI_ICALL_NORMALIZE_INTEGERS=y\n# CONFIG_X86_KERNEL_IBT is not set'
	[kdb]=$'CONFIG_KGDB=y\nCONFIG_KGDB_KDB=y'
	# No users or groups: the capability checks are inlines that grant everything.
	[no-multiuser]=$'CONFIG_EXPERT=y\n# CONFIG_MULTIUSER is not set'
	# Modules that never go: the module loader's unload code is not built.
	[no-module-unload]='# CONFIG_MODULE_UNLOAD is not set'
	# 32-bit callers: /proc/kallsyms gets a compat_ioctl.
	[compat]='CONFIG_IA32_EMULATION=y'
	# Other architectures Rust builds for, cross-built with LLVM: our options
	# with the KUnit suites, compiled for that target (at 32 bits on arm).
	[arm64]=''
	# arm64 with ThinLTO, where C's READ_ONCE() becomes an acquire load (the compiler may break
	# the address dependencies readers rely on): the Rust readers' marked loads go through the
	# same C atomics. Matrix entries have no BTF, which RUST does not allow with LTO.
	[arm64-lto]=$'# CONFIG_LTO_NONE is not set\nCONFIG_LTO_CLANG_THIN=y'
	# ARMv7, the 32-bit ARM Rust supports (HAVE_RUST needs CPU_32v7), with its JIT.
	[arm]=$'CONFIG_MMU=y\nCONFIG_ARCH_MULTI_V7=y\n# CONFIG_ARCH_MULTI_V6 is not set\nCONFIG_AEABI=y\nCONFIG_VFP=y'
	[riscv64]=''
	[loongarch64]=''
)
# The architecture (kbuild's ARCH) of each entry; the others are $ARCH's.
declare -A ENTRY_ARCH=([arm64]=arm64 [arm64-lto]=arm64 [arm]=arm [riscv64]=riscv [loongarch64]=loongarch)
# Entries that are also booted, without an initramfs, for their KUnit suites (the registry's,
# the iterator's, KALLSYMS_QUERY's, the latch tree's, the doctests), which run before init:
# the image to build, and QEMU. 32-bit ARM boots in seconds, and its suites are the cheapest
# proof that the code is right at 32 bits.
declare -A KUNIT_IMAGE=([arm]=zImage)
declare -A KUNIT_QEMU=([arm]="qemu-system-arm -machine virt -cpu cortex-a15")
KUNIT_SUITES=(rust_rbtree_latch rust_doctests_kernel bpf_ksym kallsyms_query kallsyms_iter)
ORDER=(ours no-bpf-syscall no-modules no-bpf-jit no-kallsyms-all no-kunit no-iter-sections no-rust
	no-initrd cfi kdb no-multiuser no-module-unload compat arm64 arm64-lto arm riscv64 loongarch64)
# What each entry must have, or the line would claim a build of code that was
# configured out (e.g. RUST dropped because rustc cannot do kCFI).
both='RUST=y BPF_KSYM_RUST=y KALLSYMS_QUERY=y'
declare -A REQUIRE=(
	[ours]="$both BPF_KSYM_KUNIT_TEST=y KALLSYMS_QUERY_KUNIT_TEST=y RUST_KERNEL_DOCTESTS=y
		KALLSYMS_ITER_KUNIT_TEST=y KALLSYMS_ITER_C_REFERENCE=y"
	[no-bpf-syscall]="$both"
	[no-modules]="$both"
	[no-bpf-jit]='RUST=y BPF_KSYM_RUST=n KALLSYMS_QUERY=y'
	[no-kallsyms-all]="$both"
	[no-kunit]="$both BPF_KSYM_KUNIT_TEST=n"
	[no-iter-sections]='RUST=y BPF_KSYM_RUST=y KALLSYMS_QUERY=n KALLSYMS_ITER_C_REFERENCE=n'
	[no-rust]='BPF_KSYM_RUST=n KALLSYMS_QUERY=n BPF_JIT=y'
	[no-initrd]="$both BPF_KSYM_BENCH=y"
	[cfi]="$both CFI=y"
	# kdb's symbol walk steps the Rust iterator (kallsyms_iter_update).
	[kdb]="$both KGDB_KDB=y"
	[no-multiuser]="$both BPF_KSYM_KUNIT_TEST=y KALLSYMS_QUERY_KUNIT_TEST=y"
	[no-module-unload]="$both MODULES=y"
	[compat]="$both COMPAT=y"
)
for n in "${!ENTRY_ARCH[@]}"; do
	REQUIRE[$n]="$both BPF_JIT=y BPF_KSYM_KUNIT_TEST=y KALLSYMS_QUERY_KUNIT_TEST=y
		KALLSYMS_ITER_KUNIT_TEST=y KALLSYMS_ITER_C_REFERENCE=y BPF_KSYM_BENCH=y"
done
REQUIRE[arm]+=" CPU_32v7=y"
REQUIRE[arm64-lto]+=" LTO_CLANG_THIN=y"
read -r -a names <<<"${CONFIGS:-${ORDER[*]}}"
for n in "${names[@]}"; do
	[ -n "${CHANGE[$n]+set}" ] || die "unknown configuration '$n' (known: ${ORDER[*]})"
done

# What each line reports: the options of this work, as olddefconfig left them.
OURS=(BPF_KSYM_RUST BPF_KSYM_KUNIT_TEST KALLSYMS_QUERY KALLSYMS_QUERY_KUNIT_TEST RUST_KERNEL_DOCTESTS
	KALLSYMS_ITER_C KALLSYMS_ITER_C_REFERENCE KALLSYMS_ITER_KUNIT_TEST)
value() { grep -E "^CONFIG_$1=" "$2" | cut -d= -f2- || echo n; }

# kunit NAME OUT: boot entry NAME's kernel to its KUnit results; append what ran to $line_kunit.
kunit() {
	local n=$1 out=$2 image suite cases
	image=$out/arch/${ENTRY_ARCH[$n]}/boot/${KUNIT_IMAGE[$n]}
	mk "${KUNIT_IMAGE[$n]}" >>"$out/build.log" 2>&1 || return 1
	command -v "${KUNIT_QEMU[$n]%% *}" >/dev/null || apt_ensure qemu-system-arm
	# No initramfs: the suites run at boot, then the kernel finds no init and panics.
	# shellcheck disable=SC2086 # KUNIT_QEMU is a command line
	timeout 600 ${KUNIT_QEMU[$n]} -smp 2 -m 1G -nographic -no-reboot -kernel "$image" \
		-append "console=ttyAMA0 panic=-1" </dev/null 2>&1 | tr -d '\r' >"$out/kunit.log" || true
	if grep -qE '^\s*not ok [0-9]+ ' "$out/kunit.log"; then
		grep -E '^\s*not ok [0-9]+ ' "$out/kunit.log" >&2
		return 1
	fi
	for suite in "${KUNIT_SUITES[@]}"; do
		grep -qE "^ok [0-9]+ $suite\$" "$out/kunit.log" || { echo "$suite did not run" >&2; return 1; }
	done
	cases=$(grep -cE '^    (    )?ok [0-9]+ ' "$out/kunit.log")
	line_kunit=" KUnit at boot: the ${#KUNIT_SUITES[@]} suites ran, all $cases cases ok or skipped"
}

results=()
failed=0
for n in "${names[@]}"; do
	out=$BUILD/kernel-matrix-$n
	mkdir -p "$out"
	frag=$out/matrix.config change=$out/change.config
	printf '%s\n' "${CHANGE[$n]}" >"$change"
	{
		printf 'CONFIG_BPF_KSYM_RUST=y\nCONFIG_BPF_KSYM_KUNIT_TEST=y\n'
		printf 'CONFIG_KALLSYMS_ITER_KUNIT_TEST=y\nCONFIG_KALLSYMS_ITER_C_REFERENCE=y\n'
		printf '# CONFIG_DEBUG_INFO_DWARF5 is not set\nCONFIG_DEBUG_INFO_NONE=y\n'
		cat "$change"
	} >"$frag"
	# Another architecture's entry: our fragments, that architecture's own if it has one.
	karch=$KARCH base=("${BASE_CONFIG[@]}")
	if [ -n "${ENTRY_ARCH[$n]+set}" ]; then
		karch=${ENTRY_ARCH[$n]}
		base=("$ROOT/config/bpf_ksym.config" "$ROOT/tools/testing/selftests/bpf_ksym/config")
		[ -f "$ROOT/config/arch/$n.config" ] && base+=("$ROOT/config/arch/$n.config")
	fi
	step "configs: $n (ARCH=$karch, log $out/build.log)"
	t0=$(date +%s)
	mk() { make -C "$BUILD/src" O="$out" ARCH="$karch" LLVM=-"$LLVM_VER" -j"$(nproc)" "$@"; }
	status=built
	if ! { mk tinyconfig &&
		KCONFIG_CONFIG="$out/.config" "$BUILD/src/scripts/kconfig/merge_config.sh" -m -O "$out" \
			"$out/.config" "${base[@]}" "$frag" &&
		mk olddefconfig; } >"$out/build.log" 2>&1; then
		status="FAILED to configure"
	fi
	# The change itself must have survived olddefconfig, or the line would lie.
	while IFS= read -r line; do
		case "$line" in
		CONFIG_*=*) opt=${line%%=*}; want=${line#*=} ;;
		'# CONFIG_'*' is not set') opt=${line#\# }; opt=${opt%% *}; want=n ;;
		*) continue ;;
		esac
		have=$(value "${opt#CONFIG_}" "$out/.config")
		[ "$have" = "$want" ] || status="FAILED: $opt=$want was dropped by olddefconfig"
	done <"$change"
	for req in ${REQUIRE[$n]}; do
		have=$(value "${req%%=*}" "$out/.config")
		[ "$have" = "${req#*=}" ] || status="FAILED: needs ${req%%=*}=${req#*=}, config has $have"
	done
	if [ "$status" = built ]; then
		# A line every 30 s with the build's last line (V=1: the whole output).
		if ! logged "$out/build.log" last_line mk vmlinux; then
			# The bindings' dep file race (see build-kernel.sh): once more.
			logged "$out/build.log" last_line mk vmlinux ||
				status="FAILED to build (see $out/build.log)"
		fi
	fi
	if [ "$status" = built ] && [ -n "${KUNIT_IMAGE[$n]:-}" ]; then
		kunit "$n" "$out" || status="FAILED: KUnit (see $out/kunit.log)"
	fi
	[ "$status" = built ] || failed=1
	opts=""
	for o in "${OURS[@]}"; do opts+=" $o=$(value "$o" "$out/.config")"; done
	line=$(printf '%-16s %-10s %5ss %s%s' "$n" "$status" $(($(date +%s) - t0)) "$opts" \
		"${line_kunit:-}")
	line_kunit=
	[ "$status" = built ] || line=$(printf '%-16s %s' "$n" "$status")
	results+=("$line")
	note "$line"
	[ "$status" = built ] || grep -E -m20 '(error|Error)[: ]' "$out/build.log" >&2 || true
done

echo "== configs ($(date -u +%Y-%m-%d), $(nproc) cpus): name, result, build time, options"
printf '%s\n' "${results[@]}"
[ $failed = 0 ] || die "a configuration did not build; see its build.log"
