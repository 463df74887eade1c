// SPDX-License-Identifier: GPL-2.0
/*
 * Guest side of `make bench-query`: the same symbolizer client two ways.
 *  text:  read and parse /proc/kallsyms into a sorted table once (as perf and
 *         blazesym do), then look up;
 *  ioctl: ask KALLSYMS_QUERY, caching per distinct address (as Perfetto does).
 * Each client runs in a freshly exec'd process, cold: it times itself from
 * before it first touches /proc/kallsyms (table build or first query
 * included) to its last answer, and the parent reads its peak RSS. Prints
 * "BENCH query workload=<w> n=<n> text=<x> ioctl=<y> unit=<u>".
 */
#include <fcntl.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>

#include "kselftest.h"
#include "ksym_util.h"

#define DISTINCT 2000
#define SAMPLES 50000
#define RUNS 5

static unsigned long long addrs[DISTINCT];
static int stream[SAMPLES];
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

static int by_addr_cmp(const void *a, const void *b)
{
	const struct entry *x = a, *y = b;

	return (x->addr > y->addr) - (x->addr < y->addr);
}

/* The text client's table: every line, names copied, sorted by address. */
static struct entry *load_table(size_t *n)
{
	FILE *f = fopen("/proc/kallsyms", "r");
	size_t cap = 1 << 17;
	struct entry *t = malloc(cap * sizeof(*t));
	struct kline k;

	*n = 0;
	while (next_kline(f, &k)) {
		if (*n == cap)
			t = realloc(t, (cap *= 2) * sizeof(*t));
		t[*n].addr = k.addr;
		t[(*n)++].name = strdup(k.sym);
	}
	fclose(f);
	qsort(t, *n, sizeof(*t), by_addr_cmp);
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

static const char *ioctl_lookup(int fd, unsigned long long addr, char *buf)
{
	struct kallsyms_query q = {
		.size = KALLSYMS_QUERY_SIZE_VER0,
		.query_flags = KALLSYMS_QUERY_BY_ADDR,
		.sym_addr = addr,
		.sym_name_addr = (unsigned long)buf,
		.sym_name_size = 512,
	};

	return ioctl(fd, KALLSYMS_QUERY, &q) ? NULL : buf;
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

	if (!strcmp(mode, "text")) {
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
		char **cache = calloc(DISTINCT, sizeof(*cache));

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
		for (i = 0; i < SAMPLES; i++) {
			int a = stream[i];

			if (!cache[a]) {
				if (!ioctl_lookup(fd, addrs[a], buf))
					return 1;
				cache[a] = strdup(buf);
			}
			sink += cache[a][0];
		}
	}
	do_not_optimize(sink);
	return 0;
}

/* Run a client in a fresh process: the time it reports in ms, its peak RSS in KiB. */
static int measure(const char *mode, const char *workload, double *ms, long *rss_kib)
{
	struct rusage ru;
	char out[64] = "";
	int status, pipefd[2];
	pid_t pid;

	if (pipe(pipefd))
		return -1;
	pid = fork();
	if (pid == 0) {
		dup2(pipefd[1], 1);
		close(pipefd[0]);
		execl("/proc/self/exe", "bench_query", "--client", mode, workload, NULL);
		_exit(127);
	}
	close(pipefd[1]);
	if (read(pipefd[0], out, sizeof(out) - 1) <= 0)
		out[0] = 0;
	close(pipefd[0]);
	if (wait4(pid, &status, 0, &ru) != pid || !WIFEXITED(status) || WEXITSTATUS(status) ||
	    sscanf(out, "%lf", ms) != 1)
		return -1;
	*rss_kib = ru.ru_maxrss;
	return 0;
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
	srand(42);
	for (i = 0; i < DISTINCT; i++)
		addrs[i] = text[(rand() % n)] + 1;	/* a return address inside */
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

int main(int argc, char **argv)
{
	static const struct { const char *name; int n; } workloads[] = {
		{ "profile", SAMPLES }, { "by_name_cold", 1 }, { "by_addr_cold", 1 },
	};
	long rss[2] = { 0, 0 };
	unsigned int w;
	int m, r;

	if (argc == 4 && !strcmp(argv[1], "--client")) {
		FILE *f = fopen(WORKLOAD_FILE, "r");

		if (!f || fread(addrs, sizeof(addrs), 1, f) != 1 ||
		    fread(stream, sizeof(stream), 1, f) != 1)
			return 2;
		fclose(f);
		double t0, ms;
		int err;

		snprintf(probe_name, sizeof(probe_name), "bpf_user_rnd_u32");
		t0 = now_ms();
		err = client(argv[2], argv[3]);
		ms = now_ms() - t0;
		printf("%.4f\n", ms);
		return err;
	}
	make_workload();
	{
		FILE *f = fopen(WORKLOAD_FILE, "w");

		if (!f || fwrite(addrs, sizeof(addrs), 1, f) != 1 ||
		    fwrite(stream, sizeof(stream), 1, f) != 1 || fclose(f))
			return 1;
	}
	for (w = 0; w < ARRAY_SIZE(workloads); w++) {
		double ms[2][RUNS];

		/* Interleaved: text, ioctl, text, ioctl, ... */
		for (r = 0; r < RUNS; r++)
			for (m = 0; m < 2; m++) {
				long kib;

				if (measure(m ? "ioctl" : "text", workloads[w].name, &ms[m][r],
					    &kib)) {
					fprintf(stderr, "bench: %s client failed on %s\n",
						m ? "ioctl" : "text", workloads[w].name);
					return 1;
				}
				if (w == 0 && kib > rss[m])
					rss[m] = kib;
			}
		qsort(ms[0], RUNS, sizeof(double), cmp_double);
		qsort(ms[1], RUNS, sizeof(double), cmp_double);
		printf("BENCH query workload=%s n=%d text=%.3f ioctl=%.3f unit=ms\n",
		       workloads[w].name, workloads[w].n, ms[0][RUNS / 2], ms[1][RUNS / 2]);
	}
	printf("BENCH query workload=rss_kib n=%d text=%ld ioctl=%ld unit=KiB\n", SAMPLES,
	       rss[0], rss[1]);
	return 0;
}
