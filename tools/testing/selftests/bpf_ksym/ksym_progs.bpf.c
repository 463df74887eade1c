// SPDX-License-Identifier: GPL-2.0
/* BPF programs for the bpf_ksym kselftests and the `make run` demo. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

#define STACK_DEPTH 32

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64[STACK_DEPTH]);
} kstack SEC(".maps");

static __always_inline int record_stack(void *ctx)
{
	__u32 key = 0;
	__u64 *buf = bpf_map_lookup_elem(&kstack, &key);

	if (buf)
		bpf_get_stack(ctx, buf, STACK_DEPTH * sizeof(__u64), 0);
	return 0;
}

/*
 * Called by ksym_caller through bpf_get_prandom_u32(): record the kernel
 * stack, which must contain ksym_caller's JIT image.
 */
SEC("kprobe/bpf_user_rnd_u32")
int ksym_stack(void *ctx)
{
	return record_stack(ctx);
}

/*
 * The same stack from fentry on that helper: through this program's frame
 * and the trampoline's, which on arm64 builds frame records for the traced
 * function and its caller, the JIT image (arch_prepare_bpf_trampoline()).
 */
SEC("fentry/bpf_user_rnd_u32")
int ksym_stack_fentry(void *ctx)
{
	return record_stack(ctx);
}

SEC("socket")
int ksym_caller(void *skb)
{
	return bpf_get_prandom_u32() & 1;
}

static __noinline int ksym_sub(int x)
{
	return x * 3 + (bpf_get_prandom_u32() & 1);
}

SEC("socket")
int ksym_with_sub(void *skb)
{
	return ksym_sub(1);
}

char LICENSE[] SEC("license") = "GPL";
