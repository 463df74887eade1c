/* SPDX-License-Identifier: GPL-2.0 */
/*
 * KALLSYMS_QUERY: the seam between kernel/kallsyms.c and the query logic in
 * kallsyms_query/kallsyms_query.rs.
 */
#ifndef _LINUX_KALLSYMS_QUERY_H
#define _LINUX_KALLSYMS_QUERY_H

#include <linux/compiler_types.h>
#include <linux/types.h>

/* Answers one KALLSYMS_QUERY ioctl; @show_value: may the opener see addresses. */
long kallsyms_query(bool show_value, void __user *uarg);

/* Called once by kallsyms_init(): starts counting module changes. */
void kallsyms_query_init(void);

/* Shims to kallsyms internals (kernel/kallsyms.c). */
int kallsyms_query_find_names(const char *name, unsigned int *start, unsigned int *end);
unsigned long kallsyms_query_name_address(unsigned int i);

#endif /* _LINUX_KALLSYMS_QUERY_H */
