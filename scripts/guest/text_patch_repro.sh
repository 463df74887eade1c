#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# make repro-text-patch: patch the entry of a function that the other vCPU runs
# in a tight loop. A kprobe on $func is enabled and disabled $toggles times
# (each time ftrace rewrites the call at its entry and the kprobe code its
# instruction) while dd calls read() one byte at a time. Under QEMU 7.2's
# multi-threaded TCG this oopses within seconds ("BUG: kernel NULL pointer
# dereference ... RIP: 0010:0x0"), with or without this tree's patches; see
# "Known issues" in Documentation/bpf/bpf_ksym.rst.
func=${ksym_repro_func:-vfs_read}
toggles=${ksym_repro_toggles:-400}
cd /sys/kernel/tracing || exit 1
(while :; do dd if=/dev/zero of=/dev/null bs=1 count=100000 2>/dev/null; done) &
reader=$!
echo "p:ksym_repro $func" >kprobe_events || exit 1
i=0
while [ "$i" -lt "$toggles" ]; do
	echo 1 >events/kprobes/ksym_repro/enable
	echo 0 >events/kprobes/ksym_repro/enable
	i=$((i + 1))
done
kill "$reader"
echo "-:ksym_repro" >>kprobe_events
echo "text patch repro: the guest survived $i kprobe toggles on $func"
