// SPDX-License-Identifier: GPL-2.0
/*
 * KALLSYMS_QUERY, /proc/kallsyms, iter/ksym, BPF program loads and trampoline
 * attaches when the kernel fails under them: make test-faults runs it on a
 * kernel with fault injection (config/faults.config). Not a kselftest of the
 * default run: on other kernels it has nothing to inject with, and exits 4.
 *
 * Each operation runs again and again with /proc/thread-self/fail-nth set to
 * N = 1, 2, 3, ...: the N-th fault point the thread reaches fails (a slab or
 * a page allocation, a copy from or to user memory), until the operation
 * reaches fewer than N points and runs whole. /proc/kallsyms and iter/ksym,
 * which reach thousands of points in one read, are sampled: every N up to
 * 64, then one in about eight. For each run it checks what the user would
 * see:
 *
 * - KALLSYMS_QUERY: a failed call returns an errno its documentation lists
 *   for a failing kernel (EFAULT, and ENOMEM for a batch) and writes nothing
 *   to the argument; a call that succeeds answers exactly as without faults.
 *   A batch that stops part way answers a prefix: the count it returns is
 *   the entries fully written, each right, the entries after them byte for
 *   byte as they were (filled with a pattern first); continuing from there
 *   answers the rest. A failed batch leaves its entries untouched but for
 *   the case the header documents (the argument could not be written back).
 * - /proc/kallsyms and iter/ksym: a read that fails returns EFAULT or
 *   ENOMEM after text that is a prefix of the whole; /proc/kallsyms then
 *   goes on from where it stopped, and the text read in all is the whole.
 * - BPF program loads (a program with a subprogram) and fentry attaches: a
 *   load or attach that fails leaves no symbol behind, whether or not it was
 *   shown meanwhile: not in /proc/kallsyms, not in iter/ksym, not to
 *   BY_ADDR of the addresses perf's ksymbol events gave for it; the
 *   generation then moved by a multiple of 4 (each symbol shown was added
 *   and removed), and moved if a symbol was shown. One that succeeds despite
 *   the fault has its symbols (none if its JIT failed and the interpreter
 *   runs it), which go when it is closed.
 *
 * Then, for STRESS seconds (FAULTS_STRESS_SECONDS, default 60), the stress
 * test and the KALLSYMS_QUERY fuzzer run side by side with every slab
 * allocation, kernel page allocation and user copy of their tasks failing
 * with a probability of PERCENT percent (their STRESS_FAULTS and FUZZ_FAULTS
 * modes count such failures and check every answer given); both must pass.
 *
 * Output: a line per operation, "# WRONG ..." for each wrong answer, and
 * "FAULTS injected failslab=<n> fail_page_alloc=<n> fail_usercopy=<n>
 * calls_failed=<n> checked=<n> wrong=<n>"; exit status 1 if wrong > 0.
 */
#include <linux/perf_event.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>

#include "ksym_util.h"

#define DEBUGFS "/sys/kernel/debug/"
/* A fault kind's budget: the count it goes down from is how many it injected. */
#define TIMES 1000000000L
#define CORE_SYM "bpf_user_rnd_u32"
#define NAMES_LEN (KALLSYMS_QUERY_NAME_LEN + 64)
#define BATCH 40
#define PATTERN 0xa5

static const char *const kinds[] = { "failslab", "fail_page_alloc", "fail_usercopy" };
#define KINDS 3

static long wrong, checked, calls_failed;
static int nth_fd, kfd;

static void bad(const char *fmt, ...)
{
	va_list ap;

	if (wrong++ >= 30)
		return;
	printf("# WRONG ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
}

/* @ok counted as a check; a wrong answer when it is false. */
#define CHECK(ok, fmt, ...)							\
	do {									\
		checked++;							\
		if (!(ok))							\
			bad(fmt, ##__VA_ARGS__);				\
	} while (0)

static int write_knob(const char *kind, const char *knob, const char *val)
{
	char path[256];
	int fd, n;

	snprintf(path, sizeof(path), DEBUGFS "%s/%s", kind, knob);
	fd = open(path, O_WRONLY);
	if (fd < 0)
		return -errno;
	n = write(fd, val, strlen(val));
	close(fd);
	return n < 0 ? -errno : 0;
}

static long read_knob(const char *kind, const char *knob)
{
	char path[256], buf[32] = "";
	int fd;

	snprintf(path, sizeof(path), DEBUGFS "%s/%s", kind, knob);
	fd = open(path, O_RDONLY);
	if (fd < 0 || read(fd, buf, sizeof(buf) - 1) < 0)
		buf[0] = 0;
	if (fd >= 0)
		close(fd);
	return buf[0] ? strtol(buf, NULL, 10) : -1;
}

/*
 * Probability 0: nothing fails but at the N of fail-nth, in this thread.
 * Allocations that may sleep and order-0 pages fail too (by default fault
 * injection leaves them alone).
 */
static int setup_kinds(void)
{
	char times[32];
	int i, err = 0;

	snprintf(times, sizeof(times), "%ld", TIMES);
	for (i = 0; i < KINDS; i++) {
		err |= write_knob(kinds[i], "probability", "0");
		err |= write_knob(kinds[i], "times", times);
		err |= write_knob(kinds[i], "verbose", "0");
		err |= write_knob(kinds[i], "interval", "1");
		err |= write_knob(kinds[i], "space", "0");
	}
	err |= write_knob("failslab", "ignore-gfp-wait", "N");
	err |= write_knob("fail_page_alloc", "ignore-gfp-wait", "N");
	err |= write_knob("fail_page_alloc", "ignore-gfp-highmem", "N");
	err |= write_knob("fail_page_alloc", "min-order", "0");
	return err;
}

static long injected(int kind)
{
	return TIMES - read_knob(kinds[kind], "times");
}

/* The N-th fault point this thread reaches from now on fails. */
static void arm(unsigned int n)
{
	char buf[16];
	int len = snprintf(buf, sizeof(buf), "%u", n);

	if (pwrite(nth_fd, buf, len, 0) != len)
		bad("fail-nth: cannot write %u: %s", n, strerror(errno));
}

/*
 * Whether the armed fault was injected; disarms. Reading the file is a fault
 * point too: an EFAULT there means the fault was still pending.
 */
static bool disarm(void)
{
	char buf[16] = "";
	ssize_t n = pread(nth_fd, buf, sizeof(buf) - 1, 0);

	/*
	 * If the read found the fault pending, its copy counted one point and the
	 * write's copy may be the N-th: EFAULT then, with the count at 0 as well.
	 */
	if (pwrite(nth_fd, "0", 1, 0) != 1 && (errno != EFAULT || pwrite(nth_fd, "0", 1, 0) != 1))
		bad("fail-nth: cannot reset: %s", strerror(errno));
	return n > 0 && buf[0] == '0';
}

/* The next N to try after @n: all up to 64, then one in about eight. */
static unsigned int next_n(unsigned int n, bool sampled)
{
	return !sampled || n < 64 ? n + 1 : n + n / 8;
}

static bool errno_in(int err, const int *list)
{
	for (; *list; list++)
		if (*list == err)
			return true;
	return false;
}

static const int query_errnos[] = { EFAULT, 0 };
static const int batch_errnos[] = { EFAULT, ENOMEM, 0 };
static const int read_errnos[] = { EFAULT, ENOMEM, 0 };

/* A call that failed with @err: only where a fault was injected, with an errno of @allowed. */
static void check_failed(const char *what, unsigned int n, bool hit, int err, const int *allowed)
{
	calls_failed++;
	CHECK(hit, "%s: N=%u: failed with %s where no fault was injected", what, n,
	      strerror(err));
	if (allowed)
		CHECK(errno_in(err, allowed), "%s: N=%u: errno %s is not documented", what, n,
		      strerror(err));
}

/* ---- KALLSYMS_QUERY ---- */

static __u64 generation(void)
{
	struct kallsyms_query q = { .size = sizeof(q), .query_flags = KALLSYMS_QUERY_GENERATION };

	if (ioctl(kfd, KALLSYMS_QUERY, &q))
		bad("GENERATION: %s", strerror(errno));
	return q.generation;
}

struct single {
	const char *what;
	struct kallsyms_query in;
	char name[KALLSYMS_QUERY_NAME_LEN];	/* BY_SYMBOL's input */
};

/*
 * Whether @buf holds @name and its NUL and, past them, the pattern it was
 * filled with (@name NULL: nothing written).
 */
static bool name_untouched(const char *buf, const char *name)
{
	size_t len = name ? strlen(name) + 1 : 0, i;

	if (name && memcmp(buf, name, len))
		return false;
	for (i = len; i < KALLSYMS_QUERY_NAME_LEN; i++)
		if ((unsigned char)buf[i] != PATTERN)
			return false;
	return true;
}

/* One single-answer mode under every N: as without faults, or EFAULT and the argument as it was. */
static void sweep_single(struct single *s)
{
	struct kallsyms_query ref = s->in, q, before;
	char ref_name[KALLSYMS_QUERY_NAME_LEN], buf[KALLSYMS_QUERY_NAME_LEN];
	unsigned int n, points = 0, failed = 0;
	bool by_addr = s->in.query_flags == KALLSYMS_QUERY_BY_ADDR;

	if (by_addr)
		ref.sym_name_addr = (unsigned long)ref_name;
	else if (s->in.query_flags == KALLSYMS_QUERY_BY_SYMBOL)
		ref.sym_name_addr = (unsigned long)s->name;
	if (ioctl(kfd, KALLSYMS_QUERY, &ref)) {
		bad("%s: fails without faults: %s", s->what, strerror(errno));
		return;
	}
	for (n = 1; n < 100000; n++) {
		int rc, err;
		bool hit;

		q = s->in;
		if (by_addr)
			q.sym_name_addr = (unsigned long)buf;
		else if (q.query_flags == KALLSYMS_QUERY_BY_SYMBOL)
			q.sym_name_addr = (unsigned long)s->name;
		memset(buf, PATTERN, sizeof(buf));
		before = q;
		arm(n);
		rc = ioctl(kfd, KALLSYMS_QUERY, &q);
		err = errno;
		hit = disarm();
		if (rc) {
			failed++;
			check_failed(s->what, n, hit, err, query_errnos);
			CHECK(!memcmp(&q, &before, sizeof(q)), "%s: N=%u: failed call wrote the argument",
			      s->what, n);
			/* The name is written before the argument, whose copy may fail last. */
			if (by_addr)
				CHECK(name_untouched(buf, 0) ||
				      (err == EFAULT && name_untouched(buf, ref_name)),
				      "%s: N=%u: failed call wrote the name buffer", s->what, n);
		} else {
			/* The output pointer is ours, not the reference's. */
			q.sym_name_addr = ref.sym_name_addr;
			CHECK(!memcmp(&q, &ref, sizeof(q)), "%s: N=%u: answer differs from the one without faults",
			      s->what, n);
			if (by_addr)
				CHECK(name_untouched(buf, ref_name), "%s: N=%u: name %.64s, not %s",
				      s->what, n, buf, ref_name);
		}
		if (!hit)
			break;
		points++;
	}
	printf("# faults: %s: %u fault points, %u failed calls\n", s->what, points, failed);
	CHECK(points && failed, "%s: no fault point failed a call", s->what);
}

struct entry_ref {
	struct kallsyms_query_addr e;
	char name[KALLSYMS_QUERY_NAME_LEN];
	char owner[64];
};

static void fill_entries(struct kallsyms_query_addr *e, const __u64 *addrs, int count)
{
	int i;

	memset(e, PATTERN, count * sizeof(*e));
	for (i = 0; i < count; i++)
		e[i].addr = addrs[i];
}

static void batch_arg(struct kallsyms_query *q, struct kallsyms_query_addr *e, int count,
		      char *names, size_t names_len)
{
	memset(q, 0, sizeof(*q));
	q->size = sizeof(*q);
	q->query_flags = KALLSYMS_QUERY_BY_ADDR_BATCH;
	q->batch_addr = (unsigned long)e;
	q->batch_count = count;
	q->batch_entry_size = sizeof(*e);
	q->sym_name_addr = (unsigned long)names;
	q->sym_name_size = names_len;
}

/* Whether entry @e (strings in @names) is answered as @r. */
static bool entry_right(const struct kallsyms_query_addr *e, const char *names, size_t used,
			const struct entry_ref *r)
{
	if (e->addr != r->e.addr || e->start != r->e.start || e->size != r->e.size ||
	    e->prog_id != r->e.prog_id || e->kind != r->e.kind || e->subprog != r->e.subprog)
		return false;
	if (e->kind == KALLSYMS_SYM_NONE)
		return !e->name_off && !e->owner_off;
	return e->name_off < used && e->owner_off < used &&
	       !strcmp(names + e->name_off, r->name) && !strcmp(names + e->owner_off, r->owner);
}

/* Answers entries [@from, @count) without faults, however many calls it takes; checks them. */
static void batch_rest(struct kallsyms_query_addr *e, int from, int count,
		       const struct entry_ref *refs, char *names, const char *what, unsigned int n)
{
	struct kallsyms_query q;
	int i;

	while (from < count) {
		batch_arg(&q, e + from, count - from, names, BATCH * NAMES_LEN);
		if (ioctl(kfd, KALLSYMS_QUERY, &q) || !q.batch_count) {
			bad("%s: N=%u: continuing from entry %d: %s", what, n, from,
			    strerror(errno));
			return;
		}
		for (i = 0; i < (int)q.batch_count; i++)
			CHECK(entry_right(&e[from + i], names, q.sym_name_size, &refs[from + i]),
			      "%s: N=%u: continued entry %d is wrong", what, n, from + i);
		from += q.batch_count;
	}
}

/*
 * How a batch call is made to fail: NTH, the N-th fault point of the call
 * (fail-nth); TWICE, its N-th and (N+1)-th copies from or to user memory
 * (fail_usercopy at 100 % in a thread of its own, after a budget of N - 1
 * copies). One failed copy of a block's strings is tried again entry by
 * entry, and succeeds: two in a row stop a batch part way.
 */
enum inject { NTH, TWICE };

struct twice_call {
	struct kallsyms_query *q;
	int rc, err;
};

static void *twice_thread(void *arg)
{
	struct twice_call *c = arg;
	int fd = open("/proc/thread-self/make-it-fail", O_WRONLY);

	/* Its copy is made before the flag is set: the first to count is the call's. */
	if (fd < 0 || write(fd, "1", 1) != 1) {
		c->rc = -1;
		c->err = ENOTSUP;
		return NULL;
	}
	c->rc = ioctl(kfd, KALLSYMS_QUERY, c->q);
	c->err = errno;
	close(fd);
	return NULL;
}

static long twice_injected;

/* Makes the batch call @q under @how at @n; whether a fault was injected. */
static bool call_batch(enum inject how, unsigned int n, struct kallsyms_query *q, int *rc,
		       int *err)
{
	struct twice_call c = { .q = q };
	char space[16];
	pthread_t t;
	long left;

	if (how == NTH) {
		arm(n);
		*rc = ioctl(kfd, KALLSYMS_QUERY, q);
		*err = errno;
		return disarm();
	}
	snprintf(space, sizeof(space), "%u", n);
	if (write_knob("fail_usercopy", "space", space) ||
	    write_knob("fail_usercopy", "times", "2"))
		bad("fail_usercopy: cannot set space %u: %s", n, strerror(errno));
	if (pthread_create(&t, NULL, twice_thread, &c) || pthread_join(t, NULL))
		bad("fail_usercopy: no thread for the call");
	*rc = c.rc;
	*err = c.err;
	left = read_knob("fail_usercopy", "times");
	twice_injected += 2 - left;
	return left < 2;
}

static void sweep_batch(const __u64 *addrs, enum inject how)
{
	static struct kallsyms_query_addr e[BATCH], untouched[BATCH];
	static struct entry_ref refs[BATCH];
	static char names[BATCH * NAMES_LEN];
	struct kallsyms_query q, before;
	unsigned int n, points = 0, failed = 0, partial = 0;
	const char *what = how == NTH ? "BY_ADDR_BATCH of 40" :
		"BY_ADDR_BATCH of 40, two user copies failing";
	long times = read_knob("fail_usercopy", "times");
	__u64 gen;
	int i;

	/* The answers without faults, in one call (they fit). */
	fill_entries(e, addrs, BATCH);
	batch_arg(&q, e, BATCH, names, sizeof(names));
	if (ioctl(kfd, KALLSYMS_QUERY, &q) || q.batch_count != BATCH) {
		bad("%s: without faults: %s, %u answers", what, strerror(errno), q.batch_count);
		return;
	}
	gen = q.generation;
	for (i = 0; i < BATCH; i++) {
		refs[i].e = e[i];
		if (e[i].kind != KALLSYMS_SYM_NONE) {
			snprintf(refs[i].name, sizeof(refs[i].name), "%s", names + e[i].name_off);
			snprintf(refs[i].owner, sizeof(refs[i].owner), "%s",
				 names + e[i].owner_off);
		}
	}
	for (n = 1; n < 100000; n++) {
		int rc, err, done = 0;
		bool hit;

		fill_entries(e, addrs, BATCH);
		memcpy(untouched, e, sizeof(e));
		batch_arg(&q, e, BATCH, names, sizeof(names));
		before = q;
		hit = call_batch(how, n, &q, &rc, &err);
		if (rc) {
			failed++;
			check_failed(what, n, hit, err, batch_errnos);
			CHECK(!memcmp(&q, &before, sizeof(q)), "%s: N=%u: failed call wrote the argument",
			      what, n);
			/*
			 * Untouched, but when the argument itself could not be written back
			 * (EFAULT): then a prefix may be answered, each entry whole.
			 */
			while (err == EFAULT && done < BATCH &&
			       memcmp(&e[done], &untouched[done], sizeof(e[0])))
				done++;
		} else {
			done = q.batch_count;
			CHECK(done >= 1 && done <= BATCH, "%s: N=%u: %d answers", what, n, done);
			CHECK(q.generation == gen, "%s: N=%u: generation %llu, not %llu", what, n,
			      (unsigned long long)q.generation, (unsigned long long)gen);
			if (done < BATCH)
				partial++;
		}
		if (done < 0 || done > BATCH)
			done = 0;
		/* A failed call's prefix: its strings' offsets are lost, the rest is checked. */
		for (i = 0; i < done; i++)
			CHECK(rc ? e[i].kind == refs[i].e.kind && e[i].start == refs[i].e.start :
				   entry_right(&e[i], names, q.sym_name_size, &refs[i]),
			      "%s: N=%u: answered entry %d is wrong", what, n, i);
		for (i = done; i < BATCH; i++)
			CHECK(!memcmp(&e[i], &untouched[i], sizeof(e[0])),
			      "%s: N=%u: entry %d past the %d answered was written",
			      what, n, i, done);
		batch_rest(e, done, BATCH, refs, names, what, n);
		if (!hit)
			break;
		points++;
	}
	printf("# faults: %s: %u fault points, %u failed calls, %u stopped part way\n", what,
	       points, failed, partial);
	CHECK(points && failed, "%s: no fault point failed a call", what);
	if (how == TWICE) {
		/* injected() counts down from the budget: take this sweep's off it. */
		char left[32];

		snprintf(left, sizeof(left), "%ld", times - twice_injected);
		write_knob("fail_usercopy", "times", left);
		write_knob("fail_usercopy", "space", "0");
		CHECK(partial > 0, "%s: no call stopped part way", what);
	}
}

/* ---- /proc/kallsyms and iter/ksym ---- */

struct text {
	char *buf;
	size_t len, cap;
};

/* Reads @fd into @t until EOF or an error (returned as -errno). */
static int read_into(int fd, struct text *t)
{
	ssize_t r;

	for (;;) {
		if (t->cap - t->len < 65536) {
			t->cap = t->cap * 2 + 65536;
			t->buf = realloc(t->buf, t->cap);
			if (!t->buf)
				ksft_exit_fail_msg("out of memory\n");
		}
		r = read(fd, t->buf + t->len, 65536);
		if (r < 0)
			return -errno;
		if (!r)
			return 0;
		t->len += r;
	}
}

static bool is_prefix(const struct text *part, const struct text *whole)
{
	return part->len <= whole->len && !memcmp(part->buf, whole->buf, part->len);
}

/* Opens a fresh reader: /proc/kallsyms, or an iter/ksym iterator of @link. */
static int open_reader(struct bpf_link *link)
{
	return link ? bpf_iter_create(bpf_link__fd(link)) : open("/proc/kallsyms", O_RDONLY);
}

static void sweep_reader(const char *what, struct bpf_link *link)
{
	struct text whole = {}, t = {};
	unsigned int n, points = 0, failed = 0;
	int fd, rc;

	fd = open_reader(link);
	if (fd < 0 || read_into(fd, &whole)) {
		bad("%s: cannot read without faults: %s", what, strerror(errno));
		return;
	}
	close(fd);
	for (n = 1; n < 1000000; n = next_n(n, true)) {
		bool hit;

		t.len = 0;
		/* iter/ksym's open is part of the operation: bpf_iter_create() allocates. */
		if (!link)
			fd = open_reader(NULL);
		arm(n);
		if (link)
			fd = open_reader(link);
		rc = fd < 0 ? -errno : read_into(fd, &t);
		hit = disarm();
		if (rc) {
			failed++;
			check_failed(what, n, hit, -rc, read_errnos);
			CHECK(is_prefix(&t, &whole), "%s: N=%u: the %zu bytes read before the error are not the text's start",
			      what, n, t.len);
			/* /proc/kallsyms goes on from where it stopped. */
			if (!link && fd >= 0) {
				rc = read_into(fd, &t);
				CHECK(!rc && t.len == whole.len && !memcmp(t.buf, whole.buf, t.len),
				      "%s: N=%u: reading on after the error: %s, %zu bytes of %zu, %s",
				      what, n, strerror(-rc), t.len, whole.len,
				      is_prefix(&t, &whole) ? "a prefix" : "not the text");
			}
		} else {
			CHECK(t.len == whole.len && !memcmp(t.buf, whole.buf, t.len),
			      "%s: N=%u: %zu bytes, not the %zu without faults", what, n, t.len,
			      whole.len);
		}
		if (fd >= 0)
			close(fd);
		if (!hit)
			break;
		points++;
	}
	printf("# faults: %s: %u fault points tried (sampled), %u failed reads\n", what, points,
	       failed);
	CHECK(points && failed, "%s: no fault point failed a read", what);
	free(whole.buf);
	free(t.buf);
}

/* ---- BPF program loads and trampolines ---- */

/* perf's ksymbol events in this thread: where a load put its symbols, even for a moment. */
struct ksym_events {
	int fd;
	struct perf_event_mmap_page *page;
	char *data;
	size_t size;
};

#define EVENT_PAGES 16

static int events_open(struct ksym_events *ev)
{
	struct perf_event_attr attr = {
		.type = PERF_TYPE_SOFTWARE,
		.size = sizeof(attr),
		.config = PERF_COUNT_SW_DUMMY,
		.ksymbol = 1,
	};
	long page = sysconf(_SC_PAGESIZE);

	ev->fd = syscall(__NR_perf_event_open, &attr, 0, -1, -1, 0);
	if (ev->fd < 0)
		return -errno;
	ev->size = EVENT_PAGES * page;
	ev->page = mmap(NULL, page + ev->size, PROT_READ | PROT_WRITE, MAP_SHARED, ev->fd, 0);
	if (ev->page == MAP_FAILED)
		return -errno;
	ev->data = (char *)ev->page + page;
	return 0;
}

struct ksym_event {
	__u64 addr;
	char name[KALLSYMS_QUERY_NAME_LEN];
};

/*
 * Registrations since the last call, up to @max of them into @out; returns how
 * many. A program the interpreter runs (its JIT failed) gets one event too,
 * with the interpreter's address, length 0 and no name: not a symbol, skipped.
 */
static int events_read(struct ksym_events *ev, struct ksym_event *out, int max)
{
	__u64 head = __atomic_load_n(&ev->page->data_head, __ATOMIC_ACQUIRE);
	__u64 tail = ev->page->data_tail;
	int n = 0;

	while (tail < head) {
		struct {
			struct perf_event_header h;
			__u64 addr;
			__u32 len;
			__u16 ksym_type;
			__u16 flags;
			char name[KALLSYMS_QUERY_NAME_LEN];
		} rec;
		size_t off = tail % ev->size, i;
		char *p = (char *)&rec;

		for (i = 0; i < sizeof(rec.h); i++)
			p[i] = ev->data[(off + i) % ev->size];
		for (i = sizeof(rec.h); i < rec.h.size && i < sizeof(rec); i++)
			p[i] = ev->data[(off + i) % ev->size];
		if (rec.h.type == PERF_RECORD_KSYMBOL && rec.len &&
		    !(rec.flags & PERF_RECORD_KSYMBOL_FLAGS_UNREGISTER) && n < max) {
			out[n].addr = rec.addr;
			snprintf(out[n].name, sizeof(out[n].name), "%.*s",
				 (int)(rec.h.size - offsetof(typeof(rec), name)), rec.name);
			n++;
		} else if (rec.h.type == PERF_RECORD_LOST) {
			bad("perf lost ksymbol events: the ring is too small");
		}
		tail += rec.h.size;
	}
	__atomic_store_n(&ev->page->data_tail, tail, __ATOMIC_RELEASE);
	return n;
}

/* Lines of /proc/kallsyms and of iter/ksym (@link) that name @name. */
static int lines_naming(const char *name, struct bpf_link *link, int *iter_lines)
{
	struct text t = {};
	char needle[KALLSYMS_QUERY_NAME_LEN + 2];
	const char *p;
	int fd, n = kallsyms_count(name, 0);

	*iter_lines = 0;
	snprintf(needle, sizeof(needle), " %s ", name);
	fd = bpf_iter_create(bpf_link__fd(link));
	if (fd < 0 || read_into(fd, &t)) {
		bad("iter/ksym: cannot read: %s", strerror(errno));
	} else {
		t.buf[t.len] = 0;
		for (p = t.buf; (p = strstr(p, needle)); p++)
			(*iter_lines)++;
	}
	if (fd >= 0)
		close(fd);
	free(t.buf);
	return n;
}

/* Whether BY_ADDR of @addr names @name. */
static bool addr_names(__u64 addr, const char *name)
{
	struct kallsyms_query q;
	char buf[KALLSYMS_QUERY_NAME_LEN];

	return !kq_query(kfd, &q, KALLSYMS_QUERY_BY_ADDR, addr, NULL, buf, sizeof(buf)) &&
	       !strcmp(buf, name);
}

/*
 * Waits up to 60 s for BY_ADDR of @addr to stop naming @name: a program's
 * symbols go after its last reference, a trampoline's after an RCU tasks
 * grace period (seconds on a loaded TCG guest).
 * (BY_SYMBOL does not search BPF symbols.)
 */
static bool gone(__u64 addr, const char *name)
{
	int i;

	for (i = 0; i < 1200; i++) {
		if (!addr_names(addr, name))
			return true;
		usleep(50000);
	}
	return false;
}

/* Nothing of the symbols @ev (@nev of them) is left: not to BY_ADDR, /proc/kallsyms, iter/ksym. */
static void check_left_nothing(const char *what, unsigned int n, struct ksym_event *ev, int nev,
			       struct bpf_link *iter)
{
	int i, text, iter_lines;

	for (i = 0; i < nev; i++) {
		CHECK(gone(ev[i].addr, ev[i].name), "%s: N=%u: its address %llx still names %s",
		      what, n, (unsigned long long)ev[i].addr, ev[i].name);
		text = lines_naming(ev[i].name, iter, &iter_lines);
		CHECK(!text && !iter_lines, "%s: N=%u: %s left %d /proc/kallsyms and %d iter/ksym lines",
		      what, n, ev[i].name, text, iter_lines);
	}
}

/* A socket filter named @name that calls a subprogram: two symbols. */
static int load_with_subprog(const char *name)
{
	struct bpf_insn insns[] = {
		{ .code = BPF_JMP | BPF_CALL, .src_reg = BPF_PSEUDO_CALL, .imm = 1 },
		{ .code = BPF_JMP | BPF_EXIT },
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0, .imm = 0 },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	LIBBPF_OPTS(bpf_prog_load_opts, opts);

	return bpf_prog_load(BPF_PROG_TYPE_SOCKET_FILTER, name, "GPL", insns, 4, &opts);
}

#define MAX_EVENTS 16

/* Whether a /proc/kallsyms line's symbol ends in "_<name>". */
static bool kallsyms_suffix(const char *name)
{
	FILE *f = fopen("/proc/kallsyms", "r");
	size_t len = strlen(name), sl;
	struct kline k;
	bool found = false;

	while (f && !found && next_kline(f, &k)) {
		sl = strlen(k.sym);
		found = sl > len && k.sym[sl - len - 1] == '_' && !strcmp(k.sym + sl - len, name);
	}
	if (f)
		fclose(f);
	return found;
}

static void sweep_load(struct ksym_events *evs, struct bpf_link *iter)
{
	struct ksym_event ev[MAX_EVENTS];
	unsigned int n, points = 0, failed = 0, shown = 0, moved = 0, survived = 0, jited = 0;
	const char *what = "BPF program load";
	char name[16];
	int fd, nev, err, i;
	__u64 g0, g1;
	bool hit;

	for (n = 1; n < 100000; n++) {
		snprintf(name, sizeof(name), "kf%u", n);
		events_read(evs, ev, MAX_EVENTS);
		g0 = generation();
		arm(n);
		fd = load_with_subprog(name);
		err = errno;
		hit = disarm();
		nev = events_read(evs, ev, MAX_EVENTS);
		if (fd < 0) {
			failed++;
			/* A load's errno is whatever its failed step returns: not checked. */
			check_failed(what, n, hit, err, NULL);
			check_left_nothing(what, n, ev, nev, iter);
			g1 = generation();
			CHECK((g1 - g0) % 4 == 0, "%s: N=%u: generation moved by %llu: a symbol left, or its removal not counted",
			      what, n, (unsigned long long)(g1 - g0));
			CHECK(!nev || g1 != g0, "%s: N=%u: %d symbols shown, the generation did not move",
			      what, n, nev);
			shown += nev > 0;
			/* Symbols added and removed before perf was told (a subprogram's). */
			moved += g1 != g0;
		} else {
			struct bpf_prog_info info = {};
			__u32 len = sizeof(info);
			bool is_jited;

			survived += hit;
			/*
			 * Its two functions, where perf was told they are; none if
			 * the JIT failed and the interpreter runs it (no
			 * BPF_JIT_ALWAYS_ON here).
			 */
			is_jited = !bpf_obj_get_info_by_fd(fd, &info, &len) && info.jited_prog_len;
			jited += hit && is_jited;
			CHECK(nev == (is_jited ? 2 : 0), "%s: N=%u: loaded, %s, %d ksymbol events",
			      what, n, is_jited ? "JIT-compiled" : "interpreted", nev);
			for (i = 0; i < nev; i++)
				CHECK(addr_names(ev[i].addr, ev[i].name),
				      "%s: N=%u: loaded, but %llx does not name %s", what, n,
				      (unsigned long long)ev[i].addr, ev[i].name);
			close(fd);
			check_left_nothing(what, n, ev, nev, iter);
		}
		/* Symbols perf was not told about (none should be) have the program's name. */
		if (n % 16 == 0)
			CHECK(!kallsyms_suffix(name), "%s: N=%u: a line of /proc/kallsyms ends in _%s",
			      what, n, name);
		if (!hit)
			break;
		points++;
	}
	printf("# faults: %s: %u fault points, %u failed loads (%u had shown symbols to perf, %u had moved the generation), %u loads survived a fault (%u of them JIT-compiled)\n",
	       what, points, failed, shown, moved, survived, jited);
	CHECK(points && failed, "%s: no fault point failed a load", what);
}

static void sweep_attach(struct bpf_object *o, struct ksym_events *evs, struct bpf_link *iter)
{
	struct bpf_program *p = bpf_object__find_program_by_name(o, "ksym_fentry");
	struct ksym_event ev[MAX_EVENTS];
	unsigned int n, points = 0, failed = 0, shown = 0;
	const char *what = "fentry attach";
	struct bpf_link *link;
	int nev, err;
	bool hit;

	for (n = 1; n < 100000; n++) {
		events_read(evs, ev, MAX_EVENTS);
		arm(n);
		link = bpf_program__attach(p);
		err = errno;
		hit = disarm();
		nev = events_read(evs, ev, MAX_EVENTS);
		if (!link) {
			failed++;
			shown += nev > 0;
			check_failed(what, n, hit, err, NULL);
		} else {
			int text, iter_lines, i;

			/* A new trampoline: its image is a symbol. */
			CHECK(nev >= 1, "%s: N=%u: attached, but perf was told of no symbol",
			      what, n);
			for (i = 0; i < nev; i++) {
				text = lines_naming(ev[i].name, iter, &iter_lines);
				CHECK(text == 1 && iter_lines == 1 &&
				      addr_names(ev[i].addr, ev[i].name),
				      "%s: N=%u: attached, but %s is in %d /proc/kallsyms and %d iter/ksym lines",
				      what, n, ev[i].name, text, iter_lines);
			}
			bpf_link__destroy(link);
		}
		check_left_nothing(what, n, ev, nev, iter);
		if (!hit)
			break;
		points++;
	}
	printf("# faults: %s: %u fault points, %u failed attaches (%u had shown symbols)\n", what,
	       points, failed, shown);
	CHECK(points && failed, "%s: no fault point failed an attach", what);
}

#define PERCENT "2"

/* Starts @argv, a program next to this one; its pid. */
static pid_t spawn(char *const argv[])
{
	pid_t pid = fork();

	if (pid == 0) {
		execv(test_file(argv[0]), argv);
		perror(argv[0]);
		_exit(127);
	}
	return pid;
}

static void concurrent(void)
{
	const char *seconds = getenv("FAULTS_STRESS_SECONDS") ?: "60";
	static char *const stress[] = { "stress_test", NULL };
	/* More inputs than the stress test's time takes: its program stays loaded throughout. */
	static char *const fuzz[] = { "kallsyms_query_fuzz_test", "fuzz", "1000000", "7", NULL };
	long before[KINDS];
	pid_t s = -1, z;
	int i, ss = -1, zs = -1, err = 0;

	for (i = 0; i < KINDS; i++) {
		before[i] = injected(i);
		err |= write_knob(kinds[i], "task-filter", "Y");
		err |= write_knob(kinds[i], "probability", PERCENT);
	}
	/* User pages (highmem) stay out: a failed user page fault only retries. */
	err |= write_knob("fail_page_alloc", "ignore-gfp-highmem", "Y");
	if (err)
		bad("cannot set the fault probabilities");
	setenv("STRESS_SECONDS", seconds, 1);
	setenv("STRESS_FAULTS", "1", 1);
	setenv("FUZZ_FAULTS", "1", 1);
	/*
	 * The fuzzer's program first: the stress test takes the BPF symbols it
	 * finds as the baseline that must be all that is left at its end.
	 */
	z = spawn(fuzz);
	for (i = 0; i < 600 && z > 0 && !kallsyms_suffix("fuzz_target"); i++)
		usleep(50000);
	if (i < 600)
		s = spawn(stress);
	else
		bad("the fuzzer did not load its program in 30 s");
	if (s < 0 || waitpid(s, &ss, 0) != s)
		ss = -1;
	if (z < 0 || waitpid(z, &zs, 0) != z)
		zs = -1;
	for (i = 0; i < KINDS; i++)
		write_knob(kinds[i], "probability", "0");
	unsetenv("STRESS_FAULTS");
	unsetenv("FUZZ_FAULTS");
	CHECK(ss != -1 && WIFEXITED(ss) && !WEXITSTATUS(ss), "stress test under faults: status %#x",
	      ss);
	CHECK(zs != -1 && WIFEXITED(zs) && !WEXITSTATUS(zs), "fuzzer under faults: status %#x", zs);
	printf("# faults: stress test and fuzzer, %s s at %s %%:", seconds, PERCENT);
	for (i = 0; i < KINDS; i++)
		printf(" %s=%ld", kinds[i], injected(i) - before[i]);
	printf("\n");
}

int main(void)
{
	struct ksym_events evs;
	struct single singles[4];
	struct bpf_object *o;
	struct bpf_link *iter;
	struct prog_syms ps;
	struct kallsyms_query q;
	__u64 addrs[BATCH], core_addr, bpf_addr;
	long before[KINDS];
	char name[KALLSYMS_QUERY_NAME_LEN];
	int ref_fd, i;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (access(DEBUGFS "fail_usercopy", F_OK) || access("/proc/thread-self/fail-nth", F_OK))
		ksft_exit_skip("no fault injection in this kernel (config/faults.config)\n");
	if (setup_kinds())
		ksft_exit_fail_msg("cannot set up the fault injection knobs in " DEBUGFS "\n");
	nth_fd = open("/proc/thread-self/fail-nth", O_RDWR);
	kfd = open("/proc/kallsyms", O_RDONLY);
	if (nth_fd < 0 || kfd < 0)
		ksft_exit_fail_msg("cannot open fail-nth or /proc/kallsyms: %s\n", strerror(errno));
	raise_nofile();
	o = open_obj("ksym_kinds.bpf.o");
	ref_fd = load_tiny_prog("kf_ref");
	if (!o || ref_fd < 0 || prog_syms(ref_fd, &ps) || events_open(&evs))
		ksft_exit_fail_msg("setup: %s\n", strerror(errno));
	iter = bpf_program__attach_iter(bpf_object__find_program_by_name(o, "ksym_dump"), NULL);
	if (!iter || kq_query(kfd, &q, KALLSYMS_QUERY_BY_SYMBOL, 0, CORE_SYM, NULL, 0))
		ksft_exit_fail_msg("setup: iter/ksym or %s: %s\n", CORE_SYM, strerror(errno));
	core_addr = q.sym_addr;
	bpf_addr = ps.addr[0];
	for (i = 0; i < KINDS; i++)
		before[i] = injected(i);

	memset(singles, 0, sizeof(singles));
	singles[0].what = "BY_ADDR (vmlinux)";
	singles[1].what = "BY_ADDR (BPF)";
	for (i = 0; i < 2; i++) {
		singles[i].in.size = sizeof(q);
		singles[i].in.query_flags = KALLSYMS_QUERY_BY_ADDR;
		singles[i].in.sym_addr = i ? bpf_addr : core_addr;
		singles[i].in.sym_name_size = KALLSYMS_QUERY_NAME_LEN;
	}
	/* BY_SYMBOL searches vmlinux and modules, not BPF symbols. */
	singles[2].what = "BY_SYMBOL";
	snprintf(singles[2].name, sizeof(singles[2].name), "%s", CORE_SYM);
	singles[2].in.size = sizeof(q);
	singles[2].in.query_flags = KALLSYMS_QUERY_BY_SYMBOL;
	singles[3].what = "GENERATION";
	singles[3].in.size = sizeof(q);
	singles[3].in.query_flags = KALLSYMS_QUERY_GENERATION;
	for (i = 0; i < 4; i++)
		sweep_single(&singles[i]);

	/* vmlinux, BPF and uncovered addresses: three blocks of the batch, strings to share. */
	for (i = 0; i < BATCH; i++)
		addrs[i] = i % 3 == 0 ? core_addr + i : i % 3 == 1 ? bpf_addr + i % 4 : 0x10 + i;
	sweep_batch(addrs, NTH);
	if (write_knob("fail_usercopy", "task-filter", "Y") ||
	    write_knob("fail_usercopy", "probability", "100"))
		bad("fail_usercopy: cannot set the task filter: %s", strerror(errno));
	sweep_batch(addrs, TWICE);
	write_knob("fail_usercopy", "probability", "0");

	sweep_reader("/proc/kallsyms read", NULL);
	sweep_reader("iter/ksym read", iter);
	sweep_load(&evs, iter);
	sweep_attach(o, &evs, iter);

	/* Ours go: the stress test starts from as few BPF symbols as it can. */
	close(ref_fd);
	bpf_link__destroy(iter);
	bpf_object__close(o);
	snprintf(name, sizeof(name), "bpf_prog_%s_kf_ref", ps.tag);
	CHECK(gone(bpf_addr, name), "%s is still there after it was closed", name);
	concurrent();

	printf("FAULTS injected");
	for (i = 0; i < KINDS; i++)
		printf(" %s=%ld", kinds[i], injected(i) - before[i]);
	printf(" calls_failed=%ld checked=%ld wrong=%ld\n", calls_failed, checked, wrong);
	return wrong ? 1 : 0;
}
