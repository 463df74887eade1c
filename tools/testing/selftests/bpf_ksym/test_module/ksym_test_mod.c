// SPDX-License-Identifier: GPL-2.0
/*
 * A module whose symbols KALLSYMS_QUERY must find: one function with a name
 * no other module or vmlinux uses, and a variable.
 */
#include <linux/init.h>
#include <linux/module.h>

#include "ksym_test_mod.h"

noinline int ksym_test_mod_func(int x)
{
	return x * 7 + 1;
}
EXPORT_SYMBOL_GPL(ksym_test_mod_func);

int ksym_test_mod_data = 42;

static int __init ksym_test_mod_init(void)
{
	return ksym_test_mod_func(ksym_test_mod_data) == 295 ? 0 : -EINVAL;
}

static void __exit ksym_test_mod_exit(void)
{
}

module_init(ksym_test_mod_init);
module_exit(ksym_test_mod_exit);
MODULE_DESCRIPTION("Symbols for the KALLSYMS_QUERY kselftests");
MODULE_LICENSE("GPL");
