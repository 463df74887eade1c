// SPDX-License-Identifier: GPL-2.0

#include <linux/filter.h>

__rust_helper bool rust_helper_bpf_jit_kallsyms_enabled(void)
{
	return bpf_jit_kallsyms_enabled();
}

__rust_helper bool rust_helper_bpf_prog_was_classic(const struct bpf_prog *prog)
{
	return bpf_prog_was_classic(prog);
}
