// SPDX-License-Identifier: GPL-2.0

//! The `/proc/kallsyms` and `iter/ksym` iterator.
//!
//! C header: [`include/linux/kallsyms_iter.h`](srctree/include/linux/kallsyms_iter.h)
//!
//! With `CONFIG_BPF_KSYM_RUST` this replaces the iterator of `kernel/kallsyms.c`, which keeps the
//! symbol tables and one shim per section of the file (core, modules, ftrace, kprobes); the BPF
//! section is the registry's cursor (`bpf_get_kallsym_next`). The pieces:
//!
//! - [`sections`]: which section a position falls in, in mainline's order.
//! - [`seq`]: the `seq_file` walk, one record per symbol.
//! - [`line`]: a symbol as its line of text, written straight into the `seq_file` buffer.
//! - `proc`: `/proc/kallsyms` itself: its `proc_ops` and `seq_operations` (`CONFIG_PROC_FS`).
//! - `bpf_iter`: the `iter/ksym` BPF iterator target (`CONFIG_BPF_SYSCALL`).
//!
//! Every callback gets the iterator state through `seq_file::private`, which `seq_file`'s mutex
//! (or kdb, stopping every other CPU) keeps to one thread: `&mut` to it is sound. The
//! KALLSYMS_QUERY ioctl reads a copy of `show_value` kept beside it (`proc.rs`).
//!
//! See `Documentation/bpf/bpf_ksym.rst`.

use kernel::prelude::*;

#[cfg(CONFIG_BPF_SYSCALL)]
mod bpf_iter;
#[cfg(CONFIG_PROC_FS)]
mod line;
#[cfg(CONFIG_PROC_FS)]
mod proc;
#[cfg(any(CONFIG_PROC_FS, CONFIG_BPF_SYSCALL, CONFIG_KGDB_KDB))]
mod sections;
#[cfg(any(CONFIG_PROC_FS, CONFIG_BPF_SYSCALL))]
mod seq;

#[cfg(all(CONFIG_KALLSYMS_ITER_KUNIT_TEST, CONFIG_PROC_FS))]
mod tests;

/// The prefix of the crate's `pr_*!` messages (no `module!` here: the crate is built in).
#[cfg(CONFIG_BPF_SYSCALL)]
const __LOG_PREFIX: &[u8] = b"kallsyms_iter\0";

/// The state of one reader of `/proc/kallsyms` or `iter/ksym`.
#[cfg(any(CONFIG_PROC_FS, CONFIG_BPF_SYSCALL, CONFIG_KGDB_KDB))]
type Iter = kernel::bindings::kallsym_iter;

/// Creates `/proc/kallsyms` and registers `iter/ksym`.
///
/// # Safety
///
/// Called once, by `kallsyms_init()`.
#[export]
pub unsafe extern "C" fn kallsyms_iter_init() {
    #[cfg(CONFIG_PROC_FS)]
    proc::create();
    #[cfg(CONFIG_BPF_SYSCALL)]
    bpf_iter::register();
}

/// Moves `iter` to the symbol at `pos`: 1, or 0 past the last section. For kdb's walk.
///
/// # Safety
///
/// `iter` is valid and used by no other thread; it was zeroed and reset (`reset_iter()`) before
/// its first use and changed since only by this function.
#[cfg(CONFIG_KGDB_KDB)]
#[export]
pub unsafe extern "C" fn kallsyms_iter_update(
    iter: *mut Iter,
    pos: kernel::bindings::loff_t,
) -> kernel::ffi::c_int {
    // SAFETY: Valid, ours alone and reset, per the safety requirements; kdb changes it only
    // through this function.
    kernel::ffi::c_int::from(unsafe { sections::update(&mut *iter, pos) })
}
