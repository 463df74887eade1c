// SPDX-License-Identifier: GPL-2.0
/*
 * The BPF part of /proc/kallsyms with many programs, and while programs come
 * and go between two reads of a long listing: each symbol at most once, every
 * symbol live for the whole read exactly once, names and addresses right.
 */
#include <fcntl.h>
#include <pthread.h>

#include <bpf/btf.h>

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

/*
 * The churn: a FIFO of programs. Each step unloads the oldest and loads a new
 * one at the end of the list, so programs are removed *before* others that
 * stay loaded for a whole read: an index-based walk (mainline) then skips
 * some of those. Every load and unload gets a number from one counter, taken
 * after the load returned and before the unload started, so a reader can tell
 * which programs were loaded for the whole of its read.
 */
#define FIFO 1500
#define MAX_CHURN 200000

struct churn {
	int stop;				/* atomic */
	unsigned long ops;			/* atomic */
	unsigned long load_op[MAX_CHURN];	/* 0: not loaded (yet) */
	unsigned long unload_op[MAX_CHURN];	/* 0: still loaded */
	int next;				/* programs loaded so far */
};

static unsigned long next_op(struct churn *c)
{
	return __atomic_add_fetch(&c->ops, 1, __ATOMIC_SEQ_CST);
}

static int churn_load(struct churn *c)
{
	char name[16];
	int fd, id = c->next;

	snprintf(name, sizeof(name), "kc%06d", id);
	fd = load_tiny_prog(name);
	if (fd >= 0) {
		__atomic_store_n(&c->load_op[id], next_op(c), __ATOMIC_SEQ_CST);
		c->next++;
	}
	return fd;
}

static void *churn_thread(void *arg)
{
	struct churn *c = arg;
	static int fifo[FIFO];
	int head = 0, id0 = 0, i;

	for (i = 0; i < FIFO; i++)
		fifo[i] = churn_load(c);
	while (!__atomic_load_n(&c->stop, __ATOMIC_SEQ_CST) && c->next < MAX_CHURN) {
		/* The oldest goes first; its unload number is taken before close(). */
		__atomic_store_n(&c->unload_op[id0], next_op(c), __ATOMIC_SEQ_CST);
		close(fifo[head]);
		id0++;
		fifo[head] = churn_load(c);
		head = (head + 1) % FIFO;
		/* Slow enough that most of the FIFO outlives each read. */
		usleep(2000);
	}
	for (i = 0; i < FIFO; i++) {
		__atomic_store_n(&c->unload_op[id0 + i], next_op(c), __ATOMIC_SEQ_CST);
		close(fifo[(head + i) % FIFO]);
	}
	return NULL;
}

/* Whether bpf_ksym's cursor walk is in this kernel (CONFIG_BPF_KSYM_RUST). */
static int have_cursor_walk(void)
{
	struct btf *vmlinux = btf__load_vmlinux_btf();
	int id;

	if (libbpf_get_error(vmlinux))
		return 0;
	id = btf__find_by_name_kind(vmlinux, "bpf_ksym_cursor", BTF_KIND_STRUCT);
	btf__free(vmlinux);
	return id > 0;
}

#define READS 20

TEST(listing_during_churn_has_no_duplicate_and_misses_no_live_symbol)
{
	static struct bpf_line lines[4 * FIFO];
	static struct churn c;
	int read_no, n, i, missed = 0, whole = 0, dups = 0, disorder = 0;
	pthread_t t;

	raise_nofile();
	memset(&c, 0, sizeof(c));
	ASSERT_EQ(0, pthread_create(&t, NULL, churn_thread, &c));
	while (__atomic_load_n(&c.next, __ATOMIC_SEQ_CST) < FIFO)
		usleep(10000);

	for (read_no = 0; read_no < READS; read_no++) {
		unsigned long start = __atomic_load_n(&c.ops, __ATOMIC_SEQ_CST), end;

		/* Small, varying read sizes: many seq_file restarts mid-listing. */
		n = read_bpf_lines("kc", 300 + 41 * read_no, lines, 4 * FIFO);
		end = __atomic_load_n(&c.ops, __ATOMIC_SEQ_CST);
		ASSERT_LE(0, n);
		/* Insertion order: one thread loads kc000000, kc000001, ... in turn. */
		for (i = 1; i < n; i++)
			if (strcmp(lines[i - 1].name, lines[i].name) > 0 && !disorder++)
				TH_LOG("read %d listed %s before %s", read_no, lines[i - 1].name,
				       lines[i].name);
		qsort(lines, n, sizeof(lines[0]), by_name);
		for (i = 1; i < n; i++)
			if (!strcmp(lines[i - 1].name, lines[i].name)) {
				dups++;
				TH_LOG("read %d listed %s twice", read_no, lines[i].name);
			}
		/* Every program loaded before the read and unloaded after it is listed. */
		for (i = 0; i < MAX_CHURN; i++) {
			unsigned long lo = __atomic_load_n(&c.load_op[i], __ATOMIC_SEQ_CST);
			unsigned long un = __atomic_load_n(&c.unload_op[i], __ATOMIC_SEQ_CST);
			struct bpf_line key;

			if (!lo)
				break;
			if (lo >= start || (un && un <= end))
				continue;
			whole++;
			snprintf(key.name, sizeof(key.name), "kc%06d", i);
			if (!bsearch(&key, lines, n, sizeof(lines[0]), by_name)) {
				if (!missed)
					TH_LOG("read %d missed %s, loaded for the whole read",
					       read_no, key.name);
				missed++;
			}
		}
	}
	__atomic_store_n(&c.stop, 1, __ATOMIC_SEQ_CST);
	pthread_join(t, NULL);
	TH_LOG("%d reads while %d programs were loaded and unloaded: %d checked as loaded for a whole read, %d missed, %d listed twice, %d out of load order",
	       READS, c.next, whole, missed, dups, disorder);
	ASSERT_LT(FIFO + 200, c.next) TH_LOG("too little churn to mean anything");
	ASSERT_LT(1000, whole);
	if (!have_cursor_walk() && (missed || dups))
		SKIP(return, "C registry: index-based walk, as mainline (%d missed, %d twice)",
		     missed, dups);
	ASSERT_EQ(0, dups);
	ASSERT_EQ(0, missed);
	ASSERT_EQ(0, disorder);
	/* Nothing of ours is left once everything is unloaded. */
	ASSERT_EQ(0, wait_no_bpf_lines("kc"));
}

TEST_HARNESS_MAIN
