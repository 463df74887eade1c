// SPDX-License-Identifier: GPL-2.0

//! `KALLSYMS_QUERY_BY_ADDR`: the symbol that covers one address.
//!
//! C header: [`include/uapi/linux/kallsyms_query.h`](srctree/include/uapi/linux/kallsyms_query.h)

use crate::{
    answer::{
        Answer,
        Cursor,
        NameBuf,
        Rules, //
    },
    buf_len,
    kernel_addr,
    pass::Window,
    user_addr,
    IdRule,
    Query, //
};
use kernel::{
    bindings,
    num::casts::FromSafeCast,
    prelude::*, //
};

/// Answers `q` under `window`, looking up again until one attempt holds; the name's length, NUL
/// included, with the name in `name` for the caller to copy to the user.
pub(crate) fn answer(
    q: &mut Query,
    ids: &mut IdRule,
    window: &mut Window,
    name: &mut NameBuf,
) -> Result<usize> {
    let vmlinux = bindings::kallsyms_sym_kind_KALLSYMS_SYM_VMLINUX;
    loop {
        let mut out = *q;
        if let Some(found) = window.run(|rules| {
            let found = by_addr(&mut out, rules, name);
            let may_change = found.is_err() || out.sym_kind != vmlinux;
            (found, may_change)
        }) {
            let len = found?;
            window.done();
            // With no lock held, and only if the answer has an id.
            out.sym_prog_id = u64::from(ids.filter(u32::try_from(out.sym_prog_id).unwrap_or(0)));
            *q = out;
            q.generation = window.generation();
            return Ok(len);
        }
        window.retry()?;
    }
}

/// `KALLSYMS_QUERY_BY_ADDR`: the symbol that covers `sym_addr`, as `%pS` finds it. Its name goes
/// to `name`, for the caller to copy to the user once it knows the answer holds: the length,
/// NUL included. `sym_prog_id` is the program's id whoever asks: the caller filters it.
fn by_addr(q: &mut Query, rules: &Rules, name: &mut NameBuf) -> Result<usize> {
    if q.sym_name_size == 0 {
        return Err(EINVAL);
    }
    let addr = kernel_addr(q.sym_addr)?;
    let mut a = Answer::new();
    a.lookup(addr, rules, &mut Cursor::new(), name)?;
    if buf_len::<usize>(q.sym_name_size) < a.name_len {
        return Err(ENAMETOOLONG);
    }
    // Checked before the answer is used, as the copy after the lookups would.
    user_addr::<usize>(q.sym_name_addr)?;
    q.sym_name_size = u64::from_safe_cast(a.name_len);
    q.sym_start = u64::from_safe_cast(a.start);
    q.sym_size = u64::from_safe_cast(a.size);
    // All of it, zeroes after the NUL: the caller's struct may hold a longer name from an
    // earlier answer.
    q.sym_owner = a.new_answer_owner();
    q.sym_kind = a.kind;
    // Whoever asks: the caller hides it from those who may not see it.
    q.sym_prog_id = u64::from(a.prog_id);
    q.sym_subprog = a.subprog;
    Ok(a.name_len)
}
