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

/*
 * Where the last vmlinux name was found, so that the next lookup of an address
 * after it walks the compressed names from there: @pos is its symbol index,
 * @off its offset in kallsyms_names. All zeroes is a valid cursor (symbol 0).
 */
struct kallsyms_query_cursor {
	unsigned long pos;
	unsigned int off;
};

/*
 * kallsyms_lookup() of a vmlinux address, updating @cursor (all zeroes, or as
 * a previous call left it: its offset is trusted): the name's length, or 0 if
 * @addr is not in vmlinux. @namebuf holds KSYM_NAME_LEN bytes.
 */
int kallsyms_query_lookup_vmlinux(unsigned long addr,
				  struct kallsyms_query_cursor *cursor,
				  unsigned long *symbolsize,
				  unsigned long *offset, char *namebuf);

#endif /* _LINUX_KALLSYMS_QUERY_H */
