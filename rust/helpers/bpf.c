// SPDX-License-Identifier: GPL-2.0

#include <linux/bpf.h>

#ifndef CONFIG_BPF_SYSCALL
/* A function with CONFIG_BPF_SYSCALL, an inline stub without it. */
__rust_helper bool rust_helper_bpf_token_capable(const struct bpf_token *token,
						 int cap)
{
	return bpf_token_capable(token, cap);
}
#endif
