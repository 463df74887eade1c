// SPDX-License-Identifier: GPL-2.0
/*
 * capi_check: symbolize kernel addresses through blazesym-c, as bpftrace
 * does: one blaze_symbolizer, and one blaze_symbolize_kernel_abs_addrs()
 * call per address with a default blaze_symbolize_src_kernel (kallsyms and
 * vmlinux NULL: the running kernel's).
 *
 * Reads hex addresses from stdin, one per line ("0x" optional), and prints
 * one line per address:
 *
 *	0x<addr> <name>+0x<offset> <module or ->
 *	0x<addr> -			(no symbol)
 *	0x<addr> error			(the call failed; exit status 1)
 *
 * With --lines, a symbol's line ends in its source line, or "-" if it has
 * none (the file as blazesym's code_info gives it, which may hold its
 * directory; the column 0 where unknown):
 *
 *	0x<addr> <name>+0x<offset> <module or -> <file>:<line>:<column>
 *
 * blazesym-check compare --capi runs it and compares its lines with what
 * the patched blazesym answered in Rust.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "blazesym.h"

static void print_sym(uint64_t addr, const struct blaze_sym *sym, int lines)
{
	const struct blaze_symbolize_code_info *ci = &sym->code_info;

	if (!sym->name) {
		printf("0x%" PRIx64 " -\n", addr);
		return;
	}
	printf("0x%" PRIx64 " %s+0x%zx %s", addr, sym->name, sym->offset,
	       sym->module ? sym->module : "-");
	if (lines && ci->file)
		printf(" %s:%" PRIu32 ":%u", ci->file, ci->line, ci->column);
	else if (lines)
		printf(" -");
	printf("\n");
}

int main(int argc, char **argv)
{
	struct blaze_symbolize_src_kernel src = {
		.type_size = sizeof(src),
	};
	blaze_symbolizer *symbolizer;
	unsigned long lineno = 0;
	char line[256];
	int err = 0, lines;

	lines = argc == 2 && !strcmp(argv[1], "--lines");
	if (argc > 2 || (argc == 2 && !lines)) {
		fprintf(stderr, "usage: capi_check [--lines] < ADDRESSES\n");
		return 2;
	}
	symbolizer = blaze_symbolizer_new();
	if (!symbolizer) {
		fprintf(stderr, "capi_check: blaze_symbolizer_new: %s\n",
			blaze_err_str(blaze_err_last()));
		return 1;
	}

	while (fgets(line, sizeof(line), stdin)) {
		const struct blaze_syms *syms;
		uint64_t addr;
		char *end;

		lineno++;
		if (line[strspn(line, " \t\r\n")] == '\0')
			continue;
		errno = 0;
		addr = strtoull(line, &end, 16);
		if (end == line || errno || end[strspn(end, " \t\r\n")] != '\0') {
			fprintf(stderr, "capi_check: line %lu: not a hex address\n", lineno);
			err = 1;
			break;
		}

		syms = blaze_symbolize_kernel_abs_addrs(symbolizer, &src, &addr, 1);
		if (!syms || syms->cnt != 1) {
			fprintf(stderr, "capi_check: 0x%" PRIx64 ": %s\n", addr,
				blaze_err_str(blaze_err_last()));
			printf("0x%" PRIx64 " error\n", addr);
			if (syms)
				blaze_syms_free(syms);
			err = 1;
			continue;
		}
		print_sym(addr, &syms->syms[0], lines);
		blaze_syms_free(syms);
	}

	blaze_symbolizer_free(symbolizer);
	if (fflush(stdout) || ferror(stdout)) {
		fprintf(stderr, "capi_check: write error\n");
		err = 1;
	}
	return err;
}
