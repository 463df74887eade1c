// SPDX-License-Identifier: GPL-2.0

#include <linux/seqlock.h>

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
