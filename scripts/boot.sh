#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
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
case $mode in fuzz | faults | soak | stress | run | text-patch) GUEST_CMDLINE="kunit.enable=0 ${GUEST_CMDLINE:-}" ;; esac
# KASAN kernels boot with 4-level paging: QEMU's "max" CPU has LA57, and in
# 7.3 identify_cpu() zeroes boot_cpu_data's capabilities (LA57 included) with
# interrupts on, so an interrupt in that window sees KASAN's shadow bounds
# for 47-bit addresses and reports its own 5-level direct-map pointer as a
# "wild-memory-access" (Documentation/bpf/bpf_ksym.rst, Reliability tests).
[ "$ARCH" = x86_64 ] && grep -qx CONFIG_KASAN=y "$KOUT/.config" && GUEST_CMDLINE="no5lvl ${GUEST_CMDLINE:-}"
# KVM where it boots this kernel. A /dev/kvm can fail in two ways seen on test hosts: QEMU
# aborts setting MSR 0x10a on a host-model vCPU, or (a VM without nested VMX/SVM) the
# firmware runs but the kernel never prints a line and QEMU spins at 100 % CPU until the
# boot's timeout. So the probe boots this kernel under KVM as the test boot does (two vCPUs)
# but without an initramfs, and waits KVM_PROBE_S seconds for it to get as far as mounting
# its root file system (the panic without one; a second or two under working KVM). Its answer
# is kept until the host reboots ($CACHE/kvm-probe, keyed by the host's boot_id, the QEMU
# binary and the kernel). GUEST_ACCEL=tcg skips the probe; KVM_DEVICE (default /dev/kvm) is
# for the probe's tests.
kvm_boots() {
	local dev=${KVM_DEVICE:-/dev/kvm} limit=${KVM_PROBE_S:-20} qemu key memo out pid rc=1 i
	local booted='VFS: Unable to mount root'
	if ! [ -c "$dev" ] || ! [ -r "$dev" ] || ! [ -w "$dev" ]; then
		why="no usable $dev"
		return 1
	fi
	qemu=$(command -v "${QEMU:-qemu-system-x86_64}") || { why="no ${QEMU:-qemu-system-x86_64}"; return 1; }
	key="$(cat /proc/sys/kernel/random/boot_id) $qemu $(stat -c '%s %Y' "$kernel")"
	memo=$CACHE/kvm-probe
	if [ -f "$memo" ] && [ "$(head -n 1 "$memo")" = "$key" ]; then
		why=$(sed -n 3p "$memo")
		[ "$(sed -n 2p "$memo")" = yes ]
		return
	fi
	out=$(mktemp)
	note "probing KVM: booting the kernel under KVM for up to ${limit}s (once per kernel and host boot)"
	timeout -k 1 "$((limit + 5))" "$qemu" -accel kvm -cpu host -machine pc -smp 2 -m 512 \
		-display none -nodefaults -no-reboot -serial file:"$out" -kernel "$kernel" \
		-append "earlyprintk=serial,ttyS0,115200 console=ttyS0 panic=-1 kunit.enable=0" \
		</dev/null >/dev/null 2>&1 &
	pid=$!
	why="the kernel did not get to mounting its root file system within ${limit}s under KVM"
	# Quiet: bash would report QEMU's abort (SIGABRT) on a host where it cannot run the vCPU.
	{
		for ((i = 0; i < limit * 10; i++)); do
			if grep -qa "$booted" "$out"; then rc=0 why=; break; fi
			if ! kill -0 "$pid" 2>/dev/null; then
				why="QEMU could not run a KVM guest"
				grep -qa "$booted" "$out" && rc=0 why=
				break
			fi
			sleep 0.1
		done
		# TERM: timeout passes it on to QEMU (and kills it a second later if need be).
		kill "$pid" || true
		wait "$pid" || true
	} 2>/dev/null
	rm -f "$out"
	mkdir -p "$CACHE"
	printf '%s\n%s\n%s\n' "$key" "$([ $rc = 0 ] && echo yes || echo no)" "$why" >"$memo.$$"
	mv "$memo.$$" "$memo"
	return "$rc"
}
# The benchmarks' figures are TCG's (bench.py's icount mode needs it): they keep it.
# TCG_THREAD=single runs every vCPU on one host thread (make repro-text-patch's control).
accel=(-accel "tcg${TCG_THREAD:+,thread=$TCG_THREAD}" -cpu max) accel_name=TCG
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
	elif kvm_boots; then accel=(-accel kvm -cpu host) accel_name=KVM why=
	fi
	;;
esac
# The machine and its console: the PC's first serial port, the virt board's PL011.
# QEMU=<path> boots with another build of qemu-system-x86_64.
machine=("${QEMU:-qemu-system-x86_64}") console=ttyS0
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
