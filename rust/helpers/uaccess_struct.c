// SPDX-License-Identifier: GPL-2.0

#include <linux/uaccess.h>

__rust_helper int rust_helper_copy_struct_from_user(void *dst, size_t ksize,
						    const void __user *src,
						    size_t usize)
{
	return copy_struct_from_user(dst, ksize, src, usize);
}
