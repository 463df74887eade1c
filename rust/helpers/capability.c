// SPDX-License-Identifier: GPL-2.0

#include <linux/capability.h>

/*
 * Without CONFIG_MULTIUSER, ns_capable_noaudit() is a static inline that
 * grants every capability, which Rust cannot call. With it, the bindings call
 * the real function.
 */
#ifndef CONFIG_MULTIUSER
__rust_helper bool rust_helper_ns_capable_noaudit(struct user_namespace *ns,
						  int cap)
{
	return ns_capable_noaudit(ns, cap);
}
#endif
