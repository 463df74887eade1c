// SPDX-License-Identifier: GPL-2.0

//! The registry: every live BPF symbol, by address and in insertion order.
//!
//! - [`TREE`]: a latch tree by address. Readers ([`find`]) never block and may run in NMI.
//! - [`LIST`]: an RCU list in insertion order, walked for `/proc/kallsyms`.
//! - [`WRITER`]: serializes [`add`] and [`del`]. It disables bottom halves, as C's
//!   `spin_lock_bh()` does, since symbols are removed from softirq context (RCU callbacks that
//!   free programs) but never from hard interrupts.
//! - [`GENERATION`]: counts the changes, as a seqcount; an addition takes its insertion
//!   sequence number from it, so that a walker resuming in insertion order can skip a symbol
//!   that is gone.
//! - [`REMOVALS`]: how many symbols were ever removed, so that a walker resuming between two
//!   RCU read sections knows whether the symbol it stopped at may be gone.

use kernel::{
    bindings,
    bpf::ksym::Ksym,
    interop::list::CListHead,
    prelude::*,
    rbtree_latch::LatchTree,
    sync::{
        atomic::{
            Acquire,
            Atomic,
            Relaxed,
            Release, //
        },
        barrier::{
            smp_mb,
            Write, //
        },
        global_lock,
        rcu,
        GlobalGuard, //
    },
    types::Opaque,
    warn_on, //
};

/// Aligned to a cache line (`SMP_CACHE_BYTES`) as C's `bpf_tree` (`__cacheline_aligned`): every
/// lookup reads its sequence count, which should not share a line with data that writers dirty.
/// The build fails on an architecture with longer lines, rather than share one silently.
#[repr(C, align(64))]
struct CachelineAligned<T>(T);

static_assert!(core::mem::align_of::<CachelineAligned<()>>() >= bindings::SMP_CACHE_BYTES as usize);

#[link_section = ".data..cacheline_aligned"]
static TREE: CachelineAligned<LatchTree<Ksym, WRITER>> = CachelineAligned(LatchTree::new());

/// The list head; empty means pointing to itself, as `LIST_HEAD()` does in C.
#[repr(transparent)]
struct ListHead(Opaque<bindings::list_head>);

// SAFETY: The list is changed only under `WRITER` and read under RCU.
unsafe impl Sync for ListHead {}

static LIST: ListHead = ListHead(Opaque::new(bindings::list_head {
    next: (&raw const LIST).cast::<bindings::list_head>().cast_mut(),
    prev: (&raw const LIST).cast::<bindings::list_head>().cast_mut(),
}));

global_lock! {
    // SAFETY: Initialized by `init()`, which runs in a pure initcall, before any BPF symbol can
    // be added.
    unsafe(uninit) static WRITER: SpinLockBh<()> = ();
}

static REMOVALS: Atomic<u64> = Atomic::new(0);

/// Additions and removals so far, twice each: `bpf_ksym_generation()`, see [`generation`].
/// Changed only under [`WRITER`].
static GENERATION: Atomic<u64> = Atomic::new(0);

/// Readies the registry; called once, early at boot.
///
/// # Safety
///
/// Must be called exactly once, before any other function of this module.
pub(crate) unsafe fn init() {
    // SAFETY: Called once, before any use of the lock, per the safety requirements.
    unsafe { WRITER.init() };
}

/// Registers `ksym`.
///
/// # Safety
///
/// `ksym` is not registered; if it was before, an RCU grace period has elapsed since [`del`]
/// removed it and its `lnode` was initialised again. It stays valid until it is removed with
/// [`del`] and an RCU grace period has elapsed.
// Always inlined: out of line, `bpf_ksym_add()` is a second function, whose frame (kept for
// the unwinder) and branch every addition pays for.
#[inline(always)]
pub(crate) unsafe fn add(ksym: &Ksym) {
    let writer = WRITER.lock();
    let lnode = ksym.lnode();
    // SAFETY: `lnode` is an initialised node (its owner ran `INIT_LIST_HEAD()`), valid for the
    // call; only the registry's writers change it, and the writer lock holds them off.
    let listed = unsafe { CListHead::from_raw(lnode) }.is_linked();
    if warn_on!(listed) {
        return;
    }
    // The count is even outside a change and grows under the writer lock, so the odd count
    // of this change is above every symbol's already listed: the list is in increasing order
    // of it. Gaps left by removals do not matter to a walker, which compares. 2^64 changes
    // cannot happen in a kernel's lifetime: no overflow check on this path.
    let seq = change_begin(&writer).wrapping_add(1);
    // SAFETY: `ksym` is not registered yet. Stored before `list_add_tail_rcu()` publishes it.
    unsafe { set_seq(ksym, seq) };
    // SAFETY: The writer lock is held; `lnode` is not on any list and lives long enough, per the
    // safety requirements.
    unsafe { bindings::list_add_tail_rcu(lnode, LIST.0.get()) };
    // SAFETY: `ksym` is in no tree, and lives long enough, per the safety requirements.
    unsafe { TREE.0.insert(&writer, ksym) };
    change_end(&writer);
}

/// A registered symbol's insertion sequence number: symbols are listed in increasing order of
/// it. The field is the Rust registry's own (`CONFIG_BPF_KSYM_RUST`), so it is read here rather
/// than through [`Ksym`].
///
/// Written under the writer lock before the symbol is published (`list_add_tail_rcu()` is a
/// release), and not changed while it is registered.
#[inline]
pub(crate) fn seq(ksym: &Ksym) -> u64 {
    // SAFETY: `ksym` is a valid `bpf_ksym`; see above for why the read does not race.
    unsafe { (*ksym.as_raw()).seq }
}

/// Sets the sequence number of a symbol about to be registered.
///
/// # Safety
///
/// Nothing else reads or writes the field meanwhile: the symbol is not registered, a grace
/// period has passed since it was last removed (so no reader looks at it), and the caller holds
/// the writer lock.
#[inline]
unsafe fn set_seq(ksym: &Ksym, seq: u64) {
    // SAFETY: Nothing reads or writes the field concurrently, per the safety requirements.
    unsafe { (*ksym.as_raw()).seq = seq };
}

/// Unregisters `ksym` if it is registered. Readers may see it until a grace period has passed.
///
/// # Safety
///
/// Either `ksym` is registered, or its `lnode` is empty: never added, or initialised again with
/// `INIT_LIST_HEAD()` a grace period after its last removal (deleting twice without that
/// would unlink it twice).
// Always inlined, as `add()`.
#[inline(always)]
pub(crate) unsafe fn del(ksym: &Ksym) {
    let writer = WRITER.lock();
    let lnode = ksym.lnode();
    // SAFETY: `lnode` is an initialised node, listed or empty per the safety requirements, and
    // valid for the call; only the registry's writers change it, and the writer lock holds them
    // off. An empty node means `ksym` was never added.
    if !unsafe { CListHead::from_raw(lnode) }.is_linked() {
        return;
    }
    change_begin(&writer);
    // SAFETY: `ksym` is registered, hence in the tree.
    unsafe { TREE.0.erase(&writer, ksym) };
    // SAFETY: The writer lock is held and `ksym` is registered, hence listed;
    // `list_del_rcu()` leaves `next` intact for concurrent readers.
    unsafe { bindings::list_del_rcu(lnode) };
    // Before `del` returns, hence before the owner can start the grace period that frees
    // `ksym`: a walker that still reads the old count may dereference its cursor.
    REMOVALS.fetch_add(1, Release);
    change_end(&writer);
}

/// Counts the start of a change: [`GENERATION`] is odd until [`change_end`]. The writer lock's
/// guard proves it is held: it serializes the counts, and [`hold_changes`] holds it for a
/// reader. Returns the count before the change, which is even.
#[inline(always)]
fn change_begin(_writer: &GlobalGuard<WRITER>) -> u64 {
    let before = GENERATION.fetch_add(1, Relaxed);
    // The count before the change's stores.
    smp_mb(Write);
    before
}

/// Counts the end of the change that [`change_begin`] started.
#[inline(always)]
fn change_end(_writer: &GlobalGuard<WRITER>) {
    // The change's stores before the count.
    smp_mb(Write);
    GENERATION.fetch_add(1, Relaxed);
}

/// How many symbols were removed so far.
pub(crate) fn removals(_rcu: &rcu::Guard) -> u64 {
    REMOVALS.load(Acquire)
}

/// How many times the registry changed, counted as a seqcount: each addition and removal counts
/// once before it and once after it, so the count is odd while one is made.
///
/// The lookups made after reading an even count (`Acquire`) see every change it includes; if a
/// read after them (behind `smp_rmb()`) gives the same count, no change overlapped them. Never
/// waits: on an odd count the caller tries again, or looks up under [`hold_changes`].
pub(crate) fn generation() -> u64 {
    GENERATION.load(Acquire)
}

/// Runs `f` with the writers held off: [`generation`] is even and does not move until it returns.
/// `f` runs with bottom halves disabled and must not sleep.
pub(crate) fn hold_changes(f: impl FnOnce()) {
    let _writer = WRITER.lock();
    f();
}

/// The symbol whose `[start, end]` holds `addr`, if any.
#[inline]
pub(crate) fn find<'a>(addr: usize, rcu: &'a rcu::Guard) -> Option<&'a Ksym> {
    TREE.0.find(&addr, rcu)
}

/// Iterates over the symbols in insertion order.
pub(crate) fn iter(rcu: &rcu::Guard) -> impl Iterator<Item = &Ksym> {
    // SAFETY: The head is a valid list node.
    unsafe { iter_after(LIST.0.get(), rcu) }
}

/// Iterates over the symbols registered after `ksym`, in insertion order.
///
/// # Safety
///
/// `ksym` was reached from the registry in the RCU read section `rcu`, or was reached in an
/// earlier read section and [`removals`] read in `rcu` returns the count read in that one (a
/// `del` whose count `rcu` does not see precedes the grace period its owner waits for before
/// freeing or reusing the symbol). Its `next` then stays a valid list node for `rcu`, even if
/// `ksym` is removed meanwhile, and is not initialised again (owners reuse a symbol only after a
/// grace period).
pub(crate) unsafe fn iter_from<'a>(
    ksym: &'a Ksym,
    rcu: &'a rcu::Guard,
) -> impl Iterator<Item = &'a Ksym> {
    // SAFETY: Per the safety requirements, `ksym.lnode()` is valid for `rcu`.
    unsafe { iter_after(ksym.lnode(), rcu) }
}

/// Walks the list after `start` as C's `list_for_each_entry_rcu()` does.
///
/// `kernel::list::List` cannot hold these nodes: its links are its own `ListLinks` in items it
/// owns through `ListArc`, not a C `struct list_head` embedded in structs C allocates, and it has
/// no RCU traversal (writers there need `&mut List`, readers a shared reference without
/// concurrent writers).
///
/// # Safety
///
/// `start` is the list head or the `lnode` of a symbol valid for the RCU read section `'a`.
unsafe fn iter_after<'a>(
    start: *mut bindings::list_head,
    _rcu: &'a rcu::Guard,
) -> impl Iterator<Item = &'a Ksym> {
    let head = LIST.0.get();
    // SAFETY: `start` is valid and aligned, per the safety requirements; writers store `next`
    // with `WRITE_ONCE()` (`list_add_tail_rcu()`, `list_del_rcu()`): a marked load, as
    // `rcu_dereference()` (an acquire where the architecture needs one), does not race.
    let mut pos = unsafe { Atomic::from_ptr(&raw mut (*start).next) }.load(Relaxed);
    core::iter::from_fn(move || {
        if pos == head {
            return None;
        }
        // SAFETY: `pos` was reached from the list under RCU: it is the `lnode` of a symbol that
        // stays valid until the caller's RCU read section ends.
        let ksym = unsafe { Ksym::from_lnode(pos) };
        // SAFETY: As above; `next` stays valid even after `list_del_rcu()`.
        pos = unsafe { Atomic::from_ptr(&raw mut (*pos).next) }.load(Relaxed);
        Some(ksym)
    })
}
