// SPDX-License-Identifier: GPL-2.0

//! The generation: a number under which two answers to the same question never differ.
//!
//! C headers: [`include/linux/bpf.h`](srctree/include/linux/bpf.h),
//! [`include/linux/module.h`](srctree/include/linux/module.h)
//!
//! It is `B + M + S`: `B` the BPF registry's change count (`bpf_ksym_generation()`, which both
//! registries keep), `M` the module loader's count of changes to what kallsyms lookups find in
//! modules (`module_kallsyms_generation()`: a module's state, its switch to core symbols, its
//! init text leaving the module tree), and `S` 1 while BPF symbols are shown (`bpf_jit_kallsyms`
//! on and no JIT hardening), else 0. Each count is counted as a seqcount is: once before a change
//! and once after it, so it is odd while one is made. Reading one never waits.
//!
//! A [`Snapshot`] reads `B`, then `M`; the lookups follow, then [`Snapshot::changed`] reads both
//! again. Both counts only grow: if neither moved, both stood still from the read of `M` to the
//! check, and were even, so no change overlapped the lookups and their answers are those of the
//! state the counts name. Calls that return the same generation read the same counts, so every
//! answer returned with a generation is the answer any lookup made while the generation stood
//! would give: a cache keyed on it is never contradicted by a later answer under the same value.
//! The one field outside it is a BPF program's id, which its load sets and its last reference
//! clears while its symbols can be found (the uapi header says why that cannot mislead).
//!
//! [`hold_bpf_changes`] runs lookups with the BPF registry's writers held off, for the call that
//! has seen changes overlap its lockless attempts too often (`pass.rs`). The module loader's
//! writers are not held off: only tasks with `CAP_SYS_MODULE` make its changes, and they take
//! its lock with bottom halves enabled while the BPF registry's is taken from softirq context,
//! so holding both would invert their order.
//!
//! `S` makes hiding BPF symbols change the generation: the lookups of a call use the setting read
//! with the snapshot, never a second read. It also makes the value go down by one when symbols
//! are hidden: the generation is compared for equality only.

use kernel::{
    bindings,
    ffi::c_void,
    sync::barrier::{
        smp_mb,
        Read, //
    },
};

/// The counts a call's lookups are made under.
#[derive(Clone, Copy, PartialEq)]
pub(crate) struct Snapshot {
    bpf: u64,
    modules: u64,
    /// Whether BPF symbols are shown: the lookups must show them as this says.
    pub(crate) bpf_shown: bool,
}

/// The module loader's count.
#[cfg(CONFIG_MODULES)]
fn module_count() -> u64 {
    // SAFETY: Always safe to call.
    unsafe { bindings::module_kallsyms_generation() }
}

/// No modules, no changes.
#[cfg(not(CONFIG_MODULES))]
fn module_count() -> u64 {
    0
}

/// The BPF registry's count.
fn bpf_count() -> u64 {
    // SAFETY: Always safe to call.
    unsafe { bindings::bpf_ksym_generation() }
}

/// Whether BPF symbols are shown now.
pub(crate) fn bpf_shown() -> bool {
    // SAFETY: Always safe to call.
    unsafe { bindings::bpf_jit_kallsyms_enabled() }
}

impl Snapshot {
    /// The counts now, or `None` while a change is being made: a count is odd. Both are read with
    /// acquire, so the lookups after this see every change they include.
    pub(crate) fn read() -> Option<Self> {
        let bpf = bpf_count();
        let modules = module_count();
        if bpf % 2 != 0 || modules % 2 != 0 {
            return None;
        }
        Some(Self {
            bpf,
            modules,
            bpf_shown: bpf_shown(),
        })
    }

    /// The generation: see the module documentation.
    pub(crate) fn value(self) -> u64 {
        self.bpf
            .wrapping_add(self.modules)
            .wrapping_add(u64::from(self.bpf_shown))
    }

    /// Whether a change started since [`Snapshot::read`]: call it after the lookups, whose
    /// answers hold for [`Snapshot::value`] only if it says no.
    pub(crate) fn changed(self) -> bool {
        // The lookups' loads before the counts'.
        smp_mb(Read);
        bpf_count() != self.bpf || module_count() != self.modules
    }

    /// The module loader's count.
    pub(crate) fn modules(self) -> u64 {
        self.modules
    }
}

/// The module loader's count now, if no change is being made; for lookups of module symbols
/// only (`BY_SYMBOL`), which BPF changes cannot touch.
pub(crate) fn modules_now() -> Option<u64> {
    Some(module_count()).filter(|m| m % 2 == 0)
}

/// Whether the module loader's count moved from `before`, read after lookups that started when
/// it was `before` ([`modules_now`]).
pub(crate) fn modules_changed(before: u64) -> bool {
    smp_mb(Read);
    module_count() != before
}

/// A closure for a C function that takes a callback and its argument: `f`, then its result.
struct Call<F, R> {
    f: Option<F>,
    result: Option<R>,
}

/// Calls the closure `arg` points to, once.
///
/// # Safety
///
/// `arg` points to a `Call<F, R>` that no one else accesses during the call.
unsafe extern "C" fn call<F: FnOnce() -> R, R>(arg: *mut c_void) {
    // SAFETY: Per the safety requirements.
    let call = unsafe { &mut *arg.cast::<Call<F, R>>() };
    if let Some(f) = call.f.take() {
        call.result = Some(f());
    }
}

/// Runs `f` with the BPF registry's writers held off: its count is even, and does not move, while
/// `f` runs. `f` runs in atomic context, with bottom halves disabled: it must not sleep or touch
/// user memory. `None` if `f` was not called (never, with either registry).
pub(crate) fn hold_bpf_changes<F: FnOnce() -> R, R>(f: F) -> Option<R> {
    let mut c = Call {
        f: Some(f),
        result: None,
    };
    // SAFETY: `call` matches `c`, which outlives the call and is not touched meanwhile.
    unsafe { bindings::bpf_ksym_hold_changes(Some(call::<F, R>), (&raw mut c).cast()) };
    c.result
}
