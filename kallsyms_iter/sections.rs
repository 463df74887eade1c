// SPDX-License-Identifier: GPL-2.0

//! The sections of `/proc/kallsyms`, in mainline's order: core kernel, modules, ftrace's
//! trampolines, BPF, kprobes' instruction pages.
//!
//! C header: [`include/linux/kallsyms_iter.h`](srctree/include/linux/kallsyms_iter.h)
//!
//! The core section has a fixed size. Each later one records where it ended (`pos_*_end`, last
//! plus one) when a reader first goes past it, so that later positions skip it; the fields keep
//! mainline's meaning, since `iter/ksym` programs read them.

use crate::Iter;
use kernel::bindings;

/// The BPF section's owner column.
const BPF_OWNER: &[u8] = b"bpf\0";

/// Moves `iter` to the symbol at `pos`: `true`, or `false` past the last section.
///
/// # Safety
///
/// `iter` was reset (zeroed, then `kallsyms_iter_reset()`, or `reset_iter()` in C) and changed
/// since only by this function: its name offset and BPF cursor are the ones the C shims and the
/// registry last wrote, which they dereference.
// Inlined into each caller: a call per line is what mainline's `s_next()` spares its lines.
#[inline(always)]
pub(crate) unsafe fn update(iter: &mut Iter, pos: bindings::loff_t) -> bool {
    // SAFETY: `iter` is exclusive, and its core-section state is C's own, per the safety
    // requirements.
    if unsafe { bindings::kallsyms_iter_core(iter, pos) } != 0 {
        return true;
    }
    iter.pos = pos;
    // A section end of 0 is not known yet (no section is empty at position 0: core is first).
    let before = |end: bindings::loff_t| end == 0 || end > pos;
    // SAFETY: As above, for each section.
    if before(iter.pos_mod_end) && unsafe { bindings::kallsyms_iter_mod(iter) } != 0 {
        return true;
    }
    // SAFETY: As above.
    if before(iter.pos_ftrace_mod_end) && unsafe { bindings::kallsyms_iter_ftrace_mod(iter) } != 0 {
        return true;
    }
    // SAFETY: The cursor is the registry's own, per the safety requirements.
    if before(iter.pos_bpf_end) && unsafe { bpf(iter) } {
        return true;
    }
    // SAFETY: As above.
    unsafe { bindings::kallsyms_iter_kprobe(iter) != 0 }
}

/// The BPF symbol at `iter.pos`, from the registry's cursor: O(1) when it follows the last one.
///
/// # Safety
///
/// `iter.bpf_cursor` is zeroed or as `bpf_get_kallsym_next()` last left it.
unsafe fn bpf(iter: &mut Iter) -> bool {
    iter.module_name[..BPF_OWNER.len()].copy_from_slice(BPF_OWNER);
    iter.exported = 0;
    let symnum = u32::try_from(iter.pos - iter.pos_ftrace_mod_end);
    // SAFETY: The cursor is zeroed or the registry's, per the safety requirements; the out
    // pointers are the iterator's fields, `name` `KSYM_NAME_LEN` bytes long.
    let found = symnum.is_ok_and(|symnum| unsafe {
        bindings::bpf_get_kallsym_next(
            &mut iter.bpf_cursor,
            symnum,
            &mut iter.value,
            &mut iter.type_,
            iter.name.as_mut_ptr(),
        ) == 0
    });
    if !found {
        iter.pos_bpf_end = iter.pos;
    }
    found
}
