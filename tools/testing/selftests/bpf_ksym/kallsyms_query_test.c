// SPDX-License-Identifier: GPL-2.0
/*
 * KALLSYMS_QUERY on /proc/kallsyms: each mode, each documented errno, the
 * BPF boundary, privilege, and a cross-check against the text for every text
 * symbol.
 */
#include <fcntl.h>
#include <stddef.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/wait.h>

#include "kselftest_harness.h"
#include "ksym_util.h"

static int kq_fd(void)
{
	return open("/proc/kallsyms", O_RDONLY);
}

/* Run one query of @size bytes; 0 or -errno. */
static int kq(int fd, struct kallsyms_query *q, __u64 size)
{
	q->size = size;
	return ioctl(fd, KALLSYMS_QUERY, q) ? -errno : 0;
}

static int by_name(int fd, const char *name, unsigned long long *addr)
{
	struct kallsyms_query q;
	int err = kq_query(fd, &q, KALLSYMS_QUERY_BY_SYMBOL, 0, name, NULL, 0);

	*addr = q.sym_addr;
	return err;
}

static int by_addr(int fd, unsigned long long addr, char *name, size_t size,
		   struct kallsyms_query *out)
{
	struct kallsyms_query q;
	int err = kq_query(fd, &q, KALLSYMS_QUERY_BY_ADDR, addr, NULL, name, size);

	if (out)
		*out = q;
	return err;
}

TEST(by_symbol_and_by_addr_agree_on_a_core_function)
{
	unsigned long long addr;
	struct kallsyms_query q;
	char name[512];
	int fd = kq_fd();

	ASSERT_EQ(0, by_name(fd, "bpf_user_rnd_u32", &addr));
	ASSERT_NE(0, addr);
	ASSERT_EQ(1, kallsyms_count("bpf_user_rnd_u32", KS_NONZERO));
	ASSERT_EQ(0, by_addr(fd, addr + 1, name, sizeof(name), &q));
	ASSERT_STREQ("bpf_user_rnd_u32", name);
	ASSERT_EQ(strlen(name) + 1, q.sym_name_size);
	/* Version 1 fields: where the symbol starts, its size, owner "" for vmlinux. */
	ASSERT_EQ(addr, q.sym_start);
	ASSERT_LT(1, q.sym_size);
	ASSERT_STREQ("", q.sym_owner);
	close(fd);
}

/* A struct reused from an earlier answer: sym_owner is written whole, not over old bytes. */
TEST(owner_of_a_reused_struct_is_written_whole)
{
	unsigned long long addr;
	struct kallsyms_query q = {};
	char name[512];
	int fd = kq_fd(), prog = load_tiny_prog("kq_owner");
	struct prog_syms ps;
	/* The whole field: ASSERT_STREQ would stop at the first NUL. */
	char none[sizeof(q.sym_owner)] = "", bpf[sizeof(q.sym_owner)] = "bpf";

	ASSERT_LE(0, prog);
	ASSERT_EQ(0, prog_syms(prog, &ps));
	ASSERT_EQ(0, by_name(fd, "bpf_user_rnd_u32", &addr));
	q.query_flags = KALLSYMS_QUERY_BY_ADDR;
	q.sym_name_addr = (unsigned long)name;
	q.sym_name_size = sizeof(name);
	memset(q.sym_owner, 'x', sizeof(q.sym_owner) - 1);	/* "nf_conntrack" and longer */
	q.sym_addr = addr;
	ASSERT_EQ(0, kq(fd, &q, sizeof(q)));
	ASSERT_EQ(0, memcmp(none, q.sym_owner, sizeof(none)));
	memset(q.sym_owner, 'x', sizeof(q.sym_owner) - 1);
	q.sym_addr = ps.addr[0];
	q.sym_name_size = sizeof(name);
	ASSERT_EQ(0, kq(fd, &q, sizeof(q)));
	ASSERT_EQ(0, memcmp(bpf, q.sym_owner, sizeof(bpf)));
	close(prog);
	close(fd);
}

TEST(version0_callers_get_no_version1_fields)
{
	struct kallsyms_query q;
	unsigned long long addr;
	char name[512];
	int fd = kq_fd();

	ASSERT_EQ(0, by_name(fd, "bpf_user_rnd_u32", &addr));
	memset(&q, 0xab, sizeof(q));
	q.query_flags = KALLSYMS_QUERY_BY_ADDR;
	q.sym_addr = addr;
	q.sym_name_addr = (unsigned long)name;
	q.sym_name_size = sizeof(name);
	ASSERT_EQ(0, kq(fd, &q, KALLSYMS_QUERY_SIZE_VER0));
	ASSERT_STREQ("bpf_user_rnd_u32", name);
	/* Nothing beyond the 40 bytes the caller declared is written. */
	ASSERT_EQ(0xababababababababULL, q.sym_start);
	close(fd);
}

/*
 * A size between two versions is the older version, if the bytes past the
 * older version's fields are zero (they are the newer version's, which the
 * caller does not have): its fields are answered and nothing past them is
 * written. A non-zero byte there is E2BIG, as past the newest version.
 */
static void between_versions(struct __test_metadata *_metadata, int fd,
			     unsigned long long addr, size_t older, size_t size)
{
	struct kallsyms_query q;
	char name[512];

	memset(&q, 0xab, sizeof(q));
	memset((char *)&q + older, 0, size - older);
	q.query_flags = KALLSYMS_QUERY_BY_ADDR;
	q.sym_addr = addr + 1;
	q.sym_name_addr = (unsigned long)name;
	q.sym_name_size = sizeof(name);
	if (older > KALLSYMS_QUERY_SIZE_VER0)
		memset(q.sym_owner, 0xab, sizeof(q.sym_owner));
	ASSERT_EQ(0, kq(fd, &q, size)) TH_LOG("size %zu", size);
	ASSERT_STREQ("bpf_user_rnd_u32", name);
	ASSERT_EQ(strlen(name) + 1, q.sym_name_size);
	if (older > KALLSYMS_QUERY_SIZE_VER0) {
		ASSERT_EQ(addr, q.sym_start);
		ASSERT_STREQ("", q.sym_owner);
	}
	/* Nothing past the older version's fields: its zeroes, then 0xab. */
	for (size_t i = older; i < sizeof(q); i++) {
		ASSERT_EQ(i < size ? 0 : 0xab, ((unsigned char *)&q)[i])
			TH_LOG("size %zu: byte %zu written", size, i);
	}

	/* Each byte the caller's version does not have must be zero. */
	for (size_t i = older; i < size; i++) {
		memset(&q, 0, sizeof(q));
		q.query_flags = KALLSYMS_QUERY_BY_ADDR;
		q.sym_addr = addr + 1;
		q.sym_name_addr = (unsigned long)name;
		q.sym_name_size = sizeof(name);
		((unsigned char *)&q)[i] = 1;
		ASSERT_EQ(-E2BIG, kq(fd, &q, size)) TH_LOG("size %zu: byte %zu set", size, i);
	}
}

TEST(size_between_versions_0_and_1_gets_version0_fields)
{
	unsigned long long addr;
	int fd = kq_fd();

	ASSERT_EQ(0, by_name(fd, "bpf_user_rnd_u32", &addr));
	for (size_t size = KALLSYMS_QUERY_SIZE_VER0 + 8; size < KALLSYMS_QUERY_SIZE_VER1;
	     size += 24)
		between_versions(_metadata, fd, addr, KALLSYMS_QUERY_SIZE_VER0, size);
	close(fd);
}

TEST(size_between_versions_1_and_2_gets_version1_fields)
{
	unsigned long long addr;
	struct kallsyms_query q;
	char name[512];
	int fd = kq_fd();

	ASSERT_EQ(0, by_name(fd, "bpf_user_rnd_u32", &addr));
	/* 136 bytes: a struct of version 1 and 16 bytes of version 2. */
	between_versions(_metadata, fd, addr, KALLSYMS_QUERY_SIZE_VER1, 136);
	between_versions(_metadata, fd, addr, KALLSYMS_QUERY_SIZE_VER1,
			 KALLSYMS_QUERY_SIZE_VER2 - 8);
	/* Version 2: what the symbol is. */
	memset(&q, 0, sizeof(q));
	q.query_flags = KALLSYMS_QUERY_BY_ADDR;
	q.sym_addr = addr + 1;
	q.sym_name_addr = (unsigned long)name;
	q.sym_name_size = sizeof(name);
	ASSERT_EQ(0, kq(fd, &q, sizeof(q)));
	ASSERT_EQ(KALLSYMS_SYM_VMLINUX, q.sym_kind);
	ASSERT_EQ(0, q.sym_prog_id);
	ASSERT_EQ(0, q.sym_subprog);
	close(fd);
}

/* sym_owner holds any module name: MODULE_NAME_LEN is 64 - sizeof(unsigned long). */
TEST(owner_holds_any_module_name)
{
	struct kallsyms_query q;

	/* 56 bytes on 64-bit kernels, 60 on 32-bit ones, whatever this program's word size. */
	ASSERT_LE(60, sizeof(q.sym_owner));
	ASSERT_LE(64 - sizeof(unsigned long), sizeof(q.sym_owner));
	ASSERT_EQ(KALLSYMS_QUERY_SIZE_VER2, sizeof(q));
	ASSERT_EQ(KALLSYMS_QUERY_SIZE_VER1,
		  offsetof(struct kallsyms_query, sym_owner) + sizeof(q.sym_owner));
	ASSERT_EQ(KALLSYMS_QUERY_SIZE_VER1, offsetof(struct kallsyms_query, generation));
}

TEST(by_symbol_clears_the_version1_fields)
{
	struct kallsyms_query q = {
		.query_flags = KALLSYMS_QUERY_BY_SYMBOL,
		.sym_name_addr = (unsigned long)"bpf_user_rnd_u32",
		.sym_start = 1234,
		.sym_size = 5678,
		.sym_owner = "junk",
	};
	int fd = kq_fd();

	ASSERT_EQ(0, kq(fd, &q, sizeof(q)));
	ASSERT_NE(0, q.sym_addr);
	ASSERT_EQ(0, q.sym_start);
	ASSERT_EQ(0, q.sym_size);
	ASSERT_STREQ("", q.sym_owner);
	close(fd);
}

TEST(bad_sizes_and_flags)
{
	struct {
		struct kallsyms_query q;
		char tail[200];
	} big = {};
	char name[512];
	int fd = kq_fd();

	big.q.query_flags = KALLSYMS_QUERY_BY_SYMBOL;
	big.q.sym_name_addr = (unsigned long)"bpf_user_rnd_u32";
	ASSERT_EQ(-EINVAL, kq(fd, &big.q, 32));
	ASSERT_EQ(-EINVAL, kq(fd, &big.q, 0));
	ASSERT_EQ(-E2BIG, kq(fd, &big.q, 4097));
	/* A larger struct with zeroed unknown bytes is fine ... */
	ASSERT_EQ(0, kq(fd, &big.q, sizeof(big)));
	/* ... with a non-zero unknown byte it is not. */
	big.q.sym_addr = 0;
	big.tail[150] = 1;
	ASSERT_EQ(-E2BIG, kq(fd, &big.q, sizeof(big)));
	big.tail[150] = 0;

	big.q.sym_addr = 0;
	big.q.query_flags = 0;
	ASSERT_EQ(-EINVAL, kq(fd, &big.q, sizeof(big.q)));
	big.q.query_flags = KALLSYMS_QUERY_BY_SYMBOL | KALLSYMS_QUERY_BY_ADDR;
	ASSERT_EQ(-EINVAL, kq(fd, &big.q, sizeof(big.q)));
	big.q.query_flags = 0x10;
	ASSERT_EQ(-EINVAL, kq(fd, &big.q, sizeof(big.q)));
	/* An unknown flag next to a valid mode. */
	big.q.query_flags = KALLSYMS_QUERY_BY_SYMBOL | 0x100;
	ASSERT_EQ(-EINVAL, kq(fd, &big.q, sizeof(big.q)));
	big.q.query_flags = KALLSYMS_QUERY_GENERATION | (1ULL << 63);
	ASSERT_EQ(-EINVAL, kq(fd, &big.q, sizeof(big.q)));
	/* BY_SYMBOL wants sym_addr and sym_name_size zero on input. */
	big.q.query_flags = KALLSYMS_QUERY_BY_SYMBOL;
	big.q.sym_name_size = 8;
	ASSERT_EQ(-EINVAL, kq(fd, &big.q, sizeof(big.q)));
	/* BY_ADDR wants a buffer. */
	ASSERT_EQ(-EINVAL, by_addr(fd, 0xffffffff81000000ULL, name, 0, NULL));
	close(fd);
}

/*
 * The command: read/write, 'f', 18, size bits of at least 40; the size bits
 * are not the struct's size, which the kernel reads from the struct.
 */
TEST(ioctl_number_and_its_size_bits)
{
	struct kallsyms_query q = {
		.size = sizeof(q),
		.query_flags = KALLSYMS_QUERY_GENERATION,
	};
	int fd = kq_fd();

	ASSERT_EQ(0x66, _IOC_TYPE(KALLSYMS_QUERY));
	ASSERT_EQ(18, _IOC_NR(KALLSYMS_QUERY));
	ASSERT_EQ(0, ioctl(fd, KALLSYMS_QUERY, &q));
	ASSERT_EQ(0, ioctl(fd, _IOWR('f', 18, char[KALLSYMS_QUERY_SIZE_VER0]), &q));
	ASSERT_EQ(0, ioctl(fd, _IOWR('f', 18, char[4096]), &q));
	ASSERT_EQ(-1, ioctl(fd, _IOWR('f', 18, char[KALLSYMS_QUERY_SIZE_VER0 - 1]), &q));
	ASSERT_EQ(ENOTTY, errno);
	ASSERT_EQ(-1, ioctl(fd, _IOR('f', 18, struct kallsyms_query), &q));
	ASSERT_EQ(ENOTTY, errno);
	ASSERT_EQ(-1, ioctl(fd, _IOWR('g', 18, struct kallsyms_query), &q));
	ASSERT_EQ(ENOTTY, errno);
	ASSERT_EQ(-1, ioctl(fd, _IOWR('f', 17, struct kallsyms_query), &q));
	ASSERT_EQ(ENOTTY, errno);
	close(fd);
}

/* A failed call writes nothing to the struct: no size needed, no count. */
TEST(a_failed_call_leaves_the_struct_as_it_was)
{
	struct kallsyms_query_addr e[2] = {};
	unsigned long long addr;
	struct kallsyms_query q, before;
	char name[4];
	int fd = kq_fd();

	ASSERT_EQ(0, by_name(fd, "bpf_user_rnd_u32", &addr));
	/* BY_ADDR into a buffer too small for the name. */
	memset(&q, 0, sizeof(q));
	q.size = sizeof(q);
	q.query_flags = KALLSYMS_QUERY_BY_ADDR;
	q.sym_addr = addr;
	q.sym_name_addr = (unsigned long)name;
	q.sym_name_size = sizeof(name);
	memset(q.sym_owner, 0xab, sizeof(q.sym_owner));
	q.generation = 77;
	before = q;
	ASSERT_EQ(-1, ioctl(fd, KALLSYMS_QUERY, &q));
	ASSERT_EQ(ENAMETOOLONG, errno);
	ASSERT_EQ(0, memcmp(&before, &q, sizeof(q)));
	/* A batch whose first entry's strings do not fit. */
	e[0].addr = addr;
	e[1].addr = addr;
	memset(&q, 0, sizeof(q));
	q.size = sizeof(q);
	q.query_flags = KALLSYMS_QUERY_BY_ADDR_BATCH;
	q.sym_name_addr = (unsigned long)name;
	q.sym_name_size = sizeof(name);
	q.batch_addr = (unsigned long)e;
	q.batch_count = 2;
	q.batch_entry_size = sizeof(e[0]);
	before = q;
	ASSERT_EQ(-1, ioctl(fd, KALLSYMS_QUERY, &q));
	ASSERT_EQ(ENAMETOOLONG, errno);
	ASSERT_EQ(0, memcmp(&before, &q, sizeof(q)));
	ASSERT_EQ(addr, e[0].addr);
	ASSERT_EQ(0, e[1].kind);
	close(fd);
}

TEST(unmapped_pointers_fault)
{
	size_t page = sysconf(_SC_PAGESIZE);
	char *none = mmap(NULL, page, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	unsigned long long addr;
	char *edge;
	int fd = kq_fd();

	ASSERT_NE(MAP_FAILED, none);
	ASSERT_EQ(-1, ioctl(fd, KALLSYMS_QUERY, none));
	ASSERT_EQ(EFAULT, errno);
	ASSERT_EQ(-EFAULT, by_name(fd, none, &addr));
	ASSERT_EQ(0, by_name(fd, "bpf_user_rnd_u32", &addr));
	ASSERT_EQ(-EFAULT, by_addr(fd, addr, none, 512, NULL));
	/* A name without terminator that runs into an unmapped page. */
	edge = mmap(NULL, 2 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, edge);
	ASSERT_EQ(0, munmap(edge + page, page));
	memset(edge + page - 8, 'a', 8);
	ASSERT_EQ(-EFAULT, by_name(fd, edge + page - 8, &addr));
	munmap(edge, page);
	munmap(none, page);
	close(fd);
}

TEST(name_errors)
{
	static char long_name[600];
	unsigned long long addr;
	char small[4];
	int fd = kq_fd();

	ASSERT_EQ(-EINVAL, by_name(fd, "", &addr));
	memset(long_name, 'a', 512);
	ASSERT_EQ(-ENAMETOOLONG, by_name(fd, long_name, &addr));
	/* 511 characters fit, and name nothing. */
	long_name[511] = 0;
	ASSERT_EQ(-ENOENT, by_name(fd, long_name, &addr));
	ASSERT_EQ(-ENOENT, by_name(fd, "no_such_symbol_in_this_kernel", &addr));
	/* Exact match only: a prefix of a real name is no match. */
	ASSERT_EQ(-ENOENT, by_name(fd, "bpf_user_rnd_u3", &addr));
	ASSERT_EQ(0, by_name(fd, "bpf_user_rnd_u32", &addr));
	ASSERT_EQ(-ENAMETOOLONG, by_addr(fd, addr, small, sizeof(small), NULL));
	ASSERT_EQ(-ENOENT, by_addr(fd, 0x10, small, sizeof(small), NULL));
	close(fd);
}

struct named_addr {
	unsigned long long addr;
	char name[128];
};

static int by_name_then_addr(const void *a, const void *b)
{
	const struct named_addr *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	return c ? c : (x->addr > y->addr) - (x->addr < y->addr);
}

/* vmlinux symbols of /proc/kallsyms into @seen, sorted by name then address. */
static int load_core_names(struct named_addr *seen, int max)
{
	FILE *f = fopen("/proc/kallsyms", "r");
	struct kline k;
	int n = 0;

	while (f && n < max && next_kline(f, &k))
		if (!k.mod[0] && strlen(k.sym) < sizeof(seen[0].name)) {
			seen[n].addr = k.addr;
			snprintf(seen[n++].name, sizeof(seen[0].name), "%s", k.sym);
		}
	if (f)
		fclose(f);
	qsort(seen, n, sizeof(seen[0]), by_name_then_addr);
	return n;
}

/* A vmlinux name listed at two addresses, e.g. two static functions. */
static int find_duplicate(char *out, size_t size)
{
	static struct named_addr seen[200000];
	int n = load_core_names(seen, 200000), i;

	for (i = 1; i < n; i++)
		if (!strcmp(seen[i - 1].name, seen[i].name) && seen[i - 1].addr != seen[i].addr) {
			snprintf(out, size, "%s", seen[i].name);
			return 1;
		}
	return 0;
}

TEST(symbol_at_address_zero_is_resolved)
{
	static struct named_addr seen[200000];
	unsigned long long addr = ~0ULL;
	int n = load_core_names(seen, 200000), i, fd = kq_fd();
	char name[128] = "";

	/* A skip below must mean "no such symbol", not "could not read the list". */
	ASSERT_LT(1000, n);
	/* Zero-based per-CPU symbols (x86-64 before 6.15, other arches) sit at 0. */
	for (i = 0; i < n && !name[0]; i++)
		if (!seen[i].addr && (i == 0 || strcmp(seen[i - 1].name, seen[i].name)) &&
		    (i + 1 == n || strcmp(seen[i + 1].name, seen[i].name)))
			snprintf(name, sizeof(name), "%s", seen[i].name);
	if (!name[0])
		SKIP(close(fd); return, "no vmlinux symbol at address 0 in this kernel");
	ASSERT_EQ(0, by_name(fd, name, &addr)) TH_LOG("%s", name);
	ASSERT_EQ(0, addr);
	close(fd);
}

TEST(name_at_two_addresses_is_ambiguous)
{
	unsigned long long addr;
	char name[128];
	int fd = kq_fd();

	ASSERT_EQ(1, find_duplicate(name, sizeof(name)))
		TH_LOG("no vmlinux name at two addresses to test with");
	ASSERT_EQ(-EADDRNOTAVAIL, by_name(fd, name, &addr)) TH_LOG("name %s", name);
	close(fd);
}

TEST(bpf_program_address_and_end_inclusive_boundary)
{
	struct bpf_object *o = open_progs();
	struct kallsyms_query q;
	struct prog_syms ps;
	char want[600], name[512];
	unsigned long long addr;
	int fd = kq_fd();

	ASSERT_NE(NULL, o);
	ASSERT_EQ(0, prog_syms(prog_fd(o, "ksym_caller"), &ps));
	snprintf(want, sizeof(want), "bpf_prog_%s_ksym_caller", ps.tag);
	ASSERT_EQ(0, by_addr(fd, ps.addr[0], name, sizeof(name), &q));
	ASSERT_STREQ(want, name);
	ASSERT_EQ(ps.addr[0], q.sym_start);
	ASSERT_EQ(ps.len[0], q.sym_size);
	ASSERT_STREQ("bpf", q.sym_owner);
	/* A return address just past a final call still belongs to the program. */
	ASSERT_EQ(0, by_addr(fd, ps.addr[0] + ps.len[0], name, sizeof(name), NULL));
	ASSERT_STREQ(want, name);
	if (by_addr(fd, ps.addr[0] + ps.len[0] + 1, name, sizeof(name), NULL) == 0)
		ASSERT_STRNE(want, name);
	/* BPF symbols are not searched by name (as in the seed). */
	ASSERT_EQ(-ENOENT, by_name(fd, want, &addr));
	bpf_object__close(o);
	close(fd);
}

TEST(unprivileged_and_kptr_restrict_2_get_eperm)
{
	unsigned long long addr;
	int status, fd;
	char old[8] = "";
	FILE *f;
	pid_t pid;

	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		if (setgid(65534) || setuid(65534))
			_exit(10);
		fd = kq_fd();
		if (fd < 0)
			_exit(11);
		_exit(by_name(fd, "bpf_user_rnd_u32", &addr) == -EPERM ? 0 : 1);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	ASSERT_EQ(0, WEXITSTATUS(status)) TH_LOG("unprivileged query did not fail with EPERM");

	f = fopen("/proc/sys/kernel/kptr_restrict", "r+");
	ASSERT_NE(NULL, f);
	ASSERT_NE(NULL, fgets(old, sizeof(old), f));
	fseek(f, 0, SEEK_SET);
	fputs("2\n", f);
	fflush(f);
	fd = kq_fd();
	status = by_name(fd, "bpf_user_rnd_u32", &addr);
	close(fd);
	fseek(f, 0, SEEK_SET);
	fputs(old, f);
	fclose(f);
	ASSERT_EQ(-EPERM, status) TH_LOG("root with kptr_restrict=2 was answered");
}

TEST(every_text_symbol_agrees_with_the_text)
{
	static struct kline lines[200000];
	FILE *f = fopen("/proc/kallsyms", "r");
	int n = 0, i, checked = 0, fd = kq_fd();
	unsigned long long stext = 0;
	struct kallsyms_query q;
	char name[512];

	ASSERT_NE(NULL, f);
	while (n < 200000 && next_kline(f, &lines[n])) {
		if (!strcmp(lines[n].sym, "_stext") && !lines[n].mod[0])
			stext = lines[n].addr;
		n++;
	}
	fclose(f);
	ASSERT_NE(0, stext) TH_LOG("no _stext line");
	for (i = 0; i < n; i++) {
		struct kline *k = &lines[i];
		unsigned long long addr;
		int j, err;

		/* Text of vmlinux, modules and BPF; kprobe and ftrace pages are not %pS'able. */
		if ((k->type != 't' && k->type != 'T') || !k->addr ||
		    !strncmp(k->mod, "[__builtin__", 12))
			continue;
		/*
		 * Nor is vmlinux below _stext (is_ksym_addr()): on arm64, the image
		 * header that _text names; on x86-64 _text is _stext.
		 */
		if (!k->mod[0] && k->addr < stext) {
			ASSERT_EQ(-ENOENT, by_addr(fd, k->addr, name, sizeof(name), &q))
				TH_LOG("%s, below _stext, was named %s", k->sym, name);
			continue;
		}
		/* BY_ADDR names a symbol at exactly this address (aliases allowed). */
		ASSERT_EQ(0, by_addr(fd, k->addr, name, sizeof(name), &q)) TH_LOG("%s", k->sym);
		ASSERT_EQ(k->addr, q.sym_start) TH_LOG("%s -> %s", k->sym, name);
		for (j = i; j > 0 && lines[j - 1].addr == k->addr; j--)
			;
		for (; j < n && lines[j].addr == k->addr && strcmp(lines[j].sym, name); j++)
			;
		ASSERT_TRUE(j < n && lines[j].addr == k->addr)
			TH_LOG("%llx: query says %s, text says %s", k->addr, name, k->sym);
		/* BY_SYMBOL gives the address back, or says the name is ambiguous. */
		if (strcmp(k->mod, "[bpf]")) {
			err = by_name(fd, k->sym, &addr);
			ASSERT_TRUE(err == -EADDRNOTAVAIL || (err == 0 && addr == k->addr))
				TH_LOG("%s: err %d addr %llx, text %llx", k->sym, err, addr,
				       k->addr);
		}
		checked++;
	}
	TH_LOG("%d text symbols checked both ways", checked);
	ASSERT_LT(10000, checked);
	close(fd);
}

TEST(module_symbols_by_name_and_by_addr)
{
	unsigned long long addr;
	struct kallsyms_query q;
	char name[512];
	FILE *f;
	struct kline k;
	unsigned long long text_addr = 0;
	char cmd[PATH_MAX + 16];
	int fd, loaded;

	if (access(test_file("test_module/ksym_test_mod.ko"), R_OK))
		SKIP(return, "no test_module/ksym_test_mod.ko: built without a kernel tree (KDIR)");
	snprintf(cmd, sizeof(cmd), "insmod %s", test_file("test_module/ksym_test_mod.ko"));
	loaded = system(cmd);
	ASSERT_EQ(0, loaded) TH_LOG("insmod ksym_test_mod.ko failed");
	f = fopen("/proc/kallsyms", "r");
	while (f && next_kline(f, &k))
		if (!strcmp(k.sym, "ksym_test_mod_func") && !strcmp(k.mod, "[ksym_test_mod]"))
			text_addr = k.addr;
	if (f)
		fclose(f);
	fd = kq_fd();
	ASSERT_NE(0, text_addr);
	/* Not in vmlinux: found among the modules. */
	ASSERT_EQ(0, by_name(fd, "ksym_test_mod_func", &addr));
	ASSERT_EQ(text_addr, addr);
	ASSERT_EQ(0, by_name(fd, "ksym_test_mod_data", &addr));
	ASSERT_NE(0, addr);
	ASSERT_EQ(0, by_addr(fd, text_addr + 2, name, sizeof(name), &q));
	ASSERT_STREQ("ksym_test_mod_func", name);
	ASSERT_EQ(text_addr, q.sym_start);
	ASSERT_STREQ("ksym_test_mod", q.sym_owner);
	close(fd);
	ASSERT_EQ(0, system("rmmod ksym_test_mod"));
	/* Gone with the module. */
	fd = kq_fd();
	ASSERT_EQ(-ENOENT, by_name(fd, "ksym_test_mod_func", &addr));
	close(fd);
}

/* First line of @cmd's output (stdout and stderr), and its exit status. */
static int run(const char *cmd, char *out, size_t size)
{
	FILE *p = popen(cmd, "r");

	out[0] = 0;
	if (!p)
		return -1;
	if (fgets(out, size, p))
		out[strcspn(out, "\n")] = 0;
	while (fgetc(p) != EOF)
		;
	return pclose(p);
}

TEST(sample_and_cli_answer_like_the_text)
{
	unsigned long long addr;
	char cmd[256], out[600], want[600];
	int fd;

	/*
	 * The sample (CONFIG_SAMPLE_KALLSYMS_QUERY) and tools/ksym-query are not
	 * part of this target: installed on $PATH, they are tested here.
	 */
	if (!have_tool("kallsyms_query") || !have_tool("ksym-query"))
		SKIP(return, "kallsyms_query (samples) or ksym-query (tools) not on $PATH");
	fd = kq_fd();
	ASSERT_EQ(0, by_name(fd, "bpf_user_rnd_u32", &addr));
	close(fd);
	snprintf(want, sizeof(want), "%016llx bpf_user_rnd_u32", addr);

	ASSERT_EQ(0, run("kallsyms_query name bpf_user_rnd_u32 2>&1", out, sizeof(out)));
	ASSERT_STREQ(want, out);
	ASSERT_EQ(0, run("ksym-query name bpf_user_rnd_u32 2>&1", out, sizeof(out)));
	ASSERT_STREQ(want, out);
	/* The CLI's text fallback gives the same answer. */
	ASSERT_EQ(0, run("ksym-query --text name bpf_user_rnd_u32 2>&1", out, sizeof(out)));
	ASSERT_STREQ(want, out);

	snprintf(cmd, sizeof(cmd), "ksym-query addr %llx 2>&1", addr + 4);
	ASSERT_EQ(0, run(cmd, out, sizeof(out)));
	ASSERT_EQ(0, strncmp(out, "bpf_user_rnd_u32+0x4/0x", 23)) TH_LOG("got '%s'", out);
	ASSERT_NE(NULL, strstr(out, "[vmlinux]"));
	snprintf(cmd, sizeof(cmd), "kallsyms_query addr %llx 2>&1", addr + 4);
	ASSERT_EQ(0, run(cmd, out, sizeof(out)));
	ASSERT_EQ(0, strncmp(out, "bpf_user_rnd_u32+0x4/0x", 23)) TH_LOG("got '%s'", out);

	/* Clear messages for errors. */
	ASSERT_NE(0, run("ksym-query name no_such_symbol_here 2>&1", out, sizeof(out)));
	ASSERT_NE(NULL, strstr(out, "no such symbol")) TH_LOG("got '%s'", out);
	ASSERT_NE(0, run("su nobody -s /bin/sh -c 'ksym-query name bpf_user_rnd_u32' 2>&1",
			 out, sizeof(out)));
	ASSERT_NE(NULL, strstr(out, "hidden from you")) TH_LOG("got '%s'", out);
}

TEST_HARNESS_MAIN
