// SPDX-License-Identifier: GPL-2.0

#include <linux/kallsyms.h>

__rust_helper int rust_helper_is_ksym_addr(unsigned long addr)
{
	return is_ksym_addr(addr);
}
