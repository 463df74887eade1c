/* SPDX-License-Identifier: GPL-2.0 */
/*
 * KALLSYMS_QUERY uapi for userspace built against older kernel headers; the
 * same definitions as include/uapi/linux/fs.h of this tree.
 */
#ifndef KSYM_KALLSYMS_QUERY_H
#define KSYM_KALLSYMS_QUERY_H

#include <assert.h>
#include <errno.h>
#include <string.h>
#include <sys/ioctl.h>
#include <linux/fs.h>
#include <linux/types.h>

#ifndef PROCFS_IOCTL_MAGIC
#define PROCFS_IOCTL_MAGIC	'f'
#endif

#ifndef KALLSYMS_QUERY
#define KALLSYMS_QUERY	_IOWR(PROCFS_IOCTL_MAGIC, 18, struct kallsyms_query)

enum kallsyms_query_flags {
	KALLSYMS_QUERY_BY_SYMBOL = 0x01,
	KALLSYMS_QUERY_BY_ADDR = 0x02,
};

struct kallsyms_query {
	__u64 size;
	__u64 query_flags;
	__u64 sym_name_addr;
	__u64 sym_addr;
	__u64 sym_name_size;
	__u64 sym_start;
	__u64 sym_size;
	char sym_owner[64];	/* any MODULE_NAME_LEN: 64 - sizeof(unsigned long) */
};

/* A size between two versions gets the fields of the older one. */
#define KALLSYMS_QUERY_SIZE_VER0	40
#define KALLSYMS_QUERY_SIZE_VER1	120
#endif

static_assert(sizeof(struct kallsyms_query) == KALLSYMS_QUERY_SIZE_VER1,
	      "struct kallsyms_query is not the version-1 layout");

/*
 * Shared by the tests and benchmarks: BY_ADDR of @addr with the name into
 * @buf (@size bytes), or BY_SYMBOL of @name (then @buf is unused). Returns 0
 * or -errno.
 */
static inline int kq_query(int fd, struct kallsyms_query *q, __u64 flags, __u64 addr,
			   const char *name, char *buf, __u64 size)
{
	memset(q, 0, sizeof(*q));
	q->size = sizeof(*q);
	q->query_flags = flags;
	if (flags & KALLSYMS_QUERY_BY_ADDR) {
		q->sym_addr = addr;
		q->sym_name_addr = (unsigned long)buf;
		q->sym_name_size = size;
	} else {
		q->sym_name_addr = (unsigned long)name;
	}
	return ioctl(fd, KALLSYMS_QUERY, q) ? -errno : 0;
}

#endif /* KSYM_KALLSYMS_QUERY_H */
