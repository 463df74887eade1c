// SPDX-License-Identifier: GPL-2.0
/*
 * The BPF part of /proc/kallsyms with many programs, and while programs come
 * and go between two reads of a long listing: each symbol at most once, every
 * symbol live for the whole read exactly once, names and addresses right.
 */
#include <fcntl.h>
#include <pthread.h>

#include "kselftest_harness.h"
#include "ksym_util.h"

#define MANY 1000

struct bpf_line {
	unsigned long long addr;
	char name[64];
};

/*
 * Read /proc/kallsyms with read() calls of @chunk bytes, so that seq_file
 * stops and resumes often, and collect its BPF program lines whose name ends
 * in "_<prefix>...".
 */
static int read_bpf_lines(const char *prefix, size_t chunk, struct bpf_line *out, int max)
{
	static char buf[1 << 16];
	char line[1024], *p;
	size_t llen = 0;
	ssize_t r;
	int fd = open("/proc/kallsyms", O_RDONLY), n = 0;
	char pat[40];

	if (fd < 0)
		return -errno;
	if (chunk > sizeof(buf))
		chunk = sizeof(buf);
	snprintf(pat, sizeof(pat), "_%s", prefix);
	while ((r = read(fd, buf, chunk)) > 0) {
		for (p = buf; p < buf + r; p++) {
			char sym[512], mod[64], type;
			unsigned long long addr;

			if (*p != '\n') {
				if (llen < sizeof(line) - 1)
					line[llen++] = *p;
				continue;
			}
			line[llen] = 0;
			llen = 0;
			if (sscanf(line, "%llx %c %511s %63s", &addr, &type, sym, mod) != 4 ||
			    strcmp(mod, "[bpf]") || strncmp(sym, "bpf_prog_", 9) ||
			    strncmp(sym + 25, pat, strlen(pat)))
				continue;
			if (n == max) {
				close(fd);
				return -E2BIG;
			}
			out[n].addr = addr;
			snprintf(out[n].name, sizeof(out[n].name), "%.63s", sym + 26);
			n++;
		}
	}
	close(fd);
	return r < 0 ? -errno : n;
}

/* Poll up to 10 s until no program line matches @prefix. */
static int wait_no_bpf_lines(const char *prefix)
{
	static struct bpf_line lines[2 * MANY];
	int i, n = -1;

	for (i = 0; i < 200 && n; i++) {
		n = read_bpf_lines(prefix, sizeof(lines), lines, 2 * MANY);
		if (n)
			usleep(50000);
	}
	return n;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(((const struct bpf_line *)a)->name, ((const struct bpf_line *)b)->name);
}

TEST(thousand_programs_listed_exactly_with_their_addresses)
{
	static struct bpf_line lines[MANY + 10];
	static int fds[MANY];
	static unsigned long long addr[MANY];
	struct prog_syms ps;
	char name[16];
	int i, n;

	raise_nofile();
	for (i = 0; i < MANY; i++) {
		snprintf(name, sizeof(name), "kw%04d", i);
		fds[i] = load_tiny_prog(name);
		ASSERT_LE(0, fds[i]) TH_LOG("loading program %d: %s", i, strerror(errno));
		ASSERT_EQ(0, prog_syms(fds[i], &ps));
		addr[i] = ps.addr[0];
	}
	/* Small reads: thousands of seq_file restarts inside the BPF part. */
	n = read_bpf_lines("kw", 333, lines, MANY + 10);
	ASSERT_EQ(MANY, n);
	qsort(lines, n, sizeof(lines[0]), by_name);
	for (i = 0; i < MANY; i++) {
		snprintf(name, sizeof(name), "kw%04d", i);
		ASSERT_STREQ(name, lines[i].name);
		ASSERT_EQ(addr[i], lines[i].addr) TH_LOG("%s at the wrong address", name);
	}
	/* One big read sees the same. */
	ASSERT_EQ(MANY, read_bpf_lines("kw", sizeof(lines), lines, MANY + 10));
	for (i = 0; i < MANY; i++)
		close(fds[i]);
	ASSERT_EQ(0, wait_no_bpf_lines("kw")) TH_LOG("programs still listed after unload");
}

#define STABLE 200
#define CHURN_BATCH 50

struct churn {
	volatile int stop;
	int loads, unloads;
};

static void *churn_thread(void *arg)
{
	struct churn *c = arg;
	int fds[CHURN_BATCH], i, round = 0;
	char name[16];

	while (!c->stop) {
		for (i = 0; i < CHURN_BATCH; i++) {
			snprintf(name, sizeof(name), "kc%02d_%04d", i, round % 10000);
			fds[i] = load_tiny_prog(name);
			if (fds[i] >= 0)
				c->loads++;
		}
		for (i = 0; i < CHURN_BATCH; i++) {
			if (fds[i] >= 0 && !close(fds[i]))
				c->unloads++;
		}
		round++;
	}
	return NULL;
}

TEST(listing_during_churn_has_no_duplicate_and_misses_no_stable_symbol)
{
	static struct bpf_line lines[STABLE + 4 * CHURN_BATCH];
	static int fds[STABLE];
	struct churn c = {};
	pthread_t t;
	char name[16];
	int i, read_no, n, stable, churned = 0;

	raise_nofile();
	for (i = 0; i < STABLE; i++) {
		snprintf(name, sizeof(name), "ks%03d", i);
		fds[i] = load_tiny_prog(name);
		ASSERT_LE(0, fds[i]);
	}
	ASSERT_EQ(0, pthread_create(&t, NULL, churn_thread, &c));
	for (read_no = 0; read_no < 30; read_no++) {
		/* "k" matches both the stable "ks" and the churning "kc" programs. */
		n = read_bpf_lines("k", 200 + 37 * read_no, lines, STABLE + 4 * CHURN_BATCH);
		ASSERT_LE(0, n);
		qsort(lines, n, sizeof(lines[0]), by_name);
		stable = 0;
		for (i = 0; i < n; i++) {
			ASSERT_TRUE(i == 0 || strcmp(lines[i - 1].name, lines[i].name))
				TH_LOG("read %d listed %s twice", read_no, lines[i].name);
			if (!strncmp(lines[i].name, "ks", 2))
				stable++;
			else
				churned++;
		}
		ASSERT_EQ(STABLE, stable) TH_LOG("read %d: %d of %d stable programs", read_no,
						  stable, STABLE);
	}
	c.stop = 1;
	pthread_join(t, NULL);
	TH_LOG("30 reads; churn loaded %d, unloaded %d; %d churned lines seen",
	       c.loads, c.unloads, churned);
	ASSERT_LT(0, c.unloads) TH_LOG("the churn thread did not run");
	for (i = 0; i < STABLE; i++)
		close(fds[i]);
	/* Nothing of ours is left once everything is unloaded. */
	ASSERT_EQ(0, wait_no_bpf_lines("k"));
}

TEST_HARNESS_MAIN
