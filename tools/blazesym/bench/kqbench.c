// SPDX-License-Identifier: GPL-2.0
/*
 * kqbench: the kernel symbolization patterns of the blazesym patches'
 * goals, through blazesym-c (-DBLAZESYM) or through bare KALLSYMS_QUERY
 * calls (C clients, the yardsticks), for bench.sh to count their system
 * calls (strace) and instructions (callgrind) under kqshim.so.
 *
 *	kqbench first		a fresh process's first address
 *	kqbench calls N		bpftrace's pattern: one symbolizer, one address
 *				per call; N cold addresses (misses), then the
 *				same N again (hits)
 *	kqbench batch N		N cold addresses in one call
 *	kqbench bpf N		a BPF program loaded after the first use (one
 *				call), then unloaded and its address asked N
 *				times (blazesym only)
 *
 * Each measured part runs in a function region_<part>() and is framed by
 * write(-1, "<part>{") ... write(-1, "}<part>"), which strace shows (EBADF)
 * and bench.sh counts between. Addresses are those of every k-th text
 * symbol of /proc/kallsyms, plus one.
 *
 * blazesym options: KQB_OPTS=bpftrace (the default: bpftrace's
 * blaze_symbolizer_new_opts(), code_info, inlined_fns, demangle and
 * auto_reload off, vmlinux "" in the source) or KQB_OPTS=default
 * (blaze_symbolizer_new(), vmlinux NULL: searched for).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#ifdef BLAZESYM
#include "blazesym.h"
#else
#include "../../../include/uapi/linux/kallsyms_query.h"
#endif

/* Not inlined, nor folded into another region of the same code. */
#define NOINLINE __attribute__((noinline, noipa))

static uint64_t *addrs;
static size_t nr_addrs;
static unsigned long sink;

static void mark(const char *s)
{
	/* A system call strace shows, that does nothing. */
	if (write(-1, s, strlen(s)) != -1)
		abort();
}

/* Pick n addresses spread over the text symbols of /proc/kallsyms. */
static void pick_addrs(size_t n)
{
	unsigned long long addr;
	size_t cap = 0, nr = 0, i;
	char line[1024], type;
	uint64_t *all = NULL;
	FILE *f = fopen("/proc/kallsyms", "re");

	if (!f)
		abort();
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%llx %c", &addr, &type) != 2 || !addr || (type != 'T' && type != 't'))
			continue;
		if (strchr(line, '['))
			continue;
		if (nr == cap) {
			cap = cap ? 2 * cap : 65536;
			all = realloc(all, cap * sizeof(*all));
		}
		if (nr && all[nr - 1] == addr)
			continue;
		all[nr++] = addr;
	}
	fclose(f);
	if (nr < n)
		abort();
	addrs = malloc(n * sizeof(*addrs));
	for (i = 0; i < n; i++)
		addrs[i] = all[i * (nr / n)] + 1;
	nr_addrs = n;
	free(all);
}

#ifdef BLAZESYM

/* Read once: a getenv() per call would be counted as the library's work. */
static int bpftrace_opts(void)
{
	static int opts = -1;

	if (opts < 0) {
		const char *o = getenv("KQB_OPTS");

		opts = !o || strcmp(o, "default");
	}
	return opts;
}

static blaze_symbolizer *new_symbolizer(void)
{
	blaze_symbolizer_opts opts = {
		.type_size = sizeof(opts),
	};

	if (!bpftrace_opts())
		return blaze_symbolizer_new();
	return blaze_symbolizer_new_opts(&opts);
}

static void one(blaze_symbolizer *s, uint64_t addr)
{
	blaze_symbolize_src_kernel src = {
		.type_size = sizeof(src),
		.vmlinux = bpftrace_opts() ? "" : NULL,
	};
	const blaze_syms *syms = blaze_symbolize_kernel_abs_addrs(s, &src, &addr, 1);

	if (!syms)
		abort();
	if (syms->syms[0].name)
		sink += strlen(syms->syms[0].name);
	blaze_syms_free(syms);
}

static const char *name_of(blaze_symbolizer *s, uint64_t addr, char *buf, size_t len)
{
	blaze_symbolize_src_kernel src = {
		.type_size = sizeof(src),
		.vmlinux = bpftrace_opts() ? "" : NULL,
	};
	const blaze_syms *syms = blaze_symbolize_kernel_abs_addrs(s, &src, &addr, 1);

	if (!syms)
		return "error";
	snprintf(buf, len, "%s", syms->syms[0].name ? syms->syms[0].name : "-");
	blaze_syms_free(syms);
	return buf;
}

static NOINLINE void region_first(void)
{
	blaze_symbolizer *s = new_symbolizer();

	one(s, addrs[0]);
	blaze_symbolizer_free(s);
}

static blaze_symbolizer *sym;

static NOINLINE void region_miss(void)
{
	for (size_t i = 0; i < nr_addrs; i++)
		one(sym, addrs[i]);
}

static NOINLINE void region_hit(void)
{
	for (size_t i = 0; i < nr_addrs; i++)
		one(sym, addrs[i]);
}

static NOINLINE void region_batch(void)
{
	blaze_symbolize_src_kernel src = {
		.type_size = sizeof(src),
		.vmlinux = bpftrace_opts() ? "" : NULL,
	};
	const blaze_syms *syms = blaze_symbolize_kernel_abs_addrs(sym, &src, addrs, nr_addrs);

	if (!syms)
		abort();
	for (size_t i = 0; i < syms->cnt; i++)
		sink += syms->syms[i].name ? strlen(syms->syms[i].name) : 0;
	blaze_syms_free(syms);
}

#define BPF_START 0xffffffffa0001000ULL

static NOINLINE void region_loaded(void)
{
	one(sym, BPF_START + 8);
}

static NOINLINE void region_gone(void)
{
	for (size_t i = 0; i < nr_addrs; i++)
		one(sym, BPF_START + 8);
}

static int bpf(size_t n)
{
	int (*add)(const char *, const char *, uint64_t, uint64_t, uint64_t) =
		dlsym(RTLD_DEFAULT, "kqshim_add");
	int (*del)(uint64_t) = dlsym(RTLD_DEFAULT, "kqshim_del");
	char buf[600];

	if (!add || !del) {
		fprintf(stderr, "kqbench: bpf needs kqshim.so\n");
		return 1;
	}
	pick_addrs(1);
	nr_addrs = n;
	sym = new_symbolizer();
	one(sym, addrs[0]);
	/* Asked before the program exists: no symbol, cached. */
	printf("before load: %s\n", name_of(sym, BPF_START + 8, buf, sizeof(buf)));
	add("bpf_prog_0123456789abcdef_kqbench", "bpf", BPF_START, 0x80, 4242);
	mark("loaded{");
	region_loaded();
	mark("}loaded");
	printf("after load: %s\n", name_of(sym, BPF_START + 8, buf, sizeof(buf)));
	/* Let the answer be cached, then unload and ask again and again. */
	del(BPF_START);
	add("bpf_prog_0123456789abcdef_kqbench", "bpf", BPF_START, 0x80, 0);
	one(sym, BPF_START + 8);
	del(BPF_START);
	one(sym, BPF_START + 8);
	mark("gone{");
	region_gone();
	mark("}gone");
	printf("after unload: %s\n", name_of(sym, BPF_START + 8, buf, sizeof(buf)));
	blaze_symbolizer_free(sym);
	return 0;
}

#else /* !BLAZESYM: the C clients */

static int kfd = -1;

static int query(struct kallsyms_query *q)
{
	return ioctl(kfd, KALLSYMS_QUERY, q);
}

/* Open /proc/kallsyms and ask one address, as a bare client does. */
static NOINLINE void region_first(void)
{
	struct kallsyms_query q = { .size = sizeof(q), .query_flags = KALLSYMS_QUERY_BY_ADDR };
	char name[KALLSYMS_QUERY_NAME_LEN];
	int fd = open("/proc/kallsyms", O_RDONLY | O_CLOEXEC);

	q.sym_addr = addrs[0];
	q.sym_name_addr = (uintptr_t)name;
	q.sym_name_size = sizeof(name);
	if (fd < 0 || ioctl(fd, KALLSYMS_QUERY, &q))
		abort();
	sink += strlen(name);
	close(fd);
}

/*
 * A single-query client with a cache of its own: symbol ranges sorted by
 * start, valid for one generation. A hit costs a GENERATION call, a miss
 * a BY_ADDR call. Each answer is handed out as a copy, as a library
 * would.
 */
struct centry {
	uint64_t start, size;
	char *name;
};
static struct centry *cache;
static size_t cache_len, cache_cap;
static uint64_t cache_gen;

static char *lookup(uint64_t addr)
{
	struct kallsyms_query q = { .size = sizeof(q) };
	char name[KALLSYMS_QUERY_NAME_LEN];
	size_t lo = 0, hi = cache_len;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (cache[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo && addr - cache[lo - 1].start < cache[lo - 1].size) {
		q.query_flags = KALLSYMS_QUERY_GENERATION;
		if (query(&q))
			abort();
		if (q.generation == cache_gen)
			return strdup(cache[lo - 1].name);
		for (size_t i = 0; i < cache_len; i++)
			free(cache[i].name);
		cache_len = lo = 0;
		memset(&q, 0, sizeof(q));
		q.size = sizeof(q);
	}
	q.query_flags = KALLSYMS_QUERY_BY_ADDR;
	q.sym_addr = addr;
	q.sym_name_addr = (uintptr_t)name;
	q.sym_name_size = sizeof(name);
	if (query(&q))
		return NULL;
	if (q.generation != cache_gen) {
		for (size_t i = 0; i < cache_len; i++)
			free(cache[i].name);
		cache_len = lo = 0;
		cache_gen = q.generation;
	}
	if (cache_len == cache_cap) {
		cache_cap = cache_cap ? 2 * cache_cap : 64;
		cache = realloc(cache, cache_cap * sizeof(*cache));
	}
	memmove(&cache[lo + 1], &cache[lo], (cache_len - lo) * sizeof(*cache));
	cache[lo].start = q.sym_start;
	cache[lo].size = q.sym_size;
	cache[lo].name = strdup(name);
	cache_len++;
	return strdup(name);
}

static NOINLINE void region_miss(void)
{
	for (size_t i = 0; i < nr_addrs; i++) {
		char *name = lookup(addrs[i]);

		sink += name ? strlen(name) : 0;
		free(name);
	}
}

static NOINLINE void region_hit(void)
{
	for (size_t i = 0; i < nr_addrs; i++) {
		char *name = lookup(addrs[i]);

		sink += name ? strlen(name) : 0;
		free(name);
	}
}

/* One BY_ADDR_BATCH call (continued as needed); each name copied out. */
static NOINLINE void region_batch(void)
{
	struct kallsyms_query_addr *e = calloc(nr_addrs, sizeof(*e));
	size_t buf_len = 128 * (KALLSYMS_QUERY_NAME_LEN + 64), done = 0;
	char *buf = malloc(buf_len);
	char **names = calloc(nr_addrs, sizeof(*names));

	for (size_t i = 0; i < nr_addrs; i++)
		e[i].addr = addrs[i];
	while (done < nr_addrs) {
		struct kallsyms_query q = {
			.size = sizeof(q),
			.query_flags = KALLSYMS_QUERY_BY_ADDR_BATCH,
			.sym_name_addr = (uintptr_t)buf,
			.sym_name_size = buf_len,
			.batch_addr = (uintptr_t)&e[done],
			.batch_count = nr_addrs - done,
			.batch_entry_size = sizeof(*e),
		};

		if (query(&q))
			abort();
		for (size_t i = done; i < done + q.batch_count; i++)
			names[i] = e[i].kind ? strdup(buf + e[i].name_off) : NULL;
		done += q.batch_count;
	}
	for (size_t i = 0; i < nr_addrs; i++) {
		sink += names[i] ? strlen(names[i]) : 0;
		free(names[i]);
	}
	free(names);
	free(buf);
	free(e);
}

#endif /* BLAZESYM */

int main(int argc, char **argv)
{
	size_t n = argc > 2 ? strtoul(argv[2], NULL, 0) : 1;

	if (argc < 2) {
		fprintf(stderr, "usage: kqbench first|calls N|batch N|bpf N\n");
		return 2;
	}
	if (!strcmp(argv[1], "first")) {
		pick_addrs(1);
		mark("first{");
		region_first();
		mark("}first");
		return 0;
	}
#ifndef BLAZESYM
	kfd = open("/proc/kallsyms", O_RDONLY | O_CLOEXEC);
	if (kfd < 0)
		abort();
#else
	if (!strcmp(argv[1], "bpf"))
		return bpf(n);
	sym = new_symbolizer();
	/* The first use (probe, open) is not part of the per-call numbers. */
	one(sym, 1);
#endif
	pick_addrs(n);
	if (!strcmp(argv[1], "calls")) {
		mark("miss{");
		region_miss();
		mark("}miss");
		mark("hit{");
		region_hit();
		mark("}hit");
	} else if (!strcmp(argv[1], "batch")) {
		mark("batch{");
		region_batch();
		mark("}batch");
	} else {
		return 2;
	}
#ifdef BLAZESYM
	blaze_symbolizer_free(sym);
#endif
	return 0;
}
