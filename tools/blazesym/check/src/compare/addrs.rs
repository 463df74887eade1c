// SPDX-License-Identifier: GPL-2.0
//! Address selection: the test addresses, derived from the listing (and
//! KALLSYMS_QUERY's extents of BPF symbols), and what they cover.

use std::collections::HashSet;

use super::ctx::Ctx;
use crate::kallsyms::Kind;

/// A test address: where it came from.
pub(super) struct Test {
    pub(super) addr: u64,
    pub(super) kind: Kind,
    pub(super) what: &'static str,
}

#[derive(Default)]
struct Tests {
    seen: HashSet<u64>,
    tests: Vec<Test>,
}

impl Tests {
    fn add(&mut self, addr: u64, kind: Kind, what: &'static str) {
        if self.seen.insert(addr) {
            self.tests.push(Test { addr, kind, what });
        }
    }
}

/// xorshift64*: a fixed, repeatable sample.
fn shuffle<T>(v: &mut [T], mut seed: u64) {
    for i in (1..v.len()).rev() {
        seed ^= seed >> 12;
        seed ^= seed << 25;
        seed ^= seed >> 27;
        let r = seed.wrapping_mul(0x2545_f491_4f6c_dd1d);
        v.swap(i, (r % (i as u64 + 1)) as usize);
    }
}

/// The test addresses, sorted: every BPF symbol's edges and gaps, the
/// ends of text runs, and a sample of `want` (if there are that many) of
/// text symbols the next line bounds, a fifth of them in modules.
pub(super) fn select(ctx: &Ctx, want: usize) -> Vec<Test> {
    let syms = &ctx.listing.syms;
    let mut t = Tests::default();
    let mut core = Vec::new();
    let mut module = Vec::new();

    for (idx, sym) in syms.iter().enumerate() {
        if !ctx.is_first_at(idx) {
            continue;
        }
        let kind = ctx.kind(idx);
        if kind.is_bpf() {
            add_bpf(ctx, &mut t, idx, kind);
        } else if matches!(kind, Kind::Core | Kind::Module) && sym.is_text() {
            match ctx.bounded_by_next(idx) {
                Some(_) if kind == Kind::Core => core.push(idx),
                Some(_) => module.push(idx),
                None => add_run_end(ctx, &mut t, idx, kind),
            }
        }
    }

    shuffle(&mut core, 0x6b71_7379_6d73_0001);
    shuffle(&mut module, 0x6b71_7379_6d73_0002);
    let mut module = module.into_iter();
    let module_budget = want / 5;
    for idx in module.by_ref() {
        if t.tests.len() >= module_budget {
            break;
        }
        add_sym(ctx, &mut t, idx);
    }
    for idx in core.into_iter().chain(module) {
        if t.tests.len() >= want {
            break;
        }
        add_sym(ctx, &mut t, idx);
    }
    t.tests.sort_by_key(|t| t.addr);
    t.tests
}

/// The address of the line after line `idx`'s address, if any.
fn next_addr(ctx: &Ctx, idx: usize) -> Option<u64> {
    ctx.listing
        .next_above(idx)
        .map(|j| ctx.listing.syms[j].addr)
}

/// A BPF symbol at line `idx`: its edges and middle, and the gap after
/// it, by KALLSYMS_QUERY's extent, or else by the next line.
fn add_bpf(ctx: &Ctx, t: &mut Tests, idx: usize, kind: Kind) {
    let s = ctx.listing.syms[idx].addr;
    let next = next_addr(ctx, idx);
    match ctx.kq_sym(s).filter(|q| q.start == s) {
        Some(q) => {
            let end = s + q.size;
            t.add(s, kind, "start");
            if q.size >= 1 {
                t.add(s + 1, kind, "start+1");
            }
            t.add(s + q.size / 2, kind, "middle");
            t.add(end, kind, "end (inclusive)");
            if next.is_none_or(|n| end + 1 < n) {
                t.add(end + 1, kind, "gap: end+1");
                if let Some(n) = next.filter(|&n| n > end + 2) {
                    t.add(end + 1 + (n - end - 1) / 2, kind, "gap: middle");
                    t.add(n - 1, kind, "gap: before next symbol");
                }
            }
        }
        None => {
            t.add(s, kind, "start");
            if let Some(n) = next {
                t.add(s + 1, kind, "start+1");
                t.add(s + (n - s) / 2, kind, "middle");
                t.add(n - 1, kind, "before next symbol");
            }
        }
    }
}

/// The last text symbol of a run (of a module, of vmlinux text), at
/// line `idx`: the kernel bounds it by its own end, text by the next
/// line.
fn add_run_end(ctx: &Ctx, t: &mut Tests, idx: usize, kind: Kind) {
    let s = ctx.listing.syms[idx].addr;
    if let Some(n) = next_addr(ctx, idx) {
        t.add(s + (n - s) / 2, kind, "run end: middle to next line");
        t.add(n - 1, kind, "run end: before next line");
    }
}

/// A text symbol the next line bounds, at line `idx`.
fn add_sym(ctx: &Ctx, t: &mut Tests, idx: usize) {
    let s = ctx.listing.syms[idx].addr;
    let kind = ctx.kind(idx);
    let n = ctx.bounded_by_next(idx).unwrap_or(s + 1);
    t.add(s, kind, "start");
    if n > s + 1 {
        t.add(s + 1, kind, "start+1");
    }
    t.add(s + (n - s) / 2, kind, "middle");
    t.add(n - 1, kind, "last byte");
}

/// Print the lines and test addresses of each kind; `Err(1)` if a kind
/// of `require` has no test address.
pub(super) fn show(ctx: &Ctx, tests: &[Test], require: &[String]) -> Result<(), u8> {
    let mut lines = [0usize; Kind::ALL.len()];
    for idx in 0..ctx.listing.syms.len() {
        lines[ctx.kind(idx) as usize] += 1;
    }
    let mut per_kind = [0usize; Kind::ALL.len()];
    for t in tests {
        per_kind[t.kind as usize] += 1;
    }
    println!(
        "/proc/kallsyms: {} lines with addresses",
        ctx.listing.syms.len()
    );
    for kind in Kind::ALL {
        println!(
            "  {:<15} {:>7} lines, {:>7} test addresses",
            kind.label(),
            lines[kind as usize],
            per_kind[kind as usize]
        );
    }

    let missing: Vec<&str> = Kind::ALL
        .into_iter()
        .filter(|k| per_kind[*k as usize] == 0)
        .map(Kind::label)
        .filter(|l| require.iter().any(|r| r == l))
        .collect();
    if !missing.is_empty() {
        eprintln!(
            "blazesym-check: compare: no test address of {} (--require): load them first",
            missing.join(", ")
        );
        return Err(1);
    }
    Ok(())
}
