// SPDX-License-Identifier: GPL-2.0
/*
 * capi_bench: blazesym's symbolizing of kernel addresses, timed for
 * `make bench-query`, through blazesym-c as bpftrace calls it
 * (blaze_symbolize_kernel_abs_addrs()). steady, gone and late are bpftrace's
 * pattern: one blaze_symbolizer kept for the process's life, one call per
 * address, with bpftrace's source (kallsyms NULL: the running kernel's;
 * vmlinux "": no vmlinux looked for); steady and late with bpftrace's
 * options too (bpftrace_symbolizer()).
 *
 *	capi_bench <mode> ADDRFILE
 *
 * ADDRFILE holds hex addresses, one a line.
 *
 * first, cold: a new symbolizer's first address, and all of ADDRFILE's in one
 * call, in a fresh process (as a tool's first stack pays it), with the kernel
 * source's defaults (vmlinux looked for). The time from before the
 * symbolizer is made to the answers; cold also prints how far the run
 * raised the process's peak RSS (VmHWM), in KiB. first_warm and cold_warm:
 * the same on a new symbolizer in a process that has run it once on another,
 * dropped before the clock starts: the symbolizer's own cost, without the
 * process's first run of blazesym's code (dear under TCG, where each new page
 * of code is translated).
 *
 * bpf_first, bpf_info: ADDRFILE's first address is a core one, the rest JIT
 * addresses of as many programs. After a call for the core one, untimed:
 * bpf_first times the first JIT address, bpf_info each after it, one a call
 * (the time per address, in us).
 *
 * steady: each must have a symbol. The calls are steady.h's
 * (tools/bpf/bpf_ksym_bench): each address once (misses), then STEADY_CALLS
 * in all, again in a fixed order (hits).
 *
 * gone: a program loaded when the symbolizer first reads the kernel's
 * symbols (for ADDRFILE's first address), then closed; its address asked
 * GONE_CALLS times: their time and system calls, and whether the
 * symbolizer named it (wrongly: it is gone). With the default options
 * (blaze_symbolizer_new(): line information on, which is what looks a
 * program up), as bpftrace's show_debug_info and most tools have them.
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

/*
 * A symbolizer as bpftrace makes its own (src/ksyms.cpp): every option off
 * (source code information only with its show_debug_info, off by default),
 * so no auto-reload, no line information, no demangling.
 */
static blaze_symbolizer *bpftrace_symbolizer(void)
{
	struct blaze_symbolizer_opts opts = {
		.type_size = sizeof(opts),
	};

	return blaze_symbolizer_new_opts(&opts);
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
 * system calls of each call counted; the clock is read only when timing, as
 * it may be a system call itself (a clocksource the vDSO cannot read).
 */
static int pass(int counter, double *miss_ms, double *hit_ms, double *heap_kib,
		struct steady_count *miss, struct steady_count *hit)
{
	double heap = steady_heap_kib(), t0 = 0, t1 = 0;
	blaze_symbolizer *symbolizer = bpftrace_symbolizer();
	unsigned long long last = 0;
	unsigned int i, x = 1;

	if (!symbolizer) {
		fprintf(stderr, "capi_bench: blaze_symbolizer_new: %s\n",
			blaze_err_str(blaze_err_last()));
		return -1;
	}
	if (counter >= 0 && steady_syscalls(counter, &last) < 0)
		return -1;
	if (counter < 0)
		t0 = now_ms();
	for (i = 0; i < STEADY_CALLS; i++) {
		if (i == nr_addrs && counter < 0)
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
	if (counter < 0) {
		*miss_ms = t1 - t0;
		*hit_ms = now_ms() - t1;
		*heap_kib = steady_heap_kib() - heap;
	}
	blaze_symbolizer_free(symbolizer);
	return 0;
}

/*
 * @calls calls of @addr on @symbolizer: timed (@ms), or their system calls
 * counted (@counter >= 0). *@named: whether the last call gave a name.
 */
static int repeat(blaze_symbolizer *symbolizer, uint64_t addr, int calls, int counter,
		  double *ms, struct steady_count *c, int *named)
{
	unsigned long long last = 0;
	double t0 = 0;
	int i;

	if (counter >= 0 && steady_syscalls(counter, &last) < 0)
		return -1;
	if (ms)
		t0 = now_ms();
	for (i = 0; i < calls; i++) {
		struct blaze_symbolize_src_kernel src = {
			.type_size = sizeof(src),
			.vmlinux = "",
		};
		const struct blaze_syms *syms;

		syms = blaze_symbolize_kernel_abs_addrs(symbolizer, &src, &addr, 1);
		if (!syms) {
			fprintf(stderr, "capi_bench: 0x%" PRIx64 ": %s\n", addr,
				blaze_err_str(blaze_err_last()));
			return -1;
		}
		*named = syms->cnt == 1 && syms->syms[0].name;
		/* Freed before the count: free()'s own trims belong to this call. */
		blaze_syms_free(syms);
		if (counter >= 0) {
			long n = steady_syscalls(counter, &last);

			if (n < 0)
				return -1;
			steady_count_add(c, n);
		}
	}
	if (ms)
		*ms = now_ms() - t0;
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
	if (sys_bpf(BPF_OBJ_GET_INFO_BY_FD, &attr) || !info.nr_jited_ksyms) {
		close(fd);
		return -1;
	}
	for (i = 0; i < 8; i++)
		sprintf(tag + 2 * i, "%02x", info.tag[i]);
	return fd;
}

/*
 * A program that was loaded when the symbolizer first read the kernel's
 * symbols (a call for ADDRFILE's first, core, address), then closed (its
 * symbols go with the close): its address asked GONE_CALLS times, timed
 * (@ms) or counted (@counter >= 0). *@named: whether the symbolizer named it
 * (wrongly: it is gone). A symbolizer that read the text while the program
 * was loaded still has its name, and looks it up by its tag for its line
 * information on every call, in vain.
 */
static int gone_pass(int counter, double *ms, struct steady_count *c, int *named)
{
	blaze_symbolizer *symbolizer = blaze_symbolizer_new();
	uint64_t addr;
	char tag[17];
	int fd = load_prog("bq_gone", &addr, tag), core_named;

	if (fd < 0 || !symbolizer) {
		perror("capi_bench: loading a program");
		return -1;
	}
	addr++;
	if (repeat(symbolizer, addrs[0], 1, -1, NULL, NULL, &core_named) || !core_named) {
		fprintf(stderr, "capi_bench: 0x%" PRIx64 " was not named\n", addrs[0]);
		return -1;
	}
	close(fd);
	if (repeat(symbolizer, addr, GONE_CALLS, counter, ms, c, named))
		return -1;
	blaze_symbolizer_free(symbolizer);
	return 0;
}

/*
 * The address of a program since closed. Prints the time and system calls
 * of a call, and 1 if the symbolizer still named the address (wrongly).
 */
static int gone(void)
{
	struct steady_count c = {};
	int counter, named, named_too;
	double ms;

	if (gone_pass(-1, &ms, NULL, &named))
		return 1;
	counter = steady_syscall_counter();
	if (counter < 0 || gone_pass(counter, NULL, &c, &named_too))
		return 1;
	printf("%.4f -1 %ld %.2f %d\n", ms, c.max, (double)c.total / c.calls, named || named_too);
	steady_stop();
	return 0;
}

/*
 * A program loaded after the symbolizer's first use: its one call, timed and
 * counted at once (the counter's two reads fall in its time), and 1 if the
 * program came back with its name, else 0: a wrong answer is a figure, not
 * a failure of the run.
 */
static int late(void)
{
	blaze_symbolizer *symbolizer = bpftrace_symbolizer();
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
	t0 = now_ms();
	if (steady_syscalls(counter, &last) < 0)
		return 1;
	syms = blaze_symbolize_kernel_abs_addrs(symbolizer, &src, &addr, 1);
	n = steady_syscalls(counter, &last);
	ms = now_ms() - t0;
	if (n < 0)
		return 1;
	ok = syms && syms->cnt == 1 && syms->syms[0].name && !strcmp(syms->syms[0].name, want);
	if (!ok)
		fprintf(stderr, "capi_bench: program loaded last, 0x%" PRIx64 ": %s, want %s\n",
			addr,
			syms && syms->cnt == 1 && syms->syms[0].name ? syms->syms[0].name :
			"no name", want);
	printf("%.4f -1 %ld %d\n", ms, n, ok);
	if (syms)
		blaze_syms_free(syms);
	blaze_symbolizer_free(symbolizer);
	close(fd);
	steady_stop();
	return 0;
}

/* The process's peak RSS, in KiB (VmHWM), or -1. */
static long peak_rss_kib(void)
{
	FILE *f = fopen("/proc/self/status", "r");
	char line[128];
	long kib = -1;

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "VmHWM: %ld kB", &kib) == 1)
			break;
	if (f)
		fclose(f);
	return kib;
}

/*
 * @n addresses from @from in one call (@one_by_one: a call each) on
 * @symbolizer, the kernel source's defaults: 0 if each got a name.
 */
static int symbolize_default(blaze_symbolizer *symbolizer, unsigned int from, unsigned int n,
			     int one_by_one)
{
	struct blaze_symbolize_src_kernel src = {
		.type_size = sizeof(src),
	};
	unsigned int i, j, step = one_by_one ? 1 : n;

	for (i = from; i < from + n; i += step) {
		const struct blaze_syms *syms;

		syms = blaze_symbolize_kernel_abs_addrs(symbolizer, &src, &addrs[i], step);
		if (!syms || syms->cnt != step) {
			fprintf(stderr, "capi_bench: 0x%" PRIx64 ": %s\n", addrs[i],
				syms ? "too few answers" : blaze_err_str(blaze_err_last()));
			return -1;
		}
		for (j = 0; j < step; j++)
			if (!syms->syms[j].name || !syms->syms[j].name[0]) {
				fprintf(stderr, "capi_bench: 0x%" PRIx64 ": no symbol\n",
					addrs[i + j]);
				blaze_syms_free(syms);
				return -1;
			}
		blaze_syms_free(syms);
	}
	return 0;
}

/* first, cold and their _warm forms: a new symbolizer's first call. */
static int fresh(const char *mode)
{
	unsigned int n = strncmp(mode, "cold", 4) ? 1 : nr_addrs;
	long before = peak_rss_kib(), after;
	blaze_symbolizer *symbolizer;
	double t0 = now_ms(), ms;

	if (strstr(mode, "_warm")) {
		symbolizer = blaze_symbolizer_new();
		if (!symbolizer || symbolize_default(symbolizer, 0, n, 0))
			return 1;
		blaze_symbolizer_free(symbolizer);
		t0 = now_ms();
	}
	symbolizer = blaze_symbolizer_new();
	if (!symbolizer || symbolize_default(symbolizer, 0, n, 0))
		return 1;
	ms = now_ms() - t0;
	after = peak_rss_kib();
	if (!strcmp(mode, "cold") && (before < 0 || after < 0)) {
		fprintf(stderr, "capi_bench: no VmHWM in /proc/self/status\n");
		return 1;
	}
	if (strcmp(mode, "cold"))
		printf("%.4f\n", ms);
	else
		printf("%.4f %ld\n", ms, after - before);
	blaze_symbolizer_free(symbolizer);
	steady_stop();
	return 0;
}

/* bpf_first and bpf_info: JIT addresses on a symbolizer that answered a core one. */
static int bpf(const char *mode)
{
	blaze_symbolizer *symbolizer = blaze_symbolizer_new();
	int info = !strcmp(mode, "bpf_info");
	double t0, ms;

	if (nr_addrs < 3 || !symbolizer || symbolize_default(symbolizer, 0, 1, 0) ||
	    (info && symbolize_default(symbolizer, 1, 1, 0)))
		return 1;
	t0 = now_ms();
	if (info ? symbolize_default(symbolizer, 2, nr_addrs - 2, 1) :
		   symbolize_default(symbolizer, 1, 1, 0))
		return 1;
	ms = now_ms() - t0;
	/* bpf_info: per address, in us. */
	printf("%.4f\n", info ? ms * 1e3 / (nr_addrs - 2) : ms);
	blaze_symbolizer_free(symbolizer);
	steady_stop();
	return 0;
}

int main(int argc, char **argv)
{
	static const char *const modes[] = {
		"first", "cold", "first_warm", "cold_warm", "bpf_first", "bpf_info", "steady",
		"gone", "late",
	};
	const char *mode = argc == 3 ? argv[1] : "";
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(modes) && strcmp(mode, modes[i]); i++)
		;
	if (i == ARRAY_SIZE(modes)) {
		fprintf(stderr, "usage: capi_bench <mode> ADDRFILE, <mode> one of:");
		for (i = 0; i < ARRAY_SIZE(modes); i++)
			fprintf(stderr, " %s", modes[i]);
		fprintf(stderr, "\n");
		return 2;
	}
	if (read_addrs(argv[2]))
		return 2;
	if (!strcmp(mode, "steady"))
		return steady_run(pass);
	if (!strcmp(mode, "gone"))
		return gone();
	if (!strcmp(mode, "late"))
		return late();
	if (!strncmp(mode, "bpf_", 4))
		return bpf(mode);
	return fresh(mode);
}
