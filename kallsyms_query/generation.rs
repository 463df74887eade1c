// SPDX-License-Identifier: GPL-2.0

//! The generation: a number that changes whenever the set of symbols the query answers changes.
//!
//! C headers: [`include/linux/bpf.h`](srctree/include/linux/bpf.h),
//! [`include/linux/module.h`](srctree/include/linux/module.h)
//!
//! It is the sum of two counts that only grow, the BPF registry's changes
//! (`bpf_ksym_generation()`, which both registries keep) and the module notifications that change
//! what the query answers, counted here, times two, plus one while BPF symbols are shown
//! (`bpf_jit_kallsyms` on and no JIT hardening): turning them off and on changes every BPF
//! answer. Each count grows after its change is visible to lookups, and [`generation`] is read
//! before a lookup, so an answer is at least as new as the generation returned with it.
//!
//! A module's symbols appear when it becomes `MODULE_STATE_COMING`, before the notification;
//! they disappear for version-2 callers when it becomes `MODULE_STATE_GOING` (the lookups skip
//! modules in that state, `answer.rs`), also before the notification. Both notifications count.
//! Not counted, and documented in the uapi header: a module's init symbols going when its init
//! memory is freed, and a load that fails after the module became `MODULE_STATE_COMING`, in
//! livepatch or in a COMING notifier (this notifier then gets no notification, or
//! `MODULE_STATE_GOING` before the module goes). None leaves code at the addresses concerned.

#[cfg(CONFIG_MODULES)]
use kernel::num::casts::u32_as_usize;
use kernel::{
    bindings,
    prelude::*,
    sync::atomic::{
        Acquire,
        Atomic,
        Release, //
    },
};

/// Module notifications that changed what the query answers.
static MODULE_CHANGES: Atomic<u64> = Atomic::new(0);

/// The current generation, and whether BPF symbols are shown; read them before the lookups they
/// stand for, and make those lookups show BPF symbols as the second says: a second read of the
/// setting could disagree with the generation's bit.
pub(crate) fn read() -> (u64, bool) {
    // SAFETY: Always safe to call.
    let bpf = unsafe { bindings::bpf_ksym_generation() };
    // SAFETY: Always safe to call.
    let shown = unsafe { bindings::bpf_jit_kallsyms_enabled() };
    let generation = (bpf.wrapping_add(MODULE_CHANGES.load(Acquire)) << 1) | u64::from(shown);
    (generation, shown)
}

/// Counts a module's arrival and departure.
///
/// # Safety
///
/// Called by the module notifier chain.
#[cfg(CONFIG_MODULES)]
unsafe extern "C" fn module_event(
    _nb: *mut bindings::notifier_block,
    action: c_ulong,
    _data: *mut c_void,
) -> c_int {
    if action == u32_as_usize(bindings::module_state_MODULE_STATE_COMING)
        || action == u32_as_usize(bindings::module_state_MODULE_STATE_GOING)
    {
        // After the state change the notification reports: see the module docs.
        MODULE_CHANGES.fetch_add(1, Release);
    }
    bindings::NOTIFY_DONE as c_int
}

/// The module notifier's block, which the chain links and reads.
#[cfg(CONFIG_MODULES)]
struct NotifierBlock(kernel::types::Opaque<bindings::notifier_block>);

// SAFETY: The chain writes the block's link under its own lock; this module never touches it
// after registering it.
#[cfg(CONFIG_MODULES)]
unsafe impl Sync for NotifierBlock {}

#[cfg(CONFIG_MODULES)]
static MODULE_NB: NotifierBlock =
    NotifierBlock(kernel::types::Opaque::new(bindings::notifier_block {
        notifier_call: Some(module_event),
        next: core::ptr::null_mut(),
        priority: 0,
    }));

/// Starts counting module changes.
///
/// # Safety
///
/// Called once.
pub(crate) unsafe fn init() {
    #[cfg(CONFIG_MODULES)]
    {
        // SAFETY: `MODULE_NB` is static and registered once, per the safety requirements; the
        // registration cannot fail.
        unsafe { bindings::register_module_notifier(MODULE_NB.0.get()) };
    }
}
