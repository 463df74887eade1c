// SPDX-License-Identifier: GPL-2.0
/*
 * The registry's KUnit suite adds and removes synthetic symbols, and reuses
 * them. Run it again after boot (KUnit's debugfs "run" file) while other
 * processes read /proc/kallsyms in a loop: the suite must pass and every
 * reader must finish its reads. A symbol reused without a grace period would
 * leave a reader looping on a list node that points to itself. Whether a
 * reader stands on such a node at the wrong moment is a matter of timing: a
 * pass says the suite and the readers coexisted this time, a hang (the
 * harness times out) or a failed read says they do not.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include "kselftest_harness.h"
#include "ksym_util.h"

#define SUITE_DIR "/sys/kernel/debug/kunit/bpf_ksym"
#define READERS 2
/* Reads a reader must finish after the suite ends: it is not stuck. */
#define READS_AFTER 2

/* Read /proc/kallsyms whole; returns its line count, or -1. */
static long read_kallsyms(void)
{
	char buf[4096];
	long lines = 0;
	ssize_t n;
	int fd = open("/proc/kallsyms", O_RDONLY);

	if (fd < 0)
		return -1;
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		for (ssize_t i = 0; i < n; i++)
			lines += buf[i] == '\n';
	close(fd);
	return n < 0 ? -1 : lines;
}

/*
 * Reader process: reads until the parent writes a byte to @stop (or closes
 * it, or dies), then READS_AFTER more; exits 0 if every read worked.
 */
static void reader(int stop)
{
	int after = -1;
	char c;

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	for (;;) {
		if (read_kallsyms() <= 0)
			_exit(1);
		if (after < 0 && read(stop, &c, 1) >= 0)
			after = 0;
		if (after >= 0 && ++after > READS_AFTER)
			_exit(0);
	}
}

/* The suite's results file: "ok" for the suite, no "not ok" anywhere. */
static int suite_result(char *out, size_t len)
{
	int fd = open(SUITE_DIR "/results", O_RDONLY);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = read(fd, out, len - 1);
	close(fd);
	if (n < 0)
		return -1;
	out[n] = 0;
	return 0;
}

TEST(kunit_suite_passes_again_while_kallsyms_is_read)
{
	int stop[READERS][2], status, i, fd;
	pid_t pid[READERS];
	static char results[65536];

	if (access(SUITE_DIR "/run", W_OK))
		SKIP(return, "no %s/run: not the Rust registry, or no KUNIT_DEBUGFS", SUITE_DIR);

	for (i = 0; i < READERS; i++) {
		ASSERT_EQ(0, pipe2(stop[i], O_NONBLOCK));
		pid[i] = fork();
		ASSERT_LE(0, pid[i]);
		if (pid[i] == 0) {
			close(stop[i][1]);
			reader(stop[i][0]);
		}
		close(stop[i][0]);
	}

	/*
	 * The suite prints its KTAP to the console too, inside this test's
	 * output; scripts/results.py counts only this harness's own
	 * "fixture.test" lines there. The results file below is what this
	 * test checks.
	 */
	fd = open(SUITE_DIR "/run", O_WRONLY);
	ASSERT_LE(0, fd);
	ASSERT_EQ(1, write(fd, "1", 1));
	close(fd);

	for (i = 0; i < READERS; i++) {
		ASSERT_EQ(1, write(stop[i][1], "x", 1));
		ASSERT_EQ(pid[i], waitpid(pid[i], &status, 0));
		EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0)
			TH_LOG("reader %d: status %#x", i, status);
	}

	ASSERT_EQ(0, suite_result(results, sizeof(results)));
	EXPECT_EQ(NULL, strstr(results, "not ok"))
		TH_LOG("KUnit results after the re-run:\n%s", results);
	/* Its first case ran (the file holds the cases' KTAP lines). */
	EXPECT_NE(NULL, strstr(results, "ok 1 add_find_del_with_boundaries"))
		TH_LOG("KUnit results after the re-run:\n%s", results);
}

TEST_HARNESS_MAIN
