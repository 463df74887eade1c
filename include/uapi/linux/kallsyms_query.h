/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * KALLSYMS_QUERY: point queries on /proc/kallsyms.
 *
 * The kernel-doc below is the interface's reference; the rest of its
 * documentation (Documentation/userspace-api/kallsyms_query.rst) includes
 * it, and adds examples.
 */
#ifndef _UAPI_LINUX_KALLSYMS_QUERY_H
#define _UAPI_LINUX_KALLSYMS_QUERY_H

#include <linux/ioctl.h>
#include <linux/types.h>

/**
 * DOC: the ioctl
 *
 * ``ioctl(fd, KALLSYMS_QUERY, arg)`` on a file descriptor of /proc/kallsyms
 * (opened read-only), with ``arg`` pointing to a &struct kallsyms_query. The
 * number is ``_IOWR('f', 18, ...)``:
 * 'f' is ``PROCFS_IOCTL_MAGIC`` of <linux/fs.h>, whose number 17 is
 * PROCMAP_QUERY. The kernel accepts the command if its direction is read and
 * write, its type 'f', its number 18 and its size bits at least
 * %KALLSYMS_QUERY_SIZE_VER0; it fails any other command with ``ENOTTY``, as a
 * kernel without KALLSYMS_QUERY fails this one. The size bits are not the
 * argument's size: the kernel reads that from &kallsyms_query.size, so a
 * program built with any version of this header passes a command it takes.
 *
 * Every call needs an opener of /proc/kallsyms who may see addresses (what
 * makes reading the file show real addresses instead of zeroes: see
 * ``kptr_restrict`` in Documentation/admin-guide/sysctl/kernel.rst), decided
 * when the file was opened; otherwise it fails with ``EPERM``, whatever the
 * mode, before it looks at the argument.
 */

/**
 * DOC: versions
 *
 * The argument grows at its end: each version adds fields, and a caller says
 * which it has in &kallsyms_query.size:
 *
 * - size under %KALLSYMS_QUERY_SIZE_VER0 (40): ``EINVAL``;
 * - over the page size (4096 on most architectures): ``E2BIG``;
 * - otherwise the version is the newest whose size is not above it, and the
 *   bytes from that version's size up to ``size`` must all be zero, or the
 *   call fails with ``E2BIG``, past the newest version as between two (a
 *   newer caller's fields are never ignored silently). A kernel that knows
 *   version 2 thus takes an argument of 136 bytes as version 1 if bytes 120
 *   to 135 are zero.
 *
 * On success the kernel writes back the bytes of that version only (40, 120
 * or 160), and never past them: each output field of the caller's version,
 * also where the mode has nothing to say (then 0), and the input fields as
 * they were. A failed call writes none of them.
 */

/**
 * DOC: the generation
 *
 * Symbolizers cache answers; &kallsyms_query.generation says for how long an
 * answer holds. It is::
 *
 *   generation = B + M + S
 *
 * where B counts changes to the BPF symbol registry (a program, subprogram,
 * trampoline, dispatcher or other BPF image added or removed), M counts
 * changes to what lookups find in modules (a module becoming COMING, LIVE,
 * GOING or being freed, its switch to its core symbols after init, its init
 * text being freed), every change of either counted twice (so B and M are
 * even in every generation returned, and a change moves one of them by 2),
 * and S is 1 while BPF symbols are
 * shown (``net.core.bpf_jit_kallsyms`` 1 and ``net.core.bpf_jit_harden``
 * 0, as /proc/kallsyms lists them), 0 otherwise.
 *
 * The promise: every answer a call returns with a generation G is the answer
 * any other call returning G gives to the same question, and a BY_ADDR
 * answer, single or a batch entry, holds for every address of the symbol's
 * range (see Symbol ranges).
 * A cache that keys its answers on G never holds one that a fresh call under
 * G contradicts. The kernel keeps it by reading the counts before its lookups
 * and again after them, and looking up again if a change overlapped them.
 *
 * Progress: a call answers whatever BPF programs other tasks load and
 * unload. It makes at most two lockless attempts; if changes overlapped
 * both, it looks up once more with the BPF registry's writers held off, so
 * that no BPF change can make it fail: a task that loads and closes
 * programs in a loop can make a call slower, never endless, and no signal
 * interrupts it. Module changes are not held off, as only tasks with
 * ``CAP_SYS_MODULE`` can make them: a call whose lookups module changes
 * keep overlapping even then looks up again until one holds, and that
 * repetition alone is ended by a signal (``EINTR``, see Errors). BY_SYMBOL,
 * a walk over every module symbol, never looks up again for BPF changes.
 * The bound is per call: a batch's blocks share the call's attempts.
 * "No symbol" is an answer too, but a failed call returns no generation: a
 * batch entry of kind %KALLSYMS_SYM_NONE carries its call's, and a single
 * BY_ADDR's ``ENOENT`` holds for G if GENERATION returns G both before and
 * after it.
 *
 * It changes whenever an answer could change; it may also change when none
 * did (a module becoming LIVE, a BPF symbol that is hidden coming or going):
 * a cache keyed on it is at worst refreshed more often than needed. An
 * answer of kind %KALLSYMS_SYM_VMLINUX holds for every generation: the
 * kernel image's symbols never change, and an address in the image is
 * answered from them before anything else.
 *
 * Compare it for equality only: it goes down by one when BPF symbols are
 * hidden, and is otherwise not meant to be ordered. No value is reserved (0
 * is a generation like any other).
 *
 * Not covered: &kallsyms_query.sym_prog_id (and the batch entries' prog_id).
 * A BPF program's id is set while its load completes, after its subprograms'
 * symbols can be found, and cleared when its last reference is dropped,
 * before its symbols go; an answer for a program may have 0 in between. A
 * nonzero id is always that program's: keep the nonzero id a cache has
 * rather than a later 0.
 *
 * A module's symbols disappear from version-2 answers when it starts going
 * (MODULE_STATE_GOING, before its exit function runs), not when it is freed;
 * callers of versions 0 and 1 still see them until it is freed.
 */

/**
 * enum kallsyms_query_flags - the query mode (&kallsyms_query.query_flags)
 * @KALLSYMS_QUERY_BY_SYMBOL: the address of the symbol named by the
 *	NUL-terminated string at &kallsyms_query.sym_name_addr, in vmlinux or
 *	a loaded module (vmlinux first; BPF and ftrace symbols are not
 *	searched, so the name of a BPF symbol finds the vmlinux or module
 *	symbol of the same name if there is one, as the dispatcher
 *	``bpf_dispatcher_xdp`` finds its variable). Result in &kallsyms_query.sym_addr. Inputs:
 *	&kallsyms_query.sym_addr and &kallsyms_query.sym_name_size must be 0.
 * @KALLSYMS_QUERY_BY_ADDR: the symbol that covers &kallsyms_query.sym_addr,
 *	among the symbols the kernel's own backtraces name (vmlinux, loaded
 *	modules, BPF JIT images, freed module init functions still named by
 *	ftrace); where several names share an address, always the same one. Its
 *	NUL-terminated name goes to the buffer of
 *	&kallsyms_query.sym_name_size bytes at &kallsyms_query.sym_name_addr;
 *	&kallsyms_query.sym_name_size becomes the bytes written (NUL
 *	included). Nothing else of the buffer is written, and nothing of it
 *	when the call fails, but with ``EFAULT``: the name is written before
 *	the argument, so a call that cannot write one of them may have written
 *	some or all of the name and its NUL. An address outside kernel code (0, a user-space
 *	address) has no symbol. Version 1 adds start, size and owner; version 2 kind, program
 *	id and subprogram index. While BPF symbols are hidden (S is 0 in The
 *	generation, and /proc/kallsyms lists none), an address in BPF code
 *	has no symbol, so that no answer gives away what the file hides.
 * @KALLSYMS_QUERY_BY_ADDR_BATCH: BY_ADDR for each of the
 *	&kallsyms_query.batch_count entries (&struct kallsyms_query_addr) at
 *	&kallsyms_query.batch_addr; see Batches. Version 2.
 * @KALLSYMS_QUERY_GENERATION: only &kallsyms_query.generation. Every other
 *	input field must be 0. Version 2.
 *
 * Exactly one mode: no bit, two bits or a bit not listed here is ``EINVAL``.
 */
enum kallsyms_query_flags {
	KALLSYMS_QUERY_BY_SYMBOL = 0x01,
	KALLSYMS_QUERY_BY_ADDR = 0x02,
	KALLSYMS_QUERY_BY_ADDR_BATCH = 0x04,
	KALLSYMS_QUERY_GENERATION = 0x08,
};

/**
 * enum kallsyms_sym_kind - what a BY_ADDR answer is
 * @KALLSYMS_SYM_NONE: no symbol covers the address (batch entries only; a
 *	single BY_ADDR fails with ``ENOENT``).
 * @KALLSYMS_SYM_VMLINUX: the kernel image; owner "".
 * @KALLSYMS_SYM_MODULE: a loaded module; owner its name.
 * @KALLSYMS_SYM_BPF_PROG: a BPF program's main function,
 *	``bpf_prog_<tag>_<name>``; owner "bpf"; subprogram 0.
 * @KALLSYMS_SYM_BPF_SUBPROG: a BPF subprogram (subprogram index above 0);
 *	its program id is the main program's.
 * @KALLSYMS_SYM_BPF_TRAMPOLINE: ``bpf_trampoline_<key>``; no program id.
 * @KALLSYMS_SYM_BPF_DISPATCHER: ``bpf_dispatcher_<name>``; no program id.
 * @KALLSYMS_SYM_BPF_IMAGE: other BPF code (struct_ops trampolines, FineIBT
 *	preambles of programs); no program id.
 * @KALLSYMS_SYM_MODULE_INIT: a module's init function whose memory was
 *	freed after init, still named by ftrace; owner the module's name.
 *
 * New kinds may be added: treat an unknown one as "some other kernel code".
 */
enum kallsyms_sym_kind {
	KALLSYMS_SYM_NONE = 0,
	KALLSYMS_SYM_VMLINUX = 1,
	KALLSYMS_SYM_MODULE = 2,
	KALLSYMS_SYM_BPF_PROG = 3,
	KALLSYMS_SYM_BPF_SUBPROG = 4,
	KALLSYMS_SYM_BPF_TRAMPOLINE = 5,
	KALLSYMS_SYM_BPF_DISPATCHER = 6,
	KALLSYMS_SYM_BPF_IMAGE = 7,
	KALLSYMS_SYM_MODULE_INIT = 8,
};

/**
 * struct kallsyms_query - the argument of KALLSYMS_QUERY
 * @size: [0, 8) in, v0. The argument's size as the caller knows it: see
 *	Versions.
 * @query_flags: [8, 16) in, v0. One &enum kallsyms_query_flags mode.
 * @sym_name_addr: [16, 24) in, v0. BY_SYMBOL: the name to look up.
 *	BY_ADDR, BY_ADDR_BATCH: the buffer the names go to. Else 0.
 * @sym_addr: [24, 32) in/out, v0. BY_SYMBOL: out, the address (must be 0
 *	in); BY_ADDR: in, the address to look up; else must be 0.
 * @sym_name_size: [32, 40) in/out, v0. BY_ADDR, BY_ADDR_BATCH: in, the
 *	buffer's size, not 0; out, the bytes the answer's strings use. Else
 *	must be 0. A size the kernel's unsigned long cannot hold is taken as
 *	the largest it can. %KALLSYMS_QUERY_NAME_LEN bytes hold any name.
 * @sym_start: [40, 48) out, v1. BY_ADDR: the symbol's first address; 0 for
 *	other modes.
 * @sym_size: [48, 56) out, v1. BY_ADDR: the symbol's size (see Symbol
 *	ranges); 0 for other modes.
 * @sym_owner: [56, 120) out, v1. BY_ADDR: the module's name, "bpf" for BPF
 *	symbols, "" for vmlinux, NUL-terminated and zero-filled to the end; all
 *	zeroes for other modes.
 * @generation: [120, 128) out, v2. Every mode: see The generation.
 * @sym_prog_id: [128, 136) out, v2. BY_ADDR: the BPF program id (the main
 *	program's, for a subprogram) as BPF_PROG_GET_FD_BY_ID takes it, for a
 *	caller with ``CAP_SYS_ADMIN`` in the initial user namespace (checked on
 *	the calling task's effective credentials, as bpf() checks them, without
 *	an audit record); 0 for other callers, other kinds and other modes.
 * @sym_kind: [136, 140) out, v2. BY_ADDR: an &enum kallsyms_sym_kind.
 * @sym_subprog: [140, 144) out, v2. BY_ADDR: the BPF subprogram index, 0
 *	for a main program and for every other kind.
 * @batch_addr: [144, 152) in, v2. BY_ADDR_BATCH: the array of entries; else
 *	must be 0.
 * @batch_count: [152, 156) in/out, v2. BY_ADDR_BATCH: in, the number of
 *	entries (1 to %KALLSYMS_QUERY_BATCH_MAX); out, the number answered.
 *	Else must be 0.
 * @batch_entry_size: [156, 160) in, v2. BY_ADDR_BATCH: the distance between
 *	two entries, a multiple of 8 from %KALLSYMS_QUERY_ADDR_SIZE_VER0 to
 *	%KALLSYMS_QUERY_ADDR_SIZE_MAX (usually ``sizeof(struct
 *	kallsyms_query_addr)``). Else must be 0.
 *
 * Each member's description starts with its byte range in the struct, its
 * direction and the version that added it. What the caller puts in an
 * output field is ignored. Addresses and sizes are __u64 on
 * every architecture; on a 32-bit kernel a @sym_addr above 4 GiB has no
 * symbol (``ENOENT``), and a @sym_name_addr or @batch_addr above it cannot
 * be the caller's memory (``EFAULT``).
 */
struct kallsyms_query {
	__u64 size;
	__u64 query_flags;
	__u64 sym_name_addr;
	__u64 sym_addr;
	__u64 sym_name_size;
	__u64 sym_start;
	__u64 sym_size;
	char sym_owner[64];
	__u64 generation;
	__u64 sym_prog_id;
	__u32 sym_kind;
	__u32 sym_subprog;
	__u64 batch_addr;
	__u32 batch_count;
	__u32 batch_entry_size;
};

#define KALLSYMS_QUERY_SIZE_VER0	40	/* first published struct */
#define KALLSYMS_QUERY_SIZE_VER1	120	/* sym_start, sym_size, sym_owner */
#define KALLSYMS_QUERY_SIZE_VER2	160	/* generation .. batch_entry_size */

/*
 * The most bytes a symbol's name takes, its NUL included (KSYM_NAME_LEN): a
 * name has at most KALLSYMS_QUERY_NAME_LEN - 1 characters.
 */
#define KALLSYMS_QUERY_NAME_LEN		512

#define KALLSYMS_QUERY	_IOWR('f', 18, struct kallsyms_query)

/**
 * struct kallsyms_query_addr - one entry of a BY_ADDR_BATCH array
 * @addr: [0, 8) in. The address to symbolize; never written.
 * @start: [8, 16) out. As &kallsyms_query.sym_start.
 * @size: [16, 24) out. As &kallsyms_query.sym_size.
 * @prog_id: [24, 32) out. As &kallsyms_query.sym_prog_id.
 * @name_off: [32, 36) out. Where the entry's NUL-terminated name starts,
 *	as an offset from the call's &kallsyms_query.sym_name_addr.
 * @owner_off: [36, 40) out. Likewise for its owner (as
 *	&kallsyms_query.sym_owner).
 * @kind: [40, 44) out. As &kallsyms_query.sym_kind; %KALLSYMS_SYM_NONE if
 *	no symbol covers @addr, and then every other output field is 0.
 * @subprog: [44, 48) out. As &kallsyms_query.sym_subprog.
 *
 * Entries are &kallsyms_query.batch_entry_size bytes apart. What the caller
 * puts in an entry's output fields is ignored. The bytes of an entry past
 * these fields must be 0 (``E2BIG`` otherwise) and are left as they are.
 */
struct kallsyms_query_addr {
	__u64 addr;
	__u64 start;
	__u64 size;
	__u64 prog_id;
	__u32 name_off;
	__u32 owner_off;
	__u32 kind;
	__u32 subprog;
};

#define KALLSYMS_QUERY_ADDR_SIZE_VER0	48	/* first published entry */
#define KALLSYMS_QUERY_ADDR_SIZE_MAX	4096	/* largest batch_entry_size */
#define KALLSYMS_QUERY_BATCH_MAX	4096	/* entries per call, at most */

/**
 * DOC: batches
 *
 * A BY_ADDR_BATCH call answers its entries in order, writing each entry's
 * strings to the name buffer one after the other from its start, and stops
 * at the first entry it cannot answer: one whose strings do not fit in what
 * is left of the buffer, or one that gets an error (memory it cannot read or
 * write, ``E2BIG`` for its unknown bytes). If that is the first entry, the
 * call fails with that entry's error (``ENAMETOOLONG`` if its strings do not
 * fit in the whole buffer). Otherwise it succeeds, having answered at least
 * one entry, with &kallsyms_query.batch_count set to the entries answered
 * and &kallsyms_query.sym_name_size to the bytes their strings use; each
 * answered entry is fully written, and the entries after them are not
 * touched. An address that no symbol covers is an answer (kind
 * %KALLSYMS_SYM_NONE), not an error. A call may also stop after any block of
 * 16 entries when the symbols changed while it ran: its answers and its
 * generation then hold for the symbols before that change. A call that
 * succeeds answers at least one entry; symbol changes alone never stop it
 * before 16 (or the entries left, if fewer). A call that
 * answered entries but then cannot write the argument back fails with
 * ``EFAULT``: the entries it answered are a prefix, each fully written, and
 * the rest are not touched, but their count is lost.
 *
 * To answer all of them, call again for the entries left:
 *
 * 1. use the answers (their strings are in the buffer until the next call);
 * 2. add ``batch_count * batch_entry_size`` to &kallsyms_query.batch_addr;
 * 3. set &kallsyms_query.batch_count to the entries left;
 * 4. set &kallsyms_query.sym_name_size to the buffer's size again (the call
 *    overwrote it with the bytes used), with the same
 *    &kallsyms_query.sym_name_addr: each call fills the buffer from its
 *    start, and its offsets are from there;
 * 5. call again, until no entry is left. The generation of each call holds
 *    for that call's answers.
 *
 * Strings are shared, not copied, where they repeat: an entry whose name or
 * owner is the same as that of the last found entry before it in the same
 * call may have that entry's offset, and the empty owner of a vmlinux symbol
 * may be any NUL byte of the strings written (such as its name's). Two
 * equal strings may also be stored twice. Never compare offsets to compare
 * strings. Every offset of an entry that found a symbol is below the
 * returned &kallsyms_query.sym_name_size (entries of kind
 * %KALLSYMS_SYM_NONE have offsets 0 and no strings).
 *
 * An entry's strings take at most %KALLSYMS_QUERY_NAME_LEN + 64 bytes: a
 * buffer of that times &kallsyms_query.batch_count is never too small. Bytes
 * of the buffer past the returned &kallsyms_query.sym_name_size may have
 * been written too.
 *
 * The entries (&kallsyms_query.batch_count times
 * &kallsyms_query.batch_entry_size bytes), the name buffer
 * (&kallsyms_query.sym_name_size bytes, or %KALLSYMS_QUERY_NAME_LEN + 64 per
 * entry if that is less: the most the kernel can write) and the argument
 * (&kallsyms_query.size bytes) must not overlap (``EINVAL``).
 * Sorted addresses are answered fastest. However large the batch, the kernel
 * holds about 3.3 KiB for the call and reschedules between blocks of 16
 * entries.
 */

/**
 * DOC: symbol ranges
 *
 * For a vmlinux or module symbol, &kallsyms_query.sym_size is the distance
 * to the next symbol (the size a kernel backtrace prints after the slash),
 * and the symbol covers [sym_start, sym_start + sym_size). A BPF symbol covers its JIT
 * image, [sym_start, sym_start + sym_size] with the end included: a call as
 * an image's last instruction leaves a return address equal to its end. An
 * address that is one image's end and another's start belongs to the one
 * that starts there.
 */

/**
 * DOC: errors
 *
 * A failed call returns -1 with one of these in errno and no other, and
 * writes nothing to the argument (the name buffer and, for a batch, the
 * entries are as the mode's description says). Where two apply, the first
 * check made wins, in this order: the opener (``EPERM``); reading
 * &kallsyms_query.size (``EFAULT``), then its value (``E2BIG`` over a page,
 * ``EINVAL`` under %KALLSYMS_QUERY_SIZE_VER0); reading the argument
 * (``EFAULT``) and its bytes past the caller's version's fields, the newer
 * versions' included (``E2BIG``); then the mode and its inputs (``EINVAL``,
 * but ``E2BIG`` for a batch's count or entry size over its maximum, checked
 * before the entry size's other rules); then the mode's own errors, for a
 * batch the first entry's (``EFAULT``, ``E2BIG``, ``ENAMETOOLONG`` in the
 * order the entry is read, checked and answered) and ``ENOMEM`` before any
 * entry. So a size between two versions with non-zero
 * bytes in the newer version's fields is ``E2BIG``, never ``EINVAL``. The errnos:
 *
 * ==================  ========================================================
 * errno               when
 * ==================  ========================================================
 * ``ENOTTY``          not the KALLSYMS_QUERY command (see The ioctl)
 * ``EPERM``           the opener of the file may not see addresses
 * ``EFAULT``          the argument, a name, the name buffer or an entry is
 *                     memory the caller cannot read or write; for a batch,
 *                     only if that is the first entry's or the argument's
 *                     (see Batches)
 * ``EINVAL``          size under %KALLSYMS_QUERY_SIZE_VER0; no mode, two modes
 *                     or an unknown flag; an input field the mode does not use
 *                     is not 0; BY_ADDR_BATCH or GENERATION with an argument
 *                     older than version 2; BY_SYMBOL with an empty name;
 *                     BY_ADDR or BY_ADDR_BATCH with a name buffer size of 0; a
 *                     batch of 0 entries, an entry size under
 *                     %KALLSYMS_QUERY_ADDR_SIZE_VER0 or not a multiple of 8,
 *                     or entries, name buffer and argument that overlap
 * ``E2BIG``           size over a page; non-zero bytes past the caller's
 *                     version's fields; a batch of more than
 *                     %KALLSYMS_QUERY_BATCH_MAX entries or an entry size over
 *                     %KALLSYMS_QUERY_ADDR_SIZE_MAX; non-zero bytes past an
 *                     entry's fields (the first entry's)
 * ``ENOENT``          BY_SYMBOL: no such symbol; BY_ADDR: no symbol covers the
 *                     address, or it is BPF code while BPF symbols are hidden
 *                     (never for a batch: kind %KALLSYMS_SYM_NONE)
 * ``EADDRNOTAVAIL``   BY_SYMBOL: the name has more than one address (aliases
 *                     at one address are fine)
 * ``ENAMETOOLONG``    BY_SYMBOL: the name is %KALLSYMS_QUERY_NAME_LEN bytes or
 *                     longer; BY_ADDR: the name does not fit in the buffer;
 *                     BY_ADDR_BATCH: the first entry's strings do not fit. A
 *                     buffer of %KALLSYMS_QUERY_NAME_LEN bytes (plus 64 for a
 *                     batch entry's owner) always suffices; the size needed is
 *                     not reported
 * ``EINTR``           a signal came while module changes kept overlapping
 *                     the call's lookups (see the paragraph Progress under
 *                     The generation; the call is restarted instead if the
 *                     handler was installed with ``SA_RESTART``); nothing
 *                     was written: call again
 * ``ENOMEM``          BY_ADDR_BATCH: its working memory could not be allocated
 * ==================  ========================================================
 *
 * A kernel older than version 2 fails a version-2 argument whose version-2
 * fields are not all 0 with ``E2BIG``, and GENERATION with ``EINVAL``: probe
 * with a GENERATION call to learn whether the running kernel has version 2.
 * KALLSYMS_QUERY is built into the kernel, not a module, and whether the
 * opener may see addresses is decided at open(): the probe's answer holds
 * for as long as the file stays open.
 */

#endif /* _UAPI_LINUX_KALLSYMS_QUERY_H */
