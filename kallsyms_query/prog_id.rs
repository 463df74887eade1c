// SPDX-License-Identifier: GPL-2.0

//! Who may see a BPF program's id in an answer: the rule of `BPF_PROG_GET_FD_BY_ID`.
//!
//! C header: [`include/linux/capability.h`](srctree/include/linux/capability.h)

use crate::Version;
use kernel::{
    bindings,
    prelude::*, //
};

/// Whether the caller may see BPF program ids, asked once per call and only when an answer has
/// one (the check may go through the LSMs).
pub(crate) struct IdRule {
    /// `None` until asked; version 0 and 1 callers have no field for ids.
    allowed: Option<bool>,
}

impl IdRule {
    pub(crate) fn new(ver: Version) -> Self {
        Self {
            allowed: (ver != Version::V2).then_some(false),
        }
    }

    /// `id`, or 0 if the caller may not see it.
    pub(crate) fn filter(&mut self, id: u32) -> u32 {
        if id == 0 {
            return 0;
        }
        if *self.allowed.get_or_insert_with(may_see_ids) {
            id
        } else {
            0
        }
    }
}

/// Whether the caller may see BPF program ids: the rule of `BPF_PROG_GET_FD_BY_ID` and
/// `BPF_PROG_GET_NEXT_ID`, `capable(CAP_SYS_ADMIN)`: the capability in the initial user
/// namespace, in the calling task's effective credentials. Checked without the audit record a
/// denial would leave for every query: nothing is granted, an id is only shown. A success marks
/// the task as having used a privilege (`PF_SUPERPRIV`), as `capable()` does.
fn may_see_ids() -> bool {
    // SAFETY: `init_user_ns` is the initial user namespace, which lives forever.
    unsafe {
        bindings::ns_capable_noaudit(
            &raw mut bindings::init_user_ns,
            bindings::CAP_SYS_ADMIN as c_int,
        )
    }
}
