// SPDX-License-Identifier: GPL-2.0

#include <linux/btf.h>

#ifndef CONFIG_BPF_SYSCALL
/* Functions with CONFIG_BPF_SYSCALL, inline stubs (no BTF) without it. */
__rust_helper const struct btf_type *
rust_helper_btf_type_by_id(const struct btf *btf, u32 type_id)
{
	return btf_type_by_id(btf, type_id);
}

__rust_helper const char *rust_helper_btf_name_by_offset(const struct btf *btf,
							 u32 offset)
{
	return btf_name_by_offset(btf, offset);
}
#endif
