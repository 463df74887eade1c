// SPDX-License-Identifier: GPL-2.0
/*
 * Upstream's /proc/kallsyms readers, tools/testing/selftests/bpf/trace_helpers.c
 * linked as test_progs links it (with this tree's libbpf), against the running
 * registry. test_progs' ksyms, kprobe_multi, stacktrace and trampoline tests find
 * kernel and BPF symbols through these functions: load_kallsyms_local() and
 * ksym_search_local() (a sorted table of every line), ksym_get_addr_local() and
 * kallsyms_find() (a name's address). The whole of test_progs needs a kernel with
 * the BPF selftests' config (make test-upstream); this is the part of it that runs
 * on the test kernels of both registries.
 *
 * The kernel's own answers are the reference: KALLSYMS_QUERY for what covers an
 * address, and a plain line count of /proc/kallsyms for how many symbols the
 * reader must keep.
 */
#include <fcntl.h>
#include <net/if.h>
#include <bpf/btf.h>

#include "kselftest_harness.h"
#include "ksym_util.h"
#include "trace_helpers.h"

#define TRACED_FUNC "bpf_user_rnd_u32"
#define MAX_SYMS 8
/* Where the XDP dispatcher is in the test's list of symbols. */
#define DISPATCHER 3

/* Lines of /proc/kallsyms with a non-zero address, the ones the reader keeps; the longest name. */
static int count_lines(char *longest, size_t size, unsigned long long *longest_addr)
{
	FILE *f = fopen("/proc/kallsyms", "r");
	char line[1024], name[600];
	unsigned long long addr;
	int n = 0;

	if (!f)
		return -errno;
	longest[0] = 0;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%llx %*c %599s", &addr, name) != 2 || !addr)
			continue;
		n++;
		if (strlen(name) > strlen(longest)) {
			snprintf(longest, size, "%s", name);
			*longest_addr = addr;
		}
	}
	fclose(f);
	return n;
}

/* The address of the BPF symbol @name in /proc/kallsyms, by our own parser; 0 if none. */
static unsigned long long bpf_line_addr(const char *name)
{
	FILE *f = fopen("/proc/kallsyms", "r");
	unsigned long long addr = 0;
	struct kline k;

	while (f && next_kline(f, &k))
		if (!strcmp(k.sym, name) && !strcmp(k.mod, "[bpf]"))
			addr = k.addr;
	if (f)
		fclose(f);
	return addr;
}

/* A BPF symbol as the kernel describes it. */
struct sym {
	char name[512];
	unsigned long long start, size;
	__u32 kind;
};

/* What KALLSYMS_QUERY answers for @addr; 0 or -errno. */
static int kernel_answer(unsigned long long addr, struct sym *s)
{
	struct kallsyms_query q;
	int fd = open("/proc/kallsyms", O_RDONLY), err;

	if (fd < 0)
		return -errno;
	err = kq_query(fd, &q, KALLSYMS_QUERY_BY_ADDR, addr, NULL, s->name, sizeof(s->name));
	close(fd);
	s->start = q.sym_start;
	s->size = q.sym_size;
	s->kind = q.sym_kind;
	return err;
}

TEST(reader_keeps_every_line_long_names_included)
{
	unsigned long long longest_addr = 0;
	char longest[600];
	struct ksyms *ks = NULL;
	int before, after = -1, tries;

	/*
	 * Symbols freed late (trampolines after an RCU-tasks grace period, an
	 * earlier test's programs) may go while the reader reads: compare with
	 * a count that is the same before and after its read.
	 */
	for (tries = 0; tries < 10; tries++) {
		free_kallsyms_local(ks);
		before = count_lines(longest, sizeof(longest), &longest_addr);
		ks = load_kallsyms_local();
		ASSERT_NE(NULL, ks) TH_LOG("load_kallsyms_local() failed");
		after = count_lines(longest, sizeof(longest), &longest_addr);
		if (before == after)
			break;
		usleep(100000);
	}
	ASSERT_EQ(before, after) TH_LOG("/proc/kallsyms kept changing");
	ASSERT_LT(1000, after);
	/* A reader that stopped at a line it could not parse keeps fewer. */
	EXPECT_EQ(after, (int)ks->sym_cnt);
	/* Rust's mangled names exceed the 255 bytes upstream's reader once allowed. */
	ASSERT_LE(256, strlen(longest)) TH_LOG("longest name: %zu bytes", strlen(longest));
	EXPECT_EQ((long)longest_addr, ksym_get_addr_local(ks, longest))
		TH_LOG("%s not found by name", longest);
	free_kallsyms_local(ks);
}

TEST(reader_finds_programs_subprograms_trampolines_and_dispatchers)
{
	struct bpf_object *progs = open_progs(), *kinds = open_obj("ksym_kinds.bpf.o");
	struct btf *vmlinux = btf__load_vmlinux_btf();
	struct sym want[MAX_SYMS];
	unsigned long long addrs[MAX_SYMS], inside[MAX_SYMS];
	struct bpf_link *link, *xdp;
	int lo = if_nametoindex("lo"), n = 0, i, id;
	struct prog_syms ps;
	char tramp[64];
	struct ksyms *ks;

	ASSERT_NE(NULL, progs);
	ASSERT_NE(NULL, kinds);
	ASSERT_NE(NULL, vmlinux);
	ASSERT_LT(0, lo);
	/* A program with a subprogram: two JIT images. */
	ASSERT_EQ(0, prog_syms(prog_fd(progs, "ksym_with_sub"), &ps));
	ASSERT_EQ(2, ps.nr);
	addrs[n++] = ps.addr[0] + ps.len[0] / 2;
	addrs[n++] = ps.addr[1] + ps.len[1] / 2;
	/* An fentry trampoline; its key as bpf_trampoline_compute_key() makes it. */
	id = btf__find_by_name_kind(vmlinux, TRACED_FUNC, BTF_KIND_FUNC);
	ASSERT_LT(0, id);
	snprintf(tramp, sizeof(tramp), "bpf_trampoline_%llu",
		 (1ULL << 32) | 0x80000000ULL | (unsigned int)id);
	link = bpf_program__attach(bpf_object__find_program_by_name(kinds, "ksym_fentry"));
	ASSERT_NE(NULL, link);
	addrs[n] = bpf_line_addr(tramp);
	ASSERT_NE(0, addrs[n++]) TH_LOG("no %s line", tramp);
	/*
	 * The XDP dispatcher: generic mode on lo, through a link, which goes
	 * with the process if an assertion ends the test early.
	 */
	xdp = bpf_program__attach_xdp(bpf_object__find_program_by_name(kinds, "ksym_xdp"), lo);
	ASSERT_NE(NULL, xdp);
	ASSERT_EQ(DISPATCHER, n);
	addrs[n] = bpf_line_addr("bpf_dispatcher_xdp");
	ASSERT_NE(0, addrs[n++]) TH_LOG("no bpf_dispatcher_xdp line");

	for (i = 0; i < n; i++)
		ASSERT_EQ(0, kernel_answer(addrs[i], &want[i])) TH_LOG("%llx", addrs[i]);
	EXPECT_EQ(KALLSYMS_SYM_BPF_PROG, want[0].kind);
	EXPECT_EQ(KALLSYMS_SYM_BPF_SUBPROG, want[1].kind);
	EXPECT_EQ(KALLSYMS_SYM_BPF_TRAMPOLINE, want[2].kind);
	EXPECT_STREQ(tramp, want[2].name);
	EXPECT_EQ(KALLSYMS_SYM_BPF_DISPATCHER, want[DISPATCHER].kind);
	EXPECT_STREQ("bpf_dispatcher_xdp", want[DISPATCHER].name);

	ks = load_kallsyms_local();
	ASSERT_NE(NULL, ks);
	/* Empty if the addresses read as zero: the searches below would have nothing. */
	ASSERT_LT(0, (int)ks->sym_cnt);
	for (i = 0; i < n; i++) {
		unsigned long long found = 0;
		struct ksym *k;

		/* Inside the image, where only its own symbol covers. */
		inside[i] = want[i].start + want[i].size / 2;
		k = ksym_search_local(ks, inside[i]);
		EXPECT_STREQ(want[i].name, k->name) TH_LOG("ksym_search at %llx", inside[i]);
		EXPECT_EQ((long)want[i].start, k->addr);
		/*
		 * By name, the readers give the first line of that name: vmlinux's
		 * struct bpf_dispatcher bpf_dispatcher_xdp comes before the image.
		 */
		ASSERT_EQ(i == DISPATCHER ? 2 : 1, kallsyms_count(want[i].name, 0))
			TH_LOG("lines named %s", want[i].name);
		if (i == DISPATCHER)
			continue;
		EXPECT_EQ((long)want[i].start, ksym_get_addr_local(ks, want[i].name))
			TH_LOG("ksym_get_addr(%s)", want[i].name);
		EXPECT_EQ(0, kallsyms_find(want[i].name, &found))
			TH_LOG("kallsyms_find(%s)", want[i].name);
		EXPECT_EQ(want[i].start, found);
	}
	free_kallsyms_local(ks);

	/*
	 * Gone from what the reader loads once the kernel dropped them; the
	 * dispatcher's image stays registered once made (dispatcher.c).
	 */
	bpf_link__destroy(xdp);
	bpf_link__destroy(link);
	bpf_object__close(kinds);
	bpf_object__close(progs);
	n = DISPATCHER;
	for (i = 0; i < n; i++)
		ASSERT_EQ(0, wait_gone(want[i].name)) TH_LOG("%s still listed", want[i].name);
	ks = load_kallsyms_local();
	ASSERT_NE(NULL, ks);
	/* Empty if the addresses read as zero: the searches below would have nothing. */
	ASSERT_LT(0, (int)ks->sym_cnt);
	for (i = 0; i < n; i++)
		EXPECT_STRNE(want[i].name, ksym_search_local(ks, inside[i])->name)
			TH_LOG("%s still found at %llx", want[i].name, inside[i]);
	free_kallsyms_local(ks);
	btf__free(vmlinux);
}

TEST_HARNESS_MAIN
