#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Fetch Debian's linux-source-$KVER once into the cache and unpack a pristine
# copy of the tree.  The .deb and the pristine tree are reused by every later
# run and every fresh clone.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

PRISTINE=$CACHE/linux-$KVER
mkdir -p "$CACHE"
if [ -f "$PRISTINE/.complete" ]; then
	note "kernel source: $PRISTINE (cached)"
	exit 0
fi

# The newest download, if any (the names sort by version).
latest_deb() {
	local debs=("$CACHE"/linux-source-"$KVER"_*.deb)
	[ -e "${debs[-1]}" ] && printf '%s\n' "${debs[-1]}"
}
deb=$(latest_deb || true)
if [ -z "$deb" ]; then
	step "downloading linux-source-$KVER from trixie-backports (~170 MB)"
	(cd "$CACHE" && apt-get download -q "linux-source-$KVER/trixie-backports") ||
		(cd "$CACHE" && apt-get download -q "linux-source-$KVER") ||
		die "apt-get download linux-source-$KVER failed: run scripts/install-deps.sh (it adds trixie-backports) and retry"
	deb=$(latest_deb) || die "no linux-source-$KVER .deb in $CACHE after the download"
fi

step "unpacking $(basename "$deb")"
tmp=$(mktemp -d "$CACHE/unpack.XXXXXX")
dpkg-deb -x "$deb" "$tmp"
tarballs=("$tmp"/usr/src/linux-source-"$KVER".tar.*)
tarball=${tarballs[0]}
rm -rf "$PRISTINE"
mkdir -p "$PRISTINE"
tar -xf "$tarball" -C "$PRISTINE" --strip-components=1
rm -rf "$tmp"
touch "$PRISTINE/.complete"
note "kernel source: $PRISTINE"
