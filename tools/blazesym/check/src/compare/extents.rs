// SPDX-License-Identifier: GPL-2.0
//! The BPF programs' functions, as bpf() gives them (jited_ksyms and
//! jited_func_lens), against KALLSYMS_QUERY at their starts: the sizes
//! are checked against the programs' own, not the kernel's symbol
//! tables.

use std::collections::BTreeSet;

use super::ctx::Ctx;
use super::ATTEMPTS;
use super::SHOWN;
use crate::bpf;
use crate::kallsyms::Kind;
use crate::kallsyms::Kq;
use crate::kallsyms::KALLSYMS_SYM_BPF_PROG;
use crate::kallsyms::KALLSYMS_SYM_BPF_SUBPROG;

/// Programs, functions and problems counted.
#[derive(Default)]
struct Counts {
    progs: usize,
    funcs: usize,
    subprogs: usize,
    gone: usize,
    bad: usize,
}

/// Check the listed BPF programs' functions; returns whether they agree
/// (and, if `required`, some were checked).
pub(super) fn check(ctx: &Ctx, required: bool) -> bool {
    let Some(kq) = &ctx.kq else {
        println!("bpf extents: not checked (no KALLSYMS_QUERY)");
        return true;
    };
    let ids: BTreeSet<u64> = ctx
        .listing
        .syms
        .iter()
        .filter(|s| s.kind() == Kind::BpfProg)
        .filter_map(|s| ctx.kq_sym(s.addr).filter(|q| q.start == s.addr))
        .map(|q| q.prog_id)
        .filter(|&id| id != 0 && id <= u64::from(u32::MAX))
        .collect();
    let mut n = Counts::default();
    for id in ids {
        for p in &check_prog(kq, id, &mut n) {
            if n.bad < SHOWN {
                println!("bpf extents: FAIL program id {id}: {p}");
            }
            n.bad += 1;
        }
    }
    let Counts {
        progs,
        funcs,
        subprogs,
        gone,
        bad,
    } = n;
    let ok = bad == 0 && (progs > 0 || !required);
    println!(
        "bpf extents: {progs} programs ({gone} gone meanwhile), {funcs} functions ({subprogs} subprograms): \
         KALLSYMS_QUERY start, size, id, kind against jited_ksyms/jited_func_lens: {bad} problems: {}",
        if ok { "ok" } else { "FAILED" }
    );
    if progs == 0 && required {
        println!("bpf extents: FAILED: no program checked (bpf_prog is --require'd)");
    }
    ok
}

/// Program `id`'s functions against KALLSYMS_QUERY, again until the
/// generation stays the same (at most `ATTEMPTS` times); counts it in
/// `n` and returns its problems.
fn check_prog(kq: &Kq, id: u64, n: &mut Counts) -> Vec<String> {
    let mut attempt = 0;
    loop {
        let g0 = kq.generation();
        let mut problems = Vec::new();
        let mut got = None;
        match bpf::funcs_by_id(id as u32) {
            Ok(None) => {}
            Ok(Some(f)) => {
                for (i, &(addr, len)) in f.iter().enumerate() {
                    problems.extend(check_func(kq, id, i, addr, len));
                }
                got = Some(f.len());
            }
            Err(err) => problems.push(format!("bpf(): {err}")),
        }
        let same = matches!((g0, kq.generation()), (Ok(a), Ok(b)) if a == b);
        attempt += 1;
        if same || attempt == ATTEMPTS {
            match got {
                None if problems.is_empty() => n.gone += 1,
                None => {}
                Some(f) => {
                    n.progs += 1;
                    n.funcs += f;
                    n.subprogs += f.saturating_sub(1);
                }
            }
            if !same {
                problems.push(format!(
                    "the generation changed during each of {ATTEMPTS} attempts"
                ));
            }
            return problems;
        }
    }
}

/// Function `i` of program `id`, at `addr`, `len` bytes, against
/// KALLSYMS_QUERY: the problem if any.
fn check_func(kq: &Kq, id: u64, i: usize, addr: u64, len: u32) -> Option<String> {
    let kind = if i == 0 {
        KALLSYMS_SYM_BPF_PROG
    } else {
        KALLSYMS_SYM_BPF_SUBPROG
    };
    match kq.by_addr(addr) {
        Ok(Some(q))
            if q.start == addr
                && q.size == u64::from(len)
                && q.prog_id == id
                && q.kind == kind
                && q.subprog as usize == i =>
        {
            None
        }
        Ok(Some(q)) => Some(format!(
            "function {i} at 0x{addr:x}, jited_func_lens {len}: KALLSYMS_QUERY: {} start 0x{:x} size {} prog id {} kind {} subprog {}",
            q.name, q.start, q.size, q.prog_id, q.kind, q.subprog
        )),
        Ok(None) => Some(format!(
            "function {i} at 0x{addr:x}, jited_func_lens {len}: KALLSYMS_QUERY: no symbol"
        )),
        Err(err) => Some(format!(
            "function {i} at 0x{addr:x}: KALLSYMS_QUERY: {err}"
        )),
    }
}
