// SPDX-License-Identifier: GPL-2.0

#include <linux/seq_file.h>

__rust_helper size_t rust_helper_seq_get_buf(struct seq_file *m, char **bufp)
{
	return seq_get_buf(m, bufp);
}

__rust_helper void rust_helper_seq_commit(struct seq_file *m, int num)
{
	seq_commit(m, num);
}
