/* SPDX-License-Identifier: GPL-2.0 */
/*
 * KALLSYMS_QUERY: the seam between kernel/kallsyms.c and the query logic in
 * kernel/kallsyms_query/kallsyms_query.rs.
 */
#ifndef _LINUX_KALLSYMS_QUERY_H
#define _LINUX_KALLSYMS_QUERY_H

#include <linux/compiler_types.h>
#include <linux/types.h>
#include <uapi/linux/kallsyms_query.h>

/**
 * kallsyms_query() - answer one KALLSYMS_QUERY ioctl
 * @show_value: whether the opener of /proc/kallsyms may see addresses
 *              (kallsyms_show_value() at open)
 * @uarg: the caller's struct kallsyms_query
 *
 * Defined in Rust (kernel/kallsyms_query/kallsyms_query.rs).
 *
 * Return: 0, or a negative errno as include/uapi/linux/kallsyms_query.h lists.
 */
long kallsyms_query(bool show_value, void __user *uarg);

/**
 * kallsyms_query_init() - create KALLSYMS_QUERY's debugfs counters
 *
 * Called once, by kallsyms_init().
 */
void kallsyms_query_init(void);

/**
 * kallsyms_query_find_names() - the vmlinux symbols of a name
 * @name: the name to look for
 * @start: set to the first position of a symbol so named in kallsyms'
 *         index sorted by name (kallsyms_seqs_of_names)
 * @end: set to the last such position
 *
 * A shim to kallsyms_lookup_names() of kernel/kallsyms.c.
 *
 * Return: 0 if the name was found, else -ESRCH.
 */
int kallsyms_query_find_names(const char *name, unsigned int *start, unsigned int *end);

/**
 * kallsyms_query_name_address() - the address of a vmlinux symbol
 * @i: its position in the index sorted by name, as
 *     kallsyms_query_find_names() gives it
 *
 * Return: its address.
 */
unsigned long kallsyms_query_name_address(unsigned int i);

/**
 * struct kallsyms_query_cursor - where the last vmlinux name was found
 * @pos: its symbol index
 * @off: its offset in kallsyms_names
 *
 * So that the next lookup of an address after it walks the compressed names
 * from there. All zeroes is a valid cursor (symbol 0).
 */
struct kallsyms_query_cursor {
	unsigned long pos;
	unsigned int off;
};

/**
 * kallsyms_query_lookup_vmlinux() - kallsyms_lookup() of a vmlinux address
 * @addr: the address
 * @cursor: all zeroes, or as a previous call left it (its offset is
 *          trusted); updated
 * @symbolsize: set to the symbol's size
 * @offset: set to @addr's offset in the symbol
 * @namebuf: KSYM_NAME_LEN bytes, set to the symbol's name
 *
 * Return: the name's length, or 0 if @addr is not in vmlinux.
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

/**
 * kallsyms_query_get_addrs() - read the addresses of a batch's entries
 * @entries: the user's KALLSYMS_QUERY_BY_ADDR_BATCH entries
 * @stride: the bytes from one entry to the next
 * @addrs: set to the addr field of each entry read
 * @n: how many entries to read, at most KALLSYMS_QUERY_BLOCK_MAX
 *
 * Return: how many were read before the first one that faults.
 */
unsigned int kallsyms_query_get_addrs(const void __user *entries, size_t stride,
				      u64 *addrs, unsigned int n);

/**
 * kallsyms_query_put_answers() - write answers to a batch's entries
 * @entries: the user's KALLSYMS_QUERY_BY_ADDR_BATCH entries
 * @stride: the bytes from one entry to the next
 * @answers: the answers; every field but addr is written
 * @n: how many entries to write, at most KALLSYMS_QUERY_BLOCK_MAX
 *
 * Return: how many were written before the first one that faults.
 */
unsigned int kallsyms_query_put_answers(void __user *entries, size_t stride,
					const struct kallsyms_query_addr *answers,
					unsigned int n);

#endif /* _LINUX_KALLSYMS_QUERY_H */
