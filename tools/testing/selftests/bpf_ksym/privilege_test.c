// SPDX-License-Identifier: GPL-2.0
/*
 * The privilege matrix: what each caller sees of BPF and kernel addresses
 * through /proc/kallsyms, iter/ksym and KALLSYMS_QUERY, for every setting of
 * kptr_restrict (0/1/2), bpf_jit_kallsyms (0/1) and bpf_jit_harden (0/1/2),
 * against mainline's rules:
 *
 * - an opener may see addresses (kallsyms_show_value()) with kptr_restrict 0
 *   when perf_event_paranoid <= 1 (this test keeps it at 2) or with
 *   CAP_SYSLOG, with kptr_restrict 1 with CAP_SYSLOG, with 2 never; otherwise
 *   the text file and the iterator print 0 and the ioctl fails with EPERM;
 * - BPF symbols are listed only while bpf_jit_kallsyms is 1 and
 *   bpf_jit_harden is 0; then the ioctl does not name them either (ENOENT);
 * - a BY_ADDR answer carries the program's id only for callers with
 *   CAP_SYS_ADMIN, the rule of BPF_PROG_GET_FD_BY_ID (0 for others), and a
 *   batched BY_ADDR answers as a single one does;
 * - iter/ksym needs a tracing program: CAP_BPF and CAP_PERFMON. Its program
 *   gets every value with a show_value flag (kallsyms_show_value() of the
 *   reader) that it may honour: those capabilities read kernel memory anyway.
 *
 * Callers: root, uid 65534 with no capability, uid 65534 with CAP_SYSLOG
 * only, uid 65534 with CAP_BPF and CAP_PERFMON. One child process each.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <linux/capability.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include "kselftest_harness.h"
#include "ksym_util.h"

#define CORE_SYM "bpf_user_rnd_u32"

enum who { ROOT, NOBODY, SYSLOG_ONLY, BPF_PERFMON };
static const char *const who_name[] = { "root", "nobody", "CAP_SYSLOG", "CAP_BPF+CAP_PERFMON" };

/* What one caller saw. -1: not applicable (no iterator for this caller). */
struct seen {
	int text_bpf_lines;	/* lines naming the probe program */
	int text_bpf_addr;	/* ... with its real address */
	int text_core_addr;	/* CORE_SYM's line has a non-zero address */
	int ioctl_addr;		/* BY_ADDR on the probe: 0 (right name) or -errno */
	int ioctl_name;		/* BY_SYMBOL CORE_SYM: 0 (right address) or -errno */
	int ioctl_id;		/* its program id: 1 right, 0 zero, 2 wrong, -1 no answer */
	int ioctl_batch;	/* BY_ADDR_BATCH on the probe: as ioctl_addr */
	int ioctl_gen;		/* GENERATION: 0 or -errno */
	int iter_loaded;	/* 0, or -errno of loading/attaching the iterator */
	int iter_bpf_lines;
	int iter_bpf_addr;
	int iter_core_addr;
};

struct setting {
	int kptr, kallsyms, harden;
};

#define KPTR "/proc/sys/kernel/kptr_restrict"
#define PARANOID "/proc/sys/kernel/perf_event_paranoid"

static int apply(const struct setting *s)
{
	return write_sysctl(KPTR, s->kptr) ?: write_sysctl(JIT_KALLSYMS, s->kallsyms) ?:
	       write_sysctl(JIT_HARDEN, s->harden);
}

/* Become uid/gid 65534 holding exactly @caps (a CAP_* bit mask). */
static int drop_to(__u64 caps)
{
	struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct d[2] = {};

	if (prctl(PR_SET_KEEPCAPS, 1) || setresgid(65534, 65534, 65534) ||
	    setresuid(65534, 65534, 65534))
		return -errno;
	d[0].effective = caps;
	d[0].permitted = caps;
	d[1].effective = caps >> 32;
	d[1].permitted = caps >> 32;
	return syscall(SYS_capset, &h, d) ? -errno : 0;
}

static void look_at_text(const char *probe, unsigned long long probe_addr, struct seen *s)
{
	FILE *f = fopen("/proc/kallsyms", "r");
	struct kline k;

	while (f && next_kline(f, &k)) {
		if (!strcmp(k.mod, "[bpf]") && strstr(k.sym, probe)) {
			s->text_bpf_lines++;
			s->text_bpf_addr += k.addr == probe_addr;
		}
		if (!k.mod[0] && !strcmp(k.sym, CORE_SYM))
			s->text_core_addr = k.addr != 0;
	}
	if (f)
		fclose(f);
}

/* A query on a fresh open, as the opener's credentials decide what it may see. */
static int query(struct kallsyms_query *q, __u64 flags, __u64 addr, const char *name,
		 char *buf)
{
	int fd = open("/proc/kallsyms", O_RDONLY), r;

	r = kq_query(fd, q, flags, addr, name, buf, 512);
	close(fd);
	return r;
}

/* A batch of one on a fresh open: 0 (right name), -ENOENT (no symbol) or -errno. */
static int batch_query(const char *probe, unsigned long long probe_addr, __u32 probe_id)
{
	struct kallsyms_query_addr e = { .addr = probe_addr };
	struct kallsyms_query q = {
		.size = sizeof(q),
		.query_flags = KALLSYMS_QUERY_BY_ADDR_BATCH,
		.batch_addr = (unsigned long)&e,
		.batch_count = 1,
		.batch_entry_size = sizeof(e),
	};
	char names[1024] = "";
	int fd = open("/proc/kallsyms", O_RDONLY), r;

	q.sym_name_addr = (unsigned long)names;
	q.sym_name_size = sizeof(names);
	r = ioctl(fd, KALLSYMS_QUERY, &q) ? -errno : 0;
	close(fd);
	if (r)
		return r;
	if (e.kind == KALLSYMS_SYM_NONE)
		return -ENOENT;
	/* The same id rule as a single query: the program's for root only. */
	if (!strstr(names + e.name_off, probe) || e.start != probe_addr ||
	    e.prog_id != (geteuid() ? 0 : probe_id))
		return 1;
	return 0;
}

static void look_at_ioctl(const char *probe, unsigned long long probe_addr, __u32 probe_id,
			  unsigned long long core_addr, struct seen *s)
{
	struct kallsyms_query q;
	char buf[512] = "";

	s->ioctl_addr = query(&q, KALLSYMS_QUERY_BY_ADDR, probe_addr, NULL, buf);
	if (!s->ioctl_addr && (!strstr(buf, probe) || q.sym_start != probe_addr))
		s->ioctl_addr = 1;	/* an answer, but a wrong one */
	s->ioctl_id = s->ioctl_addr ? -1 : q.sym_prog_id == probe_id ? 1 :
		      q.sym_prog_id ? 2 : 0;
	s->ioctl_batch = batch_query(probe, probe_addr, probe_id);
	s->ioctl_name = query(&q, KALLSYMS_QUERY_BY_SYMBOL, 0, CORE_SYM, NULL);
	if (!s->ioctl_name && q.sym_addr != core_addr)
		s->ioctl_name = 1;
	s->ioctl_gen = query(&q, KALLSYMS_QUERY_GENERATION, 0, NULL, NULL);
}

static void look_at_iter(const char *probe, unsigned long long probe_addr, struct seen *s)
{
	struct bpf_object *o;
	struct bpf_program *p, *dump;
	struct bpf_link *link;
	char *out, *line, *save;
	int fd;

	libbpf_set_print(NULL);	/* failing to load is expected for some callers */
	o = bpf_object__open_file(test_file("ksym_kinds.bpf.o"), NULL);
	if (!o) {
		s->iter_loaded = -errno;
		return;
	}
	/* Only the dumper: the XDP and fentry programs need other capabilities. */
	dump = bpf_object__find_program_by_name(o, "ksym_dump");
	bpf_object__for_each_program(p, o)
		bpf_program__set_autoload(p, p == dump);
	s->iter_loaded = bpf_object__load(o);
	link = s->iter_loaded ? NULL : bpf_program__attach_iter(dump, NULL);
	if (!s->iter_loaded && !link)
		s->iter_loaded = -errno;
	fd = link ? bpf_iter_create(bpf_link__fd(link)) : -1;
	if (link && fd < 0)
		s->iter_loaded = -errno;
	out = fd >= 0 ? slurp_fd(fd) : NULL;
	for (line = out ? strtok_r(out, "\n", &save) : NULL; line;
	     line = strtok_r(NULL, "\n", &save)) {
		struct iter_line l;

		if (!parse_iter_line(line, &l))
			continue;
		if (!strcmp(l.kind, "bpf") && strstr(l.name, probe)) {
			s->iter_bpf_lines++;
			s->iter_bpf_addr += l.addr == probe_addr;
		}
		if (!strcmp(l.kind, "core") && !strcmp(l.name, CORE_SYM))
			s->iter_core_addr = l.addr != 0;
	}
	free(out);
	if (fd >= 0)
		close(fd);
	bpf_link__destroy(link);
	bpf_object__close(o);
}

/* What mainline shows @who under @st; perf_event_paranoid is 2. */
static struct seen expected(enum who who, const struct setting *st)
{
	bool syslog = who == ROOT || who == SYSLOG_ONLY;
	bool show = st->kptr == 2 ? false : syslog;
	bool listed = st->kallsyms == 1 && st->harden == 0;
	bool iter = who == ROOT || who == BPF_PERFMON;
	struct seen e = {
		.text_bpf_lines = listed,
		.text_bpf_addr = listed && show,
		.text_core_addr = show,
		.ioctl_addr = !show ? -EPERM : listed ? 0 : -ENOENT,
		.ioctl_name = show ? 0 : -EPERM,
		/* Even the generation: it would tell when programs come and go. */
		.ioctl_gen = show ? 0 : -EPERM,
		/* BPF_PROG_GET_FD_BY_ID's rule: CAP_SYS_ADMIN. */
		.ioctl_id = !show || !listed ? -1 : who == ROOT,
		.ioctl_batch = !show ? -EPERM : listed ? 0 : -ENOENT,
		.iter_loaded = iter ? 0 : -EPERM,
		/*
		 * The program gets the real value and a show_value flag it
		 * may honour; ksym_dump prints the value. Mainline's rule:
		 * CAP_BPF+CAP_PERFMON may read kernel memory anyway.
		 */
		.iter_bpf_lines = iter && listed,
		.iter_bpf_addr = iter && listed,
		.iter_core_addr = iter,
	};
	return e;
}

static const __u64 caps_of[] = {
	[NOBODY] = 0,
	[SYSLOG_ONLY] = 1ull << CAP_SYSLOG,
	[BPF_PERFMON] = 1ull << CAP_BPF | 1ull << CAP_PERFMON,
};

FIXTURE(matrix) {
	int probe_fd;
	__u32 probe_id;
	char probe[32];
	unsigned long long probe_addr, core_addr;
	int saved[4];
};

FIXTURE_SETUP(matrix)
{
	struct bpf_prog_info info = {};
	__u32 info_len = sizeof(info);
	struct prog_syms ps;
	char buf[512];
	struct kallsyms_query q;

	self->saved[0] = read_sysctl(KPTR);
	self->saved[1] = read_sysctl(JIT_KALLSYMS);
	self->saved[2] = read_sysctl(JIT_HARDEN);
	self->saved[3] = read_sysctl(PARANOID);
	ASSERT_EQ(0, write_sysctl(PARANOID, 2));
	ASSERT_EQ(0, apply(&(struct setting){ 0, 1, 0 }));
	snprintf(self->probe, sizeof(self->probe), "priv_%d", getpid() % 100000);
	self->probe_fd = load_tiny_prog(self->probe);
	ASSERT_LE(0, self->probe_fd);
	ASSERT_EQ(0, prog_syms(self->probe_fd, &ps));
	self->probe_addr = ps.addr[0];
	ASSERT_EQ(0, bpf_obj_get_info_by_fd(self->probe_fd, &info, &info_len));
	self->probe_id = info.id;
	ASSERT_EQ(0, query(&q, KALLSYMS_QUERY_BY_SYMBOL, 0, CORE_SYM, buf));
	self->core_addr = q.sym_addr;
}

/* In the parent, so that the sysctls come back even when a test fails midway. */
FIXTURE_TEARDOWN_PARENT(matrix)
{
	write_sysctl(KPTR, self->saved[0]);
	write_sysctl(JIT_KALLSYMS, self->saved[1]);
	write_sysctl(JIT_HARDEN, self->saved[2]);
	write_sysctl(PARANOID, self->saved[3]);
}

static void compare(struct __test_metadata *_metadata, enum who who, const struct setting *st,
		    const struct seen *got, const struct seen *want, int *bad)
{
#define FIELD(f)								\
	do {									\
		if (got->f != want->f) {					\
			TH_LOG("%s, kptr_restrict=%d bpf_jit_kallsyms=%d bpf_jit_harden=%d: " \
			       #f " is %d, mainline gives %d", who_name[who], st->kptr, \
			       st->kallsyms, st->harden, got->f, want->f);	\
			(*bad)++;						\
		}								\
	} while (0)
	FIELD(text_bpf_lines);
	FIELD(text_bpf_addr);
	FIELD(text_core_addr);
	FIELD(ioctl_addr);
	FIELD(ioctl_name);
	FIELD(ioctl_gen);
	FIELD(ioctl_id);
	FIELD(ioctl_batch);
	FIELD(iter_loaded);
	FIELD(iter_bpf_lines);
	FIELD(iter_bpf_addr);
	FIELD(iter_core_addr);
#undef FIELD
}

/* Every setting for @who, each looked at by a fresh child with @who's credentials. */
static void run_matrix(struct __test_metadata *_metadata, FIXTURE_DATA(matrix) *self,
		       enum who who)
{
	struct setting st;
	int bad = 0;

	for (st.kptr = 0; st.kptr <= 2; st.kptr++)
		for (st.kallsyms = 0; st.kallsyms <= 1; st.kallsyms++)
			for (st.harden = 0; st.harden <= 2; st.harden++) {
				struct seen got = {}, want = expected(who, &st);
				int pipefd[2], status;
				pid_t pid;

				ASSERT_EQ(0, apply(&st));
				ASSERT_EQ(0, pipe(pipefd));
				pid = fork();
				ASSERT_LE(0, pid);
				if (pid == 0) {
					struct seen s = {};

					if (who != ROOT && drop_to(caps_of[who]))
						_exit(10);
					look_at_text(self->probe, self->probe_addr, &s);
					look_at_ioctl(self->probe, self->probe_addr,
						      self->probe_id, self->core_addr, &s);
					look_at_iter(self->probe, self->probe_addr, &s);
					if (write(pipefd[1], &s, sizeof(s)) != sizeof(s))
						_exit(11);
					_exit(0);
				}
				close(pipefd[1]);
				/*
				 * Its report fits in the pipe: it has exited without
				 * waiting for us.
				 */
				ASSERT_EQ(pid, waitpid(pid, &status, 0));
				/* Exit status 10: could not drop to @who's credentials. */
				ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0)
					TH_LOG("child for %s failed (status %#x)", who_name[who],
					       status);
				ASSERT_EQ(sizeof(got), read(pipefd[0], &got, sizeof(got)));
				close(pipefd[0]);
				compare(_metadata, who, &st, &got, &want, &bad);
			}
	ASSERT_EQ(0, bad) TH_LOG("%d answers differ from mainline's rules", bad);
}

/* 18 children each, loading an iterator: minutes on debug kernels (ksym_util.h's timeout). */
TEST_F(matrix, root) { run_matrix(_metadata, self, ROOT); }
TEST_F(matrix, nobody) { run_matrix(_metadata, self, NOBODY); }
TEST_F(matrix, cap_syslog_only) { run_matrix(_metadata, self, SYSLOG_ONLY); }
TEST_F(matrix, cap_bpf_and_cap_perfmon) { run_matrix(_metadata, self, BPF_PERFMON); }

TEST_HARNESS_MAIN
