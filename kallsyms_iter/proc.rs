// SPDX-License-Identifier: GPL-2.0

//! `/proc/kallsyms`: its `proc_ops` and `seq_operations`.
//!
//! C headers: [`include/linux/proc_fs.h`](srctree/include/linux/proc_fs.h),
//! [`include/linux/seq_file.h`](srctree/include/linux/seq_file.h)
//!
//! Whether the opener may see addresses is decided once, at open, from the opener's credentials
//! (`kallsyms_show_value()`), as in mainline: a file passed to a less privileged process keeps
//! what its opener could see.

use crate::{
    line,
    seq::{
        iter,
        next,
        start, //
    },
    Iter, //
};
use kernel::{
    bindings,
    ffi::{
        c_int,
        c_void, //
    },
    prelude::*, //
};

/// `seq_operations::stop`: nothing is held between calls.
extern "C" fn stop(_m: *mut bindings::seq_file, _p: *mut c_void) {}

/// `seq_operations::show`: the symbol's line.
///
/// # Safety
///
/// `seq_file` calls it: `m` is valid and its mutex held.
unsafe extern "C" fn show(m: *mut bindings::seq_file, _p: *mut c_void) -> c_int {
    // SAFETY: Per the safety requirements: `m` is in its `show` callback, so its iterator is
    // ours until it returns.
    unsafe { line::show(m, &*iter(m)) };
    0
}

static SEQ_OPS: bindings::seq_operations = bindings::seq_operations {
    start: Some(start),
    next: Some(next),
    stop: Some(stop),
    show: Some(show),
};

/// `proc_ops::proc_open`: a fresh iterator at the first symbol.
///
/// # Safety
///
/// procfs calls it with a valid `file` being opened.
unsafe extern "C" fn open(_inode: *mut bindings::inode, file: *mut bindings::file) -> c_int {
    // The iterator is small enough for a `c_int`: a const-evaluated check.
    const SIZE: c_int = {
        assert!(size_of::<Iter>() <= c_int::MAX as usize);
        size_of::<Iter>() as c_int
    };
    // SAFETY: `file` is valid; the allocation, zeroed, becomes the `seq_file`'s private.
    let iter = unsafe { bindings::__seq_open_private(file, &SEQ_OPS, SIZE) }.cast::<Iter>();
    if iter.is_null() {
        return ENOMEM.to_errno();
    }
    // SAFETY: Just allocated, and no reader has the file yet; `f_cred` is set for the file's
    // whole life.
    unsafe { bindings::kallsyms_iter_reset(iter, (*file).f_cred) };
    0
}

static PROC_OPS: bindings::proc_ops = bindings::proc_ops {
    proc_open: Some(open),
    proc_read: Some(bindings::seq_read),
    proc_lseek: Some(bindings::seq_lseek),
    proc_release: Some(bindings::seq_release_private),
    #[cfg(CONFIG_KALLSYMS_QUERY)]
    proc_ioctl: Some(bindings::kallsyms_ioctl),
    #[cfg(all(CONFIG_KALLSYMS_QUERY, CONFIG_COMPAT))]
    proc_compat_ioctl: bindings::compat_ptr_ioctl,
    // SAFETY: All zeroes is a valid `proc_ops`: no flags, no other operation.
    ..unsafe { core::mem::zeroed() }
};

/// Creates `/proc/kallsyms`.
pub(crate) fn create() {
    // A failure leaves the kernel without the file, as in mainline: nothing else depends on it.
    // SAFETY: A static name and operations; called once, at init.
    unsafe {
        bindings::proc_create(
            c"kallsyms".as_char_ptr(),
            0o444,
            core::ptr::null_mut(),
            &PROC_OPS,
        )
    };
}
