#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The `make run` demo: BPF programs named in /proc/kallsyms and in perf call
# chains (the before/after of seed 000).
set -e
cd /tmp
echo
echo "== loading two BPF programs with bpftool"
bpftool prog loadall /kselftest/bpf_ksym/ksym_progs.bpf.o /sys/fs/bpf/ksym
bpftool prog show | grep -A1 -E 'ksym_caller|ksym_with_sub' | grep -v '^--'
echo
echo "== their /proc/kallsyms lines"
grep -E 'ksym_caller|ksym_with_sub|ksym_sub' /proc/kallsyms
echo
echo "== perf record -g while ksym_caller runs (calls bpf_get_prandom_u32)"
head -c 64 /dev/zero >pkt
perf record -q -a -g -e cpu-clock -F 2000 -o perf.data -- \
	bpftool prog run pinned /sys/fs/bpf/ksym/ksym_caller data_in pkt repeat 3000000 >/dev/null 2>&1
echo
echo "== perf script --kallsyms=/proc/kallsyms: frames naming BPF programs"
perf script -i perf.data --kallsyms=/proc/kallsyms 2>/dev/null >script.txt
n=$(grep -c 'bpf_prog_[0-9a-f]*_ksym_caller' script.txt || true)
# Show one whole call chain in which the BPF program is a caller, not the leaf:
# the unwinder walked from kernel code through the JIT image.
awk 'function flush() { if (first == "" && blk ~ /bpf_prog_[0-9a-f]+_ksym_caller/) first = blk
                        if (blk != "" && !shown && blk ~ /\n[^\n]*\n[^\n]*bpf_prog_[0-9a-f]+_ksym_caller/) { printf "%s", blk; shown = 1 } blk = "" }
     /^[^ \t]/ { flush(); blk = $0 "\n"; n = 0; next }
     /^[ \t]/ && ++n <= 12 { blk = blk $0 "\n" }
     END { flush(); if (!shown) printf "%s", first }' script.txt
echo "... $n frames name bpf_prog_<tag>_ksym_caller"
[ "$n" -gt 0 ]
echo
echo "== ksym-query symbolize: the same samples' raw addresses, named in one batch"
perf script -i perf.data -F ip 2>/dev/null >ips.txt
ksym-query symbolize -v <ips.txt >named.txt
m=$(grep -c 'bpf_prog_[0-9a-f]*_ksym_caller+0x[0-9a-f]*/0x[0-9a-f]* \[bpf\] <bpf_prog id=[1-9]' named.txt || true)
grep -m3 'ksym_caller+' named.txt
echo "... $(grep -c . ips.txt) addresses; $m named bpf_prog_<tag>_ksym_caller, with the program's id"
[ "$m" -gt 0 ]
