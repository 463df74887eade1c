# SPDX-License-Identifier: GPL-2.0
# Shared settings and messages for scripts/*.sh.  Sourced, not run.
# shellcheck shell=bash

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
KVER=${KVER:-7.3}
# Downloads survive a fresh clone: they live outside the checkout.
# shellcheck disable=SC2034 # used by the scripts that source this file
CACHE=${BPF_KSYM_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/bpf_ksym}
# Trees, objects, initramfs and guest logs: $BPF_KSYM_BUILD (the Makefile passes it;
# .ci/run points it at $CACHE/ci-build), else build/ in the checkout.
BUILD=$(realpath -m "${BPF_KSYM_BUILD:-$ROOT/build}")
export PATH="$HOME/.cargo/bin:$PATH"

# The overlay (scripts/overlay.map): the repository's kernel folders, and where each lands in
# the kernel tree.
overlay_map() { sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$ROOT/scripts/overlay.map"; }
overlay_dirs() { overlay_map | awk '{ print $1 }'; }
# Paths on stdin, one a line, from the repository's to the tree's (to_tree) or back (to_repo).
to_tree() { sed -f <(overlay_map | awk '$1 != $2 { printf "s|^%s/|%s/|\nt\n", $1, $2 }'); }
to_repo() { sed -f <(overlay_map | awk '$1 != $2 { printf "s|^%s/|%s/|\nt\n", $2, $1 }'); }
# The overlay's files under the repository paths given (folders or files), one a line:
# tools/blazesym is blazesym's (userspace, patched by tools/blazesym/patch.sh), not the kernel's.
overlay_files() {
	(cd "$ROOT" && find "$@" \( -name target -o -path tools/blazesym \) -prune -o -type f ! -name '.*' -print)
}
# Copy the repository files named on stdin (repository paths, one a line) into the tree at DIR,
# each where the overlay puts it, keeping their times.
overlay_copy() {
	local dir=$1 from to
	while IFS= read -r from; do
		to=$(to_tree <<<"$from")
		mkdir -p "$dir/$(dirname "$to")"
		cp -p "$ROOT/$from" "$dir/$to"
	done
}

step() { printf '\033[1m==> %s\033[0m\n' "$*" >&2; }
note() { printf '    %s\n' "$*" >&2; }
die() { printf 'error: %s\n' "$*" >&2; exit 1; }

# Run a stage and print how long it took.
timed() {
	local name=$1 t0 rc=0
	shift
	t0=$(date +%s)
	"$@" || rc=$?
	printf '    [%s: %ss]\n' "$name" $(($(date +%s) - t0)) >&2
	return $rc
}

# Heartbeats for the long stages (kernel build, guest boots), so that a quiet terminal
# still shows progress. heartbeat PID LOG SUMMARY: while PID runs, every ${HEARTBEAT:-30}
# seconds print the time since the start and what the function SUMMARY says of LOG (one
# line); it returns within a second of PID's end, or at once on SIGTERM, and leaves no
# process behind. logged (below) runs it; the summaries are last_line and test_results.
heartbeat() {
	local pid=$1 log=$2 summary=$3 every=${HEARTBEAT:-30} t0=$SECONDS rc
	# shellcheck disable=SC2046 # jobs -p: this watcher's own timeout, if any
	trap 'kill $(jobs -p) 2>/dev/null; exit 0' TERM
	while :; do
		# tail --pid returns when PID has ended (it looks every second), timeout after $every.
		# Its output goes nowhere: a TERM that reaches timeout before it has recorded its child
		# leaves tail behind, watching PID, which stays a zombie until whoever reads this
		# script's output (a pipe that tail would hold open) has read to its end.
		rc=0
		timeout "$every" tail --pid="$pid" -f /dev/null </dev/null >/dev/null 2>&1 &
		wait $! || rc=$?
		[ "$rc" = 124 ] || return 0
		note "... $(elapsed $((SECONDS - t0))): $("$summary" "$log" 2>/dev/null || true)"
	done
}
elapsed() {
	if (($1 >= 60)); then printf '%dm%02ds' $(($1 / 60)) $(($1 % 60)); else printf '%ds' "$1"; fi
}
# What a heartbeat says of a log: its last line (a kernel build's), or how many test
# results a guest has printed so far: the "ok N ..." and "not ok N ..." lines results.py
# counts (KUnit cases, indented by 4, after the console's timestamp; kselftest cases, after
# the runner's "# "; the runner's line per program), and test_progs' "#N name:OK|FAIL|SKIP"
# (upstream.py's).
last_line() { tail -n 1 "$1" | tr -d '\r' | cut -c1-120; }
test_results() {
	local tap='^(\[ *[0-9]+\.[0-9]+\] ?)?( {4}|# )?' progs='^#[0-9]+(/[0-9]+)?[[:space:]]+[^[:space:]].*:' all bad
	local progress
	all=$(grep -cE "$tap(not )?ok [0-9]+ |$progs(OK|FAIL|SKIP)\b" "$1" || true)
	bad=$(grep -cE "${tap}not ok [0-9]+ |${progs}FAIL\b" "$1" || true)
	# A long test's own progress lines (soak_test's, once a minute), the last one.
	progress=$(grep -E '^(\[ *[0-9]+\.[0-9]+\] ?)?# SOAK minute=' "$1" | tail -n 1 | tr -d '\r' |
		sed 's/^.*# SOAK //' | cut -c1-160 || true)
	echo "${all:-0} test results so far (${bad:-0} failed)${progress:+; $progress}"
}

# logged LOG SUMMARY CMD...: run CMD in the foreground (signals reach it as before), its
# stdout and stderr appended to LOG, with a heartbeat on stderr that says SUMMARY of LOG.
# V=1 (make V=1) streams CMD's output to stderr as well, instead of the heartbeats.
# Returns CMD's exit status.
logged() {
	local log=$1 summary=$2 rc=0 hb prev=() shell=$BASHPID
	shift 2
	if [ "${V:-0}" != 0 ] && [ -n "${V:-}" ]; then
		"$@" 2>&1 | tee -a "$log" >&2 || rc=${PIPESTATUS[0]}
		return "$rc"
	fi
	heartbeat "$shell" "$log" "$summary" &
	hb=$!
	# Stop the watcher however this shell exits, then do what the EXIT trap did before.
	eval "prev=($(trap -p EXIT))"
	# shellcheck disable=SC2064 # $hb and the old action, now
	trap "kill $hb 2>/dev/null; ${prev[2]:-}" EXIT
	"$@" >>"$log" 2>&1 || rc=$?
	kill "$hb" 2>/dev/null || true
	wait "$hb" 2>/dev/null || true
	if [ -n "${prev[2]:-}" ]; then trap -- "${prev[2]}" EXIT; else trap - EXIT; fi
	return "$rc"
}

# LLVM 22 matches rustc 1.95's LLVM, which CONFIG_RUST_INLINE_HELPERS needs.
LLVM_VER=${LLVM_VER:-22}
export LIBCLANG_PATH=/usr/lib/llvm-$LLVM_VER/lib
# Registry variant: rust (CONFIG_BPF_KSYM_RUST=y) or c (=n).
BPF_KSYM=${BPF_KSYM:-rust}
case "$BPF_KSYM" in rust|c) ;; *) die "BPF_KSYM must be rust or c, not '$BPF_KSYM'" ;; esac
# ARCH=arm64: the same tree cross-built with LLVM for another architecture, booted
# under its QEMU. x86_64 (the default) is this machine's. Per architecture: kbuild's
# ARCH, the image it boots, clang's target triple (user space) and Debian's name.
ARCH=${ARCH:-x86_64}
# shellcheck disable=SC2034 # used by the scripts that source this file
case "$ARCH" in
x86_64 | x86)
	ARCH=x86_64 KARCH=x86 KIMAGE=arch/x86/boot/bzImage TRIPLE=x86_64-linux-gnu DEB_ARCH=amd64
	;;
arm64 | aarch64)
	ARCH=arm64 KARCH=arm64 KIMAGE=arch/arm64/boot/Image TRIPLE=aarch64-linux-gnu DEB_ARCH=arm64
	;;
*) die "ARCH must be x86_64 or arm64, not '$ARCH' (make configs builds the others)" ;;
esac
# shellcheck disable=SC2034 # used by the scripts that source this file
RUST_TRIPLE=${TRIPLE/-linux-/-unknown-linux-}
# x86_only WHAT: WHAT (a target) is built for x86-64 alone; refuse another ARCH.
x86_only() {
	[ "$ARCH" = x86_64 ] || die "$1 runs on x86-64 only; run it without ARCH=$ARCH"
}
# Another architecture's guest programs from Debian, unpacked (install-deps-arch.sh).
# shellcheck disable=SC2034
SYSROOT=$CACHE/sysroot-$DEB_ARCH
# Its user programs, ours, are linked statically by clang and lld, for C (CROSS_CC) and
# for cargo (the target's linker and flags, which cargo reads from the environment).
if [ "$ARCH" != x86_64 ]; then
	# shellcheck disable=SC2034
	CROSS_CC="clang-${LLVM_VER:-22} --target=$TRIPLE -fuse-ld=lld -static"
	cargo_env=${RUST_TRIPLE//-/_}
	export "CARGO_TARGET_${cargo_env^^}_LINKER=clang-${LLVM_VER:-22}"
	export "CARGO_TARGET_${cargo_env^^}_RUSTFLAGS=-C link-arg=--target=$TRIPLE -C link-arg=-fuse-ld=lld -C target-feature=+crt-static"
fi
# EXTRA_CONFIG=<name> adds config/<name>.config; kernel, initramfs and guest logs
# of that flavour get names of their own ($BUILD/kernel-rust-debug, ...), and so
# do another architecture's ($BUILD/kernel-rust-arm64, kernel-rust-arm64-debug).
FLAVOR=$BPF_KSYM
[ "$ARCH" = x86_64 ] || FLAVOR=$FLAVOR-$ARCH
FLAVOR=$FLAVOR${EXTRA_CONFIG:+-$EXTRA_CONFIG}
KOUT=$BUILD/kernel-$FLAVOR
# Our kernel config: the harness's fragment, its architecture's, and what the selftests need.
# shellcheck disable=SC2034 # used by the scripts that source this file
BASE_CONFIG=("$ROOT/config/bpf_ksym.config" "$ROOT/config/arch/$ARCH.config"
	"$ROOT/tools/testing/selftests/bpf_ksym/config")
# CLIPPY=1: every Rust object is compiled by clippy-driver (rustc plus clippy's lint passes),
# so every build lints our crates. -Dwarnings makes a warning fail the object: in an
# incremental build an object that only warned would not be compiled (nor warn) again.
# Another architecture's user programs (samples/) link with lld, statically: the
# host's ld knows only x86, and the guest has no shared libraries for them.
kmake() {
	local user=()
	[ "$ARCH" = x86_64 ] || user=(USERLDFLAGS="-fuse-ld=lld -static")
	make -C "$BUILD/src" O="$KOUT" ARCH="$KARCH" LLVM=-"$LLVM_VER" CLIPPY=1 KRUSTFLAGS=-Dwarnings \
		"${user[@]}" -j"$(nproc)" "$@"
}

# Compiled C objects are cached outside the checkout, as the sources are: a new
# build directory whose sources did not change gets its kernels' C objects in
# minutes. ccache stands in for clang-$LLVM_VER on PATH, so the compiler's command
# lines, which kbuild records, stay the same. No base_dir: it would rewrite the
# paths kbuild's -fmacro-prefix-map strips (__FILE__ in WARN and BUG) and DWARF's.
export CCACHE_DIR=${CCACHE_DIR:-$CACHE/ccache}
export CCACHE_MAXSIZE=${CCACHE_MAXSIZE:-10G}
if command -v ccache >/dev/null; then
	mkdir -p "$CACHE/ccache-bin"
	ln -sfn "$(command -v ccache)" "$CACHE/ccache-bin/clang-$LLVM_VER"
	export PATH="$CACHE/ccache-bin:$PATH"
fi

# apt_ensure PKG...: install with apt the packages that are not installed yet (root
# only then); say so in one line either way.
apt_ensure() {
	local p absent=()
	for p in "$@"; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' ||
			absent+=("$p")
	done
	if [ ${#absent[@]} = 0 ]; then
		note "apt: all $# packages present"
		return 0
	fi
	[ "$(id -u)" = 0 ] ||
		die "installing packages needs root; re-run as root or install: ${absent[*]}"
	step "apt: installing ${absent[*]}"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -q >/dev/null || die "apt-get update failed; run it to see why"
	apt-get install -y -q --no-install-recommends "${absent[@]}" >/dev/null ||
		die "apt-get install failed; run 'apt-get install ${absent[*]}' to see why"
}

# install_programs ROOT PATH...: put each program (unless ROOT has it already) and
# every library ldd says it loads into the initramfs tree ROOT, at the same paths.
install_programs() {
	local root=$1 bin lib
	shift
	for bin in "$@"; do
		[ -f "$root$bin" ] || cp "$bin" "$root$bin"
		ldd "$root$bin" | grep -oE '/[^ ]+' | while read -r lib; do
			mkdir -p "$root$(dirname "$lib")"
			cp -L "$lib" "$root$lib"
		done
	done
}

# install_sysroot_programs ROOT PATH...: as install_programs, for another architecture,
# whose programs ldd cannot load: each from $SYSROOT, and the libraries their ELF
# headers need (NEEDED, recursively) from $SYSROOT's multiarch directories, to the
# guest's (its loader searches /lib/$TRIPLE and /usr/lib/$TRIPLE), and the loader itself.
install_sysroot_programs() {
	local root=$1 todo=() copied=" " f lib dir found interp
	shift
	for f in "$@"; do
		[ -f "$SYSROOT$f" ] || die "no $f in $SYSROOT (scripts/install-deps-arch.sh)"
		mkdir -p "$root$(dirname "$f")"
		cp -L "$SYSROOT$f" "$root$f"
		todo+=("$root$f")
		interp=$(readelf -l "$SYSROOT$f" | sed -n 's/.*interpreter: \(.*\)]$/\1/p')
		if [ -n "$interp" ] && [ ! -f "$root$interp" ]; then
			mkdir -p "$root$(dirname "$interp")"
			cp -L "$SYSROOT$interp" "$root$interp"
		fi
	done
	mkdir -p "$root/usr/lib/$TRIPLE"
	while [ ${#todo[@]} -gt 0 ]; do
		f=${todo[0]}
		todo=("${todo[@]:1}")
		for lib in $(readelf -d "$f" | sed -n 's/.*(NEEDED).*\[\(.*\)\]$/\1/p'); do
			[[ $copied = *" $lib "* ]] && continue
			copied+="$lib "
			found=
			for dir in lib/"$TRIPLE" usr/lib/"$TRIPLE" lib usr/lib; do
				[ -e "$SYSROOT/$dir/$lib" ] && { found=$SYSROOT/$dir/$lib; break; }
			done
			[ -n "$found" ] || die "$f needs $lib, which is not in $SYSROOT"
			[ -f "$root/usr/lib/$TRIPLE/$lib" ] || cp -L "$found" "$root/usr/lib/$TRIPLE/$lib"
			todo+=("$root/usr/lib/$TRIPLE/$lib")
		done
	done
}
