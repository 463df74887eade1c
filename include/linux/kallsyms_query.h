/* SPDX-License-Identifier: GPL-2.0 */
/*
 * KALLSYMS_QUERY: the seam between kernel/kallsyms.c and the query logic in
 * kallsyms_query/kallsyms_query.rs.
 */
#ifndef _LINUX_KALLSYMS_QUERY_H
#define _LINUX_KALLSYMS_QUERY_H

#include <linux/compiler_types.h>
#include <linux/types.h>
#include <uapi/linux/kallsyms_query.h>

/* Answers one KALLSYMS_QUERY ioctl; @show_value: may the opener see addresses. */
long kallsyms_query(bool show_value, void __user *uarg);
/* Creates KALLSYMS_QUERY's debugfs counters; called once, by kallsyms_init(). */
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

/*
 * The most entries kallsyms_query_get_addrs() and kallsyms_query_put_answers()
 * take per call. Both also need a @stride of at least
 * sizeof(struct kallsyms_query_addr) and at most KALLSYMS_QUERY_ADDR_SIZE_MAX
 * (no more than a page, so that a walk over the entries in one access window
 * cannot step over the guard page past the user's addresses); they do nothing
 * (and warn) otherwise.
 */
#define KALLSYMS_QUERY_BLOCK_MAX 16

/*
 * The addr of each of @n KALLSYMS_QUERY_BY_ADDR_BATCH entries at @entries,
 * @stride bytes apart, into @addrs: how many were read before the first one
 * that faults.
 */
unsigned int kallsyms_query_get_addrs(const void __user *entries, size_t stride,
				      u64 *addrs, unsigned int n);

/*
 * The answer fields (all but addr) of @answers[0..@n) to the batch entries at
 * @entries, @stride bytes apart: how many were written before the first one
 * that faults.
 */
unsigned int kallsyms_query_put_answers(void __user *entries, size_t stride,
					const struct kallsyms_query_addr *answers,
					unsigned int n);

#endif /* _LINUX_KALLSYMS_QUERY_H */
