// SPDX-License-Identifier: GPL-2.0

//! `/sys/kernel/debug/kallsyms_query/passes`: how the calls came to their answers.
//!
//! C header: [`include/linux/kallsyms_query.h`](srctree/include/linux/kallsyms_query.h)
//!
//! One `name value` line per counter of [`pass::COUNTERS`]: the bound on lockless attempts, the
//! lockless attempts that a change overlapped, the calls that took the locked pass, the locked
//! passes made again for a module change, the most lockless attempts one call made and
//! `BY_SYMBOL`'s walks made again. Tests read it to check the bound under churn; it is not an
//! interface.

use crate::pass;
use kernel::{
    debugfs::Dir,
    prelude::*, //
};

/// Creates the directory and its file; called once, by `kallsyms_init()`.
#[export]
pub extern "C" fn kallsyms_query_init() {
    let dir = Dir::new(c"kallsyms_query");
    // A failure leaves the kernel without the file: nothing depends on it.
    if let Ok(file) = KBox::pin_init(dir.read_only_file(c"passes", &pass::COUNTERS), GFP_KERNEL) {
        // The counters live as long as the kernel: so does the file.
        core::mem::forget(file);
    }
}
