// SPDX-License-Identifier: GPL-2.0

#include <linux/rculist.h>

__rust_helper void rust_helper_list_add_tail_rcu(struct list_head *new,
						 struct list_head *head)
{
	list_add_tail_rcu(new, head);
}

__rust_helper void rust_helper_list_del_rcu(struct list_head *entry)
{
	list_del_rcu(entry);
}
