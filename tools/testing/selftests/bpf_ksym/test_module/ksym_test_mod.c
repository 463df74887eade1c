// SPDX-License-Identifier: GPL-2.0
/*
 * A module whose symbols KALLSYMS_QUERY must find: one function with a name
 * no other module or vmlinux uses, and a variable. With exit_sleep_ms, its
 * exit function sleeps that long, so that a test can query it while it is
 * going.
 */
#include <linux/delay.h>
#include <linux/init.h>
#include <linux/module.h>
#include <linux/moduleparam.h>

#include "ksym_test_mod.h"

noinline int ksym_test_mod_func(int x)
{
	return x * 7 + 1;
}
EXPORT_SYMBOL_GPL(ksym_test_mod_func);

int ksym_test_mod_data = 42;

static unsigned int exit_sleep_ms;
module_param(exit_sleep_ms, uint, 0444);
MODULE_PARM_DESC(exit_sleep_ms, "how long the exit function sleeps");

static int __init ksym_test_mod_init(void)
{
	return ksym_test_mod_func(ksym_test_mod_data) == 295 ? 0 : -EINVAL;
}

static void __exit ksym_test_mod_exit(void)
{
	if (exit_sleep_ms)
		msleep(exit_sleep_ms);
}

module_init(ksym_test_mod_init);
module_exit(ksym_test_mod_exit);
MODULE_DESCRIPTION("Symbols for the KALLSYMS_QUERY kselftests");
MODULE_LICENSE("GPL");
