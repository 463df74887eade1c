// SPDX-License-Identifier: GPL-2.0
/*
 * The Rust /proc/kallsyms iterator (CONFIG_BPF_KSYM_RUST) against mainline's C
 * one, which CONFIG_KALLSYMS_ITER_C_REFERENCE keeps in the same kernel as
 * /sys/kernel/debug/kallsyms_c: the same text, line for line, with every
 * section populated (core, a module, BPF programs, a subprogram, a trampoline,
 * the XDP dispatcher, kprobes' instruction page and, where the kernel makes
 * one, an ftrace trampoline); read whole, in 7-byte reads, from an lseek()
 * offset, again on a file already read to its end, and with addresses hidden
 * (kptr_restrict=2). Whether addresses show is the opener's privilege, kept
 * when the reader drops it.
 *
 * The C registry's kernel has only the C iterator: the test skips there, and
 * where the kernel lacks CONFIG_KALLSYMS_ITER_C_REFERENCE.
 */
#define _GNU_SOURCE	/* memmem() */
#include <fcntl.h>
#include <net/if.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include <linux/capability.h>
#include <linux/if_link.h>

#include "kselftest_harness.h"
#include "ksym_util.h"

#define RUST_FILE "/proc/kallsyms"
#define C_FILE KALLSYMS_C_REFERENCE
#define KPROBE_EVENTS "/sys/kernel/tracing/kprobe_events"
#define KPROBE_ENABLE "/sys/kernel/tracing/events/kprobes/kallsyms_iter_test/enable"
#define KPTR "/proc/sys/kernel/kptr_restrict"

/*
 * The whole of @path, read @chunk bytes at a time from offset @from (lseek).
 * With @again, the file is first read to its end and then sought back: the
 * iterator must forget where its sections ended.
 */
static char *read_file_again(const char *path, size_t chunk, off_t from, bool again,
			     size_t *len)
{
	size_t cap = 1 << 22, n = 0;
	char *buf = malloc(cap);
	int fd = open(path, O_RDONLY);
	ssize_t r;

	if (fd >= 0 && buf && again)
		while (read(fd, buf, cap) > 0)
			;
	if (fd < 0 || !buf || ((from || again) && lseek(fd, from, SEEK_SET) != from)) {
		if (fd >= 0)
			close(fd);
		free(buf);
		return NULL;
	}
	for (;;) {
		if (cap - n < chunk) {
			char *bigger = realloc(buf, cap * 2);

			if (!bigger) {
				r = -1;
				break;
			}
			buf = bigger;
			cap *= 2;
		}
		r = read(fd, buf + n, chunk);
		if (r <= 0)
			break;
		n += r;
	}
	close(fd);
	if (r < 0) {
		free(buf);
		return NULL;
	}
	*len = n;
	return buf;
}

static char *read_file(const char *path, size_t chunk, off_t from, size_t *len)
{
	return read_file_again(path, chunk, from, false, len);
}

/* Line and column of the first byte where @a and @b differ, printed with both lines. */
static void show_difference(const char *a, size_t alen, const char *b, size_t blen)
{
	size_t i, line = 1, start = 0;

	for (i = 0; i < alen && i < blen && a[i] == b[i]; i++)
		if (a[i] == '\n') {
			line++;
			start = i + 1;
		}
	fprintf(stderr, "# first difference at line %zu (sizes %zu and %zu)\n", line, alen, blen);
	fprintf(stderr, "#   rust: %.*s\n", (int)strcspn(a + start, "\n"),
		start < alen ? a + start : "");
	fprintf(stderr, "#   c:    %.*s\n", (int)strcspn(b + start, "\n"),
		start < blen ? b + start : "");
}

/*
 * The Rust file read with @chunk from @from equals the C file read whole from
 * @from. Symbols may come and go between the two reads (a kworker's ftrace
 * or a BPF program of another process): a difference counts only if it stays
 * for three tries in a row.
 */
static bool same_as_mainline_again(size_t chunk, off_t from, bool again, int *lines)
{
	int attempt;

	for (attempt = 0; attempt < 3; attempt++) {
		size_t rlen = 0, clen = 0;
		char *r = read_file_again(RUST_FILE, chunk, from, again, &rlen);
		char *c = read_file(C_FILE, 1 << 16, from, &clen);
		bool same = r && c && rlen == clen && !memcmp(r, c, rlen);

		if (same) {
			*lines = 0;
			for (size_t i = 0; i < rlen; i++)
				*lines += r[i] == '\n';
		} else if (attempt == 2 && r && c) {
			show_difference(r, rlen, c, clen);
		}
		free(r);
		free(c);
		if (same)
			return true;
	}
	return false;
}

static bool same_as_mainline(size_t chunk, off_t from, int *lines)
{
	return same_as_mainline_again(chunk, from, false, lines);
}

/* How many lines of @path have @owner ("[bpf]", ...) as their last column. */
static int owned_lines(const char *owner)
{
	FILE *f = fopen(RUST_FILE, "r");
	struct kline k;
	int n = 0;

	while (f && next_kline(f, &k))
		n += !strcmp(k.mod, owner);
	if (f)
		fclose(f);
	return n;
}

static int write_str(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY | O_APPEND), ok;

	if (fd < 0)
		return -1;
	ok = write(fd, s, strlen(s)) == (ssize_t)strlen(s);
	close(fd);
	return ok ? 0 : -1;
}

FIXTURE(scene) {
	struct bpf_object *progs, *kinds;
	struct bpf_link *fentry;
	int lo, kptr;
	bool module, kprobe;
};

static void remove_kprobe(void)
{
	write_str(KPROBE_ENABLE, "0\n");
	write_str(KPROBE_EVENTS, "-:kallsyms_iter_test\n");
}

/*
 * A kprobe on bpf_fentry_test2 that gets an instruction slot, hence a
 * [__builtin__kprobes] line. Only BPF_PROG_TEST_RUN of a tracing program calls
 * that function: patching one that another vCPU runs (vfs_read) can crash a
 * guest under QEMU 7.2's multi-threaded TCG (see "Known issues" in
 * Documentation/bpf/bpf_ksym.rst). At the ftrace site (after endbr64 with IBT) it
 * would be an ftrace kprobe (KPROBES_ON_FTRACE) with no slot, and offsets that
 * are not an instruction boundary are refused: the first offset that gives the
 * line is kept.
 */
static bool add_kprobe(void)
{
	char probe[64];
	int off;

	for (off = 1; off < 32; off++) {
		snprintf(probe, sizeof(probe), "p:kallsyms_iter_test bpf_fentry_test2+%d\n", off);
		if (write_str(KPROBE_EVENTS, probe))
			continue;
		if (!write_str(KPROBE_ENABLE, "1\n") && owned_lines("[__builtin__kprobes]") > 0)
			return true;
		remove_kprobe();
	}
	return false;
}

FIXTURE_SETUP(scene)
{
	char cmd[PATH_MAX + 16];
	struct bpf_program *fentry;

	memset(self, 0, sizeof(*self));
	self->kptr = -1;
	if (c_registry_kernel())
		SKIP(return, "the C registry's kernel has only mainline's iterator");
	if (access(C_FILE, R_OK))
		SKIP(return, "no %s: build with CONFIG_KALLSYMS_ITER_C_REFERENCE=y", C_FILE);
	self->kptr = read_sysctl(KPTR);

	raise_nofile();
	self->progs = open_progs();
	self->kinds = open_obj("ksym_kinds.bpf.o");
	ASSERT_TRUE(self->progs && self->kinds);
	fentry = bpf_object__find_program_by_name(self->kinds, "ksym_fentry");
	self->fentry = bpf_program__attach(fentry);
	ASSERT_FALSE(libbpf_get_error(self->fentry));
	self->lo = if_nametoindex("lo");
	ASSERT_EQ(0, bpf_xdp_attach(self->lo, prog_fd(self->kinds, "ksym_xdp"),
				    XDP_FLAGS_SKB_MODE, NULL));
	snprintf(cmd, sizeof(cmd), "insmod %s 2>/dev/null",
		 test_file("test_module/ksym_test_mod.ko"));
	self->module = system(cmd) == 0;
	ASSERT_TRUE(self->module) TH_LOG("could not insmod the test module");
	/* A kprobe gets an instruction slot: a [__builtin__kprobes] line. */
	self->kprobe = add_kprobe();
}

FIXTURE_TEARDOWN(scene)
{
	if (self->kptr >= 0)
		write_sysctl(KPTR, self->kptr);
	if (self->kprobe)
		remove_kprobe();
	if (self->module)
		system("rmmod ksym_test_mod");
	if (self->lo)
		bpf_xdp_detach(self->lo, XDP_FLAGS_SKB_MODE, NULL);
	if (self->fentry && !libbpf_get_error(self->fentry))
		bpf_link__destroy(self->fentry);
	bpf_object__close(self->kinds);
	bpf_object__close(self->progs);
}

/* Every section the kernel can list is there, and the two iterators agree on all of it. */
TEST_F(scene, every_line_as_mainline_prints_it)
{
	int lines;

	ASSERT_LT(0, owned_lines("[bpf]"));
	ASSERT_LT(0, owned_lines("[ksym_test_mod]"));
	ASSERT_TRUE(self->kprobe)
		TH_LOG("no kprobe on bpf_fentry_test2 through %s gave an instruction slot",
		       KPROBE_EVENTS);
	ASSERT_LT(0, owned_lines("[__builtin__kprobes]"));
	TH_LOG("ftrace trampoline lines: %d", owned_lines("[__builtin__ftrace]"));
	ASSERT_TRUE(same_as_mainline(1 << 16, 0, &lines));
	ASSERT_LT(50000, lines);
	TH_LOG("%d lines, byte for byte mainline's", lines);
}

/* seq_file stops and resumes at every line: short reads, as a slow reader makes them. */
TEST_F(scene, short_reads_give_the_same_text)
{
	int lines;

	ASSERT_TRUE(same_as_mainline(7, 0, &lines));
}

/* An lseek() into the middle of a line: the rest of the text, as mainline's. */
TEST_F(scene, lseek_gives_the_same_text)
{
	int lines;

	ASSERT_TRUE(same_as_mainline(4096, 1000003, &lines));
	ASSERT_LT(0, lines);
}

/*
 * A file read to its end and sought back, to the start and to just before the
 * first line of each section after the core: the sections' ends it recorded
 * on the first pass must not hide or repeat a symbol on the second.
 */
TEST_F(scene, reading_again_after_lseek_gives_the_same_text)
{
	/* The ftrace trampoline's section may be empty; the others are not. */
	static const struct {
		const char *owner;
		bool always;
	} sections[] = {
		{ "[ksym_test_mod]", true }, { "[__builtin__ftrace]", false },
		{ "[bpf]", true }, { "[__builtin__kprobes]", true },
	};
	size_t len = 0, i;
	char *text = read_file(RUST_FILE, 1 << 16, 0, &len);
	int lines;

	ASSERT_NE(NULL, text);
	ASSERT_TRUE(self->kprobe);
	ASSERT_TRUE(same_as_mainline_again(1 << 16, 0, true, &lines));
	for (i = 0; i < ARRAY_SIZE(sections); i++) {
		const char *owner = sections[i].owner;
		char key[64], *at;

		/* "%px %c %s\t[%s]\n": the owner column follows a tab. */
		snprintf(key, sizeof(key), "\t%s\n", owner);
		at = memmem(text, len, key, strlen(key));
		if (!at) {
			EXPECT_FALSE(sections[i].always) TH_LOG("no %s line", owner);
			continue;
		}
		while (at > text && at[-1] != '\n')
			at--;
		TH_LOG("%s starts at byte %zu", owner, (size_t)(at - text));
		EXPECT_TRUE(same_as_mainline_again(4096, at - text - 3, true, &lines))
			TH_LOG("from just before %s", owner);
	}
	free(text);
}

/*
 * An lseek() into the middle of a BPF line after the section's first, on a
 * fresh file and on one read to its end: seq_file steps to the offset and
 * the next read() starts the walk at the BPF symbol after it, which the
 * registry's cursor must find, neither the section's first nor one past it.
 */
TEST_F(scene, lseek_into_the_bpf_section_gives_the_same_text)
{
	static const char key[] = "\t[bpf]\n";
	size_t len = 0, k = strlen(key);
	char *text = read_file(RUST_FILE, 1 << 16, 0, &len), *at, *start;
	int lines, n = 0;

	ASSERT_NE(NULL, text);
	for (at = memmem(text, len, key, k); at && ++n < 3;
	     at = memmem(at + k, len - (at + k - text), key, k))
		;
	ASSERT_NE(NULL, at) TH_LOG("%d [bpf] lines, want 3 or more", n);
	for (start = at; start > text && start[-1] != '\n'; start--)
		;
	TH_LOG("third [bpf] line at byte %zu", (size_t)(start - text));
	EXPECT_TRUE(same_as_mainline(4096, start - text + (at - start) / 2, &lines));
	EXPECT_TRUE(same_as_mainline_again(4096, start - text + (at - start) / 2, true, &lines));
	free(text);
}

/*
 * Whether @line starts with a hidden address: its first field all zeroes, as
 * many as the kernel prints digits for an address (%px: 8 or 16), whatever
 * this program's own word size.
 */
static bool hidden_address(const char *line)
{
	size_t digits = strcspn(line, " ");

	return (digits == 8 || digits == 16) && strspn(line, "0") == digits;
}

/* Readers who may not see addresses get zeroes, from both. */
TEST_F(scene, hidden_addresses_are_zeroes_in_both)
{
	size_t len = 0;
	char *text;
	int lines;

	ASSERT_EQ(0, write_sysctl(KPTR, 2));
	ASSERT_TRUE(same_as_mainline(1 << 16, 0, &lines));
	text = read_file(RUST_FILE, 1 << 16, 0, &len);
	ASSERT_NE(NULL, text);
	ASSERT_TRUE(hidden_address(text));
	free(text);
}

/* The first line's address of an open file: 1 if shown, 0 if zeroes, -1 on error. */
static int shows_addresses(int fd)
{
	char line[32] = "";

	/* At least an address and the space after it. */
	if (pread(fd, line, sizeof(line) - 1, 0) <= 0 || !strchr(line, ' '))
		return -1;
	return !hidden_address(line);
}

/* Drops every capability of this process, uid 0 kept (for the debugfs file). */
static int drop_caps(void)
{
	struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct d[2] = {};

	return syscall(SYS_capset, &h, d);
}

/*
 * With kptr_restrict=1 CAP_SYSLOG decides, as the opener held it: a file opened
 * with it shows addresses after the reader drops it, one opened without it
 * never does. The same for both iterators.
 */
TEST_F(scene, the_openers_privilege_decides)
{
	int status;
	pid_t pid;

	ASSERT_EQ(0, write_sysctl(KPTR, 1));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		int rust = open(RUST_FILE, O_RDONLY), c = open(C_FILE, O_RDONLY);

		if (rust < 0 || c < 0 || drop_caps())
			_exit(10);
		if (shows_addresses(rust) != 1 || shows_addresses(c) != 1)
			_exit(11);	/* opened with CAP_SYSLOG */
		close(rust);
		close(c);
		rust = open(RUST_FILE, O_RDONLY);
		c = open(C_FILE, O_RDONLY);
		if (rust < 0 || c < 0)
			_exit(12);
		if (shows_addresses(rust) != 0 || shows_addresses(c) != 0)
			_exit(13);	/* opened without it */
		_exit(0);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status))
		TH_LOG("10: open or capset failed; 11: an opener with CAP_SYSLOG saw zeroes; "
		       "12: reopen failed; 13: an opener without it saw addresses");
}

TEST_HARNESS_MAIN
