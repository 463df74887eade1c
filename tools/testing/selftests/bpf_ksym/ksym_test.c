// SPDX-License-Identifier: GPL-2.0
/*
 * bpf_ksym kselftests: what /proc/kallsyms, unprivileged readers and stack
 * traces show for JIT-compiled BPF programs. The same tests must pass on the
 * C registry (CONFIG_BPF_KSYM_RUST=n) and the Rust one.
 */
#include <sys/wait.h>

#include <bpf/btf.h>

#include "kselftest_harness.h"
#include "ksym_util.h"

TEST(prog_symbol_appears_at_jited_address_and_goes_on_unload)
{
	struct bpf_object *o = open_progs();
	struct prog_syms ps;
	char want[600], got[512] = "";

	ASSERT_NE(NULL, o) TH_LOG("cannot load ksym_progs.bpf.o");
	ASSERT_EQ(0, prog_syms(prog_fd(o, "ksym_caller"), &ps));
	ASSERT_EQ(1, ps.nr);
	ASSERT_NE(0, ps.addr[0]);

	snprintf(want, sizeof(want), "bpf_prog_%s_ksym_caller", ps.tag);
	ASSERT_EQ(1, kallsyms_bpf_at(ps.addr[0], got, sizeof(got)))
		TH_LOG("no [bpf] line at %llx", ps.addr[0]);
	ASSERT_STREQ(want, got);

	bpf_object__close(o);
	ASSERT_EQ(0, wait_gone(want)) TH_LOG("%s still listed after unload", want);
}

TEST(subprograms_get_their_own_lines)
{
	struct bpf_object *o = open_progs();
	struct prog_syms ps;
	char want[600], got[512];
	int i, main_seen = 0, sub_seen = 0;

	ASSERT_NE(NULL, o);
	ASSERT_EQ(0, prog_syms(prog_fd(o, "ksym_with_sub"), &ps));
	ASSERT_EQ(2, ps.nr) TH_LOG("expected main program + 1 subprogram");
	ASSERT_NE(ps.addr[0], ps.addr[1]);

	for (i = 0; i < ps.nr; i++) {
		size_t len;

		ASSERT_EQ(1, kallsyms_bpf_at(ps.addr[i], got, sizeof(got)))
			TH_LOG("no [bpf] line at %llx (func %d)", ps.addr[i], i);
		/* bpf_prog_<16 hex digits>_<BTF function name> */
		len = strlen(got);
		ASSERT_EQ(0, strncmp(got, "bpf_prog_", 9));
		ASSERT_GT(len, 26);
		ASSERT_EQ('_', got[25]);
		if (!strcmp(got + 26, "ksym_with_sub")) {
			snprintf(want, sizeof(want), "bpf_prog_%s_ksym_with_sub", ps.tag);
			ASSERT_STREQ(want, got);
			main_seen++;
		} else if (!strcmp(got + 26, "ksym_sub")) {
			sub_seen++;
		}
	}
	ASSERT_EQ(1, main_seen);
	ASSERT_EQ(1, sub_seen);
	bpf_object__close(o);
}

TEST(unprivileged_reader_sees_no_bpf_address)
{
	struct bpf_object *o = open_progs();
	struct prog_syms ps;
	char name[600];
	int status;
	pid_t pid;

	ASSERT_NE(NULL, o);
	ASSERT_EQ(0, prog_syms(prog_fd(o, "ksym_caller"), &ps));
	snprintf(name, sizeof(name), "bpf_prog_%s_ksym_caller", ps.tag);
	/* root sees it with its address ... */
	ASSERT_EQ(1, kallsyms_count(name, KS_NONZERO));

	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		/* ... nobody sees, at most, a zero address. */
		int named, with_addr;

		if (setgid(65534) || setuid(65534))
			_exit(10);
		named = kallsyms_count(name, 0);
		with_addr = kallsyms_count(name, KS_NONZERO);
		if (named < 0)
			_exit(11);
		/* The line may be listed, but only with a zero address. */
		_exit(with_addr == 0 ? 0 : 1);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	ASSERT_NE(10, WEXITSTATUS(status)) TH_LOG("cannot drop to uid 65534");
	ASSERT_NE(11, WEXITSTATUS(status)) TH_LOG("uid 65534 cannot read /proc/kallsyms");
	ASSERT_EQ(0, WEXITSTATUS(status)) TH_LOG("unprivileged reader saw %s's address", name);
	bpf_object__close(o);
}

TEST(stack_trace_through_bpf_names_the_program)
{
	struct bpf_object *o = open_progs();
	struct bpf_link *link;
	struct prog_syms ps;
	char pkt[64] = {}, name[512] = "", want[600];
	__u64 stack[32] = {};
	__u32 key = 0;
	int i, hit = -1;

	LIBBPF_OPTS(bpf_test_run_opts, run, .data_in = pkt, .data_size_in = sizeof(pkt),
		    .repeat = 1);

	ASSERT_NE(NULL, o);
#ifdef __aarch64__
	/*
	 * At a function's entry arm64 holds the return address in the link
	 * register, and its unwinder, starting from the probe's registers,
	 * reports the frame records only: the caller is never in this stack.
	 * The fentry test below takes it one frame down.
	 */
	SKIP(bpf_object__close(o); return,
	     "arm64: a stack from a function-entry kprobe does not hold the caller");
#endif
	ASSERT_EQ(0, prog_syms(prog_fd(o, "ksym_caller"), &ps));
	link = bpf_program__attach_kprobe(bpf_object__find_program_by_name(o, "ksym_stack"),
					  false, "bpf_user_rnd_u32");
	ASSERT_EQ(0, libbpf_get_error(link)) TH_LOG("kprobe on bpf_user_rnd_u32 failed");

	ASSERT_EQ(0, bpf_prog_test_run_opts(prog_fd(o, "ksym_caller"), &run));
	ASSERT_EQ(0, bpf_map_lookup_elem(bpf_object__find_map_fd_by_name(o, "kstack"),
					 &key, stack));

	/* The unwinder went through the JIT image: a return address inside it. */
	for (i = 0; i < 32 && stack[i]; i++)
		if (stack[i] >= ps.addr[0] && stack[i] <= ps.addr[0] + ps.len[0])
			hit = i;
	ASSERT_LE(0, hit) TH_LOG("no frame in [%llx, %llx] among %d frames",
				 ps.addr[0], ps.addr[0] + ps.len[0], i);
	snprintf(want, sizeof(want), "bpf_prog_%s_ksym_caller", ps.tag);
	ASSERT_EQ(1, kallsyms_bpf_at(ps.addr[0], name, sizeof(name)));
	ASSERT_STREQ(want, name);

	bpf_link__destroy(link);
	bpf_object__close(o);
}

/*
 * A stack taken by an fentry program on the helper ksym_caller calls, each
 * frame named by KALLSYMS_QUERY as a symbolizer names it: the fentry program,
 * the trampoline of bpf_user_rnd_u32 and ksym_caller must all be there, each
 * frame inside its symbol's extent, so the unwinder went through two JIT
 * images and a trampoline, and the registry named each.
 */
TEST(stack_through_a_trampoline_names_program_trampoline_and_caller)
{
	struct bpf_object *o = open_progs();
	struct prog_syms caller, fentry;
	struct bpf_link *link;
	struct kallsyms_query q;
	struct btf *vmlinux;
	char pkt[64] = {}, name[512], caller_name[600], fentry_name[600];
	__u64 stack[32] = {};
	__u32 key = 0, func;
	int i, fd, id, seen_caller = 0, seen_fentry = 0, seen_tramp = 0;

	LIBBPF_OPTS(bpf_test_run_opts, run, .data_in = pkt, .data_size_in = sizeof(pkt),
		    .repeat = 1);

	ASSERT_NE(NULL, o);
	ASSERT_EQ(0, prog_syms(prog_fd(o, "ksym_caller"), &caller));
	snprintf(caller_name, sizeof(caller_name), "bpf_prog_%s_ksym_caller", caller.tag);
	ASSERT_EQ(0, prog_syms(prog_fd(o, "ksym_stack_fentry"), &fentry));
	snprintf(fentry_name, sizeof(fentry_name), "bpf_prog_%s_ksym_stack_fentry", fentry.tag);
	/* Its trampoline's key: the vmlinux BTF object's id << 32 | 0x80000000 | BTF id. */
	vmlinux = btf__load_vmlinux_btf();
	ASSERT_EQ(0, libbpf_get_error(vmlinux));
	id = btf__find_by_name_kind(vmlinux, "bpf_user_rnd_u32", BTF_KIND_FUNC);
	btf__free(vmlinux);
	ASSERT_LT(0, id);
	func = 0x80000000u | id;

	link = bpf_program__attach(bpf_object__find_program_by_name(o, "ksym_stack_fentry"));
	ASSERT_EQ(0, libbpf_get_error(link)) TH_LOG("fentry on bpf_user_rnd_u32 failed");
	ASSERT_EQ(0, bpf_prog_test_run_opts(prog_fd(o, "ksym_caller"), &run));
	ASSERT_EQ(0, bpf_map_lookup_elem(bpf_object__find_map_fd_by_name(o, "kstack"),
					 &key, stack));
	fd = open("/proc/kallsyms", O_RDONLY);
	ASSERT_LE(0, fd);
	for (i = 0; i < 32 && stack[i]; i++) {
		unsigned long long tramp;
		char *end;

		if (kq_query(fd, &q, KALLSYMS_QUERY_BY_ADDR, stack[i], NULL, name, sizeof(name)))
			continue;
		TH_LOG("frame %d: %llx %s+%#llx", i, stack[i], name, stack[i] - q.sym_start);
		if (!strcmp(name, caller_name)) {
			EXPECT_EQ(caller.addr[0], q.sym_start);
			EXPECT_LT(stack[i] - caller.addr[0], caller.len[0]);
			seen_caller++;
		} else if (!strcmp(name, fentry_name)) {
			EXPECT_EQ(fentry.addr[0], q.sym_start);
			EXPECT_LT(stack[i] - fentry.addr[0], fentry.len[0]);
			seen_fentry++;
		} else if (!strncmp(name, "bpf_trampoline_", 15)) {
			tramp = strtoull(name + 15, &end, 10);
			EXPECT_EQ(0, *end);
			EXPECT_EQ(func, (__u32)tramp) TH_LOG("%s is not bpf_user_rnd_u32's", name);
			EXPECT_NE(0, tramp >> 32);
			EXPECT_LT(stack[i] - q.sym_start, q.sym_size);
			seen_tramp++;
		}
	}
	close(fd);
	/* arm64 lists the fentry program twice: from its caller's registers, then its frame. */
	EXPECT_LE(1, seen_fentry) TH_LOG("%s not in the stack", fentry_name);
	EXPECT_LE(1, seen_tramp) TH_LOG("no bpf_trampoline_<key> in the stack");
	EXPECT_LE(1, seen_caller) TH_LOG("%s not in the stack", caller_name);

	bpf_link__destroy(link);
	bpf_object__close(o);
}

TEST_HARNESS_MAIN
