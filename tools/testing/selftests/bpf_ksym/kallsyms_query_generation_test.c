// SPDX-License-Identifier: GPL-2.0
/*
 * KALLSYMS_QUERY's promises over time: two answers returned with the same
 * generation never differ, also while a module is going (its exit function
 * sleeping) and being freed; and a query answers while a read() of the
 * same file is stuck in a user copy.
 */
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <linux/userfaultfd.h>

#include "kselftest_harness.h"
#include "ksym_util.h"

#define MOD "ksym_test_mod"
#define MOD_FUNC "ksym_test_mod_func"
#define EXIT_SLEEP_MS 2000

/* What one round of queries answered, each with the generation it came with. */
struct round {
	__u64 gen[3];		/* BY_ADDR, BY_SYMBOL, batch */
	int addr_err;		/* BY_ADDR: 0 or -errno */
	char addr_name[64];
	__u32 addr_kind;
	int sym_err;		/* BY_SYMBOL */
	__u64 sym_addr;
	__u32 batch_kind;	/* the same address in a batch of one */
	char state[16];		/* /sys/module/MOD/initstate before the round, or "gone" */
};

#define MAX_ROUNDS 20000

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void module_state(char *out, size_t size)
{
	FILE *f = fopen("/sys/module/" MOD "/initstate", "r");

	snprintf(out, size, "gone");
	if (f) {
		if (!fgets(out, size, f))
			snprintf(out, size, "?");
		out[strcspn(out, "\n")] = 0;
		fclose(f);
	}
}

/* One round: BY_ADDR, BY_SYMBOL and a batch of one; 0, or -1 if the batch failed. */
static int query_round(int fd, __u64 addr, struct round *r)
{
	struct kallsyms_query_addr e = { .addr = addr };
	struct kallsyms_query q;
	char names[1024];

	module_state(r->state, sizeof(r->state));
	r->addr_err = kq_query(fd, &q, KALLSYMS_QUERY_BY_ADDR, addr, NULL, names, sizeof(names));
	r->gen[0] = q.generation;
	snprintf(r->addr_name, sizeof(r->addr_name), "%s", r->addr_err ? "" : names);
	r->addr_kind = r->addr_err ? 0 : q.sym_kind;
	r->sym_err = kq_query(fd, &q, KALLSYMS_QUERY_BY_SYMBOL, 0, MOD_FUNC, NULL, 0);
	r->gen[1] = q.generation;
	r->sym_addr = r->sym_err ? 0 : q.sym_addr;
	memset(&q, 0, sizeof(q));
	q.size = sizeof(q);
	q.query_flags = KALLSYMS_QUERY_BY_ADDR_BATCH;
	q.sym_name_addr = (unsigned long)names;
	q.sym_name_size = sizeof(names);
	q.batch_addr = (unsigned long)&e;
	q.batch_count = 1;
	q.batch_entry_size = sizeof(e);
	if (ioctl(fd, KALLSYMS_QUERY, &q) || q.batch_count != 1)
		return -1;
	r->gen[2] = q.generation;
	r->batch_kind = e.kind;
	return 0;
}

/* Whether @a and @b answered query @k (an index of gen[]) the same. */
static bool same_answer(const struct round *a, const struct round *b, int k)
{
	switch (k) {
	case 0:
		return a->addr_err == b->addr_err && !strcmp(a->addr_name, b->addr_name) &&
		       a->addr_kind == b->addr_kind;
	case 1:
		return a->sym_err == b->sym_err && a->sym_addr == b->sym_addr;
	default:
		return a->batch_kind == b->batch_kind;
	}
}

static void print_round(const char *what, const struct round *r)
{
	fprintf(stderr, "# %s: gens %llu %llu %llu, module %s: BY_ADDR %d '%s' kind %u, BY_SYMBOL %d %llx, batch kind %u\n",
		what, (unsigned long long)r->gen[0], (unsigned long long)r->gen[1],
		(unsigned long long)r->gen[2], r->state, r->addr_err, r->addr_name, r->addr_kind,
		r->sym_err, (unsigned long long)r->sym_addr, r->batch_kind);
}

/*
 * rmmod of a module whose exit function sleeps, while a reader queries the
 * module's function by address, by name and in a batch: every answer a
 * query gives under one generation is the one it gives under that generation
 * in every other round. The module's symbols go for version-2 callers when
 * its unload starts, before its exit function runs: the generation must
 * change then, not when the exit function returns.
 */
TEST(module_exit_window)
{
	static struct round rounds[MAX_ROUNDS];
	/* For each query, the first round of each generation seen. */
	static struct { __u64 gen; int first; } seen[3][MAX_ROUNDS];
	int nseen[3] = {}, n = 0, going = 0, status, fd;
	unsigned long long addr, live_gen;
	struct kallsyms_query q;
	char cmd[512], names[512];
	bool rmmod_done = false;
	double end;
	pid_t pid;

	if (access(test_file("test_module/" MOD ".ko"), R_OK))
		SKIP(return, "no test_module/" MOD ".ko: built without a kernel tree (KDIR)");
	system("rmmod " MOD " 2>/dev/null");
	snprintf(cmd, sizeof(cmd), "insmod %s exit_sleep_ms=%d",
		 test_file("test_module/" MOD ".ko"), EXIT_SLEEP_MS);
	ASSERT_EQ(0, system(cmd));
	fd = open("/proc/kallsyms", O_RDONLY);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, kq_query(fd, &q, KALLSYMS_QUERY_BY_SYMBOL, 0, MOD_FUNC, NULL, 0));
	addr = q.sym_addr;
	ASSERT_EQ(0, kq_query(fd, &q, KALLSYMS_QUERY_BY_ADDR, addr, NULL, names, sizeof(names)));
	ASSERT_STREQ(MOD_FUNC, names);
	ASSERT_EQ(KALLSYMS_SYM_MODULE, q.sym_kind);
	live_gen = q.generation;

	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		execlp("rmmod", "rmmod", MOD, NULL);
		_exit(127);
	}
	/* Through the exit function's sleep and the free, then a second more. */
	end = now() + 60;
	while (n < MAX_ROUNDS && now() < end) {
		struct round *r = &rounds[n];

		ASSERT_EQ(0, query_round(fd, addr, r)) TH_LOG("a batch of one failed");
		if (!strcmp(r->state, "going"))
			going++;
		n++;
		if (!rmmod_done && waitpid(pid, &status, WNOHANG) == pid) {
			rmmod_done = true;
			ASSERT_TRUE(WIFEXITED(status) && !WEXITSTATUS(status));
			end = now() + 1;
		}
		usleep(1000);
	}
	ASSERT_TRUE(rmmod_done) TH_LOG("rmmod did not finish");
	close(fd);
	ksft_print_msg("%d rounds, %d while the module was going\n", n, going);
	ASSERT_LT(10, going) TH_LOG("the test saw too little of the exit function's sleep");

	for (int i = 0; i < n; i++) {
		for (int k = 0; k < 3; k++) {
			int j;

			for (j = 0; j < nseen[k] && seen[k][j].gen != rounds[i].gen[k]; j++)
				;
			if (j == nseen[k]) {
				seen[k][nseen[k]].gen = rounds[i].gen[k];
				seen[k][nseen[k]++].first = i;
			} else if (!same_answer(&rounds[seen[k][j].first], &rounds[i], k)) {
				print_round("earlier", &rounds[seen[k][j].first]);
				print_round("later", &rounds[i]);
				ASSERT_TRUE(false) TH_LOG("query %d: two answers under generation %llu",
							  k, (unsigned long long)rounds[i].gen[k]);
			}
		}
	}
	/* Gone at the unload's end. */
	ASSERT_EQ(-ENOENT, rounds[n - 1].addr_err);
	ASSERT_EQ(-ENOENT, rounds[n - 1].sym_err);
	ASSERT_EQ(KALLSYMS_SYM_NONE, rounds[n - 1].batch_kind);
	/*
	 * A round that started while the module was going started after its
	 * state changed: not found, under another generation than before.
	 */
	for (int i = 0; i < n; i++)
		if (!strcmp(rounds[i].state, "going")) {
			ASSERT_NE(live_gen, rounds[i].gen[0]) print_round("going", &rounds[i]);
			ASSERT_EQ(-ENOENT, rounds[i].addr_err) print_round("going", &rounds[i]);
		}
}

/* What a batch answered for one address, and under which generation. */
struct churn_answer {
	__u64 addr, gen, start, size;
	__u32 kind;
	char name[48];
};

static int by_addr_then_gen(const void *a, const void *b)
{
	const struct churn_answer *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return x->gen < y->gen ? -1 : x->gen > y->gen;
}

#define CHURN_SLOTS 32
#define CHURN_MAX 262144

/*
 * A child loads and frees BPF programs all the time, publishing their
 * addresses; the parent symbolizes those addresses in batches, which find
 * each program while it lives and nothing once it is gone. Under any one
 * generation, every batch answers an address the same way.
 */
TEST(bpf_churn_one_answer_per_generation)
{
	static struct churn_answer seen[CHURN_MAX];
	struct kallsyms_query_addr e[CHURN_SLOTS];
	unsigned long long *slots;
	int n = 0, batches = 0, fd, status, flips = 0;
	char names[CHURN_SLOTS * 600];
	struct kallsyms_query q;
	double end;
	pid_t pid;

	slots = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, slots);
	memset(slots, 0, 4096);
	fd = open("/proc/kallsyms", O_RDONLY);
	ASSERT_LE(0, fd);
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		struct prog_syms ps;
		double stop = now() + 6;

		for (unsigned int i = 0; now() < stop; i++) {
			int p = load_tiny_prog("ksym_churn");

			if (p < 0)
				_exit(1);
			if (!prog_syms(p, &ps) && ps.nr > 0)
				__atomic_store_n(&slots[i % CHURN_SLOTS], ps.addr[0],
						 __ATOMIC_RELAXED);
			close(p);
		}
		_exit(0);
	}
	end = now() + 5;
	while (now() < end && n + CHURN_SLOTS <= CHURN_MAX) {
		memset(e, 0, sizeof(e));
		for (int i = 0; i < CHURN_SLOTS; i++)
			e[i].addr = __atomic_load_n(&slots[i], __ATOMIC_RELAXED);
		memset(&q, 0, sizeof(q));
		q.size = sizeof(q);
		q.query_flags = KALLSYMS_QUERY_BY_ADDR_BATCH;
		q.sym_name_addr = (unsigned long)names;
		q.sym_name_size = sizeof(names);
		q.batch_addr = (unsigned long)e;
		q.batch_count = CHURN_SLOTS;
		q.batch_entry_size = sizeof(e[0]);
		ASSERT_EQ(0, ioctl(fd, KALLSYMS_QUERY, &q));
		batches++;
		for (__u32 i = 0; i < q.batch_count; i++) {
			struct churn_answer *a = &seen[n++];

			a->addr = e[i].addr;
			a->gen = q.generation;
			a->start = e[i].start;
			a->size = e[i].size;
			a->kind = e[i].kind;
			snprintf(a->name, sizeof(a->name), "%s",
				 e[i].kind ? names + e[i].name_off : "");
		}
		/* Spread over the loader's whole run. */
		usleep(1000);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status) && !WEXITSTATUS(status)) TH_LOG("the loader failed");
	close(fd);
	munmap(slots, 4096);

	qsort(seen, n, sizeof(seen[0]), by_addr_then_gen);
	for (int i = 1; i < n; i++) {
		const struct churn_answer *a = &seen[i - 1], *b = &seen[i];

		if (a->addr != b->addr || !a->addr)
			continue;
		if (a->gen != b->gen) {
			flips++;
			continue;
		}
		ASSERT_TRUE(a->kind == b->kind && a->start == b->start && a->size == b->size &&
			    !strcmp(a->name, b->name))
			TH_LOG("%llx under generation %llu: kind %u '%s' and kind %u '%s'",
			       (unsigned long long)a->addr, (unsigned long long)a->gen, a->kind,
			       a->name, b->kind, b->name);
	}
	ksft_print_msg("%d batches, %d answers, %d generation changes between answers\n",
		       batches, n, flips);
	/* The generation moved while the addresses were asked, or the test showed nothing. */
	ASSERT_LT(0, flips);
}

/* The read() side: a reader stuck in a user copy, holding the seq_file's lock. */
struct stuck_read {
	int fd;
	char *buf;
	ssize_t ret;
};

static void *reader(void *arg)
{
	struct stuck_read *s = arg;

	s->ret = read(s->fd, s->buf, 4096);
	return NULL;
}

struct waiting_query {
	int fd;
	int err;
	bool done;		/* atomic: read while the querier runs */
};

static void *querier(void *arg)
{
	struct waiting_query *w = arg;
	struct kallsyms_query q = {
		.size = sizeof(q),
		.query_flags = KALLSYMS_QUERY_GENERATION,
	};

	w->err = ioctl(w->fd, KALLSYMS_QUERY, &q) ? errno : 0;
	__atomic_store_n(&w->done, true, __ATOMIC_RELEASE);
	return NULL;
}

static bool query_done(struct waiting_query *w)
{
	return __atomic_load_n(&w->done, __ATOMIC_ACQUIRE);
}

/*
 * A read() of /proc/kallsyms holds its file's lock while its user copy waits,
 * for as long as its caller likes (here: a userfaultfd page nobody serves).
 * A query on the same open file (a profiler sharing it with a thread, a
 * child, or through SCM_RIGHTS) must not wait for it: it answers at once.
 */
TEST(query_answers_while_a_read_is_stuck)
{
	struct uffdio_api api = { .api = UFFD_API };
	struct uffdio_register reg = {};
	struct uffdio_zeropage zero = {};
	struct kallsyms_query q = {
		.size = sizeof(q),
		.query_flags = KALLSYMS_QUERY_GENERATION,
	};
	struct waiting_query w = {};
	struct stuck_read s = {};
	struct pollfd fault;
	pthread_t rt, qt;
	int uffd;

	/* poll() on a userfaultfd wants O_NONBLOCK (EPOLLERR at once without). */
	uffd = syscall(__NR_userfaultfd, O_CLOEXEC | O_NONBLOCK);
	if (uffd < 0)
		SKIP(return, "no userfaultfd (CONFIG_USERFAULTFD): %s", strerror(errno));
	ASSERT_EQ(0, ioctl(uffd, UFFDIO_API, &api));
	fault.fd = uffd;
	fault.events = POLLIN;
	s.buf = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, s.buf);
	reg.range.start = (unsigned long)s.buf;
	reg.range.len = 4096;
	reg.mode = UFFDIO_REGISTER_MODE_MISSING;
	ASSERT_EQ(0, ioctl(uffd, UFFDIO_REGISTER, &reg));
	s.fd = open("/proc/kallsyms", O_RDONLY);
	w.fd = s.fd;
	ASSERT_LE(0, s.fd);

	/* The read faults on the missing page, holding the file's lock. */
	ASSERT_EQ(0, pthread_create(&rt, NULL, reader, &s));
	ASSERT_EQ(1, poll(&fault, 1, 10000)) TH_LOG("the read did not fault");
	ASSERT_EQ(POLLIN, fault.revents);
	ASSERT_EQ(0, pthread_create(&qt, NULL, querier, &w));
	/* The query answers while the read stays stuck: 10 s is far more than it needs. */
	for (int i = 0; i < 1000 && !query_done(&w); i++)
		usleep(10000);
	EXPECT_TRUE(query_done(&w)) TH_LOG("the query waits for the stuck read");
	EXPECT_EQ(0, w.err);
	/* Serve the page: the read completes (and a query that waited, if it did). */
	zero.range.start = (unsigned long)s.buf;
	zero.range.len = 4096;
	ASSERT_EQ(0, ioctl(uffd, UFFDIO_ZEROPAGE, &zero));
	pthread_join(rt, NULL);
	pthread_join(qt, NULL);
	EXPECT_LT(0, s.ret);
	/* And the file still answers. */
	EXPECT_EQ(0, ioctl(s.fd, KALLSYMS_QUERY, &q));
	close(s.fd);
	close(uffd);
	munmap(s.buf, 4096);
}

TEST_HARNESS_MAIN
