// SPDX-License-Identifier: GPL-2.0
/*
 * Guest side of `make bench`: the userspace workloads, with N programs
 * resident for each N on the command line (increasing). For each N it prints
 *
 *   BENCH workload=<w> n=<N> value=<v> unit=<u> ops=<k>
 *
 * kallsyms_read_core  full read of /proc/kallsyms before any program is loaded
 *                     (N = 0, printed once, first), ms
 * iter_ksym_read_core the same walk through iter/ksym with upstream's program
 *                     (bpf_iter_ksym.bpf.o of the kselftests), N = 0, ms
 * kallsyms_read       full read of /proc/kallsyms (median of several), ms
 * query_by_addr_bpf   KALLSYMS_QUERY BY_ADDR inside a random resident program, us
 * query_by_addr_core  KALLSYMS_QUERY BY_ADDR on a core kernel function, us
 * query_by_symbol     KALLSYMS_QUERY BY_SYMBOL of a core kernel function, us
 * prog_load_unload    load and close one more program, us
 *
 * Every query answer is checked; a wrong one prints "BENCH WRONG ..." and the
 * program exits 1, so a fast wrong answer never makes a figure.
 */
#include <fcntl.h>
#include <stdarg.h>
#include <sys/ioctl.h>
#include <time.h>

#include "kselftest.h"
#include "ksym_util.h"

#define QUERIES		10000
#define LOAD_PAIRS	300
#define CORE_SAMPLE	2048
/* Upstream's iter/ksym program, as the kselftests install it in the guest. */
#define ITER_OBJ	"/kselftest/bpf_ksym/bpf_iter_ksym.bpf.o"

struct prog {
	unsigned long long addr;
	unsigned int len;
};

static struct prog *progs;
static int nr_progs;

struct core_sym {
	unsigned long long addr;
	char name[128];
};

static struct core_sym core[CORE_SAMPLE];
static int nr_core;

static unsigned long long rng = 0x9e3779b97f4a7c15ull;

static unsigned int below(unsigned int n)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return ((rng >> 32) * n) >> 32;
}

static double now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static void figure(const char *workload, int n, double value, const char *unit, int ops)
{
	printf("BENCH workload=%s n=%d value=%.4f unit=%s ops=%d\n", workload, n, value,
	       unit, ops);
	fflush(stdout);
}

/* A wrong answer: say which, and give no figure at all. */
static void __printf(3, 4) wrong(const char *workload, int n, const char *fmt, ...)
{
	va_list ap;

	printf("BENCH WRONG workload=%s n=%d: ", workload, n);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	exit(1);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/*
 * One full read, 64 KiB at a time as cat does; returns ms, counts [bpf] lines.
 * A read may end inside a line: the last 5 bytes of each are kept in front of
 * the next, so a "[bpf]\n" across two reads is counted once.
 */
static double read_all(long *bpf_lines, long *lines)
{
	static char buf[5 + (1 << 16)];
	int fd = open("/proc/kallsyms", O_RDONLY);
	double t0 = now_us();
	ssize_t r, i;

	if (fd < 0)
		wrong("kallsyms_read", 0, "open /proc/kallsyms: %s", strerror(errno));
	*bpf_lines = *lines = 0;
	memset(buf, 0, 5);
	while ((r = read(fd, buf + 5, sizeof(buf) - 5)) > 0) {
		for (i = 5; i < 5 + r; i++)
			if (buf[i] == '\n') {
				(*lines)++;
				*bpf_lines += !memcmp(buf + i - 5, "[bpf]", 5);
			}
		memmove(buf, buf + r, 5);
	}
	close(fd);
	return (now_us() - t0) / 1e3;
}

/*
 * The core kernel's lines alone, the cost every profiler's start pays: no BPF
 * program is loaded yet. Also prints the lines read, for a cost per line.
 */
static long bench_read_core(void)
{
	long bpf_lines, lines;
	double ms[5];
	int i;

	read_all(&bpf_lines, &lines);	/* warm up */
	for (i = 0; i < 5; i++) {
		ms[i] = read_all(&bpf_lines, &lines);
		if (bpf_lines || lines < 10000)
			wrong("kallsyms_read_core", 0, "%ld lines, %ld of them [bpf]", lines,
			      bpf_lines);
	}
	qsort(ms, 5, sizeof(ms[0]), cmp_double);
	printf("BENCH lines workload=kallsyms_read_core n=0 lines=%ld\n", lines);
	figure("kallsyms_read_core", 0, ms[2], "ms", 5);
	return lines;
}

/* One read of a new iter/ksym file of @link; returns ms, counts lines. */
static double read_iter(struct bpf_link *link, long *lines)
{
	static char buf[1 << 16];
	double t0 = now_us();
	int fd = bpf_iter_create(bpf_link__fd(link));
	ssize_t r, i;

	if (fd < 0)
		wrong("iter_ksym_read_core", 0, "bpf_iter_create: %s", strerror(errno));
	*lines = 0;
	while ((r = read(fd, buf, sizeof(buf))) > 0)
		for (i = 0; i < r; i++)
			*lines += buf[i] == '\n';
	if (r < 0)
		wrong("iter_ksym_read_core", 0, "read: %s", strerror(errno));
	close(fd);
	return (now_us() - t0) / 1e3;
}

/*
 * The core kernel's symbols through iter/ksym, as a BPF tool dumps them. The
 * program's own symbol is the one BPF line; it prints a header line too, so
 * it gives @kallsyms_lines + 2 lines when it sees every symbol.
 */
static void bench_iter_core(long kallsyms_lines)
{
	struct bpf_object *obj = bpf_object__open_file(ITER_OBJ, NULL);
	struct bpf_program *prog;
	struct bpf_link *link;
	double ms[5];
	long lines;
	int i;

	if (!obj || bpf_object__load(obj))
		wrong("iter_ksym_read_core", 0, "cannot load %s: %s", ITER_OBJ, strerror(errno));
	prog = bpf_object__find_program_by_name(obj, "dump_ksym");
	link = prog ? bpf_program__attach_iter(prog, NULL) : NULL;
	if (!link)
		wrong("iter_ksym_read_core", 0, "cannot attach dump_ksym: %s", strerror(errno));
	read_iter(link, &lines);	/* warm up */
	for (i = 0; i < 5; i++) {
		ms[i] = read_iter(link, &lines);
		if (lines != kallsyms_lines + 2)
			wrong("iter_ksym_read_core", 0, "%ld lines, /proc/kallsyms had %ld", lines,
			      kallsyms_lines);
	}
	qsort(ms, 5, sizeof(ms[0]), cmp_double);
	printf("BENCH lines workload=iter_ksym_read_core n=0 lines=%ld\n", lines);
	figure("iter_ksym_read_core", 0, ms[2], "ms", 5);
	bpf_link__destroy(link);
	bpf_object__close(obj);
}

/* Past 10k symbols the C registry takes seconds per read: fewer reads there. */
static void bench_read(int n)
{
	int reads = n >= 10000 ? 3 : 5, i;
	long bpf_lines, lines;
	double ms[5];

	if (n < 10000)
		read_all(&bpf_lines, &lines);	/* warm up */
	for (i = 0; i < reads; i++) {
		ms[i] = read_all(&bpf_lines, &lines);
		if (bpf_lines < n)
			wrong("kallsyms_read", n, "%ld [bpf] lines", bpf_lines);
	}
	qsort(ms, reads, sizeof(ms[0]), cmp_double);
	figure("kallsyms_read", n, ms[reads / 2], "ms", reads);
}

static void bench_query_bpf(int fd, int n)
{
	struct kallsyms_query q;
	char buf[512], want[16];
	double t0, t = 0;
	int i, k;

	for (i = 0; i < QUERIES; i++) {
		k = below(nr_progs);
		t0 = now_us();
		if (kq_query(fd, &q, KALLSYMS_QUERY_BY_ADDR, progs[k].addr + below(progs[k].len),
			     NULL, buf, sizeof(buf)))
			wrong("query_by_addr_bpf", n, "errno %d", errno);
		t += now_us() - t0;
		snprintf(want, sizeof(want), "_kb%05d", k);
		if (q.sym_start != progs[k].addr || strncmp(buf, "bpf_prog_", 9) ||
		    strlen(buf) < 9 + strlen(want) ||
		    strcmp(buf + strlen(buf) - strlen(want), want) || strcmp(q.sym_owner, "bpf"))
			wrong("query_by_addr_bpf", n, "wrong symbol for program %d", k);
	}
	figure("query_by_addr_bpf", n, t / QUERIES, "us", QUERIES);
}

static void bench_query_core(int fd, int n)
{
	struct kallsyms_query q;
	double t0, t = 0;
	char buf[512];
	int i, k;

	for (i = 0; i < QUERIES; i++) {
		k = below(nr_core);
		t0 = now_us();
		if (kq_query(fd, &q, KALLSYMS_QUERY_BY_ADDR, core[k].addr, NULL, buf, sizeof(buf)))
			wrong("query_by_addr_core", n, "errno %d", errno);
		t += now_us() - t0;
		if (q.sym_start != core[k].addr || q.sym_owner[0])
			wrong("query_by_addr_core", n, "wrong symbol at %llx", core[k].addr);
	}
	figure("query_by_addr_core", n, t / QUERIES, "us", QUERIES);

	for (i = 0, t = 0; i < QUERIES; i++) {
		k = below(nr_core);
		t0 = now_us();
		if (kq_query(fd, &q, KALLSYMS_QUERY_BY_SYMBOL, 0, core[k].name, NULL, 0))
			wrong("query_by_symbol", n, "errno %d", errno);
		t += now_us() - t0;
		if (q.sym_addr != core[k].addr)
			wrong("query_by_symbol", n, "wrong address for core symbol %d", k);
	}
	figure("query_by_symbol", n, t / QUERIES, "us", QUERIES);
}

/*
 * Core functions whose name has one address and whose address has this one
 * symbol start: an even sample over the whole text, checked once, untimed.
 */
static void sample_core(int fd)
{
	FILE *f = fopen("/proc/kallsyms", "r");
	struct kallsyms_query q;
	struct kline k;
	char buf[512];
	long line = 0;

	while (f && nr_core < CORE_SAMPLE && next_kline(f, &k)) {
		if (line++ % 16 || (k.type != 't' && k.type != 'T') || k.mod[0] ||
		    strlen(k.sym) >= sizeof(core[0].name))
			continue;
		if (kq_query(fd, &q, KALLSYMS_QUERY_BY_SYMBOL, 0, k.sym, NULL, 0) ||
		    q.sym_addr != k.addr ||
		    kq_query(fd, &q, KALLSYMS_QUERY_BY_ADDR, k.addr, NULL, buf, sizeof(buf)) ||
		    q.sym_start != k.addr)
			continue;
		core[nr_core].addr = k.addr;
		snprintf(core[nr_core].name, sizeof(core[nr_core].name), "%s", k.sym);
		nr_core++;
	}
	if (f)
		fclose(f);
	if (nr_core < CORE_SAMPLE / 4)
		wrong("query_by_addr_core", 0, "only %d usable core symbols", nr_core);
}

static void load_to(int n)
{
	struct prog_syms ps;
	char name[16];
	int fd;

	for (; nr_progs < n; nr_progs++) {
		snprintf(name, sizeof(name), "kb%05d", nr_progs);
		fd = load_tiny_prog(name);
		if (fd < 0 || prog_syms(fd, &ps) || ps.nr != 1) {
			fprintf(stderr, "bench: loading program %d: %s\n", nr_progs,
				strerror(errno));
			exit(1);
		}
		progs[nr_progs].addr = ps.addr[0];
		progs[nr_progs].len = ps.len[0];
	}
}

static void bench_load_unload(int n)
{
	double t0 = now_us();
	int i, fd;

	for (i = 0; i < LOAD_PAIRS; i++) {
		fd = load_tiny_prog("kb_churn");
		if (fd < 0)
			wrong("prog_load_unload", n, "load failed, errno %d", errno);
		close(fd);
	}
	figure("prog_load_unload", n, (now_us() - t0) / LOAD_PAIRS, "us", LOAD_PAIRS);
}

int main(int argc, char **argv)
{
	int fd, a, n, max = 0;

	for (a = 1; a < argc; a++)
		if (atoi(argv[a]) > max)
			max = atoi(argv[a]);
	progs = calloc(max + 1, sizeof(*progs));
	fd = open("/proc/kallsyms", O_RDONLY);
	if (!progs || fd < 0) {
		perror("bench: setup");
		return 1;
	}
	raise_nofile();
	sample_core(fd);
	bench_iter_core(bench_read_core());
	for (a = 1; a < argc; a++) {
		n = atoi(argv[a]);
		load_to(n);
		bench_read(n);
		bench_query_bpf(fd, n);
		bench_query_core(fd, n);
		bench_load_unload(n);
	}
	close(fd);
	return 0;
}
