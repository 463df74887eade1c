// SPDX-License-Identifier: GPL-2.0
/*
 * A fuzzer for KALLSYMS_QUERY.
 *
 *   kallsyms_query_fuzz_test                   the kselftests: replay the corpus
 *                                              next to the binary, then 20,000 new inputs
 *   kallsyms_query_fuzz_test fuzz <count> <seed>
 *   kallsyms_query_fuzz_test replay <corpus>
 *
 * Each input is a struct fuzz_case: where the query struct lives (plain
 * memory, read-only, unmapped, straddling the end of a mapping, NULL, a
 * kernel address), its size and flags, the name (a real symbol, empty, too
 * long, without a terminator before an unmapped page, ...), the name buffer
 * of BY_ADDR (size, read-only, unmapped, partially mapped) and the address
 * (core, BPF, module-less gaps, random). BY_ADDR_BATCH reuses the fields: the
 * name kind places the array of entries (also over the name buffer or the
 * struct), name_size counts them, pad[0] sizes them, and the address kind
 * picks their addresses. Half the inputs are such structured choices, half raw
 * random bytes through the same decoder.
 *
 * Every answer must be 0 or one of the documented errnos, and a success must
 * be well formed (a NUL-terminated name that fits, an address where asked).
 * "fuzz" prints one line per new (flags class, placement, errno) outcome as
 * "CORPUS <hex> <errno>", lines to keep in kallsyms_query.corpus, which the
 * kselftest replays; "replay" runs a corpus and checks that every input still
 * gets its errno (0 and ENOENT may trade places: they depend on the kernel's
 * layout). Output ends with
 * "FUZZ inputs=<n> wrong=<w> outcomes=<o>"; exit status 1 if wrong > 0.
 *
 * With FUZZ_FAULTS=1 (make test-faults) the fuzzer asks for injected faults
 * (/proc/self/make-it-fail) after its setup: a batch may then also fail with
 * ENOMEM, which its documentation lists; such outcomes are counted
 * ("# FUZZ enomem=<n>"), not kept in the corpus.
 */
#include <fcntl.h>
#include <stdint.h>
#include <sys/ioctl.h>
#include <sys/mman.h>

#include "kselftest_harness.h"
#include "ksym_util.h"

#define PAGE 4096

struct fuzz_case {
	uint8_t where;		/* WHERE_* for the struct */
	uint8_t name_kind;	/* NAME_* (BY_SYMBOL) */
	uint8_t buf_kind;	/* BUF_* (BY_ADDR output) */
	uint8_t addr_kind;	/* ADDR_* */
	uint8_t extra;		/* bytes past the struct we know: 0 zero, else that value */
	uint8_t pad[3];		/* pad[0]: a batch's entry size; pad[1]: see version_len() */
	uint32_t size;
	uint32_t name_size;
	uint64_t flags;
	uint64_t addr;		/* random part of the address */
} __attribute__((packed));

enum {
	WHERE_PLAIN, WHERE_RDONLY, WHERE_UNMAPPED, WHERE_STRADDLE, WHERE_NULL, WHERE_KERNEL,
	WHERE_N
};

enum {
	NAME_CORE, NAME_EMPTY, NAME_511, NAME_512, NAME_4K, NAME_NO_NUL_AT_PAGE_END,
	NAME_UNMAPPED, NAME_NULL, NAME_KERNEL, NAME_MISSING, NAME_N
};

enum {
	BUF_PLAIN, BUF_SHORT, BUF_ZERO, BUF_RDONLY, BUF_UNMAPPED, BUF_STRADDLE, BUF_NULL,
	BUF_KERNEL, BUF_N
};

enum { ADDR_CORE, ADDR_BPF, ADDR_BPF_END, ADDR_ZERO, ADDR_MAX, ADDR_RANDOM, ADDR_N };

/* Where a batch's entries are, from name_kind. */
enum {
	ENT_PLAIN, ENT_RDONLY = 4, ENT_UNMAPPED, ENT_OVER_NAMES, ENT_OVER_STRUCT, ENT_NULL,
	ENT_KERNEL, ENT_N
};

/* At most this many entries of at most 255 bytes fit in the struct page past the struct. */
#define BATCH_FIT 12
#define ENTRIES_OFF 1024
/* The answer fields of an entry, after its address. */
#define ENTRY_ANSWER (KALLSYMS_QUERY_ADDR_SIZE_VER0 - 8)

/* Not EPERM: the fuzzer runs as root, to whom addresses are visible. */
static const int documented[] = { 0, EINVAL, E2BIG, EFAULT, ENAMETOOLONG, ENOENT, EADDRNOTAVAIL };

/*
 * Memory the decoder places things in, one page each:
 * STRUCT_RW holds the struct; NAMES holds names and output buffers; TEXT_RO is
 * read-only and full of 'x' (no NUL) up to GAP_A, which is unmapped;
 * STRUCT_RO holds the struct read-only, up to GAP_B, also unmapped.
 */
enum { STRUCT_RW, NAMES, TEXT_RO, GAP_A, STRUCT_RO, GAP_B, PAGES };
static char *arena;
#define AT(page) (arena + (page) * PAGE)
static unsigned long long core_addr, bpf_addr;
static unsigned int bpf_len;
static int kfd;
static bool faults;
static long enomem;

static void setup(void)
{
	struct prog_syms ps;
	FILE *f;
	struct kline k;
	int fd;

	arena = mmap(NULL, PAGES * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
		     -1, 0);
	if (arena != MAP_FAILED)
		memset(AT(TEXT_RO), 'x', PAGE);
	if (arena == MAP_FAILED || mprotect(AT(TEXT_RO), PAGE, PROT_READ) ||
	    mprotect(AT(GAP_A), PAGE, PROT_NONE) || mprotect(AT(GAP_B), PAGE, PROT_NONE)) {
		perror("fuzz: arena");
		exit(2);
	}
	kfd = open("/proc/kallsyms", O_RDONLY);
	f = fopen("/proc/kallsyms", "r");
	while (f && next_kline(f, &k))
		if (!strcmp(k.sym, "bpf_user_rnd_u32"))
			core_addr = k.addr;
	if (f)
		fclose(f);
	fd = load_tiny_prog("fuzz_target");
	if (kfd < 0 || !core_addr || fd < 0 || prog_syms(fd, &ps)) {
		fprintf(stderr, "fuzz: %s needs root, /proc/kallsyms and BPF\n", __func__);
		exit(2);
	}
	bpf_addr = ps.addr[0];
	bpf_len = ps.len[0];
	/* fd stays open: the program stays loaded for the whole run. */
}

/* Put a name of kind @kind in place; returns the pointer to pass. */
static uint64_t place_name(int kind)
{
	static char big[8192];
	char *rw = AT(NAMES);

	switch (kind) {
	case NAME_CORE:
		snprintf(rw, PAGE, "%s", "bpf_user_rnd_u32");
		return (uintptr_t)rw;
	case NAME_EMPTY:
		rw[0] = 0;
		return (uintptr_t)rw;
	case NAME_511:
	case NAME_512:
	case NAME_4K: {
		size_t n = kind == NAME_511 ? 511 : kind == NAME_512 ? 512 : 4096;

		memset(big, 'a', n);
		big[n] = 0;
		return (uintptr_t)big;
	}
	case NAME_NO_NUL_AT_PAGE_END:
		/* 16 bytes of 'x', then an unmapped page. */
		return (uintptr_t)(AT(GAP_A) - 16);
	case NAME_UNMAPPED:
		return (uintptr_t)AT(GAP_A);
	case NAME_NULL:
		return 0;
	case NAME_KERNEL:
		return core_addr;
	default:
		snprintf(rw, PAGE, "%s", "no_such_symbol_anywhere_42");
		return (uintptr_t)rw;
	}
}

static uint64_t place_buf(int kind, uint32_t *size)
{
	char *buf = AT(NAMES) + 1024;

	switch (kind) {
	case BUF_PLAIN:
		*size = 1024;
		return (uintptr_t)buf;
	case BUF_SHORT:
		*size = 1 + *size % 24;
		return (uintptr_t)buf;
	case BUF_ZERO:
		*size = 0;
		return (uintptr_t)buf;
	case BUF_RDONLY:
		return (uintptr_t)AT(TEXT_RO);
	case BUF_UNMAPPED:
		return (uintptr_t)AT(GAP_A);
	case BUF_STRADDLE:
		/* 8 writable bytes, then the read-only page. */
		return (uintptr_t)(AT(TEXT_RO) - 8);
	case BUF_NULL:
		return 0;
	default:
		return core_addr;
	}
}

static uint64_t pick_addr(int kind, uint64_t r)
{
	switch (kind) {
	case ADDR_CORE:
		return core_addr + r % 64;
	case ADDR_BPF:
		return bpf_addr + r % (bpf_len ?: 1);
	case ADDR_BPF_END:
		return bpf_addr + bpf_len + r % 3 - 1;
	case ADDR_ZERO:
		return 0;
	case ADDR_MAX:
		return ~0ull - r % 4096;
	default:
		return r;
	}
}

/* Where the struct is placed: read-only, 40 bytes before a hole, or plain. */
static void *struct_at(int where)
{
	return where == WHERE_RDONLY ? AT(STRUCT_RO) :
	       where == WHERE_STRADDLE ? AT(GAP_B) - 40 : AT(STRUCT_RW);
}

/* The array of a batch's entries, of kind @kind, for the struct at @uq. */
static uint64_t place_entries(int kind, void *uq, uint64_t names)
{
	switch (kind) {
	case ENT_RDONLY:
		return (uintptr_t)AT(TEXT_RO);
	case ENT_UNMAPPED:
		return (uintptr_t)AT(GAP_A);
	case ENT_OVER_NAMES:
		return names;
	case ENT_OVER_STRUCT:
		return (uintptr_t)uq + 8;
	case ENT_NULL:
		return 0;
	case ENT_KERNEL:
		return core_addr;
	default:
		return (uintptr_t)AT(STRUCT_RW) + ENTRIES_OFF;
	}
}

/* pad[0]: the usual sizes, with and without bytes we do not know, or raw. */
static uint32_t entry_size(uint8_t pad)
{
	static const uint32_t usual[] = { 48, 56, 64 };

	return pad % 4 < 3 ? usual[pad % 4] : pad;
}

/* name_size: a few entries, or a raw count (0, over the maximum) one time in 8. */
static uint32_t entry_count(uint32_t name_size)
{
	return (name_size >> 16) % 8 ? name_size % (BATCH_FIT + 1) : name_size;
}

/* Bytes the kernel must not write: the rest of NAMES, the page of output buffers. */
#define CANARY 0xa5

static bool untouched(const char *p, size_t n)
{
	while (n--)
		if ((unsigned char)*p++ != CANARY)
			return false;
	return true;
}

/* What is wrong with a successful batch @q of @c, or NULL. */
static const char *judge_batch(const struct fuzz_case *c, const struct kallsyms_query *q,
			       uint32_t namesz)
{
	const char *names = (const char *)(uintptr_t)q->sym_name_addr;
	uint32_t esize = entry_size(c->pad[0]), want = entry_count(c->name_size);
	int kind = c->buf_kind % BUF_N;
	bool usable_names = kind == BUF_PLAIN || kind == BUF_SHORT || kind == BUF_STRADDLE;
	/* Entries this decoder laid out, whose every byte it knows. */
	bool laid_out = want <= BATCH_FIT && esize <= 255 &&
			esize >= KALLSYMS_QUERY_ADDR_SIZE_VER0 && !(esize % 8);
	bool named = false;

	if (q->size < KALLSYMS_QUERY_SIZE_VER2)
		return "batch success with a struct older than version 2";
	if (c->name_kind % ENT_N >= ENT_RDONLY)
		return "batch success with entries that are unusable or overlap";
	if (!q->batch_count || q->batch_count > want || q->sym_name_size > namesz)
		return "batch answered no entry, more than asked, or more bytes than the buffer";
	for (uint32_t i = 0; laid_out && i < want; i++) {
		const struct kallsyms_query_addr *e =
			(const void *)(AT(STRUCT_RW) + ENTRIES_OFF + i * esize);

		if (e->addr != pick_addr((c->addr_kind + i) % ADDR_N, c->addr + i))
			return "batch changed an entry's address";
		if (i >= q->batch_count) {
			if (!untouched((const char *)e + 8, ENTRY_ANSWER))
				return "batch wrote an entry it did not answer";
			continue;
		}
		if (e->kind > KALLSYMS_SYM_MODULE_INIT)
			return "batch entry of an unknown kind";
		if (e->kind == KALLSYMS_SYM_NONE) {
			if (e->start || e->size || e->prog_id || e->name_off || e->owner_off ||
			    e->subprog)
				return "batch entry without a symbol has non-zero fields";
			continue;
		}
		named = true;
		if (!usable_names)
			return "batch named a symbol into an unusable buffer";
		if (e->name_off >= q->sym_name_size || e->owner_off >= q->sym_name_size ||
		    !memchr(names + e->name_off, 0, q->sym_name_size - e->name_off) ||
		    !memchr(names + e->owner_off, 0, q->sym_name_size - e->owner_off))
			return "batch name or owner outside the bytes written";
		if (e->start > e->addr || e->addr > e->start + e->size)
			return "batch range does not hold the address";
	}
	if (laid_out && !named && q->sym_name_size)
		return "batch wrote names without naming a symbol";
	if ((kind == BUF_PLAIN || kind == BUF_SHORT) &&
	    !untouched(names + q->sym_name_size, namesz - q->sym_name_size))
		return "batch wrote past the names it returned";
	return NULL;
}

struct outcome {
	int err;
	int wrong;	/* 1 if the answer breaks the documented contract */
	const char *why;
};

/* Decode @c, make the call, judge the answer. */
/*
 * The fields a struct of @size bytes has: those of the newest version not
 * larger. The bytes from there to @size must be zero (E2BIG otherwise): a
 * non-zero pad[1] fills them.
 */
static size_t version_len(size_t size)
{
	if (size >= KALLSYMS_QUERY_SIZE_VER2)
		return KALLSYMS_QUERY_SIZE_VER2;
	if (size >= KALLSYMS_QUERY_SIZE_VER1)
		return KALLSYMS_QUERY_SIZE_VER1;
	return KALLSYMS_QUERY_SIZE_VER0;
}

static struct outcome run_case(const struct fuzz_case *cin)
{
	struct fuzz_case c = *cin;
	struct kallsyms_query q = {}, *uq;
	struct outcome o = { 0, 0, "" };
	unsigned char *p;
	uint32_t size = c.size, namesz = c.name_size;
	int where = c.where % WHERE_N, i;
	unsigned long arg;
	size_t room, span;
	unsigned char before[sizeof(q) + 256];

	memset(AT(STRUCT_RW), 0, PAGE);
	memset(AT(NAMES), CANARY, PAGE);	/* what the kernel may not write stays CANARY */
	mprotect(AT(STRUCT_RO), PAGE, PROT_READ | PROT_WRITE);
	memset(AT(STRUCT_RO), 0, PAGE);
	q.size = size;
	q.query_flags = c.flags;
	if (c.flags == KALLSYMS_QUERY_BY_ADDR_BATCH) {
		uint32_t count = entry_count(c.name_size), esize = entry_size(c.pad[0]);
		int ekind = c.name_kind % ENT_N;

		q.sym_name_addr = place_buf(c.buf_kind % BUF_N, &namesz);
		q.sym_name_size = namesz;
		q.batch_count = count;
		q.batch_entry_size = esize;
		/* Each entry: its address, answer fields the kernel must write, a zero tail. */
		if (ekind < ENT_RDONLY && count <= BATCH_FIT && esize <= 255) {
			for (uint32_t e = 0; e < count; e++) {
				char *ent = AT(STRUCT_RW) + ENTRIES_OFF + e * esize;

				*(uint64_t *)ent = pick_addr((c.addr_kind + e) % ADDR_N,
							     c.addr + e);
				memset(ent + 8, CANARY, ENTRY_ANSWER);
			}
		}
		/* Where the struct will be: the entries may be placed over it. */
		q.batch_addr = place_entries(ekind, struct_at(where), q.sym_name_addr);
	} else if (c.flags & KALLSYMS_QUERY_BY_ADDR) {
		q.sym_addr = pick_addr(c.addr_kind % ADDR_N, c.addr);
		q.sym_name_addr = place_buf(c.buf_kind % BUF_N, &namesz);
		q.sym_name_size = namesz;
	} else {
		q.sym_name_addr = place_name(c.name_kind % NAME_N);
		if (c.addr_kind & 0x80)	/* BY_SYMBOL with fields that must be zero */
			q.sym_addr = c.addr;
		if (c.buf_kind & 0x80)
			q.sym_name_size = namesz;
	}
	if (c.pad[1] && size > version_len(size))
		memset((char *)&q + version_len(size), c.pad[1],
		       (size < sizeof(q) ? size : sizeof(q)) - version_len(size));
	/*
	 * The struct, then 256 bytes of @extra (what a newer caller's fields
	 * would be), then zeroes: read-only, or 40 bytes before a hole.
	 */
	uq = struct_at(where);
	p = (unsigned char *)uq;
	room = (size_t)(AT(where == WHERE_PLAIN ? NAMES : GAP_B) - (char *)p);
	memcpy(p, &q, room < sizeof(q) ? room : sizeof(q));
	if (room > sizeof(q))
		memset(p + sizeof(q), c.extra, room - sizeof(q) < 256 ? room - sizeof(q) : 256);
	mprotect(AT(STRUCT_RO), PAGE, PROT_READ);
	span = room < sizeof(before) ? room : sizeof(before);
	memcpy(before, p, span);
	arg = where == WHERE_UNMAPPED ? (unsigned long)AT(GAP_A) :
	      where == WHERE_NULL ? 0 : where == WHERE_KERNEL ? core_addr : (unsigned long)uq;
	o.err = ioctl(kfd, KALLSYMS_QUERY, arg) ? errno : 0;
	/* A batch's working memory, which injected faults make unavailable. */
	if (faults && o.err == ENOMEM && c.flags == KALLSYMS_QUERY_BY_ADDR_BATCH) {
		enomem++;
		return o;
	}

	for (i = 0; i < (int)ARRAY_SIZE(documented); i++)
		if (o.err == documented[i])
			break;
	if (i == ARRAY_SIZE(documented)) {
		o.wrong = 1;
		o.why = "undocumented errno";
		return o;
	}
	if (o.err)
		return o;
	/* A success: the struct must have been fully readable and writable, and sane. */
	if (where != WHERE_PLAIN) {
		o.wrong = 1;
		o.why = "success with an unreadable or unwritable struct";
		return o;
	}
	memcpy(&q, uq, sizeof(q));
	for (i = size; i < (int)span; i++)
		if (p[i] != before[i]) {
			o.wrong = 1;
			o.why = "a success wrote past the struct's size";
			return o;
		}
	for (i = version_len(size); i < (int)size && i < (int)span; i++)
		if (before[i]) {
			o.wrong = 1;
			o.why = "success with non-zero bytes past the caller's version's fields";
			return o;
		}
	if (size < KALLSYMS_QUERY_SIZE_VER0) {
		o.wrong = 1;
		o.why = "success with a size under 40";
	} else if (q.query_flags == KALLSYMS_QUERY_BY_SYMBOL) {
		if (q.sym_addr != core_addr) {
			o.wrong = 1;
			o.why = "BY_SYMBOL answered a wrong address";
		}
	} else if (q.query_flags == KALLSYMS_QUERY_BY_ADDR) {
		const char *name = (const char *)(uintptr_t)q.sym_name_addr;
		int kind = c.buf_kind % BUF_N;

		if (kind != BUF_PLAIN && kind != BUF_SHORT && kind != BUF_STRADDLE) {
			/* Before touching @name: it may be unmapped or the kernel's. */
			o.wrong = 1;
			o.why = "BY_ADDR success with an unusable output buffer";
		} else if (!q.sym_name_size || q.sym_name_size > namesz ||
		    strnlen(name, q.sym_name_size) != q.sym_name_size - 1) {
			o.wrong = 1;
			o.why = "BY_ADDR name not NUL-terminated at sym_name_size - 1";
		} else if (size >= KALLSYMS_QUERY_SIZE_VER1 &&
			   (q.sym_start > q.sym_addr || q.sym_addr > q.sym_start + q.sym_size)) {
			o.wrong = 1;
			o.why = "BY_ADDR range does not hold the address";
		} else if (kind != BUF_STRADDLE &&
			   !untouched(name + q.sym_name_size, namesz - q.sym_name_size + 64)) {
			o.wrong = 1;
			o.why = "BY_ADDR wrote past the name it returned";
		}
	} else if (q.query_flags == KALLSYMS_QUERY_BY_ADDR_BATCH) {
		o.why = judge_batch(&c, &q, namesz);
		o.wrong = !!o.why;
	} else if (q.query_flags == KALLSYMS_QUERY_GENERATION) {
		if (size < KALLSYMS_QUERY_SIZE_VER2) {
			o.wrong = 1;
			o.why = "GENERATION success with a struct older than version 2";
		}
	} else {
		o.wrong = 1;
		o.why = "success with invalid flags";
	}
	return o;
}

static uint64_t rng = 0x2545f4914f6cdd1dull;

static uint64_t next(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static void structured(struct fuzz_case *c)
{
	static const uint32_t sizes[] = { 0, 1, 8, 39, 40, 41, 64, 111, 112, 113, 119, 120, 121,
					   4095, 4096, 4097, 1 << 20, 152, 159, 160, 161, 160,
					   128, 136, 144 };
	static const uint64_t flags[] = { KALLSYMS_QUERY_BY_SYMBOL, KALLSYMS_QUERY_BY_ADDR,
					   KALLSYMS_QUERY_BY_SYMBOL | KALLSYMS_QUERY_BY_ADDR, 0,
					   0x10, 1ull << 63, KALLSYMS_QUERY_BY_ADDR_BATCH,
					   KALLSYMS_QUERY_GENERATION,
					   KALLSYMS_QUERY_BY_ADDR_BATCH | KALLSYMS_QUERY_BY_ADDR };
	/* BY_SYMBOL, BY_ADDR, BY_ADDR_BATCH in flags[] */
	static const int modes[] = { 0, 1, 6 };
	uint64_t r = next();

	memset(c, 0, sizeof(*c));
	c->where = r % 8 < 5 ? WHERE_PLAIN : (r >> 3) % WHERE_N;
	c->name_kind = (r >> 8) % NAME_N | ((r >> 60) & 1 ? 0x80 : 0);
	c->buf_kind = (r >> 16) % BUF_N | ((r >> 61) & 1 ? 0x80 : 0);
	c->addr_kind = (r >> 24) % ADDR_N | ((r >> 62) & 1 ? 0x80 : 0);
	c->extra = (r >> 32) % 4 ? 0 : (uint8_t)(r >> 40);
	c->size = sizes[(r >> 44) % ARRAY_SIZE(sizes)];
	c->name_size = (r >> 48) % 3 ? 512 : (uint32_t)next();
	/* Mostly the modes with arguments, then any. */
	c->flags = flags[(r >> 52) % 8 < 6 ? modes[(r >> 52) % 3] : (r >> 55) % ARRAY_SIZE(flags)];
	c->pad[0] = (uint8_t)next();
	c->pad[1] = (r >> 58) % 4 ? 0 : (uint8_t)(r >> 8) | 1;
	c->addr = next();
}

static void to_hex(const struct fuzz_case *c, char *out)
{
	const unsigned char *b = (const void *)c;
	size_t i;

	for (i = 0; i < sizeof(*c); i++)
		sprintf(out + 2 * i, "%02x", b[i]);
}

static int from_hex(const char *s, struct fuzz_case *c)
{
	unsigned char *b = (void *)c;
	size_t i;
	unsigned int v;

	for (i = 0; i < sizeof(*c); i++) {
		if (sscanf(s + 2 * i, "%2x", &v) != 1)
			return -1;
		b[i] = v;
	}
	return 0;
}

static int fuzz(long count, uint64_t seed, bool print_corpus)
{
	static unsigned char seen[6][WHERE_N][160];
	struct fuzz_case c;
	char hex[2 * sizeof(c) + 1];
	long i, wrong = 0, outcomes = 0;

	rng ^= seed * 0x9e3779b97f4a7c15ull;
	for (i = 0; i < count; i++) {
		struct outcome o;
		int cls;

		if (i & 1) {
			structured(&c);
		} else {
			uint64_t w[4] = { next(), next(), next(), next() };

			memcpy(&c, w, sizeof(c));
		}
		o = run_case(&c);
		to_hex(&c, hex);
		if (o.wrong) {
			if (wrong++ < 20)
				printf("WRONG %s errno=%d: %s\n", hex, o.err, o.why);
			continue;
		}
		if (faults && o.err == ENOMEM)
			continue;
		cls = c.flags == KALLSYMS_QUERY_BY_SYMBOL ? 0 :
		      c.flags == KALLSYMS_QUERY_BY_ADDR ? 1 :
		      c.flags == KALLSYMS_QUERY_BY_ADDR_BATCH ? 4 :
		      c.flags == KALLSYMS_QUERY_GENERATION ? 5 : c.flags ? 2 : 3;
		if (!seen[cls][c.where % WHERE_N][o.err]) {
			seen[cls][c.where % WHERE_N][o.err] = 1;
			outcomes++;
			if (print_corpus)
				printf("CORPUS %s %d\n", hex, o.err);
		}
	}
	if (faults)
		printf("# FUZZ enomem=%ld\n", enomem);
	printf("FUZZ inputs=%ld wrong=%ld outcomes=%ld\n", count, wrong, outcomes);
	return wrong ? 1 : 0;
}

/* FUZZ_FAULTS=1: from now on this process's allocations and user copies may fail. */
static void fail_here(void)
{
	int fd;

	faults = getenv("FUZZ_FAULTS") && atoi(getenv("FUZZ_FAULTS"));
	if (!faults)
		return;
	fd = open("/proc/self/make-it-fail", O_WRONLY);
	if (fd < 0 || write(fd, "1", 1) != 1) {
		perror("fuzz: make-it-fail");
		exit(2);
	}
	close(fd);
}

static int replay(const char *path)
{
	FILE *f = fopen(path, "r");
	char line[512], hex[256];
	long inputs = 0, wrong = 0;
	struct fuzz_case c;
	int want;

	if (!f) {
		perror(path);
		return 2;
	}
	while (fgets(line, sizeof(line), f)) {
		struct outcome o;

		if (sscanf(line, "CORPUS %255s %d", hex, &want) != 2 || from_hex(hex, &c))
			continue;
		inputs++;
		o = run_case(&c);
		if (!o.wrong && o.err != want &&
		    !((o.err == 0 || o.err == ENOENT) && (want == 0 || want == ENOENT))) {
			o.wrong = 1;
			o.why = "errno changed";
		}
		if (o.wrong) {
			wrong++;
			printf("WRONG %s errno=%d (corpus says %d): %s\n", hex, o.err, want, o.why);
		}
	}
	fclose(f);
	printf("FUZZ inputs=%ld wrong=%ld outcomes=%ld\n", inputs, wrong, inputs);
	return wrong || !inputs ? 1 : 0;
}

/* Every kept input still gets its errno (the regression corpus). */
TEST(replay_corpus)
{
	setup();
	ASSERT_EQ(0, replay(test_file("kallsyms_query.corpus")));
}

/* 20,000 new inputs, half structured: only documented errnos, well-formed answers. */
TEST(fuzz_20000_inputs)
{
	setup();
	ASSERT_EQ(0, fuzz(20000, 1, false));
}

int main(int argc, char **argv)
{
	if (argc == 4 && !strcmp(argv[1], "fuzz")) {
		setup();
		fail_here();
		return fuzz(atol(argv[2]), strtoull(argv[3], NULL, 0), true);
	}
	if (argc == 3 && !strcmp(argv[1], "replay")) {
		setup();
		return replay(argv[2]);
	}
	return test_harness_run(argc, argv);
}
