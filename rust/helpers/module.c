// SPDX-License-Identifier: GPL-2.0

#include <linux/module.h>

/*
 * Without modules (or kallsyms) module_kallsyms_on_each_symbol_rcu() is a
 * static inline stub returning -EOPNOTSUPP, which Rust cannot call. With
 * both, the bindings call the real function.
 */
#if !defined(CONFIG_MODULES) || !defined(CONFIG_KALLSYMS)
__rust_helper int
rust_helper_module_kallsyms_on_each_symbol_rcu(int (*fn)(void *, const char *, unsigned long),
					       void *data)
{
	return module_kallsyms_on_each_symbol_rcu(fn, data);
}
#endif
