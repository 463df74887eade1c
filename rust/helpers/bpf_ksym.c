// SPDX-License-Identifier: GPL-2.0

#include <linux/bpf.h>

/*
 * The ksym registry's queries for KALLSYMS_QUERY. Without a BPF JIT there is
 * no registry: bpf_ksym_lookup() and bpf_ksym_generation() are inline stubs,
 * which Rust cannot call. With one, the bindings call the registry's
 * functions.
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
#endif
