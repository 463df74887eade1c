#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Install everything the build, the guest and the tests need, from the package
# registries only.  Idempotent: a second run checks and returns in seconds.
# Why these versions: clang/lld 22 match rustc 1.95's LLVM (CONFIG_RUST_INLINE_HELPERS);
# the kernel wants bindgen 0.71.1 or newer (scripts/min-tool-version.sh): bindgen-cli comes
# from crates.io.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

need_root() {
	if [ "$(id -u)" != 0 ]; then
		die "installing packages needs root; re-run as root or install: $*"
	fi
}

# Debian packages from bookworm (the base system) and bookworm-security (LLVM 22:
# the LLVM major of rustc 1.95, so C helpers can be inlined into Rust).
PKGS=(
	clang-22 lld-22 llvm-22 libclang-22-dev
	make patch flex bison bc libelf-dev libssl-dev cpio dwarves kmod rsync xz-utils ccache
	qemu-system-x86 busybox-static bpftool linux-perf
	libbpf-dev zlib1g-dev libzstd-dev python3 zstd
	shellcheck python3-pytest python3-sphinx python3-yaml
	# make test-upstream: module signing keys (their config signs modules), and
	# iproute2's ip for test_progs' network namespaces.
	openssl iproute2
)

# Runs before trixie-backports is added below; that suite is NotAutomatic
# anyway, so nothing is ever installed or upgraded from it by accident.
apt_ensure "${PKGS[@]}"

# The kernel source lives in trixie-backports (NotAutomatic, so adding it is
# safe: nothing is upgraded from it unless asked by name).
SRC_LIST=/etc/apt/sources.list.d/bpf-ksym-trixie-backports.sources
if [ ! -f "$SRC_LIST" ]; then
	need_root "an apt source for trixie-backports"
	step "apt: adding trixie-backports (for linux-source-$KVER)"
	cat >"$SRC_LIST" <<EOS
Types: deb
URIs: http://deb.debian.org/debian
Suites: trixie-backports
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
EOS
	apt-get update -q >/dev/null
fi

# Rust: the library source for the kernel's core/alloc build, and bindgen.
installed=$(rustup component list --installed 2>/dev/null || true)
# rust-src for the kernel's core; clippy (CLIPPY=1 builds) and rustfmt for make lint.
wanted=()
for c in rust-src clippy rustfmt; do
	grep -q "^$c" <<<"$installed" || wanted+=("$c")
done
if [ ${#wanted[@]} -gt 0 ]; then
	step "rustup: adding ${wanted[*]}"
	rustup component add "${wanted[@]}"
fi
if ! command -v bindgen >/dev/null 2>&1; then
	step "cargo: installing bindgen-cli; how long: docs/testing.md (Times)"
	LIBCLANG_PATH=/usr/lib/llvm-$LLVM_VER/lib cargo install --locked bindgen-cli
fi
note "toolchain ready: $(rustc --version), bindgen $(bindgen --version | awk '{print $2}'), clang-$LLVM_VER"
# ARCH=arm64: the cross builds' and that guest's needs too.
[ "$ARCH" = x86_64 ] || bash "$ROOT/scripts/install-deps-arch.sh"
