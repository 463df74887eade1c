// SPDX-License-Identifier: GPL-2.0
//! Batches of addresses in, one answer per address out, as blazesym's
//! `Symbolizer::symbolize(&[addr])`: answers are cached until the kernel's generation changes.

use crate::{Error, Kallsyms, Symbol};
use std::collections::HashMap;

/// A caching symbolizer over an open `/proc/kallsyms`.
///
/// With the ioctl, each [`Symbolizer::symbolize`] reads the generation (one cheap system call)
/// and drops every cached answer when it changed; the addresses it has not seen go to the kernel
/// in batches. A kernel without a generation (KALLSYMS_QUERY version 1) gets every address asked
/// again: nothing says when an answer goes stale. With the text fallback the parsed table is the
/// cache, and it is never refreshed (the text has no generation).
pub struct Symbolizer {
    kallsyms: Kallsyms,
    cache: HashMap<u64, Option<Symbol>>,
    generation: Option<u64>,
    /// Addresses sent to the kernel (or the table) so far, for callers that count.
    pub looked_up: usize,
}

impl Symbolizer {
    /// A symbolizer over `kallsyms`, with an empty cache.
    pub fn new(kallsyms: Kallsyms) -> Self {
        Symbolizer {
            kallsyms,
            cache: HashMap::new(),
            generation: None,
            looked_up: 0,
        }
    }

    /// The `/proc/kallsyms` it asks.
    pub fn kallsyms(&self) -> &Kallsyms {
        &self.kallsyms
    }

    /// One answer per address, in order: the symbol that covers it, or `None`.
    pub fn symbolize(&mut self, addrs: &[u64]) -> Result<Vec<Option<Symbol>>, Error> {
        let now = self.kallsyms.generation()?;
        if now.is_none() && self.kallsyms.uses_ioctl() {
            self.looked_up += addrs.len();
            return Ok(self.kallsyms.by_addrs(addrs)?.0);
        }
        self.refresh(now);
        // Symbols that change while we ask drop the cache: ask again, a few times.
        for _ in 0..3 {
            let mut missing: Vec<u64> = addrs
                .iter()
                .copied()
                .filter(|a| !self.cache.contains_key(a))
                .collect();
            if missing.is_empty() {
                return Ok(addrs.iter().map(|a| self.cache[a].clone()).collect());
            }
            missing.sort_unstable();
            missing.dedup();
            let (answers, generation) = self.kallsyms.by_addrs(&missing)?;
            self.looked_up += missing.len();
            // The answers are at least as new as `generation`: cached under it, they are
            // dropped as soon as it moves on.
            self.refresh(generation);
            self.cache.extend(missing.into_iter().zip(answers));
        }
        // They keep changing: answer straight from the kernel, uncached.
        self.looked_up += addrs.len();
        Ok(self.kallsyms.by_addrs(addrs)?.0)
    }

    /// Drops the cache if the generation moved (never for the text fallback: `None`).
    fn refresh(&mut self, generation: Option<u64>) {
        if generation.is_some() && generation != self.generation {
            self.cache.clear();
            self.generation = generation;
        }
    }
}
