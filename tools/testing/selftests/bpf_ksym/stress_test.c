// SPDX-License-Identifier: GPL-2.0
/*
 * Churn under load: loaders load and unload programs with subprograms and
 * attach and detach fentry programs (trampolines) while readers loop over
 * /proc/kallsyms, KALLSYMS_QUERY (by address and by name) and iter/ksym, and
 * perf record -g samples a running BPF program. Every answer is checked:
 *
 * - every /proc/kallsyms and iter/ksym line parses, and each BPF line names a
 *   program, trampoline or dispatcher that can exist here;
 * - a BY_ADDR hit names such a symbol and its range holds the address; a
 *   miss is only allowed for a BPF address (its program may be gone);
 * - core answers never change;
 * - perf's call chains name the running program;
 * - at the end, with everything closed, no BPF line is left.
 *
 * It stops by itself after STRESS_SECONDS (default 15) and prints
 * "# STRESS ops=<n> checked=<n> wrong=<n>".
 */
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <time.h>

#include "kselftest_harness.h"
#include "ksym_util.h"

#define CORE_SYM "bpf_user_rnd_u32"
#define ADDRS 256

/* Program names that can appear: ours, and libbpf's feature probes. */
static const char *const known_names[] = {
	"ksym_stack", "ksym_stack_fentry", "ksym_caller", "ksym_with_sub", "ksym_sub",
	"ksym_fentry", "ksym_fentry_idle", "ksym_xdp", "ksym_dump", NULL
};

/* Answers checked, per kind of reader: each must have run. */
enum { BY_TEXT, BY_QUERY, BY_ITER, READERS };
static atomic_long ops, wrong, checked[READERS];
static atomic_bool stop;
static atomic_ullong addrs[ADDRS];	/* recent BPF addresses, maybe stale */
static atomic_uint addr_next;
static unsigned long long core_addr;

#define BAD(fmt, ...)								\
	do {									\
		if (atomic_fetch_add(&wrong, 1) < 20)				\
			fprintf(stderr, "# WRONG " fmt "\n", ##__VA_ARGS__);	\
	} while (0)

static bool is_hex(const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!strchr("0123456789abcdef", s[i]))
			return false;
	return true;
}

/* Whether @sym is a BPF symbol name that can exist in this test. */
static bool valid_bpf_name(const char *sym)
{
	const char *p;
	int i;

	if (!strncmp(sym, "bpf_trampoline_", 15)) {
		for (p = sym + 15; *p; p++)
			if (*p < '0' || *p > '9')
				return false;
		return p > sym + 15;
	}
	if (!strncmp(sym, "bpf_dispatcher_", 15))
		return !strcmp(sym + 15, "xdp");
	if (strncmp(sym, "bpf_prog_", 9) || strlen(sym) < 25 || !is_hex(sym + 9, 16))
		return false;
	p = sym + 25;
	if (!*p)
		return true;		/* unnamed: libbpf's probes */
	if (*p++ != '_')
		return false;
	if (!strncmp(p, "libbpf_", 7))
		return true;
	for (i = 0; known_names[i]; i++)
		if (!strcmp(p, known_names[i]))
			return true;
	return false;
}

static void remember(unsigned long long addr)
{
	atomic_store(&addrs[atomic_fetch_add(&addr_next, 1) % ADDRS], addr);
}

static void remember_prog(int fd)
{
	struct prog_syms ps;
	int i;

	if (fd >= 0 && !prog_syms(fd, &ps))
		for (i = 0; i < ps.nr; i++)
			remember(ps.addr[i] + (ps.len[i] ? rand() % ps.len[i] : 0));
}

static void *load_progs(void *arg)
{
	while (!atomic_load(&stop)) {
		struct bpf_object *o = open_progs();
		struct bpf_program *p;

		if (!o) {
			BAD("loading ksym_progs.bpf.o failed");
			break;
		}
		bpf_object__for_each_program(p, o)
			remember_prog(bpf_program__fd(p));
		bpf_object__close(o);
		atomic_fetch_add(&ops, 1);
	}
	return NULL;
}

static void *attach_fentry(void *arg)
{
	while (!atomic_load(&stop)) {
		struct bpf_object *o = open_obj("ksym_kinds.bpf.o");
		struct bpf_link *l;

		if (!o) {
			BAD("loading ksym_kinds.bpf.o failed");
			break;
		}
		l = bpf_program__attach(bpf_object__find_program_by_name(o, "ksym_fentry_idle"));
		if (!l)
			BAD("attaching fentry failed: %s", strerror(errno));
		remember_prog(prog_fd(o, "ksym_fentry_idle"));
		bpf_link__destroy(l);
		bpf_object__close(o);
		atomic_fetch_add(&ops, 1);
	}
	return NULL;
}

/* One /proc/kallsyms line: "<16 hex> <type> <name>[\t[<module>]]\n". */
static void check_text_line(char *line)
{
	char *sym, *mod, *nl = strchr(line, '\n');

	if (!nl || nl - line < 20 || !is_hex(line, 16) || line[16] != ' ' || line[18] != ' ') {
		BAD("unparsable /proc/kallsyms line '%.80s'", line);
		return;
	}
	*nl = 0;
	sym = line + 19;
	mod = strchr(sym, '\t');
	if (mod)
		*mod++ = 0;
	if (mod && !strcmp(mod, "[bpf]") && !valid_bpf_name(sym))
		BAD("/proc/kallsyms names a BPF symbol that never existed: '%s'", sym);
	atomic_fetch_add(&checked[BY_TEXT], 1);
}

static void *read_text(void *arg)
{
	char line[1024];

	while (!atomic_load(&stop)) {
		FILE *f = fopen("/proc/kallsyms", "r");

		if (!f) {
			BAD("open /proc/kallsyms: %s", strerror(errno));
			break;
		}
		/* A small buffer: many read() boundaries in the BPF section. */
		setvbuf(f, NULL, _IOFBF, 512);
		while (fgets(line, sizeof(line), f))
			check_text_line(line);
		fclose(f);
		atomic_fetch_add(&ops, 1);
	}
	return NULL;
}

static void *read_query(void *arg)
{
	int fd = open("/proc/kallsyms", O_RDONLY);
	struct kallsyms_query q;
	char buf[512];
	int r;

	if (fd < 0) {
		BAD("open /proc/kallsyms: %s", strerror(errno));
		return NULL;
	}
	while (!atomic_load(&stop)) {
		unsigned long long a = atomic_load(&addrs[rand() % ADDRS]);

		if (a) {
			r = kq_query(fd, &q, KALLSYMS_QUERY_BY_ADDR, a, NULL, buf, sizeof(buf));
			if (r == 0 && (q.sym_start > a || a > q.sym_start + q.sym_size ||
				       strcmp(q.sym_owner, "bpf") || !valid_bpf_name(buf)))
				BAD("BY_ADDR %llx: '%s' [%s] at %llx+%llu", a, buf, q.sym_owner,
				    q.sym_start, q.sym_size);
			else if (r && r != -ENOENT)
				BAD("BY_ADDR %llx: %s", a, strerror(-r));
			atomic_fetch_add(&checked[BY_QUERY], 1);
		}
		r = kq_query(fd, &q, KALLSYMS_QUERY_BY_ADDR, core_addr + 1, NULL, buf, sizeof(buf));
		if (r || strcmp(buf, CORE_SYM) || q.sym_start != core_addr)
			BAD("BY_ADDR on %s+1 gave %d '%s'", CORE_SYM, r, buf);
		r = kq_query(fd, &q, KALLSYMS_QUERY_BY_SYMBOL, 0, CORE_SYM, NULL, 0);
		if (r || q.sym_addr != core_addr)
			BAD("BY_SYMBOL %s gave %d %llx", CORE_SYM, r, q.sym_addr);
		atomic_fetch_add(&checked[BY_QUERY], 2);
		atomic_fetch_add(&ops, 3);
	}
	close(fd);
	return NULL;
}

static void *read_iter(void *arg)
{
	struct bpf_link *link = arg;
	char *buf, *line, *save;

	while (!atomic_load(&stop)) {
		int fd = bpf_iter_create(bpf_link__fd(link));

		if (fd < 0) {
			BAD("bpf_iter_create: %s", strerror(errno));
			break;
		}
		buf = slurp_fd(fd);
		close(fd);
		if (!buf) {
			BAD("out of memory for an iter/ksym dump");
			break;
		}
		for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
			struct iter_line l;

			if (!parse_iter_line(line, &l))
				BAD("unparsable iter/ksym line '%.80s'", line);
			else if (!strcmp(l.kind, "bpf") && !valid_bpf_name(l.name))
				BAD("iter/ksym names a BPF symbol that never existed: '%s'",
				    l.name);
			atomic_fetch_add(&checked[BY_ITER], 1);
		}
		free(buf);
		atomic_fetch_add(&ops, 1);
	}
	return NULL;
}

/* Runs ksym_caller (a subprogram-free program calling a helper) for perf to sample. */
static void *run_caller(void *arg)
{
	int fd = *(int *)arg;
	char pkt[64] = {};

	LIBBPF_OPTS(bpf_test_run_opts, opts, .data_in = pkt, .data_size_in = sizeof(pkt),
		    .repeat = 100000);

	while (!atomic_load(&stop))
		if (bpf_prog_test_run_opts(fd, &opts))
			break;
	return NULL;
}

/*
 * Counts the [bpf] lines; @last (@size bytes) gets the newest one's name (the
 * list is in load order).
 */
static int bpf_lines(char *last, size_t size)
{
	FILE *f = fopen("/proc/kallsyms", "r");
	struct kline k;
	int n = 0;

	while (f && next_kline(f, &k))
		if (!strcmp(k.mod, "[bpf]") && ++n && last)
			snprintf(last, size, "%s", k.sym);
	if (f)
		fclose(f);
	return n;
}

FIXTURE(stress) {};
FIXTURE_SETUP(stress) {}
FIXTURE_TEARDOWN(stress) {}

/* STRESS_SECONDS of load, then perf script and the wait for frees: not 30 s. */
TEST_F_TIMEOUT(stress, churn_under_load, 900)
{
	const char *env = getenv("STRESS_SECONDS");
	int seconds = env ? atoi(env) : 15, i, status, frames = 0, unknown = 0, baseline, left;
	char last[512] = "", base_last[512] = "";
	long total;
	pthread_t t[6];
	struct bpf_object *iter_obj, *caller_obj;
	struct bpf_program *dump;
	struct bpf_link *iter_link;
	struct kallsyms_query q;
	char line[1024];
	int caller_fd, kfd = open("/proc/kallsyms", O_RDONLY);
	pid_t perf;
	FILE *f;

	if (!have_tool("perf"))
		SKIP(return, "perf not on $PATH: its call chains are part of the test");
	/*
	 * Earlier tests' programs are being freed; what stays (the XDP
	 * dispatcher's image, once used) is the baseline to come back to.
	 */
	for (i = 0; i < 200 && bpf_lines(NULL, 0) > 1; i++)
		usleep(50000);
	baseline = bpf_lines(base_last, sizeof(base_last));
	ASSERT_GE(1, baseline) TH_LOG("%d BPF symbols 10 s after the earlier tests (newest: %s)",
				      baseline, base_last);
	ASSERT_EQ(0, kq_query(kfd, &q, KALLSYMS_QUERY_BY_SYMBOL, 0, CORE_SYM, NULL, 0));
	core_addr = q.sym_addr;
	iter_obj = open_obj("ksym_kinds.bpf.o");
	ASSERT_NE(NULL, iter_obj);
	dump = bpf_object__find_program_by_name(iter_obj, "ksym_dump");
	iter_link = bpf_program__attach_iter(dump, NULL);
	ASSERT_NE(NULL, iter_link);
	caller_obj = open_progs();
	ASSERT_NE(NULL, caller_obj);
	caller_fd = prog_fd(caller_obj, "ksym_caller");

	perf = fork();
	ASSERT_LE(0, perf);
	if (perf == 0) {
		char s[16];

		snprintf(s, sizeof(s), "%d", seconds);
		execlp("perf", "perf", "record", "-q", "-a", "-g", "-e", "cpu-clock",
		       "-F", "999", "-o", "/tmp/stress.perf", "--", "sleep", s, NULL);
		_exit(127);
	}
	pthread_create(&t[0], NULL, load_progs, NULL);
	pthread_create(&t[1], NULL, attach_fentry, NULL);
	pthread_create(&t[2], NULL, read_text, NULL);
	pthread_create(&t[3], NULL, read_query, NULL);
	pthread_create(&t[4], NULL, read_iter, iter_link);
	pthread_create(&t[5], NULL, run_caller, &caller_fd);
	ASSERT_EQ(perf, waitpid(perf, &status, 0));
	atomic_store(&stop, true);
	for (i = 0; i < 6; i++)
		pthread_join(t[i], NULL);
	ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0)
		TH_LOG("perf record failed (status %#x)", status);

	/* perf's call chains, resolved through /proc/kallsyms while the program was loaded. */
	f = popen("perf script -i /tmp/stress.perf --kallsyms=/proc/kallsyms -F ip,sym 2>/dev/null",
		  "r");
	ASSERT_NE(NULL, f);
	while (fgets(line, sizeof(line), f)) {
		char sym[512];
		unsigned long long ip;

		if (sscanf(line, "%llx %511s", &ip, sym) != 2 || strncmp(sym, "bpf_", 4))
			continue;
		if (strstr(sym, "_ksym_caller"))
			frames++;
		/* bpf_prog_<16 hex>...: a JIT image (bpf_prog_load and the like are core). */
		else if (!strncmp(sym, "bpf_prog_", 9) && strlen(sym) >= 25 &&
			 is_hex(sym + 9, 16) && !valid_bpf_name(sym) && !unknown++)
			TH_LOG("perf names an unknown BPF program: '%s'", line);
	}
	pclose(f);
	unlink("/tmp/stress.perf");

	bpf_link__destroy(iter_link);
	bpf_object__close(iter_obj);
	bpf_object__close(caller_obj);
	for (i = 0; i < 200 && bpf_lines(NULL, 0) > baseline; i++)
		usleep(50000);
	left = bpf_lines(last, sizeof(last)) - baseline;
	total = atomic_load(&checked[BY_TEXT]) + atomic_load(&checked[BY_QUERY]) +
		atomic_load(&checked[BY_ITER]);
	printf("# STRESS ops=%ld checked=%ld wrong=%ld perf_frames=%d seconds=%d bpf_lines_before=%d%s%s\n",
	       atomic_load(&ops), total, atomic_load(&wrong), frames, seconds,
	       baseline, baseline ? " " : "", base_last);
	EXPECT_EQ(0, atomic_load(&wrong));
	EXPECT_LT(1000, total) TH_LOG("the readers hardly ran");
	EXPECT_LT(0, atomic_load(&checked[BY_TEXT])) TH_LOG("no /proc/kallsyms line was read");
	EXPECT_LT(0, atomic_load(&checked[BY_QUERY])) TH_LOG("no KALLSYMS_QUERY was made");
	EXPECT_LT(0, atomic_load(&checked[BY_ITER])) TH_LOG("no iter/ksym line was read");
	EXPECT_LT(0, frames) TH_LOG("no perf sample named bpf_prog_<tag>_ksym_caller");
	EXPECT_EQ(0, unknown) TH_LOG("perf named BPF programs that never existed");
	EXPECT_EQ(0, left)
		TH_LOG("%d BPF symbols more than before, after everything was closed (newest: %s)",
		       left, last);
	close(kfd);
}

TEST_HARNESS_MAIN
