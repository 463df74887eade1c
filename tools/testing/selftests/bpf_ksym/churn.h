/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The churn and the checked readers that stress_test and soak_test run
 * together: loaders load and unload programs with subprograms and attach and
 * detach fentry programs (trampolines) while readers loop over
 * /proc/kallsyms, KALLSYMS_QUERY (single and batched) and iter/ksym. Every
 * answer is checked:
 *
 * - every /proc/kallsyms and iter/ksym line parses, and each BPF line names a
 *   program, trampoline or dispatcher that can exist here;
 * - a BY_ADDR hit (or batch entry) names such a symbol and its range holds
 *   the address; a miss is only allowed for a BPF address (its program may
 *   be gone);
 * - core answers never change.
 *
 * With faults set (STRESS_FAULTS=1, make test-faults) the loaders and readers
 * ask for injected faults (/proc/thread-self/make-it-fail): a load or attach
 * may then fail, a read or a query may fail with ENOMEM or EFAULT, and such
 * failures are counted (calls_failed) instead of being wrong. Every answer
 * that is given is still checked.
 */
#ifndef CHURN_H
#define CHURN_H

#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <sys/ioctl.h>

#include "ksym_util.h"

#define CORE_SYM "bpf_user_rnd_u32"
#define ADDRS 256

/*
 * Program names that can appear: ours, the fuzzer's (make test-faults runs it
 * beside), and libbpf's feature probes.
 */
static const char *const known_names[] = {
	"ksym_stack", "ksym_stack_fentry", "ksym_caller", "ksym_with_sub", "ksym_sub",
	"ksym_fentry", "ksym_fentry_idle", "ksym_xdp", "ksym_dump", "ksym_probe", "fuzz_target",
	NULL
};

/* Answers checked, per kind of reader: each must have run. */
enum { BY_TEXT, BY_QUERY, BY_ITER, BY_BATCH, BY_GENERATION, READERS };
static const char *const reader_names[READERS] = {
	"/proc/kallsyms lines", "KALLSYMS_QUERY answers", "iter/ksym lines",
	"batch entries", "generation snapshots",
};

static atomic_long ops, wrong, checked[READERS], calls_failed;
/* BPF lines checked by the text and iter readers. */
static atomic_long bpf_lines_checked;
static atomic_long churned;	/* programs loaded and unloaded, fentry attached and detached */
static bool faults;
static atomic_bool stop;
/* The churn (loaders and attachers) waits while paused; idle counts the threads waiting. */
enum { CHURNERS = 2 };
static atomic_bool paused;
static atomic_int idle;
static atomic_ullong addrs[ADDRS];	/* recent BPF addresses, maybe stale */
static atomic_uint addr_next;
static unsigned long long core_addr;

#define BAD(fmt, ...)								\
	do {									\
		if (atomic_fetch_add(&wrong, 1) < 20)				\
			fprintf(stderr, "# WRONG " fmt "\n", ##__VA_ARGS__);	\
	} while (0)

static bool is_hex(const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!s[i] || !strchr("0123456789abcdef", s[i]))
			return false;
	return true;
}

/* Whether @sym is a BPF symbol name that can exist in this test. */
static bool valid_bpf_name(const char *sym)
{
	const char *p;
	int i;

	if (!strncmp(sym, "bpf_trampoline_", 15)) {
		for (p = sym + 15; *p; p++)
			if (*p < '0' || *p > '9')
				return false;
		return p > sym + 15;
	}
	if (!strncmp(sym, "bpf_dispatcher_", 15))
		return !strcmp(sym + 15, "xdp");
	if (strncmp(sym, "bpf_prog_", 9) || strlen(sym) < 25 || !is_hex(sym + 9, 16))
		return false;
	p = sym + 25;
	if (!*p)
		return true;		/* unnamed: libbpf's probes */
	if (*p++ != '_')
		return false;
	if (!strncmp(p, "libbpf_", 7))
		return true;
	for (i = 0; known_names[i]; i++)
		if (!strcmp(p, known_names[i]))
			return true;
	return false;
}

/* Under STRESS_FAULTS, the calling thread's allocations and user copies may fail from now on. */
static void fail_here(void)
{
	int fd;

	if (!faults)
		return;
	fd = open("/proc/thread-self/make-it-fail", O_WRONLY);
	if (fd < 0 || write(fd, "1", 1) != 1)
		BAD("make-it-fail: %s", strerror(errno));
	if (fd >= 0)
		close(fd);
}

/* Whether a call that failed with @err is a fault's doing, which STRESS_FAULTS allows. */
static bool injected(int err)
{
	if (!faults || (err != ENOMEM && err != EFAULT))
		return false;
	atomic_fetch_add(&calls_failed, 1);
	return true;
}

static void remember(unsigned long long addr)
{
	atomic_store(&addrs[atomic_fetch_add(&addr_next, 1) % ADDRS], addr);
}

static void remember_prog(int fd)
{
	struct prog_syms ps;
	int i;

	if (fd >= 0 && !prog_syms(fd, &ps))
		for (i = 0; i < ps.nr; i++)
			remember(ps.addr[i] + (ps.len[i] ? rand() % ps.len[i] : 0));
}

/* Waits while the churn is paused; false once the test stops. */
static bool churn_on(void)
{
	if (atomic_load(&paused)) {
		atomic_fetch_add(&idle, 1);
		while (atomic_load(&paused) && !atomic_load(&stop))
			usleep(10000);
		atomic_fetch_sub(&idle, 1);
	}
	return !atomic_load(&stop);
}

static void *load_progs(void *arg)
{
	fail_here();
	while (churn_on()) {
		struct bpf_object *o = open_progs();
		struct bpf_program *p;

		/* libbpf's errno is whatever the failed step set: any, under faults. */
		if (!o && faults) {
			atomic_fetch_add(&calls_failed, 1);
			continue;
		}
		if (!o) {
			BAD("loading ksym_progs.bpf.o failed");
			break;
		}
		bpf_object__for_each_program(p, o)
			remember_prog(bpf_program__fd(p));
		bpf_object__close(o);
		atomic_fetch_add(&ops, 1);
		atomic_fetch_add(&churned, 1);
	}
	return NULL;
}

static void *attach_fentry(void *arg)
{
	fail_here();
	while (churn_on()) {
		struct bpf_object *o = open_obj("ksym_kinds.bpf.o");
		struct bpf_link *l;

		if (!o && faults) {
			atomic_fetch_add(&calls_failed, 1);
			continue;
		}
		if (!o) {
			BAD("loading ksym_kinds.bpf.o failed");
			break;
		}
		l = bpf_program__attach(bpf_object__find_program_by_name(o, "ksym_fentry_idle"));
		if (!l && faults)
			atomic_fetch_add(&calls_failed, 1);
		else if (!l)
			BAD("attaching fentry failed: %s", strerror(errno));
		remember_prog(prog_fd(o, "ksym_fentry_idle"));
		bpf_link__destroy(l);
		bpf_object__close(o);
		atomic_fetch_add(&ops, 1);
		atomic_fetch_add(&churned, 1);
	}
	return NULL;
}

/* One /proc/kallsyms line: "<16 hex> <type> <name>[\t[<module>]]\n". */
static void check_text_line(char *line)
{
	char *sym, *mod, *nl = strchr(line, '\n');

	if (!nl || nl - line < 20 || !is_hex(line, 16) || line[16] != ' ' || line[18] != ' ') {
		BAD("unparsable /proc/kallsyms line '%.80s'", line);
		return;
	}
	*nl = 0;
	sym = line + 19;
	mod = strchr(sym, '\t');
	if (mod)
		*mod++ = 0;
	if (mod && !strcmp(mod, "[bpf]")) {
		if (!valid_bpf_name(sym))
			BAD("/proc/kallsyms names a BPF symbol that never existed: '%s'", sym);
		atomic_fetch_add(&bpf_lines_checked, 1);
	}
	atomic_fetch_add(&checked[BY_TEXT], 1);
}

/*
 * Where the BPF lines of /proc/kallsyms start (or would): the lines before
 * them (vmlinux, modules, ftrace's) do not change while the test runs; after
 * them come kprobes' or the end.
 */
static long bpf_text_offset(void)
{
	FILE *f = fopen("/proc/kallsyms", "r");
	char line[1024];
	long off = 0;

	while (f && fgets(line, sizeof(line), f)) {
		if (strstr(line, "\t[bpf]") || strstr(line, "\t[__builtin__kprobes]"))
			break;
		off += strlen(line);
	}
	if (f)
		fclose(f);
	return off;
}

static void *read_text(void *arg)
{
	/*
	 * Under faults a pass from the start makes about a thousand user copies,
	 * of which 2 % fail: it would never get to the BPF lines. It starts at
	 * them instead (and fails now and then all the same).
	 */
	long skip = faults ? bpf_text_offset() : 0;
	char line[1024], buf[512];

	fail_here();
	while (!atomic_load(&stop)) {
		FILE *f = fopen("/proc/kallsyms", "r");

		if (!f && injected(errno))
			continue;
		if (!f) {
			BAD("open /proc/kallsyms: %s", strerror(errno));
			break;
		}
		/* A small buffer: many read() boundaries in the BPF section. */
		setvbuf(f, buf, _IOFBF, sizeof(buf));
		/* Just after a line's end, or the lines before changed: find them again. */
		if (skip && (fseek(f, skip - 1, SEEK_SET) || fgetc(f) != '\n')) {
			if (ferror(f) && !injected(errno))
				BAD("seeking /proc/kallsyms to %ld: %s", skip, strerror(errno));
			else if (!ferror(f))
				skip = bpf_text_offset();
			fclose(f);
			continue;
		}
		while (fgets(line, sizeof(line), f))
			check_text_line(line);
		/* fgets() gives no line of a read() that failed: what it gave was whole. */
		if (ferror(f) && !injected(errno))
			BAD("reading /proc/kallsyms: %s", strerror(errno));
		fclose(f);
		atomic_fetch_add(&ops, 1);
	}
	return NULL;
}

static void *read_query(void *arg)
{
	int fd = open("/proc/kallsyms", O_RDONLY);
	struct kallsyms_query q;
	char buf[512];
	int r;

	if (fd < 0) {
		BAD("open /proc/kallsyms: %s", strerror(errno));
		return NULL;
	}
	fail_here();
	while (!atomic_load(&stop)) {
		unsigned long long a = atomic_load(&addrs[rand() % ADDRS]);

		if (a) {
			r = kq_query(fd, &q, KALLSYMS_QUERY_BY_ADDR, a, NULL, buf, sizeof(buf));
			if (r == 0 && (q.sym_start > a || a > q.sym_start + q.sym_size ||
				       strcmp(q.sym_owner, "bpf") || !valid_bpf_name(buf)))
				BAD("BY_ADDR %llx: '%s' [%s] at %llx+%llu", a, buf, q.sym_owner,
				    q.sym_start, q.sym_size);
			else if (r && r != -ENOENT && !injected(-r))
				BAD("BY_ADDR %llx: %s", a, strerror(-r));
			atomic_fetch_add(&checked[BY_QUERY], 1);
		}
		r = kq_query(fd, &q, KALLSYMS_QUERY_BY_ADDR, core_addr + 1, NULL, buf, sizeof(buf));
		if ((r || strcmp(buf, CORE_SYM) || q.sym_start != core_addr) &&
		    !(r && injected(-r)))
			BAD("BY_ADDR on %s+1 gave %d '%s'", CORE_SYM, r, buf);
		r = kq_query(fd, &q, KALLSYMS_QUERY_BY_SYMBOL, 0, CORE_SYM, NULL, 0);
		if ((r || q.sym_addr != core_addr) && !(r && injected(-r)))
			BAD("BY_SYMBOL %s gave %d %llx", CORE_SYM, r, q.sym_addr);
		atomic_fetch_add(&checked[BY_QUERY], 2);
		atomic_fetch_add(&ops, 3);
	}
	close(fd);
	return NULL;
}

static void *read_iter(void *arg)
{
	struct bpf_link *link = arg;
	char *buf, *line, *save, *end;

	fail_here();
	while (!atomic_load(&stop)) {
		int fd = bpf_iter_create(bpf_link__fd(link));

		if (fd < 0 && injected(errno))
			continue;
		if (fd < 0) {
			BAD("bpf_iter_create: %s", strerror(errno));
			break;
		}
		errno = 0;
		buf = slurp_fd(fd);
		close(fd);
		/* Under faults, this process's own memory may run out too. */
		if (!buf && faults) {
			atomic_fetch_add(&calls_failed, 1);
			continue;
		}
		if (!buf) {
			BAD("out of memory for an iter/ksym dump");
			break;
		}
		/* A read that failed: its last line may be cut, the ones before are whole. */
		if (errno && injected(errno)) {
			end = strrchr(buf, '\n');
			*(end ? end : buf) = 0;
		} else if (errno) {
			BAD("reading iter/ksym: %s", strerror(errno));
		}
		for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
			struct iter_line l;

			if (!parse_iter_line(line, &l))
				BAD("unparsable iter/ksym line '%.80s'", line);
			else if (!strcmp(l.kind, "bpf") && !valid_bpf_name(l.name))
				BAD("iter/ksym names a BPF symbol that never existed: '%s'",
				    l.name);
			else if (!strcmp(l.kind, "bpf"))
				atomic_fetch_add(&bpf_lines_checked, 1);
			atomic_fetch_add(&checked[BY_ITER], 1);
		}
		free(buf);
		atomic_fetch_add(&ops, 1);
	}
	return NULL;
}

/* Whether a batch entry for BPF address @a is right: no symbol, or a BPF one holding @a. */
static bool bpf_entry_right(const struct kallsyms_query_addr *e, __u64 a, const char *names,
			    __u64 used)
{
	if (e->kind == KALLSYMS_SYM_NONE)
		return !e->start && !e->size && !e->name_off && !e->owner_off;
	return e->kind >= KALLSYMS_SYM_BPF_PROG && e->kind <= KALLSYMS_SYM_BPF_IMAGE &&
	       e->name_off < used && e->owner_off < used &&
	       !strcmp(names + e->owner_off, "bpf") && valid_bpf_name(names + e->name_off) &&
	       e->start <= a && a <= e->start + e->size;
}

/* Whether batch entry @e for the core address (CORE_SYM + 1) is right. */
static bool core_entry_right(const struct kallsyms_query_addr *e, const char *names, __u64 used)
{
	return e->kind == KALLSYMS_SYM_VMLINUX && e->start == core_addr && e->name_off < used &&
	       !strcmp(names + e->name_off, CORE_SYM);
}

#define BATCH 64

/* BY_ADDR_BATCH over recent BPF addresses and a core one, continued until all are answered. */
static void *read_batch(void *arg)
{
	static __thread char names[BATCH * (KALLSYMS_QUERY_NAME_LEN + 64)];
	struct kallsyms_query_addr e[BATCH];
	struct kallsyms_query q;
	int fd = open("/proc/kallsyms", O_RDONLY), i, done;

	if (fd < 0) {
		BAD("open /proc/kallsyms: %s", strerror(errno));
		return NULL;
	}
	fail_here();
	while (!atomic_load(&stop)) {
		memset(e, 0, sizeof(e));
		/* Every 8th entry, and any slot not yet filled, the core symbol. */
		for (i = 0; i < BATCH; i++) {
			e[i].addr = i % 8 ? atomic_load(&addrs[rand() % ADDRS]) : 0;
			if (!e[i].addr)
				e[i].addr = core_addr + 1;
		}
		for (done = 0; done < BATCH; done += q.batch_count) {
			memset(&q, 0, sizeof(q));
			q.size = sizeof(q);
			q.query_flags = KALLSYMS_QUERY_BY_ADDR_BATCH;
			q.sym_name_addr = (unsigned long)names;
			q.sym_name_size = sizeof(names);
			q.batch_addr = (unsigned long)(e + done);
			q.batch_count = BATCH - done;
			q.batch_entry_size = sizeof(*e);
			if (ioctl(fd, KALLSYMS_QUERY, &q)) {
				if (!injected(errno))
					BAD("BY_ADDR_BATCH of %d: %s", BATCH - done,
					    strerror(errno));
				break;
			}
			if (!q.batch_count || q.batch_count > (__u32)(BATCH - done)) {
				BAD("BY_ADDR_BATCH of %d answered %u", BATCH - done, q.batch_count);
				break;
			}
			for (i = done; i < done + (int)q.batch_count; i++) {
				const struct kallsyms_query_addr *x = &e[i];
				bool right = x->addr == core_addr + 1 ?
					core_entry_right(x, names, q.sym_name_size) :
					bpf_entry_right(x, x->addr, names, q.sym_name_size);

				if (!right)
					BAD("BY_ADDR_BATCH entry %llx: kind %u '%s' at %llx+%llu",
					    x->addr, x->kind, x->name_off < q.sym_name_size ?
					    names + x->name_off : "?", x->start, x->size);
			}
			atomic_fetch_add(&checked[BY_BATCH], q.batch_count);
		}
		atomic_fetch_add(&ops, 1);
	}
	close(fd);
	return NULL;
}

/* Generations seen twice, and the BPF lines read under them compared. */
static atomic_long generations_compared;

/* The BPF lines of /proc/kallsyms at one generation. */
struct snapshot {
	__u64 generation;
	__u64 hash;	/* FNV-1a of the BPF lines, in their order */
	int lines;
};

/*
 * Reads the BPF lines of /proc/kallsyms between two GENERATION calls on @kfd:
 * true if both gave the same generation (no change overlapped the read, so
 * @s lists the symbols of that generation); false if one did or a call failed.
 */
static bool take_snapshot(int kfd, struct snapshot *s)
{
	__u64 before, hash = 1469598103934665603ULL;
	struct kallsyms_query q;
	struct kline k;
	const char *p;
	char *buf;
	FILE *f;

	if (kq_query(kfd, &q, KALLSYMS_QUERY_GENERATION, 0, NULL, NULL, 0))
		return false;
	before = q.generation;
	f = fopen("/proc/kallsyms", "r");
	buf = malloc(1 << 16);
	if (!f || !buf) {
		if (f)
			fclose(f);
		free(buf);
		return false;
	}
	/* Few read() calls: the sooner it is read, the likelier no change overlaps it. */
	setvbuf(f, buf, _IOFBF, 1 << 16);
	s->lines = 0;
	while (next_kline(f, &k)) {
		char line[600];

		if (strcmp(k.mod, "[bpf]"))
			continue;
		snprintf(line, sizeof(line), "%llx %s\n", k.addr, k.sym);
		for (p = line; *p; p++)
			hash = (hash ^ (unsigned char)*p) * 1099511628211ULL;
		s->lines++;
	}
	fclose(f);
	free(buf);
	s->hash = hash;
	if (kq_query(kfd, &q, KALLSYMS_QUERY_GENERATION, 0, NULL, NULL, 0))
		return false;
	s->generation = q.generation;
	return q.generation == before;
}

/*
 * The generation's promise, as a symbolizer's cache relies on it: two reads
 * of the BPF symbols under the same generation list the same symbols.
 */
static void *check_generation(void *arg)
{
	struct snapshot seen[64], s;
	int kfd = open("/proc/kallsyms", O_RDONLY), n = 0, i;

	if (kfd < 0) {
		BAD("open /proc/kallsyms: %s", strerror(errno));
		return NULL;
	}
	while (!atomic_load(&stop)) {
		if (!take_snapshot(kfd, &s))
			continue;
		for (i = 0; i < n && i < 64; i++) {
			if (seen[i].generation != s.generation)
				continue;
			if (seen[i].hash != s.hash || seen[i].lines != s.lines)
				BAD("generation %llu stood for two sets of BPF symbols (%d and %d lines)",
				    s.generation, seen[i].lines, s.lines);
			atomic_fetch_add(&generations_compared, 1);
		}
		seen[n++ % 64] = s;
		atomic_fetch_add(&checked[BY_GENERATION], 1);
	}
	close(kfd);
	return NULL;
}

#endif /* CHURN_H */
