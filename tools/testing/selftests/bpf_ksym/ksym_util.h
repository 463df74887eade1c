/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers shared by the bpf_ksym kselftests and tools/bpf/bpf_ksym_bench:
 * /proc/kallsyms parsing, loading programs, KALLSYMS_QUERY. The uapi comes
 * from this tree's headers (KHDR_INCLUDES, after make headers_install).
 */
#ifndef KSYM_UTIL_H
#define KSYM_UTIL_H

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <unistd.h>
#include <linux/kallsyms_query.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "kselftest.h"

/*
 * Every test here gets 10 minutes instead of the harness's 30 s: on a debug
 * kernel (KASAN, lockdep) under TCG the churn tests take minutes. Included
 * after kselftest_harness.h, whose TEST() expands this where it is used.
 */
#ifdef TEST_TIMEOUT_DEFAULT
#undef TEST_TIMEOUT_DEFAULT
#define TEST_TIMEOUT_DEFAULT 600
#endif

/*
 * Every test loads BPF programs, reads real addresses or changes sysctls:
 * without root there is nothing to test.
 */
__attribute__((constructor)) static void ksym_need_root(void)
{
	if (geteuid())
		ksft_exit_skip("the bpf_ksym tests need root\n");
}

/* Is @tool on $PATH? For tests that run perf or bpftool as users do. */
static inline bool have_tool(const char *tool)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "command -v %s >/dev/null 2>&1", tool);
	return system(cmd) == 0;
}

#define JIT_KALLSYMS "/proc/sys/net/core/bpf_jit_kallsyms"
#define JIT_HARDEN "/proc/sys/net/core/bpf_jit_harden"

/* Write @v to the sysctl file @path; 0 or -errno. */
static inline int write_sysctl(const char *path, int v)
{
	char s[16];
	int fd = open(path, O_WRONLY), n;

	if (fd < 0)
		return -errno;
	n = snprintf(s, sizeof(s), "%d", v);
	n = write(fd, s, n) == n ? 0 : -errno;
	close(fd);
	return n;
}

/* The integer in the sysctl file @path, or -1. */
static inline int read_sysctl(const char *path)
{
	FILE *f = fopen(path, "r");
	int v = -1;

	if (f) {
		if (fscanf(f, "%d", &v) != 1)
			v = -1;
		fclose(f);
	}
	return v;
}

#define MAX_FUNCS 8

struct prog_syms {
	int nr;
	unsigned long long addr[MAX_FUNCS];
	unsigned int len[MAX_FUNCS];
	char tag[17];
};

/* Addresses, sizes and tag of a loaded program, as bpftool reads them. */
static inline int prog_syms(int fd, struct prog_syms *ps)
{
	struct bpf_prog_info info = {};
	__u32 info_len = sizeof(info);
	int i;

	memset(ps, 0, sizeof(*ps));
	info.nr_jited_ksyms = MAX_FUNCS;
	info.jited_ksyms = (__u64)(unsigned long)ps->addr;
	info.nr_jited_func_lens = MAX_FUNCS;
	info.jited_func_lens = (__u64)(unsigned long)ps->len;
	if (bpf_obj_get_info_by_fd(fd, &info, &info_len))
		return -errno;
	ps->nr = info.nr_jited_ksyms;
	for (i = 0; i < 8; i++)
		sprintf(ps->tag + 2 * i, "%02x", info.tag[i]);
	return 0;
}

struct kline {
	unsigned long long addr;
	char type;
	char sym[512];
	char mod[64];	/* "[bpf]", "[module]" or "" for core symbols */
};

/* Parse the next /proc/kallsyms line of @f into @k; 0 at the end. */
static inline int next_kline(FILE *f, struct kline *k)
{
	char line[1024];
	int n;

	while (fgets(line, sizeof(line), f)) {
		n = sscanf(line, "%llx %c %511s %63s", &k->addr, &k->type, k->sym, k->mod);
		if (n < 3)
			continue;
		if (n == 3)
			k->mod[0] = 0;
		return 1;
	}
	return 0;
}

/* One line of the iter/ksym dump (ksym_kinds.bpf.c): "<kind> <addr> <t> <name> <mod>". */
struct iter_line {
	char kind[16];	/* "core", "module", "bpf", ... */
	unsigned long long addr;
	char type;
	char name[512];
	char mod[64];	/* "-" for core symbols */
};

/* Parse @line into @l; false for a line without all five fields (a nameless symbol). */
static inline bool parse_iter_line(const char *line, struct iter_line *l)
{
	return sscanf(line, "%15s %llx %c %511s %63s", l->kind, &l->addr, &l->type, l->name,
		      l->mod) == 5;
}

/*
 * All of @fd up to EOF, NUL-terminated, in a malloc()ed buffer; NULL if out of
 * memory. A read() that fails ends it too, with errno set: a caller that
 * clears errno first can tell.
 */
static inline char *slurp_fd(int fd)
{
	size_t cap = 1 << 20, len = 0;
	char *buf = malloc(cap), *bigger;
	ssize_t r;

	while (buf && (r = read(fd, buf + len, cap - len - 1)) > 0) {
		len += r;
		if (cap - len < 4096) {
			bigger = realloc(buf, cap *= 2);
			if (!bigger)
				free(buf);
			buf = bigger;
		}
	}
	if (buf)
		buf[len] = 0;
	return buf;
}

/*
 * Find the /proc/kallsyms line of the BPF symbol at @addr. Returns how many
 * such lines there are and copies the name of the last one.
 */
static inline int kallsyms_bpf_at(unsigned long long addr, char *name, size_t size)
{
	FILE *f = fopen("/proc/kallsyms", "r");
	struct kline k;
	int n = 0;

	if (!f)
		return -errno;
	while (next_kline(f, &k)) {
		if (k.addr != addr || strcmp(k.mod, "[bpf]") || k.type != 't')
			continue;
		snprintf(name, size, "%s", k.sym);
		n++;
	}
	fclose(f);
	return n;
}

#define KS_NONZERO	1	/* only lines with a non-zero address */
#define KS_BPF_TEXT	2	/* only "t ... [bpf]" lines */

/* Lines naming @name that pass the KS_* @filter. */
static inline int kallsyms_count(const char *name, int filter)
{
	FILE *f = fopen("/proc/kallsyms", "r");
	struct kline k;
	int n = 0;

	if (!f)
		return -errno;
	while (next_kline(f, &k))
		if (!strcmp(k.sym, name) && (!(filter & KS_NONZERO) || k.addr) &&
		    (!(filter & KS_BPF_TEXT) || (k.type == 't' && !strcmp(k.mod, "[bpf]"))))
			n++;
	fclose(f);
	return n;
}

/*
 * Whether this is the C registry's kernel: only ours has the Rust registry's
 * init, bpf_ksym_init(), whatever the command line says.
 */
static inline bool c_registry_kernel(void)
{
	return kallsyms_count("bpf_ksym_init", 0) == 0;
}

/* Mainline's /proc/kallsyms iterator, which CONFIG_KALLSYMS_ITER_C_REFERENCE keeps in ours. */
#define KALLSYMS_C_REFERENCE "/sys/kernel/debug/kallsyms_c"

/*
 * The file with mainline's iterator's lines, to compare ours with: on the C
 * registry's kernel /proc/kallsyms itself, on ours the reference, since its
 * /proc/kallsyms is the walk under test.
 */
static inline const char *kallsyms_reference(void)
{
	return c_registry_kernel() ? "/proc/kallsyms" : KALLSYMS_C_REFERENCE;
}

/*
 * Programs are freed after an RCU grace period, trampolines after an RCU-tasks
 * one: poll up to 10 s for the symbol to go.
 */
static inline int wait_gone(const char *name)
{
	int i;

	for (i = 0; i < 200; i++) {
		if (kallsyms_count(name, 0) == 0)
			return 0;
		usleep(50000);
	}
	return -1;
}

/*
 * @file in the directory of this test's executable: kselftest installs a
 * target's programs, objects and modules together, and may run them from
 * anywhere. Returns a buffer of the calling thread's own (the stress test
 * opens objects from several threads at once), or @file if /proc/self/exe is
 * unreadable.
 */
static inline const char *test_file(const char *file)
{
	static __thread char path[PATH_MAX], out[PATH_MAX + 64];
	ssize_t n = readlink("/proc/self/exe", path, sizeof(path) - 1);

	if (n < 0)
		return file;
	path[n] = 0;
	snprintf(out, sizeof(out), "%s/%s", dirname(path), file);
	return out;
}

static inline struct bpf_object *open_obj(const char *file)
{
	struct bpf_object *o = bpf_object__open_file(test_file(file), NULL);

	if (!o || libbpf_get_error(o))
		return NULL;
	if (bpf_object__load(o)) {
		bpf_object__close(o);
		return NULL;
	}
	return o;
}

/* The programs of ksym_progs.bpf.c, loaded. */
static inline struct bpf_object *open_progs(void)
{
	return open_obj("ksym_progs.bpf.o");
}

static inline int prog_fd(struct bpf_object *o, const char *name)
{
	return bpf_program__fd(bpf_object__find_program_by_name(o, name));
}

/* Room for many programs: each holds a file descriptor. */
static inline void raise_nofile(void)
{
	struct rlimit r = { 1 << 16, 1 << 16 };

	setrlimit(RLIMIT_NOFILE, &r);
}

/* Load a 2-instruction socket filter named @name; returns its fd. */
static inline int load_tiny_prog(const char *name)
{
	struct bpf_insn insns[] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0, .imm = 0 },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	LIBBPF_OPTS(bpf_prog_load_opts, opts);

	return bpf_prog_load(BPF_PROG_TYPE_SOCKET_FILTER, name, "GPL", insns, 2, &opts);
}

/*
 * KALLSYMS_QUERY on @fd: BY_ADDR of @addr with the name into
 * @buf (@size bytes), or BY_SYMBOL of @name (then @buf is unused). Returns 0
 * or -errno.
 */
static inline int kq_query(int fd, struct kallsyms_query *q, __u64 flags, __u64 addr,
			   const char *name, char *buf, __u64 size)
{
	memset(q, 0, sizeof(*q));
	q->size = sizeof(*q);
	q->query_flags = flags;
	if (flags & KALLSYMS_QUERY_BY_ADDR) {
		q->sym_addr = addr;
		q->sym_name_addr = (unsigned long)buf;
		q->sym_name_size = size;
	} else {
		q->sym_name_addr = (unsigned long)name;
	}
	return ioctl(fd, KALLSYMS_QUERY, q) ? -errno : 0;
}

#endif /* KSYM_UTIL_H */
