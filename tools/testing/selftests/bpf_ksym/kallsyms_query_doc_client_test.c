// SPDX-License-Identifier: GPL-2.0
/*
 * A KALLSYMS_QUERY client written from its reference alone
 * (Documentation/userspace-api/kallsyms_query.rst and the kernel-doc of
 * include/uapi/linux/kallsyms_query.h): one test per rule a client relies on.
 * Where the reference leaves something open, a comment says "Guess:".
 */
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>
#include <linux/kallsyms_query.h>

#include "kselftest_harness.h"

#define QSZ		((__u64)sizeof(struct kallsyms_query))
#define ESZ		((__u32)sizeof(struct kallsyms_query_addr))
#define NAME_LEN	KALLSYMS_QUERY_NAME_LEN
#define ENTRY_STRS	(KALLSYMS_QUERY_NAME_LEN + 64)	/* an entry's strings, at most */
#define NO_SYMBOL	1ULL	/* Guess: no symbol covers it (the batch example's) */
#define POISON		0xa5
#define NFUNCS		5

/* vmlinux functions every kernel has; the tests use those BY_SYMBOL finds. */
static const char *const funcs[NFUNCS] = { "schedule", "vfs_read", "vfs_write", "kfree",
					    "do_exit" };

static struct func {
	const char *want;	/* the name asked with BY_SYMBOL */
	char name[NAME_LEN];	/* the name BY_ADDR of its address answers */
	__u64 addr, size;
} f[NFUNCS];
static int nf;			/* how many of funcs[] this kernel has */
static int fd;			/* /proc/kallsyms; each test runs in its own process */

/* Arguments of the versions tests: the struct at the start, POISON past its size. */
static unsigned char vbuf[2 * 65536] __attribute__((aligned(8)));

/* One call: 0 or the errno. EINTR means nothing was done: call again. */
static int kq_cmd(unsigned long cmd, void *arg)
{
	while (ioctl(fd, cmd, arg))
		if (errno != EINTR)
			return errno;
	return 0;
}

static int kq(void *arg)
{
	return kq_cmd(KALLSYMS_QUERY, arg);
}

/* Query builders: a zeroed struct of sizeof's size with one mode's inputs. */
#define QF(flags, ...)							\
	((struct kallsyms_query){ .size = QSZ, .query_flags = (flags), __VA_ARGS__ })
#define Q(mode, ...)	QF(KALLSYMS_QUERY_##mode, __VA_ARGS__)
#define q_gen()		Q(GENERATION)
#define q_sym(name)	Q(BY_SYMBOL, .sym_name_addr = (uintptr_t)(name))
#define q_addr(addr, buf, len)							\
	Q(BY_ADDR, .sym_addr = (addr), .sym_name_addr = (uintptr_t)(buf), .sym_name_size = (len))
#define q_batch(entries, count, esize, buf, len)				\
	Q(BY_ADDR_BATCH, .batch_addr = (uintptr_t)(entries), .batch_count = (count),	\
	  .batch_entry_size = (esize), .sym_name_addr = (uintptr_t)(buf), .sym_name_size = (len))

/* "What the caller puts in an output field is ignored": put garbage there. */
static void scribble(struct kallsyms_query *q)
{
	q->sym_start = ~0ULL;
	q->sym_size = ~0ULL;
	q->generation = ~0ULL;
	q->sym_prog_id = ~0ULL;
	q->sym_kind = ~0U;
	q->sym_subprog = ~0U;
	memset(q->sym_owner, 'x', sizeof(q->sym_owner));
}

static bool all_bytes(const void *p, int c, size_t n)
{
	const unsigned char *b = p;

	while (n--)
		if (*b++ != (unsigned char)c)
			return false;
	return true;
}

/* BY_ADDR of @addr into *q and name[NAME_LEN]; it must succeed. */
static void lookup(struct __test_metadata *_metadata, __u64 addr, struct kallsyms_query *q,
		   char *name)
{
	int err;

	*q = q_addr(addr, name, NAME_LEN);
	err = kq(q);
	ASSERT_EQ(0, err) TH_LOG("BY_ADDR %#llx: %s", (unsigned long long)addr, strerror(err));
}

static __u64 generation(struct __test_metadata *_metadata)
{
	struct kallsyms_query q = q_gen();

	ASSERT_EQ(0, kq(&q));
	return q.generation;
}

/* Detecting support: the three errnos that mean "not on this kernel". */
static const char *skip_why(int err)
{
	return err == ENOTTY ? "ENOTTY: this kernel has no KALLSYMS_QUERY" :
	       err == EINVAL ? "EINVAL: this kernel's KALLSYMS_QUERY is older than version 2" :
	       err == EPERM ? "EPERM: /proc/kallsyms hides addresses (kptr_restrict)" : NULL;
}

/* The functions of funcs[] BY_SYMBOL finds, with their BY_ADDR name and size. */
static int find_funcs(struct __test_metadata *_metadata)
{
	struct kallsyms_query q;
	int i, n = 0;

	for (i = 0; i < NFUNCS; i++) {
		q = q_sym(funcs[i]);
		if (kq(&q))
			continue;
		f[n].want = funcs[i];
		f[n].addr = q.sym_addr;
		lookup(_metadata, f[n].addr, &q, f[n].name);
		f[n++].size = q.sym_size;
	}
	ASSERT_LT(0, n) TH_LOG("BY_SYMBOL finds none of %s, %s, ...", funcs[0], funcs[1]);
	return n;
}

static const char *skipped;	/* why setup() skips the test, if it does */

/* Opens /proc/kallsyms, probes for version 2 with GENERATION, finds funcs[]. */
static bool setup(struct __test_metadata *_metadata)
{
	struct kallsyms_query q = q_gen();
	int err;

	fd = open("/proc/kallsyms", O_RDONLY);
	err = fd < 0 ? errno : kq(&q);
	skipped = skip_why(err);
	if (skipped)
		return false;
	ASSERT_EQ(0, err) TH_LOG("open or GENERATION: %s", strerror(err));
	nf = find_funcs(_metadata);
	return true;
}

/* A call that must fail with @want and leave the @len bytes at @arg unchanged. */
static void expect_fail(struct __test_metadata *_metadata, unsigned long cmd, void *arg,
			size_t len, int want, const char *what)
{
	void *copy = malloc(len ? len : 1);
	int err;

	ASSERT_NE(NULL, copy);
	memcpy(copy, arg, len);
	err = kq_cmd(cmd, arg);
	EXPECT_EQ(want, err) TH_LOG("%s: got %s, expected %s", what, strerror(err), strerror(want));
	EXPECT_EQ(0, memcmp(copy, arg, len)) TH_LOG("%s: the failed call wrote its argument", what);
	free(copy);
}

#define FAILS(q, want)	expect_fail(_metadata, KALLSYMS_QUERY, &(q), sizeof(q), want, #q)

/* Puts *q at the start of vbuf with its size set to @size: zeroes up to it, POISON past. */
static struct kallsyms_query *versioned(struct kallsyms_query *q, __u64 size)
{
	size_t end = size < sizeof(vbuf) ? size : sizeof(vbuf);

	q->size = size;
	memset(vbuf, POISON, sizeof(vbuf));
	memcpy(vbuf, q, end < KALLSYMS_QUERY_SIZE_VER0 ? KALLSYMS_QUERY_SIZE_VER0 :
			 end < QSZ ? end : QSZ);
	if (end > QSZ)
		memset(vbuf + QSZ, 0, end - QSZ);
	return (struct kallsyms_query *)vbuf;
}

TEST(generation_detects_version2)
{
	struct kallsyms_query q = q_gen(), want = q_gen();

	if (!setup(_metadata))
		SKIP(return, "%s", skipped);
	ASSERT_EQ(0, kq(&q));
	want.generation = q.generation;	/* any value: 0 is a generation too */
	/* No other output; the inputs as they were. */
	ASSERT_EQ(0, memcmp(&want, &q, sizeof(q)));
}

/* Every field of a BY_ADDR answer for a vmlinux function. */
TEST(by_addr_vmlinux_fields)
{
	struct kallsyms_query s, a, alias;
	char name[NAME_LEN];
	__u64 g0, g1;
	int i, tries;

	if (!setup(_metadata))
		SKIP(return, "%s", skipped);
	for (i = 0; i < nf; i++) {
		/* Guess: "nothing changed" is GENERATION equal before and after. */
		for (tries = 0; tries < 10; tries++) {
			g0 = generation(_metadata);
			s = q_sym(f[i].want);
			ASSERT_EQ(0, kq(&s));
			a = q_addr(s.sym_addr, name, sizeof(name));
			scribble(&a);
			ASSERT_EQ(0, kq(&a));
			g1 = generation(_metadata);
			if (g0 == g1)
				break;
		}
		if (g0 != g1)
			SKIP(return, "the generation changed on 10 tries: symbols keep changing");
		/* "where several names share an address, always the same one" */
		if (strcmp(name, f[i].want)) {
			alias = q_sym(name);
			ASSERT_EQ(0, kq(&alias));
			ASSERT_EQ(s.sym_addr, alias.sym_addr) TH_LOG("%s is not an alias", name);
		}
		ASSERT_STREQ(f[i].name, name);
		ASSERT_EQ(strlen(name) + 1, a.sym_name_size);
		ASSERT_EQ(s.sym_addr, a.sym_start);
		ASSERT_LT(0ULL, a.sym_size);
		ASSERT_TRUE(all_bytes(a.sym_owner, 0, sizeof(a.sym_owner)));
		ASSERT_EQ((__u32)KALLSYMS_SYM_VMLINUX, a.sym_kind);
		ASSERT_EQ(0ULL, a.sym_prog_id);
		ASSERT_EQ(0U, a.sym_subprog);
		ASSERT_EQ(g0, a.generation);
		ASSERT_EQ(g0, s.generation);
	}
}

/* BY_SYMBOL: the address out; every output it has nothing to say about is 0. */
TEST(by_symbol_other_outputs_zero)
{
	struct kallsyms_query q, want;

	if (!setup(_metadata))
		SKIP(return, "%s", skipped);
	q = q_sym(f[0].want);
	want = q;
	scribble(&q);
	ASSERT_EQ(0, kq(&q));
	want.sym_addr = f[0].addr;
	want.generation = q.generation;
	ASSERT_EQ(0, memcmp(&want, &q, sizeof(q)));
}

/* Input fields come back as they were, in every mode. */
TEST(inputs_come_back_unchanged)
{
	struct kallsyms_query_addr e[2] = { { .addr = NO_SYMBOL }, { .addr = NO_SYMBOL } };
	char name[NAME_LEN], names[2 * ENTRY_STRS];
	struct kallsyms_query q, in[4];
	int i;

	if (!setup(_metadata))
		SKIP(return, "%s", skipped);
	e[0].addr = f[0].addr;
	in[0] = q_gen();
	in[1] = q_sym(f[0].want);
	in[2] = q_addr(f[0].addr, name, sizeof(name));
	in[3] = q_batch(e, 2, ESZ, names, sizeof(names));
	for (i = 0; i < 4; i++) {
		q = in[i];
		ASSERT_EQ(0, kq(&q));
		/* Take the outputs (sym_addr is one for BY_SYMBOL), compare the rest. */
		memcpy(&in[i].sym_start, &q.sym_start,
		       offsetof(struct kallsyms_query, batch_addr) -
		       offsetof(struct kallsyms_query, sym_start));
		in[i].sym_name_size = q.sym_name_size;
		in[i].batch_count = q.batch_count;
		in[i].sym_addr = i == 1 ? q.sym_addr : in[i].sym_addr;
		ASSERT_EQ(0, memcmp(&in[i], &q, sizeof(q))) TH_LOG("mode %llu", q.query_flags);
	}
	ASSERT_EQ(2U, q.batch_count);
}

/* BY_ADDR of f[0] with argument size @size, read as version @ver: its fields only. */
static void answer_at_size(struct __test_metadata *_metadata, __u64 size, __u64 ver)
{
	struct kallsyms_query want, *q;
	char name[NAME_LEN];
	int err;

	want = q_addr(f[0].addr, name, sizeof(name));
	q = versioned(&want, size);
	err = kq(q);
	ASSERT_EQ(0, err) TH_LOG("size %llu: %s", (unsigned long long)size, strerror(err));
	ASSERT_STREQ(f[0].name, name);
	ASSERT_EQ(strlen(name) + 1, q->sym_name_size);
	ASSERT_EQ(0, memcmp(q, &want, offsetof(struct kallsyms_query, sym_name_size)));
	if (ver >= KALLSYMS_QUERY_SIZE_VER1) {
		ASSERT_EQ(f[0].addr, q->sym_start);
		ASSERT_EQ(f[0].size, q->sym_size);
		ASSERT_TRUE(all_bytes(q->sym_owner, 0, sizeof(q->sym_owner)));
	}
	if (ver >= KALLSYMS_QUERY_SIZE_VER2) {
		ASSERT_EQ((__u32)KALLSYMS_SYM_VMLINUX, q->sym_kind);
		ASSERT_EQ(0ULL, q->sym_prog_id | q->sym_subprog | q->batch_addr);
		ASSERT_EQ(0U, q->batch_count | q->batch_entry_size);
	}
	/* Nothing past the version's bytes is written: zeroes up to size, POISON after. */
	ASSERT_TRUE(all_bytes(vbuf + ver, 0, size - ver)) TH_LOG("size %llu", size);
	ASSERT_TRUE(all_bytes(vbuf + size, POISON, sizeof(vbuf) - size));
}

/* Sizes 40 and 120, between versions and past the newest with a zero tail. */
TEST(versions_answer_only_their_fields)
{
	__u64 page = sysconf(_SC_PAGESIZE);
	const __u64 t[][2] = {	/* the argument's size, the version it is read as */
		{ 40, 40 }, { 120, 120 }, { 160, 160 }, { 48, 40 }, { 136, 120 },
		{ 168, 160 }, { page, 160 },
	};
	unsigned int i;

	if (!setup(_metadata))
		SKIP(return, "%s", skipped);
	ASSERT_LE(2 * page, sizeof(vbuf));
	for (i = 0; i < ARRAY_SIZE(t); i++)
		answer_at_size(_metadata, t[i][0], t[i][1]);
}

/*
 * Sizes refused: under 40 (EINVAL), over a page (E2BIG), a non-zero byte past
 * the older version's fields (E2BIG), GENERATION and BY_ADDR_BATCH with an
 * argument older than version 2 (EINVAL).
 */
TEST(versions_refused_sizes)
{
	__u64 page = sysconf(_SC_PAGESIZE);
	char name[NAME_LEN], what[64];
	struct kallsyms_query a, g, b, want;
	const struct {
		const struct kallsyms_query *q;
		__u64 size, bad;	/* bad: the offset of a byte set to 1, if not 0 */
		int err;
	} t[] = {
		{ &a, 0, 0, EINVAL }, { &a, 8, 0, EINVAL }, { &a, 39, 0, EINVAL },
		{ &a, page + 1, 0, E2BIG }, { &a, page + 8, 0, E2BIG },
		{ &a, 1ULL << 32, 0, E2BIG }, { &a, ~0ULL, 0, E2BIG },
		{ &a, 48, 47, E2BIG }, { &a, 136, 120, E2BIG }, { &a, 136, 135, E2BIG },
		{ &a, 168, 160, E2BIG }, { &a, page, page - 1, E2BIG },
		{ &g, 40, 0, EINVAL }, { &g, 120, 0, EINVAL }, { &g, 136, 0, EINVAL },
		{ &b, 40, 0, EINVAL }, { &b, 120, 0, EINVAL }, { &b, 136, 0, EINVAL },
	};
	unsigned int i;

	if (!setup(_metadata))
		SKIP(return, "%s", skipped);
	a = q_addr(f[0].addr, name, sizeof(name));
	g = q_gen();
	b = q_batch(NULL, 0, 0, name, sizeof(name));
	for (i = 0; i < ARRAY_SIZE(t); i++) {
		want = *t[i].q;
		versioned(&want, t[i].size);
		if (t[i].bad)
			vbuf[t[i].bad] = 1;
		snprintf(what, sizeof(what), "mode %llu size %llu byte %llu", want.query_flags,
			 (unsigned long long)t[i].size, (unsigned long long)t[i].bad);
		expect_fail(_metadata, KALLSYMS_QUERY, vbuf, sizeof(vbuf), t[i].err, what);
	}
}

/* The command: read and write, type 'f', number 18, size bits >= 40; else ENOTTY. */
TEST(enotty_for_other_commands)
{
	const unsigned long rw = _IOC_READ | _IOC_WRITE;
	const unsigned long bad[] = {
		_IOWR('f', 19, struct kallsyms_query), _IOWR('f', 17, struct kallsyms_query),
		_IOR('f', 18, struct kallsyms_query), _IOW('f', 18, struct kallsyms_query),
		_IO('f', 18), _IOWR('g', 18, struct kallsyms_query),
		_IOC(rw, 'f', 18, KALLSYMS_QUERY_SIZE_VER0 - 1),
	};
	const unsigned long good[] = {
		_IOC(rw, 'f', 18, KALLSYMS_QUERY_SIZE_VER0),
		_IOC(rw, 'f', 18, KALLSYMS_QUERY_SIZE_VER1), _IOC(rw, 'f', 18, _IOC_SIZEMASK),
	};
	struct kallsyms_query q;
	unsigned int i;

	if (!setup(_metadata))
		SKIP(return, "%s", skipped);
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		q = q_gen();
		expect_fail(_metadata, bad[i], &q, sizeof(q), ENOTTY, "another command");
	}
	for (i = 0; i < ARRAY_SIZE(good); i++) {
		q = q_gen();
		ASSERT_EQ(0, kq_cmd(good[i], &q)) TH_LOG("size bits %lu", _IOC_SIZE(good[i]));
	}
}

/* Each argument must fail with EINVAL: @a is a function's address, @sym its name. */
static void einval_rows(struct __test_metadata *_metadata, __u64 a, const char *sym)
{
	char name[NAME_LEN];
	__u64 n = (uintptr_t)name, s = (uintptr_t)sym;
	struct kallsyms_query bad[] = {
		/* no mode, two modes, an unknown flag */
		QF(0, .sym_name_addr = s),
		QF(KALLSYMS_QUERY_BY_SYMBOL | KALLSYMS_QUERY_BY_ADDR, .sym_name_addr = s),
		QF(KALLSYMS_QUERY_GENERATION | KALLSYMS_QUERY_BY_ADDR_BATCH),
		QF(0x10), QF(1ULL << 63), QF(KALLSYMS_QUERY_GENERATION | 0x100),
		/* an input field the mode does not use is not 0 */
		Q(GENERATION, .sym_name_addr = n), Q(GENERATION, .sym_addr = a),
		Q(GENERATION, .sym_name_size = NAME_LEN), Q(GENERATION, .batch_addr = n),
		Q(GENERATION, .batch_count = 1), Q(GENERATION, .batch_entry_size = ESZ),
		Q(BY_SYMBOL, .sym_name_addr = s, .sym_addr = a),
		Q(BY_SYMBOL, .sym_name_addr = s, .sym_name_size = 8),
		Q(BY_ADDR, .sym_addr = a, .sym_name_addr = n, .sym_name_size = NAME_LEN,
		  .batch_addr = n),
		Q(BY_ADDR, .sym_addr = a, .sym_name_addr = n, .sym_name_size = NAME_LEN,
		  .batch_count = 1),
		Q(BY_ADDR, .sym_addr = a, .sym_name_addr = n, .sym_name_size = NAME_LEN,
		  .batch_entry_size = ESZ),
		/* BY_SYMBOL with an empty name, BY_ADDR with a name buffer size of 0 */
		Q(BY_SYMBOL, .sym_name_addr = (uintptr_t)""),
		Q(BY_ADDR, .sym_addr = a, .sym_name_addr = n, .sym_name_size = 0),
	};
	char what[32];
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		snprintf(what, sizeof(what), "EINVAL row %u", i);
		expect_fail(_metadata, KALLSYMS_QUERY, &bad[i], QSZ, EINVAL, what);
	}
}

TEST(einval_modes_and_inputs)
{
	if (!setup(_metadata))
		SKIP(return, "%s", skipped);
	einval_rows(_metadata, f[0].addr, f[0].want);
}

/* ENOENT: no such symbol; no symbol covers the address. */
TEST(enoent_no_symbol)
{
	char name[NAME_LEN], longname[NAME_LEN];
	struct kallsyms_query q;

	if (!setup(_metadata))
		SKIP(return, "%s", skipped);
	q = q_sym("kallsyms_query_doc_client_no_such_symbol");
	FAILS(q, ENOENT);
	q = q_addr(NO_SYMBOL, name, sizeof(name));
	FAILS(q, ENOENT);
	memset(longname, 'z', NAME_LEN - 2);	/* 510 characters: 511 bytes with the NUL */
	longname[NAME_LEN - 2] = 0;
	q = q_sym(longname);
	FAILS(q, ENOENT);
}

/* ENAMETOOLONG: BY_ADDR's name does not fit; a BY_SYMBOL name of 512 bytes or more. */
TEST(enametoolong)
{
	char name[NAME_LEN + 8], longname[2 * NAME_LEN];
	struct kallsyms_query q;
	size_t len;

	if (!setup(_metadata))
		SKIP(return, "%s", skipped);
	len = strlen(f[0].name);
	memset(name, POISON, sizeof(name));
	q = q_addr(f[0].addr, name, 1);
	FAILS(q, ENAMETOOLONG);
	q = q_addr(f[0].addr, name, len);
	FAILS(q, ENAMETOOLONG);
	/* Guess: nothing is written past the buffer's sym_name_size bytes. */
	ASSERT_TRUE(all_bytes(name + len, POISON, sizeof(name) - len));
	q = q_addr(f[0].addr, name, len + 1);	/* exactly the name and its NUL */
	ASSERT_EQ(0, kq(&q));
	ASSERT_STREQ(f[0].name, name);
	memset(longname, 'z', sizeof(longname));
	longname[NAME_LEN] = 0;			/* 512 characters */
	q = q_sym(longname);
	FAILS(q, ENAMETOOLONG);
	longname[NAME_LEN] = 'z';
	longname[sizeof(longname) - 1] = 0;	/* 1023 characters */
	q = q_sym(longname);
	FAILS(q, ENAMETOOLONG);
}

/* EFAULT: the argument, a name or the name buffer is memory the caller cannot use. */
TEST(efault_bad_memory)
{
	long page = sysconf(_SC_PAGESIZE);
	struct kallsyms_query q, gen = q_gen();
	char *p, *none, *ro;

	if (!setup(_metadata))
		SKIP(return, "%s", skipped);
	p = mmap(NULL, 3 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, p);
	none = p + page;
	ro = p + 2 * page;
	memcpy(ro, &gen, sizeof(gen));
	memcpy(none - 8, "schedule", 8);	/* no NUL before the unmapped page */
	ASSERT_EQ(0, mprotect(none, page, PROT_NONE));
	ASSERT_EQ(0, mprotect(ro, page, PROT_READ));
	q = q_sym(none);
	FAILS(q, EFAULT);
	q = q_sym(none - 8);			/* Guess: its NUL is unreadable: EFAULT */
	FAILS(q, EFAULT);
	q = q_addr(f[0].addr, none, NAME_LEN);
	FAILS(q, EFAULT);
	q = q_addr(f[0].addr, ro, NAME_LEN);	/* a name buffer it cannot write */
	FAILS(q, EFAULT);
	expect_fail(_metadata, KALLSYMS_QUERY, none, 0, EFAULT, "unmapped argument");
	/* Guess: an argument the kernel can read but not write back is EFAULT too. */
	expect_fail(_metadata, KALLSYMS_QUERY, ro, QSZ, EFAULT, "read-only argument");
}

/* A vmlinux or [bpf] line of /proc/kallsyms: "<addr> <type> <name>[\t[owner]]". */
struct ksym {
	__u64 addr;
	char type;
	bool bpf;
	char *name;
};

static size_t read_kallsyms(struct __test_metadata *_metadata, struct ksym **ks)
{
	char line[1024], name[NAME_LEN + 64], owner[128], type;
	unsigned long long addr;
	FILE *in = fopen("/proc/kallsyms", "r");
	size_t n = 0, cap = 0;
	int got;

	ASSERT_NE(NULL, in);
	while (fgets(line, sizeof(line), in)) {
		got = sscanf(line, "%llx %c %575s [%127[^]]]", &addr, &type, name, owner);
		if (got < 3 || (got == 4 && strcmp(owner, "bpf")))
			continue;
		if (n == cap) {
			cap = cap ? 2 * cap : 4096;
			*ks = realloc(*ks, cap * sizeof(**ks));
			ASSERT_NE(NULL, *ks);
		}
		(*ks)[n++] = (struct ksym){ addr, type, got == 4, strdup(name) };
	}
	fclose(in);
	return n;
}

static int by_name_addr(const void *a, const void *b)
{
	const struct ksym *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	return c ? c : (x->addr > y->addr) - (x->addr < y->addr);
}

/* EADDRNOTAVAIL: BY_SYMBOL of a name that has two addresses. */
TEST(eaddrnotavail_duplicate_name)
{
	struct ksym *k = NULL;
	struct kallsyms_query q;
	size_t i, n;

	if (!setup(_metadata))
		SKIP(return, "%s", skipped);
	n = read_kallsyms(_metadata, &k);
	qsort(k, n, sizeof(*k), by_name_addr);
	/* Guess: the vmlinux lines of /proc/kallsyms are what BY_SYMBOL searches. */
	for (i = 1; i < n; i++)
		if (!k[i].bpf && !k[i - 1].bpf && k[i].type == 't' && k[i - 1].type == 't' &&
		    !strcmp(k[i].name, k[i - 1].name) && k[i].addr != k[i - 1].addr)
			break;
	if (i >= n)
		SKIP(return, "this kernel's build has no static function name at two addresses");
	q = q_sym(k[i].name);
	FAILS(q, EADDRNOTAVAIL);
}

/* Checks an answered batch entry against a single BY_ADDR under the call's generation. */
static void check_entry(struct __test_metadata *_metadata, const struct kallsyms_query_addr *e,
			const char *names, __u64 used, __u64 gen, unsigned int *compared)
{
	struct kallsyms_query q;
	char name[NAME_LEN];
	int err;

	q = q_addr(e->addr, name, sizeof(name));
	err = kq(&q);
	if (e->kind == KALLSYMS_SYM_NONE) {	/* then every other output is 0 */
		ASSERT_EQ(NO_SYMBOL, e->addr);
		ASSERT_EQ(0ULL, e->start | e->size | e->prog_id);
		ASSERT_EQ(0U, e->name_off | e->owner_off | e->subprog);
		ASSERT_EQ(ENOENT, err);
		return;
	}
	ASSERT_EQ(0, err);
	ASSERT_LT(e->name_off, used);
	ASSERT_LT(e->owner_off, used);
	ASSERT_NE(NULL, memchr(names + e->name_off, 0, used - e->name_off));
	ASSERT_NE(NULL, memchr(names + e->owner_off, 0, used - e->owner_off));
	if (q.generation != gen)
		return;		/* answers are only promised to agree under one generation */
	(*compared)++;
	ASSERT_STREQ(name, names + e->name_off);
	ASSERT_STREQ(q.sym_owner, names + e->owner_off);
	ASSERT_EQ(q.sym_start, e->start);
	ASSERT_EQ(q.sym_size, e->size);
	ASSERT_EQ(q.sym_kind, e->kind);
	ASSERT_EQ(q.sym_subprog, e->subprog);
}

#define NENT	150
#define NAMEBUF	256

/* The five steps of Batches, with a name buffer too small for one call. */
TEST(batch_continuation)
{
	static struct kallsyms_query_addr e[NENT], snap[NENT];
	unsigned int i, done = 0, calls = 0, compared = 0;
	char names[NAMEBUF + 64];
	struct kallsyms_query q;

	if (!setup(_metadata))
		SKIP(return, "%s", skipped);
	ASSERT_LE(2, nf);	/* alternating names: no entry shares its name */
	memset(e, POISON, sizeof(e));	/* Guess: entries' outputs are ignored too */
	for (i = 0; i < NENT; i++)
		e[i].addr = f[i % nf].addr + f[i % nf].size * (i / nf) / (NENT / nf + 1);
	e[NENT / 2].addr = NO_SYMBOL;
	q = q_batch(e, NENT, ESZ, names, NAMEBUF);
	while (done < NENT) {
		memcpy(snap, e, sizeof(e));
		memset(names + NAMEBUF, POISON, 64);
		ASSERT_EQ(0, kq(&q)) TH_LOG("call %u, from entry %u", calls, done);
		calls++;
		ASSERT_LE(1U, q.batch_count);
		ASSERT_GE(NENT - done, q.batch_count);
		ASSERT_GE((__u64)NAMEBUF, q.sym_name_size);
		ASSERT_TRUE(all_bytes(names + NAMEBUF, POISON, 64));
		ASSERT_EQ((uintptr_t)&e[done], q.batch_addr);
		/* The entries before and after those answered are not touched. */
		ASSERT_EQ(0, memcmp(e, snap, done * sizeof(e[0])));
		i = done + q.batch_count;
		ASSERT_EQ(0, memcmp(&e[i], &snap[i], (NENT - i) * sizeof(e[0])));
		/* 1. use the answers; addr is never written */
		for (i = done; i < done + q.batch_count; i++) {
			ASSERT_EQ(snap[i].addr, e[i].addr);
			check_entry(_metadata, &e[i], names, q.sym_name_size, q.generation,
				    &compared);
		}
		done += q.batch_count;
		q.batch_addr += (__u64)q.batch_count * q.batch_entry_size;	/* 2. */
		q.batch_count = NENT - done;					/* 3. */
		q.sym_name_size = NAMEBUF;					/* 4. */
	}									/* 5. */
	ASSERT_LT(1U, calls) TH_LOG("%d bytes of names answered %d entries at once", NAMEBUF, NENT);
	if (!compared)
		SKIP(return, "the generation changed between every batch and its BY_ADDR checks");
}

/* BATCH_MAX entries, (NAME_LEN + 64) bytes of names each: never too small. */
TEST(batch_max_count_never_too_small)
{
	const __u32 max = KALLSYMS_QUERY_BATCH_MAX;
	struct kallsyms_query_addr *e = calloc(max, ESZ);
	char *names = malloc((size_t)max * ENTRY_STRS);
	struct kallsyms_query q;
	unsigned int i;

	if (!setup(_metadata))
		SKIP(return, "%s", skipped);
	ASSERT_TRUE(e && names);
	for (i = 0; i < max; i++)
		e[i].addr = f[i % nf].addr;
	q = q_batch(e, max, ESZ, names, (__u64)max * ENTRY_STRS);
	ASSERT_EQ(0, kq(&q));
	/* Guess: it stops short only if symbols changed, and after a block of 16. */
	ASSERT_TRUE(q.batch_count == max || (q.batch_count && q.batch_count % 16 == 0));
	for (i = 0; i < q.batch_count; i++) {
		ASSERT_EQ((__u32)KALLSYMS_SYM_VMLINUX, e[i].kind);
		ASSERT_LT(e[i].name_off, q.sym_name_size);
		ASSERT_STREQ(f[i % nf].name, names + e[i].name_off);
	}
}

/* Batch EINVAL: 0 entries, a bad entry size, a name buffer of 0, overlaps. */
TEST(batch_einval)
{
	static __u64 raw[1024];		/* argument, entries and names, overlapping */
	struct kallsyms_query_addr e[2] = { { .addr = NO_SYMBOL }, { .addr = NO_SYMBOL } };
	struct kallsyms_query_addr *re = (void *)&raw[64];
	struct kallsyms_query q, *rq = (void *)raw;
	const __u32 esizes[] = { 0, 8, 40, 52, 60 };
	char names[2 * ENTRY_STRS];
	unsigned int i;

	if (!setup(_metadata))
		SKIP(return, "%s", skipped);
	q = q_batch(e, 0, ESZ, names, sizeof(names));
	FAILS(q, EINVAL);
	for (i = 0; i < ARRAY_SIZE(esizes); i++) {
		q = q_batch(e, 1, esizes[i], names, sizeof(names));
		FAILS(q, EINVAL);
	}
	q = q_batch(e, 1, ESZ, names, 0);
	FAILS(q, EINVAL);
	q = q_batch(e, 1, ESZ, names, sizeof(names));
	q.sym_addr = NO_SYMBOL;		/* an input BY_ADDR_BATCH does not use */
	FAILS(q, EINVAL);
	re[0].addr = NO_SYMBOL;
	re[1].addr = NO_SYMBOL;
	*rq = q_batch(re, 2, ESZ, &re[1], 256);		/* names in the second entry */
	expect_fail(_metadata, KALLSYMS_QUERY, raw, sizeof(raw), EINVAL, "names in entries");
	*rq = q_batch(re, 2, ESZ, &raw[8], 256);	/* names in the argument */
	expect_fail(_metadata, KALLSYMS_QUERY, raw, sizeof(raw), EINVAL, "names in argument");
	*rq = q_batch(&raw[4], 1, ESZ, &raw[512], 256);	/* entries in the argument */
	expect_fail(_metadata, KALLSYMS_QUERY, raw, sizeof(raw), EINVAL, "entries in argument");
}

/* Batch E2BIG: too many entries, entries too large, the first's unknown bytes. */
TEST(batch_e2big)
{
	static struct kallsyms_query_addr e[KALLSYMS_QUERY_BATCH_MAX + 1];
	static __u64 big[(KALLSYMS_QUERY_ADDR_SIZE_MAX + 8) / 8];
	char names[2 * ENTRY_STRS];
	struct kallsyms_query q;

	if (!setup(_metadata))
		SKIP(return, "%s", skipped);
	e[0].addr = NO_SYMBOL;
	big[0] = NO_SYMBOL;
	q = q_batch(e, KALLSYMS_QUERY_BATCH_MAX + 1, ESZ, names, sizeof(names));
	FAILS(q, E2BIG);
	q = q_batch(big, 1, KALLSYMS_QUERY_ADDR_SIZE_MAX + 8, names, sizeof(names));
	FAILS(q, E2BIG);
	big[ESZ / 8] = 1;				/* byte 48 of an entry of 56 */
	q = q_batch(big, 1, ESZ + 8, names, sizeof(names));
	FAILS(q, E2BIG);
	big[ESZ / 8] = 0;
	big[KALLSYMS_QUERY_ADDR_SIZE_MAX / 8 - 1] = 1;	/* the last byte of the largest */
	q = q_batch(big, 1, KALLSYMS_QUERY_ADDR_SIZE_MAX, names, sizeof(names));
	FAILS(q, E2BIG);
}

/* The first entry's error is the call's: ENAMETOOLONG, EFAULT. */
TEST(batch_first_entry_errors)
{
	long page = sysconf(_SC_PAGESIZE);
	struct kallsyms_query_addr e = { 0 };
	char names[ENTRY_STRS], *p;
	struct kallsyms_query q;

	if (!setup(_metadata))
		SKIP(return, "%s", skipped);
	e.addr = f[0].addr;
	q = q_batch(&e, 1, ESZ, names, 1);
	FAILS(q, ENAMETOOLONG);
	ASSERT_EQ(f[0].addr, e.addr);
	p = mmap(NULL, page, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, p);
	q = q_batch(p, 1, ESZ, names, sizeof(names));
	FAILS(q, EFAULT);
	q = q_batch(&e, 1, ESZ, p, ENTRY_STRS);
	FAILS(q, EFAULT);
}

/* Larger entries; a later entry it cannot answer ends a call that succeeds. */
TEST(batch_larger_entries_and_bad_later_entry)
{
	struct { struct kallsyms_query_addr e; __u64 pad[2]; } ent[3] = { 0 };	/* 64 bytes */
	long page = sysconf(_SC_PAGESIZE);
	char names[3 * ENTRY_STRS], *p;
	struct kallsyms_query_addr *e;
	struct kallsyms_query q;
	int i;

	if (!setup(_metadata))
		SKIP(return, "%s", skipped);
	for (i = 0; i < 3; i++)
		ent[i].e.addr = f[0].addr;
	q = q_batch(ent, 3, sizeof(ent[0]), names, sizeof(names));
	ASSERT_EQ(0, kq(&q));
	ASSERT_EQ(3U, q.batch_count);
	for (i = 0; i < 3; i++) {
		ASSERT_EQ(f[0].addr, ent[i].e.start);
		ASSERT_EQ((__u32)KALLSYMS_SYM_VMLINUX, ent[i].e.kind);
		ASSERT_EQ(0ULL, ent[i].pad[0] | ent[i].pad[1]);	/* left as they are */
	}
	/* The second entry's unknown bytes are not 0: the first answered, it untouched. */
	memset(ent, 0, sizeof(ent));
	ent[0].e.addr = f[0].addr;
	ent[1].e.addr = f[0].addr;
	ent[1].pad[1] = 1;
	q = q_batch(ent, 2, sizeof(ent[0]), names, sizeof(names));
	ASSERT_EQ(0, kq(&q));
	ASSERT_EQ(1U, q.batch_count);
	ASSERT_EQ(f[0].addr, ent[0].e.start);
	ASSERT_EQ(0ULL, ent[1].e.start | ent[1].e.size | ent[1].e.kind | ent[1].e.name_off);
	/* The second entry is unmapped memory: the first answered. */
	p = mmap(NULL, 2 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, p);
	ASSERT_EQ(0, mprotect(p + page, page, PROT_NONE));
	e = (void *)(p + page - ESZ);
	e->addr = f[0].addr;
	q = q_batch(e, 2, ESZ, names, sizeof(names));
	ASSERT_EQ(0, kq(&q));
	ASSERT_EQ(1U, q.batch_count);
	ASSERT_EQ(f[0].addr, e->start);
}

/* Symbol ranges: [start, start + size) of a vmlinux symbol gets the same answer. */
TEST(symbol_range_vmlinux)
{
	char name[NAME_LEN], name2[NAME_LEN];
	struct kallsyms_query a, b;
	__u64 off[4];
	int i, j;

	if (!setup(_metadata))
		SKIP(return, "%s", skipped);
	for (i = 0; i < nf; i++) {
		lookup(_metadata, f[i].addr, &a, name);
		off[0] = 0, off[1] = 1, off[2] = a.sym_size / 2, off[3] = a.sym_size - 1;
		for (j = 0; j < 4; j++) {
			lookup(_metadata, a.sym_start + off[j], &b, name2);
			ASSERT_STREQ(name, name2);
			ASSERT_EQ(a.sym_start, b.sym_start);
			ASSERT_EQ(a.sym_size, b.sym_size);
			ASSERT_EQ(a.sym_kind, b.sym_kind);
			ASSERT_STREQ(a.sym_owner, b.sym_owner);
		}
		/* Guess: "the distance to the next symbol": start + size is its start. */
		lookup(_metadata, a.sym_start + a.sym_size, &b, name2);
		ASSERT_EQ(a.sym_start + a.sym_size, b.sym_start) TH_LOG("%s, %s", name, name2);
	}
}

/* A BPF symbol listed in /proc/kallsyms, if any: kind, owner, range, not BY_SYMBOL. */
TEST(bpf_symbol_if_listed)
{
	char name[NAME_LEN], name2[NAME_LEN];
	struct kallsyms_query a, b, s;
	struct ksym *k = NULL;
	size_t i, n;
	__u64 g0;
	int err, err2;

	if (!setup(_metadata))
		SKIP(return, "%s", skipped);
	g0 = generation(_metadata);
	n = read_kallsyms(_metadata, &k);
	for (i = 0; i < n && !k[i].bpf; i++)
		;
	if (i == n)
		SKIP(return, "no [bpf] line in /proc/kallsyms (no BPF code, or hidden)");
	a = q_addr(k[i].addr, name, sizeof(name));
	err = kq(&a);
	b = q_addr(a.sym_start + a.sym_size, name2, sizeof(name2));
	err = err ? err : kq(&b);
	/*
	 * BPF symbols are not searched: not found, or a vmlinux symbol of the
	 * same name (bpf_dispatcher_xdp is also the dispatcher's variable).
	 */
	s = q_sym(k[i].name);
	err2 = kq(&s);
	ASSERT_TRUE(err2 == ENOENT || (!err2 && s.sym_addr != k[i].addr))
		TH_LOG("BY_SYMBOL %s: %s, %#llx", k[i].name, strerror(err2),
		       (unsigned long long)s.sym_addr);
	if (generation(_metadata) != g0)
		SKIP(return, "BPF symbols changed while the test ran");
	/* Guess: under an unchanged generation the listing matches the answers. */
	ASSERT_EQ(0, err);
	ASSERT_STREQ(k[i].name, name);
	ASSERT_EQ(k[i].addr, a.sym_start);
	ASSERT_STREQ("bpf", a.sym_owner);
	ASSERT_TRUE(all_bytes(a.sym_owner + 4, 0, sizeof(a.sym_owner) - 4));
	ASSERT_LE((__u32)KALLSYMS_SYM_BPF_PROG, a.sym_kind);
	ASSERT_GE((__u32)KALLSYMS_SYM_BPF_IMAGE, a.sym_kind);
	ASSERT_EQ(a.sym_kind == KALLSYMS_SYM_BPF_SUBPROG, a.sym_subprog > 0);
	ASSERT_TRUE(a.sym_kind < KALLSYMS_SYM_BPF_TRAMPOLINE || !a.sym_prog_id);
	/* The end is included, unless another image starts there. */
	ASSERT_TRUE(b.sym_start == a.sym_start + a.sym_size ||
		    (b.sym_start == a.sym_start && !strcmp(name, name2)));
}

TEST_HARNESS_MAIN
