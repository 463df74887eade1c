// SPDX-License-Identifier: GPL-2.0

#include <linux/rbtree.h>
#include <linux/seqlock.h>

__rust_helper void rust_helper_rb_link_node_rcu(struct rb_node *node,
						struct rb_node *parent,
						struct rb_node **rb_link)
{
	rb_link_node_rcu(node, parent, rb_link);
}

__rust_helper unsigned int
rust_helper_read_seqcount_latch(const seqcount_latch_t *s)
{
	return read_seqcount_latch(s);
}

__rust_helper bool
rust_helper_read_seqcount_latch_retry(const seqcount_latch_t *s,
				      unsigned int start)
{
	return read_seqcount_latch_retry(s, start);
}

__rust_helper void rust_helper_write_seqcount_latch_begin(seqcount_latch_t *s)
{
	write_seqcount_latch_begin(s);
}

__rust_helper void rust_helper_write_seqcount_latch(seqcount_latch_t *s)
{
	write_seqcount_latch(s);
}

__rust_helper void rust_helper_write_seqcount_latch_end(seqcount_latch_t *s)
{
	write_seqcount_latch_end(s);
}
