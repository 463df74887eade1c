// SPDX-License-Identifier: GPL-2.0

//! `iter/ksym`: a BPF iterator over the symbols of `/proc/kallsyms`.
//!
//! C header: [`include/linux/bpf.h`](srctree/include/linux/bpf.h)
//!
//! The program runs once per symbol with `struct bpf_iter__ksym` (its `ksym` the iterator, read
//! through BTF), and once more at the end with `ksym` `NULL`. The target's context type comes
//! from `DEFINE_BPF_ITER_FUNC(ksym, ...)` in `kernel/kallsyms.c`: only C functions have BTF.

use crate::{
    seq::{
        iter,
        next,
        start, //
    },
    Iter,
};
use kernel::{
    bindings,
    error::to_result,
    ffi::{
        c_int,
        c_void, //
    },
    prelude::*, //
};

/// Runs the program attached to `m` for the current symbol, or for the end (`in_stop`).
///
/// # Safety
///
/// `m` is a valid `seq_file` of `iter/ksym` in one of its callbacks.
unsafe fn run_prog(m: *mut bindings::seq_file, in_stop: bool) -> c_int {
    // Built in place: a struct per symbol, so no out-of-line `Default` that zeroes it first.
    let mut meta = bindings::bpf_iter_meta {
        __bindgen_anon_1: bindings::bpf_iter_meta__bindgen_ty_1 { seq: m },
        session_id: 0,
        seq_num: 0,
    };
    // SAFETY: `meta` names a valid `seq_file` of a BPF iterator, per the safety requirements.
    let prog = unsafe { bindings::bpf_iter_get_info(&mut meta, in_stop) };
    if prog.is_null() {
        return 0;
    }
    // At the end the iterator holds no symbol, only what the last lookup left.
    let ksym = if in_stop {
        core::ptr::null_mut()
    } else {
        // SAFETY: Per the safety requirements.
        unsafe { iter(m) }
    };
    let mut ctx = bindings::bpf_iter__ksym {
        __bindgen_anon_1: bindings::bpf_iter__ksym__bindgen_ty_1 { meta: &mut meta },
        __bindgen_anon_2: bindings::bpf_iter__ksym__bindgen_ty_2 { ksym },
    };
    // SAFETY: `prog` is the iterator's program, `ctx` its context type, both valid for the call.
    unsafe { bindings::bpf_iter_run_prog(prog, core::ptr::from_mut(&mut ctx).cast()) }
}

/// `seq_operations::show`: the program, for this symbol.
///
/// # Safety
///
/// `seq_file` calls it: `m` is valid and its mutex held.
unsafe extern "C" fn show(m: *mut bindings::seq_file, _p: *mut c_void) -> c_int {
    // SAFETY: Per the safety requirements.
    unsafe { run_prog(m, false) }
}

/// `seq_operations::stop`: at the end of the walk (`p` `NULL`), the program once more.
///
/// # Safety
///
/// As for [`show`].
unsafe extern "C" fn stop(m: *mut bindings::seq_file, p: *mut c_void) {
    if p.is_null() {
        // Its verdict cannot stop a walk that has ended.
        // SAFETY: Per the safety requirements.
        let _ = unsafe { run_prog(m, true) };
    }
}

static SEQ_OPS: bindings::seq_operations = bindings::seq_operations {
    start: Some(start),
    next: Some(next),
    stop: Some(stop),
    show: Some(show),
};

/// `bpf_iter_seq_info::init_seq_private`: a fresh iterator at the first symbol.
///
/// # Safety
///
/// The BPF iterator calls it with its zeroed private data, an [`Iter`], before any callback.
unsafe extern "C" fn init(priv_data: *mut c_void, _aux: *mut bindings::bpf_iter_aux_info) -> c_int {
    // As `/proc/kallsyms` decides at open: from the credentials of the task that creates the
    // iterator (`NULL`: the current task's).
    // SAFETY: `priv_data` is a valid iterator not yet used, per the safety requirements.
    unsafe { bindings::kallsyms_iter_reset(priv_data.cast::<Iter>(), core::ptr::null()) };
    0
}

/// The target and the `seq_file` operations it points to.
struct Target {
    seq_info: bindings::bpf_iter_seq_info,
    reg: bindings::bpf_iter_reg,
}

/// Registers `iter/ksym`.
pub(crate) fn register() {
    // A failure leaves BPF without the target, as mainline's initcall would: nothing else
    // depends on it, but tools would find iter/ksym missing, so say why.
    if let Err(e) = try_register() {
        pr_warn!("cannot register iter/ksym: {e:?}\n");
    }
}

fn try_register() -> Result {
    let mut target = KBox::new(
        Target {
            seq_info: bindings::bpf_iter_seq_info {
                seq_ops: &SEQ_OPS,
                init_seq_private: Some(init),
                fini_seq_private: None,
                seq_priv_size: u32::try_from(size_of::<Iter>())?,
            },
            reg: bindings::bpf_iter_reg::default(),
        },
        GFP_KERNEL,
    )?;
    let t = &mut *target;
    t.reg.target = c"ksym".as_char_ptr();
    t.reg.feature = bindings::bpf_iter_feature_BPF_ITER_RESCHED;
    t.reg.ctx_arg_info_size = 1;
    let ksym = &mut t.reg.ctx_arg_info[0];
    ksym.offset = u32::try_from(core::mem::offset_of!(
        bindings::bpf_iter__ksym,
        __bindgen_anon_2
    ))?;
    ksym.reg_type = bindings::bpf_reg_type_PTR_TO_BTF_ID_OR_NULL;
    // SAFETY: Reads the BTF id `resolve_btfids` wrote at build time.
    ksym.btf_id = unsafe { bindings::kallsyms_iter_btf_id() };
    // The box's contents do not move with it.
    t.reg.seq_info = &t.seq_info;
    // SAFETY: `reg` and what it points to are valid, and stay so once registered (below).
    to_result(unsafe { bindings::bpf_iter_reg_target(&t.reg) })?;
    // Registered targets stay for the kernel's life: so does their memory.
    KBox::leak(target);
    Ok(())
}
