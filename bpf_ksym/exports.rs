// SPDX-License-Identifier: GPL-2.0

//! The functions C calls. Each has the signature of its C prototype, checked by `#[export]`.
//!
//! Lookups (`is_bpf_text_address`, `bpf_address_lookup`, ...) may run in any context, NMI
//! included: they take only the RCU read lock. Writers (`bpf_ksym_add`, `bpf_ksym_del`, ...)
//! run in process or softirq context.

use crate::{
    fineibt,
    kallsyms_walk,
    prog_name,
    registry, //
};
use kernel::{
    bindings,
    bpf::ksym::Ksym,
    ffi::{
        c_char,
        c_int,
        c_uint,
        c_ulong,
        c_void, //
    },
    prelude::*,
    sync::rcu,
    warn_on, //
};

/// Readies the registry at boot.
///
/// # Safety
///
/// Called once, from the pure initcall in `kernel/bpf/core.c`, before any BPF symbol exists.
#[export]
pub unsafe extern "C" fn bpf_ksym_init() -> c_int {
    // SAFETY: Called once, before anything else, per the safety requirements.
    unsafe { registry::init() };
    0
}

/// Registers a trampoline, dispatcher or program symbol.
///
/// # Safety
///
/// `ksym` is valid, filled in, has an empty `lnode`, and stays valid until [`bpf_ksym_del`] and
/// an RCU grace period after it. If it was registered before, a grace period has passed since
/// its [`bpf_ksym_del`] (before its `lnode` was initialised again).
#[export]
pub unsafe extern "C" fn bpf_ksym_add(ksym: *mut bindings::bpf_ksym) {
    // SAFETY: Per the safety requirements.
    unsafe { registry::add(Ksym::from_raw(ksym)) };
}

/// Unregisters a symbol; a no-op for one that was never added.
///
/// # Safety
///
/// `ksym` is valid, and either registered or with an empty `lnode`: never added, or
/// initialised again with `INIT_LIST_HEAD()` a grace period after its last removal (deleting
/// twice without that would unlink it twice).
#[export]
pub unsafe extern "C" fn bpf_ksym_del(ksym: *mut bindings::bpf_ksym) {
    // SAFETY: Per the safety requirements.
    unsafe { registry::del(Ksym::from_raw(ksym)) };
}

/// Whether `fp` gets a symbol at all: JIT-compiled eBPF, not a converted classic filter.
///
/// # Safety
///
/// `fp` is a valid program.
unsafe fn kallsyms_candidate(fp: *mut bindings::bpf_prog) -> bool {
    // SAFETY: `fp` is valid, per the safety requirements; the bitfield is read through the raw
    // accessor, as other fields of the program may be written meanwhile.
    unsafe { bindings::bpf_prog::jited_raw(fp) != 0 && !bindings::bpf_prog_was_classic(fp) }
}

/// Registers a program (or subprogram) under `bpf_prog_<tag>[_<name>]`.
///
/// The program may already have an id (`bpf_prog_alloc_id()` runs first), so other CPUs may
/// take references to it and write its `aux` meanwhile: everything here goes through raw places
/// of single fields, never a reference to the whole `bpf_prog` or `bpf_prog_aux`.
///
/// # Safety
///
/// `fp` is a valid program that stays valid until [`bpf_prog_kallsyms_del`] and a grace period;
/// its `aux->ksym` (and `aux->ksym_prefix`) are not registered, and their `lnode`s were
/// initialised.
#[export]
pub unsafe extern "C" fn bpf_prog_kallsyms_add(fp: *mut bindings::bpf_prog) {
    // SAFETY: `fp` is valid, per the safety requirements.
    if !unsafe { kallsyms_candidate(fp) } {
        return;
    }
    // SAFETY: `fp` is valid; `aux` is set at allocation and not changed after.
    let aux = unsafe { (*fp).aux };
    // SAFETY: `aux` is valid; `token` is set at load time, not changed after, and is NULL or a
    // valid token of the program.
    if !unsafe { bindings::bpf_token_capable((*aux).token, bindings::CAP_BPF as c_int) } {
        return;
    }
    // SAFETY: `bpf_func` and `jited_len` are set by the JIT, before this call, and not changed
    // while the program lives.
    let (start, len) = unsafe { ((*fp).bpf_func.map_or(0, |f| f as usize), (*fp).jited_len) };
    // SAFETY: Only the field address is computed.
    let ksym = unsafe { &raw mut (*aux).ksym };
    // SAFETY: `ksym` is not registered, so no other CPU reads or writes it.
    unsafe {
        (*ksym).start = start;
        (*ksym).end = start + len as usize;
    }
    // SAFETY: The program is valid and JIT-compiled; `ksym` is not registered.
    unsafe { prog_name::set(fp, ksym) };
    // SAFETY: As above.
    unsafe { (*ksym).prog = true };
    // SAFETY: `ksym` is filled in and lives as long as the program, per the requirements.
    unsafe { registry::add(Ksym::from_raw(ksym)) };

    // SAFETY: As above; `ksym` is filled in.
    unsafe { fineibt::add_prefix(aux, start) };
}

/// Unregisters a program added by [`bpf_prog_kallsyms_add`].
///
/// # Safety
///
/// `fp` is a valid program whose `aux->ksym.lnode` was initialised.
#[export]
pub unsafe extern "C" fn bpf_prog_kallsyms_del(fp: *mut bindings::bpf_prog) {
    // SAFETY: `fp` is valid, per the safety requirements.
    if !unsafe { kallsyms_candidate(fp) } {
        return;
    }
    // SAFETY: `fp` and its `aux` are valid.
    let aux = unsafe { (*fp).aux };
    // SAFETY: `aux` is valid, and its `ksym.lnode` initialised at allocation.
    unsafe { registry::del(Ksym::from_raw(&raw mut (*aux).ksym)) };
    // SAFETY: As above.
    unsafe { fineibt::del_prefix(aux) };
}

/// Whether `addr` is inside (or just past) JIT-compiled BPF code.
///
/// # Safety
///
/// Always safe to call, from any context.
#[export]
pub unsafe extern "C" fn is_bpf_text_address(addr: c_ulong) -> bool {
    let rcu = rcu::read_lock();
    registry::find(addr, &rcu).is_some()
}

/// Names the BPF symbol that holds `addr`: writes its name into `sym` (`KSYM_NAME_LEN` bytes),
/// and its size and `addr`'s offset into it. Returns the name's length, or 0 if none holds it.
///
/// # Safety
///
/// `sym` is valid for `KSYM_NAME_LEN` bytes; `size` and `off` are NULL or valid.
#[export]
pub unsafe extern "C" fn bpf_address_lookup(
    addr: c_ulong,
    size: *mut c_ulong,
    off: *mut c_ulong,
    sym: *mut c_char,
) -> c_int {
    let rcu = rcu::read_lock();
    let Some(ksym) = registry::find(addr, &rcu) else {
        return 0;
    };
    // SAFETY: `sym` holds `KSYM_NAME_LEN` bytes, per the safety requirements.
    let len = ksym.copy_name(unsafe { &mut *sym.cast() });
    if !size.is_null() {
        // SAFETY: `size` is valid, per the safety requirements.
        unsafe { *size = ksym.end() - ksym.start() };
    }
    if !off.is_null() {
        // SAFETY: `off` is valid, per the safety requirements.
        unsafe { *off = addr - ksym.start() };
    }
    len as c_int
}

/// Whether [`warn_no_rcu`] has warned, for the KUnit test (which expects the warning only once
/// per boot; writing `clear_warn_once` does not reset this).
#[cfg(all(CONFIG_BPF_KSYM_KUNIT_TEST, CONFIG_PROVE_RCU))]
static WARNED_NO_RCU: kernel::sync::atomic::Atomic<bool> = kernel::sync::atomic::Atomic::new(false);

/// Whether [`bpf_prog_ksym_find`] has warned about a caller without the RCU read lock.
#[cfg(all(CONFIG_BPF_KSYM_KUNIT_TEST, CONFIG_PROVE_RCU))]
pub(crate) fn warned_without_rcu() -> bool {
    WARNED_NO_RCU.load(kernel::sync::atomic::Relaxed)
}

/// The warning of a caller without the RCU read lock, once (until `clear_warn_once` is written,
/// as C's `WARN_ON_ONCE()`).
fn warn_no_rcu() {
    kernel::do_once_lite! {
        #[cfg(all(CONFIG_BPF_KSYM_KUNIT_TEST, CONFIG_PROVE_RCU))]
        WARNED_NO_RCU.store(true, kernel::sync::atomic::Relaxed);
        warn_on!(true);
    }
}

/// The program whose JIT image holds `addr`, or NULL. Trampolines and dispatchers are not
/// programs.
///
/// Warns once, as C's `WARN_ON_ONCE(!rcu_read_lock_held())`, when called outside an RCU read
/// section (lockdep knows: `CONFIG_DEBUG_LOCK_ALLOC`, which `CONFIG_PROVE_RCU` selects): the
/// program could be freed under its caller.
///
/// # Safety
///
/// The caller holds the RCU read lock for as long as it uses the result.
#[export]
pub unsafe extern "C" fn bpf_prog_ksym_find(addr: c_ulong) -> *mut bindings::bpf_prog {
    if !rcu::read_lock_held() {
        warn_no_rcu();
    }
    // Nested in the caller's: only to obtain a guard for the lookup's lifetime.
    let rcu = rcu::read_lock();
    registry::find(addr, &rcu)
        .and_then(|ksym| ksym.prog())
        .unwrap_or(core::ptr::null_mut())
}

/// The registered symbol whose `[start, end]` holds `addr`, or NULL, for KALLSYMS_QUERY.
///
/// # Safety
///
/// The caller holds the RCU read lock for as long as it uses the result.
#[export]
pub unsafe extern "C" fn bpf_ksym_lookup(addr: c_ulong) -> *const bindings::bpf_ksym {
    // Nested in the caller's: only to obtain a guard for the lookup's lifetime.
    let rcu = rcu::read_lock();
    registry::find(addr, &rcu).map_or(core::ptr::null(), |ksym| ksym.as_raw().cast_const())
}

/// How many times the registry changed, for KALLSYMS_QUERY's generation: odd while a change is
/// being made; never waits.
///
/// # Safety
///
/// Always safe to call.
#[export]
pub unsafe extern "C" fn bpf_ksym_generation() -> u64 {
    registry::generation()
}

/// Calls `f(arg)` while the registry cannot change, for a KALLSYMS_QUERY whose lockless lookups
/// kept overlapping changes.
///
/// # Safety
///
/// `f`, if not `None`, may be called with `arg`, with bottom halves disabled, and does not sleep.
#[export]
pub unsafe extern "C" fn bpf_ksym_hold_changes(
    f: Option<unsafe extern "C" fn(arg: *mut c_void)>,
    arg: *mut c_void,
) {
    registry::hold_changes(|| {
        if let Some(f) = f {
            // SAFETY: Per the safety requirements.
            unsafe { f(arg) };
        }
    });
}

/// Whether the JIT image holding `ip` has set up its frame pointer at `ip`, for the unwinder.
///
/// # Safety
///
/// Always safe to call, from any context.
#[export]
pub unsafe extern "C" fn bpf_has_frame_pointer(ip: c_ulong) -> bool {
    let rcu = rcu::read_lock();
    registry::find(ip, &rcu).is_some_and(|ksym| ksym.has_frame_pointer_at(ip))
}

/// The exception table entry of the program instruction at `addr`, or NULL.
///
/// # Safety
///
/// Always safe to call, from any context.
#[export]
pub unsafe extern "C" fn search_bpf_extables(
    addr: c_ulong,
) -> *const bindings::exception_table_entry {
    let _rcu = rcu::read_lock();
    // SAFETY: The RCU read lock is held while the program is used.
    let prog = unsafe { bpf_prog_ksym_find(addr) };
    if prog.is_null() {
        return core::ptr::null();
    }
    // SAFETY: `prog` and its `aux` stay valid while the RCU read lock is held; `extable` and
    // `num_exentries` are set by the JIT before the program is registered and not changed after.
    let (extable, num) = unsafe {
        let aux = (*prog).aux;
        ((*aux).extable, (*aux).num_exentries)
    };
    if num == 0 {
        return core::ptr::null();
    }
    // SAFETY: `extable` holds `num` sorted entries.
    unsafe { bindings::search_extable(extable, num as usize, addr) }
}

/// The `symnum`-th BPF symbol in insertion order: its address, type and name (`KSYM_NAME_LEN`
/// bytes). Returns `-ERANGE` past the last one, or when BPF symbols are hidden
/// (`bpf_jit_kallsyms` off, or hardening on). O(`symnum`); walkers use [`bpf_get_kallsym_next`].
///
/// # Safety
///
/// `value`, `type_` and `sym` are valid; `sym` for `KSYM_NAME_LEN` bytes.
#[export]
pub unsafe extern "C" fn bpf_get_kallsym(
    symnum: c_uint,
    value: *mut c_ulong,
    type_: *mut c_char,
    sym: *mut c_char,
) -> c_int {
    // SAFETY: All zeroes is a cursor at the start; the rest is the caller's promise.
    unsafe { bpf_get_kallsym_next(&mut core::mem::zeroed(), symnum, value, type_, sym) }
}

/// As [`bpf_get_kallsym`], resuming from `cur` so that consecutive `symnum`s cost O(1) each.
///
/// # Safety
///
/// `cur` is a valid cursor, zeroed before its first use and not used concurrently; the other
/// pointers as for [`bpf_get_kallsym`].
#[export]
pub unsafe extern "C" fn bpf_get_kallsym_next(
    cur: *mut bindings::bpf_ksym_cursor,
    symnum: c_uint,
    value: *mut c_ulong,
    type_: *mut c_char,
    sym: *mut c_char,
) -> c_int {
    // SAFETY: Reads two sysctl integers.
    if !unsafe { bindings::bpf_jit_kallsyms_enabled() } {
        return ERANGE.to_errno();
    }
    let rcu = rcu::read_lock();
    // SAFETY: `cur` is valid, exclusively ours, and was zeroed or last written by `symbol_at`,
    // per the safety requirements.
    let Some(ksym) = (unsafe { kallsyms_walk::symbol_at(&mut *cur, symnum, &rcu) }) else {
        return ERANGE.to_errno();
    };
    // SAFETY: `sym` holds `KSYM_NAME_LEN` bytes, per the safety requirements.
    ksym.copy_name(unsafe { &mut *sym.cast() });
    // SAFETY: The pointers are valid, per the safety requirements.
    unsafe {
        *value = ksym.start();
        // BPF code is local text.
        *type_ = bindings::BPF_SYM_ELF_TYPE as c_char;
    }
    0
}
