// SPDX-License-Identifier: GPL-2.0
/*
 * Guest side of `make bench-query`: the same symbolizer client several ways.
 *  text:  read and parse /proc/kallsyms into a sorted table once (as perf and
 *         blazesym do), then look up;
 *  ioctl: ask KALLSYMS_QUERY, caching per distinct address (as Perfetto does);
 *  batch: collect the distinct addresses first, then one
 *         KALLSYMS_QUERY_BY_ADDR_BATCH call per 256 of them, in address order;
 *  scan:  the program id of a JIT address as blazesym finds it without
 *         caching: BPF_PROG_GET_NEXT_ID, BPF_PROG_GET_FD_BY_ID and
 *         BPF_OBJ_GET_INFO_BY_FD over every program until one holds it.
 *  blazesym_text, blazesym_kq: blazesym 0.2.7, the symbolizer bpftrace uses,
 *         through its C API, as published (it parses /proc/kallsyms) and with
 *         the KALLSYMS_QUERY patches of the bpf_ksym project's tools/blazesym:
 *         /usr/bin/blazesym-capi-bench-{text,kq} (tools/blazesym/capi_bench.c,
 *         static and non-PIE, one blazesym each). A new symbolizer's first
 *         address and DISTINCT addresses cold, in a fresh process and (the
 *         _warm workloads) in one that has run the same once already; a used
 *         symbolizer's first JIT address and each JIT address after it to its
 *         program's information, PROGS programs loaded; bpftrace's pattern
 *         (blazesym_steady, steady.h: one symbolizer for the process, one
 *         address per call, STEADY_CALLS calls over DISTINCT addresses), the
 *         address of a program since closed asked again and again, and a
 *         program loaded after the symbolizer's first use.
 *  blazesym_heap: blazesym_steady's heap figure (a pass's growth of the C
 *         heap, glibc's count) with no program loaded, run first, and with
 *         HEAP_PROGS loaded, run last: what a symbolizer keeps for the same
 *         addresses while the kernel holds 30,000 more symbols.
 *  ioctl_cached: blazesym_steady's calls as single queries with a cache of
 *         answers by address, asking GENERATION on a hit.
 * churn_latency: the latency of a single BY_ADDR of a JIT address, and of a
 *         4096-entry batch of the JIT and text addresses answered in full
 *         (continued from each prefix a call answers), idle and while a
 *         churner per CPU loads and closes programs: p99 and max of each, in
 *         microseconds (rows churn_single and churn_batch).
 * Each client runs in a freshly exec'd process, cold: it times itself from
 * before it first touches /proc/kallsyms (table build or first query
 * included) to its last answer, and the parent reads its peak RSS. Prints
 * "BENCH query workload=<w> n=<n> unit=<u>" and "<client>=<x>" for each
 * client that applies.
 */
#include <assert.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>

#include "kselftest.h"
#include "ksym_util.h"
#include "steady.h"

#define DISTINCT 2000
#define SAMPLES 50000
#define RUNS 11
#define PROGS 1000
/* blazesym_heap: programs loaded for its second row, and runs per client. */
#define HEAP_PROGS 30000
#define HEAP_RUNS 3
/* scan is a walk over the programs per address: timed on a few, spread over all. */
#define SCANNED 10

static unsigned long long addrs[DISTINCT];
/* The kernel's name for each address (a hash), which the ioctl and batch clients must give. */
static unsigned long long want_hash[DISTINCT];
/*
 * The name each ioctl or batch client gave each address it asked for (NULL if
 * not asked): the ioctl client's cache, the batch client's answers. Checked
 * against want_hash once the clock has stopped: checking is the harness's
 * work, not the symbolizer's.
 */
static const char *got[DISTINCT];
static int stream[SAMPLES];
/* bpf_prog_id: a JIT address inside each of PROGS programs, and their ids. */
static unsigned long long prog_addrs[PROGS];
static __u32 prog_ids[PROGS];
static char probe_name[128];

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

struct entry {
	unsigned long long addr;
	char *name;
};

/* The widest digit radix_sort() takes: its counts (2 KiB) fit where a byte's did. */
#define RADIX_BITS 9

/*
 * Sorts @a (@n elements of @size bytes, @n below 2^32) by @key, least
 * significant digit first, in digits of RADIX_BITS bits, each starting at the
 * lowest bit some keys differ in that the digits before did not take: three
 * passes for the ~26 bits vmlinux text spans, where a byte at a time took
 * four, and never more than that did. @tmp holds @n elements. Stable, as
 * glibc's qsort() (a merge sort) is, but without a comparator: qsort() took
 * 15% of the batch client's instructions. Both clients that sort use it, so
 * neither pays more to sort. Inlined, so that each caller's @key and @size
 * are constants, not calls.
 */
static inline __attribute__((always_inline)) void
radix_sort(void *a, void *tmp, size_t n, size_t size, unsigned long long (*key)(const void *))
{
	const unsigned int mask = (1u << RADIX_BITS) - 1;
	unsigned long long differ = 0;
	char *from = a, *to = tmp, *t;
	size_t i;
	int shift;

	for (i = 1; i < n; i++)
		differ |= key(from + i * size) ^ key(from);
	for (shift = 0; shift < 64 && differ >> shift; shift += RADIX_BITS) {
		unsigned int count[1 << RADIX_BITS], pos = 0;

		shift += __builtin_ctzll(differ >> shift);
		memset(count, 0, sizeof(count));
		for (i = 0; i < n; i++)
			count[key(from + i * size) >> shift & mask]++;
		for (i = 0; i <= mask; i++) {
			unsigned int c = count[i];

			count[i] = pos;
			pos += c;
		}
		for (i = 0; i < n; i++)
			memcpy(to + (size_t)count[key(from + i * size) >> shift & mask]++ * size,
			       from + i * size, size);
		t = from;
		from = to;
		to = t;
	}
	if (from != a)
		memcpy(a, from, n * size);
}

static unsigned long long entry_addr(const void *e)
{
	return ((const struct entry *)e)->addr;
}

/* The text client's table: every line, names copied, sorted by address. */
static struct entry *load_table(size_t *n)
{
	FILE *f = fopen("/proc/kallsyms", "r");
	size_t cap = 1 << 17;
	struct entry *t = malloc(cap * sizeof(*t)), *tmp;
	struct kline k;

	*n = 0;
	while (next_kline(f, &k)) {
		if (*n == cap)
			t = realloc(t, (cap *= 2) * sizeof(*t));
		t[*n].addr = k.addr;
		t[(*n)++].name = strdup(k.sym);
	}
	fclose(f);
	tmp = malloc(*n * sizeof(*t));
	radix_sort(t, tmp, *n, sizeof(*t), entry_addr);
	free(tmp);
	return t;
}

static const char *table_lookup(struct entry *t, size_t n, unsigned long long addr)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (t[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo ? t[lo - 1].name : NULL;
}

/* A version-2 query, as the batch client's, so both ask the kernel for the same work. */
static const char *ioctl_lookup(int fd, unsigned long long addr, char *buf)
{
	struct kallsyms_query q = {
		.size = sizeof(q),
		.query_flags = KALLSYMS_QUERY_BY_ADDR,
		.sym_addr = addr,
		.sym_name_addr = (unsigned long)buf,
		.sym_name_size = 512,
	};

	return ioctl(fd, KALLSYMS_QUERY, &q) ? NULL : buf;
}

static unsigned long long name_hash(const char *s)
{
	unsigned long long h = 0xcbf29ce484222325ULL;	/* FNV-1a */

	while (*s)
		h = (h ^ (unsigned char)*s++) * 0x100000001b3ULL;
	return h;
}

/* The address an index of addrs[] stands for. */
static unsigned long long index_addr(const void *i)
{
	return addrs[*(const unsigned short *)i];
}

/*
 * The batch client's own memory: a page for the indexes of addrs[] in address
 * order, and ENTRY_PAGES for the sort's scratch, which then holds a call's
 * entries.
 */
#define BATCH_PAGE 4096
#define ENTRY_PAGES 3
/*
 * Entries per batch call: 256. A page of them (85) saved two pages for 16
 * more calls, about 4,000 instructions each, where the ratio to single
 * queries is the goal that counts.
 */
#define CHUNK ((int)(ENTRY_PAGES * BATCH_PAGE / sizeof(struct kallsyms_query_addr)))
static_assert(DISTINCT * sizeof(unsigned short) <= BATCH_PAGE, "indexes in a page");
static_assert(DISTINCT * sizeof(unsigned short) <= ENTRY_PAGES * BATCH_PAGE, "scratch");
static_assert(CHUNK >= 1 && CHUNK <= KALLSYMS_QUERY_BATCH_MAX, "a call's entries");

/* Where a batch client keeps names: 64 KiB blocks, kept, so answers point into them. */
struct arena {
	char *block;
	size_t size, used;
};

/* A copy of @s in @ar, as the ioctl client keeps its names (as the batch client's). */
static char *arena_copy(struct arena *ar, const char *s)
{
	size_t len = strlen(s) + 1;

	if (ar->size - ar->used < len) {
		ar->size = 1 << 16;
		ar->block = malloc(ar->size);
		ar->used = 0;
	}
	ar->used += len;
	return memcpy(ar->block + ar->used - len, s, len);
}

/*
 * Answer the @n entries of @e (addresses set) with KALLSYMS_QUERY_BY_ADDR_BATCH:
 * @out[@idx[i]] points to entry i's name (NULL if no symbol). 0 or -1.
 */
static int batch_flush(int fd, struct kallsyms_query_addr *e, const unsigned short *idx, int n,
		       const char **out, struct arena *ar)
{
	int done = 0, i;

	while (done < n) {
		struct kallsyms_query q = {
			.size = sizeof(q),
			.query_flags = KALLSYMS_QUERY_BY_ADDR_BATCH,
			.batch_addr = (unsigned long)&e[done],
			.batch_count = n - done,
			.batch_entry_size = sizeof(*e),
		};

		/* Room for the longest name and owner, or a new block. */
		if (ar->size - ar->used < 1024) {
			ar->size = 1 << 16;
			ar->block = malloc(ar->size);
			ar->used = 0;
		}
		q.sym_name_addr = (unsigned long)(ar->block + ar->used);
		q.sym_name_size = ar->size - ar->used;
		if (ioctl(fd, KALLSYMS_QUERY, &q) || !q.batch_count ||
		    (int)q.batch_count > n - done)
			return -1;
		for (i = done; i < done + (int)q.batch_count; i++)
			out[idx[i]] = e[i].kind ? ar->block + ar->used + e[i].name_off : NULL;
		ar->used += q.sym_name_size;
		done += q.batch_count;
	}
	return 0;
}

/* The id of the program whose JIT image holds @addr, by walking every program. */
static __u32 scan_prog_id(unsigned long long addr)
{
	__u32 id = 0;

	while (!bpf_prog_get_next_id(id, &id)) {
		struct bpf_prog_info info = {};
		__u64 ksyms[8];
		__u32 lens[8], len = sizeof(info);
		int fd = bpf_prog_get_fd_by_id(id), i, found = 0;

		if (fd < 0)
			continue;
		info.nr_jited_ksyms = 8;
		info.jited_ksyms = (unsigned long)ksyms;
		info.nr_jited_func_lens = 8;
		info.jited_func_lens = (unsigned long)lens;
		if (!bpf_obj_get_info_by_fd(fd, &info, &len))
			for (i = 0; i < (int)info.nr_jited_ksyms && i < 8; i++)
				found |= addr >= ksyms[i] && addr < ksyms[i] + lens[i];
		close(fd);
		if (found)
			return id;
	}
	return 0;
}

/* Keep @v alive: the compiler may not drop the reads that computed it. */
static inline void do_not_optimize(unsigned long v)
{
	asm volatile("" : : "r"(v) : "memory");
}

/* One client run; returns 0 if every lookup found a name. */
static int client(const char *mode, const char *workload)
{
	unsigned long sink = 0;
	char buf[512];
	int i;

	if (!strcmp(workload, "bpf_prog_id")) {
		int fd = open("/proc/kallsyms", O_RDONLY);
		struct kallsyms_query q;

		if (!strcmp(mode, "scan")) {
			/* Spread over the programs: a walk finds early ids sooner. */
			for (i = 0; i < SCANNED; i++) {
				int k = i * (PROGS / SCANNED) + PROGS / SCANNED / 2;

				if (scan_prog_id(prog_addrs[k]) != prog_ids[k])
					return 1;
			}
			return 0;
		}
		for (i = 0; i < PROGS; i++)
			if (kq_query(fd, &q, KALLSYMS_QUERY_BY_ADDR, prog_addrs[i], NULL, buf,
				     sizeof(buf)) || q.sym_prog_id != prog_ids[i])
				return 1;
		return 0;
	}
	if (!strcmp(mode, "batch")) {
		int fd = open("/proc/kallsyms", O_RDONLY), n = 0, m = 0;
		/*
		 * What a batch client adds to the ioctl client's memory (see
		 * BATCH_PAGE), mapped for it alone: it costs the pages it
		 * takes, and moves nothing the other clients touch.
		 */
		unsigned short *order = mmap(NULL, (1 + ENTRY_PAGES) * BATCH_PAGE,
					     PROT_READ | PROT_WRITE,
					     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		struct kallsyms_query_addr *e;
		struct arena ar = {};
		int once = !strcmp(workload, "cold_distinct");

		if (order == MAP_FAILED)
			return 1;
		e = (void *)((char *)order + BATCH_PAGE);
		/*
		 * A batch symbolizer's way (blazesym, ksym-query's Symbolizer):
		 * the profile's distinct addresses first, then in address
		 * order, which the kernel walks its names in.
		 */
		for (i = 0; i < SAMPLES; i++) {
			int a = once ? i : stream[i];

			if (a >= DISTINCT)
				break;
			if (!got[a]) {
				got[a] = "";	/* asked: the answer replaces it */
				order[m++] = a;
			}
		}
		radix_sort(order, e, m, sizeof(*order), index_addr);
		for (i = 0; i < m; i++) {
			e[n++].addr = addrs[order[i]];
			if (n == CHUNK || i == m - 1) {
				if (batch_flush(fd, e, &order[i + 1 - n], n, got, &ar))
					return 1;
				n = 0;
			}
		}
		/* An address without a symbol has a NULL name, which check_answers() fails. */
		if (once)
			return 0;
		for (i = 0; i < m; i++)
			if (!got[order[i]])
				return 1;
		for (i = 0; i < SAMPLES; i++)
			sink += got[stream[i]][0];
	} else if (!strcmp(mode, "text")) {
		size_t n;
		struct entry *t = load_table(&n);

		if (!strcmp(workload, "by_name_cold")) {
			for (i = 0; i < (int)n; i++)
				if (!strcmp(t[i].name, probe_name))
					return 0;
			return 1;
		}
		if (!strcmp(workload, "by_addr_cold"))
			return !table_lookup(t, n, addrs[0]);
		for (i = 0; i < SAMPLES; i++) {
			const char *s = table_lookup(t, n, addrs[stream[i]]);

			if (!s)
				return 1;
			sink += s[0];
		}
	} else {
		int fd = open("/proc/kallsyms", O_RDONLY);
		struct arena ar = {};

		if (!strcmp(workload, "by_name_cold")) {
			struct kallsyms_query q = {
				.size = KALLSYMS_QUERY_SIZE_VER0,
				.query_flags = KALLSYMS_QUERY_BY_SYMBOL,
				.sym_name_addr = (unsigned long)probe_name,
			};

			return ioctl(fd, KALLSYMS_QUERY, &q) != 0;
		}
		if (!strcmp(workload, "by_addr_cold"))
			return !ioctl_lookup(fd, addrs[0], buf);
		if (!strcmp(workload, "cold_distinct")) {
			for (i = 0; i < DISTINCT; i++) {
				if (!ioctl_lookup(fd, addrs[i], buf))
					return 1;
				got[i] = arena_copy(&ar, buf);
			}
			return 0;
		}
		for (i = 0; i < SAMPLES; i++) {
			int a = stream[i];

			if (!got[a]) {
				if (!ioctl_lookup(fd, addrs[a], buf))
					return 1;
				got[a] = arena_copy(&ar, buf);
			}
			sink += got[a][0];
		}
	}
	do_not_optimize(sink);
	return 0;
}

/*
 * blazesym_steady's C client (steady.h): single queries, each answer cached
 * by address with its kind and the generation it came with. A vmlinux
 * answer holds for every generation, so its hit asks nothing; any other hit
 * asks GENERATION, to know the answer is still current; a miss, or an answer
 * of an older generation, asks BY_ADDR. At most one system call a call: what
 * a symbolizer that keeps its answers needs at the least.
 */
#define STEADY_SLOTS 4096	/* a power of two, over twice DISTINCT */
static_assert(STEADY_SLOTS >= 2 * DISTINCT, "a sparse table");

struct steady_slot {
	unsigned long long addr, generation;
	const char *name;
	unsigned int kind;
};

static const char *steady_lookup(int fd, struct steady_slot *t, struct arena *ar,
				 unsigned long long addr)
{
	unsigned int h = (addr * 0x9e3779b97f4a7c15ULL) >> 52;
	struct kallsyms_query q;
	char buf[512];

	while (t[h].addr && t[h].addr != addr)
		h = (h + 1) & (STEADY_SLOTS - 1);
	if (t[h].addr && t[h].kind == KALLSYMS_SYM_VMLINUX)
		return t[h].name;
	if (t[h].addr) {
		if (kq_query(fd, &q, KALLSYMS_QUERY_GENERATION, 0, NULL, NULL, 0))
			return NULL;
		if (q.generation == t[h].generation)
			return t[h].name;
	}
	if (kq_query(fd, &q, KALLSYMS_QUERY_BY_ADDR, addr, NULL, buf, sizeof(buf)))
		return NULL;
	t[h].addr = addr;
	t[h].generation = q.generation;
	t[h].kind = q.sym_kind;
	t[h].name = arena_copy(ar, buf);
	return t[h].name;
}

/*
 * One pass of blazesym_steady with a new cache, /proc/kallsyms opened by the
 * pass as blazesym opens it: timed (@miss_ms, @hit_ms, and the heap it took,
 * @heap_kib), or the system calls of each call counted (@counter >= 0), the
 * clock then left alone. Every answer must be the kernel's.
 */
static int steady_pass(int counter, double *miss_ms, double *hit_ms, double *heap_kib,
		       struct steady_count *miss, struct steady_count *hit)
{
	double heap = steady_heap_kib(), t0 = 0, t1 = 0;
	unsigned long long last = 0;
	struct steady_slot *table;
	unsigned int i, x = 1;
	struct arena ar = {};
	int fd;

	if (counter >= 0 && steady_syscalls(counter, &last) < 0)
		return -1;
	if (counter < 0)
		t0 = now_ms();
	table = calloc(STEADY_SLOTS, sizeof(*table));
	fd = open("/proc/kallsyms", O_RDONLY);
	if (!table || fd < 0)
		return -1;
	for (i = 0; i < STEADY_CALLS; i++) {
		unsigned int a = steady_index(&x, i, DISTINCT);
		const char *name;

		if (i == DISTINCT && counter < 0)
			t1 = now_ms();
		name = steady_lookup(fd, table, &ar, addrs[a]);
		if (counter >= 0) {
			long n = steady_syscalls(counter, &last);

			if (n < 0)
				return -1;
			/* The first miss also opened the file: blazesym's does too. */
			steady_count_add(i < DISTINCT ? miss : hit, n);
		}
		/* Checked after the clock: the harness's work, not the symbolizer's. */
		if (!name)
			return -1;
		got[a] = name;
	}
	if (counter < 0) {
		*miss_ms = t1 - t0;
		*hit_ms = now_ms() - t1;
		*heap_kib = steady_heap_kib() - heap;
	}
	close(fd);
	free(table);
	for (i = 0; i < DISTINCT; i++)
		if (name_hash(got[i]) != want_hash[i])
			return -1;
	return 0;
}

/*
 * Whether a client's names are the kernel's: every address the workload
 * asks for answered, with the name of the reference answers.
 */
static int check_answers(const char *mode, const char *workload)
{
	int once = !strcmp(workload, "cold_distinct"), i;

	if (strcmp(mode, "ioctl") && strcmp(mode, "batch"))
		return 0;
	if (!once && strcmp(workload, "profile"))
		return 0;
	for (i = 0; i < SAMPLES; i++) {
		int a = once ? i : stream[i];

		if (a >= DISTINCT)
			break;
		if (!got[a] || name_hash(got[a]) != want_hash[a])
			return 1;
	}
	return 0;
}

/* The Rss of process @pid in KiB, from its page tables (exact), or -1. */
static long rss_now_kib(pid_t pid)
{
	char path[64], line[128];
	long kib = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/smaps_rollup", pid);
	f = fopen(path, "r");
	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "Rss: %ld kB", &kib) == 1)
			break;
	if (f)
		fclose(f);
	return kib;
}

/*
 * Run a client in a fresh process: the time it reports in ms, its peak RSS in
 * KiB (ru_maxrss) and its exact RSS after its last answer, in KiB. The peak is
 * the kernel's count, which since per-CPU RSS counters can lag by up to 32
 * pages a CPU: it moves in steps of about 128 KiB. So the client stops itself
 * after its answer, and its RSS is read then from its page tables. Neither
 * the ioctl nor the batch client frees memory before then, so for them that
 * is the peak too; the text client has freed its sort buffer by then.
 * blazesym's cold also prints how far its peak RSS rose over the run, in
 * KiB, after the time: *@grow_kib, or -1 where it does not. Then come the
 * workload's figures, if it has any.
 */
/* blazesym's addresses: DISTINCT core ones, and a core one then BPF ones. */
#define BLAZESYM_CORE "/tmp/bench_query.blazesym_core"
#define BLAZESYM_BPF "/tmp/bench_query.blazesym_bpf"

/* Runs @mode's client in this process, exec'd: ours, or blazesym's capi_bench. */
static void exec_client(const char *mode, const char *workload)
{
	const char *file = BLAZESYM_CORE;
	char path[64];

	if (strncmp(mode, "blazesym_", 9)) {
		execl("/proc/self/exe", "bench_query", "--client", mode, workload, NULL);
		return;
	}
	/* "blazesym_kq" -> /usr/bin/blazesym-capi-bench-kq; "blazesym_first" -> "first" */
	snprintf(path, sizeof(path), "/usr/bin/blazesym-capi-bench-%s", mode + 9);
	if (!strncmp(workload, "blazesym_bpf_", 13) && strcmp(workload, "blazesym_bpf_gone"))
		file = BLAZESYM_BPF;
	execl(path, path, strcmp(workload, "blazesym_bpf_gone") ? workload + 9 : "gone", file,
	      NULL);
}

/* The most figures a client prints after its time and its RSS growth. */
#define MAX_FIGURES 8

static int measure(const char *mode, const char *workload, double *ms, long *rss_kib,
		   long *rss_end_kib, long *grow_kib, double *figures, int nr_figures)
{
	struct rusage ru;
	char out[256] = "";
	int status, pipefd[2];
	pid_t pid;

	if (pipe(pipefd))
		return -1;
	pid = fork();
	if (pid == 0) {
		dup2(pipefd[1], 1);
		close(pipefd[0]);
		setenv("BENCH_QUERY_STOP", "1", 1);
		exec_client(mode, workload);
		_exit(127);
	}
	close(pipefd[1]);
	if (read(pipefd[0], out, sizeof(out) - 1) <= 0)
		out[0] = 0;
	close(pipefd[0]);
	*rss_end_kib = -1;
	if (wait4(pid, &status, WUNTRACED, &ru) != pid)
		goto reap;
	if (WIFSTOPPED(status)) {
		*rss_end_kib = rss_now_kib(pid);
		kill(pid, SIGCONT);
		if (wait4(pid, &status, 0, &ru) != pid)
			goto reap;
	}
	*grow_kib = -1;
	if (!WIFEXITED(status) || WEXITSTATUS(status) || sscanf(out, "%lf %ld", ms, grow_kib) < 1)
		return -1;
	if (nr_figures) {
		const char *p = out;
		int i, used;

		if (sscanf(p, "%*f %*d%n", &used) != 0 || !used)
			return -1;
		for (i = 0, p += used; i < nr_figures; i++, p += used)
			if (sscanf(p, "%lf%n", &figures[i], &used) != 1)
				return -1;
	}
	if (*rss_end_kib < 0) {
		fprintf(stderr, "bench: no Rss in /proc/%d/smaps_rollup: %s\n", pid,
			"is CONFIG_PROC_PAGE_MONITOR set?");
		return -1;
	}
	*rss_kib = ru.ru_maxrss;
	return 0;
reap:
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	return -1;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* Pick DISTINCT text addresses and a Zipf(1.1)-like stream over them. */
static void make_workload(void)
{
	static unsigned long long text[200000];
	double cdf[DISTINCT], sum = 0;
	FILE *f = fopen("/proc/kallsyms", "r");
	struct kline k;
	int n = 0, i;

	while (n < 200000 && next_kline(f, &k))
		if ((k.type == 't' || k.type == 'T') && !k.mod[0] && k.addr)
			text[n++] = k.addr;
	fclose(f);
	if (n < 2 * DISTINCT) {
		fprintf(stderr, "bench: only %d kernel text addresses: are they hidden?\n", n);
		exit(1);
	}
	srand(42);
	/* Distinct functions: a return address inside each. */
	for (i = 0; i < DISTINCT; i++) {
		int k = rand() % n, j;

		for (j = 0; j < i && addrs[j] != text[k] + 1; j++)
			;
		if (j < i) {
			i--;
			continue;
		}
		addrs[i] = text[k] + 1;
	}
	for (i = 0; i < DISTINCT; i++)
		cdf[i] = (sum += 1.0 / __builtin_pow(i + 1, 1.1));
	for (i = 0; i < SAMPLES; i++) {
		double u = (double)rand() / RAND_MAX * sum;
		int lo = 0, hi = DISTINCT - 1;

		while (lo < hi) {
			int mid = (lo + hi) / 2;

			if (cdf[mid] < u)
				lo = mid + 1;
			else
				hi = mid;
		}
		stream[i] = lo;
	}
	snprintf(probe_name, sizeof(probe_name), "bpf_user_rnd_u32");
}

#define WORKLOAD_FILE "/tmp/bench_query.workload"

/* The kernel's answers, one single query per address, before any client runs. */
static int reference_answers(void)
{
	int fd = open("/proc/kallsyms", O_RDONLY), i;
	char buf[512];

	for (i = 0; i < DISTINCT; i++) {
		if (!ioctl_lookup(fd, addrs[i], buf)) {
			fprintf(stderr, "bench: no symbol at %llx\n", addrs[i]);
			return -1;
		}
		want_hash[i] = name_hash(buf);
	}
	close(fd);
	return 0;
}

/*
 * Load programs until @n are (kept loaded by this process's fds); the first
 * PROGS of them are bpf_prog_id's, the rest only there.
 */
static int load_progs(int n)
{
	static int loaded;
	int i;

	raise_nofile();
	for (i = loaded; i < n; i++, loaded++) {
		struct bpf_prog_info info = {};
		__u32 len = sizeof(info);
		struct prog_syms ps;
		char name[16];
		int fd;

		/*
		 * Each its own code, so each its own tag: a symbolizer that finds a
		 * program by the tag in its name (blazesym) must find this one.
		 */
		struct bpf_insn insns[] = {
			{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0, .imm = i },
			{ .code = BPF_JMP | BPF_EXIT },
		};

		snprintf(name, sizeof(name), "bq_%d", i);
		fd = bpf_prog_load(BPF_PROG_TYPE_SOCKET_FILTER, name, "GPL", insns, 2, NULL);
		if (fd < 0)
			return -1;
		if (i >= PROGS)
			continue;
		if (prog_syms(fd, &ps) || bpf_obj_get_info_by_fd(fd, &info, &len))
			return -1;
		prog_addrs[i] = ps.addr[0] + 1;
		prog_ids[i] = info.id;
	}
	return 0;
}

/* What each workload measures, and with which clients. */
/*
 * A figure a client prints after its time and RSS growth, a row of its own:
 * <workload>_<name>. Of the runs, the median; of a max, the largest; with
 * is_max -1, the least.
 */
struct figure {
	const char *name, *unit;
	int n, is_max;
};

static const struct figure steady_figures[] = {
	{ "miss_us", "us", DISTINCT, 0 },
	{ "hit_us", "us", STEADY_CALLS - DISTINCT, 0 },
	{ "syscalls_miss_max", "calls", DISTINCT, 1 },
	{ "syscalls_miss_mean", "calls", DISTINCT, 0 },
	{ "syscalls_hit_max", "calls", STEADY_CALLS - DISTINCT, 1 },
	{ "syscalls_hit_mean", "calls", STEADY_CALLS - DISTINCT, 0 },
	{ "heap_kib", "KiB", DISTINCT, 0 },
};

/* steady_figures' heap_kib. */
#define STEADY_HEAP_FIGURE (ARRAY_SIZE(steady_figures) - 1)

static const struct figure gone_figures[] = {
	{ "syscalls_max", "calls", GONE_CALLS, 1 },
	{ "syscalls_mean", "calls", GONE_CALLS, 0 },
	/* 1 if any run still named the address: wrongly, it is gone. */
	{ "named", "calls", GONE_CALLS, 1 },
};

static const struct figure late_figures[] = {
	{ "syscalls", "calls", 1, 1 },
	/* 1 if the late program was named right: the least of the runs (is_max -1). */
	{ "named", "calls", 1, -1 },
};

/*
 * What each workload measures, with which clients; a client's time is for
 * @per calls (its unit per call), and its figures follow.
 */
static const struct workload {
	const char *name;
	int n;
	const char *unit;
	const char *clients[3];
	int per;
	const struct figure *figures;
	int nr_figures;
} workloads[] = {
	{ "profile", SAMPLES, "ms", { "text", "ioctl", "batch" } },
	{ "by_name_cold", 1, "ms", { "text", "ioctl" } },
	{ "by_addr_cold", 1, "ms", { "text", "ioctl" } },
	{ "cold_distinct", DISTINCT, "ms", { "ioctl", "batch" } },
	/* Per lookup: scan times SCANNED lookups, ioctl all PROGS. */
	{ "bpf_prog_id", PROGS, "us", { "scan", "ioctl" } },
	{ "blazesym_first", 1, "ms", { "blazesym_text", "blazesym_kq" } },
	{ "blazesym_cold", DISTINCT, "ms", { "blazesym_text", "blazesym_kq" } },
	{ "blazesym_first_warm", 1, "ms", { "blazesym_text", "blazesym_kq" } },
	{ "blazesym_cold_warm", DISTINCT, "ms", { "blazesym_text", "blazesym_kq" } },
	/*
	 * Published blazesym walks every program on the first JIT address and
	 * keeps their tags; per address after that, one in each of the other
	 * programs, both clients open the program by id.
	 */
	{ "blazesym_bpf_first", 1, "ms", { "blazesym_text", "blazesym_kq" } },
	{ "blazesym_bpf_info", PROGS - 1, "us", { "blazesym_text", "blazesym_kq" } },
	/* bpftrace's pattern, through blazesym's C API (steady.h), per call. */
	{ "blazesym_steady", STEADY_CALLS, "us", { "ioctl_cached", "blazesym_text", "blazesym_kq" },
	  STEADY_CALLS, steady_figures, ARRAY_SIZE(steady_figures) },
	/* A program named, then closed: its address asked again and again, per call. */
	{ "blazesym_bpf_gone", GONE_CALLS, "us", { "blazesym_text", "blazesym_kq" },
	  GONE_CALLS, gone_figures, ARRAY_SIZE(gone_figures) },
	/* A program loaded after the symbolizer's first use: its first call. */
	{ "blazesym_late", 1, "us", { "blazesym_text", "blazesym_kq" }, 1, late_figures,
	  ARRAY_SIZE(late_figures) },
};

/* churn_latency: calls per phase, and the batch's entries. */
#define CHURN_SINGLES 5000
#define CHURN_BATCHES 100
#define CHURN_ENTRIES KALLSYMS_QUERY_BATCH_MAX

static atomic_bool churn_stop;
static atomic_long churned;

/* Loads and closes a trivial program, again and again: a ksym added and removed each time. */
static void *churn(void *arg)
{
	while (!atomic_load(&churn_stop)) {
		int fd = load_tiny_prog("bq_churn");

		if (fd >= 0) {
			close(fd);
			atomic_fetch_add(&churned, 1);
		}
	}
	return NULL;
}

static double now_us(void)
{
	return now_ms() * 1e3;
}

/* The p99 and the max of @n latencies (sorted in place). */
static void p99_max(double *us, int n, double *p99, double *max)
{
	qsort(us, n, sizeof(*us), cmp_double);
	*p99 = us[n * 99 / 100];
	*max = us[n - 1];
}

/*
 * One phase: CHURN_SINGLES single queries and CHURN_BATCHES full batches,
 * each timed; their p99 and max into @single and @batch. -1 if a call fails.
 */
static int churn_phase(int fd, struct kallsyms_query_addr *e, char *names, size_t names_size,
		       double single[2], double batch[2])
{
	static double us[CHURN_SINGLES];
	struct kallsyms_query q;
	char name[KALLSYMS_QUERY_NAME_LEN];
	int i, j;

	for (i = 0; i < CHURN_SINGLES; i++) {
		double t0 = now_us();

		if (kq_query(fd, &q, KALLSYMS_QUERY_BY_ADDR, prog_addrs[i % PROGS], NULL, name,
			     sizeof(name)))
			return -1;
		us[i] = now_us() - t0;
	}
	p99_max(us, CHURN_SINGLES, &single[0], &single[1]);
	for (i = 0; i < CHURN_BATCHES; i++) {
		double t0 = now_us();
		unsigned int done = 0;

		for (j = 0; j < CHURN_ENTRIES; j++)
			e[j].addr = j % 2 ? prog_addrs[j / 2 % PROGS] : addrs[j / 2 % DISTINCT];
		while (done < CHURN_ENTRIES) {
			memset(&q, 0, sizeof(q));
			q.size = sizeof(q);
			q.query_flags = KALLSYMS_QUERY_BY_ADDR_BATCH;
			q.batch_addr = (unsigned long)&e[done];
			q.batch_count = CHURN_ENTRIES - done;
			q.batch_entry_size = sizeof(*e);
			q.sym_name_addr = (unsigned long)names;
			q.sym_name_size = names_size;
			if (ioctl(fd, KALLSYMS_QUERY, &q) || !q.batch_count)
				return -1;
			done += q.batch_count;
		}
		us[i] = now_us() - t0;
	}
	p99_max(us, CHURN_BATCHES, &batch[0], &batch[1]);
	return 0;
}

/* churn_latency: idle, then under a churner per CPU. Prints its two rows; 0 or -1. */
static int churn_latency(void)
{
	int ncpu = sysconf(_SC_NPROCESSORS_ONLN), fd = open("/proc/kallsyms", O_RDONLY), i;
	size_t names_size = CHURN_ENTRIES * (KALLSYMS_QUERY_NAME_LEN + 64);
	struct kallsyms_query_addr *e = calloc(CHURN_ENTRIES, sizeof(*e));
	char *names = malloc(names_size);
	double idle[2][2], busy[2][2];
	pthread_t t[64];
	int err;

	if (fd < 0 || !e || !names || churn_phase(fd, e, names, names_size, idle[0], idle[1]))
		return -1;
	for (i = 0; i < ncpu && i < 64; i++)
		pthread_create(&t[i], NULL, churn, NULL);
	err = churn_phase(fd, e, names, names_size, busy[0], busy[1]);
	atomic_store(&churn_stop, true);
	while (i--)
		pthread_join(t[i], NULL);
	close(fd);
	free(e);
	free(names);
	if (err || !atomic_load(&churned))
		return -1;
	for (i = 0; i < 2; i++) {
		printf("BENCH query workload=%s n=%d unit=us", i ? "churn_batch" : "churn_single",
		       i ? CHURN_BATCHES : CHURN_SINGLES);
		printf(" idle_p99=%.1f idle_max=%.1f", idle[i][0], idle[i][1]);
		printf(" churn_p99=%.1f churn_max=%.1f churned=%ld\n", busy[i][0], busy[i][1],
		       atomic_load(&churned));
	}
	return 0;
}

/* The address files of blazesym's clients; 0 or -1. */
static int write_blazesym_addrs(void)
{
	FILE *core = fopen(BLAZESYM_CORE, "w"), *bpf = fopen(BLAZESYM_BPF, "w");
	int i, ok = core && bpf;

	for (i = 0; ok && i < DISTINCT; i++)
		ok = fprintf(core, "%llx\n", addrs[i]) > 0;
	/* bpf_info's first address warms the symbolizer up, untimed. */
	ok = ok && fprintf(bpf, "%llx\n", addrs[0]) > 0;
	for (i = 0; ok && i < PROGS; i++)
		ok = fprintf(bpf, "%llx\n", prog_addrs[i]) > 0;
	if (core && fclose(core))
		ok = 0;
	if (bpf && fclose(bpf))
		ok = 0;
	return ok ? 0 : -1;
}

static int rw_workload(const char *mode)
{
	FILE *f = fopen(WORKLOAD_FILE, mode);
	int ok;

	if (!f)
		return -1;
	if (mode[0] == 'w')
		ok = fwrite(addrs, sizeof(addrs), 1, f) == 1 &&
		     fwrite(want_hash, sizeof(want_hash), 1, f) == 1 &&
		     fwrite(stream, sizeof(stream), 1, f) == 1 &&
		     fwrite(prog_addrs, sizeof(prog_addrs), 1, f) == 1 &&
		     fwrite(prog_ids, sizeof(prog_ids), 1, f) == 1;
	else
		ok = fread(addrs, sizeof(addrs), 1, f) == 1 &&
		     fread(want_hash, sizeof(want_hash), 1, f) == 1 &&
		     fread(stream, sizeof(stream), 1, f) == 1 &&
		     fread(prog_addrs, sizeof(prog_addrs), 1, f) == 1 &&
		     fread(prog_ids, sizeof(prog_ids), 1, f) == 1;
	return fclose(f) || !ok ? -1 : 0;
}

/*
 * The heap a symbolizer takes for blazesym_steady's pass (its heap_kib
 * figure), with @progs programs loaded: the median of HEAP_RUNS runs of each
 * of its clients. A row "blazesym_heap_<progs>_progs"; 0 or -1.
 */
static int heap_at(int progs)
{
	const struct workload *wl = workloads;
	double heap[3][HEAP_RUNS];
	int m, r;

	while (strcmp(wl->name, "blazesym_steady"))
		wl++;
	assert(!strcmp(wl->figures[STEADY_HEAP_FIGURE].name, "heap_kib"));
	if (load_progs(progs))
		return -1;
	for (r = 0; r < HEAP_RUNS; r++)
		for (m = 0; m < 3; m++) {
			double ms, fig[MAX_FIGURES];
			long kib, end_kib, grow_kib;

			if (measure(wl->clients[m], wl->name, &ms, &kib, &end_kib, &grow_kib, fig,
				    wl->nr_figures))
				return -1;
			heap[m][r] = fig[STEADY_HEAP_FIGURE];
		}
	printf("BENCH query workload=blazesym_heap_%d_progs n=%d unit=KiB", progs, DISTINCT);
	for (m = 0; m < 3; m++) {
		qsort(heap[m], HEAP_RUNS, sizeof(double), cmp_double);
		printf(" %s=%.3f", wl->clients[m], heap[m][HEAP_RUNS / 2]);
	}
	printf("\n");
	return 0;
}

int main(int argc, char **argv)
{
	long rss[3] = { 0, 0, 0 }, rss_end[3] = { 0, 0, 0 };
	long blazesym_grow[2] = { -1, -1 }, blazesym_rss[2] = { 0, 0 };
	unsigned int w;
	int m, r;

	if (argc == 4 && !strcmp(argv[1], "--client")) {
		double t0, ms;
		int err;

		if (rw_workload("r"))
			return 2;
		if (!strcmp(argv[3], "blazesym_steady"))
			return strcmp(argv[2], "ioctl_cached") ? 2 : steady_run(steady_pass);
		snprintf(probe_name, sizeof(probe_name), "bpf_user_rnd_u32");
		t0 = now_ms();
		err = client(argv[2], argv[3]);
		ms = now_ms() - t0;
		if (!strcmp(argv[3], "bpf_prog_id"))	/* per lookup, in us */
			ms = ms * 1e3 / (!strcmp(argv[2], "scan") ? SCANNED : PROGS);
		if (!err && check_answers(argv[2], argv[3])) {
			fprintf(stderr, "bench: %s client's names are not the kernel's\n", argv[2]);
			err = 1;
		}
		printf("%.4f\n", ms);
		/* Stopped, for measure() to read our RSS; not when run by hand. */
		fflush(stdout);
		if (getenv("BENCH_QUERY_STOP"))
			raise(SIGSTOP);
		return err;
	}
	make_workload();
	if (reference_answers())
		return 1;
	/* The clients' files; again once programs are loaded, for their addresses. */
	for (r = 0; r < 2; r++) {
		if (r && load_progs(PROGS)) {
			fprintf(stderr, "bench: could not load %d programs\n", PROGS);
			return 1;
		}
		if (rw_workload("w"))
			return 1;
		if (access("/usr/bin/blazesym-capi-bench-kq", X_OK) ||
		    access("/usr/bin/blazesym-capi-bench-text", X_OK) || write_blazesym_addrs()) {
			fprintf(stderr, "bench: no %s, or %s not written: %s\n",
				"/usr/bin/blazesym-capi-bench-{kq,text}",
				"blazesym's address files", strerror(errno));
			return 1;
		}
		/* The symbolizers' heap with no program loaded; with many, last. */
		if (!r && heap_at(0)) {
			fprintf(stderr, "bench: blazesym_heap failed with no program loaded\n");
			return 1;
		}
	}
	for (w = 0; w < ARRAY_SIZE(workloads); w++) {
		const struct workload *wl = &workloads[w];
		int clients = wl->clients[2] ? 3 : 2, f;
		double ms[3][RUNS], figures[3][MAX_FIGURES][RUNS];

		/* Interleaved: one run of each client, RUNS times. */
		for (r = 0; r < RUNS; r++)
			for (m = 0; m < clients; m++) {
				double fig[MAX_FIGURES];
				long kib, end_kib, grow_kib;

				if (measure(wl->clients[m], wl->name, &ms[m][r], &kib, &end_kib,
					    &grow_kib, fig, wl->nr_figures)) {
					fprintf(stderr, "bench: %s client failed on %s\n",
						wl->clients[m], wl->name);
					return 1;
				}
				if (wl->per) {
					/* Per call, in us. */
					ms[m][r] *= 1e3 / wl->per;
					for (f = 0; f < wl->nr_figures; f++)
						figures[m][f][r] = fig[f];
				}
				if (w == 0 && kib > rss[m])
					rss[m] = kib;
				if (w == 0 && end_kib > rss_end[m])
					rss_end[m] = end_kib;
				if (strcmp(wl->name, "blazesym_cold"))
					continue;
				if (grow_kib < 0) {
					fprintf(stderr, "bench: %s printed no RSS growth\n",
						wl->clients[m]);
					return 1;
				}
				if (grow_kib > blazesym_grow[m])
					blazesym_grow[m] = grow_kib;
				if (kib > blazesym_rss[m])
					blazesym_rss[m] = kib;
			}
		printf("BENCH query workload=%s n=%d unit=%s", wl->name, wl->n, wl->unit);
		for (m = 0; m < clients; m++) {
			qsort(ms[m], RUNS, sizeof(double), cmp_double);
			printf(" %s=%.3f", wl->clients[m], ms[m][RUNS / 2]);
		}
		printf("\n");
		for (f = 0; f < wl->nr_figures; f++) {
			const struct figure *fg = &wl->figures[f];

			printf("BENCH query workload=%s_%s n=%d unit=%s", wl->name, fg->name, fg->n,
			       fg->unit);
			for (m = 0; m < clients; m++) {
				qsort(figures[m][f], RUNS, sizeof(double), cmp_double);
				printf(" %s=%.3f", wl->clients[m],
				       figures[m][f][fg->is_max > 0 ? RUNS - 1 :
						     fg->is_max < 0 ? 0 : RUNS / 2]);
			}
			printf("\n");
		}
	}
	printf("BENCH query workload=rss_kib n=%d unit=KiB text=%ld ioctl=%ld batch=%ld\n",
	       SAMPLES, rss[0], rss[1], rss[2]);
	printf("BENCH query workload=rss_end_kib n=%d unit=KiB text=%ld ioctl=%ld batch=%ld\n",
	       SAMPLES, rss_end[0], rss_end[1], rss_end[2]);
	/*
	 * Of blazesym_cold's runs: the process's peak RSS, and the most a
	 * symbolizer raised it.
	 */
	printf("BENCH query workload=blazesym_rss_kib n=%d unit=KiB", DISTINCT);
	printf(" blazesym_text=%ld blazesym_kq=%ld\n", blazesym_rss[0], blazesym_rss[1]);
	printf("BENCH query workload=blazesym_rss_growth_kib n=%d unit=KiB", DISTINCT);
	printf(" blazesym_text=%ld blazesym_kq=%ld\n", blazesym_grow[0], blazesym_grow[1]);
	if (churn_latency()) {
		fprintf(stderr, "bench: churn_latency failed: %s\n", strerror(errno));
		return 1;
	}
	if (heap_at(HEAP_PROGS)) {
		fprintf(stderr, "bench: blazesym_heap failed with %d programs loaded: %s\n",
			HEAP_PROGS, strerror(errno));
		return 1;
	}
	return 0;
}
