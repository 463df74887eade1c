#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Build the boot image ($KIMAGE: bzImage, arm64's Image) and modules
# (Module.symvers, for the test module) for the $BPF_KSYM variant, incrementally.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

# What a first build takes depends on the machine and the kernel: docs/testing.md (Times)
# says it, once.
step "building $FLAVOR kernel (first build: see docs/testing.md, Times; then incremental; log $KOUT/build.log)"
log=$KOUT/build.log
: >"$log"
# logged: a line every 30 s with the log's last line (V=1: the whole output).
if ! logged "$log" last_line kmake "${KIMAGE##*/}" modules; then
	# A known parallel race on the bindings' dep file: make again continues.
	if grep -q 'fixdep' "$log" && logged "$log" last_line kmake "${KIMAGE##*/}" modules; then
		:
	else
		grep -E -A6 '^error' "$log" | head -60 >&2
		die "kernel build failed; full log: $log"
	fi
fi
# rustc and clippy start their diagnostics at the beginning of a line (C compilers with the
# file name); none is acceptable in our crates or in the kernel crate we patch.
if grep -q -E '^(warning|error)(\[|:)' "$log"; then
	grep -E -A8 '^(warning|error)(\[|:)' "$log" | head -60 >&2
	die "Rust warnings in the $FLAVOR build (clippy or rustc, above); full log: $log"
fi
note "kernel: $KOUT/$KIMAGE"
