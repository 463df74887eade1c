// SPDX-License-Identifier: GPL-2.0
/*
 * KALLSYMS_QUERY example: symbolize many addresses with BY_ADDR_BATCH.
 *
 * 300 addresses inside a few functions, and one that no symbol covers, with a
 * name buffer too small for all their names: the loop of Batches makes as
 * many calls as it takes. Each answer is checked against a single BY_ADDR.
 *
 * Exit status: 0 if every answer agrees, 1 if not, 4 (skip) if the kernel has
 * no KALLSYMS_QUERY version 2 or hides addresses from this process. Run as root.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <linux/kallsyms_query.h>

#define KSFT_SKIP 4
#define NFUNCS 4
#define NADDRS 300
#define NO_SYMBOL 1		/* an address no symbol covers */

static unsigned int compared;	/* answers compared with a single BY_ADDR */

static const char *const funcs[NFUNCS] = { "vfs_read", "vfs_write", "schedule", "kfree" };

/* Prints a message naming what went wrong and exits with @status. */
#define quit(status, ...)							\
	do {									\
		fprintf(stderr, __VA_ARGS__);					\
		fputc('\n', stderr);						\
		exit(status);							\
	} while (0)

/* One call: 0 or the errno. EINTR means nothing was done: call again. */
static int query(int fd, struct kallsyms_query *q)
{
	while (ioctl(fd, KALLSYMS_QUERY, q))
		if (errno != EINTR)
			return errno;
	return 0;
}

/* Opens /proc/kallsyms; skips unless a GENERATION call (version 2) works. */
static int open_kallsyms(void)
{
	struct kallsyms_query q = { .size = sizeof(q), .query_flags = KALLSYMS_QUERY_GENERATION };
	int fd = open("/proc/kallsyms", O_RDONLY), err;

	if (fd < 0)
		quit(1, "open /proc/kallsyms: %s", strerror(errno));
	err = query(fd, &q);
	if (err == ENOTTY || err == EINVAL || err == EPERM)
		quit(KSFT_SKIP, "skip: %s", err == ENOTTY ? "this kernel has no KALLSYMS_QUERY" :
		     err == EINVAL ? "this kernel's KALLSYMS_QUERY is older than version 2" :
		     "/proc/kallsyms hides addresses from this process");
	if (err)
		quit(1, "GENERATION: %s", strerror(err));
	return fd;
}

/* A single BY_ADDR of @addr into @q and @name; 0 or the errno (ENOENT: no symbol). */
static int by_addr(int fd, __u64 addr, struct kallsyms_query *q, char *name)
{
	*q = (struct kallsyms_query){ .size = sizeof(*q), .query_flags = KALLSYMS_QUERY_BY_ADDR,
				      .sym_addr = addr, .sym_name_addr = (uintptr_t)name,
				      .sym_name_size = KALLSYMS_QUERY_NAME_LEN };
	return query(fd, q);
}

/* The string at @off of the @used bytes a call wrote to @names, or "?" if there is none. */
static const char *string_at(const char *names, __u64 used, __u32 off)
{
	return off < used && memchr(names + off, 0, used - off) ? names + off : "?";
}

/* Checks an answered entry of a call that returned @gen against a single BY_ADDR. */
static void check(int fd, const struct kallsyms_query_addr *e, const char *names, __u64 used,
		  __u64 gen)
{
	const char *name = string_at(names, used, e->name_off);
	unsigned long long addr = e->addr;
	char single[KALLSYMS_QUERY_NAME_LEN];
	struct kallsyms_query q;
	int err = by_addr(fd, e->addr, &q, single);

	if (e->kind == KALLSYMS_SYM_NONE) {
		/* No symbol: every other output is 0; a single BY_ADDR fails with ENOENT. */
		if (addr != NO_SYMBOL || e->start || e->size || e->prog_id || e->name_off ||
		    e->owner_off || e->subprog || err != ENOENT)
			quit(1, "%#llx: kind NONE, but outputs not 0 or BY_ADDR finds it", addr);
		return;
	}
	if (err)
		quit(1, "%#llx: %s in the batch, but BY_ADDR: %s", addr, name, strerror(err));
	/* Two answers are only promised to agree under the same generation. */
	if (q.generation == gen &&
	    (strcmp(name, single) || e->start != q.sym_start || e->size != q.sym_size ||
	     e->kind != q.sym_kind ||
	     strcmp(string_at(names, used, e->owner_off), q.sym_owner)))
		quit(1, "%#llx: batch %s, BY_ADDR %s: name, start, size, kind or owner differ",
		     addr, name, single);
	compared += q.generation == gen;
}

int main(void)
{
	static struct kallsyms_query_addr entries[NADDRS];
	char names[700];
	unsigned int i, calls = 0, done = 0;
	struct kallsyms_query q;
	__u64 start[NFUNCS], size[NFUNCS];
	int fd = open_kallsyms(), err;

	/* Each function's start (BY_SYMBOL) and size (BY_ADDR of its start). */
	for (i = 0; i < NFUNCS; i++) {
		q = (struct kallsyms_query){ .size = sizeof(q),
					     .query_flags = KALLSYMS_QUERY_BY_SYMBOL,
					     .sym_name_addr = (uintptr_t)funcs[i] };
		err = query(fd, &q);
		if (!err)
			err = by_addr(fd, q.sym_addr, &q, names);
		if (err)
			quit(1, "%s: %s", funcs[i], strerror(err));
		start[i] = q.sym_start;
		size[i] = q.sym_size;
	}
	/*
	 * Addresses inside the functions, taken in turn: no entry has the name of
	 * the one before, so names are not shared and fill the buffer fast. (A
	 * real client sorts its addresses: sorted batches are answered fastest.)
	 */
	for (i = 0; i < NADDRS; i++)
		entries[i].addr = start[i % NFUNCS] +
				  size[i % NFUNCS] * (i / NFUNCS) / (NADDRS / NFUNCS);
	entries[NADDRS / 2].addr = NO_SYMBOL;

	q = (struct kallsyms_query){
		.size = sizeof(q),
		.query_flags = KALLSYMS_QUERY_BY_ADDR_BATCH,
		.sym_name_addr = (uintptr_t)names,
		.sym_name_size = sizeof(names),
		.batch_addr = (uintptr_t)entries,
		.batch_count = NADDRS,
		.batch_entry_size = sizeof(entries[0]),
	};
	while (done < NADDRS) {
		err = query(fd, &q);
		if (err)
			quit(1, "BY_ADDR_BATCH from entry %u: %s", done, strerror(err));
		calls++;
		if (q.batch_count == 0 || q.batch_count > NADDRS - done)
			quit(1, "BY_ADDR_BATCH from entry %u: %u answered", done, q.batch_count);
		/* 1. Use the answers: their strings are in names[] until the next call. */
		for (i = 0; i < q.batch_count; i++)
			check(fd, &entries[done + i], names, q.sym_name_size, q.generation);
		done += q.batch_count;
		/* 2. Skip the entries answered. */
		q.batch_addr += (__u64)q.batch_count * q.batch_entry_size;
		/* 3. Ask for the entries left. */
		q.batch_count = NADDRS - done;
		/* 4. The whole buffer again, from its start (sym_name_addr is unchanged). */
		q.sym_name_size = sizeof(names);
		/* 5. Call again while entries are left. */
	}
	printf("%u addresses in %u calls with a %zu-byte name buffer, %u compared with BY_ADDR\n",
	       NADDRS, calls, sizeof(names), compared);
	return 0;
}
