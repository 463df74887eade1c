// SPDX-License-Identifier: GPL-2.0

//! The `seq_file` walk that `/proc/kallsyms` and `iter/ksym` share: one record per symbol.
//!
//! C header: [`include/linux/seq_file.h`](srctree/include/linux/seq_file.h)
//!
//! `seq_file` positions count symbols, so `lseek()` and short reads behave as they always did:
//! a position right after the last one costs O(1), any other one a reset of the core section.

use crate::{
    sections,
    Iter, //
};
use kernel::{
    bindings,
    ffi::c_void, //
};

/// The iterator of the `seq_file` `m`: its `private`, allocated and reset at open.
///
/// A raw pointer: a reference to it is valid only within the callback that holds `m`'s mutex.
///
/// # Safety
///
/// `m` is a valid `seq_file` of these operations (or of `iter/ksym`'s).
pub(crate) unsafe fn iter(m: *mut bindings::seq_file) -> *mut Iter {
    // SAFETY: `m` is valid, per the safety requirements; `private` is written once, at open.
    unsafe { (*m).private.cast::<Iter>() }
}

/// `seq_operations::start`: the symbol at `*pos`, or `NULL` at the end.
///
/// # Safety
///
/// `seq_file` calls it: `m` and `pos` are valid, and `m`'s mutex held.
pub(crate) unsafe extern "C" fn start(
    m: *mut bindings::seq_file,
    pos: *mut bindings::loff_t,
) -> *mut c_void {
    // SAFETY: Per the safety requirements.
    let (iter, pos) = unsafe { (iter(m), *pos) };
    // SAFETY: The iterator is ours while `m`'s mutex is held, reset at open and changed only by
    // `update()` since.
    if unsafe { sections::update(&mut *iter, pos) } {
        iter.cast()
    } else {
        core::ptr::null_mut()
    }
}

/// `seq_operations::next`: the symbol after `p`, at `*pos + 1`.
///
/// # Safety
///
/// As for [`start`].
pub(crate) unsafe extern "C" fn next(
    m: *mut bindings::seq_file,
    p: *mut c_void,
    pos: *mut bindings::loff_t,
) -> *mut c_void {
    // SAFETY: Per the safety requirements.
    let (iter, pos) = unsafe {
        *pos += 1;
        (iter(m), *pos)
    };
    // SAFETY: As in `start`.
    if unsafe { sections::update(&mut *iter, pos) } {
        p
    } else {
        core::ptr::null_mut()
    }
}
