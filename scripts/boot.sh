#!/usr/bin/env bash
# Boot the $BPF_KSYM kernel under QEMU (KVM where it works, else TCG) with the test initramfs.
#   boot.sh test|run  -- run unattended, log to $BUILD/guest-<variant>-<mode>.log
#   boot.sh shell     -- interactive guest shell on this terminal
# The benchmarks' boots (modes bench*, and -icount in QEMU_EXTRA) always use TCG.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

mode=${1:-test}
kernel=$KOUT/$KIMAGE
arch_arg=
[ "$ARCH" = x86_64 ] || arch_arg=" ARCH=$ARCH"
[ -f "$kernel" ] || die "no kernel at $kernel: run 'make build BPF_KSYM=$BPF_KSYM${EXTRA_CONFIG:+ EXTRA_CONFIG=$EXTRA_CONFIG}$arch_arg'"
# Test boots also run the in-kernel benchmark briefly: its answers are checked.
[ "$mode" = test ] && GUEST_CMDLINE="bpf_ksym_bench.max_n=1000 bpf_ksym_bench.lookups=10000 ${GUEST_CMDLINE:-}"
# The test boot runs the built-in KUnit suites and counts them; the fuzz, fault, soak and
# demo boots of the same kernel would only run them again (minutes on a KASAN kernel under TCG).
case $mode in fuzz | faults | soak | run) GUEST_CMDLINE="kunit.enable=0 ${GUEST_CMDLINE:-}" ;; esac
# KASAN kernels boot with 4-level paging: QEMU's "max" CPU has LA57, and in
# 7.3 identify_cpu() zeroes boot_cpu_data's capabilities (LA57 included) with
# interrupts on, so an interrupt in that window sees KASAN's shadow bounds
# for 47-bit addresses and reports its own 5-level direct-map pointer as a
# "wild-memory-access" (Documentation/bpf/bpf_ksym.rst, Reliability tests).
[ "$ARCH" = x86_64 ] && grep -qx CONFIG_KASAN=y "$KOUT/.config" && GUEST_CMDLINE="no5lvl ${GUEST_CMDLINE:-}"
# KVM where /dev/kvm is there and works. Some hosts have a /dev/kvm that QEMU cannot run a
# host-model vCPU on (docs/testing.md: on its machines QEMU aborts setting MSR 0x10a), so a vCPU
# with these flags must first run the firmware's first instructions (SeaBIOS's banner on
# its debug port), a fraction of a second. GUEST_ACCEL=tcg skips the probe.
kvm_works() {
	[ -c /dev/kvm ] && [ -r /dev/kvm ] && [ -w /dev/kvm ] || return 1
	local fw rc=1 pid
	fw=$(mktemp)
	timeout 10 qemu-system-x86_64 -accel kvm -cpu host -machine pc -m 64 -display none -nodefaults \
		-chardev file,id=fw,path="$fw" -device isa-debugcon,iobase=0x402,chardev=fw \
		</dev/null >/dev/null 2>&1 &
	pid=$!
	for _ in $(seq 50); do
		if grep -q '^SeaBIOS' "$fw"; then rc=0; break; fi
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.1
	done
	kill "$pid" 2>/dev/null || true
	wait "$pid" 2>/dev/null || true
	rm -f "$fw"
	return "$rc"
}
# The benchmarks' figures are TCG's (bench.py's icount mode needs it): they keep it.
accel=(-accel tcg -cpu max) accel_name=TCG
case "$ARCH:$mode" in
arm64:*)
	# An arm64 guest on this x86-64 host: TCG always. -cpu max has pointer authentication
	# (PAC); QEMU's own cheaper algorithm for it keeps the emulation fast.
	# shellcheck disable=SC2054 # -cpu's argument is one word with commas
	accel=(-accel tcg -cpu max,pauth-impdef=on) why="arm64 guest on a $(uname -m) host"
	;;
*:bench*) why="benchmark boot" ;;
*)
	if [[ " ${QEMU_EXTRA:-} " = *" -icount "* ]]; then why="-icount"
	elif [ "${GUEST_ACCEL:-}" = tcg ]; then why="GUEST_ACCEL=tcg"
	elif kvm_works 2>/dev/null; then accel=(-accel kvm -cpu host) accel_name=KVM why=
	else why="no usable /dev/kvm"
	fi
	;;
esac
# The machine and its console: the PC's first serial port, the virt board's PL011.
machine=(qemu-system-x86_64) console=ttyS0
[ "$ARCH" = arm64 ] && machine=(qemu-system-aarch64 -machine virt) console=ttyAMA0
qemu=("${machine[@]}" "${accel[@]}" -smp 2 -m "${GUEST_MEM:-2G}" -nographic -no-reboot
	-kernel "$kernel" -initrd "$BUILD/initramfs-$FLAVOR.cpio.gz"
	-append "console=$console panic=-1 oops=panic ksym_mode=$mode ksym_registry=$FLAVOR ${GUEST_CMDLINE:-}")
# shellcheck disable=SC2206 # QEMU_EXTRA is a list of options
[ -n "${QEMU_EXTRA:-}" ] && qemu+=($QEMU_EXTRA)

if [ "$mode" = shell ]; then
	step "booting $BPF_KSYM kernel to a guest shell (Ctrl-A X quits QEMU)"
	note "accelerator: $accel_name${why:+ ($why)}"
	exec "${qemu[@]}"
fi

log=$BUILD/guest-$FLAVOR-$mode.log
limit=${GUEST_TIMEOUT:-600}
step "booting $FLAVOR kernel under QEMU/$accel_name (mode $mode, timeout ${limit}s)"
note "accelerator: $accel_name${why:+ ($why)}"
rc=0
: >"$log"
# logged: a line every 30 s with the count of test results so far (V=1: the whole console).
logged "$log" test_results timeout --foreground -k 5 "$limit" "${qemu[@]}" </dev/null || rc=$?
[ $rc = 124 ] && echo "guest: TIMEOUT after ${limit}s" >>"$log"
note "guest log: $log"
