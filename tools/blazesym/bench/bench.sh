#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Count the system calls (strace) and user instructions (callgrind) of
# kernel symbolization through blazesym-c and through bare KALLSYMS_QUERY
# C clients, natively, with kqshim.so standing in for the ioctl.
#
# Usage: bench.sh BLAZESYM_C_DIR LIBBLAZESYM_C_A [OUT_DIR]
#
# BLAZESYM_C_DIR is a blazesym-c 0.1.11 tree (for include/blazesym.h),
# LIBBLAZESYM_C_A a release libblazesym_c.a built against the blazesym to
# measure. Needs root (for real addresses in /proc/kallsyms), strace and
# valgrind. KQB_OPTS=default measures blaze_symbolizer_new() with vmlinux
# searched for, instead of bpftrace's options (see kqbench.c). N (2000) is
# the number of addresses of the calls and batch runs.
#
# Instructions are those of the process between the markers, less the
# stand-in's own work (kqshim_answer); system calls are strace's lines
# between the markers, the markers left out.

set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
[ $# -ge 2 ] || { echo "usage: bench.sh BLAZESYM_C_DIR LIBBLAZESYM_C_A [OUT_DIR]" >&2; exit 2; }
capi=$1
lib=$2
out=${3:-$(mktemp -d)}
N=${N:-2000}
mkdir -p "$out"

cc=${CC:-cc}
$cc -O2 -g -fno-ipa-icf -Wall -Wextra -shared -fPIC -o "$out/kqshim.so" "$here/kqshim.c"
$cc -O2 -g -fno-ipa-icf -Wall -Wextra -o "$out/kqbench-c" "$here/kqbench.c"
$cc -O2 -g -fno-ipa-icf -Wall -Wextra -DBLAZESYM -I"$capi/include" -o "$out/kqbench-bz" \
	"$here/kqbench.c" "$lib" -lpthread -ldl -lm

# Print "<part> <syscalls>" for each marked part of strace log $1.
count_syscalls() {
	awk '
		match($0, /write\(-1, "[a-z]+\{"/) {
			part = substr($0, RSTART + 11, RLENGTH - 13); n = 0; inside = 1; next
		}
		match($0, /write\(-1, "\}[a-z]+"/) { print part, n; inside = 0; next }
		inside && !/^\+\+\+|^---/ { n++ }
	' "$1"
}

# Print "<part> <instructions>" for each region_<part> of callgrind file $1.
count_instr() {
	callgrind_annotate --inclusive=yes --threshold=100 "$1" 2>/dev/null |
		sed -n 's/^ *\([0-9,]*\) ([^)]*) .*region_\([a-z]*\).*/\2 \1/p' | tr -d ,
}

run() {
	local name=$1 bin=$2
	shift 2
	LD_PRELOAD=$out/kqshim.so strace -f -qq -o "$out/$name.strace" "$bin" "$@" >"$out/$name.out"
	LD_BIND_NOW=1 LD_PRELOAD=$out/kqshim.so valgrind -q --tool=callgrind \
		--callgrind-out-file="$out/$name.cg" --collect-atstart=no \
		--toggle-collect='region_*' --toggle-collect=kqshim_answer "$bin" "$@" >/dev/null
	join <(count_syscalls "$out/$name.strace" | sort) <(count_instr "$out/$name.cg" | sort) |
		while read -r part sc ins; do
			local per=1
			case $part in miss | hit | batch | gone) per=$N ;; esac
			printf '%-10s %-7s %8d syscalls %10d instr  per call/address: %6.2f syscalls %8.0f instr\n' \
				"$name" "$part" "$sc" "$ins" "$(echo "$sc / $per" | bc -l)" "$(echo "$ins / $per" | bc -l)"
		done
}

for who in c bz; do
	run "$who-first" "$out/kqbench-$who" first
	run "$who-calls" "$out/kqbench-$who" calls "$N"
	run "$who-batch" "$out/kqbench-$who" batch "$N"
done
run bz-bpf "$out/kqbench-bz" bpf "$N"
sed 's/^/    bz-bpf: /' "$out/bz-bpf.out"
echo "logs in $out"
