// SPDX-License-Identifier: GPL-2.0

//! KUnit tests of the registry through the functions C calls.
//!
//! They register synthetic symbols whose addresses lie inside a buffer the test owns, so they
//! cannot collide with real programs, and remove them before returning.

use crate::exports::*;
use core::cell::Cell;
use kernel::{
    bindings,
    error::from_err_ptr,
    ffi::{
        c_int,
        c_ulong,
        c_void, //
    },
    prelude::*,
    sync::{
        atomic::{
            Atomic,
            Relaxed, //
        },
        rcu, //
    },
    types::Opaque, //
};

/// Where a [`TestSym`] is in its life.
#[derive(Clone, Copy, PartialEq)]
enum State {
    /// Never added, or re-initialised after a grace period: it may be added.
    Fresh,
    /// In the registry.
    Registered,
    /// Deleted, but a lock-free reader may still stand on it until a grace period passes.
    Deleted,
}

/// A synthetic `struct bpf_ksym`, and a copy of its name for comparisons.
///
/// The registry and its readers use the C struct while it is registered, so the test reaches it
/// only through the raw pointer of its `Opaque`, never through a Rust reference. Dropping it
/// deletes it if it is registered and waits for readers before its memory is freed, so a test
/// that returns early (`?`) leaves nothing behind in the registry. A failed KUnit assertion
/// ends the test thread without unwinding: nothing is dropped, so the symbol stays registered
/// and its memory is leaked, never freed under a reader.
///
/// # Invariants
///
/// `state` says whether `ksym` is in the registry ([`State::Registered`]) or may still be reached
/// by a reader ([`State::Deleted`]); only this thread adds and deletes it.
struct TestSym {
    ksym: KBox<Opaque<bindings::bpf_ksym>>,
    name: KVec<u8>,
    state: Cell<State>,
}

impl TestSym {
    fn new(start: usize, len: usize, name: &[u8]) -> Result<Self> {
        let ksym = KBox::new(Opaque::<bindings::bpf_ksym>::zeroed(), GFP_KERNEL)?;
        let k = ksym.get();
        let name_len = name.len().min(bindings::KSYM_NAME_LEN as usize - 1);
        // SAFETY: `k` is valid and not registered, so nothing else accesses it; the name fits
        // with its NUL (the buffer is zeroed).
        unsafe {
            (*k).start = start;
            (*k).end = start + len;
            core::ptr::copy_nonoverlapping(name.as_ptr(), (&raw mut (*k).name).cast(), name_len);
            bindings::INIT_LIST_HEAD(&raw mut (*k).lnode);
        }
        let mut copy = KVec::new();
        copy.extend_from_slice(&name[..name_len], GFP_KERNEL)?;
        // INVARIANT: Not added yet.
        Ok(Self {
            ksym,
            name: copy,
            state: Cell::new(State::Fresh),
        })
    }

    fn raw(&self) -> *mut bindings::bpf_ksym {
        self.ksym.get()
    }

    /// Adds the symbol to the registry.
    ///
    /// A symbol deleted since its last grace period cannot be added: [`TestSym::settle`] first.
    fn add(&self) -> Result {
        if self.state.get() != State::Fresh {
            return Err(EBUSY);
        }
        // SAFETY: The symbol is initialised, not registered, and no reader stands on it (it is
        // fresh); `Drop` deletes it and waits for readers before its memory goes.
        unsafe { bpf_ksym_add(self.raw()) };
        // INVARIANT: Just added.
        self.state.set(State::Registered);
        Ok(())
    }

    /// Deletes the symbol if it is registered.
    fn del(&self) {
        if self.state.get() == State::Registered {
            // SAFETY: It is registered, and only this thread adds and deletes it.
            unsafe { bpf_ksym_del(self.raw()) };
            // INVARIANT: Readers may still stand on it until a grace period passes.
            self.state.set(State::Deleted);
        }
    }

    /// Waits one grace period for all of `syms`, then readies the deleted ones to be added
    /// again, as owners do: a `/proc/kallsyms` reader standing on a list node that is
    /// re-initialised under it would see `next == self` and loop.
    fn settle<'a>(syms: impl IntoIterator<Item = &'a TestSym>) {
        rcu::synchronize_rcu();
        for s in syms {
            if s.state.get() == State::Deleted {
                // SAFETY: A grace period has passed since it was deleted, so no reader can
                // reach it, and only this thread adds and deletes it.
                unsafe { bindings::INIT_LIST_HEAD(&raw mut (*s.raw()).lnode) };
                // INVARIANT: Re-initialised after a grace period.
                s.state.set(State::Fresh);
            }
        }
    }
}

impl Drop for TestSym {
    fn drop(&mut self) {
        self.del();
        if self.state.get() == State::Deleted {
            // The memory is freed after this: no reader may still stand on it.
            rcu::synchronize_rcu();
        }
    }
}

fn lookup(addr: usize) -> Option<(KVec<u8>, c_ulong, c_ulong)> {
    let mut name = KVec::from_elem(0u8, bindings::KSYM_NAME_LEN as usize, GFP_KERNEL).ok()?;
    let (mut size, mut off) = (0, 0);
    // SAFETY: `name` holds `KSYM_NAME_LEN` bytes.
    let len = unsafe { bpf_address_lookup(addr, &mut size, &mut off, name.as_mut_ptr().cast()) };
    if len == 0 {
        return None;
    }
    name.truncate(len as usize);
    Some((name, size, off))
}

/// Names of the registered symbols in list order, as `/proc/kallsyms` shows them.
fn listed() -> Result<KVec<KVec<u8>>> {
    let mut out = KVec::new();
    let mut name = KVec::from_elem(0u8, bindings::KSYM_NAME_LEN as usize, GFP_KERNEL)?;
    for i in 0.. {
        let (mut value, mut ty) = (0, 0);
        // SAFETY: All pointers are valid; `name` holds `KSYM_NAME_LEN` bytes.
        if unsafe { bpf_get_kallsym(i, &mut value, &mut ty, name.as_mut_ptr().cast()) } != 0 {
            break;
        }
        let len = name.iter().position(|&b| b == 0).unwrap_or(0);
        let mut n = KVec::new();
        n.extend_from_slice(&name[..len], GFP_KERNEL)?;
        out.push(n, GFP_KERNEL)?;
    }
    Ok(out)
}

/// The name `bpf_get_kallsym_next()` gives for `symnum`, moving `cur`.
///
/// # Safety
///
/// `cur` is all zeroes or was last written by a call to this function, as
/// `bpf_get_kallsym_next()` requires.
unsafe fn name_at(cur: &mut bindings::bpf_ksym_cursor, symnum: u32) -> Result<Option<KVec<u8>>> {
    let mut name = KVec::from_elem(0u8, bindings::KSYM_NAME_LEN as usize, GFP_KERNEL)?;
    let (mut value, mut ty) = (0, 0);
    // SAFETY: All pointers are valid; `name` holds `KSYM_NAME_LEN` bytes; the cursor is what
    // the caller promises.
    let ret = unsafe { bpf_get_kallsym_next(cur, symnum, &mut value, &mut ty, name.as_mut_ptr()) };
    if ret != 0 {
        return Ok(None);
    }
    let len = name.iter().position(|&b| b == 0).unwrap_or(0);
    name.truncate(len);
    Ok(Some(name))
}

/// Whether `/proc/kallsyms` lists BPF symbols at all (`bpf_jit_kallsyms`, off by default where
/// the JIT is not, and while `bpf_jit_harden` is set): the list tests have nothing to check
/// otherwise.
fn listing_enabled() -> bool {
    // SAFETY: Reads two sysctls.
    unsafe { bindings::bpf_jit_kallsyms_enabled() }
}

/// What a concurrent reader thread checks, and what it saw.
struct Reader {
    /// An address inside a symbol that stays registered for the whole test.
    addr: usize,
    reads: Atomic<usize>,
    misses: Atomic<usize>,
}

/// Body of the reader kthread: look the stable address up until told to stop.
///
/// # Safety
///
/// `data` points to a [`Reader`] that outlives the thread ([`ReaderThread`] stops it first).
unsafe extern "C" fn reader_thread(data: *mut c_void) -> c_int {
    // SAFETY: Per the safety requirements.
    let r = unsafe { &*data.cast::<Reader>() };
    // SAFETY: Called from a kthread.
    while !unsafe { bindings::kthread_should_stop() } {
        r.reads.add(1, Relaxed);
        // SAFETY: Always safe.
        if !unsafe { is_bpf_text_address(r.addr) } {
            r.misses.add(1, Relaxed);
        }
        // Without preemption the writer's grace periods would wait for this CPU forever.
        kernel::task::cond_resched();
    }
    0
}

/// A running reader kthread, stopped when dropped, before its [`Reader`] is freed.
///
/// # Invariants
///
/// `task` is null, or a started kthread running [`reader_thread`] on `reader`, not yet stopped.
struct ReaderThread {
    task: *mut bindings::task_struct,
    reader: KBox<Reader>,
}

impl ReaderThread {
    fn start(addr: usize) -> Result<Self> {
        let reader = KBox::new(
            Reader {
                addr,
                reads: Atomic::new(0),
                misses: Atomic::new(0),
            },
            GFP_KERNEL,
        )?;
        // SAFETY: `reader` outlives the thread: `Drop` stops the thread before it frees `reader`.
        let task = from_err_ptr(unsafe {
            bindings::kthread_create_on_node(
                Some(reader_thread),
                (&raw const *reader).cast_mut().cast(),
                bindings::NUMA_NO_NODE,
                c"bpf_ksym_reader".as_char_ptr(),
            )
        })?;
        // SAFETY: `task` was just created and not started.
        unsafe { bindings::wake_up_process(task) };
        // INVARIANT: Started above on `reader`.
        Ok(Self { task, reader })
    }

    /// Stops the thread and returns how many lookups it made and how many missed.
    fn stop(mut self) -> (usize, usize) {
        self.stop_thread();
        (
            self.reader.reads.load(Relaxed),
            self.reader.misses.load(Relaxed),
        )
    }

    fn stop_thread(&mut self) {
        if !self.task.is_null() {
            // SAFETY: By the type invariant `task` is a running kthread not stopped before; this
            // waits for it to return, so it no longer uses `reader`.
            unsafe { bindings::kthread_stop(self.task) };
            // INVARIANT: Stopped.
            self.task = core::ptr::null_mut();
        }
    }
}

impl Drop for ReaderThread {
    fn drop(&mut self) {
        self.stop_thread();
    }
}

#[kunit_tests(bpf_ksym)]
mod cases {
    use super::*;

    /// A range no real program can use: the test's own heap buffer.
    fn arena(len: usize) -> Result<(KVec<u8>, usize)> {
        let v = KVec::from_elem(0u8, len, GFP_KERNEL)?;
        let base = v.as_ptr() as usize;
        Ok((v, base))
    }

    #[test]
    fn add_find_del_with_boundaries() -> Result {
        let (_arena, base) = arena(0x400)?;
        let s = TestSym::new(base + 0x100, 0x80, b"bpf_prog_kunit_a")?;
        s.add()?;

        let start = base + 0x100;
        let end = start + 0x80;
        // SAFETY: Always safe.
        let text = |a| unsafe { is_bpf_text_address(a) };
        assert!(!text(start - 1));
        assert!(text(start));
        assert!(text(end - 1));
        // End-inclusive: a return address just past a final call belongs to the program.
        assert!(text(end));
        assert!(!text(end + 1));

        let (name, size, off) = lookup(end).ok_or(EINVAL)?;
        assert_eq!(&name[..], b"bpf_prog_kunit_a");
        assert_eq!(size, 0x80);
        assert_eq!(off, 0x80);
        assert!(lookup(start - 1).is_none());
        // A synthetic symbol is no program.
        {
            let _rcu = rcu::read_lock();
            // SAFETY: Only compared with NULL, under the RCU read lock the function requires.
            assert!(unsafe { bpf_prog_ksym_find(start) }.is_null());
        }

        s.del();
        assert!(!text(start));
        // Deleting again is a no-op for a symbol whose list node was re-initialised.
        TestSym::settle([&s]);
        // SAFETY: `lnode` is valid and not on a list; `s` is not registered.
        unsafe { bpf_ksym_del(s.raw()) };
        assert!(!text(start));
        // Added again after a grace period, it is found again.
        s.add()?;
        assert!(text(start));
        Ok(())
    }

    #[test]
    fn many_symbols_and_list_order() -> Result {
        const N: usize = 300;
        let (_arena, base) = arena(N * 0x40)?;
        let mut syms = KVec::with_capacity(N, GFP_KERNEL)?;
        // Registered in scrambled address order; the list must keep insertion order.
        for i in 0..N {
            let slot = (i * 7) % N;
            let mut name = KVec::new();
            name.extend_from_slice(b"kunit_sym_", GFP_KERNEL)?;
            for d in [slot / 100, (slot / 10) % 10, slot % 10] {
                name.push(b'0' + d as u8, GFP_KERNEL)?;
            }
            syms.push(TestSym::new(base + slot * 0x40, 0x20, &name)?, GFP_KERNEL)?;
        }
        for s in syms.iter() {
            s.add()?;
        }
        for slot in 0..N {
            let (name, _, off) = lookup(base + slot * 0x40 + 5).ok_or(EINVAL)?;
            assert_eq!(off, 5);
            assert_eq!(name[name.len() - 1], b'0' + (slot % 10) as u8);
            // Between two symbols there is nothing.
            // SAFETY: Always safe.
            assert!(!unsafe { is_bpf_text_address(base + slot * 0x40 + 0x30) });
        }
        if listing_enabled() {
            // The test's symbols appear in insertion order (other programs may come and go
            // between them).
            let mut ours = listed()?;
            ours.retain(|n| n.starts_with(b"kunit_sym_"));
            assert_eq!(ours.len(), N);
            for (listed, s) in ours.iter().zip(syms.iter()) {
                assert!(*listed == s.name);
            }
        }
        for s in syms.iter() {
            s.del();
        }
        assert!(!listed()?.iter().any(|n| n.starts_with(b"kunit_sym_")));
        TestSym::settle(syms.iter());
        Ok(())
    }

    /// A lock-free reader never misses a symbol that is registered the whole time, however the
    /// writer rebalances the tree around it: the latch always offers one complete copy.
    #[test]
    fn concurrent_reader_never_misses_a_stable_symbol() -> Result {
        const CHURN: usize = 64;
        const ROUNDS: usize = 40;
        let (_arena, base) = arena(0x100 * (CHURN + 1))?;
        let stable = TestSym::new(base + 0x100 * CHURN / 2 + 0x80, 0x40, b"kunit_stable")?;
        let mut churn = KVec::with_capacity(CHURN, GFP_KERNEL)?;
        for i in 0..CHURN {
            churn.push(
                TestSym::new(base + 0x100 * i, 0x40, b"kunit_churn")?,
                GFP_KERNEL,
            )?;
        }
        stable.add()?;
        let thread = ReaderThread::start(base + 0x100 * CHURN / 2 + 0x90)?;
        for _ in 0..ROUNDS {
            for s in churn.iter() {
                s.add()?;
            }
            for s in churn.iter() {
                s.del();
            }
            // Nodes are reused only after readers are done with them.
            TestSym::settle(churn.iter());
        }
        let (reads, misses) = thread.stop();
        assert!(reads > 0);
        assert_eq!(misses, 0);
        Ok(())
    }
    /// A walker resumes correctly when the symbol its cursor points at, and others, are removed
    /// between two calls: nothing twice, nothing live skipped.
    #[test]
    fn cursor_resumes_after_removals() -> Result {
        if !listing_enabled() {
            return Ok(());
        }
        let (_arena, base) = arena(0x500)?;
        let mut syms = KVec::with_capacity(5, GFP_KERNEL)?;
        for (i, n) in [
            b"kunit_cur_a",
            b"kunit_cur_b",
            b"kunit_cur_c",
            b"kunit_cur_d",
            b"kunit_cur_e",
        ]
        .iter()
        .enumerate()
        {
            syms.push(TestSym::new(base + 0x100 * i, 0x40, *n)?, GFP_KERNEL)?;
        }
        for s in &syms[..4] {
            s.add()?;
        }
        let first = listed()?
            .iter()
            .position(|n| &n[..] == b"kunit_cur_a")
            .ok_or(EINVAL)? as u32;
        // SAFETY: All zeroes is a cursor at the start.
        let mut cur: bindings::bpf_ksym_cursor = unsafe { core::mem::zeroed() };
        // SAFETY: `cur` starts zeroed and only `name_at` writes it.
        let mut at = |symnum| unsafe { name_at(&mut cur, symnum) };
        let name = |n: &[u8]| -> Option<KVec<u8>> {
            let mut v = KVec::new();
            v.extend_from_slice(n, GFP_KERNEL).ok()?;
            Some(v)
        };

        assert_eq!(at(first)?, name(b"kunit_cur_a"));
        assert_eq!(at(first + 1)?, name(b"kunit_cur_b"));
        // The same index again (the line did not fit in the read buffer): the same symbol.
        assert_eq!(at(first + 1)?, name(b"kunit_cur_b"));
        // The cursor's symbol goes; asking again yields the one after it.
        syms[1].del();
        assert_eq!(at(first + 1)?, name(b"kunit_cur_c"));
        assert_eq!(at(first + 2)?, name(b"kunit_cur_d"));
        // The cursor's symbol and the one before go, a new one comes: it is next.
        syms[3].del();
        syms[2].del();
        syms[4].add()?;
        assert_eq!(at(first + 3)?, name(b"kunit_cur_e"));
        assert_eq!(at(first + 4)?, None);

        for s in syms.iter() {
            s.del();
        }
        TestSym::settle(syms.iter());
        Ok(())
    }

    /// Names are `bpf_prog_<tag>[_<name>]`, cut and NUL-terminated like C's `snprintf()`.
    #[test]
    fn prog_names_are_formatted_and_cut() {
        use crate::prog_name::{format, format_cfi};
        let tag = [0xde, 0xad, 0xbe, 0xef, 0x00, 0x01, 0x02, 0x03];
        let mut buf = [0xffu8; 40];
        let n = format(&mut buf, &tag, b"probe");
        assert_eq!(&buf[..=n], b"bpf_prog_deadbeef00010203_probe\0");
        let n = format(&mut buf, &tag, b"");
        assert_eq!(&buf[..=n], b"bpf_prog_deadbeef00010203\0");
        let mut small = [0xffu8; 12];
        assert_eq!(format(&mut small, &tag, b"probe"), 11);
        assert_eq!(&small, b"bpf_prog_de\0");
        let n = format_cfi(&mut buf, b"bpf_prog_x\0\0\0");
        assert_eq!(&buf[..=n], b"__cfi_bpf_prog_x\0");
    }

    /// Registered ranges may touch: a FineIBT preamble `[entry - 16, entry]` ends where its
    /// program `[entry, end]` starts. Every address inside either is found, and the shared one
    /// is found in one of them.
    #[test]
    fn touching_ranges_are_both_found() -> Result {
        let (_arena, base) = arena(0x100)?;
        let entry = base + 0x40;
        let prefix = TestSym::new(entry - 0x10, 0x10, b"__cfi_kunit_touch")?;
        let prog = TestSym::new(entry, 0x40, b"kunit_touch")?;
        prefix.add()?;
        prog.add()?;
        let found = |a| lookup(a).map(|(n, _, _)| n);
        assert!(found(entry - 0x10).as_deref() == Some(&prefix.name[..]));
        assert!(found(entry - 1).as_deref() == Some(&prefix.name[..]));
        let shared = found(entry).ok_or(EINVAL)?;
        assert!(shared == prefix.name || shared == prog.name);
        assert!(found(entry + 1).as_deref() == Some(&prog.name[..]));
        assert!(found(entry + 0x40).as_deref() == Some(&prog.name[..]));
        assert!(found(entry + 0x41).is_none());
        prefix.del();
        prog.del();
        TestSym::settle([&prefix, &prog]);
        Ok(())
    }

    /// As C's `bpf_prog_ksym_find()`, ours warns (once) when called without the RCU read lock,
    /// since the program it returns could be freed under the caller. Only lockdep knows
    /// (`CONFIG_PROVE_RCU`, the debug kernel). The log between the two markers holds the
    /// expected warning; `scripts/results.py` requires it there and fails on any other.
    #[cfg(CONFIG_PROVE_RCU)]
    #[test]
    fn prog_ksym_find_warns_without_rcu() {
        // SAFETY: A racy `READ_ONCE()`-style read of an `int` sysctl, which any writer may
        // change at any time; only its being non-zero matters.
        if unsafe { core::ptr::read_volatile(&raw const bindings::panic_on_warn) } != 0 {
            // The warning this case provokes would panic the kernel. (So would reaching
            // `kernel.warn_limit`, which is not visible from here; test kernels leave it 0.)
            pr_info!("prog_ksym_find_warns_without_rcu: not run, panic_on_warn is set\n");
            return;
        }
        // After any lockdep report lockdep switches itself off, and `rcu_read_lock_held()`
        // then says yes to everyone: there is nothing to warn about.
        // SAFETY: Reads lockdep's state.
        if unsafe { bindings::debug_lockdep_rcu_enabled() } == 0 {
            pr_info!("prog_ksym_find_warns_without_rcu: not run, lockdep is off\n");
            return;
        }
        // It warns once per boot: a re-run of the suite (kunit_rerun_test) expects no warning.
        let first = !crate::exports::warned_without_rcu();
        if first {
            pr_info!("expected WARNING begins\n");
        }
        // SAFETY: Only compared with NULL: deliberately called without the RCU read lock.
        let prog = unsafe { bpf_prog_ksym_find(0) };
        if first {
            pr_info!("expected WARNING ends\n");
        }
        assert!(prog.is_null());
        assert!(crate::exports::warned_without_rcu());
        // SAFETY: Reads the taint mask.
        assert!(unsafe { bindings::test_taint(bindings::TAINT_WARN) } != 0);
    }
}
