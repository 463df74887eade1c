// SPDX-License-Identifier: GPL-2.0
/*
 * KALLSYMS_QUERY answers whatever other tasks do. Churners on every CPU load
 * and close programs, attach and detach fentry programs and load and unload
 * the test module, at full rate, while readers call every mode: BY_ADDR of
 * vmlinux, module and BPF addresses, BY_SYMBOL, 4096-entry batches mixing
 * module and BPF addresses (continued until every entry is answered), and
 * GENERATION. Every call must return and every answer be right; the kernel's
 * count of lockless attempts in any one call must stay within the bound the
 * uapi header states (then the locked pass, which only module changes can
 * make repeat). Prints per mode the calls made and their p50/p99/max
 * latency, and the kernel's counts of attempts. As a profiler's would, the
 * process takes a SIGPROF every millisecond of CPU time (SA_RESTART).
 *
 * PROGRESS_S (default 15) sets how long the readers run.
 *
 * And the other way round: a loop of BY_SYMBOL queries does not hold module
 * load and unload off.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <time.h>

#include "kselftest_harness.h"
#include "ksym_util.h"

#define PASSES "/sys/kernel/debug/kallsyms_query/passes"
#define MOD_NAME "ksym_test_mod"
#define CORE_SYM "bpf_user_rnd_u32"
#define BATCH 4096
#define SAMPLES 200000
/* A call that has not returned after this long is reported as hung. */
#define HUNG_NS (20ULL * 1000000000ULL)

enum { SINGLE_CORE, SINGLE_MODULE, SINGLE_BPF, BY_SYMBOL, BATCHED, GENERATION, MODES };
static const char *const mode_names[MODES] = {
	"BY_ADDR vmlinux", "BY_ADDR module", "BY_ADDR BPF", "BY_SYMBOL",
	"BY_ADDR_BATCH 4096", "GENERATION",
};

struct mode {
	long calls, wrong;
	unsigned long long *ns;	/* SAMPLES latencies, the first ones kept */
	atomic_ullong in_call_since;	/* 0 when not in a call */
	char why[160];
};

static struct mode modes[MODES];
static atomic_bool stop;
static atomic_long churned, module_cycles, sigprofs;

static void on_sigprof(int sig)
{
	(void)sig;
	atomic_fetch_add(&sigprofs, 1);
}

/* Addresses the readers ask: a fixed core symbol, the module's, BPF programs'. */
static __u64 core_addr, core_start;
static char core_name[KALLSYMS_QUERY_NAME_LEN];
static __u64 mod_addrs[64];
static int nr_mod_addrs;
static __u64 bpf_addrs[256];
static int nr_bpf_addrs;
/* A program loaded for the whole test: its address always answers with its name. */
static __u64 kept_addr;
static char kept_name[KALLSYMS_QUERY_NAME_LEN];

static unsigned long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static void call_start(struct mode *m)
{
	atomic_store(&m->in_call_since, now_ns());
}

static void call_end(struct mode *m)
{
	unsigned long long d = now_ns() - atomic_load(&m->in_call_since);

	atomic_store(&m->in_call_since, 0);
	if (m->calls < SAMPLES)
		m->ns[m->calls] = d;
	m->calls++;
}

static void wrong(struct mode *m, const char *fmt, ...)
{
	va_list ap;

	if (!m->wrong++) {
		va_start(ap, fmt);
		vsnprintf(m->why, sizeof(m->why), fmt, ap);
		va_end(ap);
	}
}

static bool is_bpf_kind(__u32 kind)
{
	return kind == KALLSYMS_SYM_BPF_PROG || kind == KALLSYMS_SYM_BPF_SUBPROG ||
	       kind == KALLSYMS_SYM_BPF_TRAMPOLINE || kind == KALLSYMS_SYM_BPF_DISPATCHER ||
	       kind == KALLSYMS_SYM_BPF_IMAGE;
}

/*
 * Whether an answer for @addr, expected to be of @want (a kind, or -1 for a
 * module address), is right: its range holds the address, and it is of the
 * kind the address had, or (the symbol may be gone) nothing.
 */
static bool answer_right(__u64 addr, __u64 start, __u64 size, __u32 kind, int want)
{
	if (kind == KALLSYMS_SYM_NONE)
		return want != KALLSYMS_SYM_VMLINUX;
	if (addr < start || (size && addr - start > size))
		return false;
	if (want == -1)
		return kind == KALLSYMS_SYM_MODULE || kind == KALLSYMS_SYM_MODULE_INIT ||
		       is_bpf_kind(kind);
	if (want == KALLSYMS_SYM_BPF_PROG)
		return is_bpf_kind(kind);
	return kind == (__u32)want;
}

static void by_addr(int fd, struct mode *m, __u64 addr, int want, const char *name)
{
	struct kallsyms_query q;
	char buf[KALLSYMS_QUERY_NAME_LEN];
	int err;

	call_start(m);
	err = kq_query(fd, &q, KALLSYMS_QUERY_BY_ADDR, addr, NULL, buf, sizeof(buf));
	call_end(m);
	if (err == -ENOENT && want != KALLSYMS_SYM_VMLINUX && !name)
		return;
	if (err)
		return wrong(m, "BY_ADDR %llx: %s", (unsigned long long)addr, strerror(-err));
	if (!answer_right(addr, q.sym_start, q.sym_size, q.sym_kind, want))
		return wrong(m, "BY_ADDR %llx: %s kind %u at %llx size %llu",
			     (unsigned long long)addr, buf, q.sym_kind,
			     (unsigned long long)q.sym_start, (unsigned long long)q.sym_size);
	if (name && strcmp(buf, name))
		wrong(m, "BY_ADDR %llx: %s, not %s", (unsigned long long)addr, buf, name);
}

static void *read_single(void *arg)
{
	long which = (long)arg;
	int fd = open("/proc/kallsyms", O_RDONLY);
	unsigned int i = 0;

	while (!atomic_load(&stop)) {
		i++;
		if (which == SINGLE_CORE)
			by_addr(fd, &modes[which], core_addr, KALLSYMS_SYM_VMLINUX, core_name);
		else if (which == SINGLE_MODULE && nr_mod_addrs)
			by_addr(fd, &modes[which], mod_addrs[i % nr_mod_addrs], -1, NULL);
		else if (i % 2)
			by_addr(fd, &modes[which], kept_addr, KALLSYMS_SYM_BPF_PROG, kept_name);
		else
			by_addr(fd, &modes[which], bpf_addrs[i % nr_bpf_addrs],
				KALLSYMS_SYM_BPF_PROG, NULL);
	}
	close(fd);
	return NULL;
}

static void *read_by_symbol(void *arg)
{
	struct mode *m = &modes[BY_SYMBOL];
	int fd = open("/proc/kallsyms", O_RDONLY);
	struct kallsyms_query q;
	unsigned int i = 0;
	int err;

	while (!atomic_load(&stop)) {
		bool module = ++i % 2;

		call_start(m);
		err = kq_query(fd, &q, KALLSYMS_QUERY_BY_SYMBOL, 0,
			       module ? "ksym_test_mod_func" : CORE_SYM, NULL, 0);
		call_end(m);
		/* The module comes and goes. */
		if (module && err == -ENOENT)
			continue;
		if (err)
			wrong(m, "BY_SYMBOL %s: %s", module ? "module" : "core", strerror(-err));
		else if (!module && q.sym_addr != core_start)
			wrong(m, "BY_SYMBOL %s: %llx, not %llx", CORE_SYM,
			      (unsigned long long)q.sym_addr, (unsigned long long)core_start);
		else if (!q.generation)
			wrong(m, "BY_SYMBOL: no generation");
	}
	close(fd);
	return NULL;
}

static void *read_batch(void *arg)
{
	struct mode *m = &modes[BATCHED];
	int fd = open("/proc/kallsyms", O_RDONLY);
	static struct kallsyms_query_addr e[BATCH];
	static int want[BATCH];
	static char names[BATCH * 96];
	struct kallsyms_query q;
	unsigned int i;

	while (!atomic_load(&stop)) {
		unsigned int done = 0;

		memset(e, 0, sizeof(e));
		for (i = 0; i < BATCH; i++) {
			if (i % 2 && nr_mod_addrs) {
				e[i].addr = mod_addrs[(i / 2) % nr_mod_addrs];
				want[i] = -1;
			} else {
				e[i].addr = bpf_addrs[(i / 2) % nr_bpf_addrs];
				want[i] = KALLSYMS_SYM_BPF_PROG;
			}
		}
		/* A call may answer a prefix: continue from the first unanswered entry. */
		while (done < BATCH && !atomic_load(&stop)) {
			memset(&q, 0, sizeof(q));
			q.size = sizeof(q);
			q.query_flags = KALLSYMS_QUERY_BY_ADDR_BATCH;
			q.batch_addr = (unsigned long)&e[done];
			q.batch_count = BATCH - done;
			q.batch_entry_size = sizeof(e[0]);
			q.sym_name_addr = (unsigned long)names;
			q.sym_name_size = sizeof(names);
			call_start(m);
			if (ioctl(fd, KALLSYMS_QUERY, &q)) {
				call_end(m);
				wrong(m, "batch at %u: %s", done, strerror(errno));
				break;
			}
			call_end(m);
			if (!q.batch_count || q.batch_count > BATCH - done) {
				wrong(m, "batch at %u answered %u entries", done, q.batch_count);
				break;
			}
			for (i = done; i < done + q.batch_count; i++) {
				if (!answer_right(e[i].addr, e[i].start, e[i].size, e[i].kind,
						  want[i]))
					wrong(m, "batch entry %llx: kind %u at %llx size %llu",
					      (unsigned long long)e[i].addr, e[i].kind,
					      (unsigned long long)e[i].start,
					      (unsigned long long)e[i].size);
				else if (e[i].addr == kept_addr &&
					 strcmp(names + e[i].name_off, kept_name))
					wrong(m, "batch entry %llx: %s, not %s",
					      (unsigned long long)e[i].addr,
					      names + e[i].name_off, kept_name);
			}
			done += q.batch_count;
		}
	}
	close(fd);
	return NULL;
}

static void *read_generation(void *arg)
{
	struct mode *m = &modes[GENERATION];
	int fd = open("/proc/kallsyms", O_RDONLY);
	struct kallsyms_query q;

	while (!atomic_load(&stop)) {
		memset(&q, 0, sizeof(q));
		q.size = sizeof(q);
		q.query_flags = KALLSYMS_QUERY_GENERATION;
		call_start(m);
		if (ioctl(fd, KALLSYMS_QUERY, &q))
			wrong(m, "GENERATION: %s", strerror(errno));
		call_end(m);
	}
	close(fd);
	return NULL;
}

/* Loads and closes a trivial program, again and again: a ksym added and removed each time. */
static void *churn_progs(void *arg)
{
	unsigned int i = 0;

	while (!atomic_load(&stop)) {
		int fd = load_tiny_prog("ksym_churn");
		struct prog_syms ps;

		if (fd < 0)
			continue;
		if (!(++i % 64) && !prog_syms(fd, &ps) && ps.nr)
			bpf_addrs[i / 64 % nr_bpf_addrs] = ps.addr[0];
		close(fd);
		atomic_fetch_add(&churned, 1);
	}
	return NULL;
}

/* Attaches and detaches an fentry program: a trampoline added and removed each time. */
static void *churn_fentry(void *arg)
{
	struct bpf_object *o = open_obj("ksym_kinds.bpf.o");
	struct bpf_program *p = o ? bpf_object__find_program_by_name(o, "ksym_fentry_idle") : NULL;

	while (p && !atomic_load(&stop)) {
		struct bpf_link *l = bpf_program__attach(p);

		bpf_link__destroy(l);
		atomic_fetch_add(&churned, 1);
	}
	bpf_object__close(o);
	return NULL;
}

/* Loads and unloads the test module. */
static void *churn_module(void *arg)
{
	int fd = open(test_file("test_module/" MOD_NAME ".ko"), O_RDONLY);

	while (fd >= 0 && !atomic_load(&stop)) {
		if (syscall(SYS_finit_module, fd, "", 0))
			break;
		while (syscall(SYS_delete_module, MOD_NAME, O_NONBLOCK) && errno == EAGAIN)
			sched_yield();
		atomic_fetch_add(&module_cycles, 1);
	}
	if (fd >= 0)
		close(fd);
	return NULL;
}

/* The module's addresses: a few of each of its text symbols. */
static void module_addrs(void)
{
	FILE *f = fopen("/proc/kallsyms", "r");
	struct kline k;

	while (f && next_kline(f, &k) && nr_mod_addrs < 64)
		if (!strcmp(k.mod, "[" MOD_NAME "]") && k.addr) {
			mod_addrs[nr_mod_addrs++] = k.addr;
			mod_addrs[nr_mod_addrs++] = k.addr + 1;
		}
	if (f)
		fclose(f);
}

/* A counter of the kernel's passes file. */
static long long passes_field(const char *text, const char *name)
{
	const char *p = text ? strstr(text, name) : NULL;

	return p ? atoll(p + strlen(name) + 1) : -1;
}

static int cmp_ull(const void *a, const void *b)
{
	unsigned long long x = *(const unsigned long long *)a, y = *(const unsigned long long *)b;

	return x < y ? -1 : x > y;
}

TEST(every_call_returns_under_churn)
{
	int ncpu = sysconf(_SC_NPROCESSORS_ONLN), nchurn = 0, nread = 0, i, fd, kept;
	const char *s = getenv("PROGRESS_S");
	int seconds = s ? atoi(s) : 15;
	pthread_t churners[16], readers[MODES];
	char *before, *after, buf[KALLSYMS_QUERY_NAME_LEN];
	/* A profiler's timer: a SIGPROF every millisecond of the process's CPU time. */
	struct sigaction sa = { .sa_handler = on_sigprof, .sa_flags = SA_RESTART };
	struct itimerval prof = { { 0, 1000 }, { 0, 1000 } }, off = {};
	struct kallsyms_query q;
	struct prog_syms ps;
	bool module;

	raise_nofile();
	fd = open("/proc/kallsyms", O_RDONLY);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, kq_query(fd, &q, KALLSYMS_QUERY_BY_SYMBOL, 0, CORE_SYM, NULL, 0));
	core_start = q.sym_addr;
	core_addr = core_start + 1;
	ASSERT_EQ(0, kq_query(fd, &q, KALLSYMS_QUERY_BY_ADDR, core_addr, NULL, core_name,
			      sizeof(core_name)));
	kept = load_tiny_prog("ksym_kept");
	ASSERT_LE(0, kept);
	ASSERT_EQ(0, prog_syms(kept, &ps));
	kept_addr = ps.addr[0];
	ASSERT_EQ(0, kq_query(fd, &q, KALLSYMS_QUERY_BY_ADDR, kept_addr, NULL, kept_name,
			      sizeof(kept_name)));
	for (i = 0; i < 256; i++)
		bpf_addrs[i] = kept_addr;
	nr_bpf_addrs = 256;
	close(fd);
	module = getuid() == 0 && !access(test_file("test_module/" MOD_NAME ".ko"), R_OK);
	if (module) {
		snprintf(buf, sizeof(buf), "insmod %s", test_file("test_module/" MOD_NAME ".ko"));
		ASSERT_EQ(0, system(buf));
		module_addrs();
		ASSERT_NE(0, nr_mod_addrs);
		ASSERT_EQ(0, system("rmmod " MOD_NAME));
	}
	before = slurp_fd(open(PASSES, O_RDONLY));
	ASSERT_NE(NULL, before) TH_LOG("no %s: debugfs not mounted?", PASSES);
	for (i = 0; i < MODES; i++) {
		modes[i].ns = calloc(SAMPLES, sizeof(*modes[i].ns));
		ASSERT_NE(NULL, modes[i].ns);
	}

	ASSERT_EQ(0, sigaction(SIGPROF, &sa, NULL));
	ASSERT_EQ(0, setitimer(ITIMER_PROF, &prof, NULL));
	/* More churners than CPUs: programs on each, fentry and the module beside. */
	for (i = 0; i < 2 * ncpu && nchurn < 14; i++)
		ASSERT_EQ(0, pthread_create(&churners[nchurn++], NULL, churn_progs, NULL));
	ASSERT_EQ(0, pthread_create(&churners[nchurn++], NULL, churn_fentry, NULL));
	if (module)
		ASSERT_EQ(0, pthread_create(&churners[nchurn++], NULL, churn_module, NULL));
	for (i = SINGLE_CORE; i <= SINGLE_BPF; i++)
		ASSERT_EQ(0, pthread_create(&readers[nread++], NULL, read_single, (void *)(long)i));
	ASSERT_EQ(0, pthread_create(&readers[nread++], NULL, read_by_symbol, NULL));
	ASSERT_EQ(0, pthread_create(&readers[nread++], NULL, read_batch, NULL));
	ASSERT_EQ(0, pthread_create(&readers[nread++], NULL, read_generation, NULL));

	/* Watch for a call that does not return, while the readers run. */
	for (i = 0; i < seconds * 10; i++) {
		unsigned long long t = now_ns();
		int j;

		usleep(100000);
		for (j = 0; j < MODES; j++) {
			unsigned long long since = atomic_load(&modes[j].in_call_since);

			ASSERT_FALSE(since && t > since && t - since > HUNG_NS)
				TH_LOG("%s: a call has not returned for %llu s", mode_names[j],
				       (t - since) / 1000000000ULL);
		}
	}
	atomic_store(&stop, true);
	ASSERT_EQ(0, setitimer(ITIMER_PROF, &off, NULL));
	for (i = 0; i < nread; i++)
		pthread_join(readers[i], NULL);
	for (i = 0; i < nchurn; i++)
		pthread_join(churners[i], NULL);
	close(kept);
	if (module)
		system("rmmod " MOD_NAME " 2>/dev/null");
	after = slurp_fd(open(PASSES, O_RDONLY));
	ASSERT_NE(NULL, after);

	ksft_print_msg("churn: %ld programs/trampolines, %ld module load+unload cycles, %d churners on %d CPUs, %ld SIGPROFs\n",
		       atomic_load(&churned), atomic_load(&module_cycles), nchurn, ncpu,
		       atomic_load(&sigprofs));
	for (i = 0; i < MODES; i++) {
		struct mode *m = &modes[i];
		long n = m->calls < SAMPLES ? m->calls : SAMPLES;

		qsort(m->ns, n, sizeof(*m->ns), cmp_ull);
		ksft_print_msg("PROGRESS mode=\"%s\" calls=%ld p50_us=%.1f p99_us=%.1f max_us=%.1f wrong=%ld\n",
			       mode_names[i], m->calls, n ? m->ns[n / 2] / 1e3 : 0,
			       n ? m->ns[n * 99 / 100] / 1e3 : 0, n ? m->ns[n - 1] / 1e3 : 0,
			       m->wrong);
		EXPECT_NE(0, m->calls) TH_LOG("%s: no call made", mode_names[i]);
		EXPECT_EQ(0, m->wrong) TH_LOG("%s: %ld wrong; first: %s", mode_names[i], m->wrong,
					      m->why);
	}
	ksft_print_msg("PASSES lockless_failed=%lld locked_passes=%lld locked_module_retries=%lld max_lockless_in_a_call=%lld by_symbol_module_retries=%lld\n",
		       passes_field(after, "lockless_failed") -
			       passes_field(before, "lockless_failed"),
		       passes_field(after, "locked_passes") - passes_field(before, "locked_passes"),
		       passes_field(after, "locked_module_retries") -
			       passes_field(before, "locked_module_retries"),
		       passes_field(after, "max_lockless_in_a_call"),
		       passes_field(after, "by_symbol_module_retries") -
			       passes_field(before, "by_symbol_module_retries"));
	/* The uapi header's bound: at most two lockless attempts, then the locked pass. */
	EXPECT_EQ(2, passes_field(after, "lockless_attempts_max"));
	EXPECT_GE(2, passes_field(after, "max_lockless_in_a_call"));
	EXPECT_LT(0, atomic_load(&churned));
	EXPECT_LT(0, atomic_load(&sigprofs));
}

/*
 * Module load and unload against a loop of BY_SYMBOL queries that only a walk
 * of every module's symbols can answer. The walk runs under RCU, not
 * module_mutex, so the loop must not hold insmod and rmmod off: each cycle
 * must end (a call stuck behind the readers is reported as hung), and the
 * test prints the cycles' p50 and max idle and under the loop.
 */
#define CYCLES 20
static atomic_bool loop_stop;
static atomic_long loop_calls, loop_found, loop_wrong;
static char loop_why[160];

static void *by_symbol_loop(void *arg)
{
	int fd = open("/proc/kallsyms", O_RDONLY);
	struct kallsyms_query q;
	unsigned int i = 0;
	int err;

	(void)arg;
	while (fd >= 0 && !atomic_load(&loop_stop)) {
		/* Neither name is in vmlinux: each call walks the modules' symbols. */
		bool present = ++i % 2;
		const char *name = present ? "ksym_test_mod_func" : "ksym_test_no_such_symbol";

		err = kq_query(fd, &q, KALLSYMS_QUERY_BY_SYMBOL, 0, name, NULL, 0);
		atomic_fetch_add(&loop_calls, 1);
		if (!err && present && q.sym_addr) {
			atomic_fetch_add(&loop_found, 1);
		} else if (err != -ENOENT && !atomic_fetch_add(&loop_wrong, 1)) {
			snprintf(loop_why, sizeof(loop_why), "BY_SYMBOL %s: %s, address %llx",
				 name, strerror(-err), (unsigned long long)q.sym_addr);
		}
	}
	if (fd >= 0)
		close(fd);
	return NULL;
}

/* Times @n load and unload cycles of the test module into @ns. */
static int time_module_cycles(int fd, unsigned long long *ns, int n)
{
	int i;

	for (i = 0; i < n; i++) {
		unsigned long long t = now_ns();

		if (syscall(SYS_finit_module, fd, "", 0))
			return -errno;
		while (syscall(SYS_delete_module, MOD_NAME, O_NONBLOCK))
			if (errno != EAGAIN)
				return -errno;
		ns[i] = now_ns() - t;
	}
	qsort(ns, n, sizeof(*ns), cmp_ull);
	return 0;
}

TEST(module_load_keeps_pace_with_by_symbol)
{
	int ncpu = sysconf(_SC_NPROCESSORS_ONLN), nread, i, fd;
	unsigned long long idle[CYCLES], busy[CYCLES];
	pthread_t readers[8];

	if (getuid() != 0)
		SKIP(return, "loading the test module needs root");
	fd = open(test_file("test_module/" MOD_NAME ".ko"), O_RDONLY);
	if (fd < 0)
		SKIP(return, "no test module");
	system("rmmod " MOD_NAME " 2>/dev/null");
	ASSERT_EQ(0, time_module_cycles(fd, idle, CYCLES));
	/* More readers than CPUs, each in a loop of module walks. */
	nread = 2 * ncpu < 8 ? 2 * ncpu : 8;
	for (i = 0; i < nread; i++)
		ASSERT_EQ(0, pthread_create(&readers[i], NULL, by_symbol_loop, NULL));
	i = time_module_cycles(fd, busy, CYCLES);
	atomic_store(&loop_stop, true);
	while (nread--)
		pthread_join(readers[nread], NULL);
	close(fd);
	ASSERT_EQ(0, i) TH_LOG("load or unload of %s failed: %s", MOD_NAME, strerror(-i));
	ksft_print_msg("MODULE_CYCLES n=%d idle_p50_ms=%.2f idle_max_ms=%.2f by_symbol_loop_p50_ms=%.2f by_symbol_loop_max_ms=%.2f ratio_p50=%.2f by_symbol_calls=%ld found=%ld\n",
		       CYCLES, idle[CYCLES / 2] / 1e6, idle[CYCLES - 1] / 1e6,
		       busy[CYCLES / 2] / 1e6, busy[CYCLES - 1] / 1e6,
		       (double)busy[CYCLES / 2] / idle[CYCLES / 2], atomic_load(&loop_calls),
		       atomic_load(&loop_found));
	EXPECT_GT(HUNG_NS, busy[CYCLES - 1])
		TH_LOG("a load and unload took %llu s", busy[CYCLES - 1] / 1000000000ULL);
	EXPECT_LT(0, atomic_load(&loop_calls));
	/* The module was loaded for most of the loop: a walk found its symbol. */
	EXPECT_LT(0, atomic_load(&loop_found));
	EXPECT_EQ(0, atomic_load(&loop_wrong))
		TH_LOG("%ld wrong; first: %s", atomic_load(&loop_wrong), loop_why);
}

TEST_HARNESS_MAIN
