#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Debug kernels: ask kmemleak for leaks after the tests. An object must be
# unreferenced across scans and older than 5 s to be reported, so scan twice.
# Reports go to the console, where the host's splat check fails the run.
k=/sys/kernel/debug/kmemleak
[ -e $k ] || exit 0
echo "=== kmemleak scan"
for _ in 1 2; do
	sleep 6
	# kmemleak turns itself off on an internal error; then it proves nothing.
	echo scan >$k || { echo "kmemleak: BUG: scan failed, the detector is off"; exit 1; }
done
if grep -q 'unreferenced object' $k; then
	echo "kmemleak: $(grep -c 'unreferenced object' $k) new suspected memory leaks (see below)"
	head -c 16384 $k
else
	echo "kmemleak: no leaks"
fi
