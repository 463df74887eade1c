// SPDX-License-Identifier: GPL-2.0

//! BPF kernel symbols: a `struct bpf_ksym` embedded in a program, trampoline or dispatcher,
//! which names its code in `/proc/kallsyms` and to `%pS` and the unwinders.
//!
//! C header: [`include/linux/bpf.h`](srctree/include/linux/bpf.h)

use crate::{
    bindings,
    rbtree_latch::{
        HasLatchTreeNode,
        LatchTreeItem, //
    },
    sync::{
        atomic::{
            Atomic,
            Relaxed, //
        },
        rcu, //
    },
    types::Opaque, //
};
use core::cmp::Ordering;

/// A `struct bpf_ksym`, as the ksym registry (`kernel/bpf/ksym/`) and its readers see it.
///
/// Its owners: programs and subprograms (`aux->ksym`, filled in by `bpf_prog_kallsyms_add()`),
/// FineIBT preambles (`aux->ksym_prefix`), trampolines and struct_ops images
/// (`bpf_image_ksym_init()`) and dispatchers (`bpf_dispatcher_change_prog()`). Other CPUs may
/// write parts of it at any time, so the registry never makes a Rust reference to the C struct:
/// it reads and writes single fields through raw places, and so do its readers.
///
/// # Invariants
///
/// While a `&Ksym` exists (from the owner's `bpf_ksym_add()`, or its `bpf_ksym_del()` of a symbol
/// it may never have added, until an RCU grace period after its `bpf_ksym_del()`), the struct is
/// valid and stays at its address, and:
///
/// - `start`, `end`, `name` and `prog` are not written concurrently: every owner fills them in
///   before it adds the symbol, and reuses it only a grace period after deleting it.
/// - `prog` is set only in the `ksym` field of a `struct bpf_prog_aux` (`aux->ksym`).
/// - `fp_start` and `fp_end` may change while the symbol is registered: `bpf_trampoline_update()`
///   registers a trampoline's image before `arch_prepare_bpf_trampoline()` writes its
///   frame-pointer range, with `WRITE_ONCE()`. They are read with `READ_ONCE()` semantics.
/// - `lnode` and `tnode` (and `seq`, with the Rust registry) are written only by the registry,
///   under its writer lock.
#[repr(transparent)]
pub struct Ksym(Opaque<bindings::bpf_ksym>);

// SAFETY: `Ksym` is only ever shared: the fields that change while it is registered are written
// by the registry under its lock (links, `seq`) or read with `READ_ONCE()` semantics
// (`fp_start`, `fp_end`); the others do not change, per the type invariants.
unsafe impl Sync for Ksym {}

impl Ksym {
    /// Returns the `Ksym` at `ptr`.
    ///
    /// # Safety
    ///
    /// `ptr` points to a `struct bpf_ksym` that stays valid and in place for `'a`, and keeps the
    /// type invariants for `'a`: its owner filled in `start`, `end`, `name` and `prog`, and
    /// changes them only a grace period after the symbol's removal, past `'a`.
    #[inline]
    pub unsafe fn from_raw<'a>(ptr: *mut bindings::bpf_ksym) -> &'a Self {
        // INVARIANT: The caller promises validity and the field rules for `'a`.
        // SAFETY: `Ksym` is a transparent wrapper of `Opaque<bpf_ksym>`, which may be referred to
        // while other CPUs write the C struct; validity is the caller's promise.
        unsafe { &*ptr.cast() }
    }

    /// The C struct.
    #[inline]
    pub fn as_raw(&self) -> *mut bindings::bpf_ksym {
        self.0.get()
    }

    /// First byte of the symbol's code.
    #[inline]
    pub fn start(&self) -> usize {
        // SAFETY: `self` is a valid `bpf_ksym`; `start` does not change while it is registered,
        // so a plain read races with no writer (type invariants).
        unsafe { (*self.as_raw()).start }
    }

    /// One past the last byte; an address equal to it still belongs to the symbol, because a
    /// call as the last instruction leaves it as the return address on the stack.
    #[inline]
    pub fn end(&self) -> usize {
        // SAFETY: As for `start`.
        unsafe { (*self.as_raw()).end }
    }

    /// Whether this is the `ksym` of a `struct bpf_prog_aux`.
    #[inline]
    pub fn is_prog(&self) -> bool {
        // SAFETY: As for `start`.
        unsafe { (*self.as_raw()).prog }
    }

    /// The `struct bpf_prog_aux` whose `ksym` this is, for a program's or subprogram's symbol.
    ///
    /// It is valid for as long as the symbol is (a program's symbols go, a grace period before
    /// it is freed).
    #[inline]
    fn aux(&self) -> Option<*mut bindings::bpf_prog_aux> {
        if !self.is_prog() {
            return None;
        }
        // SAFETY: A `prog` symbol is the `ksym` field of a `bpf_prog_aux` (type invariants);
        // only the container's address is computed.
        Some(unsafe { crate::container_of!(self.as_raw(), bindings::bpf_prog_aux, ksym) })
    }

    /// The program (or subprogram) whose symbol this is, as C's `aux->prog`. It is valid for as
    /// long as the symbol is.
    #[inline]
    pub fn prog(&self) -> Option<*mut bindings::bpf_prog> {
        let aux = self.aux()?;
        // SAFETY: `aux` is valid while `self` is; `prog` is set before the program's symbols
        // are added and not changed while they are registered.
        Some(unsafe { (*aux).prog })
    }

    /// For a program's symbol 0, for a subprogram's its index (`aux->func_idx`).
    #[inline]
    pub fn subprog_index(&self) -> Option<u32> {
        let aux = self.aux()?;
        // SAFETY: `aux` is valid while `self` is; `func_idx` is set before the symbol is added
        // and not changed after.
        Some(unsafe { (*aux).func_idx })
    }

    /// The id of the program, or of the main program for a subprogram; 0 before the program has
    /// one (its subprograms' symbols are added during verification, before
    /// `bpf_prog_alloc_id()`, and stay id-less if the load then fails) and once it is being freed.
    #[inline]
    pub fn prog_id(&self) -> Option<u32> {
        let aux = self.aux()?;
        // SAFETY: `aux` is valid while `self` is; `main_prog_aux` is set before the symbol is
        // added and not changed after, and the main program's aux is freed with its
        // subprograms', after the same grace period.
        let main = unsafe { (*aux).main_prog_aux };
        // The id is set after the subprograms' symbols are added (`bpf_prog_alloc_id()`) and
        // cleared when the program is put (`bpf_prog_free_id()`), while the symbol may be read;
        // both stores are `WRITE_ONCE()`, so this marked load is not a data race: it reads the
        // old id or the new one.
        // SAFETY: `main` is a valid `bpf_prog_aux` (above) whose `id` is aligned and only
        // written with marked stores; it is only read here, once, through the atomic.
        Some(unsafe { Atomic::from_ptr(&raw mut (*main).id) }.load(Relaxed))
    }

    /// The registered symbol whose `[start, end]` holds `addr`, if any, as
    /// `bpf_ksym_lookup()` finds it.
    #[inline]
    pub fn lookup(addr: usize, _rcu: &rcu::Guard) -> Option<&Self> {
        // SAFETY: `_rcu` holds the RCU read lock, as `bpf_ksym_lookup()` requires.
        let ksym = unsafe { bindings::bpf_ksym_lookup(addr) };
        if ksym.is_null() {
            return None;
        }
        // SAFETY: `ksym` is registered, or was a moment ago: its owner frees it only a grace
        // period after removing it, so it stays valid and in place while `_rcu` is held, and
        // registered symbols keep the type invariants.
        Some(unsafe { Self::from_raw(ksym.cast_mut()) })
    }

    /// Copies the name and its terminating NUL into `out`; returns the name's length.
    ///
    /// `strscpy()` rather than a byte loop: it copies a word at a time, and `%pS` and the
    /// unwinders' symbolizers call this for every frame.
    #[inline]
    pub fn copy_name(&self, out: &mut [u8; bindings::KSYM_NAME_LEN as usize]) -> usize {
        // SAFETY: Only the field address is computed.
        let name = unsafe { &raw const (*self.as_raw()).name };
        // SAFETY: Both buffers hold `KSYM_NAME_LEN` bytes; `name` does not change while the
        // symbol is registered (type invariants).
        let len = unsafe { bindings::sized_strscpy(out.as_mut_ptr(), name.cast(), out.len()) };
        // A name without a NUL in its buffer is cut at `KSYM_NAME_LEN - 1` (`-E2BIG`).
        usize::try_from(len).unwrap_or(out.len() - 1)
    }

    /// Whether the JIT image keeps a frame pointer at `addr`.
    #[inline]
    pub fn has_frame_pointer_at(&self, addr: usize) -> bool {
        let k = self.as_raw();
        // The x86 JIT writes a trampoline's range while it is registered (type invariants), with
        // `WRITE_ONCE()` (`__arch_prepare_bpf_trampoline()` in `arch/x86/net/bpf_jit_comp.c`);
        // every other write is before registration.
        // SAFETY: Aligned `u32`s of a valid `bpf_ksym`, read once each: no LKMM data race.
        let (fp_start, fp_end) = unsafe {
            (
                Atomic::from_ptr(&raw mut (*k).fp_start).load(Relaxed),
                Atomic::from_ptr(&raw mut (*k).fp_end).load(Relaxed),
            )
        };
        if fp_start == 0 || fp_end == 0 {
            return false;
        }
        let offset = addr.wrapping_sub(self.start());
        offset >= fp_start as usize && offset < fp_end as usize
    }

    /// The list link, for the registry.
    #[inline]
    pub fn lnode(&self) -> *mut bindings::list_head {
        // SAFETY: Only the field address is computed.
        unsafe { &raw mut (*self.as_raw()).lnode }
    }

    /// The `Ksym` whose list link is `lnode`.
    ///
    /// # Safety
    ///
    /// `lnode` is the `lnode` of a `struct bpf_ksym` that satisfies the requirements of
    /// [`Ksym::from_raw`] for `'a`.
    #[inline]
    pub unsafe fn from_lnode<'a>(lnode: *mut bindings::list_head) -> &'a Self {
        // SAFETY: Per the safety requirements, `lnode` is embedded in a valid `bpf_ksym`.
        unsafe { Self::from_raw(crate::container_of!(lnode, bindings::bpf_ksym, lnode)) }
    }
}

// SAFETY: `raw_get_node` and `from_node` are inverses over the `tnode` field, which is inside the
// `Opaque` that `Ksym` wraps.
unsafe impl HasLatchTreeNode for Ksym {
    #[inline]
    unsafe fn raw_get_node(this: *const Self) -> *mut bindings::latch_tree_node {
        // SAFETY: The caller promises that `this` is valid; only the field address is computed.
        unsafe { &raw mut (*Opaque::cast_into(&raw const (*this).0)).tnode }
    }

    #[inline]
    unsafe fn from_node(node: *const bindings::latch_tree_node) -> *const Self {
        // SAFETY: The caller promises that `node` is the `tnode` of a `bpf_ksym`.
        unsafe { crate::container_of!(node.cast_mut(), bindings::bpf_ksym, tnode) }.cast()
    }
}

/// Symbols are ordered by start and matched by `[start, end]`, end included. Registered ranges
/// do not overlap, but they may touch: a FineIBT preamble ends where its program starts, and
/// `addr == end` of one may be `start` of the next. A lookup of such an address finds one of
/// the two (which one is unspecified); the KUnit tests pin that it finds one.
impl LatchTreeItem for Ksym {
    type Key = usize;

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
