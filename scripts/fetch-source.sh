#!/usr/bin/env bash
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

deb=$(ls "$CACHE"/linux-source-"$KVER"_*.deb 2>/dev/null | tail -n 1 || true)
if [ -z "$deb" ]; then
	step "downloading linux-source-$KVER from trixie-backports (~170 MB)"
	(cd "$CACHE" && apt-get download -q "linux-source-$KVER/trixie-backports") ||
		(cd "$CACHE" && apt-get download -q "linux-source-$KVER") ||
		die "apt-get download linux-source-$KVER failed: run scripts/install-deps.sh (it adds trixie-backports) and retry"
	deb=$(ls "$CACHE"/linux-source-"$KVER"_*.deb | tail -n 1)
fi

step "unpacking $(basename "$deb")"
tmp=$(mktemp -d "$CACHE/unpack.XXXXXX")
dpkg-deb -x "$deb" "$tmp"
tarball=$(ls "$tmp"/usr/src/linux-source-"$KVER".tar.* | head -n 1)
rm -rf "$PRISTINE"
mkdir -p "$PRISTINE"
tar -xf "$tarball" -C "$PRISTINE" --strip-components=1
rm -rf "$tmp"
touch "$PRISTINE/.complete"
note "kernel source: $PRISTINE"
