// SPDX-License-Identifier: GPL-2.0
/*
 * Upstream's iter/ksym program, tools/testing/selftests/bpf/progs/bpf_iter_ksym.c
 * as the patch "bpf: Pass a NULL ksym to iter/ksym programs at stop" leaves it
 * (bpf_iter_ksym.bpf.o here), pinned with bpftool as a
 * user would: every line of its output is whole, and names the symbol that
 * mainline's iterator has at the same place: /proc/kallsyms on the C
 * registry's kernel; on the Rust registry's, where /proc/kallsyms and
 * iter/ksym share the Rust walk and would agree with each other, mainline's
 * C iterator kept beside it (CONFIG_KALLSYMS_ITER_C_REFERENCE, debugfs
 * kallsyms_c), and the test skips without it.
 *
 * What the program prints, and so what is checked:
 *
 *   ADDR TYPE NAME MODULE_NAME KIND MAX_SIZE      for symbol 0, which gets no line
 *   <empty>                                       what symbol 1 prints to end the
 *                                                 previous line, already ended
 *   0x<addr> <type> <name> [ [ <module> ] ] <KIND> [0x<max size>]
 *                                                 for symbols 1 .. n-1
 *
 * A symbol's line gets its max size, the low 32 bits of the next symbol's address
 * minus its own, when the program sees the next symbol, and only if its own
 * address is not 0; the last line gets none, and is ended at stop. (The program
 * keeps the last address in a global, which the kernel does not roll back when it
 * drops the output of a call that overflowed its 32 KB buffer, to run it again in
 * the next read(): a line there gets max size 0. Reads of 4 KB never overflow, so
 * the test reads so and checks every max size.) KIND is where
 * the walk is: MOD (vmlinux and modules), FTRACE_MOD, BPF, KPROBE. Nameless
 * symbols (each module's symbol 0) get a line with an empty name; /proc/kallsyms
 * skips them. Module and BPF symbols' types are upper case if exported, lower case
 * if not, in both.
 */
#include <fcntl.h>
#include <sys/stat.h>

#include "kselftest_harness.h"
#include "ksym_util.h"

#define PIN "/sys/fs/bpf/iter_ksym_upstream"
#define OBJ "bpf_iter_ksym.bpf.o"
#define HEADER "ADDR TYPE NAME MODULE_NAME KIND MAX_SIZE"
/* Mainline's iterator in a Rust-registry test kernel (see the top). */

/* One symbol line of the program's output; the strings point into the line. */
struct up_line {
	unsigned long long addr;
	char type;
	const char *name;	/* "" for a nameless symbol */
	const char *mod;	/* "" for vmlinux */
	const char *kind;
	int rank;		/* of kind, in walk order */
	bool has_size;
	unsigned int size;
};

static const char *const kinds[] = { "MOD", "FTRACE_MOD", "BPF", "KPROBE" };

/* "0x" and hex digits, nothing else; false otherwise. */
static bool parse_hex(const char *s, unsigned long long *v)
{
	char *end;

	if (strncmp(s, "0x", 2) || !s[2])
		return false;
	errno = 0;
	*v = strtoull(s + 2, &end, 16);
	return !*end && !errno;
}

/*
 * Split @line (NUL-terminated, without its newline; modified) into @l:
 * "0x<addr> <t> <name> [ <mod> ] <KIND> [0x<size>]", fields separated by one
 * space, and a space after KIND even without a size. False for anything else.
 */
static bool parse_up_line(char *line, struct up_line *l)
{
	char *tok[9], *s = line, *last;
	unsigned long long size;
	int n = 0, i;

	while (n < 9 && (tok[n] = strsep(&s, " ")))
		n++;
	if (s || (n != 5 && n != 8))
		return false;
	if (!parse_hex(tok[0], &l->addr) || strlen(tok[1]) != 1)
		return false;
	l->type = tok[1][0];
	l->name = tok[2];
	if (n == 8) {
		if (strcmp(tok[3], "[") || !tok[4][0] || strcmp(tok[5], "]"))
			return false;
		l->mod = tok[4];
	} else {
		l->mod = "";
	}
	l->kind = tok[n - 2];
	last = tok[n - 1];
	l->rank = -1;
	for (i = 0; i < 4; i++)
		if (!strcmp(l->kind, kinds[i]))
			l->rank = i;
	if (l->rank < 0)
		return false;
	l->has_size = last[0];
	if (l->has_size && (!parse_hex(last, &size) || size > 0xffffffffULL))
		return false;
	l->size = l->has_size ? size : 0;
	return true;
}

/* The next line of *@p, NUL-terminated in place; NULL at the end or if not ended. */
static char *next_line(char **p)
{
	char *line = *p, *nl;

	if (!*line)
		return NULL;
	nl = strchr(line, '\n');
	if (!nl)
		return NULL;
	*nl = 0;
	*p = nl + 1;
	return line;
}

static size_t count_lines(const char *s)
{
	size_t n = 0;

	for (; *s; s++)
		n += *s == '\n';
	return n;
}

/* All of @path, or NULL; errno tells a failed read, as slurp_fd() stops silently. */
static char *read_file(const char *path)
{
	int fd = open(path, O_RDONLY);
	char *text;

	if (fd < 0)
		return NULL;
	errno = 0;
	text = slurp_fd(fd);
	if (text && errno) {
		free(text);
		text = NULL;
	}
	close(fd);
	return text;
}

/* All of @path, read @chunk bytes at a time, or NULL (errno says why). */
static char *read_chunked(const char *path, size_t chunk)
{
	size_t cap = 1 << 20, len = 0;
	char *buf = malloc(cap), *bigger;
	int fd = open(path, O_RDONLY), err = 0;
	ssize_t r = 0;

	while (buf && fd >= 0 && (r = read(fd, buf + len, chunk)) > 0) {
		len += r;
		if (cap - len <= chunk) {
			bigger = realloc(buf, cap *= 2);
			if (!bigger)
				free(buf);
			buf = bigger;
		}
	}
	if (fd < 0 || r < 0 || !buf) {
		err = fd < 0 || r < 0 ? errno : ENOMEM;
		free(buf);
		buf = NULL;
	} else {
		buf[len] = 0;
	}
	if (fd >= 0)
		close(fd);
	errno = err;
	return buf;
}

/*
 * Earlier tests' programs, and the ones libbpf probes the kernel with when
 * bpftool loads, may still be going: wait up to 10 s for two reads of
 * /proc/kallsyms 100 ms apart to agree, so that nothing is loaded or unloaded
 * between the two reads this test compares.
 */
static bool kallsyms_settled(void)
{
	char *a = read_file("/proc/kallsyms"), *b;
	int i;

	for (i = 0; a && i < 100; i++) {
		usleep(100000);
		b = read_file("/proc/kallsyms");
		if (b && !strcmp(a, b)) {
			free(a);
			free(b);
			return true;
		}
		free(a);
		a = b;
	}
	free(a);
	return false;
}

FIXTURE(upstream) {};

FIXTURE_SETUP(upstream)
{
	unlink(PIN);
}

/* Unpinning the link frees the program: later tests see none of it. */
FIXTURE_TEARDOWN(upstream)
{
	unlink(PIN);
}

TEST_F(upstream, pinned_bpf_iter_ksym_lines_are_whole_and_match_mainline_kallsyms)
{
	char cmd[2 * PATH_MAX], want[700];
	char *iter_out, *text, *ip, *kp, *a, *b, *head;
	const char *ref;
	struct up_line prev = {}, l;
	int ilno, klno, named = 0, nameless = 0, bpf = 0, own = 0, zero = 0, rank = 0;
	size_t kallsyms_lines;
	struct stat st;
	size_t n;

	/* Built from this kernel's BTF by the Makefile (vmlinux.h), if it found one. */
	if (stat(test_file(OBJ), &st))
		SKIP(return, "%s missing: built without a vmlinux with BTF", test_file(OBJ));
	if (!have_tool("bpftool"))
		SKIP(return, "bpftool not on $PATH");
	/* As a user would: bpftool loads the object and pins its iterator link. */
	snprintf(cmd, sizeof(cmd), "bpftool iter pin %s " PIN " 2>&1", test_file(OBJ));
	ASSERT_EQ(0, system(cmd)) TH_LOG("%s failed", cmd);
	ASSERT_TRUE(kallsyms_settled()) TH_LOG("/proc/kallsyms still changing after 10 s");

	/* Once only, so that the program's last address starts at 0; 4 KB reads (above). */
	iter_out = read_chunked(PIN, 4096);
	ASSERT_NE(NULL, iter_out) TH_LOG("reading %s: %s", PIN, strerror(errno));
	ref = kallsyms_reference();
	if (access(ref, R_OK))
		SKIP(return, "no %s: build with CONFIG_KALLSYMS_ITER_C_REFERENCE=y", ref);
	text = read_file(ref);
	ASSERT_NE(NULL, text) TH_LOG("reading %s: %s", ref, strerror(errno));
	kallsyms_lines = count_lines(text);

	/* The fix: the program ends its last line at stop. */
	n = strlen(iter_out);
	ASSERT_LT(0, n);
	ASSERT_EQ('\n', iter_out[n - 1])
		TH_LOG("last line not ended: '%s'",
		       strrchr(iter_out, '\n') ? strrchr(iter_out, '\n') + 1 : iter_out);

	ip = iter_out;
	kp = text;
	head = next_line(&ip);
	ASSERT_NE(NULL, head);
	ASSERT_STREQ(HEADER, head);
	a = next_line(&ip);
	ASSERT_NE(NULL, a);
	ASSERT_STREQ("", a) TH_LOG("line 2 should be empty (symbol 1 ends the header line)");
	/* Symbol 0 (/proc/kallsyms' line 1, always named) has no line of its own. */
	ASSERT_NE(NULL, next_line(&kp));
	klno = 1;

	for (ilno = 3; (a = next_line(&ip)); ilno++) {
		char copy[1024];

		snprintf(copy, sizeof(copy), "%s", a);
		ASSERT_TRUE(parse_up_line(a, &l)) TH_LOG("line %d malformed: '%s'", ilno, copy);
		/* The previous line's max size: known now, from this symbol's address. */
		if (ilno > 3) {
			ASSERT_EQ(prev.addr != 0, prev.has_size)
				TH_LOG("line %d (address 0x%llx) %s a max size", ilno - 1,
				       prev.addr, prev.has_size ? "has" : "lacks");
			if (prev.has_size)
				ASSERT_EQ((unsigned int)(l.addr - prev.addr), prev.size)
					TH_LOG("line %d: max size 0x%x, next address 0x%llx",
					       ilno - 1, prev.size, l.addr);
		}
		/* Kinds in walk order; vmlinux is MOD, bpf is BPF, kprobes is KPROBE. */
		ASSERT_LE(rank, l.rank) TH_LOG("line %d: %s after %s", ilno, l.kind, kinds[rank]);
		rank = l.rank;
		if (!l.mod[0])
			ASSERT_STREQ("MOD", l.kind) TH_LOG("line %d: '%s'", ilno, copy);
		ASSERT_EQ(!strcmp(l.mod, "bpf"), !strcmp(l.kind, "BPF"))
			TH_LOG("line %d: '%s'", ilno, copy);
		ASSERT_EQ(!strcmp(l.mod, "__builtin__kprobes"), !strcmp(l.kind, "KPROBE"))
			TH_LOG("line %d: '%s'", ilno, copy);
		zero += !l.addr;
		prev = l;
		if (!l.name[0]) {
			nameless++;
			continue;
		}

		/* The same symbol, in /proc/kallsyms' spelling. */
		if (l.mod[0])
			snprintf(want, sizeof(want), "%016llx %c %s\t[%s]", l.addr, l.type, l.name,
				 l.mod);
		else
			snprintf(want, sizeof(want), "%016llx %c %s", l.addr, l.type, l.name);
		b = next_line(&kp);
		klno++;
		ASSERT_NE(NULL, b)
			TH_LOG("iter line %d, '%s', is past the end of %s (%zu lines)",
			       ilno, copy, ref, kallsyms_lines);
		ASSERT_STREQ(want, b)
			TH_LOG("first difference: iter line %d '%s', %s line %d", ilno,
			       copy, ref, klno);
		named++;
		if (!strcmp(l.mod, "bpf")) {
			bpf++;
			n = strlen(l.name);
			own += !strncmp(l.name, "bpf_prog_", 9) && n > 10 &&
			       !strcmp(l.name + n - 10, "_dump_ksym");
		}
	}
	ASSERT_EQ(0, *ip) TH_LOG("line %d not ended: '%s'", ilno, ip);
	ASSERT_LT(3, ilno) TH_LOG("no symbol lines");
	ASSERT_FALSE(prev.has_size) TH_LOG("the last line, %d, has a max size", ilno - 1);
	b = next_line(&kp);
	ASSERT_EQ(NULL, b) TH_LOG("%s line %d, '%s', is past the iterator's end",
				  ref, klno + 1, b);
	/* The header stands for symbol 0's line: as many lines as /proc/kallsyms. */
	ASSERT_EQ(kallsyms_lines, (size_t)named + 1);
	ASSERT_LT(10000, named);
	ASSERT_EQ(1, own) TH_LOG("want one bpf_prog_<tag>_dump_ksym line: the pinned program");
	TH_LOG("%zu lines as in %s, the header and %d named symbols; also %d nameless;"
	       " %d at address 0, %d BPF", kallsyms_lines, ref, named, nameless, zero, bpf);
	free(iter_out);
	free(text);
}

TEST_HARNESS_MAIN
