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
 */
#include <net/if.h>
#include <sys/wait.h>

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

TEST_HARNESS_MAIN
