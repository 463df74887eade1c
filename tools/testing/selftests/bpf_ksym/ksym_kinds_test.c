// SPDX-License-Identifier: GPL-2.0
/*
 * Every kind of BPF symbol: trampolines and dispatchers in /proc/kallsyms,
 * PERF_RECORD_KSYMBOL events for programs, and the iter/ksym BPF iterator
 * checked line by line against /proc/kallsyms.
 */
#include <fcntl.h>
#include <linux/perf_event.h>
#include <net/if.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <bpf/btf.h>

#include "kselftest_harness.h"
#include "ksym_util.h"

#define TRACED_FUNC "bpf_user_rnd_u32"

static int nonzero_bpf_line(const char *name)
{
	return kallsyms_count(name, KS_NONZERO | KS_BPF_TEXT);
}

TEST(fentry_trampoline_appears_on_attach_and_goes_on_detach)
{
	struct bpf_object *o = open_obj("ksym_kinds.bpf.o");
	struct btf *vmlinux = btf__load_vmlinux_btf();
	struct bpf_link *link;
	char name[64];
	int id;

	ASSERT_NE(NULL, o);
	ASSERT_EQ(0, libbpf_get_error(vmlinux));
	id = btf__find_by_name_kind(vmlinux, TRACED_FUNC, BTF_KIND_FUNC);
	ASSERT_LT(0, id);
	/* bpf_trampoline_compute_key(): vmlinux BTF object id 1, bit 31, BTF id. */
	snprintf(name, sizeof(name), "bpf_trampoline_%llu",
		 (1ULL << 32) | 0x80000000ULL | (unsigned int)id);
	/* An earlier test's trampoline on the same function goes after a grace period. */
	ASSERT_EQ(0, wait_gone(name)) TH_LOG("%s exists before attach", name);

	link = bpf_program__attach(bpf_object__find_program_by_name(o, "ksym_fentry"));
	ASSERT_EQ(0, libbpf_get_error(link));
	ASSERT_EQ(1, nonzero_bpf_line(name)) TH_LOG("no '<addr> t %s [bpf]' line", name);

	bpf_link__destroy(link);
	bpf_object__close(o);
	ASSERT_EQ(0, wait_gone(name)) TH_LOG("%s still listed after detach", name);
	btf__free(vmlinux);
}

TEST(attached_xdp_program_shows_the_xdp_dispatcher)
{
	struct bpf_object *o = open_obj("ksym_kinds.bpf.o");
	int lo = if_nametoindex("lo");
	struct bpf_link *link;

	ASSERT_NE(NULL, o);
	ASSERT_LT(0, lo);
	/*
	 * Generic (skb) mode, lo having no native XDP, also goes through
	 * bpf_prog_change_xdp(). A link, not a netlink attach: it goes with
	 * the process if an assertion ends the test early.
	 */
	link = bpf_program__attach_xdp(bpf_object__find_program_by_name(o, "ksym_xdp"), lo);
	ASSERT_NE(NULL, link);
	ASSERT_EQ(1, nonzero_bpf_line("bpf_dispatcher_xdp"));
	bpf_link__destroy(link);
	bpf_object__close(o);
}

struct ksym_event {
	unsigned long long addr;
	unsigned int len;
	int unregister;
};

/* Scan one CPU's ring buffer for KSYMBOL records of @name. */
static int scan_ring(void *ring, size_t data_size, const char *name,
		     struct ksym_event *ev, int max)
{
	struct perf_event_mmap_page *meta = ring;
	char *data = (char *)ring + meta->data_offset;
	unsigned long long head = __atomic_load_n(&meta->data_head, __ATOMIC_ACQUIRE);
	unsigned long long pos = meta->data_tail;
	int n = 0;

	while (pos < head && n < max) {
		struct perf_event_header *h = (void *)(data + pos % data_size);
		struct {
			struct perf_event_header header;
			__u64 addr;
			__u32 len;
			__u16 ksym_type;
			__u16 flags;
			char name[];
		} *k = (void *)h;

		/* Records fit in the buffer unwrapped: it is far larger than what we load. */
		if (h->type == PERF_RECORD_KSYMBOL && !strcmp(k->name, name)) {
			ev[n].addr = k->addr;
			ev[n].len = k->len;
			ev[n].unregister = !!(k->flags & PERF_RECORD_KSYMBOL_FLAGS_UNREGISTER);
			n++;
		}
		pos += h->size;
	}
	return n;
}

TEST(ksymbol_events_on_program_load_and_unload)
{
	int ncpu = sysconf(_SC_NPROCESSORS_ONLN), cpu, fds[64], n = 0, fd;
	size_t page = sysconf(_SC_PAGESIZE), data = 64 * page;
	struct perf_event_attr attr = {
		.type = PERF_TYPE_SOFTWARE,
		.config = PERF_COUNT_SW_DUMMY,
		.size = sizeof(attr),
		.ksymbol = 1,
		.sample_id_all = 1,
	};
	struct ksym_event ev[8];
	struct prog_syms ps;
	void *rings[64];
	char name[64];

	ASSERT_LE(ncpu, 64);
	for (cpu = 0; cpu < ncpu; cpu++) {
		fds[cpu] = syscall(__NR_perf_event_open, &attr, -1, cpu, -1, 0);
		ASSERT_LE(0, fds[cpu]) TH_LOG("perf_event_open: %s", strerror(errno));
		rings[cpu] = mmap(NULL, page + data, PROT_READ | PROT_WRITE, MAP_SHARED,
				  fds[cpu], 0);
		ASSERT_NE(MAP_FAILED, rings[cpu]);
	}

	fd = load_tiny_prog("ksym_evt");
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, prog_syms(fd, &ps));
	snprintf(name, sizeof(name), "bpf_prog_%s_ksym_evt", ps.tag);
	close(fd);
	ASSERT_EQ(0, wait_gone(name));

	for (cpu = 0; cpu < ncpu; cpu++)
		n += scan_ring(rings[cpu], data, name, ev + n, 8 - n);
	/* One register on load and one unregister on unload, same range. */
	ASSERT_EQ(2, n) TH_LOG("%d KSYMBOL records for %s", n, name);
	ASSERT_NE(ev[0].unregister, ev[1].unregister);
	for (int i = 0; i < 2; i++) {
		ASSERT_EQ(ps.addr[0], ev[i].addr);
		ASSERT_EQ(ps.len[0], ev[i].len);
	}
	for (cpu = 0; cpu < ncpu; cpu++) {
		munmap(rings[cpu], page + data);
		close(fds[cpu]);
	}
}

/* Run @cmd with /bin/sh; return how many output lines contain @needle, or -1. */
static int count_output_lines(const char *cmd, const char *needle)
{
	char line[4096];
	FILE *p = popen(cmd, "r");
	int n = 0;

	if (!p)
		return -1;
	while (fgets(line, sizeof(line), p))
		if (strstr(line, needle))
			n++;
	return pclose(p) == 0 ? n : -1;
}

TEST(perf_record_shows_ksymbol_event_of_program_loaded_meanwhile)
{
	char cmd[PATH_MAX + 256];
	int rec, registered;

	if (!have_tool("perf") || !have_tool("bpftool"))
		SKIP(return, "perf or bpftool not on $PATH");
	/* The perf tool itself, as users run it: load ksym_progs.bpf.o while recording. */
	snprintf(cmd, sizeof(cmd), "rm -rf /sys/fs/bpf/ksymbol_probe /tmp/ksymbol.data; "
		 "perf record -q -a -e dummy -o /tmp/ksymbol.data -- bpftool prog loadall %s /sys/fs/bpf/ksymbol_probe >/dev/null 2>&1",
		 test_file("ksym_progs.bpf.o"));
	rec = system(cmd);
	registered = count_output_lines("perf script -i /tmp/ksymbol.data --show-bpf-events 2>/dev/null | grep 'PERF_RECORD_KSYMBOL.*flags 0x0 '",
					"_ksym_caller");
	/* Unload before asserting: later tests count this program's lines. */
	system("rm -rf /sys/fs/bpf/ksymbol_probe /tmp/ksymbol.data");
	ASSERT_EQ(0, rec) TH_LOG("perf record or bpftool failed");
	ASSERT_EQ(1, registered) TH_LOG("want one KSYMBOL register event for ksym_caller");
}

/* Read a whole file into a malloc'd, NUL-terminated buffer. */
TEST(iter_ksym_matches_mainline_kallsyms_line_by_line)
{
	struct bpf_object *o = open_obj("ksym_kinds.bpf.o");
	struct bpf_link *link;
	char *iter_out, *text, *a, *b, *sa, *sb;
	int kallsyms, iter, lines = 0, bpf_lines = 0;
	const char *ref = kallsyms_reference();
	struct prog_syms ps;
	int keep;

	ASSERT_NE(NULL, o);
	/* At least one BPF symbol of each program in the object. */
	keep = prog_fd(o, "ksym_xdp");
	ASSERT_EQ(0, prog_syms(keep, &ps));
	link = bpf_program__attach_iter(bpf_object__find_program_by_name(o, "ksym_dump"), NULL);
	ASSERT_EQ(0, libbpf_get_error(link));
	iter = bpf_iter_create(bpf_link__fd(link));
	ASSERT_LE(0, iter);
	iter_out = slurp_fd(iter);
	/* Not our /proc/kallsyms on our kernel: iter/ksym walks with it. */
	kallsyms = open(ref, O_RDONLY);
	if (kallsyms < 0)
		SKIP(return, "no %s: build with CONFIG_KALLSYMS_ITER_C_REFERENCE=y", ref);
	text = slurp_fd(kallsyms);
	ASSERT_NE(NULL, iter_out);
	ASSERT_NE(NULL, text);

	/* "<kind> <addr> <t> <name> <mod>" vs "<addr> <t> <name>[\t[<mod>]]" */
	a = strtok_r(iter_out, "\n", &sa);
	b = strtok_r(text, "\n", &sb);
	for (; a && b; a = strtok_r(NULL, "\n", &sa)) {
		struct iter_line l;
		char want[700];

		/* /proc/kallsyms skips nameless symbols; the iterator shows them. */
		if (!parse_iter_line(a, &l))
			continue;
		if (!strcmp(l.mod, "-"))
			snprintf(want, sizeof(want), "%016llx %c %s", l.addr, l.type, l.name);
		else
			snprintf(want, sizeof(want), "%016llx %c %s\t[%s]", l.addr, l.type, l.name,
				 l.mod);
		ASSERT_STREQ(want, b) TH_LOG("line %d differs", lines + 1);
		ASSERT_EQ(!strcmp(l.kind, "bpf"), !strcmp(l.mod, "bpf"));
		if (!strcmp(l.kind, "bpf")) {
			bpf_lines++;
			ASSERT_NE(0, l.addr);
		}
		lines++;
		b = strtok_r(NULL, "\n", &sb);
	}
	/* Whatever the iterator has left must be nameless symbols. */
	for (; a; a = strtok_r(NULL, "\n", &sa)) {
		struct iter_line l;

		ASSERT_FALSE(parse_iter_line(a, &l))
			TH_LOG("iter/ksym has more lines than %s: '%s'", ref, a);
	}
	ASSERT_EQ(NULL, b) TH_LOG("%s has more lines than iter/ksym: '%s'", ref, b);
	ASSERT_LT(10000, lines);
	ASSERT_LE(3, bpf_lines) TH_LOG("the object's programs should be listed");
	free(iter_out);
	free(text);
	close(iter);
	close(kallsyms);
	bpf_link__destroy(link);
	bpf_object__close(o);
}

TEST_HARNESS_MAIN
