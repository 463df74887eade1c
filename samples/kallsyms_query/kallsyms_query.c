// SPDX-License-Identifier: GPL-2.0
/*
 * Sample: point queries on /proc/kallsyms with the KALLSYMS_QUERY ioctl.
 *
 *   kallsyms_query name <symbol>     print the symbol's address
 *   kallsyms_query addr <address>    print the symbol covering the address,
 *                                    its start, size and owner
 *
 * Run as root (or with CAP_SYSLOG and kptr_restrict < 2): other openers get
 * EPERM, as they would get zero addresses from the text file.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>
#include <linux/kallsyms_query.h>

static const char *explain(int err)
{
	switch (err) {
	case ENOENT:
		return "no such symbol";
	case EADDRNOTAVAIL:
		return "the name is at more than one address";
	case ENAMETOOLONG:
		return "name too long (at most 511 bytes)";
	case EPERM:
		return "addresses are hidden from you (run as root; see kptr_restrict)";
	case ENOTTY:
		return "this kernel has no KALLSYMS_QUERY (CONFIG_KALLSYMS_QUERY)";
	default:
		return strerror(err);
	}
}

int main(int argc, char **argv)
{
	struct kallsyms_query q = { .size = sizeof(q) };
	char name[512];
	int fd;

	if (argc != 3 || (strcmp(argv[1], "name") && strcmp(argv[1], "addr"))) {
		fprintf(stderr, "usage: %s name <symbol> | addr <address>\n", argv[0]);
		return 2;
	}
	fd = open("/proc/kallsyms", O_RDONLY);
	if (fd < 0) {
		perror("/proc/kallsyms");
		return 1;
	}
	if (!strcmp(argv[1], "name")) {
		q.query_flags = KALLSYMS_QUERY_BY_SYMBOL;
		q.sym_name_addr = (unsigned long)argv[2];
	} else {
		q.query_flags = KALLSYMS_QUERY_BY_ADDR;
		q.sym_addr = strtoull(argv[2], NULL, 16);
		q.sym_name_addr = (unsigned long)name;
		q.sym_name_size = sizeof(name);
	}
	if (ioctl(fd, KALLSYMS_QUERY, &q)) {
		fprintf(stderr, "%s %s: %s\n", argv[1], argv[2], explain(errno));
		return 1;
	}
	if (q.query_flags == KALLSYMS_QUERY_BY_SYMBOL)
		printf("%016llx %s\n", (unsigned long long)q.sym_addr, argv[2]);
	else
		printf("%s+0x%llx/0x%llx [%s] start %016llx\n", name,
		       (unsigned long long)(q.sym_addr - q.sym_start),
		       (unsigned long long)q.sym_size,
		       q.sym_owner[0] ? q.sym_owner : "vmlinux",
		       (unsigned long long)q.sym_start);
	close(fd);
	return 0;
}
