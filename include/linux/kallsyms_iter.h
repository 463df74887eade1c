/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The /proc/kallsyms and iter/ksym iterator: its state, and with
 * CONFIG_BPF_KSYM_RUST the seams between kernel/kallsyms.c (symbol tables,
 * the core, module, ftrace and kprobe sections) and the iterator in
 * kallsyms_iter/kallsyms_iter.rs (section order, seq_file, proc_ops,
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

/*
 * The KALLSYMS_QUERY ioctl of /proc/kallsyms (kernel/kallsyms.c), for an
 * opener that may see addresses if @show_value.
 */
long kallsyms_query_ioctl(bool show_value, unsigned int cmd, unsigned long arg);

#ifdef CONFIG_BPF_KSYM_RUST
/*
 * Sections of kernel/kallsyms.c, one symbol each: 1 with it in @iter, or 0
 * past the section's end. kallsyms_iter_core() fills the symbol at @pos (in
 * O(1) when @pos follows the last one); the others the one at iter->pos,
 * recording their end in iter->pos_*_end as mainline's get_ksymbol_*() do.
 */
int kallsyms_iter_core(struct kallsym_iter *iter, loff_t pos);
int kallsyms_iter_mod(struct kallsym_iter *iter);
int kallsyms_iter_ftrace_mod(struct kallsym_iter *iter);
int kallsyms_iter_kprobe(struct kallsym_iter *iter);
/*
 * Back to the first symbol, every section end forgotten; whether addresses are
 * shown is decided by @cred, the opener's (NULL: the current task's).
 */
void kallsyms_iter_reset(struct kallsym_iter *iter, const struct cred *cred);
/* The BTF id of struct kallsym_iter, for iter/ksym's context. */
u32 kallsyms_iter_btf_id(void);

/* kallsyms_iter/kallsyms_iter.rs */
/* Creates /proc/kallsyms and registers iter/ksym; called once, by kallsyms_init(). */
void kallsyms_iter_init(void);
#ifdef CONFIG_KGDB_KDB
/* kdb's step: moves @iter to the symbol at @pos: 1, or 0 past the last section. */
int kallsyms_iter_update(struct kallsym_iter *iter, loff_t pos);
#endif
#endif

#endif /* _LINUX_KALLSYMS_ITER_H */
