/* SPDX-License-Identifier: GPL-2.0 */
/* The symbols of ksym_test_mod that kallsyms_query_test looks for by name. */
#ifndef KSYM_TEST_MOD_H
#define KSYM_TEST_MOD_H

int ksym_test_mod_func(int x);
extern int ksym_test_mod_data;

#endif /* KSYM_TEST_MOD_H */
