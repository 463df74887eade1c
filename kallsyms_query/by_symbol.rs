// SPDX-License-Identifier: GPL-2.0

//! `KALLSYMS_QUERY_BY_SYMBOL`: a symbol's address by its name, in vmlinux, then in the loaded
//! modules; one address, or `EADDRNOTAVAIL` for a name at two.
//!
//! C headers: [`include/linux/kallsyms_query.h`](srctree/include/linux/kallsyms_query.h),
//! [`include/linux/module.h`](srctree/include/linux/module.h)

use crate::{
    answer,
    pass::{
        self,
        Window, //
    },
    user_addr,
    Query,
    NAME_LEN, //
};
use kernel::{
    bindings,
    error::to_result,
    num::casts::FromSafeCast,
    prelude::*,
    sync::rcu,
    uaccess::{
        UserPtr,
        UserSlice, //
    }, //
};

/// `KALLSYMS_QUERY_BY_SYMBOL`: the address of the symbol named at `sym_name_addr`, and the
/// generation it holds for.
pub(crate) fn by_symbol(q: &mut Query, window: &mut Window) -> Result {
    if q.sym_addr != 0 || q.sym_name_size != 0 {
        return Err(EINVAL);
    }
    let src = UserPtr::from_addr(user_addr(q.sym_name_addr)?);
    let mut buf = [0u8; NAME_LEN];
    // At most `NAME_LEN` bytes read: a longer name is `ENAMETOOLONG` without a fault past them.
    let len = UserSlice::new(src, NAME_LEN)
        .reader()
        .strncpy_into_buf(&mut buf)?;
    match len {
        0 => return Err(EINVAL),
        NAME_LEN => return Err(ENAMETOOLONG),
        _ => {}
    }
    // The copy stopped at the first NUL, at `len`.
    let name = CStr::from_bytes_with_nul(&buf[..=len]).map_err(|_| EINVAL)?;
    let skip_going = window.skip_going();
    // vmlinux first; its answers, errors included, never change.
    let (addr, generation) = pass::by_symbol(window, || match vmlinux_address(name) {
        Err(e) if e == ENOENT => (module_address(name, skip_going), true),
        found => (found, false),
    })?;
    q.sym_addr = u64::from_safe_cast(addr?);
    q.generation = generation;
    Ok(())
}

/// The one address of `name` in vmlinux; aliases at one address are fine.
fn vmlinux_address(name: &CStr) -> Result<usize> {
    let (mut start, mut end) = (0, 0);
    // SAFETY: `name` is NUL-terminated; `start` and `end` are valid.
    if unsafe { bindings::kallsyms_query_find_names(name.as_char_ptr(), &mut start, &mut end) } != 0
    {
        return Err(ENOENT);
    }
    // SAFETY: `start..=end` are indices just returned by the lookup.
    let addr = unsafe { bindings::kallsyms_query_name_address(start) };
    for i in start + 1..=end {
        // SAFETY: As above.
        if unsafe { bindings::kallsyms_query_name_address(i) } != addr {
            return Err(EADDRNOTAVAIL);
        }
    }
    Ok(addr)
}

/// What a walk over module symbols found so far.
struct ModuleFind<'a> {
    name: &'a [u8],
    addr: Option<usize>,
    /// Skip the symbols of modules being unloaded (version-2 callers, see `generation.rs`).
    skip_going: bool,
}

/// Called for each module symbol, under RCU; stops the walk with `EADDRNOTAVAIL` on a second
/// address.
///
/// # Safety
///
/// `data` is a `ModuleFind`; `name` is a NUL-terminated string; the RCU read lock is held.
unsafe extern "C" fn module_symbol(data: *mut c_void, name: *const c_char, addr: c_ulong) -> c_int {
    // SAFETY: Per the safety requirements.
    let (find, name) = unsafe {
        (
            &mut *data.cast::<ModuleFind<'_>>(),
            CStr::from_char_ptr(name),
        )
    };
    if name.to_bytes_with_nul() != find.name {
        return 0;
    }
    // Nested in the walk's own read-side section: the guard only proves it is held.
    if find.skip_going && answer::module_going_at(addr, &rcu::read_lock()) {
        return 0;
    }
    match find.addr {
        Some(a) if a != addr => EADDRNOTAVAIL.to_errno(),
        _ => {
            find.addr = Some(addr);
            0
        }
    }
}

/// The one address of `name` among the loaded modules.
fn module_address(name: &CStr, skip_going: bool) -> Result<usize> {
    let mut find = ModuleFind {
        name: name.to_bytes_with_nul(),
        addr: None,
        skip_going,
    };
    // Under RCU, not `module_mutex`: a loop of these calls must not hold off module load and
    // unload. The caller checks the module count around the walk.
    // SAFETY: `module_symbol` matches the callback type, does not sleep, and `find` outlives the
    // walk.
    let err = unsafe {
        bindings::module_kallsyms_on_each_symbol_rcu(Some(module_symbol), (&raw mut find).cast())
    };
    // Not found first: without modules the walk itself fails with `EOPNOTSUPP`.
    let addr = find.addr.ok_or(ENOENT)?;
    to_result(err)?;
    Ok(addr)
}
