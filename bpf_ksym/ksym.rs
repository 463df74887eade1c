// SPDX-License-Identifier: GPL-2.0

//! One registered symbol: a `struct bpf_ksym` embedded in a program, trampoline or dispatcher.

use core::cmp::Ordering;
use kernel::{
    bindings,
    rbtree_latch::LatchTreeItem,
    types::Opaque, //
};

/// A `struct bpf_ksym`.
///
/// `start`, `end`, `name`, `prog` and the frame-pointer range are written by its owner before it
/// is added and not changed while it is registered, so readers may read them without a lock.
/// The list and tree links belong to the registry.
#[repr(transparent)]
pub(crate) struct Ksym(Opaque<bindings::bpf_ksym>);

// SAFETY: A registered `bpf_ksym` is only read by readers; its links are changed by the one
// writer that holds the registry lock.
unsafe impl Sync for Ksym {}

impl Ksym {
    /// Returns the `Ksym` at `ptr`.
    ///
    /// # Safety
    ///
    /// `ptr` points to a valid `struct bpf_ksym` that stays valid for `'a`.
    pub(crate) unsafe fn from_raw<'a>(ptr: *mut bindings::bpf_ksym) -> &'a Self {
        // SAFETY: `Ksym` is a transparent wrapper of `bpf_ksym`; validity is the caller's promise.
        unsafe { &*ptr.cast() }
    }

    pub(crate) fn as_raw(&self) -> *mut bindings::bpf_ksym {
        self.0.get()
    }

    fn raw(&self) -> &bindings::bpf_ksym {
        // SAFETY: The fields read through this reference are stable while the symbol is
        // registered (see the type documentation); the links are only read through raw pointers.
        unsafe { &*self.0.get() }
    }

    /// First byte of the symbol's code.
    pub(crate) fn start(&self) -> usize {
        self.raw().start
    }

    /// One past the last byte; an address equal to it still belongs to the symbol, because a
    /// call as the last instruction leaves it as the return address on the stack.
    pub(crate) fn end(&self) -> usize {
        self.raw().end
    }

    /// Insertion sequence number: symbols are listed in increasing order of it.
    pub(crate) fn seq(&self) -> u64 {
        self.raw().seq
    }

    /// Sets the sequence number of a symbol about to be registered.
    ///
    /// # Safety
    ///
    /// The symbol is not registered, so no reader looks at it.
    pub(crate) unsafe fn set_seq(&self, seq: u64) {
        // SAFETY: Nothing reads the field concurrently, per the safety requirements.
        unsafe { (*self.0.get()).seq = seq };
    }

    /// Whether this is the `ksym` of a `struct bpf_prog_aux`.
    pub(crate) fn is_prog(&self) -> bool {
        self.raw().prog
    }

    /// Copies the name and its terminating NUL into `out`; returns the name's length.
    ///
    /// `strscpy()` rather than a byte loop: it copies a word at a time, and `%pS` and the
    /// unwinders' symbolizers call this for every frame.
    pub(crate) fn copy_name(&self, out: &mut [u8; bindings::KSYM_NAME_LEN as usize]) -> usize {
        // SAFETY: Both buffers hold `KSYM_NAME_LEN` bytes.
        let len = unsafe {
            bindings::sized_strscpy(out.as_mut_ptr(), self.raw().name.as_ptr(), out.len())
        };
        // A name without a NUL in its buffer is cut at `KSYM_NAME_LEN - 1` (`-E2BIG`).
        usize::try_from(len).unwrap_or(out.len() - 1)
    }

    /// Whether the JIT image keeps a frame pointer at `addr`.
    pub(crate) fn has_frame_pointer_at(&self, addr: usize) -> bool {
        let k = self.raw();
        if k.fp_start == 0 || k.fp_end == 0 {
            return false;
        }
        let offset = addr.wrapping_sub(k.start);
        offset >= k.fp_start as usize && offset < k.fp_end as usize
    }

    /// The list link, for the registry.
    pub(crate) fn lnode(&self) -> *mut bindings::list_head {
        // SAFETY: Only the field address is computed.
        unsafe { &raw mut (*self.0.get()).lnode }
    }

    /// The `Ksym` whose list link is `lnode`.
    ///
    /// # Safety
    ///
    /// `lnode` is the `lnode` of a `struct bpf_ksym` that stays valid for `'a`.
    pub(crate) unsafe fn from_lnode<'a>(lnode: *mut bindings::list_head) -> &'a Self {
        // SAFETY: Per the safety requirements, `lnode` is embedded in a valid `bpf_ksym`.
        unsafe { Self::from_raw(kernel::container_of!(lnode, bindings::bpf_ksym, lnode)) }
    }
}

// SAFETY: `node` and `from_node` are inverses over the `tnode` field. Symbols do not overlap, so
// ordering by start agrees with `compare`, which matches `[start, end]` (end inclusive).
unsafe impl LatchTreeItem for Ksym {
    type Key = usize;

    fn node(this: *const Self) -> *mut bindings::latch_tree_node {
        // SAFETY: Only the field address is computed.
        unsafe { &raw mut (*Opaque::cast_into(&raw const (*this).0)).tnode }
    }

    unsafe fn from_node(node: *const bindings::latch_tree_node) -> *const Self {
        // SAFETY: The caller promises `node` is the `tnode` of a `bpf_ksym`.
        unsafe { kernel::container_of!(node.cast_mut(), bindings::bpf_ksym, tnode) }.cast()
    }

    #[inline]
    fn less(&self, other: &Self) -> bool {
        self.start() < other.start()
    }

    #[inline]
    fn compare(&self, addr: &usize) -> Ordering {
        if *addr < self.start() {
            Ordering::Less
        } else if *addr > self.end() {
            Ordering::Greater
        } else {
            Ordering::Equal
        }
    }
}
