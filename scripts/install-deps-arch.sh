#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# What another architecture's build and guest need (ARCH=arm64), on top of
# install-deps.sh's: run by it only when ARCH is not x86_64, so an x86-64
# setup stays as it was. Idempotent.
#   - Debian's arm64 architecture (multiarch) for the static libraries the
#     selftests and benchmarks link (libc, libbpf, libelf, zlib, zstd, libgcc),
#     and qemu-system-arm (qemu-system-aarch64);
#   - rustc's aarch64-unknown-linux-gnu standard library, for ksym-query and
#     blazesym's checkers;
#   - the guest's programs as Debian builds them for arm64 (busybox, bpftool,
#     perf, coreutils' timeout) with every library they load, unpacked into
#     $SYSROOT, a directory of ours: nothing of it is installed on this machine.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

[ "$ARCH" != x86_64 ] || exit 0
if ! dpkg --print-foreign-architectures | grep -qx "$DEB_ARCH"; then
	[ "$(id -u)" = 0 ] || die "adding dpkg's $DEB_ARCH architecture needs root; re-run as root"
	step "dpkg: adding the $DEB_ARCH architecture (multiarch)"
	dpkg --add-architecture "$DEB_ARCH"
	apt-get update -q >/dev/null || die "apt-get update failed; run it to see why"
fi
dev=()
for p in libc6-dev libbpf-dev libelf-dev zlib1g-dev libzstd-dev libgcc-12-dev; do
	dev+=("$p:$DEB_ARCH")
done
apt_ensure qemu-system-arm "${dev[@]}"

if ! rustup target list --installed 2>/dev/null | grep -qx "$RUST_TRIPLE"; then
	step "rustup: adding the $RUST_TRIPLE target"
	rustup target add "$RUST_TRIPLE" || die "rustup target add $RUST_TRIPLE failed (network?)"
fi

# The guest's Debian programs and their libraries: what apt would install for
# them on an empty system, downloaded (apt's own choice of versions, as for the
# host's packages) and unpacked; never installed.
GUEST_PKGS=(busybox-static bpftool linux-perf coreutils)
stamp=$(printf '%s\n' "${GUEST_PKGS[@]}" | sha256sum | cut -c1-16)
if [ "$(cat "$SYSROOT/.complete" 2>/dev/null)" != "$stamp" ]; then
	step "downloading Debian's $DEB_ARCH ${GUEST_PKGS[*]} and their libraries into $SYSROOT"
	debs=$CACHE/debs-$DEB_ARCH
	rm -rf "$debs"
	mkdir -p "$debs/partial"
	: >"$debs/status"
	apt-get install -d -y -q --no-install-recommends -o Dir::State::status="$debs/status" \
		-o Dir::Cache::archives="$debs" "${GUEST_PKGS[@]/%/:$DEB_ARCH}" >"$debs/apt.log" 2>&1 ||
		die "downloading the $DEB_ARCH packages failed; see $debs/apt.log"
	rm -rf "$SYSROOT.tmp"
	mkdir -p "$SYSROOT.tmp"
	n=0
	# The host's architecture's packages come along for "perl:any" and the like: not ours.
	for deb in "$debs"/*_"$DEB_ARCH".deb "$debs"/*_all.deb; do
		[ -f "$deb" ] || continue
		dpkg-deb -x "$deb" "$SYSROOT.tmp"
		n=$((n + 1))
	done
	[ -x "$SYSROOT.tmp/bin/busybox" ] || die "no busybox in the $DEB_ARCH packages; see $debs/apt.log"
	rm -rf "$SYSROOT"
	mv "$SYSROOT.tmp" "$SYSROOT"
	echo "$stamp" >"$SYSROOT/.complete"
	note "$ARCH guest programs: $SYSROOT ($n packages)"
else
	note "$ARCH guest programs: $SYSROOT (cached)"
fi
