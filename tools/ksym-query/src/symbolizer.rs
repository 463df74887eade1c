// SPDX-License-Identifier: GPL-2.0
//! Batches of addresses in, one answer per address out, as blazesym's
//! `Symbolizer::symbolize(&[addr])`: a symbol, or why there is none. Answers are cached until
//! the kernel's generation changes, in a cache of bounded size.

use crate::{Error, Kallsyms, Symbol};
use std::collections::{HashMap, VecDeque};

/// The most answers a [`Symbolizer`] made by [`Symbolizer::new`] keeps: 65,536, a few MiB.
pub const DEFAULT_CACHE_MAX: usize = 65_536;

/// Why an address has no symbol, as blazesym's `Reason`.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Reason {
    /// No symbol covers the address: not kernel code (0, a user-space address), a gap between
    /// symbols, or BPF code while BPF symbols are hidden. An answer, cached like a symbol.
    NoSymbol,
    /// The kernel hides addresses from this opener of `/proc/kallsyms` (`EPERM`; the text of
    /// zero addresses): [`Error::NotPermitted`] says who may see them.
    NotPermitted,
    /// The lookup failed for another reason: `errno` if the system gave one, and the message.
    /// Not cached: the next call asks again.
    LookupError {
        /// The errno, by [`crate::errno::name`], if there was one.
        errno: Option<i32>,
        /// The error, as [`Error`] displays it.
        message: String,
    },
}

impl Reason {
    /// The reason for addresses a failed lookup left unanswered.
    pub fn from_error(e: &Error) -> Self {
        match e {
            Error::NotFound => Reason::NoSymbol,
            Error::NotPermitted => Reason::NotPermitted,
            e => Reason::LookupError {
                errno: e.errno(),
                message: e.to_string(),
            },
        }
    }
}

impl std::fmt::Display for Reason {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Reason::NoSymbol => write!(f, "no symbol covers the address"),
            Reason::NotPermitted => write!(f, "{}", Error::NotPermitted),
            Reason::LookupError { message, .. } => write!(f, "lookup failed: {message}"),
        }
    }
}

/// One address's answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Symbolized {
    /// The symbol that covers the address.
    Sym(Symbol),
    /// No symbol, and why.
    Unknown(Reason),
}

impl Symbolized {
    /// The symbol, if there is one.
    pub fn symbol(&self) -> Option<&Symbol> {
        match self {
            Symbolized::Sym(s) => Some(s),
            Symbolized::Unknown(_) => None,
        }
    }

    /// The symbol, if there is one.
    pub fn into_symbol(self) -> Option<Symbol> {
        match self {
            Symbolized::Sym(s) => Some(s),
            Symbolized::Unknown(_) => None,
        }
    }

    /// Why there is no symbol, if there is none.
    pub fn reason(&self) -> Option<&Reason> {
        match self {
            Symbolized::Sym(_) => None,
            Symbolized::Unknown(r) => Some(r),
        }
    }

    fn from_answer(answer: Option<Symbol>) -> Self {
        answer.map_or(Symbolized::Unknown(Reason::NoSymbol), Symbolized::Sym)
    }
}

/// A caching symbolizer over an open `/proc/kallsyms`.
///
/// With the ioctl, each [`Symbolizer::symbolize`] reads the generation (one cheap system call)
/// and drops every cached answer when it changed; the addresses it has not seen go to the kernel
/// in batches. A kernel without a generation (KALLSYMS_QUERY version 1) gets every address asked
/// again: nothing says when an answer goes stale. With the text fallback the parsed table is
/// never refreshed (the text has no generation), and the cache only saves its searches.
///
/// The cache holds at most [`Symbolizer::cache_max`] answers ([`DEFAULT_CACHE_MAX`] unless
/// made with [`Symbolizer::with_cache_max`]): when it is full, the answer inserted first goes
/// to make room for a new one. Answers are keyed on the generation: a new generation empties
/// it. Only answers are cached (a symbol, or [`Reason::NoSymbol`]), never failures.
pub struct Symbolizer {
    kallsyms: Kallsyms,
    cache: HashMap<u64, Option<Symbol>>,
    /// The cached addresses, first inserted first: the next to evict.
    order: VecDeque<u64>,
    cache_max: usize,
    generation: Option<u64>,
    /// Addresses sent to the kernel (or the table) so far, for callers that count.
    pub looked_up: usize,
}

impl Symbolizer {
    /// A symbolizer over `kallsyms`, with an empty cache of at most [`DEFAULT_CACHE_MAX`]
    /// answers.
    pub fn new(kallsyms: Kallsyms) -> Self {
        Self::with_cache_max(kallsyms, DEFAULT_CACHE_MAX)
    }

    /// A symbolizer whose cache holds at most `cache_max` answers (0: no cache).
    pub fn with_cache_max(kallsyms: Kallsyms, cache_max: usize) -> Self {
        Symbolizer {
            kallsyms,
            cache: HashMap::new(),
            order: VecDeque::new(),
            cache_max,
            generation: None,
            looked_up: 0,
        }
    }

    /// The `/proc/kallsyms` it asks.
    pub fn kallsyms(&self) -> &Kallsyms {
        &self.kallsyms
    }

    /// The most answers the cache holds.
    pub fn cache_max(&self) -> usize {
        self.cache_max
    }

    /// The answers the cache holds now.
    pub fn cache_len(&self) -> usize {
        self.cache.len()
    }

    /// One answer per address, in order: the symbol that covers it, or why there is none. A
    /// failed lookup (the kernel hides addresses, a system call's error) makes the addresses it
    /// left unanswered [`Symbolized::Unknown`] with its reason.
    pub fn symbolize(&mut self, addrs: &[u64]) -> Vec<Symbolized> {
        let now = match self.kallsyms.generation() {
            Ok(now) => now,
            Err(e) => return vec![Symbolized::Unknown(Reason::from_error(&e)); addrs.len()],
        };
        if now.is_none() && self.kallsyms.uses_ioctl() {
            return self.uncached(addrs);
        }
        self.refresh(now);
        // Symbols that change while we ask drop the cache: ask again, a few times.
        let mut answers: HashMap<u64, Symbolized> = HashMap::new();
        for _ in 0..3 {
            answers.clear();
            let mut missing = Vec::new();
            for &a in addrs {
                if answers.contains_key(&a) {
                    continue;
                }
                match self.cache.get(&a) {
                    Some(s) => {
                        answers.insert(a, Symbolized::from_answer(s.clone()));
                    }
                    None => missing.push(a),
                }
            }
            let from_cache = answers.len();
            if missing.is_empty() {
                return addrs.iter().map(|a| answers[a].clone()).collect();
            }
            missing.sort_unstable();
            missing.dedup();
            let (found, generation) = match self.kallsyms.by_addrs(&missing) {
                Ok(found) => found,
                Err(e) => {
                    let why = Symbolized::Unknown(Reason::from_error(&e));
                    answers.extend(missing.into_iter().map(|a| (a, why.clone())));
                    return addrs.iter().map(|a| answers[a].clone()).collect();
                }
            };
            self.looked_up += missing.len();
            // The answers are at least as new as `generation`: cached under it, they are
            // dropped as soon as it moves on.
            let moved = self.refresh(generation);
            for (a, s) in missing.into_iter().zip(found) {
                answers.insert(a, Symbolized::from_answer(s.clone()));
                self.insert(a, s);
            }
            // Answers from the cache are of the generation before: mixed with newer ones only
            // if none came from there.
            if !moved || from_cache == 0 {
                return addrs.iter().map(|a| answers[a].clone()).collect();
            }
        }
        // They keep changing: answer straight from the kernel, uncached.
        self.uncached(addrs)
    }

    /// Every address asked, none cached.
    fn uncached(&mut self, addrs: &[u64]) -> Vec<Symbolized> {
        self.looked_up += addrs.len();
        match self.kallsyms.by_addrs(addrs) {
            Ok((found, _)) => found.into_iter().map(Symbolized::from_answer).collect(),
            Err(e) => vec![Symbolized::Unknown(Reason::from_error(&e)); addrs.len()],
        }
    }

    /// Caches `answer`, evicting the first inserted answer if the cache is full.
    fn insert(&mut self, addr: u64, answer: Option<Symbol>) {
        if self.cache_max == 0 {
            return;
        }
        if let Some(old) = self.cache.get_mut(&addr) {
            *old = answer;
            return;
        }
        while self.cache.len() >= self.cache_max {
            match self.order.pop_front() {
                Some(first) => {
                    self.cache.remove(&first);
                }
                None => break,
            }
        }
        self.order.push_back(addr);
        self.cache.insert(addr, answer);
    }

    /// Drops the cache if the generation moved (never for the text fallback: `None`), and says
    /// whether it did.
    fn refresh(&mut self, generation: Option<u64>) -> bool {
        if generation.is_some() && generation != self.generation {
            let had = !self.cache.is_empty();
            self.cache.clear();
            self.order.clear();
            self.generation = generation;
            return had;
        }
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::errno;

    const TEXT: &str = "\
ffffffff81000000 T _text
ffffffff81000100 T first_func
ffffffff81000200 t second_func
ffffffff81000300 t third_func
ffffffff81000400 t _etext
ffffffffc0000000 t mod_func\t[some_mod]
ffffffffc0000100 t mod_func_2\t[some_mod]
";

    fn names(answers: &[Symbolized]) -> Vec<String> {
        answers
            .iter()
            .map(|a| match a {
                Symbolized::Sym(s) => s.name.clone(),
                Symbolized::Unknown(r) => format!("?{r:?}"),
            })
            .collect()
    }

    #[test]
    fn unknown_addresses_say_why() {
        let mut sym = Symbolizer::new(Kallsyms::mock(TEXT, Some(1)));
        let out = sym.symbolize(&[0xffffffff81000104, 0x1000]);
        assert_eq!(out[0].symbol().unwrap().name, "first_func");
        assert_eq!(out[1], Symbolized::Unknown(Reason::NoSymbol));
        assert_eq!(out[1].reason(), Some(&Reason::NoSymbol));

        let m = sym.kallsyms().as_mock();
        m.errno.set(Some(errno::EPERM));
        let out = sym.symbolize(&[0xffffffff81000104]);
        assert_eq!(out, vec![Symbolized::Unknown(Reason::NotPermitted)]);
        assert!(out[0].reason().unwrap().to_string().contains("hidden"));

        sym.kallsyms().as_mock().errno.set(Some(errno::EFAULT));
        let out = sym.symbolize(&[0xffffffff81000104, 0x1000]);
        let Symbolized::Unknown(Reason::LookupError { errno, message }) = &out[0] else {
            panic!("{out:?}");
        };
        assert_eq!(
            (*errno, message.as_str()),
            (Some(14), "Bad address (EFAULT)")
        );
        assert_eq!(out[0], out[1]);
    }

    #[test]
    fn a_failed_batch_leaves_cached_answers_and_is_not_cached() {
        let mut sym = Symbolizer::new(Kallsyms::mock(TEXT, Some(1)));
        sym.symbolize(&[0xffffffff81000104]);
        // The generation call succeeds, the batch fails.
        sym.kallsyms()
            .as_mock()
            .batch_errno
            .set(Some(errno::ENOMEM));
        let out = sym.symbolize(&[0xffffffff81000104, 0xffffffff81000204]);
        assert_eq!(out[0].symbol().unwrap().name, "first_func");
        let Symbolized::Unknown(Reason::LookupError { errno, .. }) = out[1] else {
            panic!("{out:?}");
        };
        assert_eq!(errno, Some(12));
        sym.kallsyms().as_mock().batch_errno.set(None);
        assert_eq!(sym.cache_len(), 1);
        let out = sym.symbolize(&[0xffffffff81000104, 0xffffffff81000204]);
        assert_eq!(names(&out), ["first_func", "second_func"]);
    }

    #[test]
    fn cache_is_keyed_on_the_generation() {
        let mut sym = Symbolizer::new(Kallsyms::mock(TEXT, Some(7)));
        let addrs = [0xffffffff81000104, 0xffffffff81000204, 0xffffffff81000104];
        assert_eq!(
            names(&sym.symbolize(&addrs)),
            ["first_func", "second_func", "first_func"]
        );
        assert_eq!((sym.looked_up, sym.cache_len()), (2, 2));
        sym.symbolize(&addrs);
        assert_eq!(sym.looked_up, 2, "answered from the cache");
        sym.kallsyms().as_mock().generation.set(Some(8));
        sym.symbolize(&addrs[..1]);
        assert_eq!(
            (sym.looked_up, sym.cache_len()),
            (3, 1),
            "emptied, asked again"
        );
    }

    #[test]
    fn without_a_generation_nothing_is_cached() {
        let mut sym = Symbolizer::new(Kallsyms::mock(TEXT, None));
        sym.symbolize(&[0xffffffff81000104]);
        sym.symbolize(&[0xffffffff81000104]);
        assert_eq!((sym.looked_up, sym.cache_len()), (2, 0));
    }

    #[test]
    fn cache_is_bounded_and_evicts_the_first_inserted() {
        let mut sym = Symbolizer::with_cache_max(Kallsyms::mock(TEXT, Some(1)), 2);
        assert_eq!(
            Symbolizer::new(Kallsyms::mock(TEXT, Some(1))).cache_max(),
            65_536
        );
        let (a, b, c) = (0xffffffff81000104, 0xffffffff81000204, 0xffffffff81000304);
        // More addresses in one call than the cache holds: all answered all the same.
        assert_eq!(
            names(&sym.symbolize(&[a, b, c, a])),
            ["first_func", "second_func", "third_func", "first_func"]
        );
        assert_eq!((sym.cache_len(), sym.cache_max(), sym.looked_up), (2, 2, 3));
        // a went first: b and c are still there.
        sym.symbolize(&[b, c]);
        assert_eq!(sym.looked_up, 3);
        sym.symbolize(&[a]);
        assert_eq!((sym.looked_up, sym.cache_len()), (4, 2));
        // Now b went: c and a are there.
        sym.symbolize(&[c, a]);
        assert_eq!(sym.looked_up, 4);
        sym.symbolize(&[b]);
        assert_eq!(sym.looked_up, 5);
        assert_eq!(sym.kallsyms().as_mock().asked.get(), 5);
    }

    #[test]
    fn a_cache_of_zero_caches_nothing() {
        let mut sym = Symbolizer::with_cache_max(Kallsyms::mock(TEXT, Some(1)), 0);
        let out = sym.symbolize(&[0xffffffff81000104, 0xffffffffc0000004]);
        assert_eq!(names(&out), ["first_func", "mod_func"]);
        sym.symbolize(&[0xffffffff81000104]);
        assert_eq!((sym.cache_len(), sym.looked_up), (0, 3));
    }
}
