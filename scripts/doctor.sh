#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# `make doctor`: what this machine has and lacks for `make run` and `make test`, and what
# they would install. Installs nothing, writes nothing, needs no root; takes seconds. The
# model is the kernel's `make rustavailable`. Exits 1 if something `make run` cannot
# install itself is missing (not Debian 12, no rustup, too little disk), else 0.
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
export PATH="$HOME/.cargo/bin:$PATH"
CACHE=${BPF_KSYM_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/bpf_ksym}
BUILD=$(realpath -m "${BPF_KSYM_BUILD:-$ROOT/build}")
KVER=${KVER:-7.3}
LLVM_VER=${LLVM_VER:-22}
RUST_WANT=1.95

blockers=0 installs=() root_needed=0
ok() { printf '  ok    %-22s %s\n' "$1" "$2"; }
todo() { printf '  make  %-22s %s\n' "$1" "$2"; installs+=("$3"); }
bad() { printf '  NO    %-22s %s\n' "$1" "$2"; blockers=$((blockers + 1)); }
info() { printf '  info  %-22s %s\n' "$1" "$2"; }

echo "bpf_ksym doctor: what make run and make test need here (nothing is installed)"

# shellcheck disable=SC1091 # the machine's own file
distro=$(. /etc/os-release 2>/dev/null && echo "${PRETTY_NAME:-unknown}")
version=$(. /etc/os-release 2>/dev/null && echo "${ID:-}-${VERSION_ID:-}")
if [ "$version" = debian-12 ]; then
	ok distribution "$distro"
else
	bad distribution "$distro: the install step knows Debian 12 (bookworm) only; install the packages of scripts/install-deps.sh by hand"
fi
if [ "$(uname -m)" = x86_64 ]; then
	ok architecture x86_64
else
	bad architecture "$(uname -m): the build host must be x86-64"
fi

if [ "$(id -u)" = 0 ]; then
	ok user "root"
else
	info user "$(id -un): make run installs packages as root; with them all present it needs none"
fi

if command -v rustup >/dev/null; then
	have=$(rustc --version 2>/dev/null | awk '{print $2}')
	case "$have" in
	"$RUST_WANT".*) ok rustc "$have (rustup)" ;;
	*) bad rustc "${have:-none}: the kernel build wants rustup's Rust $RUST_WANT (its LLVM is clang-$LLVM_VER's)" ;;
	esac
	comps=$(rustup component list --installed 2>/dev/null)
	missing=()
	for c in rust-src clippy rustfmt; do grep -q "^$c" <<<"$comps" || missing+=("$c"); done
	if [ ${#missing[@]} = 0 ]; then
		ok "rustup components" "rust-src clippy rustfmt"
	else
		todo "rustup components" "would add ${missing[*]}" "rustup component add ${missing[*]}"
	fi
	if command -v bindgen >/dev/null; then
		ok bindgen "$(bindgen --version | awk '{print $2}')"
	else
		todo bindgen "would build bindgen-cli with cargo; how long: docs/testing.md (Times)" "cargo install bindgen-cli"
	fi
else
	bad rustc "no rustup on PATH: install Rust $RUST_WANT with rustup (https://rustup.rs) first"
fi

# The Debian packages install-deps.sh installs: the words of its PKGS=( ... ) list, comments
# dropped; read as text, never run.
read -r -a PKGS <<<"$(sed -n '/^PKGS=(/,/^[[:space:]]*)[[:space:]]*$/{s/#.*//;s/^PKGS=(//;s/^[[:space:]]*)[[:space:]]*$//;p}' \
	"$ROOT/scripts/install-deps.sh" | tr '\n' ' ')"
[ ${#PKGS[@]} -gt 0 ] || bad "Debian packages" "no package list in scripts/install-deps.sh: this checkout is broken"
absent=()
for p in "${PKGS[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || absent+=("$p")
done
if [ ${#absent[@]} = 0 ]; then
	ok "Debian packages" "all ${#PKGS[@]} installed"
else
	todo "Debian packages" "${#absent[@]} of ${#PKGS[@]} missing: ${absent[*]}" \
		"apt-get install ${#absent[@]} packages (root)"
	root_needed=1
fi
for tool in "clang-$LLVM_VER" "ld.lld-$LLVM_VER" qemu-system-x86_64; do
	if command -v "$tool" >/dev/null; then
		ok "$tool" "$("$tool" --version 2>/dev/null | head -n 1 | cut -c1-72)"
	else
		info "$tool" "not yet (one of the packages above)"
	fi
done
if [ -f /etc/apt/sources.list.d/bpf-ksym-trixie-backports.sources ]; then
	ok "apt source" "trixie-backports (linux-source-$KVER only)"
else
	todo "apt source" "would add trixie-backports, NotAutomatic: only linux-source-$KVER comes from it" \
		"add an apt source (root)"
	root_needed=1
fi
if [ -f "$CACHE/linux-$KVER/.complete" ]; then
	ok "kernel source" "$CACHE/linux-$KVER"
else
	todo "kernel source" "would download linux-source-$KVER (about 170 MB) to $CACHE" \
		"download the kernel source"
fi

# Disk, as README.md's Requirements gives it: about 3 GiB in the cache and
# 9 GiB in the build directory, which may be on different filesystems. What
# they hold already counts towards it (a machine that has built needs little
# more); du gets 10 s, or that is not counted.
existing_dir() {
	local d=$1
	while [ ! -d "$d" ]; do d=$(dirname "$d"); done
	echo "$d"
}
held_gib() { # dir...: the GiB the existing ones hold, 0 if du is slow
	local d kib=0 k
	for d in "$@"; do
		[ -d "$d" ] || continue
		k=$(timeout 10 du -sk "$d" 2>/dev/null | cut -f1) || k=0
		kib=$((kib + ${k:-0}))
	done
	echo $((kib / 1048576))
}
check_disk() { # label dir GiB-needed GiB-held
	local free need=$(($3 - $4))
	[ "$need" -gt 0 ] || need=0
	free=$(df -Pk "$2" | awk 'NR == 2 {print int($4 / 1048576)}')
	if [ "$free" -ge "$need" ]; then
		ok "disk ($1)" "${free} GiB free at $2"
	else
		bad "disk ($1)" "${free} GiB free at $2, under the $need GiB more that make test-all and make lint need there ($3 GiB, README.md, Requirements; $4 held already)"
	fi
}
cache_dir=$(existing_dir "$CACHE") build_dir=$(existing_dir "$BUILD")
# One filesystem (btrfs subvolumes have device numbers of their own: compare df's).
if [ "$(df -P "$cache_dir" | awk 'NR == 2 {print $1}')" = \
	"$(df -P "$build_dir" | awk 'NR == 2 {print $1}')" ]; then
	check_disk "cache and build" "$build_dir" 12 "$(held_gib "$CACHE" "$BUILD")"
else
	check_disk cache "$cache_dir" 3 "$(held_gib "$CACHE")"
	check_disk build "$build_dir" 9 "$(held_gib "$BUILD")"
fi
ok cpus "$(nproc) ($(awk '/MemTotal/ {printf "%d GiB", $2 / 1048576}' /proc/meminfo))"

# KVM: what the boot does here (scripts/boot.sh probes by booting the kernel).
if [ ! -e /dev/kvm ]; then
	info accelerator "no /dev/kvm: guests boot under TCG; how long a boot takes: docs/testing.md (Times)"
elif ! [ -r /dev/kvm ] || ! [ -w /dev/kvm ]; then
	info accelerator "/dev/kvm not usable by $(id -un): TCG"
elif ! grep -qwE 'vmx|svm' /proc/cpuinfo; then
	info accelerator "/dev/kvm but no vmx/svm CPU flag: KVM is unlikely to boot a kernel; the boot probes and falls back to TCG"
else
	info accelerator "/dev/kvm with vmx/svm: the boot probes KVM (once per host boot)"
fi

echo
if [ ${#installs[@]} = 0 ]; then
	echo "make run would install nothing: it goes straight to building."
else
	echo "make run would first:"
	for i in "${installs[@]}"; do echo "  - $i"; done
fi
if [ "$root_needed" = 1 ] && [ "$(id -u)" != 0 ]; then
	echo "NO: those steps need root: run make run as root once, or do them as root first."
	blockers=$((blockers + 1))
fi
if [ "$blockers" -gt 0 ]; then
	echo "$blockers problem(s) above (NO) make run cannot fix itself: fix them first."
	exit 1
fi
echo "Nothing blocks make run here. Without root or a kernel, tools/ksym-query builds with cargo on any Linux host (cargo build --manifest-path tools/ksym-query/Cargo.toml) and reads /proc/kallsyms."
