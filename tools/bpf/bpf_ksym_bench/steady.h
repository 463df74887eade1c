/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The steady workload of `make bench-query`, shared by its C client
 * (bench_query's ioctl_cached) and blazesym's (tools/blazesym/capi_bench.c),
 * so that both make the same calls: bpftrace's pattern, one symbolizer kept
 * for the process's life and asked one address per call.
 *
 * STEADY_CALLS calls over @n distinct addresses: the first @n ask each once
 * (misses: nothing can be cached yet), the rest ask them again in a fixed
 * pseudo-random order (hits: the answer was asked for before and nothing
 * changed since).
 *
 * And the system calls each call makes, counted by the kernel: a perf
 * counter on the raw_syscalls:sys_enter tracepoint, for this thread. Reading
 * it is a system call too, which the count includes: steady_syscalls()
 * takes the read's own out.
 */
#ifndef STEADY_H
#define STEADY_H

#include <fcntl.h>
#include <malloc.h>
#include <linux/perf_event.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef ARRAY_SIZE
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#endif

#define STEADY_CALLS 10000
/* blazesym_bpf_gone: calls of a gone program's address after the first. */
#define GONE_CALLS 1000

/*
 * The index of the address call @i asks for, of @n distinct ones. @x is the
 * pass's state, 1 before its first call.
 */
static inline unsigned int steady_index(unsigned int *x, unsigned int i, unsigned int n)
{
	if (i < n)
		return i;
	/* A fixed LCG (Numerical Recipes'): the same order in every client. */
	*x = *x * 1664525u + 1013904223u;
	return (*x >> 8) % n;
}

/*
 * A counter of this thread's system calls, or -1 (with a message): the
 * tracepoint's id from tracefs, then perf_event_open().
 */
static inline int steady_syscall_counter(void)
{
	static const char *const ids[] = {
		"/sys/kernel/tracing/events/raw_syscalls/sys_enter/id",
		"/sys/kernel/debug/tracing/events/raw_syscalls/sys_enter/id",
	};
	struct perf_event_attr attr = {
		.type = PERF_TYPE_TRACEPOINT,
		.size = sizeof(attr),
	};
	char buf[32] = "";
	unsigned int i;
	int fd = -1;

	for (i = 0; fd < 0 && i < ARRAY_SIZE(ids); i++)
		fd = open(ids[i], O_RDONLY | O_CLOEXEC);
	if (fd < 0 || read(fd, buf, sizeof(buf) - 1) <= 0) {
		perror("steady: raw_syscalls/sys_enter id (is tracefs mounted?)");
		if (fd >= 0)
			close(fd);
		return -1;
	}
	close(fd);
	attr.config = strtoull(buf, NULL, 10);
	fd = syscall(__NR_perf_event_open, &attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0)
		perror("steady: perf_event_open(raw_syscalls:sys_enter)");
	return fd;
}

/* The system calls made since the last call on @fd (of @last): the read itself not counted. */
static inline long steady_syscalls(int fd, unsigned long long *last)
{
	unsigned long long now;
	long n;

	if (read(fd, &now, sizeof(now)) != sizeof(now))
		return -1;
	n = (long)(now - *last) - 1;
	*last = now;
	return n;
}

/*
 * The C heap in use, in KiB (glibc's count; a static binary has one
 * allocator): the arena's chunks and those mmap()ed on their own.
 */
static inline double steady_heap_kib(void)
{
	struct mallinfo2 mi = mallinfo2();

	return (mi.uordblks + mi.hblkhd) / 1024.0;
}

/* Per-call system calls of one kind of call (misses or hits). */
struct steady_count {
	long calls, total, max;
};

static inline void steady_count_add(struct steady_count *c, long n)
{
	c->calls++;
	c->total += n;
	if (n > c->max)
		c->max = n;
}

/*
 * With BENCH_QUERY_STOP set, a client stops itself after its line, for
 * bench_query to read its RSS; not when run by hand.
 */
static inline void steady_stop(void)
{
	fflush(stdout);
	if (getenv("BENCH_QUERY_STOP"))
		raise(SIGSTOP);
}

/*
 * A steady client's one line, which bench_query's measure() reads: the ms of
 * the timed pass, -1 (no RSS growth figure), the us per miss and per hit,
 * the system calls per miss and per hit (max, mean), and how far the heap in
 * use grew from before the symbolizer was made to after its last answer, in
 * KiB.
 */
static inline void steady_report(double miss_ms, double hit_ms, const struct steady_count *miss,
				 const struct steady_count *hit, double heap_kib)
{
	printf("%.4f -1 %.3f %.3f %ld %.2f %ld %.2f %.1f\n", miss_ms + hit_ms,
	       miss_ms * 1e3 / miss->calls, hit_ms * 1e3 / hit->calls, miss->max,
	       (double)miss->total / miss->calls, hit->max, (double)hit->total / hit->calls,
	       heap_kib);
	steady_stop();
}

/*
 * A pass of a client's calls: timed (@miss_ms, @hit_ms, @heap_kib) when
 * @counter < 0, else the system calls of each call counted into @miss and
 * @hit. 0, or -1 if a call failed.
 */
typedef int (*steady_pass_fn)(int counter, double *miss_ms, double *hit_ms, double *heap_kib,
			      struct steady_count *miss, struct steady_count *hit);

/*
 * A steady client: a timed pass, then a counted one, then steady_report()'s
 * line; 0, or 1. The counter opens after the timed pass: while a
 * raw_syscalls tracepoint is registered, every system call takes the traced
 * path, which would charge the timed pass for each call it makes.
 */
static inline int steady_run(steady_pass_fn pass)
{
	struct steady_count miss = {}, hit = {};
	double miss_ms, hit_ms, heap_kib;
	int counter;

	if (pass(-1, &miss_ms, &hit_ms, &heap_kib, NULL, NULL))
		return 1;
	counter = steady_syscall_counter();
	if (counter < 0 || pass(counter, NULL, NULL, NULL, &miss, &hit))
		return 1;
	steady_report(miss_ms, hit_ms, &miss, &hit, heap_kib);
	return 0;
}

#endif /* STEADY_H */
