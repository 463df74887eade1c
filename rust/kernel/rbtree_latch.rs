// SPDX-License-Identifier: GPL-2.0

//! Latched red-black trees: ordered lookups that never block and are NMI-safe.
//!
//! C header: [`include/linux/rbtree_latch.h`](srctree/include/linux/rbtree_latch.h)
//!
//! An RB-tree cannot be read while it is rebalanced, and a seqlock would make a reader that
//! interrupted the writer (an NMI, say) spin forever. The latch keeps *two* copies of the tree,
//! linked through two `rb_node`s embedded in every item. A writer modifies copy 0 while readers
//! are steered to copy 1, then copy 1 while readers use copy 0; a sequence count says which copy
//! is stable. A reader picks the stable copy, searches it and retries only if the count moved
//! meanwhile, so there is always one complete tree to read and the reader never waits for a
//! writer.
//!
//! The nodes are intrusive (`struct latch_tree_node` inside the item), so inserting never
//! allocates, and items are reached from C and Rust alike. The layout is exactly C's, so a
//! [`LatchTree`] can sit where a `struct latch_tree_root` was.
//!
//! Writers are serialized by a global lock ([`global_lock!`](crate::sync::global_lock)) named in
//! the tree's type, whose guard each write takes, as [`GlobalLockedBy`] does: a write without
//! that lock held does not compile.
//!
//! [`GlobalLockedBy`]: crate::sync::lock::GlobalLockedBy

use crate::{
    bindings,
    sync::{
        atomic::{
            Atomic,
            Relaxed, //
        },
        lock::{
            GlobalGuard,
            GlobalLockBackend, //
        },
        rcu, //
    },
    types::Opaque, //
};
use core::{
    cmp::Ordering,
    marker::PhantomData,
    ptr, //
};

/// An item with an embedded `struct latch_tree_node`, the two `rb_node`s that link it into the
/// two copies of a [`LatchTree`].
///
/// Use [`impl_has_latch_tree_node!`] to implement it for a field of type
/// `Opaque<bindings::latch_tree_node>`; implement it by hand only when the node sits inside a
/// larger C struct, as in an `Opaque<bindings::bpf_ksym>`.
///
/// # Safety
///
/// - [`HasLatchTreeNode::raw_get_node`] returns a pointer to a `struct latch_tree_node` embedded
///   in the item at `this`, the same one every time. The node is inside an [`Opaque`] (its own,
///   or one around a C struct that holds it): the tree writes it while shared references to the
///   item exist.
/// - [`HasLatchTreeNode::from_node`] is its inverse.
pub unsafe trait HasLatchTreeNode {
    /// Returns the embedded node of the item at `this`, without reading or writing anything.
    ///
    /// # Safety
    ///
    /// `this` points to a valid `Self`.
    unsafe fn raw_get_node(this: *const Self) -> *mut bindings::latch_tree_node;

    /// Returns the item that embeds `node`.
    ///
    /// # Safety
    ///
    /// `node` points to the node embedded in a valid `Self`, as returned by
    /// [`HasLatchTreeNode::raw_get_node`].
    unsafe fn from_node(node: *const bindings::latch_tree_node) -> *const Self;
}

/// Implements [`HasLatchTreeNode`] for a struct whose `Opaque<bindings::latch_tree_node>` field
/// links it into a [`LatchTree`].
///
/// The field's type is checked: the implementation does not compile for any other type.
///
/// ```
/// use kernel::{bindings, rbtree_latch::impl_has_latch_tree_node, types::Opaque};
///
/// struct Span {
///     start: usize,
///     node: Opaque<bindings::latch_tree_node>,
/// }
///
/// impl_has_latch_tree_node! {
///     impl HasLatchTreeNode for Span { self.node }
/// }
/// ```
#[macro_export]
macro_rules! impl_has_latch_tree_node {
    ($(impl$({$($generics:tt)*})? HasLatchTreeNode for $self:ty { self.$field:ident })*) => {$(
        // SAFETY: `raw_get_node` returns the address of the field `$field`, whose type is
        // `Opaque<latch_tree_node>` (the `let` below does not compile otherwise), and `from_node`
        // steps back from that field to its struct.
        unsafe impl$(<$($generics)*>)? $crate::rbtree_latch::HasLatchTreeNode for $self {
            #[inline]
            unsafe fn raw_get_node(this: *const Self) -> *mut $crate::bindings::latch_tree_node {
                // Statically ensure that `$field` is a field of `Self`, not reached through
                // `Deref`.
                if false {
                    let _: usize = ::core::mem::offset_of!(Self, $field);
                }
                // A shared reference to an `Opaque` may coexist with writes to its contents, and
                // taking one does not compile for a (maybe misaligned) `#[repr(packed)]` field.
                // SAFETY: The caller promises that `this` points to a valid `Self`.
                let field = unsafe { &(*this).$field };
                // Does not compile unless the field is an `Opaque<latch_tree_node>`.
                let field: &$crate::types::Opaque<$crate::bindings::latch_tree_node> = field;
                field.get()
            }

            #[inline]
            unsafe fn from_node(node: *const $crate::bindings::latch_tree_node) -> *const Self {
                let field = $crate::types::Opaque::cast_from(node).cast_mut();
                // SAFETY: The caller promises that `node` is the `$field` of a valid `Self`.
                unsafe { $crate::container_of!(field, Self, $field) }.cast_const()
            }
        }
    )*};
}
pub use impl_has_latch_tree_node;

/// The order of the items of a [`LatchTree`], and how lookups match a key.
///
/// [`LatchTreeItem::less`] and [`LatchTreeItem::compare`] must agree: `item.compare(key of a)`
/// is [`Ordering::Less`] exactly when `a.less(item)`. If they do not, lookups may miss items;
/// memory safety does not depend on it.
pub trait LatchTreeItem: HasLatchTreeNode {
    /// What lookups search by, e.g. an address.
    type Key: ?Sized;

    /// The order of items in the tree: whether `self` sorts before `other`.
    fn less(&self, other: &Self) -> bool;

    /// Where `key` lies relative to this item: [`Ordering::Equal`] if the item matches it.
    fn compare(&self, key: &Self::Key) -> Ordering;
}

/// A latched RB-tree of intrusive `T` items, written under the global lock `W`.
///
/// Readers call [`LatchTree::find`] under RCU from any context, NMI included. Writers
/// ([`LatchTree::insert`], [`LatchTree::erase`]) hold `W`'s lock, whose guard they take, and
/// must keep an erased item alive, at the same address, until an RCU grace period has passed.
///
/// # Invariants
///
/// - `root` is a valid `struct latch_tree_root` whose two trees hold the same items.
/// - Every item linked into the trees is a live `T`, linked through
///   [`HasLatchTreeNode::raw_get_node`], and stays live and in place until it is erased and an
///   RCU grace period has elapsed.
///
/// # Examples
///
/// ```
/// use core::cmp::Ordering;
/// use kernel::{
///     bindings,
///     rbtree_latch::{impl_has_latch_tree_node, LatchTree, LatchTreeItem},
///     sync::{atomic::{Atomic, Relaxed}, global_lock, rcu},
///     types::Opaque, //
/// };
///
/// global_lock! {
///     // SAFETY: Initialized below, before the tree is written.
///     unsafe(uninit) static TREE_WRITER: Mutex<()> = ();
/// }
///
/// struct Range {
///     start: usize,
///     end: usize,
///     node: Opaque<bindings::latch_tree_node>,
/// }
///
/// impl_has_latch_tree_node! {
///     impl HasLatchTreeNode for Range { self.node }
/// }
///
/// impl LatchTreeItem for Range {
///     type Key = usize;
///     fn less(&self, other: &Self) -> bool {
///         self.start < other.start
///     }
///     fn compare(&self, key: &usize) -> Ordering {
///         if *key < self.start {
///             Ordering::Less
///         } else if *key >= self.end {
///             Ordering::Greater
///         } else {
///             Ordering::Equal
///         }
///     }
/// }
///
/// // The lock is initialized once, before its first use, however often this runs.
/// static READY: Atomic<bool> = Atomic::new(false);
/// if !READY.xchg(true, Relaxed) {
///     // SAFETY: Called once, before any use of the lock.
///     unsafe { TREE_WRITER.init() };
/// }
/// let tree = LatchTree::<Range, TREE_WRITER>::new();
/// let a = Range { start: 0x1000, end: 0x1100, node: Opaque::zeroed() };
/// let writer = TREE_WRITER.lock();
/// // SAFETY: `a` is in no tree, is not moved, and outlives its membership (erased below, a grace
/// // period before it is dropped).
/// unsafe { tree.insert(&writer, &a) };
/// drop(writer);
/// {
///     let guard = rcu::read_lock();
///     assert_eq!(tree.find(&0x1080, &guard).map(|r| r.start), Some(0x1000));
///     assert!(tree.find(&0x1100, &guard).is_none());
/// }
/// // SAFETY: `a` is in the tree.
/// unsafe { tree.erase(&TREE_WRITER.lock(), &a) };
/// // Readers may see an erased item until a grace period has passed; only then may `a` go.
/// rcu::synchronize_rcu();
/// ```
pub struct LatchTree<T: LatchTreeItem, W: GlobalLockBackend> {
    root: Opaque<bindings::latch_tree_root>,
    _items: PhantomData<T>,
    _writer: PhantomData<fn() -> W>,
}

// SAFETY: The tree only hands out shared references to `T`, from any thread; `W` is a marker.
unsafe impl<T: LatchTreeItem + Sync, W: GlobalLockBackend> Sync for LatchTree<T, W> {}
// SAFETY: The tree holds no thread-bound state; items are shared, never moved.
unsafe impl<T: LatchTreeItem + Sync, W: GlobalLockBackend> Send for LatchTree<T, W> {}

impl<T: LatchTreeItem, W: GlobalLockBackend> Default for LatchTree<T, W> {
    fn default() -> Self {
        Self::new()
    }
}

impl<T: LatchTreeItem, W: GlobalLockBackend> LatchTree<T, W> {
    /// Creates an empty tree; usable in a `static`.
    pub const fn new() -> Self {
        // INVARIANT: All zeroes is an empty `latch_tree_root`: sequence 0, two NULL roots. This is
        // what C's static zero initialisation of a `struct latch_tree_root` relies on too.
        Self {
            root: Opaque::zeroed(),
            _items: PhantomData,
            _writer: PhantomData,
        }
    }

    #[inline]
    fn seq(&self) -> *mut bindings::seqcount_latch_t {
        // SAFETY: Only the field address is computed; `root` is valid by the type invariant.
        unsafe { &raw mut (*self.root.get()).seq }
    }

    #[inline]
    fn rb_root(&self, idx: usize) -> *mut bindings::rb_root {
        // SAFETY: Only the field address is computed; `root` is valid by the type invariant.
        unsafe { &raw mut (*self.root.get()).tree[idx] }
    }

    /// Returns the `rb_node` of copy `idx` in `item`.
    #[inline]
    fn rb_node(item: &T, idx: usize) -> *mut bindings::rb_node {
        // SAFETY: `item` is a reference, hence a valid `T`.
        let node = unsafe { T::raw_get_node(item) };
        // SAFETY: Only the field address is computed from the node `T::raw_get_node` points at.
        unsafe { &raw mut (*node).node[idx] }
    }

    /// Returns the item whose copy-`idx` `rb_node` is `node`.
    ///
    /// # Safety
    ///
    /// `node` must be the copy-`idx` `rb_node` of an item linked into this tree.
    #[inline]
    unsafe fn item(node: *mut bindings::rb_node, idx: usize) -> *const T {
        // SAFETY: `node` is `node[idx]` of a `latch_tree_node`, per the safety requirements, so
        // stepping back `idx` elements reaches `node[0]`, the start of that `latch_tree_node`.
        let ltn = unsafe { node.sub(idx) }.cast::<bindings::latch_tree_node>();
        // SAFETY: `ltn` is embedded in a `T`, per the safety requirements.
        unsafe { T::from_node(ltn) }
    }

    /// Finds the item that matches `key`, without taking any lock.
    ///
    /// Callable from any context, NMI included. Which item is returned is unspecified if the
    /// order is partial and several items match.
    #[inline]
    pub fn find<'a>(&'a self, key: &T::Key, rcu: &'a rcu::Guard) -> Option<&'a T> {
        loop {
            // SAFETY: `seq` is a valid `seqcount_latch_t`, by the type invariant.
            let seq = unsafe { bindings::read_seqcount_latch(self.seq()) };
            let found = self.find_in((seq & 1) as usize, key, rcu);
            // SAFETY: As above.
            if unsafe { !bindings::read_seqcount_latch_retry(self.seq(), seq) } {
                // SAFETY: Items stay live until a grace period after erasure, by the type
                // invariant, and the caller holds the RCU read lock for `'a`.
                return found.map(|item| unsafe { &*item });
            }
        }
    }

    /// Searches copy `idx`. The copy may be under modification, in which case the result is
    /// discarded by the sequence check; the walk itself stays within live items and ends,
    /// because `rb_insert_color` and `rb_erase` never make a node reachable from itself.
    /// `_rcu` keeps every item it may reach live.
    #[inline]
    fn find_in(&self, idx: usize, key: &T::Key, _rcu: &rcu::Guard) -> Option<*const T> {
        let root = self.rb_root(idx);
        // SAFETY: `root` is valid and aligned; writers store its pointer with `WRITE_ONCE()`
        // (`lib/rbtree.c` keeps every link lockless readers follow so): a marked load, C's
        // `rcu_dereference_raw()` (an acquire where the architecture needs one, as arm64 with
        // LTO does), does not race.
        let mut node = unsafe { Atomic::from_ptr(&raw mut (*root).rb_node) }.load(Relaxed);
        while !node.is_null() {
            // SAFETY: `node` was reached from copy `idx`, so it is the copy-`idx` node of a
            // linked item.
            let item = unsafe { Self::item(node, idx) };
            // SAFETY: Items reached from the tree stay live until a grace period after their
            // erasure, by the type invariant, and `_rcu` holds the RCU read lock; `node` is one
            // of their nodes.
            let next = unsafe {
                match (*item).compare(key) {
                    Ordering::Less => &raw mut (*node).rb_left,
                    Ordering::Greater => &raw mut (*node).rb_right,
                    Ordering::Equal => return Some(item),
                }
            };
            // SAFETY: `next` points into the live node `node`, aligned; marked as above.
            node = unsafe { Atomic::from_ptr(next) }.load(Relaxed);
        }
        None
    }

    /// Links `item` into copy `idx`.
    ///
    /// # Safety
    ///
    /// As for [`LatchTree::insert`], `W`'s lock is held, and readers must currently be steered
    /// to the other copy.
    // Always inlined, as C's `__latch_tree_insert()`.
    #[inline(always)]
    unsafe fn insert_in(&self, item: &T, idx: usize) {
        let root = self.rb_root(idx);
        // SAFETY: `root` is valid; the writer holds `W`'s lock, so nothing else changes it.
        let mut link = unsafe { &raw mut (*root).rb_node };
        let mut parent = ptr::null_mut();
        // SAFETY: `link` always points into the root or a linked node, which the serialized
        // writer owns.
        while !unsafe { *link }.is_null() {
            // SAFETY: As above.
            parent = unsafe { *link };
            // SAFETY: `parent` is the copy-`idx` node of a linked, hence live, item.
            let other = unsafe { &*Self::item(parent, idx) };
            link = if item.less(other) {
                // SAFETY: `parent` is a valid node.
                unsafe { &raw mut (*parent).rb_left }
            } else {
                // SAFETY: `parent` is a valid node.
                unsafe { &raw mut (*parent).rb_right }
            };
        }
        let node = Self::rb_node(item, idx);
        // SAFETY: `node` belongs to `item`, which is not linked; `parent` and `link` were found
        // above. `rb_link_node_rcu` publishes `node` only after it is initialised.
        unsafe { bindings::rb_link_node_rcu(node, parent, link) };
        // SAFETY: `node` was just linked into `root`.
        unsafe { bindings::rb_insert_color(node, root) };
    }

    /// Inserts `item` into both copies, under `W`'s lock (`_writer`).
    ///
    /// # Safety
    ///
    /// - `item`'s node is not linked into this or any other latch tree, and no reader of an
    ///   earlier linking may still reach it (a grace period passed since it was erased).
    /// - `item` stays live and does not move until it is erased and an RCU grace period has
    ///   elapsed: the trees link its embedded node by address.
    // Always inlined, as C's `latch_tree_insert()` (`__always_inline`): a call would cost every
    // insertion a frame of its own.
    #[inline(always)]
    pub unsafe fn insert(&self, _writer: &GlobalGuard<W>, item: &T) {
        // SAFETY: `seq` is valid; `_writer` holds `W`'s lock, which serializes writers.
        unsafe { bindings::write_seqcount_latch_begin(self.seq()) };
        // SAFETY: Readers now use copy 1.
        unsafe { self.insert_in(item, 0) };
        // SAFETY: As above.
        unsafe { bindings::write_seqcount_latch(self.seq()) };
        // SAFETY: Readers now use copy 0, which holds `item` already.
        unsafe { self.insert_in(item, 1) };
        // SAFETY: As above.
        unsafe { bindings::write_seqcount_latch_end(self.seq()) };
        // INVARIANT: Both copies hold `item`, which the caller keeps live.
    }

    /// Removes `item` from both copies, under `W`'s lock (`_writer`).
    ///
    /// Readers may still see `item` until an RCU grace period has elapsed.
    ///
    /// # Safety
    ///
    /// `item` is in this tree.
    // Always inlined, as C's `latch_tree_erase()`.
    #[inline(always)]
    pub unsafe fn erase(&self, _writer: &GlobalGuard<W>, item: &T) {
        // SAFETY: `seq` is valid; `_writer` holds `W`'s lock, which serializes writers.
        unsafe { bindings::write_seqcount_latch_begin(self.seq()) };
        // SAFETY: Readers now use copy 1; `item` is linked in copy 0.
        unsafe { bindings::rb_erase(Self::rb_node(item, 0), self.rb_root(0)) };
        // SAFETY: As above.
        unsafe { bindings::write_seqcount_latch(self.seq()) };
        // SAFETY: Readers now use copy 0; `item` is linked in copy 1.
        unsafe { bindings::rb_erase(Self::rb_node(item, 1), self.rb_root(1)) };
        // SAFETY: As above.
        unsafe { bindings::write_seqcount_latch_end(self.seq()) };
        // INVARIANT: `item` is in neither copy.
    }
}

#[macros::kunit_tests(rust_rbtree_latch)]
mod tests {
    use super::*;
    use crate::{prelude::*, sync::global_lock};

    global_lock! {
        // SAFETY: Initialized by `writer()` before its first use.
        unsafe(uninit) static TREE_WRITER: Mutex<()> = ();
    }

    /// The tests' writer lock, initialized by the first test that writes.
    fn writer() -> GlobalGuard<TREE_WRITER> {
        static READY: Atomic<bool> = Atomic::new(false);
        // KUnit runs a suite's cases one after the other: no other test initializes it meanwhile.
        if !READY.xchg(true, Relaxed) {
            // SAFETY: Called once, before any use of the lock.
            unsafe { TREE_WRITER.init() };
        }
        TREE_WRITER.lock()
    }

    type Tree = LatchTree<Span, TREE_WRITER>;

    struct Span {
        start: usize,
        len: usize,
        node: Opaque<bindings::latch_tree_node>,
    }

    impl Span {
        fn new(start: usize, len: usize) -> Self {
            Self {
                start,
                len,
                node: Opaque::zeroed(),
            }
        }
    }

    impl_has_latch_tree_node! {
        impl HasLatchTreeNode for Span { self.node }
    }

    // `less` orders by start and `compare` matches the half-open range, consistently with it
    // for disjoint spans.
    impl LatchTreeItem for Span {
        type Key = usize;
        fn less(&self, other: &Self) -> bool {
            self.start < other.start
        }
        fn compare(&self, key: &usize) -> Ordering {
            if *key < self.start {
                Ordering::Less
            } else if *key >= self.start + self.len {
                Ordering::Greater
            } else {
                Ordering::Equal
            }
        }
    }

    fn found(tree: &Tree, key: usize) -> Option<usize> {
        let guard = rcu::read_lock();
        tree.find(&key, &guard).map(|s| s.start)
    }

    #[test]
    fn empty_tree_finds_nothing() {
        let tree = Tree::new();
        assert_eq!(found(&tree, 0), None);
        assert_eq!(found(&tree, usize::MAX), None);
    }

    #[test]
    fn insert_find_erase_many() -> Result {
        const N: usize = 257;
        let tree = Tree::new();
        let mut spans = KVec::with_capacity(N, GFP_KERNEL)?;
        // Insert in a scrambled order so rebalancing is exercised.
        for i in 0..N {
            spans.push(Span::new(0x1000 + ((i * 97) % N) * 0x100, 0x80), GFP_KERNEL)?;
        }
        let w = writer();
        for s in spans.iter() {
            // SAFETY: Every span is in no tree, and is erased below, a grace period before
            // `spans` is dropped.
            unsafe { tree.insert(&w, s) };
        }
        drop(w);
        for i in 0..N {
            let start = 0x1000 + i * 0x100;
            assert_eq!(found(&tree, start), Some(start));
            assert_eq!(found(&tree, start + 0x7f), Some(start));
            assert_eq!(found(&tree, start + 0x80), None);
        }
        assert_eq!(found(&tree, 0xfff), None);
        // Erase every other span; the rest must stay findable in both copies.
        for s in spans.iter().step_by(2) {
            // SAFETY: `s` is in the tree.
            unsafe { tree.erase(&writer(), s) };
        }
        for (k, s) in spans.iter().enumerate() {
            let want = if k % 2 == 0 { None } else { Some(s.start) };
            assert_eq!(found(&tree, s.start + 1), want);
        }
        for s in spans.iter().skip(1).step_by(2) {
            // SAFETY: `s` is in the tree.
            unsafe { tree.erase(&writer(), s) };
        }
        assert_eq!(found(&tree, 0x1000), None);
        // Erased items stay readable until a grace period has passed; only then are they freed.
        rcu::synchronize_rcu();
        Ok(())
    }
}
