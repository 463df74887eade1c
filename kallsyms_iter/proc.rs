// SPDX-License-Identifier: GPL-2.0

//! `/proc/kallsyms`: its `proc_ops` and `seq_operations`.
//!
//! C headers: [`include/linux/proc_fs.h`](srctree/include/linux/proc_fs.h),
//! [`include/linux/seq_file.h`](srctree/include/linux/seq_file.h)
//!
//! Whether the opener may see addresses is decided once, at open, from the opener's credentials
//! (`kallsyms_show_value()`), as in mainline: a file passed to a less privileged process keeps
//! what its opener could see. The ioctl reads that decision from [`Private::show_value`], beside
//! the iterator rather than in it: a `read()` of the same file borrows the iterator mutably for as
//! long as its user copy waits (userfaultfd, FUSE), and the ioctl must neither wait for it nor
//! read what it borrows.

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
    prelude::*,
    seq_file::SeqFile, //
};

/// `seq_operations::stop`: nothing is held between calls.
extern "C" fn stop(_m: *mut bindings::seq_file, _p: *mut c_void) {}

/// `seq_operations::show`: the symbol's line.
///
/// # Safety
///
/// `seq_file` calls it: `m` is valid and its mutex held.
unsafe extern "C" fn show(m: *mut bindings::seq_file, _p: *mut c_void) -> c_int {
    // SAFETY: Per the safety requirements: `m` is in its `show` callback, so it and its iterator
    // are ours until it returns.
    unsafe { line::show(SeqFile::from_raw(m), &*iter(m)) };
    0
}

static SEQ_OPS: bindings::seq_operations = bindings::seq_operations {
    start: Some(start),
    next: Some(next),
    stop: Some(stop),
    show: Some(show),
};

/// The `seq_file`'s private data: the iterator first, where [`iter`] finds it.
#[repr(C)]
struct Private {
    iter: Iter,
    /// Whether the opener may see addresses: written at open, before the file can be shared, and
    /// never again.
    show_value: bool,
}

/// `proc_ops::proc_open`: a fresh iterator at the first symbol.
///
/// # Safety
///
/// procfs calls it with a valid `file` being opened.
unsafe extern "C" fn open(_inode: *mut bindings::inode, file: *mut bindings::file) -> c_int {
    // The private data is small enough for a `c_int`: a const-evaluated check.
    const SIZE: c_int = {
        assert!(size_of::<Private>() <= c_int::MAX as usize);
        size_of::<Private>() as c_int
    };
    // SAFETY: `file` is valid; the allocation, zeroed, becomes the `seq_file`'s private.
    let private = unsafe { bindings::__seq_open_private(file, &SEQ_OPS, SIZE) }.cast::<Private>();
    if private.is_null() {
        return ENOMEM.to_errno();
    }
    // SAFETY: Just allocated, and no reader has the file yet; `f_cred` is set for the file's
    // whole life.
    unsafe {
        let iter = &raw mut (*private).iter;
        bindings::kallsyms_iter_reset(iter, (*file).f_cred);
        (*private).show_value = (*iter).show_value != 0;
    }
    0
}

/// `proc_ops::proc_ioctl`: `KALLSYMS_QUERY`, without the `seq_file`'s mutex.
///
/// # Safety
///
/// procfs calls it with a `file` that [`open`] opened.
#[cfg(CONFIG_KALLSYMS_QUERY)]
unsafe extern "C" fn ioctl(
    file: *mut bindings::file,
    cmd: kernel::ffi::c_uint,
    arg: kernel::ffi::c_ulong,
) -> kernel::ffi::c_long {
    // SAFETY: `file` was opened by `open`: its `private_data` is its `seq_file`, whose private is
    // a `Private`, allocated until release. `show_value` is read through a raw place: no
    // reference to the `Private` is made, so none covers the iterator a `read()` may be using.
    let show_value = unsafe {
        let m = (*file).private_data.cast::<bindings::seq_file>();
        (*(*m).private.cast::<Private>()).show_value
    };
    // SAFETY: `arg` is the ioctl's, passed on as it came.
    unsafe { bindings::kallsyms_query_ioctl(show_value, cmd, arg) }
}

static PROC_OPS: bindings::proc_ops = bindings::proc_ops {
    proc_open: Some(open),
    proc_read: Some(bindings::seq_read),
    proc_lseek: Some(bindings::seq_lseek),
    proc_release: Some(bindings::seq_release_private),
    #[cfg(CONFIG_KALLSYMS_QUERY)]
    proc_ioctl: Some(ioctl),
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
