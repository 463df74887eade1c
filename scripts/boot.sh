#!/usr/bin/env bash
# Boot the $BPF_KSYM kernel under QEMU (TCG) with the test initramfs.
#   boot.sh test|run  -- run unattended, log to $BUILD/guest-<variant>-<mode>.log
#   boot.sh shell     -- interactive guest shell on this terminal
set -euo pipefail
. "$(dirname "$0")/lib.sh"

mode=${1:-test}
kernel=$KOUT/arch/x86/boot/bzImage
[ -f "$kernel" ] || die "no kernel at $kernel: run 'make build BPF_KSYM=$BPF_KSYM${EXTRA_CONFIG:+ EXTRA_CONFIG=$EXTRA_CONFIG}'"
# Test boots also run the in-kernel benchmark briefly: its answers are checked.
[ "$mode" = test ] && GUEST_CMDLINE="bpf_ksym_bench.max_n=1000 bpf_ksym_bench.lookups=10000 ${GUEST_CMDLINE:-}"
# KASAN kernels boot with 4-level paging: QEMU's "max" CPU has LA57, and in
# 7.3 identify_cpu() zeroes boot_cpu_data's capabilities (LA57 included) with
# interrupts on, so an interrupt in that window sees KASAN's shadow bounds
# for 47-bit addresses and reports its own 5-level direct-map pointer as a
# "wild-memory-access" (Documentation/bpf/bpf_ksym.rst, Reliability tests).
grep -qx CONFIG_KASAN=y "$KOUT/.config" && GUEST_CMDLINE="no5lvl ${GUEST_CMDLINE:-}"
# KVM does not work on these machines; TCG does (see README).
qemu=(qemu-system-x86_64 -accel tcg -cpu max -smp 2 -m "${GUEST_MEM:-2G}" -nographic -no-reboot
	-kernel "$kernel" -initrd "$BUILD/initramfs-$FLAVOR.cpio.gz"
	-append "console=ttyS0 panic=-1 oops=panic ksym_mode=$mode ksym_registry=$FLAVOR ${GUEST_CMDLINE:-}")
# shellcheck disable=SC2206 # QEMU_EXTRA is a list of options
[ -n "${QEMU_EXTRA:-}" ] && qemu+=($QEMU_EXTRA)

if [ "$mode" = shell ]; then
	step "booting $BPF_KSYM kernel to a guest shell (Ctrl-A X quits QEMU)"
	exec "${qemu[@]}"
fi

log=$BUILD/guest-$FLAVOR-$mode.log
limit=${GUEST_TIMEOUT:-600}
step "booting $FLAVOR kernel under QEMU/TCG (mode $mode, timeout ${limit}s)"
rc=0
: >"$log"
# logged: a line every 30 s with the count of test results so far (V=1: the whole console).
logged "$log" test_results timeout --foreground -k 5 "$limit" "${qemu[@]}" </dev/null || rc=$?
[ $rc = 124 ] && echo "guest: TIMEOUT after ${limit}s" >>"$log"
note "guest log: $log"
