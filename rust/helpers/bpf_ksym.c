// SPDX-License-Identifier: GPL-2.0

#include <linux/bpf.h>

/*
 * The ksym registry's queries for KALLSYMS_QUERY. Without a BPF JIT there is
 * no registry: bpf_ksym_lookup(), bpf_ksym_generation() and
 * bpf_ksym_hold_changes() are inline stubs, which Rust cannot call. With one,
 * the bindings call the registry's functions.
 */
#ifndef CONFIG_BPF_JIT
__rust_helper const struct bpf_ksym *rust_helper_bpf_ksym_lookup(unsigned long addr)
{
	return bpf_ksym_lookup(addr);
}

__rust_helper u64 rust_helper_bpf_ksym_generation(void)
{
	return bpf_ksym_generation();
}

__rust_helper void rust_helper_bpf_ksym_hold_changes(void (*fn)(void *arg), void *arg)
{
	bpf_ksym_hold_changes(fn, arg);
}
#endif
