// SPDX-License-Identifier: GPL-2.0
/*
 * capi_bench: bpftrace's way of symbolizing kernel addresses, through
 * blazesym-c, timed for `make bench-query`: one blaze_symbolizer kept for the
 * process's life, one blaze_symbolize_kernel_abs_addrs() call per address,
 * with bpftrace's source (kallsyms NULL: the running kernel's; vmlinux "":
 * no vmlinux looked for).
 *
 *	capi_bench steady ADDRFILE
 *	capi_bench gone ADDRFILE
 *	capi_bench late ADDRFILE
 *
 * ADDRFILE holds hex addresses, one a line.
 *
 * steady: each must have a symbol. The calls are steady.h's
 * (tools/bpf/bpf_ksym_bench): each address once (misses), then STEADY_CALLS
 * in all, again in a fixed order (hits).
 *
 * gone: the first address is that of a BPF program since unloaded (the
 * symbolizer cannot know it was one). After one call, GONE_CALLS more of the
 * same address: their time and their system calls.
 *
 * late: after a call for the first address (a core one), loads a BPF
 * program, then asks its JIT address, which must come back with the
 * program's name: that call's time and system calls.
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
#include <linux/bpf.h>
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
 * One pass of the calls on a new symbolizer. Timed (@miss_ms, @hit_ms, and
 * the heap it took, @heap_kib), or, with a counter (@counter >= 0), the
 * system calls of each call counted.
 */
static int pass(int counter, double *miss_ms, double *hit_ms, double *heap_kib,
		struct steady_count *miss, struct steady_count *hit)
{
	double heap = steady_heap_kib();
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
		*heap_kib = steady_heap_kib() - heap;
	}
	blaze_symbolizer_free(symbolizer);
	return 0;
}

static int steady(void)
{
	struct steady_count miss = {}, hit = {};
	double miss_ms, hit_ms, heap_kib;
	int counter = steady_syscall_counter();

	if (counter < 0 || pass(-1, &miss_ms, &hit_ms, &heap_kib, NULL, NULL) ||
	    pass(counter, NULL, NULL, NULL, &miss, &hit))
		return 1;
	steady_report(miss_ms, hit_ms, &miss, &hit, heap_kib);
	return 0;
}

/* @calls calls of @addr on @symbolizer: timed (@ms), or their system calls counted. */
static int repeat(blaze_symbolizer *symbolizer, uint64_t addr, int calls, int counter,
		  double *ms, struct steady_count *c)
{
	unsigned long long last = 0;
	double t0 = now_ms();
	int i;

	if (counter >= 0 && steady_syscalls(counter, &last) < -1)
		return -1;
	for (i = 0; i < calls; i++) {
		struct blaze_symbolize_src_kernel src = {
			.type_size = sizeof(src),
			.vmlinux = "",
		};
		const struct blaze_syms *syms;

		syms = blaze_symbolize_kernel_abs_addrs(symbolizer, &src, &addr, 1);
		if (counter >= 0) {
			long n = steady_syscalls(counter, &last);

			if (n < 0)
				return -1;
			steady_count_add(c, n);
		}
		if (!syms) {
			fprintf(stderr, "capi_bench: 0x%" PRIx64 ": %s\n", addr,
				blaze_err_str(blaze_err_last()));
			return -1;
		}
		blaze_syms_free(syms);
	}
	if (ms)
		*ms = now_ms() - t0;
	return 0;
}

/* Calls of an address whose program is gone, on a symbolizer that asked it once. */
static int gone(void)
{
	struct steady_count c = {};
	int counter = steady_syscall_counter(), i;
	double ms = 0;

	if (counter < 0)
		return 1;
	for (i = 0; i < 2; i++) {
		blaze_symbolizer *symbolizer = blaze_symbolizer_new();

		if (!symbolizer || repeat(symbolizer, addrs[0], 1, -1, NULL, NULL) ||
		    repeat(symbolizer, addrs[0], GONE_CALLS, i ? counter : -1, i ? NULL : &ms, &c))
			return 1;
		blaze_symbolizer_free(symbolizer);
	}
	printf("%.4f -1 %ld %.2f\n", ms, c.max, (double)c.total / c.calls);
	steady_stop();
	return 0;
}

static long sys_bpf(int cmd, union bpf_attr *attr)
{
	return syscall(__NR_bpf, cmd, attr, sizeof(*attr));
}

/* Loads a program named @name; its fd, its JIT address and its tag in hex (17 bytes). */
static int load_prog(const char *name, uint64_t *addr, char *tag)
{
	struct bpf_insn insns[] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0, .imm = 7 },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	struct bpf_prog_info info = {};
	union bpf_attr attr = {};
	int fd, i;

	attr.prog_type = BPF_PROG_TYPE_SOCKET_FILTER;
	attr.insns = (uintptr_t)insns;
	attr.insn_cnt = 2;
	attr.license = (uintptr_t)"GPL";
	strncpy(attr.prog_name, name, sizeof(attr.prog_name) - 1);
	fd = sys_bpf(BPF_PROG_LOAD, &attr);
	if (fd < 0)
		return -1;
	memset(&attr, 0, sizeof(attr));
	info.nr_jited_ksyms = 1;
	info.jited_ksyms = (uintptr_t)addr;
	attr.info.bpf_fd = fd;
	attr.info.info_len = sizeof(info);
	attr.info.info = (uintptr_t)&info;
	if (sys_bpf(BPF_OBJ_GET_INFO_BY_FD, &attr) || !info.nr_jited_ksyms)
		return -1;
	for (i = 0; i < 8; i++)
		sprintf(tag + 2 * i, "%02x", info.tag[i]);
	return fd;
}

/* A program loaded after the symbolizer's first use, named right at once. */
static int late(void)
{
	blaze_symbolizer *symbolizer = blaze_symbolizer_new();
	struct blaze_symbolize_src_kernel src = {
		.type_size = sizeof(src),
		.vmlinux = "",
	};
	unsigned long long last = 0;
	const struct blaze_syms *syms;
	char tag[17], want[64];
	uint64_t addr;
	int counter = steady_syscall_counter(), fd, ok;
	long n;
	double t0, ms;

	if (counter < 0 || !symbolizer || symbolize(symbolizer, addrs[0]))
		return 1;
	fd = load_prog("bq_late", &addr, tag);
	if (fd < 0) {
		perror("capi_bench: loading a program");
		return 1;
	}
	addr++;
	snprintf(want, sizeof(want), "bpf_prog_%s_bq_late", tag);
	/* One call, both timed and counted: its time includes the counter's two reads. */
	t0 = now_ms();
	steady_syscalls(counter, &last);
	syms = blaze_symbolize_kernel_abs_addrs(symbolizer, &src, &addr, 1);
	n = steady_syscalls(counter, &last);
	ms = now_ms() - t0;
	ok = syms && syms->cnt == 1 && syms->syms[0].name && !strcmp(syms->syms[0].name, want);
	if (!ok)
		fprintf(stderr, "capi_bench: late program 0x%" PRIx64 ": %s, want %s\n", addr,
			syms && syms->cnt == 1 && syms->syms[0].name ? syms->syms[0].name :
			"no name", want);
	printf("%.4f -1 %ld %d\n", ms, n, ok);
	if (syms)
		blaze_syms_free(syms);
	blaze_symbolizer_free(symbolizer);
	close(fd);
	steady_stop();
	return !ok;
}

int main(int argc, char **argv)
{
	if (argc != 3 || (strcmp(argv[1], "steady") && strcmp(argv[1], "gone") &&
			  strcmp(argv[1], "late"))) {
		fprintf(stderr, "usage: capi_bench steady|gone|late ADDRFILE\n");
		return 2;
	}
	if (read_addrs(argv[2]))
		return 2;
	if (!strcmp(argv[1], "gone"))
		return gone();
	if (!strcmp(argv[1], "late"))
		return late();
	return steady();
}
