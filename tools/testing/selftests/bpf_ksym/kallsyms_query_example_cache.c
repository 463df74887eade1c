// SPDX-License-Identifier: GPL-2.0
/*
 * KALLSYMS_QUERY example: a symbol cache that stays right while symbols come
 * and go, keyed on the generation (The generation).
 *
 * BY_ADDR answers are cached with the generation they were returned with; a
 * lookup first reads the generation with a GENERATION call and uses the cache
 * only while it is the same, else flushes it. Every hit is checked against a
 * fresh BY_ADDR returned with the same generation.
 *
 * Exit status: 0 if every hit agrees, 1 if not, 4 (skip) if the kernel has no
 * KALLSYMS_QUERY version 2 or hides addresses from this process. Run as root.
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
#define SLOTS 16
#define ROUNDS 8

static const char *const funcs[NFUNCS] = { "vfs_read", "vfs_write", "schedule", "kfree" };

/* A BY_ADDR answer (not its program id, which the generation does not cover). */
struct symbol {
	char name[KALLSYMS_QUERY_NAME_LEN];
	__u64 start, size;
	__u32 kind;
};

static struct {
	__u64 generation;	/* what every cached answer was returned with */
	unsigned int used;
	struct symbol sym[SLOTS];
} cache;
static unsigned int hits, misses, flushes, verified;

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

/* GENERATION: every other input is 0. The first call also probes for version 2. */
static __u64 generation(int fd)
{
	struct kallsyms_query q = { .size = sizeof(q), .query_flags = KALLSYMS_QUERY_GENERATION };
	int err = query(fd, &q);

	if (err == ENOTTY || err == EINVAL || err == EPERM)
		quit(KSFT_SKIP, "skip: %s", err == ENOTTY ? "this kernel has no KALLSYMS_QUERY" :
		     err == EINVAL ? "this kernel's KALLSYMS_QUERY is older than version 2" :
		     "/proc/kallsyms hides addresses from this process");
	if (err)
		quit(1, "GENERATION: %s", strerror(err));
	return q.generation;
}

/* A fresh BY_ADDR of @addr into @s and the generation it holds for into @gen. */
static void by_addr(int fd, __u64 addr, struct symbol *s, __u64 *gen)
{
	struct kallsyms_query q = { .size = sizeof(q), .query_flags = KALLSYMS_QUERY_BY_ADDR,
				    .sym_addr = addr, .sym_name_addr = (uintptr_t)s->name,
				    .sym_name_size = sizeof(s->name) };
	int err = query(fd, &q);

	/* A failed call returns no generation: "no symbol" could not be cached. */
	if (err)
		quit(1, "BY_ADDR %#llx: %s", (unsigned long long)addr, strerror(err));
	s->start = q.sym_start;
	s->size = q.sym_size;
	s->kind = q.sym_kind;
	*gen = q.generation;
}

/* Empties the cache if its answers were not returned with @gen. */
static void keep_if(__u64 gen)
{
	if (gen == cache.generation)
		return;
	flushes += cache.used > 0;
	cache.used = 0;
	cache.generation = gen;
}

/* The symbol covering @addr into @s: from the cache if it may, else from the kernel. */
static void lookup(int fd, __u64 addr, struct symbol *s)
{
	struct symbol fresh;
	unsigned int i;
	__u64 gen;

	keep_if(generation(fd));
	for (i = 0; i < cache.used; i++) {
		/*
		 * [start, start + size), for every kind: the end of a BPF symbol's
		 * range may be another image's start (Symbol ranges).
		 */
		if (addr - cache.sym[i].start < cache.sym[i].size) {
			*s = cache.sym[i];
			hits++;
			/* The check: a fresh answer with the same generation is the same answer. */
			by_addr(fd, addr, &fresh, &gen);
			if (gen == cache.generation &&
			    (strcmp(fresh.name, s->name) || fresh.start != s->start ||
			     fresh.size != s->size || fresh.kind != s->kind))
				quit(1, "%#llx: cached %s, BY_ADDR %s under generation %llu",
				     (unsigned long long)addr, s->name, fresh.name,
				     (unsigned long long)gen);
			verified += gen == cache.generation;
			return;
		}
	}
	misses++;
	by_addr(fd, addr, s, &gen);
	/* Store the answer under its own generation, which may be newer than the cache's. */
	keep_if(gen);
	if (cache.used < SLOTS)
		cache.sym[cache.used++] = *s;
}

int main(void)
{
	int fd = open("/proc/kallsyms", O_RDONLY);
	struct kallsyms_query q;
	unsigned int i, round;
	struct symbol s;
	__u64 start[NFUNCS];
	int err;

	if (fd < 0)
		quit(1, "open /proc/kallsyms: %s", strerror(errno));
	generation(fd);
	for (i = 0; i < NFUNCS; i++) {
		q = (struct kallsyms_query){ .size = sizeof(q),
					     .query_flags = KALLSYMS_QUERY_BY_SYMBOL,
					     .sym_name_addr = (uintptr_t)funcs[i] };
		err = query(fd, &q);
		if (err)
			quit(1, "BY_SYMBOL %s: %s", funcs[i], strerror(err));
		start[i] = q.sym_addr;
	}
	/* Round 0 fills the cache; the later ones look up other addresses of the same symbols. */
	for (round = 0; round < ROUNDS; round++) {
		for (i = 0; i < NFUNCS; i++) {
			lookup(fd, start[i], &s);
			lookup(fd, start[i] + s.size * round / ROUNDS, &s);
		}
	}
	printf("%u lookups: %u hits (%u checked against BY_ADDR), %u misses, %u flushes\n",
	       hits + misses, hits, verified, misses, flushes);
	return 0;
}
