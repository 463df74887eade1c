// SPDX-License-Identifier: GPL-2.0
/*
 * kqshim: a native stand-in for the KALLSYMS_QUERY ioctl (version 2), for
 * counting the system calls and instructions of its callers on a kernel
 * that lacks it. LD_PRELOAD it:
 *
 *	LD_PRELOAD=./kqshim.so ./kqbench ...
 *
 * At load time it reads /proc/kallsyms (as root, for real addresses) and
 * keeps its text symbols, sorted, each covering up to the next address
 * (or 4 KiB where that is over 64 KiB away: the end of a text section). Then every ioctl(fd, KALLSYMS_QUERY,
 * arg) first makes the real system call, so that strace counts it where
 * the kernel would; if that fails with ENOTTY, as it does on a kernel
 * without the ioctl, the shim answers as the header's kernel-doc says, for
 * whatever file the descriptor is (only /proc/kallsyms gets this number).
 * The work of answering is in kqshim_answer(), so that callgrind can leave
 * it out (--toggle-collect=kqshim_answer).
 *
 * Symbols of the file are vmlinux, module ([name]) or BPF ([bpf]) by their
 * owner. kqshim_add() and kqshim_del() (found with dlsym) add and remove a
 * symbol, as loading and unloading a BPF program would, and move the
 * generation by 2; KQSHIM_GENERATION sets its start (default 42).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "../../../include/uapi/linux/kallsyms_query.h"

struct sym {
	uint64_t start, size, prog_id;
	uint32_t kind, idx;
	const char *name, *owner;
};

static struct sym *syms;
static size_t nr_syms;
/* Symbols added at run time (BPF programs), searched first. */
static struct sym extra[64];
static size_t nr_extra;
static uint64_t generation = 42;

static int cmp_sym(const void *a, const void *b)
{
	const struct sym *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

static uint32_t kind_of(const char *name, const char *owner)
{
	if (!*owner)
		return KALLSYMS_SYM_VMLINUX;
	if (strcmp(owner, "bpf"))
		return KALLSYMS_SYM_MODULE;
	if (!strncmp(name, "bpf_prog_", 9))
		return KALLSYMS_SYM_BPF_PROG;
	if (!strncmp(name, "bpf_trampoline_", 15))
		return KALLSYMS_SYM_BPF_TRAMPOLINE;
	if (!strncmp(name, "bpf_dispatcher_", 15))
		return KALLSYMS_SYM_BPF_DISPATCHER;
	return KALLSYMS_SYM_BPF_IMAGE;
}

__attribute__((constructor)) static void kqshim_init(void)
{
	const char *gen = getenv("KQSHIM_GENERATION");
	char line[1024], name[600], owner[80], type;
	unsigned long long addr;
	size_t cap = 0, i, n;
	FILE *f;

	if (gen)
		generation = strtoull(gen, NULL, 0);
	f = fopen("/proc/kallsyms", "re");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		owner[0] = 0;
		if (sscanf(line, "%llx %c %599s [%79[^]]]", &addr, &type, name, owner) < 3)
			continue;
		if (!addr || !strchr("tTwW", type))
			continue;
		if (nr_syms == cap) {
			cap = cap ? 2 * cap : 65536;
			syms = realloc(syms, cap * sizeof(*syms));
			if (!syms)
				abort();
		}
		syms[nr_syms].start = addr;
		syms[nr_syms].name = strdup(name);
		syms[nr_syms].owner = strdup(owner);
		syms[nr_syms].kind = kind_of(name, owner);
		syms[nr_syms].prog_id = 0;
		nr_syms++;
	}
	fclose(f);
	/* Of names sharing an address, the file's first wins. */
	for (i = 0; i < nr_syms; i++)
		syms[i].idx = i;
	qsort(syms, nr_syms, sizeof(*syms), cmp_sym);
	for (i = 0, n = 0; i < nr_syms; i++) {
		if (n && syms[n - 1].start == syms[i].start)
			continue;
		syms[n++] = syms[i];
	}
	nr_syms = n;
	for (i = 0; i < nr_syms; i++) {
		uint64_t next = i + 1 < nr_syms ? syms[i + 1].start : syms[i].start + 4096;

		/* The last text symbol before a gap would cover the gap. */
		syms[i].size = next - syms[i].start;
		if (syms[i].size > 65536)
			syms[i].size = 4096;
	}
}

/* Add a symbol (a BPF program being loaded, say); 0 or -1. */
int kqshim_add(const char *name, const char *owner, uint64_t start, uint64_t size,
	       uint64_t prog_id)
{
	struct sym *s;

	if (nr_extra == sizeof(extra) / sizeof(extra[0]))
		return -1;
	s = &extra[nr_extra++];
	s->name = strdup(name);
	s->owner = strdup(owner);
	s->kind = kind_of(name, owner);
	s->start = start;
	s->size = size;
	s->prog_id = prog_id;
	generation += 2;
	return 0;
}

/* Remove the added symbol that starts at start; 0 or -1. */
int kqshim_del(uint64_t start)
{
	size_t i;

	for (i = 0; i < nr_extra; i++) {
		if (extra[i].start == start) {
			extra[i] = extra[--nr_extra];
			generation += 2;
			return 0;
		}
	}
	return -1;
}

static int is_bpf(uint32_t kind)
{
	return kind >= KALLSYMS_SYM_BPF_PROG && kind <= KALLSYMS_SYM_BPF_IMAGE;
}

static const struct sym *find(uint64_t addr)
{
	const struct sym *end_match = NULL;
	size_t lo = 0, hi = nr_syms, i;

	for (i = 0; i < nr_extra; i++) {
		uint64_t off = addr - extra[i].start;

		if (off == 0)
			return &extra[i];
		if (off < extra[i].size || (is_bpf(extra[i].kind) && off == extra[i].size))
			end_match = &extra[i];
	}
	if (end_match)
		return end_match;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (syms[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return NULL;
	if (addr - syms[lo - 1].start < syms[lo - 1].size)
		return &syms[lo - 1];
	return NULL;
}

static int by_addr(struct kallsyms_query *q)
{
	const struct sym *s = find(q->sym_addr);
	size_t len;

	if (!s)
		return -ENOENT;
	len = strlen(s->name) + 1;
	if (len > q->sym_name_size)
		return -ENAMETOOLONG;
	memcpy((void *)(uintptr_t)q->sym_name_addr, s->name, len);
	q->sym_name_size = len;
	q->sym_start = s->start;
	q->sym_size = s->size;
	memset(q->sym_owner, 0, sizeof(q->sym_owner));
	strncpy(q->sym_owner, s->owner, sizeof(q->sym_owner) - 1);
	q->sym_prog_id = s->prog_id;
	q->sym_kind = s->kind;
	q->sym_subprog = 0;
	return 0;
}

static int batch(struct kallsyms_query *q)
{
	struct kallsyms_query_addr *e;
	char *names = (char *)(uintptr_t)q->sym_name_addr;
	const struct sym *last = NULL;
	uint32_t last_name = 0, last_owner = 0;
	size_t used = 0, i;

	if (!q->batch_count || q->batch_entry_size < KALLSYMS_QUERY_ADDR_SIZE_VER0 ||
	    q->batch_entry_size % 8 || !q->sym_name_size || q->sym_addr)
		return -EINVAL;
	if (q->batch_count > KALLSYMS_QUERY_BATCH_MAX)
		return -E2BIG;
	for (i = 0; i < q->batch_count; i++) {
		const struct sym *s;
		size_t nl, ol;

		e = (void *)((char *)(uintptr_t)q->batch_addr + i * q->batch_entry_size);
		s = find(e->addr);
		if (!s) {
			uint64_t addr = e->addr;

			memset(e, 0, sizeof(*e));
			e->addr = addr;
			continue;
		}
		if (s == last) {
			e->name_off = last_name;
			e->owner_off = last_owner;
		} else {
			nl = strlen(s->name) + 1;
			ol = strlen(s->owner) + 1;
			if (used + nl + ol > q->sym_name_size) {
				if (!i)
					return -ENAMETOOLONG;
				break;
			}
			memcpy(names + used, s->name, nl);
			memcpy(names + used + nl, s->owner, ol);
			e->name_off = last_name = used;
			e->owner_off = last_owner = used + nl;
			used += nl + ol;
			last = s;
		}
		e->start = s->start;
		e->size = s->size;
		e->prog_id = s->prog_id;
		e->kind = s->kind;
		e->subprog = 0;
	}
	q->batch_count = i;
	q->sym_name_size = used;
	return 0;
}

static int by_symbol(struct kallsyms_query *q)
{
	const char *name = (const char *)(uintptr_t)q->sym_name_addr;
	size_t i;

	if (!*name)
		return -EINVAL;
	for (i = 0; i < nr_syms; i++) {
		if (syms[i].kind == KALLSYMS_SYM_VMLINUX && !strcmp(syms[i].name, name)) {
			q->sym_addr = syms[i].start;
			return 0;
		}
	}
	return -ENOENT;
}

/* Answer one call; 0 or a negative errno. Not inlined: see the top. */
__attribute__((noinline)) int kqshim_answer(struct kallsyms_query *q)
{
	struct kallsyms_query in;
	int err;

	if (q->size != KALLSYMS_QUERY_SIZE_VER2)
		return -EINVAL;
	in = *q;
	switch (q->query_flags) {
	case KALLSYMS_QUERY_GENERATION:
		err = 0;
		break;
	case KALLSYMS_QUERY_BY_ADDR:
		err = by_addr(q);
		break;
	case KALLSYMS_QUERY_BY_ADDR_BATCH:
		err = batch(q);
		break;
	case KALLSYMS_QUERY_BY_SYMBOL:
		err = by_symbol(q);
		break;
	default:
		err = -EINVAL;
	}
	if (err) {
		*q = in;
		return err;
	}
	q->generation = generation;
	return 0;
}

int ioctl(int fd, unsigned long request, ...)
{
	va_list ap;
	void *arg;
	long rc;
	int err;

	va_start(ap, request);
	arg = va_arg(ap, void *);
	va_end(ap);

	rc = syscall(SYS_ioctl, fd, request, arg);
	if (rc != -1 || errno != ENOTTY || request != KALLSYMS_QUERY)
		return rc;
	err = kqshim_answer(arg);
	if (err) {
		errno = -err;
		return -1;
	}
	return 0;
}
