/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The /proc/kallsyms and iter/ksym iterator: its state, and with
 * CONFIG_BPF_KSYM_RUST the seams between kernel/kallsyms.c (symbol tables,
 * the core, module, ftrace and kprobe sections) and the iterator in
 * kernel/kallsyms_iter/kallsyms_iter.rs (section order, seq_file, proc_ops,
 * iter/ksym).
 */
#ifndef _LINUX_KALLSYMS_ITER_H
#define _LINUX_KALLSYMS_ITER_H

#include <linux/bpf_ksym.h>
#include <linux/kallsyms.h>
#include <linux/module.h>
#include <linux/types.h>
#include <uapi/linux/bpf.h>

/*
 * A reader's place in /proc/kallsyms, and the symbol there. BPF programs of
 * iter/ksym read it through BTF (value, name, module_name, type, exported,
 * show_value, pos_*_end): its layout is theirs as much as ours. To avoid
 * get_symbol_offset() for every symbol, the core section carries @nameoff
 * along.
 */
struct kallsym_iter {
	loff_t pos;
	loff_t pos_mod_end;
	loff_t pos_ftrace_mod_end;
	loff_t pos_bpf_end;
	unsigned long value;
	unsigned int nameoff; /* If iterating in core kernel symbols. */
	char type;
	char name[KSYM_NAME_LEN];
	char module_name[MODULE_NAME_LEN];
	int exported;
	int show_value;
#ifdef CONFIG_BPF_KSYM_RUST
	struct bpf_ksym_cursor bpf_cursor;
#endif
};

/* iter/ksym's context, as its programs see it. */
struct bpf_iter_meta;
struct bpf_iter__ksym {
	__bpf_md_ptr(struct bpf_iter_meta *, meta);
	__bpf_md_ptr(struct kallsym_iter *, ksym);
};

struct cred;
struct file;

/**
 * kallsyms_query_ioctl() - the ioctl of /proc/kallsyms (kernel/kallsyms.c)
 * @show_value: whether the opener may see addresses
 * @cmd: the ioctl command
 * @arg: its argument
 *
 * Return: as kallsyms_query(), or -ENOIOCTLCMD for a command that is not
 * KALLSYMS_QUERY of any size from version 0 on (user space sees -ENOTTY).
 */
long kallsyms_query_ioctl(bool show_value, unsigned int cmd, unsigned long arg);

#ifdef CONFIG_BPF_KSYM_RUST
/**
 * kallsyms_iter_core() - the vmlinux symbol at a position
 * @iter: the reader's place, filled with the symbol
 * @pos: the position; in O(1) when it follows the last one filled
 *
 * Return: 1, or 0 past the last vmlinux symbol.
 */
int kallsyms_iter_core(struct kallsym_iter *iter, loff_t pos);

/**
 * kallsyms_iter_mod() - the module symbol at iter->pos
 * @iter: the reader's place, filled with the symbol
 *
 * Like kallsyms_iter_ftrace_mod() and kallsyms_iter_kprobe() for their
 * sections, records the section's end in iter->pos_*_end as mainline's
 * get_ksymbol_*() do.
 *
 * Return: 1, or 0 past the section's end.
 */
int kallsyms_iter_mod(struct kallsym_iter *iter);

/**
 * kallsyms_iter_ftrace_mod() - the ftrace module symbol at iter->pos
 * @iter: the reader's place, filled with the symbol
 *
 * Return: 1, or 0 past the section's end.
 */
int kallsyms_iter_ftrace_mod(struct kallsym_iter *iter);

/**
 * kallsyms_iter_kprobe() - the kprobe symbol at iter->pos
 * @iter: the reader's place, filled with the symbol
 *
 * Return: 1, or 0 past the section's end.
 */
int kallsyms_iter_kprobe(struct kallsym_iter *iter);
/**
 * kallsyms_iter_reset() - move a reader back to the first symbol
 * @iter: the reader's place; every section end is forgotten
 * @cred: whose kallsyms_show_value() decides whether addresses are shown:
 *        the opener's, or NULL for the current task's
 */
void kallsyms_iter_reset(struct kallsym_iter *iter, const struct cred *cred);

/**
 * kallsyms_iter_btf_id() - the BTF id of struct kallsym_iter
 *
 * Return: the id, for iter/ksym's context.
 */
u32 kallsyms_iter_btf_id(void);

/**
 * kallsyms_iter_init() - create /proc/kallsyms and register iter/ksym
 *
 * Called once, by kallsyms_init(). Defined in Rust
 * (kernel/kallsyms_iter/kallsyms_iter.rs), as kallsyms_iter_update() is.
 */
void kallsyms_iter_init(void);
#ifdef CONFIG_KGDB_KDB
/**
 * kallsyms_iter_update() - kdb's step through /proc/kallsyms
 * @iter: the reader's place, zeroed and reset before the walk
 * @pos: the position to move to
 *
 * Return: 1 with the symbol at @pos in @iter, or 0 past the last section.
 */
int kallsyms_iter_update(struct kallsym_iter *iter, loff_t pos);
#endif
#endif

#endif /* _LINUX_KALLSYMS_ITER_H */
