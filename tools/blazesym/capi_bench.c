// SPDX-License-Identifier: GPL-2.0
/*
 * capi_bench: bpftrace's way of symbolizing kernel addresses, through
 * blazesym-c, timed for `make bench-query`: one blaze_symbolizer kept for the
 * process's life, one blaze_symbolize_kernel_abs_addrs() call per address,
 * with bpftrace's source (kallsyms NULL: the running kernel's; vmlinux "":
 * no vmlinux looked for).
 *
 *	capi_bench steady ADDRFILE
 *
 * ADDRFILE holds hex addresses, one a line, each of which must have a symbol.
 * The calls are steady.h's (tools/bpf/bpf_ksym_bench): each address once
 * (misses), then STEADY_CALLS in all, again in a fixed order (hits).
 *
 * build.sh builds it twice, against blazesym as published and against the
 * patched one, static and non-PIE as bench_query's C clients are: each
 * process holds one blazesym, and loads no shared library.
 *
 * Prints steady_report()'s line: the timed pass's figures, and the system
 * calls of each call counted in a second pass on a new symbolizer (reading
 * the counter is itself a system call, which would cost the timed pass its
 * time).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "blazesym.h"
#include "steady.h"

#define MAX_ADDRS 4096

static uint64_t addrs[MAX_ADDRS];
static unsigned int nr_addrs;

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static int read_addrs(const char *path)
{
	FILE *f = fopen(path, "r");
	char line[64];

	if (!f) {
		fprintf(stderr, "capi_bench: %s: %s\n", path, strerror(errno));
		return -1;
	}
	while (nr_addrs < MAX_ADDRS && fgets(line, sizeof(line), f)) {
		char *end;

		if (line[strspn(line, " \t\r\n")] == '\0')
			continue;
		errno = 0;
		addrs[nr_addrs] = strtoull(line, &end, 16);
		if (end == line || errno || end[strspn(end, " \t\r\n")] != '\0') {
			fprintf(stderr, "capi_bench: %s: not a hex address: %s", path, line);
			fclose(f);
			return -1;
		}
		nr_addrs++;
	}
	fclose(f);
	if (!nr_addrs || nr_addrs > STEADY_CALLS) {
		fprintf(stderr, "capi_bench: %s: %u addresses, want 1 to %d\n", path, nr_addrs,
			STEADY_CALLS);
		return -1;
	}
	return 0;
}

/* bpftrace's call (src/ksyms.cpp): 0 if @addr got a name. */
static int symbolize(blaze_symbolizer *symbolizer, uint64_t addr)
{
	struct blaze_symbolize_src_kernel src = {
		.type_size = sizeof(src),
		.kallsyms = NULL,
		.vmlinux = "",
	};
	const struct blaze_syms *syms;
	int err;

	syms = blaze_symbolize_kernel_abs_addrs(symbolizer, &src, &addr, 1);
	if (!syms) {
		fprintf(stderr, "capi_bench: 0x%" PRIx64 ": %s\n", addr,
			blaze_err_str(blaze_err_last()));
		return -1;
	}
	err = syms->cnt != 1 || !syms->syms[0].name;
	if (err)
		fprintf(stderr, "capi_bench: 0x%" PRIx64 ": no symbol\n", addr);
	blaze_syms_free(syms);
	return err ? -1 : 0;
}

/*
 * One pass of the calls on a new symbolizer. Timed (@miss_ms, @hit_ms), or,
 * with a counter (@counter >= 0), the system calls of each call counted.
 */
static int pass(int counter, double *miss_ms, double *hit_ms, struct steady_count *miss,
		struct steady_count *hit)
{
	blaze_symbolizer *symbolizer = blaze_symbolizer_new();
	unsigned long long last = 0;
	unsigned int i, x = 1;
	double t0, t1;

	if (!symbolizer) {
		fprintf(stderr, "capi_bench: blaze_symbolizer_new: %s\n",
			blaze_err_str(blaze_err_last()));
		return -1;
	}
	if (counter >= 0 && steady_syscalls(counter, &last) < -1)
		return -1;
	t0 = t1 = now_ms();
	for (i = 0; i < STEADY_CALLS; i++) {
		if (i == nr_addrs)
			t1 = now_ms();
		if (symbolize(symbolizer, addrs[steady_index(&x, i, nr_addrs)]))
			return -1;
		if (counter >= 0) {
			long n = steady_syscalls(counter, &last);

			if (n < 0)
				return -1;
			steady_count_add(i < nr_addrs ? miss : hit, n);
		}
	}
	if (miss_ms) {
		*miss_ms = t1 - t0;
		*hit_ms = now_ms() - t1;
	}
	blaze_symbolizer_free(symbolizer);
	return 0;
}

int main(int argc, char **argv)
{
	struct steady_count miss = {}, hit = {};
	double miss_ms, hit_ms;
	int counter;

	if (argc != 3 || strcmp(argv[1], "steady")) {
		fprintf(stderr, "usage: capi_bench steady ADDRFILE\n");
		return 2;
	}
	if (read_addrs(argv[2]))
		return 2;
	counter = steady_syscall_counter();
	if (counter < 0)
		return 1;
	if (pass(-1, &miss_ms, &hit_ms, NULL, NULL) || pass(counter, NULL, NULL, &miss, &hit))
		return 1;
	steady_report(miss_ms, hit_ms, &miss, &hit);
	return 0;
}
