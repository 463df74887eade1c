// SPDX-License-Identifier: GPL-2.0

//! The generation: a number under which two answers to the same question never differ.
//!
//! C headers: [`include/linux/bpf.h`](srctree/include/linux/bpf.h),
//! [`include/linux/kallsyms_query.h`](srctree/include/linux/kallsyms_query.h)
//!
//! It is `B + M + S`: `B` the BPF registry's change count (`bpf_ksym_generation()`, which both
//! registries keep), `M` the module loader's count of changes to what kallsyms lookups find in
//! modules (`module_kallsyms_generation()`: a module's state, its switch to core symbols, its
//! init text leaving the module tree), and `S` 1 while BPF symbols are shown (`bpf_jit_kallsyms`
//! on and no JIT hardening), else 0. Both counts are seqcounts: each change counts once before
//! it is made and once after, so they are odd while one is made; the functions that read them
//! wait for such a change, on its writer's lock, and return even counts.
//!
//! A call reads a [`Snapshot`], both counts as they stood at one instant (the BPF count is read
//! again after the module count, until it did not move), looks up, and asks
//! [`Snapshot::changed`]: if a count moved meanwhile, a change overlapped the lookups, and the
//! call looks up again under a new snapshot. Since both counts only grow and each snapshot is
//! one instant's, calls that return the same generation read the same counts. So every
//! answer returned with a generation is the answer any lookup made while the generation stood
//! would give: a cache keyed on it is never contradicted by a later answer under the same value.
//! The one field outside it is a BPF program's id, which its load sets and its last reference
//! clears while its symbols can be found (the uapi header says why that cannot mislead).
//!
//! `S` makes hiding BPF symbols change the generation: the lookups of a call use the setting read
//! with the snapshot, never a second read. It also makes the value go down by one when symbols
//! are hidden: the generation is compared for equality only.

use kernel::{
    bindings,
    sync::barrier::{
        smp_mb,
        Read, //
    },
};

/// The counts a call's lookups are made under.
#[derive(Clone, Copy)]
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

impl Snapshot {
    /// The counts as they stood at one instant, neither in the middle of a change. Both are read
    /// with acquire: the lookups after this see every change they include.
    pub(crate) fn read() -> Self {
        let mut bpf = bpf_count();
        loop {
            let modules = module_count();
            // Both at the instant the module count was read: the BPF count did not move around it.
            smp_mb(Read);
            let again = bpf_count();
            if again == bpf {
                // SAFETY: Always safe to call.
                let bpf_shown = unsafe { bindings::bpf_jit_kallsyms_enabled() };
                return Self {
                    bpf,
                    modules,
                    bpf_shown,
                };
            }
            bpf = again;
        }
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

    /// [`Snapshot::changed`] for lookups of module symbols only (`BY_SYMBOL`), which BPF
    /// changes cannot touch: they would only make such a lookup, a walk over every module
    /// symbol, start again needlessly while programs come and go.
    pub(crate) fn modules_changed(self) -> bool {
        smp_mb(Read);
        module_count() != self.modules
    }
}
