// SPDX-License-Identifier: GPL-2.0

//! The BPF part of `/proc/kallsyms` and `iter/ksym`: one symbol per call, in O(1).
//!
//! C header: [`include/linux/bpf_ksym.h`](srctree/include/linux/bpf_ksym.h)
//!
//! `seq_file` asks for symbol `symnum`, then `symnum + 1`, and so on, each time in a new RCU
//! read section; at a `read()` boundary it asks for the same `symnum` again if that line did not
//! fit. Mainline walked the list from its head for each of these calls, so one read cost
//! O(n^2). A [`bindings::bpf_ksym_cursor`] remembers the symbol returned last instead:
//!
//! - nothing was removed since (the registry's removal count is unchanged): that symbol is still
//!   registered, hence not freed, and the walk goes on from it in O(1);
//! - something was removed: the walk starts again from the head and skips to the first symbol
//!   inserted after the remembered one (by sequence number), O(n) once per removal.
//!
//! What a reader sees while symbols come and go: each symbol at most once, in insertion order;
//! every symbol registered for the whole read; symbols added or removed during the read may or
//! may not appear.

use crate::registry;
use kernel::{
    bindings,
    bpf::ksym::Ksym,
    sync::rcu, //
};

/// Finds the symbol for index `symnum` and moves the cursor `cur` there.
///
/// # Safety
///
/// `cur` is all zeroes, or was last written by this function (its `ksym` is then a symbol reached
/// in the read section whose removal count is its `removals`).
pub(crate) unsafe fn symbol_at<'a>(
    cur: &mut bindings::bpf_ksym_cursor,
    symnum: u32,
    rcu: &'a rcu::Guard,
) -> Option<&'a Ksym> {
    let removals = registry::removals(rcu);
    let again = symnum == cur.symnum;
    let found = if cur.ksym.is_null() || !(again || symnum == cur.symnum.wrapping_add(1)) {
        // A fresh walk or a jump (`lseek()`): count from the head, as mainline does.
        registry::iter(rcu).nth(symnum as usize)
    } else if removals == cur.removals {
        // `cur.ksym` was reached in the read section that read `cur.removals` (safety
        // requirements), and this section read the same count. So either `cur.ksym` is still
        // registered, or its `del` stored a later count after this section loaded the count:
        // that load reads before the store, which precedes the grace period its owner waits
        // for before freeing or reusing it, so this read section ends before that grace
        // period does. Either way `cur.ksym` and its `next` stay valid for `rcu`.
        // SAFETY: `cur.ksym` is valid for `rcu`, by the unchanged removal count (above).
        let last = unsafe { Ksym::from_raw(cur.ksym.cast_mut()) };
        if again {
            Some(last)
        } else {
            // SAFETY: `last` is validated for `rcu` by the unchanged removal count, as above.
            unsafe { registry::iter_from(last, rcu) }.next()
        }
    } else {
        // `cur.ksym` may be gone: resume by insertion order instead.
        let seq = cur.seq;
        registry::iter(rcu).find(|&k| {
            if again {
                registry::seq(k) >= seq
            } else {
                registry::seq(k) > seq
            }
        })
    };
    match found {
        Some(k) => {
            cur.ksym = k.as_raw();
            cur.seq = registry::seq(k);
            cur.removals = removals;
            cur.symnum = symnum;
        }
        None => cur.ksym = core::ptr::null(),
    }
    found
}
