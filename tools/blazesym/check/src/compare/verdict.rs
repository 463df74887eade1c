// SPDX-License-Identifier: GPL-2.0
//! The static comparison's judgement of one address: text's and kq's
//! answers against each other, the listing and the kernel.

use super::ctx::Ctx;
use crate::answer::Answer;
use crate::kallsyms::is_mapping_symbol;

pub(super) enum Verdict {
    Same,
    /// Same but for the module: text has none, kq `[owner]` as listed.
    ModuleAdded,
    /// The same symbol under another of its names.
    Alias,
    TextWrong,
    /// Text failed (an error), kq has the kernel's answer.
    TextError,
    Fail(String),
}

pub(super) fn judge(ctx: &Ctx, addr: u64, t: &Answer, k: &Answer) -> Verdict {
    // An error is never an answer: on the kq side a failure, on the
    // text side reported, and kq must then be the kernel's answer.
    if let Answer::Error(err) = k {
        return Verdict::Fail(format!("kq failed: {err}"));
    }
    if let Answer::Error(_) = t {
        return text_failed(ctx, addr, k);
    }
    if t == k {
        return Verdict::Same;
    }
    if let Some(verdict) = same_symbol(ctx, addr, t, k) {
        return verdict;
    }
    if ctx.text_right(addr, t) {
        let kernel = ctx
            .kq
            .as_ref()
            .map(|kq| format!(" (KALLSYMS_QUERY says {})", kq.answer(addr)))
            .unwrap_or_default();
        return Verdict::Fail(format!("text is right, kq differs{kernel}"));
    }
    match &ctx.kq {
        Some(kq) => {
            let want = kq.answer(addr);
            if kernel_agrees(k, &want) {
                Verdict::TextWrong
            } else {
                Verdict::Fail(format!("text is wrong, KALLSYMS_QUERY says {want}"))
            }
        }
        None => Verdict::Fail("text and kq differ (no KALLSYMS_QUERY to decide)".into()),
    }
}

/// Text failed at `addr`: kq's answer `k` must be the kernel's.
fn text_failed(ctx: &Ctx, addr: u64, k: &Answer) -> Verdict {
    match &ctx.kq {
        Some(kq) => {
            let want = kq.answer(addr);
            if kernel_agrees(k, &want) {
                Verdict::TextError
            } else {
                Verdict::Fail(format!("text failed, KALLSYMS_QUERY says {want}"))
            }
        }
        None => Verdict::Fail("text failed (no KALLSYMS_QUERY to check kq)".into()),
    }
}

/// Whether text's `t` and kq's `k`, which differ, name the same symbol:
/// with the module kq adds, or under another of its names.
fn same_symbol(ctx: &Ctx, addr: u64, t: &Answer, k: &Answer) -> Option<Verdict> {
    let (
        Answer::Found {
            name: tn,
            offset: to,
            module: tm,
        },
        Answer::Found {
            name: kn,
            offset: ko,
            module: km,
        },
    ) = (t, k)
    else {
        return None;
    };
    if to != ko {
        return None;
    }
    let start = addr.wrapping_sub(*to);
    let added = tm.is_none() && km.is_some() && *km == ctx.owner_module(start);
    if tn == kn && added {
        return Some(Verdict::ModuleAdded);
    }
    if (tm == km || added) && ctx.has_name_at(start, tn) && ctx.has_name_at(start, kn) {
        return Some(Verdict::Alias);
    }
    None
}

/// Whether blazesym's answer `k` is the kernel's `want`: exactly, names
/// included (the symbolizers of `compare` do not demangle). An error is
/// never the kernel's answer.
pub(super) fn kernel_agrees(k: &Answer, want: &Answer) -> bool {
    !matches!(k, Answer::Error(_)) && k == want
}

impl Ctx {
    fn owner_module(&self, start: u64) -> Option<String> {
        let idx = self.listing.first_at(start)?;
        self.listing.syms[idx]
            .owner
            .as_ref()
            .map(|o| format!("[{o}]"))
    }

    fn has_name_at(&self, start: u64, name: &str) -> bool {
        let Some(idx) = self.listing.first_at(start) else {
            return false;
        };
        self.listing.syms[idx..]
            .iter()
            .take_while(|s| s.addr == start)
            .any(|s| s.name == name)
    }

    /// Whether the text answer for `addr` is right: the address lies in
    /// the named symbol's real extent.
    fn text_right(&self, addr: u64, t: &Answer) -> bool {
        let Some(start) = t.start(addr) else {
            return false;
        };
        let Some(idx) = self.listing.first_at(start) else {
            return false;
        };
        let syms = &self.listing.syms;
        // Names no lookup gives: mapping symbols and labels, and vmlinux below _stext
        // (the kernel names neither; both are listed on arm64).
        if t.name().is_some_and(is_mapping_symbol)
            || (syms[idx].owner.is_none() && self.stext.is_some_and(|s| addr < s))
        {
            return false;
        }
        let below_next = self
            .listing
            .next_above(idx)
            .is_none_or(|j| addr < syms[j].addr);
        if !below_next {
            return false;
        }
        if self.bounded_by_next(idx).is_some() && !syms[idx].kind().is_bpf() {
            return true;
        }
        if self.kq.is_none() {
            return true;
        }
        // A BPF image (its size is the kernel's), or a symbol the next
        // line does not bound for sure: the kernel's extent.
        match self.kq_sym(start) {
            Some(q) if q.start == start => q.covers(addr),
            _ => false,
        }
    }
}
