// SPDX-License-Identifier: GPL-2.0
/*
 * Churn under load (churn.h) for STRESS_SECONDS (default 15), while perf
 * record -g samples a running BPF program; then perf's call chains must name
 * it, and with everything closed no BPF line may be left. Prints
 * "# STRESS ops=<n> checked=<n> wrong=<n> ...".
 *
 * With STRESS_FAULTS=1 (make test-faults, whose fault_injection_test sets the
 * probabilities) calls that failed with an injected fault are counted
 * ("calls_failed=<n>" on the STRESS line) instead of being wrong; the end is
 * checked all the same: nothing left.
 */
#include <signal.h>
#include <sys/wait.h>
#include <time.h>

#include "kselftest_harness.h"
#include "churn.h"

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
	const char *missing;
	long total;
	pthread_t t[8];
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
	faults = getenv("STRESS_FAULTS") && atoi(getenv("STRESS_FAULTS"));
	/*
	 * Earlier tests' programs are being freed; what stays (the XDP
	 * dispatcher's image, once used) is the baseline to come back to.
	 */
	/* Under faults, make test-faults's fuzzer has its program loaded beside us. */
	for (i = 0; i < 200 && bpf_lines(NULL, 0) > 1 + faults; i++)
		usleep(50000);
	baseline = bpf_lines(base_last, sizeof(base_last));
	ASSERT_GE(1 + faults, baseline)
		TH_LOG("%d BPF symbols 10 s after the earlier tests (newest: %s)",
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
	pthread_create(&t[6], NULL, read_batch, NULL);
	/*
	 * Under this churn on TCG few full reads of /proc/kallsyms go without a
	 * change overlapping them (soak_test pauses the churn for more), but its
	 * GENERATION calls must answer whatever the churn does.
	 */
	pthread_create(&t[7], NULL, check_generation, NULL);
	ASSERT_EQ(perf, waitpid(perf, &status, 0));
	atomic_store(&stop, true);
	for (i = 0; i < 8; i++)
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
	for (total = 0, i = 0; i < READERS; i++)
		total += atomic_load(&checked[i]);
	printf("# STRESS ops=%ld checked=%ld wrong=%ld perf_frames=%d seconds=%d bpf_lines_before=%d%s%s",
	       atomic_load(&ops), total, atomic_load(&wrong), frames, seconds,
	       baseline, baseline ? " " : "", base_last);
	printf(" bpf_lines_checked=%ld generation_snapshots=%ld generations_compared=%ld",
	       atomic_load(&bpf_lines_checked), atomic_load(&checked[BY_GENERATION]),
	       atomic_load(&generations_compared));
	if (faults)
		printf(" calls_failed=%ld", atomic_load(&calls_failed));
	printf("\n");
	if (faults)
		EXPECT_LT(0, atomic_load(&calls_failed)) TH_LOG("no injected fault made a call fail");
	EXPECT_EQ(0, atomic_load(&wrong));
	EXPECT_LT(1000, total) TH_LOG("the readers hardly ran");
	/* Every reader must have run (the generation's is the soak's: see above). */
	for (missing = NULL, i = 0; i < READERS; i++)
		if (i != BY_GENERATION && !atomic_load(&checked[i]))
			missing = reader_names[i];
	EXPECT_EQ(NULL, missing) TH_LOG("no %s checked", missing);
	EXPECT_LT(0, atomic_load(&bpf_lines_checked)) TH_LOG("no reader got to a BPF line");
	EXPECT_LT(0, frames) TH_LOG("no perf sample named bpf_prog_<tag>_ksym_caller");
	EXPECT_EQ(0, unknown) TH_LOG("perf named BPF programs that never existed");
	/* Fewer is not ours: a program of another test (make test-faults's fuzzer) may go. */
	EXPECT_GE(0, left)
		TH_LOG("%d BPF symbols more than before, after everything was closed (newest: %s)",
		       left, last);
	close(kfd);
}

TEST_HARNESS_MAIN
