// SPDX-License-Identifier: GPL-2.0

//! FineIBT: the `__cfi_<prog>` symbol of the 16-byte preamble before each program's entry.
//!
//! C header: [`arch/x86/include/asm/cfi.h`](srctree/arch/x86/include/asm/cfi.h)
//!
//! Under FineIBT the preamble runs too, so the unwinder needs a symbol there; C's
//! `bpf_prog_kallsyms_add()` registers `aux->ksym_prefix` for it, and so do we. Without
//! `CONFIG_FINEIBT` these are no-ops.

#[cfg(not(CONFIG_FINEIBT))]
use kernel::bindings;

#[cfg(CONFIG_FINEIBT)]
mod imp {
    use crate::{
        prog_name,
        registry, //
    };
    use kernel::{
        bindings,
        bpf::ksym::Ksym, //
    };

    /// Size of the preamble before a function's entry.
    const PREAMBLE: usize = 16;

    /// Whether the kernel runs with FineIBT (chosen once at boot, before any BPF program).
    fn active() -> bool {
        // SAFETY: `cfi_mode` is written only during early boot, before BPF programs exist.
        unsafe { bindings::cfi_mode == bindings::cfi_mode_CFI_FINEIBT }
    }

    /// # Safety
    ///
    /// As for `bpf_prog_kallsyms_add()`; `aux->ksym` is already filled in.
    pub(crate) unsafe fn add_prefix(aux: *mut bindings::bpf_prog_aux, entry: usize) {
        if !active() {
            return;
        }
        // SAFETY: Only the field addresses are computed; `aux` is valid.
        let (ksym, prefix) = unsafe { (&raw const (*aux).ksym, &raw mut (*aux).ksym_prefix) };
        // SAFETY: `prefix` is not registered, so this is the only access to it; `ksym`'s name was
        // written by this CPU before and does not change while the program lives.
        unsafe {
            prog_name::format_cfi(&mut (*prefix).name, &(*ksym).name);
            (*prefix).start = entry - PREAMBLE;
            (*prefix).end = entry;
        }
        // SAFETY: `prefix` is filled in, unregistered, and lives as long as the program.
        unsafe { registry::add(Ksym::from_raw(prefix)) };
    }

    /// # Safety
    ///
    /// As for `bpf_prog_kallsyms_del()`.
    pub(crate) unsafe fn del_prefix(aux: *mut bindings::bpf_prog_aux) {
        if active() {
            // SAFETY: `aux` is valid and `ksym_prefix.lnode` was initialised with the program.
            unsafe { registry::del(Ksym::from_raw(&raw mut (*aux).ksym_prefix)) };
        }
    }
}

#[cfg(CONFIG_FINEIBT)]
pub(crate) use imp::{add_prefix, del_prefix};

/// Registers `aux`'s `__cfi_` symbol for the program entered at `entry`, under FineIBT.
///
/// # Safety
///
/// As for `bpf_prog_kallsyms_add()`; `aux.ksym` is already filled in.
#[cfg(not(CONFIG_FINEIBT))]
pub(crate) unsafe fn add_prefix(_aux: *mut bindings::bpf_prog_aux, _entry: usize) {}

/// Unregisters `aux`'s `__cfi_` symbol, under FineIBT.
///
/// # Safety
///
/// As for `bpf_prog_kallsyms_del()`.
#[cfg(not(CONFIG_FINEIBT))]
pub(crate) unsafe fn del_prefix(_aux: *mut bindings::bpf_prog_aux) {}
