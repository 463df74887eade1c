// SPDX-License-Identifier: GPL-2.0
/*
 * KALLSYMS_QUERY example: symbolize one address.
 *
 * Finds the address of vfs_read with BY_SYMBOL, asks BY_ADDR which symbol
 * covers that address, and prints the answer as name+offset/size [owner],
 * with its kind and the generation it holds for.
 *
 * Exit status: 0 if the answer is vfs_read at that address, 1 if not (or on
 * an unexpected error), 4 (skip) if the kernel has no KALLSYMS_QUERY version 2
 * or hides addresses from this process. Run as root.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <linux/kallsyms_query.h>

#define KSFT_SKIP 4

static const char *const wanted = "vfs_read";

/* Prints a message naming what went wrong and exits with @status. */
#define quit(status, ...)							\
	do {									\
		fprintf(stderr, __VA_ARGS__);					\
		fputc('\n', stderr);						\
		exit(status);							\
	} while (0)

/* One call: 0 or the errno. EINTR means nothing was done: call again. */
static int query(int fd, struct kallsyms_query *q)
{
	while (ioctl(fd, KALLSYMS_QUERY, q))
		if (errno != EINTR)
			return errno;
	return 0;
}

/*
 * Opens /proc/kallsyms and probes for version 2 with a GENERATION call: a
 * kernel without the ioctl fails it with ENOTTY, one older than version 2 with
 * EINVAL; one that has it fails every call with EPERM if this opener may not
 * see addresses.
 */
static int open_kallsyms(void)
{
	struct kallsyms_query q = {
		.size = sizeof(q),
		.query_flags = KALLSYMS_QUERY_GENERATION,
	};
	int fd = open("/proc/kallsyms", O_RDONLY), err;

	if (fd < 0)
		quit(1, "open /proc/kallsyms: %s", strerror(errno));
	err = query(fd, &q);
	switch (err) {
	case 0:
		return fd;
	case ENOTTY:
		quit(KSFT_SKIP, "skip: this kernel has no KALLSYMS_QUERY");
	case EINVAL:
		quit(KSFT_SKIP, "skip: this kernel's KALLSYMS_QUERY is older than version 2");
	case EPERM:
		quit(KSFT_SKIP, "skip: /proc/kallsyms hides addresses from this process");
	default:
		quit(1, "GENERATION: %s", strerror(err));
	}
}

static const char *kind_name(__u32 kind)
{
	static const char *const names[KALLSYMS_SYM_MODULE_INIT + 1] = {
		[KALLSYMS_SYM_NONE] = "none",
		[KALLSYMS_SYM_VMLINUX] = "vmlinux",
		[KALLSYMS_SYM_MODULE] = "module",
		[KALLSYMS_SYM_BPF_PROG] = "bpf_prog",
		[KALLSYMS_SYM_BPF_SUBPROG] = "bpf_subprog",
		[KALLSYMS_SYM_BPF_TRAMPOLINE] = "bpf_trampoline",
		[KALLSYMS_SYM_BPF_DISPATCHER] = "bpf_dispatcher",
		[KALLSYMS_SYM_BPF_IMAGE] = "bpf_image",
		[KALLSYMS_SYM_MODULE_INIT] = "module_init",
	};

	/* New kinds may be added: an unknown one is some other kernel code. */
	if (kind <= KALLSYMS_SYM_MODULE_INIT && names[kind])
		return names[kind];
	return "other";
}

int main(void)
{
	char name[KALLSYMS_QUERY_NAME_LEN];
	struct kallsyms_query q;
	__u64 addr;
	int fd, err;

	fd = open_kallsyms();

	/* BY_SYMBOL: the name in, the address out; sym_addr and sym_name_size stay 0. */
	q = (struct kallsyms_query){
		.size = sizeof(q),
		.query_flags = KALLSYMS_QUERY_BY_SYMBOL,
		.sym_name_addr = (uintptr_t)wanted,
	};
	err = query(fd, &q);
	if (err)
		quit(1, "BY_SYMBOL %s: %s", wanted, strerror(err));
	addr = q.sym_addr;

	/* BY_ADDR: the address in; the name goes to the buffer, the rest to the struct. */
	q = (struct kallsyms_query){
		.size = sizeof(q),
		.query_flags = KALLSYMS_QUERY_BY_ADDR,
		.sym_addr = addr,
		.sym_name_addr = (uintptr_t)name,
		.sym_name_size = sizeof(name),
	};
	err = query(fd, &q);
	if (err)
		quit(1, "BY_ADDR %#llx: %s", (unsigned long long)addr, strerror(err));

	/* sym_owner is "" for vmlinux, as %pS prints no owner for it. */
	printf("%#llx: %s+0x%llx/0x%llx%s%s%s kind %s generation %llu\n",
	       (unsigned long long)addr, name,
	       (unsigned long long)(addr - q.sym_start), (unsigned long long)q.sym_size,
	       q.sym_owner[0] ? " [" : "", q.sym_owner, q.sym_owner[0] ? "]" : "",
	       kind_name(q.sym_kind), (unsigned long long)q.generation);

	if (strcmp(name, wanted))
		quit(1, "BY_ADDR %#llx: name %s, expected %s", (unsigned long long)addr,
		     name, wanted);
	if (q.sym_name_size != strlen(name) + 1)
		quit(1, "BY_ADDR %#llx: sym_name_size %llu for a name of %zu bytes",
		     (unsigned long long)addr, (unsigned long long)q.sym_name_size,
		     strlen(name) + 1);
	if (q.sym_start != addr)
		quit(1, "BY_ADDR %#llx: sym_start %#llx, expected the BY_SYMBOL address",
		     (unsigned long long)addr, (unsigned long long)q.sym_start);
	return 0;
}
