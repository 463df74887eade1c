// SPDX-License-Identifier: GPL-2.0

//! How a call's lookups come to hold for one generation, whatever other tasks do.
//!
//! C headers: [`include/linux/bpf.h`](srctree/include/linux/bpf.h),
//! [`include/linux/module.h`](srctree/include/linux/module.h)
//!
//! A call first tries without a lock, as `read_seqbegin_or_lock()` readers do: it reads a
//! [`Snapshot`], looks up, and checks that no change overlapped the lookups. A task that loads
//! and closes programs in a loop can make every such attempt fail, so a call makes at most
//! [`LOCKLESS_ATTEMPTS`] of them; then it looks up with the BPF registry's writers held off
//! ([`generation::hold_bpf_changes`]), which only a module change can make fail: such locked
//! passes repeat until one holds, or a signal comes. Module changes are not held off (see
//! `generation.rs`): only tasks with `CAP_SYS_MODULE` make them. A batch's blocks after its first
//! skip the check when they found only vmlinux symbols, whose answers never change; a call's user
//! memory is read before and written after its lookups, never between a snapshot and its check.
//!
//! A batch answers in blocks, each under its own [`Window::run`]: every block after the first
//! must see the counts the first saw, else the call ends before it, with the entries answered so
//! far (the caller continues from there).
//!
//! `BY_SYMBOL` needs no locked pass: BPF changes cannot touch its lookups (vmlinux, then a walk
//! over every module symbol under RCU), so it checks the module count alone, and walks again
//! while modules change under it, as every lookup does (see above).
//!
//! `/sys/kernel/debug/kallsyms_query/passes` counts the attempts, so that tests can check the
//! bound.

use crate::{
    answer::Rules,
    generation::{
        self,
        Snapshot, //
    },
};
use kernel::{
    prelude::*,
    sync::atomic::{
        Atomic,
        Relaxed, //
    },
    task::cond_resched,
};

/// The lockless attempts a call makes before its locked pass.
pub(crate) const LOCKLESS_ATTEMPTS: u32 = 2;

/// How many calls' lookups failed, were retried and took the locked pass: see [`Counters`].
pub(crate) static COUNTERS: Counters = Counters {
    lockless_failed: Atomic::new(0),
    locked: Atomic::new(0),
    locked_module_retries: Atomic::new(0),
    max_lockless: Atomic::new(0),
    module_retries: Atomic::new(0),
};

/// What the calls that return a generation did, since boot. A call whose first attempt held
/// touches none of them but to read [`Counters::max_lockless`]: profilers call the ioctl in
/// their sampling loops, from every CPU.
pub(crate) struct Counters {
    /// Lockless attempts that a change overlapped.
    lockless_failed: Atomic<u64>,
    /// Calls that took the locked pass.
    locked: Atomic<u64>,
    /// Locked passes made again because a module change overlapped them.
    locked_module_retries: Atomic<u64>,
    /// The most lockless attempts one call made.
    max_lockless: Atomic<u32>,
    /// `BY_SYMBOL` walks made again because the module count moved.
    module_retries: Atomic<u64>,
}

impl core::fmt::Debug for Counters {
    // The debugfs file's text: one `name value` line each.
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        writeln!(f, "lockless_attempts_max {LOCKLESS_ATTEMPTS}")?;
        writeln!(f, "lockless_failed {}", self.lockless_failed.load(Relaxed))?;
        writeln!(f, "locked_passes {}", self.locked.load(Relaxed))?;
        writeln!(
            f,
            "locked_module_retries {}",
            self.locked_module_retries.load(Relaxed)
        )?;
        writeln!(
            f,
            "max_lockless_in_a_call {}",
            self.max_lockless.load(Relaxed)
        )?;
        writeln!(
            f,
            "by_symbol_module_retries {}",
            self.module_retries.load(Relaxed)
        )
    }
}

impl Counters {
    /// Counts a call that made `lockless` attempts, then a locked pass if `locked`.
    fn count(&self, lockless: u32, locked: bool) {
        let failed = if locked { lockless } else { lockless - 1 };
        if failed > 0 {
            self.lockless_failed.add(u64::from(failed), Relaxed);
        }
        if locked {
            self.locked.add(1, Relaxed);
        }
        let mut max = self.max_lockless.load(Relaxed);
        while lockless > max {
            match self.max_lockless.cmpxchg(max, lockless, Relaxed) {
                Ok(_) => break,
                Err(now) => max = now,
            }
        }
    }
}

/// A call's passes: the lockless attempts, then the locked pass.
pub(crate) struct Window {
    /// Whether answers must hold for a generation (version-2 callers); if not, lookups are made
    /// once, unchecked.
    exact: bool,
    skip_going: bool,
    /// Attempts started so far, the current one included.
    attempt: u32,
    /// The counts the call's first block of lookups held for.
    snapshot: Option<Snapshot>,
    /// BPF symbols shown, for unchecked calls.
    bpf_shown: bool,
}

impl Window {
    /// A call's first attempt. `exact`: whether it returns a generation; `skip_going`: whether
    /// modules being unloaded are gone (both for version-2 callers).
    pub(crate) fn new(exact: bool, skip_going: bool) -> Self {
        Self {
            exact,
            skip_going,
            attempt: 1,
            snapshot: None,
            bpf_shown: !exact && generation::bpf_shown(),
        }
    }

    /// Whether modules being unloaded are gone for the call's lookups.
    pub(crate) fn skip_going(&self) -> bool {
        self.skip_going
    }

    /// Whether this attempt is the locked pass.
    pub(crate) fn locked(&self) -> bool {
        self.attempt > LOCKLESS_ATTEMPTS
    }

    /// Runs `lookups` (given what they may answer) so that their result holds for the call's
    /// generation. They return their result and whether it may depend on what changes (anything
    /// but vmlinux symbols found). `None` if a change overlapped them, or came since the call's
    /// earlier lookups: nothing they found may be used.
    ///
    /// In the locked pass `lookups` run in atomic context (see [`generation::hold_bpf_changes`]).
    pub(crate) fn run<R>(&mut self, lookups: impl FnOnce(&Rules) -> (R, bool)) -> Option<R> {
        if !self.exact {
            return Some(lookups(&self.rules(self.bpf_shown)).0);
        }
        // The call's first snapshot is checked whatever the lookups found: the counts it holds
        // must be those of one instant, or its generation would name no state.
        let first = self.snapshot.is_none();
        if self.locked() {
            return generation::hold_bpf_changes(|| self.checked(first, lookups)).flatten();
        }
        self.checked(first, lookups)
    }

    /// [`Window::run`]'s lookups under a snapshot, checked after them.
    fn checked<R>(&mut self, first: bool, lookups: impl FnOnce(&Rules) -> (R, bool)) -> Option<R> {
        let s = Snapshot::read()?;
        self.start(s)?;
        let (found, may_change) = lookups(&self.rules(s.bpf_shown));
        if (first || may_change) && s.changed() {
            if first {
                self.snapshot = None;
            }
            return None;
        }
        Some(found)
    }

    /// Takes `s` as the call's counts, or checks it against those the call's earlier lookups
    /// used.
    fn start(&mut self, s: Snapshot) -> Option<()> {
        match self.snapshot {
            Some(first) if first != s => None,
            Some(_) => Some(()),
            None => {
                self.snapshot = Some(s);
                Some(())
            }
        }
    }

    fn rules(&self, bpf_shown: bool) -> Rules {
        Rules {
            bpf_shown,
            skip_going: self.skip_going,
        }
    }

    /// The generation the call's answers hold for; 0 for a call without one.
    pub(crate) fn generation(&self) -> u64 {
        self.snapshot.map_or(0, Snapshot::value)
    }

    /// Ends an attempt whose first lookups failed: the next is the locked pass after
    /// [`LOCKLESS_ATTEMPTS`], and after a locked pass that a module change overlapped, another.
    /// Only that last repetition has no bound: a pending signal ends it (`ERESTARTSYS`). Not the
    /// bounded attempts before: a profiler whose `SIGPROF` restarts the call (`SA_RESTART`) would
    /// otherwise start it over, under churn, at every signal.
    pub(crate) fn retry(&mut self) -> Result {
        self.snapshot = None;
        if !self.locked() {
            self.attempt += 1;
            return Ok(());
        }
        COUNTERS.locked_module_retries.add(1, Relaxed);
        if kernel::current!().signal_pending() {
            return Err(ERESTARTSYS);
        }
        cond_resched();
        Ok(())
    }

    /// A snapshot, taken as a call's: for the `GENERATION` mode, and `BY_SYMBOL`'s.
    pub(crate) fn snapshot_now(&mut self) -> Result<Snapshot> {
        *self = Self::new(self.exact, self.skip_going);
        loop {
            if self.run(|_| ((), false)).is_some() {
                if let Some(s) = self.snapshot {
                    self.done();
                    return Ok(s);
                }
            }
            self.retry()?;
        }
    }

    /// Counts the call's passes; called once it has its answer.
    pub(crate) fn done(&self) {
        if self.exact {
            COUNTERS.count(self.attempt.min(LOCKLESS_ATTEMPTS), self.locked());
        }
    }
}

/// `BY_SYMBOL`'s lookups (see the module documentation), with the generation they hold for (0
/// for a call without one). `lookups` returns its result and whether it came from modules.
pub(crate) fn by_symbol<R>(
    window: &mut Window,
    mut lookups: impl FnMut() -> (R, bool),
) -> Result<(R, u64)> {
    loop {
        let before = generation::modules_now();
        let (found, from_modules) = lookups();
        // Without a generation, one walk, as it stood.
        if !window.exact {
            return Ok((found, 0));
        }
        let walked = before.filter(|&m| !generation::modules_changed(m));
        if !from_modules || walked.is_some() {
            // Any snapshot with the walk's module count will do: BPF changes do not matter, and
            // a vmlinux answer holds for every snapshot.
            let s = window.snapshot_now()?;
            if !from_modules || walked == Some(s.modules()) {
                return Ok((found, s.value()));
            }
        }
        COUNTERS.module_retries.add(1, Relaxed);
        if kernel::current!().signal_pending() {
            return Err(ERESTARTSYS);
        }
        cond_resched();
    }
}
