// SPDX-License-Identifier: GPL-2.0
/*
 * Guest side of `make bench-kallsyms`: load programs up to each N given on
 * the command line and time full reads of /proc/kallsyms. Prints one line per
 * N: "BENCH kallsyms_read n=<N> ms=<median> lines=<L> bpf_lines=<B> reads=<R>".
 */
#include <fcntl.h>
#include <time.h>

#include "ksym_util.h"

#define READS 5

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* One full read, 64 KiB at a time (as cat does); counts lines and [bpf] lines. */
static double read_all(long *lines, long *bpf_lines)
{
	static char buf[1 << 16];
	int fd = open("/proc/kallsyms", O_RDONLY);
	double t0 = now_ms(), t;
	ssize_t r, i;

	*lines = *bpf_lines = 0;
	while ((r = read(fd, buf, sizeof(buf))) > 0)
		for (i = 0; i < r; i++)
			if (buf[i] == '\n') {
				(*lines)++;
				if (i >= 5 && !memcmp(buf + i - 5, "[bpf]", 5))
					(*bpf_lines)++;
			}
	t = now_ms() - t0;
	close(fd);
	return t;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
	int loaded = 0, a, i;

	raise_nofile();
	for (a = 1; a < argc; a++) {
		int n = atoi(argv[a]);
		double ms[READS];
		long lines, bpf_lines;
		char name[16];

		for (; loaded < n; loaded++) {
			snprintf(name, sizeof(name), "kb%05d", loaded);
			if (load_tiny_prog(name) < 0) {
				fprintf(stderr, "bench: loading program %d: %s\n", loaded,
					strerror(errno));
				return 1;
			}
		}
		read_all(&lines, &bpf_lines);	/* warm up */
		for (i = 0; i < READS; i++)
			ms[i] = read_all(&lines, &bpf_lines);
		qsort(ms, READS, sizeof(ms[0]), cmp_double);
		printf("BENCH kallsyms_read n=%d ms=%.3f lines=%ld bpf_lines=%ld reads=%d\n",
		       n, ms[READS / 2], lines, bpf_lines, READS);
		fflush(stdout);
	}
	return 0;
}
