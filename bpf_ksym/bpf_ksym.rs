// SPDX-License-Identifier: GPL-2.0

//! The BPF ksym registry: which kernel address belongs to which BPF program, trampoline or
//! dispatcher.
//!
//! C headers: [`include/linux/bpf.h`](srctree/include/linux/bpf.h),
//! [`include/linux/filter.h`](srctree/include/linux/filter.h),
//! [`include/linux/extable.h`](srctree/include/linux/extable.h)
//!
//! This replaces the registry of `kernel/bpf/core.c` when `CONFIG_BPF_KSYM_RUST=y`. Its symbols
//! are [`kernel::bpf::ksym::Ksym`]s, which say how a `struct bpf_ksym` is read and ordered. The
//! pieces:
//!
//! - [`registry`]: the latch tree (by address, lock-free readers) and the RCU list (insertion
//!   order, for `/proc/kallsyms`), and the lock that serializes writers.
//! - [`prog_name`]: `bpf_prog_<tag>` followed by `_<name>` when there is one.
//! - [`kallsyms_walk`]: the cursor that makes a `/proc/kallsyms` read O(1) per BPF symbol.
//! - [`fineibt`]: the `__cfi_` preamble symbols of programs under FineIBT.
//! - [`exports`]: the functions C calls, with the signatures of the C headers.
//!
//! See `Documentation/bpf/bpf_ksym.rst`.

pub mod exports;
mod fineibt;
mod kallsyms_walk;
mod prog_name;
mod registry;

#[cfg(CONFIG_BPF_KSYM_KUNIT_TEST)]
mod tests;

/// The prefix of this crate's log lines (`pr_info!` and friends), which `module!` would define
/// for a module; the registry is built in.
#[cfg(all(CONFIG_BPF_KSYM_KUNIT_TEST, CONFIG_PROVE_RCU))]
const __LOG_PREFIX: &[u8] = b"bpf_ksym\0";
