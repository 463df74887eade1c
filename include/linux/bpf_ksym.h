/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The BPF part of /proc/kallsyms and iter/ksym, walked by a cursor
 * (CONFIG_BPF_KSYM_RUST, kernel/bpf/ksym/kallsyms_walk.rs).
 */
#ifndef _LINUX_BPF_KSYM_H
#define _LINUX_BPF_KSYM_H

#include <linux/types.h>

struct bpf_ksym;

/**
 * struct bpf_ksym_cursor - a reader's place among the BPF symbols
 * @ksym: the symbol returned last, or NULL. Only dereferenced while no
 *        symbol was removed since, so it cannot have been freed.
 * @seq: its insertion sequence number; symbols are listed in that order.
 * @removals: the registry's removal count when @ksym was returned.
 * @symnum: the index @ksym was returned for.
 *
 * All zeroes is a cursor at the start. The owner of the cursor serializes
 * its use (seq_file does).
 */
struct bpf_ksym_cursor {
	const struct bpf_ksym *ksym;
	u64 seq;
	u64 removals;
	unsigned int symnum;
};

/**
 * bpf_get_kallsym_next() - the BPF symbol at an index, walking on from a cursor
 * @cur: the cursor: all zeroes before its first use, not used concurrently
 * @symnum: the index of the symbol wanted, in insertion order
 * @value: set to its address
 * @type: set to its type letter
 * @sym: KSYM_NAME_LEN bytes, set to its name
 *
 * As bpf_get_kallsym(), but a walk asking @symnum, @symnum + 1, ... costs
 * O(1) per symbol. Defined in Rust (kernel/bpf/ksym/exports.rs).
 *
 * Return: 0, or -ERANGE past the last symbol or when BPF symbols are hidden
 * (bpf_jit_kallsyms off, or JIT hardening on).
 */
int bpf_get_kallsym_next(struct bpf_ksym_cursor *cur, unsigned int symnum,
			 unsigned long *value, char *type, char *sym);

#endif /* _LINUX_BPF_KSYM_H */
