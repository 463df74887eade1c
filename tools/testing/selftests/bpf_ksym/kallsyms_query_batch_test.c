// SPDX-License-Identifier: GPL-2.0
/*
 * KALLSYMS_QUERY for symbolizers: batched BY_ADDR against single BY_ADDR for
 * every symbol's edges, kinds, program ids and subprogram indexes, the
 * generation, what an unloaded program's address gets, and every malformed
 * batch's errno.
 */
#include <fcntl.h>
#include <net/if.h>
#include <sys/mman.h>
#include <linux/if_link.h>
#include <bpf/btf.h>

#include "kselftest_harness.h"
#include "ksym_util.h"

#define BATCH_MAX KALLSYMS_QUERY_BATCH_MAX
#define ENTRY_SIZE sizeof(struct kallsyms_query_addr)
/* The fields a batch answers: what the kernel must write in every answered entry. */
#define ANSWER_FILL 0x5a

/* What one address gets, from either mode. */
struct answer {
	int err;		/* 0, or -errno (a batch's KALLSYMS_SYM_NONE: -ENOENT) */
	char name[512];
	char owner[64];
	__u64 start, size, prog_id;
	__u32 kind, subprog;
};

static int kq_fd(void)
{
	return open("/proc/kallsyms", O_RDONLY);
}

static int single(int fd, __u64 addr, struct answer *a)
{
	struct kallsyms_query q;

	memset(a, 0, sizeof(*a));
	a->err = kq_query(fd, &q, KALLSYMS_QUERY_BY_ADDR, addr, NULL, a->name, sizeof(a->name));
	if (a->err) {
		a->name[0] = 0;
		return a->err;
	}
	snprintf(a->owner, sizeof(a->owner), "%s", q.sym_owner);
	a->start = q.sym_start;
	a->size = q.sym_size;
	a->prog_id = q.sym_prog_id;
	a->kind = q.sym_kind;
	a->subprog = q.sym_subprog;
	return 0;
}

static int generation(int fd, __u64 *gen)
{
	struct kallsyms_query q = {
		.size = sizeof(q),
		.query_flags = KALLSYMS_QUERY_GENERATION,
	};

	if (ioctl(fd, KALLSYMS_QUERY, &q))
		return -errno;
	*gen = q.generation;
	return 0;
}

/* The string at @off of the @used bytes of @names, or NULL if it is not one. */
static const char *string_at(const char *names, __u64 used, __u32 off)
{
	if (off >= used || !memchr(names + off, 0, used - off))
		return NULL;
	return names + off;
}

/*
 * One batch call over @q's entries; 0 or -errno. Sets up everything but the
 * entries themselves.
 */
static int batch_call(int fd, struct kallsyms_query *q, void *entries, __u32 count,
		      __u32 entry_size, char *names, __u64 names_size)
{
	memset(q, 0, sizeof(*q));
	q->size = sizeof(*q);
	q->query_flags = KALLSYMS_QUERY_BY_ADDR_BATCH;
	q->sym_name_addr = (unsigned long)names;
	q->sym_name_size = names_size;
	q->batch_addr = (unsigned long)entries;
	q->batch_count = count;
	q->batch_entry_size = entry_size;
	return ioctl(fd, KALLSYMS_QUERY, q) ? -errno : 0;
}

/* Read the answered entry at @ent (@size bytes) for @addr into @a: what is wrong, or NULL. */
static const char *read_entry(const char *ent, size_t size, __u64 addr, const char *names,
			      __u64 used, struct answer *a)
{
	const struct kallsyms_query_addr *e = (const void *)ent;
	const char *name, *owner;

	memset(a, 0, sizeof(*a));
	for (size_t b = ENTRY_SIZE; b < size; b++)
		if (ent[b])
			return "bytes past the known fields were written";
	if (e->addr != addr)
		return "the address of an entry was changed";
	if (e->kind == KALLSYMS_SYM_NONE) {
		a->err = -ENOENT;
		if (e->start || e->size || e->prog_id || e->name_off || e->owner_off || e->subprog)
			return "an entry without a symbol has non-zero fields";
		return NULL;
	}
	name = string_at(names, used, e->name_off);
	owner = string_at(names, used, e->owner_off);
	if (!name || !owner)
		return "a name or owner offset is outside the written bytes";
	snprintf(a->name, sizeof(a->name), "%s", name);
	snprintf(a->owner, sizeof(a->owner), "%s", owner);
	a->start = e->start;
	a->size = e->size;
	a->prog_id = e->prog_id;
	a->kind = e->kind;
	a->subprog = e->subprog;
	return NULL;
}

/* Entries at @e (@size bytes each) for @addrs, answer fields filled with junk. */
static void fill_entries(void *e, size_t size, const __u64 *addrs, int n)
{
	for (int i = 0; i < n; i++) {
		struct kallsyms_query_addr *x = (void *)((char *)e + i * size);

		memset(x, 0, size);
		memset(x, ANSWER_FILL, ENTRY_SIZE);
		x->addr = addrs[i];
	}
}

struct batch_run {
	size_t entry_size, names_size;
	int calls;
	__u64 generation;	/* of the first call */
	const char *problem;	/* what was wrong with an answer, or NULL */
};

/*
 * Symbolize @addrs[0..n) into @out with as many batch calls as it takes,
 * continuing where a full name buffer stopped a call. 0 or -errno.
 */
static int batch(int fd, const __u64 *addrs, size_t n, struct answer *out, struct batch_run *r)
{
	char *entries = malloc(BATCH_MAX * r->entry_size), *names = malloc(r->names_size);
	size_t done = 0;
	int err = 0;

	r->calls = 0;
	r->problem = NULL;
	/* Windows of BATCH_MAX entries, each set up once, answered in as many calls as it takes. */
	while (!err && done < n) {
		__u32 k = n - done < BATCH_MAX ? n - done : BATCH_MAX, w = 0;

		/* Answer fields filled with junk (all written), tails zero (must stay). */
		fill_entries(entries, r->entry_size, addrs + done, k);
		while (!err && w < k) {
			char *first = entries + w * r->entry_size;
			struct kallsyms_query q;

			err = batch_call(fd, &q, first, k - w, r->entry_size, names, r->names_size);
			if (err)
				break;
			if (!r->calls++)
				r->generation = q.generation;
			if (!q.batch_count || q.batch_count > k - w ||
			    q.sym_name_size > r->names_size) {
				r->problem = "answered none, more than asked, or too many bytes";
				err = -EPROTO;
				break;
			}
			for (__u32 i = 0; i < q.batch_count; i++) {
				__u32 n = done + w + i;
				const char *why;

				why = read_entry(first + i * r->entry_size, r->entry_size, addrs[n],
						 names, q.sym_name_size, &out[n]);
				if (why)
					r->problem = why;
			}
			w += q.batch_count;
		}
		done += k;
	}
	free(entries);
	free(names);
	if (!err && r->problem)
		err = -EPROTO;
	return err;
}

static bool same(const struct answer *a, const struct answer *b)
{
	return a->err == b->err && !strcmp(a->name, b->name) && !strcmp(a->owner, b->owner) &&
	       a->start == b->start && a->size == b->size && a->prog_id == b->prog_id &&
	       a->kind == b->kind && a->subprog == b->subprog;
}

static __u64 settled(int fd);

/* Every kind of BPF symbol, a module, and their addresses. */
struct scene {
	struct bpf_object *progs, *kinds;
	struct bpf_link *fentry;
	int lo;
	bool module;
	__u32 with_sub_id;
	struct prog_syms with_sub;
};

static int set_scene(struct scene *s)
{
	struct bpf_prog_info info = {};
	__u32 len = sizeof(info);
	char cmd[PATH_MAX + 16];
	int fd;

	memset(s, 0, sizeof(*s));
	s->progs = open_progs();
	s->kinds = open_obj("ksym_kinds.bpf.o");
	if (!s->progs || !s->kinds)
		return -1;
	fd = prog_fd(s->progs, "ksym_with_sub");
	if (prog_syms(fd, &s->with_sub) || s->with_sub.nr != 2 ||
	    bpf_obj_get_info_by_fd(fd, &info, &len))
		return -1;
	s->with_sub_id = info.id;
	s->fentry = bpf_program__attach(bpf_object__find_program_by_name(s->kinds, "ksym_fentry"));
	if (libbpf_get_error(s->fentry))
		return -1;
	s->lo = if_nametoindex("lo");
	if (bpf_xdp_attach(s->lo, prog_fd(s->kinds, "ksym_xdp"), XDP_FLAGS_SKB_MODE, NULL))
		return -1;
	if (!access(test_file("test_module/ksym_test_mod.ko"), R_OK)) {
		snprintf(cmd, sizeof(cmd), "insmod %s", test_file("test_module/ksym_test_mod.ko"));
		s->module = system(cmd) == 0;
	}
	return 0;
}

static void clear_scene(struct scene *s)
{
	if (s->module)
		system("rmmod ksym_test_mod");
	if (s->lo)
		bpf_xdp_detach(s->lo, XDP_FLAGS_SKB_MODE, NULL);
	if (s->fentry && !libbpf_get_error(s->fentry))
		bpf_link__destroy(s->fentry);
	bpf_object__close(s->kinds);
	bpf_object__close(s->progs);
}

static void add(__u64 **v, size_t *n, size_t *cap, __u64 addr)
{
	if (*n == *cap) {
		*cap = *cap ? *cap * 2 : 1 << 16;
		*v = realloc(*v, *cap * sizeof(**v));
	}
	(*v)[(*n)++] = addr;
}

/*
 * Addresses worth asking about: every listed symbol's first byte, the byte
 * after and the byte before (the end of the one below, or a gap), the last
 * byte and the byte past the end of every BPF image (end-inclusive, then a
 * gap), and addresses no symbol can cover.
 */
static size_t interesting_addresses(int fd, __u64 **out)
{
	static const __u64 odd[] = { 0, 1, 0x1000, 0x7fffffffffffULL, 0xffff800000000000ULL,
				     ~0ULL, ~0ULL - 4095 };
	FILE *f = fopen("/proc/kallsyms", "r");
	size_t n = 0, cap = 0;
	struct kline k;
	__u64 *v = NULL;

	while (f && next_kline(f, &k)) {
		struct answer a;

		if (!k.addr)
			continue;
		add(&v, &n, &cap, k.addr);
		add(&v, &n, &cap, k.addr + 1);
		add(&v, &n, &cap, k.addr - 1);
		if (!strcmp(k.mod, "[bpf]") && !single(fd, k.addr, &a) && a.start == k.addr) {
			add(&v, &n, &cap, a.start + a.size);
			add(&v, &n, &cap, a.start + a.size + 1);
		}
	}
	if (f)
		fclose(f);
	for (size_t i = 0; i < ARRAY_SIZE(odd); i++)
		add(&v, &n, &cap, odd[i]);
	*out = v;
	return n;
}

/*
 * The same answers, one at a time and batched, for every address of
 * interesting_addresses() with every kind of symbol loaded; with a name buffer
 * that holds one name at a time, and with entries larger than the kernel's.
 */
TEST(batched_answers_equal_single_answers)
{
	struct batch_run runs[] = {
		{ .entry_size = ENTRY_SIZE, .names_size = 1 << 20 },
		{ .entry_size = ENTRY_SIZE + 16, .names_size = 600 },
		{ .entry_size = ENTRY_SIZE, .names_size = 600 },
	};
	unsigned int kinds[KALLSYMS_SYM_MODULE_INIT + 1] = {};
	struct answer *one, *many;
	__u64 *addrs, gen_after;
	int fd = kq_fd(), attempt;
	struct scene s;
	size_t n;

	raise_nofile();
	ASSERT_EQ(0, set_scene(&s)) TH_LOG("could not load, attach or insmod what the test needs");
	settled(fd);
	for (attempt = 0; attempt < 3; attempt++) {
		int bad = 0;

		n = interesting_addresses(fd, &addrs);
		ASSERT_LE(100000, n);
		one = calloc(n, sizeof(*one));
		many = calloc(n, sizeof(*many));
		ASSERT_EQ(0, batch(fd, addrs, n, many, &runs[0])) TH_LOG("%s", runs[0].problem);
		for (size_t i = 0; i < n; i++)
			single(fd, addrs[i], &one[i]);
		ASSERT_EQ(0, generation(fd, &gen_after));
		if (gen_after != runs[0].generation) {
			/* Something came or went meanwhile (a deferred free): again. */
			free(one);
			free(many);
			free(addrs);
			continue;
		}
		memset(kinds, 0, sizeof(kinds));
		for (size_t i = 0; i < n; i++) {
			if (one[i].kind <= KALLSYMS_SYM_MODULE_INIT)
				kinds[one[i].err ? 0 : one[i].kind]++;
			if (!same(&one[i], &many[i]) && bad++ < 5)
				TH_LOG("%#llx: single '%s' [%s] kind %u id %llu sub %u err %d, batch '%s' [%s] kind %u id %llu sub %u err %d",
				       addrs[i], one[i].name, one[i].owner, one[i].kind,
				       one[i].prog_id, one[i].subprog, one[i].err, many[i].name,
				       many[i].owner, many[i].kind, many[i].prog_id,
				       many[i].subprog, many[i].err);
		}
		ASSERT_EQ(0, bad) TH_LOG("%d of %zu answers differ", bad, n);
		/*
		 * A small name buffer: continued calls, stopped anywhere in the
		 * kernel's blocks of entries; with larger entries, and without.
		 */
		for (int r = 1; r < 3; r++) {
			ASSERT_EQ(0, batch(fd, addrs, n, many, &runs[r]))
				TH_LOG("%s", runs[r].problem);
			ASSERT_LT(n / BATCH_MAX + 1, runs[r].calls);
			for (size_t i = 0; i < n; i++)
				bad += !same(&one[i], &many[i]);
		}
		ASSERT_EQ(0, generation(fd, &gen_after));
		if (runs[1].generation != gen_after || runs[2].generation != gen_after ||
		    gen_after != runs[0].generation) {
			free(one);
			free(many);
			free(addrs);
			continue;
		}
		ASSERT_EQ(0, bad) TH_LOG("%d answers differ with a 600-byte buffer", bad);
		break;
	}
	ASSERT_GT(3, attempt) TH_LOG("the generation never held still for a whole comparison");
	TH_LOG("%zu addresses in %d batched calls (and in %d with a 600-byte name buffer): none %u, vmlinux %u, module %u, prog %u, subprog %u, trampoline %u, dispatcher %u, image %u, module init %u",
	       n, runs[0].calls, runs[1].calls, kinds[0], kinds[1], kinds[2], kinds[3], kinds[4],
	       kinds[5], kinds[6], kinds[7], kinds[8]);
	/* Every kind this kernel can show was asked about. */
	ASSERT_LT(0, kinds[KALLSYMS_SYM_NONE]);
	ASSERT_LT(0, kinds[KALLSYMS_SYM_VMLINUX]);
	ASSERT_LT(0, kinds[KALLSYMS_SYM_BPF_PROG]);
	ASSERT_LT(0, kinds[KALLSYMS_SYM_BPF_SUBPROG]);
	ASSERT_LT(0, kinds[KALLSYMS_SYM_BPF_TRAMPOLINE]);
	ASSERT_LT(0, kinds[KALLSYMS_SYM_BPF_DISPATCHER]);
	if (s.module)
		ASSERT_LT(0, kinds[KALLSYMS_SYM_MODULE]);
	free(one);
	free(many);
	free(addrs);
	clear_scene(&s);
	close(fd);
}

TEST(kinds_program_ids_and_subprogram_indexes)
{
	int fd = kq_fd(), i, tramp = 0, disp = 0;
	struct kallsyms_query q;
	struct answer a;
	char name[64];
	struct scene s;
	struct kline k;
	FILE *f;

	ASSERT_EQ(0, set_scene(&s));
	for (i = 0; i < 2; i++) {
		ASSERT_EQ(0, single(fd, s.with_sub.addr[i] + 1, &a));
		EXPECT_EQ(i ? KALLSYMS_SYM_BPF_SUBPROG : KALLSYMS_SYM_BPF_PROG, a.kind);
		EXPECT_EQ(i, a.subprog);
		/* Root: the id of the program, the main one for a subprogram. */
		EXPECT_EQ(s.with_sub_id, a.prog_id);
		EXPECT_STREQ("bpf", a.owner);
		EXPECT_EQ(s.with_sub.addr[i], a.start);
	}
	ASSERT_EQ(1, kallsyms_bpf_at(s.with_sub.addr[1], name, sizeof(name)));
	EXPECT_NE(NULL, strstr(name, "ksym_sub"));
	ASSERT_EQ(-ENOENT, single(fd, 0, &a));

	/* The trampoline and the dispatcher, found by their /proc/kallsyms lines. */
	f = fopen("/proc/kallsyms", "r");
	ASSERT_NE(NULL, f);
	while (next_kline(f, &k)) {
		if (strcmp(k.mod, "[bpf]"))
			continue;
		if (!strncmp(k.sym, "bpf_trampoline_", 15)) {
			ASSERT_EQ(0, single(fd, k.addr, &a));
			EXPECT_EQ(KALLSYMS_SYM_BPF_TRAMPOLINE, a.kind);
			EXPECT_EQ(0, a.prog_id);
			tramp++;
		} else if (!strcmp(k.sym, "bpf_dispatcher_xdp")) {
			ASSERT_EQ(0, single(fd, k.addr, &a));
			EXPECT_EQ(KALLSYMS_SYM_BPF_DISPATCHER, a.kind);
			EXPECT_EQ(0, a.prog_id);
			disp++;
		}
	}
	fclose(f);
	EXPECT_LT(0, tramp);
	EXPECT_EQ(1, disp);

	ASSERT_EQ(0, kq_query(fd, &q, KALLSYMS_QUERY_BY_SYMBOL, 0, "bpf_user_rnd_u32", NULL, 0));
	/* BY_SYMBOL answers carry no kind. */
	EXPECT_EQ(0, q.sym_kind);
	ASSERT_EQ(0, single(fd, q.sym_addr, &a));
	EXPECT_EQ(KALLSYMS_SYM_VMLINUX, a.kind);
	EXPECT_STREQ("", a.owner);
	if (s.module) {
		ASSERT_EQ(0, kq_query(fd, &q, KALLSYMS_QUERY_BY_SYMBOL, 0, "ksym_test_mod_func",
				      NULL, 0));
		ASSERT_EQ(0, single(fd, q.sym_addr, &a));
		EXPECT_EQ(KALLSYMS_SYM_MODULE, a.kind);
		EXPECT_STREQ("ksym_test_mod", a.owner);
	}
	clear_scene(&s);
	close(fd);
}

/* The nearest text symbol at or below @addr, as a symbolizer that parses the text finds it. */
static int text_nearest(__u64 addr, char *name, size_t size, __u64 *start)
{
	FILE *f = fopen("/proc/kallsyms", "r");
	struct kline k;

	*start = 0;
	while (f && next_kline(f, &k))
		if (k.addr <= addr && k.addr > *start) {
			*start = k.addr;
			snprintf(name, size, "%s %s", k.sym, k.mod);
		}
	if (f)
		fclose(f);
	return *start ? 0 : -ENOENT;
}

TEST(address_of_an_unloaded_program_is_not_found)
{
	struct answer single_a, batch_a;
	struct batch_run r = { .entry_size = ENTRY_SIZE, .names_size = 4096 };
	char text[600] = "", name[64];
	struct prog_syms ps;
	__u64 addr, start;
	int fd = kq_fd(), prog;

	snprintf(name, sizeof(name), "kq_gone_%d", getpid() % 100000);
	prog = load_tiny_prog(name);
	ASSERT_LE(0, prog);
	ASSERT_EQ(0, prog_syms(prog, &ps));
	addr = ps.addr[0] + 4;
	ASSERT_EQ(0, single(fd, addr, &single_a));
	ASSERT_NE(NULL, strstr(single_a.name, name));
	close(prog);
	ASSERT_EQ(0, wait_gone(single_a.name));

	EXPECT_EQ(-ENOENT, single(fd, addr, &single_a));
	ASSERT_EQ(0, batch(fd, &addr, 1, &batch_a, &r)) TH_LOG("%s", r.problem);
	EXPECT_EQ(-ENOENT, batch_a.err);
	/* What a symbolizer that parses the text (no sizes) says instead. */
	if (!text_nearest(addr, text, sizeof(text), &start))
		TH_LOG("%#llx of unloaded %s: KALLSYMS_QUERY says not found; the text's nearest symbol below says %s+%#llx",
		       addr, name, text, addr - start);
	close(fd);
}

/*
 * Wait until the generation holds still for a second (trampolines are freed
 * after RCU-tasks grace periods, programs after RCU ones); returns it.
 */
static __u64 settled(int fd)
{
	__u64 a = 0, b = 1;

	for (int i = 0; i < 60 && a != b; i++) {
		generation(fd, &a);
		sleep(1);
		generation(fd, &b);
	}
	return b;
}

static bool changed(int fd, __u64 *gen)
{
	__u64 now;

	generation(fd, &now);
	if (now == *gen)
		return false;
	*gen = now;
	return true;
}

/* The name of the fentry trampoline of ksym_kinds.bpf.c, as ksym_kinds_test computes it. */
static int fentry_trampoline(char *name, size_t size)
{
	struct btf *vmlinux = btf__load_vmlinux_btf();
	int id;

	if (libbpf_get_error(vmlinux))
		return -1;
	id = btf__find_by_name_kind(vmlinux, "bpf_user_rnd_u32", BTF_KIND_FUNC);
	btf__free(vmlinux);
	if (id <= 0)
		return -1;
	/* bpf_trampoline_compute_key(): vmlinux BTF object id 1, bit 31, BTF id. */
	snprintf(name, size, "bpf_trampoline_%llu",
		 (1ULL << 32) | 0x80000000ULL | (unsigned int)id);
	return 0;
}

TEST(generation_changes_with_the_symbols_and_only_then)
{
	struct bpf_object *o = open_obj("ksym_kinds.bpf.o");
	char name[64], buf[512], tramp[64], *text;
	int fd = kq_fd(), prog, lo = if_nametoindex("lo"), xdp;
	int saved_kallsyms, saved_harden;
	struct kallsyms_query q;
	struct bpf_link *link;
	struct prog_syms ps;
	__u64 gen, before;

	ASSERT_NE(NULL, o);
	xdp = prog_fd(o, "ksym_xdp");
	ASSERT_EQ(0, fentry_trampoline(tramp, sizeof(tramp)));
	/* The XDP dispatcher's image, made once by the first attach in this boot. */
	ASSERT_EQ(0, bpf_xdp_attach(lo, xdp, XDP_FLAGS_SKB_MODE, NULL));
	ASSERT_EQ(0, bpf_xdp_detach(lo, XDP_FLAGS_SKB_MODE, NULL));
	gen = settled(fd);
	/* Reads do not change it: queries of every mode, and the whole text. */
	ASSERT_EQ(0, kq_query(fd, &q, KALLSYMS_QUERY_BY_SYMBOL, 0, "bpf_user_rnd_u32", NULL, 0));
	EXPECT_EQ(gen, q.generation);
	ASSERT_EQ(0, kq_query(fd, &q, KALLSYMS_QUERY_BY_ADDR, q.sym_addr, NULL, buf, sizeof(buf)));
	EXPECT_EQ(gen, q.generation);
	text = slurp_fd(open("/proc/kallsyms", O_RDONLY));
	ASSERT_NE(NULL, text);
	free(text);
	EXPECT_FALSE(changed(fd, &gen)) TH_LOG("changed by reads");
	/* Nor does an XDP attach: the dispatcher's image is there already. */
	ASSERT_EQ(0, bpf_xdp_attach(lo, xdp, XDP_FLAGS_SKB_MODE, NULL));
	EXPECT_FALSE(changed(fd, &gen)) TH_LOG("changed by an XDP attach that adds no symbol");
	ASSERT_EQ(0, bpf_xdp_detach(lo, XDP_FLAGS_SKB_MODE, NULL));

	snprintf(name, sizeof(name), "kq_gen_%d", getpid() % 100000);
	prog = load_tiny_prog(name);
	ASSERT_LE(0, prog);
	EXPECT_TRUE(changed(fd, &gen)) TH_LOG("not changed by a program load");
	ASSERT_EQ(0, prog_syms(prog, &ps));
	ASSERT_EQ(1, kallsyms_bpf_at(ps.addr[0], buf, sizeof(buf)));
	close(prog);
	ASSERT_EQ(0, wait_gone(buf));
	EXPECT_TRUE(changed(fd, &gen)) TH_LOG("not changed by a program unload");

	link = bpf_program__attach(bpf_object__find_program_by_name(o, "ksym_fentry"));
	ASSERT_EQ(0, libbpf_get_error(link));
	EXPECT_TRUE(changed(fd, &gen)) TH_LOG("not changed by an fentry attach");
	bpf_link__destroy(link);
	ASSERT_EQ(0, wait_gone(tramp));
	EXPECT_TRUE(changed(fd, &gen)) TH_LOG("not changed by an fentry detach");
	bpf_object__close(o);

	/* Hiding BPF symbols changes every BPF answer; showing them again changes it back. */
	saved_kallsyms = read_sysctl(JIT_KALLSYMS);
	saved_harden = read_sysctl(JIT_HARDEN);
	ASSERT_EQ(0, write_sysctl(JIT_HARDEN, 0));
	ASSERT_EQ(0, write_sysctl(JIT_KALLSYMS, 1));
	before = settled(fd);
	ASSERT_EQ(0, write_sysctl(JIT_KALLSYMS, 0));
	gen = before;
	EXPECT_TRUE(changed(fd, &gen)) TH_LOG("not changed by bpf_jit_kallsyms=0");
	ASSERT_EQ(0, write_sysctl(JIT_KALLSYMS, 1));
	generation(fd, &gen);
	EXPECT_EQ(before, gen);
	write_sysctl(JIT_KALLSYMS, saved_kallsyms);
	write_sysctl(JIT_HARDEN, saved_harden);

	if (!access(test_file("test_module/ksym_test_mod.ko"), R_OK)) {
		char cmd[PATH_MAX + 16];

		gen = settled(fd);
		snprintf(cmd, sizeof(cmd), "insmod %s", test_file("test_module/ksym_test_mod.ko"));
		ASSERT_EQ(0, system(cmd));
		EXPECT_TRUE(changed(fd, &gen)) TH_LOG("not changed by insmod");
		ASSERT_EQ(0, system("rmmod ksym_test_mod"));
		EXPECT_TRUE(changed(fd, &gen)) TH_LOG("not changed by rmmod");
	}
	close(fd);
}

TEST(malformed_batches_get_their_errno)
{
	size_t page = sysconf(_SC_PAGESIZE);
	struct kallsyms_query_addr e[4] = {}, *ro, *last;
	__u64 big[2][8] = {};
	struct kallsyms_query q;
	char names[4096], *unmapped, tiny[4];
	struct {
		struct kallsyms_query q;
		struct kallsyms_query_addr e;
	} one = {};
	int fd = kq_fd();
	__u64 core;

	ASSERT_EQ(0, kq_query(fd, &q, KALLSYMS_QUERY_BY_SYMBOL, 0, "bpf_user_rnd_u32", NULL, 0));
	core = q.sym_addr;
	for (int i = 0; i < 4; i++)
		e[i].addr = core;
	ASSERT_EQ(0, batch_call(fd, &q, e, 4, ENTRY_SIZE, names, sizeof(names)));
	ASSERT_EQ(4, q.batch_count);
	/* The same name four times, written once; vmlinux's owner is its NUL. */
	EXPECT_EQ(strlen("bpf_user_rnd_u32") + 1, q.sym_name_size);
	EXPECT_STREQ("bpf_user_rnd_u32", names + e[3].name_off);
	EXPECT_STREQ("", names + e[3].owner_off);

	EXPECT_EQ(-EINVAL, batch_call(fd, &q, e, 0, ENTRY_SIZE, names, sizeof(names)));
	EXPECT_EQ(-E2BIG, batch_call(fd, &q, e, BATCH_MAX + 1, ENTRY_SIZE, names, sizeof(names)));
	EXPECT_EQ(-E2BIG, batch_call(fd, &q, e, ~0U, ENTRY_SIZE, names, sizeof(names)));
	EXPECT_EQ(-EINVAL, batch_call(fd, &q, e, 1, ENTRY_SIZE - 8, names, sizeof(names)));
	EXPECT_EQ(-EINVAL, batch_call(fd, &q, e, 1, ENTRY_SIZE + 4, names, sizeof(names)));
	EXPECT_EQ(-E2BIG, batch_call(fd, &q, e, 1, 4096 + 8, names, sizeof(names)));
	EXPECT_EQ(-EINVAL, batch_call(fd, &q, e, 1, ENTRY_SIZE, names, 0));
	/* Unmapped or read-only arrays. */
	unmapped = mmap(NULL, page, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, unmapped);
	EXPECT_EQ(-EFAULT, batch_call(fd, &q, unmapped, 1, ENTRY_SIZE, names, sizeof(names)));
	EXPECT_EQ(-EFAULT, batch_call(fd, &q, e, 1, ENTRY_SIZE, unmapped, page));
	ro = mmap(NULL, page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, ro);
	ro->addr = core;
	ASSERT_EQ(0, mprotect(ro, page, PROT_READ));
	EXPECT_EQ(-EFAULT, batch_call(fd, &q, ro, 1, ENTRY_SIZE, names, sizeof(names)));
	EXPECT_EQ(-EFAULT, batch_call(fd, &q, e, 1, ENTRY_SIZE, (char *)ro, page));
	EXPECT_EQ(-EFAULT, batch_call(fd, &q, (void *)-4096L, 1, ENTRY_SIZE, names,
				      sizeof(names)));
	/* Arrays that overlap each other or the struct. */
	EXPECT_EQ(-EINVAL, batch_call(fd, &q, e, 4, ENTRY_SIZE, (char *)&e[2], sizeof(names)));
	EXPECT_EQ(-EINVAL, batch_call(fd, &q, e, 4, ENTRY_SIZE, (char *)e, 8));
	one.e.addr = core;
	one.q.size = sizeof(one.q);
	one.q.query_flags = KALLSYMS_QUERY_BY_ADDR_BATCH;
	one.q.sym_name_addr = (unsigned long)names;
	one.q.sym_name_size = sizeof(names);
	one.q.batch_addr = (unsigned long)&one.q.batch_count - 8;
	one.q.batch_count = 1;
	one.q.batch_entry_size = ENTRY_SIZE;
	EXPECT_EQ(-1, ioctl(fd, KALLSYMS_QUERY, &one.q));
	EXPECT_EQ(EINVAL, errno);
	one.q.batch_addr = (unsigned long)&one.e;
	EXPECT_EQ(0, ioctl(fd, KALLSYMS_QUERY, &one.q));
	one.q.sym_name_addr = (unsigned long)&one.q.sym_owner;
	EXPECT_EQ(-1, ioctl(fd, KALLSYMS_QUERY, &one.q));
	EXPECT_EQ(EINVAL, errno);
	/* A name buffer too small for the first name; fine for a batch of misses. */
	EXPECT_EQ(-ENAMETOOLONG, batch_call(fd, &q, e, 1, ENTRY_SIZE, tiny, sizeof(tiny)));
	e[0].addr = 1;
	EXPECT_EQ(0, batch_call(fd, &q, e, 1, ENTRY_SIZE, tiny, sizeof(tiny)));
	EXPECT_EQ(KALLSYMS_SYM_NONE, e[0].kind);
	/* Full after the first entry: one answered, then the second from there. */
	e[0].addr = core;
	ASSERT_EQ(0, kq_query(fd, &q, KALLSYMS_QUERY_BY_SYMBOL, 0, "kallsyms_lookup", NULL, 0));
	e[1].addr = q.sym_addr;
	EXPECT_EQ(0, batch_call(fd, &q, e, 2, ENTRY_SIZE, names, strlen("bpf_user_rnd_u32") + 2));
	EXPECT_EQ(1, q.batch_count);
	EXPECT_EQ(strlen("bpf_user_rnd_u32") + 1, q.sym_name_size);
	EXPECT_EQ(0, batch_call(fd, &q, &e[1], 1, ENTRY_SIZE, names,
				strlen("bpf_user_rnd_u32") + 2));
	EXPECT_EQ(1, q.batch_count);
	EXPECT_STREQ("kallsyms_lookup", names + e[1].name_off);

	/* Non-zero bytes past the known fields of an entry: E2BIG, first entry only. */
	big[0][0] = core;
	big[1][0] = core;
	big[1][7] = 1;
	EXPECT_EQ(-E2BIG, batch_call(fd, &q, big[1], 1, 64, names, sizeof(names)));
	EXPECT_EQ(0, batch_call(fd, &q, big, 2, 64, names, sizeof(names)));
	EXPECT_EQ(1, q.batch_count);
	/* An entry that faults after the first: the call ends before it, the next one fails. */
	munmap(ro, page);
	ro = mmap(NULL, 2 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, ro);
	ASSERT_EQ(0, munmap((char *)ro + page, page));
	last = (void *)((char *)ro + page - ENTRY_SIZE);
	last->addr = core;
	EXPECT_EQ(0, batch_call(fd, &q, last, 2, ENTRY_SIZE, names, sizeof(names)));
	EXPECT_EQ(1, q.batch_count);
	EXPECT_EQ(KALLSYMS_SYM_VMLINUX, last->kind);
	EXPECT_EQ(-EFAULT, batch_call(fd, &q, last + 1, 1, ENTRY_SIZE, names, sizeof(names)));

	/* A struct older than version 2, sym_addr set, batch fields in other modes. */
	batch_call(fd, &q, e, 1, ENTRY_SIZE, names, sizeof(names));
	q.size = KALLSYMS_QUERY_SIZE_VER1;
	EXPECT_EQ(-1, ioctl(fd, KALLSYMS_QUERY, &q));
	EXPECT_EQ(EINVAL, errno);
	batch_call(fd, &q, e, 1, ENTRY_SIZE, names, sizeof(names));
	q.sym_addr = core;
	EXPECT_EQ(-1, ioctl(fd, KALLSYMS_QUERY, &q));
	EXPECT_EQ(EINVAL, errno);
	kq_query(fd, &q, KALLSYMS_QUERY_BY_ADDR, core, NULL, names, sizeof(names));
	q.batch_count = 1;
	EXPECT_EQ(-1, ioctl(fd, KALLSYMS_QUERY, &q));
	EXPECT_EQ(EINVAL, errno);
	memset(&q, 0, sizeof(q));
	q.size = sizeof(q);
	q.query_flags = KALLSYMS_QUERY_GENERATION;
	q.sym_name_size = 1;
	EXPECT_EQ(-1, ioctl(fd, KALLSYMS_QUERY, &q));
	EXPECT_EQ(EINVAL, errno);
	q.size = KALLSYMS_QUERY_SIZE_VER1;
	q.sym_name_size = 0;
	EXPECT_EQ(-1, ioctl(fd, KALLSYMS_QUERY, &q));
	EXPECT_EQ(EINVAL, errno);
	munmap(unmapped, page);
	munmap(ro, page);
	close(fd);
}

/* @n core text symbols in a row with distinct names: their addresses and answers. */
static int text_symbols(int fd, __u64 *addrs, struct answer *a, int n)
{
	FILE *f = fopen("/proc/kallsyms", "r");
	struct kline k;
	int got = 0;

	while (f && got < n && next_kline(f, &k)) {
		if ((k.type != 't' && k.type != 'T') || k.mod[0] || !k.addr ||
		    single(fd, k.addr, &a[got]) || a[got].start != k.addr)
			continue;
		if (got && (a[got].start == a[got - 1].start ||
			    !strcmp(a[got].name, a[got - 1].name)))
			continue;
		addrs[got++] = k.addr;
	}
	if (f)
		fclose(f);
	return got == n ? 0 : -1;
}

/*
 * Whether the entry at @e (@size bytes) answers what @want, a single query of
 * the symbol's first byte, says; @q is the call's, @names its name buffer.
 */
static bool answers(const void *e, size_t size, const struct answer *want,
		    const struct kallsyms_query *q, const char *names)
{
	struct answer got;

	return !read_entry(e, size, want->start, names, q->sym_name_size, &got) &&
	       same(&got, want);
}

/*
 * The kernel reads, answers and writes entries in blocks: whatever stops an
 * entry inside a block (a fault on its strings, on its answer or on its
 * address, bytes it must not have) still answers exactly the entries before
 * it, and the next call from there gets the error.
 */
TEST(what_stops_an_entry_inside_a_block_ends_the_call_there)
{
	size_t page = sysconf(_SC_PAGESIZE), room, untouched = 0;
	struct kallsyms_query_addr ents[12];
	__u64 addrs[12], big[12][8];
	struct answer want[12];
	struct kallsyms_query q;
	char names[8192], *buf;
	int fd = kq_fd();
	void *e;

	ASSERT_EQ(0, text_symbols(fd, addrs, want, 12)) TH_LOG("no 12 text symbols in a row");

	/* Strings: room for three names before an unmapped page, and a byte. */
	buf = mmap(NULL, 2 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, buf);
	ASSERT_EQ(0, munmap(buf + page, page));
	room = strlen(want[0].name) + strlen(want[1].name) + strlen(want[2].name) + 3 + 1;
	fill_entries(ents, ENTRY_SIZE, addrs, 8);
	EXPECT_EQ(0, batch_call(fd, &q, ents, 8, ENTRY_SIZE, buf + page - room, 4096));
	EXPECT_EQ(3, q.batch_count);
	EXPECT_EQ(room - 1, q.sym_name_size);
	for (int i = 0; i < 3; i++) {
		const char *names_at = buf + page - room;

		EXPECT_TRUE(answers(&ents[i], ENTRY_SIZE, &want[i], &q, names_at))
			TH_LOG("entry %d", i);
	}
	for (size_t b = 8; b < ENTRY_SIZE; b++)
		untouched += ((unsigned char *)&ents[3])[b] == ANSWER_FILL;
	EXPECT_EQ(ENTRY_SIZE - 8, untouched) TH_LOG("the fourth entry's fields were written");
	EXPECT_EQ(-EFAULT, batch_call(fd, &q, &ents[3], 5, ENTRY_SIZE, buf + page - 1, 4096));
	ASSERT_EQ(0, munmap(buf, page));

	/* Answers: five entries writable, the sixth's fields cross into a read-only page. */
	buf = mmap(NULL, 2 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, buf);
	e = buf + page - 5 * ENTRY_SIZE - 24;
	fill_entries(e, ENTRY_SIZE, addrs, 8);
	ASSERT_EQ(0, mprotect(buf + page, page, PROT_READ));
	EXPECT_EQ(0, batch_call(fd, &q, e, 8, ENTRY_SIZE, names, sizeof(names)));
	EXPECT_EQ(5, q.batch_count);
	for (int i = 0; i < 8; i++) {
		const struct kallsyms_query_addr *x = (void *)((char *)e + i * ENTRY_SIZE);

		EXPECT_TRUE(i >= 5 || answers(x, ENTRY_SIZE, &want[i], &q, names))
			TH_LOG("entry %d", i);
		EXPECT_EQ(addrs[i], x->addr) TH_LOG("entry %d", i);
	}
	EXPECT_EQ(-EFAULT, batch_call(fd, &q, (char *)e + 5 * ENTRY_SIZE, 3, ENTRY_SIZE, names,
				      sizeof(names)));
	ASSERT_EQ(0, munmap(buf, 2 * page));

	/* The kernel never writes addr: a read-only one with writable fields is answered. */
	buf = mmap(NULL, 2 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, buf);
	e = buf + page - 8;
	fill_entries(e, ENTRY_SIZE, addrs, 4);
	ASSERT_EQ(0, mprotect(buf, page, PROT_READ));
	EXPECT_EQ(0, batch_call(fd, &q, e, 4, ENTRY_SIZE, names, sizeof(names)));
	EXPECT_EQ(4, q.batch_count);
	for (int i = 0; i < 4; i++) {
		const struct kallsyms_query_addr *x = (void *)((char *)e + i * ENTRY_SIZE);

		EXPECT_TRUE(answers(x, ENTRY_SIZE, &want[i], &q, names)) TH_LOG("entry %d", i);
	}

	/* Addresses: the fourth entry unmapped, then the ninth (the second block's first). */
	ASSERT_EQ(0, mprotect(buf, page, PROT_READ | PROT_WRITE));
	ASSERT_EQ(0, munmap(buf + page, page));
	for (int at = 3; at <= 8; at += 5) {
		e = buf + page - at * ENTRY_SIZE;
		fill_entries(e, ENTRY_SIZE, addrs, at);
		EXPECT_EQ(0, batch_call(fd, &q, e, 12, ENTRY_SIZE, names, sizeof(names)));
		EXPECT_EQ(at, q.batch_count);
		EXPECT_TRUE(answers((char *)e + (at - 1) * ENTRY_SIZE, ENTRY_SIZE, &want[at - 1],
				    &q, names));
	}
	ASSERT_EQ(0, munmap(buf, page));

	/* Bytes past the known fields of the fourth and of the tenth 64-byte entry. */
	for (int at = 3; at <= 9; at += 6) {
		fill_entries(big, sizeof(big[0]), addrs, 12);
		big[at][7] = 1;
		EXPECT_EQ(0, batch_call(fd, &q, big, 12, sizeof(big[0]), names, sizeof(names)));
		EXPECT_EQ(at, q.batch_count);
		EXPECT_TRUE(answers(big[at - 1], sizeof(big[0]), &want[at - 1], &q, names));
		EXPECT_EQ(-E2BIG, batch_call(fd, &q, big[at], 12 - at, sizeof(big[0]), names,
					     sizeof(names)));
	}
	close(fd);
}

/* The kernel's room for one block's strings (kernel/kallsyms_query/batch.rs). */
#define BLOCK_NAMES 2048

/*
 * Long names end a block before its eighth entry, when their strings fill
 * the kernel's room for them; the next block starts with the entry that did
 * not fit. Seven core symbols with the longest (distinct) names, whose
 * strings take more than that room, and an eighth entry on an unmapped page:
 * the first block ends early at a long name, having read the fault already,
 * and the call must still answer all seven, as single queries do, before it
 * stops there.
 */
TEST(long_names_end_a_block_early)
{
	size_t page = sysconf(_SC_PAGESIZE), total = 0;
	struct answer want[7], got;
	FILE *f = fopen("/proc/kallsyms", "r");
	char names[8192], *buf;
	struct kallsyms_query q;
	int fd = kq_fd(), n = 0;
	__u64 addrs[7];
	struct kline k;
	void *e;

	/* The seven longest names among core symbols that a single query names alike. */
	while (f && next_kline(f, &k)) {
		struct answer a;
		int at = n;

		if (k.mod[0] || !k.addr || strlen(k.sym) < 200 || single(fd, k.addr, &a) ||
		    strcmp(a.name, k.sym))
			continue;
		/* Distinct names: the kernel writes a repeated name once. */
		for (int i = 0; i < n; i++)
			if (!strcmp(want[i].name, a.name))
				at = -1;
		if (at < 0)
			continue;
		while (at > 0 && strlen(want[at - 1].name) < strlen(a.name))
			at--;
		if (at == 7)
			continue;
		for (int i = (n < 7 ? n : 6); i > at; i--) {
			want[i] = want[i - 1];
			addrs[i] = addrs[i - 1];
		}
		want[at] = a;
		addrs[at] = k.addr;
		n += n < 7;
	}
	if (f)
		fclose(f);
	ASSERT_EQ(7, n) TH_LOG("fewer than seven core names of 200 bytes or more");
	for (int i = 0; i < 7; i++)
		total += strlen(want[i].name) + 1;
	ASSERT_LT(BLOCK_NAMES, total) TH_LOG("seven names take %zu bytes: no block ends early",
					     total);

	buf = mmap(NULL, 2 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, buf);
	ASSERT_EQ(0, munmap(buf + page, page));
	e = buf + page - 7 * ENTRY_SIZE;
	fill_entries(e, ENTRY_SIZE, addrs, 7);
	EXPECT_EQ(0, batch_call(fd, &q, e, 8, ENTRY_SIZE, names, sizeof(names)));
	EXPECT_EQ(7, q.batch_count);
	EXPECT_EQ(total, q.sym_name_size);
	for (int i = 0; i < 7; i++) {
		const char *why = read_entry((char *)e + i * ENTRY_SIZE, ENTRY_SIZE, addrs[i],
					     names, q.sym_name_size, &got);

		EXPECT_EQ(NULL, why) TH_LOG("entry %d: %s", i, why);
		EXPECT_TRUE(same(&want[i], &got)) TH_LOG("entry %d: %s", i, got.name);
	}
	munmap(buf, page);
	close(fd);
}

/* The frame ksym-query prints for @a at @addr: symbol+0xoff/0xsize [owner]. */
static void frame(const struct answer *a, __u64 addr, char *out, size_t size)
{
	snprintf(out, size, "%s+0x%llx/0x%llx [%s]", a->name, addr - a->start, a->size,
		 a->owner[0] ? a->owner : "vmlinux");
}

/*
 * `ksym-query symbolize` names every kernel address in any text (a perf
 * script line, a bpftrace stack) as single queries do, leaves the rest.
 */
TEST(ksym_query_symbolize_names_kernel_addresses_in_text)
{
	char line[1024], want[700], cmd[128], in_path[] = "/tmp/kq_symbolize_XXXXXX";
	char out_path[] = "/tmp/kq_symbolize_XXXXXX";
	__u64 addrs[3], core;
	struct kallsyms_query q;
	struct answer a;
	struct scene s;
	FILE *in, *out;
	int fd = kq_fd(), i;

	if (!have_tool("ksym-query"))
		SKIP(return, "ksym-query (tools/ksym-query) not on $PATH");
	ASSERT_EQ(0, set_scene(&s));
	ASSERT_EQ(0, kq_query(fd, &q, KALLSYMS_QUERY_BY_SYMBOL, 0, "bpf_user_rnd_u32", NULL, 0));
	core = q.sym_addr;
	addrs[0] = core + 4;
	addrs[1] = s.with_sub.addr[0] + 8;
	addrs[2] = s.with_sub.addr[1] + 2;
	in = fdopen(mkstemp(in_path), "w");
	ASSERT_NE(NULL, in);
	ASSERT_LE(0, close(mkstemp(out_path)));
	/* perf script, bpftrace, and a user address that must stay as it is. */
	fprintf(in, "\t%llx unknown ([kernel.kallsyms])\n", addrs[0]);
	fprintf(in, "        %#llx\n        %#llx\n", addrs[1], addrs[2]);
	fprintf(in, "\t7f0000001000 main (/usr/bin/x)\n");
	fclose(in);
	snprintf(cmd, sizeof(cmd), "ksym-query symbolize -v <%s >%s", in_path, out_path);
	ASSERT_EQ(0, system(cmd));
	out = fopen(out_path, "r");
	ASSERT_NE(NULL, out);
	for (i = 0; i < 3; i++) {
		ASSERT_NE(NULL, fgets(line, sizeof(line), out));
		ASSERT_EQ(0, single(fd, addrs[i], &a));
		frame(&a, addrs[i], want, sizeof(want));
		EXPECT_NE(NULL, strstr(line, want)) TH_LOG("'%s' lacks '%s'", line, want);
		if (i) {
			snprintf(want, sizeof(want), "<%s id=%u subprog=%d>",
				 i == 1 ? "bpf_prog" : "bpf_subprog", s.with_sub_id, i - 1);
			EXPECT_NE(NULL, strstr(line, want)) TH_LOG("'%s' lacks '%s'", line, want);
		}
	}
	ASSERT_NE(NULL, fgets(line, sizeof(line), out));
	EXPECT_STREQ("\t7f0000001000 main (/usr/bin/x)\n", line);
	fclose(out);
	unlink(in_path);
	unlink(out_path);
	clear_scene(&s);
	close(fd);
}

TEST_HARNESS_MAIN
