// SPDX-License-Identifier: GPL-2.0
//! The kernel's symbols as the compare sees them: the /proc/kallsyms
//! listing, and KALLSYMS_QUERY with its BY_ADDR answers remembered.

use std::cell::RefCell;
use std::collections::HashMap;

use crate::kallsyms::Kind;
use crate::kallsyms::Kq;
use crate::kallsyms::KqSym;
use crate::kallsyms::Listing;
use crate::kallsyms::KALLSYMS_SYM_BPF_SUBPROG;

/// The listing, and KALLSYMS_QUERY if the kernel has version 2.
pub(super) struct Ctx {
    pub(super) listing: Listing,
    pub(super) kq: Option<Kq>,
    /// BY_ADDR answers, of generation `listing_gen` like the listing.
    cache: RefCell<HashMap<u64, Option<KqSym>>>,
    /// The generation the listing and the cache are of (read before the
    /// listing; `None` without KALLSYMS_QUERY).
    pub(super) listing_gen: Option<u64>,
    /// The listing's `_stext`.
    pub(super) stext: Option<u64>,
}

impl Ctx {
    /// KALLSYMS_QUERY (or, with `allow_fallback`, none) and the listing;
    /// `Err` is the exit status, the reason printed.
    pub(super) fn open(allow_fallback: bool) -> Result<Self, u8> {
        let kq = match Kq::open() {
            Ok(kq) => kq,
            Err(err) => {
                eprintln!("blazesym-check: compare: /proc/kallsyms: {err}");
                return Err(2);
            }
        };
        let (kq, listing_gen) = match kq.generation() {
            Ok(generation) => {
                println!("KALLSYMS_QUERY v2: yes (generation {generation})");
                (Some(kq), Some(generation))
            }
            Err(err) if allow_fallback => {
                println!("KALLSYMS_QUERY v2: no (GENERATION: {err}): kq falls back to text.");
                println!(
                    "--allow-fallback: kq-only checks are SKIPPED; this is a smoke test, not a pass"
                );
                (None, None)
            }
            Err(err) => {
                eprintln!(
                    "blazesym-check: compare: KALLSYMS_QUERY v2 is absent (GENERATION: {err}); \
                     nothing to compare (--allow-fallback for a smoke test)"
                );
                return Err(2);
            }
        };
        let listing = match Listing::read() {
            Ok(listing) => listing,
            Err(err) => {
                eprintln!("blazesym-check: compare: /proc/kallsyms: {err}");
                return Err(2);
            }
        };
        if listing.syms.is_empty() {
            eprintln!("blazesym-check: compare: /proc/kallsyms shows no addresses (run as root)");
            return Err(2);
        }
        Ok(Self {
            stext: listing.stext(),
            listing,
            kq,
            cache: RefCell::default(),
            listing_gen,
        })
    }

    /// GENERATION, or `None` without KALLSYMS_QUERY.
    pub(super) fn generation(&self) -> Result<Option<u64>, String> {
        self.kq
            .as_ref()
            .map(|kq| kq.generation())
            .transpose()
            .map_err(|err| format!("KALLSYMS_QUERY GENERATION: {err}"))
    }

    /// Read the listing again, for generation `generation`, and forget
    /// the BY_ADDR answers.
    pub(super) fn reload(&mut self, generation: Option<u64>) -> Result<(), String> {
        self.listing = Listing::read().map_err(|err| format!("/proc/kallsyms: {err}"))?;
        self.cache.borrow_mut().clear();
        self.listing_gen = generation;
        Ok(())
    }

    /// The kind of line `idx`: a `bpf_prog_` line is a subprogram if
    /// KALLSYMS_QUERY says so.
    pub(super) fn kind(&self, idx: usize) -> Kind {
        let sym = &self.listing.syms[idx];
        match sym.kind() {
            Kind::BpfProg
                if self
                    .kq_sym(sym.addr)
                    .is_some_and(|q| q.start == sym.addr && q.kind == KALLSYMS_SYM_BPF_SUBPROG) =>
            {
                Kind::BpfSubprog
            }
            kind => kind,
        }
    }

    /// BY_ADDR, remembered; errors are "no symbol". Not for the dynamic
    /// cases, which ask the kernel afresh.
    pub(super) fn kq_sym(&self, addr: u64) -> Option<KqSym> {
        let kq = self.kq.as_ref()?;
        self.cache
            .borrow_mut()
            .entry(addr)
            .or_insert_with(|| kq.by_addr(addr).ok().flatten())
            .clone()
    }

    pub(super) fn is_first_at(&self, idx: usize) -> bool {
        idx == 0 || self.listing.syms[idx - 1].addr != self.listing.syms[idx].addr
    }

    /// Whether line `idx` is a text symbol followed (at the next address)
    /// by a text symbol of the same owner, so that the next symbol's
    /// start bounds it for text and kernel alike.
    pub(super) fn bounded_by_next(&self, idx: usize) -> Option<u64> {
        let syms = &self.listing.syms;
        let next = &syms[self.listing.next_above(idx)?];
        (syms[idx].is_text() && next.is_text() && next.owner == syms[idx].owner)
            .then_some(next.addr)
    }
}
