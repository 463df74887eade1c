// SPDX-License-Identifier: GPL-2.0
/*
 * blazesym, the symbolizer bpftrace uses, with and without its patches for
 * KALLSYMS_QUERY: blazesym-check (built by the bpf_ksym project's
 * tools/blazesym/build.sh, named by $BLAZESYM_CHECK) symbolizes 100,000 kernel
 * addresses with both and requires the same answer wherever the text's is
 * right, and the kernel's where it is not; then the C API, one address per
 * call as bpftrace makes it, against the patched crate's answers. A module
 * and every kind of BPF symbol a test can make are loaded while it runs:
 * programs and a subprogram, a trampoline and the XDP dispatcher.
 *
 * And a program's name through the C API for a caller that may see addresses
 * (CAP_SYSLOG) but not walk the programs for their line information
 * (CAP_SYS_ADMIN): the query gives the name, so the symbolizer must too.
 *
 * And a program's source lines, through the program id the query gives:
 * each JIT address at which the kernel's line table starts a line.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE	/* setresuid(), setresgid() */
#endif
#include <linux/capability.h>
#include <net/if.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include <bpf/btf.h>

#include "kselftest_harness.h"
#include "ksym_util.h"

TEST(patched_blazesym_answers_as_published_and_right_where_text_is_wrong)
{
	const char *check = getenv("BLAZESYM_CHECK"), *capi = getenv("BLAZESYM_CAPI_CHECK");
	struct bpf_object *progs, *kinds;
	struct bpf_link *fentry, *xdp;
	char cmd[PATH_MAX * 2 + 64];
	int lo = if_nametoindex("lo");
	int status, loaded;

	if (!check || !capi)
		SKIP(return, "no BLAZESYM_CHECK or BLAZESYM_CAPI_CHECK: see tools/blazesym");
	ASSERT_EQ(0, access(check, X_OK)) TH_LOG("%s: %s", check, strerror(errno));
	ASSERT_EQ(0, access(capi, X_OK)) TH_LOG("%s: %s", capi, strerror(errno));
	progs = open_progs();
	kinds = open_obj("ksym_kinds.bpf.o");
	ASSERT_NE(NULL, progs);
	ASSERT_NE(NULL, kinds);
	ASSERT_LT(0, lo);
	fentry = bpf_program__attach(bpf_object__find_program_by_name(kinds, "ksym_fentry"));
	ASSERT_EQ(0, libbpf_get_error(fentry));
	xdp = bpf_program__attach_xdp(bpf_object__find_program_by_name(kinds, "ksym_xdp"), lo);
	ASSERT_NE(NULL, xdp);
	ASSERT_EQ(1, kallsyms_count("bpf_dispatcher_xdp", KS_NONZERO | KS_BPF_TEXT));
	snprintf(cmd, sizeof(cmd), "insmod %s", test_file("test_module/ksym_test_mod.ko"));
	loaded = system(cmd);
	ASSERT_EQ(0, loaded) TH_LOG("%s failed", cmd);

	snprintf(cmd, sizeof(cmd), "%s compare --capi %s --require %s", check, capi,
		 "core,module,bpf_prog,bpf_subprog,bpf_trampoline,bpf_dispatcher");
	fflush(stdout);
	status = system(cmd);
	EXPECT_TRUE(WIFEXITED(status)) TH_LOG("%s: status %#x", cmd, status);
	EXPECT_EQ(0, WEXITSTATUS(status)) TH_LOG("%s failed: see its output above", cmd);

	EXPECT_EQ(0, system("rmmod ksym_test_mod"));

	bpf_link__destroy(xdp);
	bpf_link__destroy(fentry);
	bpf_object__close(kinds);
	bpf_object__close(progs);
}

#define KPTR "/proc/sys/kernel/kptr_restrict"

/*
 * Becomes uid/gid 65534 with CAP_SYSLOG alone, kept across exec (inheritable
 * and ambient), and runs @capi with @in as its stdin and @out as its stdout:
 * files the caller opened, as root, since uid 65534 may not create any.
 */
static void capi_as_syslog_only(const char *capi, int in, int out)
{
	struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct d[2] = {};

	if (dup2(in, 0) < 0 || dup2(out, 1) < 0)
		_exit(9);
	if (prctl(PR_SET_KEEPCAPS, 1) || setresgid(65534, 65534, 65534) ||
	    setresuid(65534, 65534, 65534))
		_exit(10);
	/* CAP_SYSLOG is 34: the second word's. */
	d[1].effective = 1u << (CAP_SYSLOG - 32);
	d[1].permitted = d[1].effective;
	d[1].inheritable = d[1].effective;
	if (syscall(SYS_capset, &h, d) ||
	    prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_RAISE, CAP_SYSLOG, 0, 0))
		_exit(11);
	execl(capi, capi, NULL);
	_exit(12);
}

TEST(a_program_is_named_without_cap_sys_admin)
{
	const char *capi = getenv("BLAZESYM_CAPI_CHECK");
	int kptr = read_sysctl(KPTR), fd, in, out, status;
	char line[512] = "", want[128];
	struct prog_syms ps;
	ssize_t n;
	pid_t pid;

	if (!capi)
		SKIP(return, "no BLAZESYM_CAPI_CHECK: see tools/blazesym");
	fd = load_tiny_prog("ksym_capless");
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, prog_syms(fd, &ps));
	snprintf(want, sizeof(want), "bpf_prog_%s_ksym_capless+0x1 [bpf]", ps.tag);
	in = open("/tmp/blazesym_capless.in", O_RDWR | O_CREAT | O_TRUNC, 0600);
	out = open("/tmp/blazesym_capless.out", O_RDWR | O_CREAT | O_TRUNC, 0600);
	ASSERT_LE(0, in);
	ASSERT_LE(0, out);
	ASSERT_LT(0, dprintf(in, "%llx\n", ps.addr[0] + 1));
	ASSERT_EQ(0, lseek(in, 0, SEEK_SET));
	/* Addresses shown to CAP_SYSLOG (kallsyms_show_value()), as to perf. */
	ASSERT_EQ(0, write_sysctl(KPTR, 1));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid)
		capi_as_syslog_only(capi, in, out);
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	write_sysctl(KPTR, kptr);
	EXPECT_TRUE(WIFEXITED(status) && !WEXITSTATUS(status)) TH_LOG("status %#x", status);
	n = pread(out, line, sizeof(line) - 1, 0);
	ASSERT_LT(0, n);
	line[strcspn(line, "\n")] = 0;
	/* "0x<addr> <name>+0x<offset> <module>", as capi_check prints it. */
	EXPECT_NE(NULL, strstr(line, want)) TH_LOG("got \"%s\", want \"%s\"", line, want);
	close(in);
	close(out);
	close(fd);
}

/* The file name without its directory. */
static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

/* Runs "@capi --lines" with @in as its stdin and @out as its stdout; its wait status. */
static int capi_lines(const char *capi, FILE *in, FILE *out)
{
	int status = -1;
	pid_t pid;

	fflush(NULL);
	pid = fork();
	if (pid < 0)
		return -1;
	if (!pid) {
		if (dup2(fileno(in), 0) < 0 || dup2(fileno(out), 1) < 0)
			_exit(9);
		execl(capi, capi, "--lines", NULL);
		_exit(12);
	}
	if (waitpid(pid, &status, 0) != pid)
		return -1;
	return status;
}

/*
 * ksym_lines (ksym_lines.bpf.c, built with -g: BTF line information), a
 * program and a subprogram of several lines each, by its program id: each
 * address at which the kernel's jited_line_info starts a source line, and the
 * byte after it where the line is longer, must come back through the C API
 * with that line's file, line and column from the program's BTF. That table is
 * what "bpftool prog dump jited ... linum" prints before each instruction;
 * Debian's bpftool has no disassembler for a jited dump, so the test reads the
 * table itself, as bpftool does.
 */
TEST(a_program_has_the_kernels_source_lines)
{
	const char *capi = getenv("BLAZESYM_CAPI_CHECK");
	struct bpf_prog_info info = {};
	__u32 len = sizeof(info), nr, i, lens[2];
	int fd, status, in_image[2] = { 0, 0 }, lines = 0;
	__u64 *jited, ksyms[2];
	struct bpf_line_info *li;
	struct bpf_object *obj;
	char line[512];
	struct btf *btf;
	FILE *in, *out;

	if (!capi)
		SKIP(return, "no BLAZESYM_CAPI_CHECK: see tools/blazesym");
	obj = open_obj("ksym_lines.bpf.o");
	ASSERT_NE(NULL, obj);
	fd = prog_fd(obj, "ksym_lines");
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, bpf_obj_get_info_by_fd(fd, &info, &len));
	nr = info.nr_jited_line_info;
	ASSERT_LT(3U, nr) TH_LOG("no jited line information: was it built with -g?");
	ASSERT_EQ(nr, info.nr_line_info);
	ASSERT_EQ(2U, info.nr_jited_ksyms) TH_LOG("want the program and its subprogram");
	li = calloc(nr, sizeof(*li));
	jited = calloc(nr, sizeof(*jited));
	ASSERT_NE(NULL, li);
	ASSERT_NE(NULL, jited);
	btf = btf__load_from_kernel_by_id(info.btf_id);
	ASSERT_NE(NULL, btf);

	memset(&info, 0, sizeof(info));
	info.nr_line_info = nr;
	info.line_info_rec_size = sizeof(*li);
	info.line_info = (unsigned long)li;
	info.nr_jited_line_info = nr;
	info.jited_line_info_rec_size = sizeof(*jited);
	info.jited_line_info = (unsigned long)jited;
	info.nr_jited_ksyms = 2;
	info.jited_ksyms = (unsigned long)ksyms;
	info.nr_jited_func_lens = 2;
	info.jited_func_lens = (unsigned long)lens;
	len = sizeof(info);
	ASSERT_EQ(0, bpf_obj_get_info_by_fd(fd, &info, &len));
	ASSERT_NE(0ULL, jited[0]) TH_LOG("JIT addresses hidden (kernel.kptr_restrict)");

	in = tmpfile();
	out = tmpfile();
	ASSERT_NE(NULL, in);
	ASSERT_NE(NULL, out);
	for (i = 0; i < nr; i++) {
		fprintf(in, "%llx\n", jited[i]);
		fprintf(in, "%llx\n", jited[i] + 1);
	}
	rewind(in);
	status = capi_lines(capi, in, out);
	ASSERT_TRUE(WIFEXITED(status) && !WEXITSTATUS(status)) TH_LOG("%s: %#x", capi, status);

	rewind(out);
	for (i = 0; i < 2 * nr && fgets(line, sizeof(line), out); i++) {
		__u32 k = i / 2, img;
		__u64 addr = jited[k] + i % 2;
		const char *file = btf__name_by_offset(btf, li[k].file_name_off);
		char want[PATH_MAX], got[PATH_MAX], *at = strrchr(line, ' '), *colon;

		/* A line whose code is empty, or one byte long, has no address of its own. */
		if ((k + 1 < nr && jited[k + 1] <= addr) || (k && jited[k - 1] == jited[k]))
			continue;
		ASSERT_NE(NULL, file);
		ASSERT_NE(NULL, at);
		line[strcspn(line, "\n")] = 0;
		/* "<file>:<line>:<column>", the file with or without its directory. */
		colon = strchr(at, ':');
		ASSERT_NE(NULL, colon) TH_LOG("0x%llx: no source line: \"%s\"", addr, line);
		*colon = 0;
		snprintf(got, sizeof(got), "%s:%s", base_name(at + 1), colon + 1);
		*colon = ':';
		snprintf(want, sizeof(want), "%s:%u:%u", base_name(file),
			 BPF_LINE_INFO_LINE_NUM(li[k].line_col),
			 BPF_LINE_INFO_LINE_COL(li[k].line_col));
		EXPECT_STREQ(want, got) TH_LOG("0x%llx: \"%s\"", addr, line);
		for (img = 0; img < 2; img++)
			if (addr >= ksyms[img] && addr < ksyms[img] + lens[img])
				in_image[img]++;
		if (i % 2 == 0 && (!k || BPF_LINE_INFO_LINE_NUM(li[k].line_col) !=
					 BPF_LINE_INFO_LINE_NUM(li[k - 1].line_col)))
			lines++;
	}
	EXPECT_EQ(2 * nr, i) TH_LOG("%s answered %u of %u addresses", capi, i, 2 * nr);
	/* Several lines, in both images. */
	EXPECT_LE(3, lines);
	EXPECT_LE(2, in_image[0]);
	EXPECT_LE(2, in_image[1]);
	fclose(in);
	fclose(out);
	btf__free(btf);
	free(jited);
	free(li);
	bpf_object__close(obj);
}

TEST_HARNESS_MAIN
