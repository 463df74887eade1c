// SPDX-License-Identifier: GPL-2.0
/*
 * A program and a subprogram whose code spans several source lines each:
 * blazesym_test asks a symbolizer for the line of each JIT address at which
 * the kernel's line table starts one.
 */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

static __noinline __u32 ksym_lines_mix(__u32 a, __u32 b)
{
	__u32 c = a ^ (b << 3);

	c += bpf_get_prandom_u32();
	return c & 0xff;
}

SEC("socket")
int ksym_lines(void *skb)
{
	__u32 a = bpf_get_prandom_u32();
	__u32 b = bpf_get_prandom_u32();

	if (a & 1)
		b = ksym_lines_mix(a, b);
	b += bpf_get_prandom_u32();
	return b & 1;
}

char LICENSE[] SEC("license") = "GPL";
