// SPDX-License-Identifier: GPL-2.0
/* Programs that make trampolines and dispatchers appear, and an iter/ksym dumper. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

/* Attaching it creates bpf_trampoline_<key> for bpf_user_rnd_u32. */
SEC("fentry/bpf_user_rnd_u32")
int ksym_fentry(void *ctx)
{
	return 0;
}

/*
 * The same kind of trampoline on a function only BPF_PROG_TEST_RUN of a
 * tracing program calls: the stress test attaches and detaches it in a loop.
 * (Patching a function another vCPU runs in a tight loop crashes QEMU TCG
 * guests with "Oops: int3", with either registry.)
 */
SEC("fentry/bpf_fentry_test1")
int ksym_fentry_idle(void *ctx)
{
	return 0;
}

/* Attaching it to a device puts it behind bpf_dispatcher_xdp. */
SEC("xdp")
int ksym_xdp(struct xdp_md *ctx)
{
	return XDP_PASS;
}

/* Kernel types, resolved against the running kernel's BTF (CO-RE). */
struct seq_file;
struct bpf_iter_meta {
	struct seq_file *seq;
} __attribute__((preserve_access_index));

struct kallsym_iter {
	unsigned long value;
	char type;
	char name[512];
	char module_name[56];
} __attribute__((preserve_access_index));

struct bpf_iter__ksym {
	struct bpf_iter_meta *meta;
	struct kallsym_iter *ksym;
} __attribute__((preserve_access_index));

/*
 * One line per symbol: "<kind> <addr> <type> <name> <module>", kind being
 * core, bpf, ftrace, kprobe or module; module "-" for core symbols.
 */
SEC("iter/ksym")
int ksym_dump(struct bpf_iter__ksym *ctx)
{
	struct seq_file *seq = ctx->meta->seq;
	struct kallsym_iter *it = ctx->ksym;
	const char *kind = "module";
	const char *mod, *m;

	if (!it)
		return 0;
	m = it->module_name;
	mod = m;
	if (!m[0]) {
		kind = "core";
		mod = "-";
	} else if (m[0] == 'b' && m[1] == 'p' && m[2] == 'f' && !m[3]) {
		kind = "bpf";
	} else if (m[0] == '_' && m[1] == '_' && m[11] == 'f') {	/* __builtin__ftrace */
		kind = "ftrace";
	} else if (m[0] == '_' && m[1] == '_' && m[11] == 'k') {	/* __builtin__kprobes */
		kind = "kprobe";
	}
	BPF_SEQ_PRINTF(seq, "%s %lx %c %s %s\n", kind, it->value, it->type, it->name, mod);
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
