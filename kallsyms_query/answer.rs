// SPDX-License-Identifier: GPL-2.0

//! What `BY_ADDR` answers about one address: the symbol, where it starts, its size, its owner,
//! what it is and, for BPF programs, the program id and subprogram index.
//!
//! C headers: [`include/linux/kallsyms.h`](srctree/include/linux/kallsyms.h),
//! [`include/linux/bpf.h`](srctree/include/linux/bpf.h),
//! [`include/linux/module.h`](srctree/include/linux/module.h)
//!
//! The single and the batched query both call [`Answer::lookup`], so they cannot disagree. The
//! name goes where the caller says (a [`NameBuf`]): the batch's goes straight to the block of
//! strings it copies to the user, without a copy of its own.

use crate::{
    NAME_LEN,
    OWNER_LEN, //
};
use kernel::{
    bindings,
    bpf::ksym::Ksym,
    prelude::*,
    sync::{
        atomic::{
            Atomic,
            Relaxed, //
        },
        rcu,
    },
};

/// `enum kallsyms_sym_kind` of the uapi header.
pub(crate) type Kind = bindings::kallsyms_sym_kind;

/// The names the BPF core gives the images that are not programs, and their kinds.
const BPF_IMAGE_PREFIXES: [(&[u8], Kind); 2] = [
    (
        b"bpf_trampoline_",
        bindings::kallsyms_sym_kind_KALLSYMS_SYM_BPF_TRAMPOLINE,
    ),
    (
        b"bpf_dispatcher_",
        bindings::kallsyms_sym_kind_KALLSYMS_SYM_BPF_DISPATCHER,
    ),
];

/// Where a lookup writes the name and its NUL: `KSYM_NAME_LEN` bytes, as `kallsyms_lookup()`
/// takes.
pub(crate) type NameBuf = [u8; NAME_LEN];

/// One answer, built on the stack (or in the batch's buffer) and copied to the user after the
/// RCU read section that found it; its name is in the [`NameBuf`] the lookup was given. All
/// zeroes is an empty answer.
#[derive(Zeroable)]
pub(crate) struct Answer {
    /// The name's length in its [`NameBuf`], NUL included.
    pub(crate) name_len: usize,
    /// The owner (module name, `bpf`, or empty for vmlinux) and its NUL.
    pub(crate) owner: [u8; OWNER_LEN],
    /// The owner's length, NUL included.
    pub(crate) owner_len: usize,
    pub(crate) start: usize,
    pub(crate) size: usize,
    pub(crate) kind: Kind,
    /// The BPF program's id (the main program's, for a subprogram), whoever asks; 0 otherwise.
    pub(crate) prog_id: u32,
    /// The BPF subprogram index; 0 for a program's main function and for everything else.
    pub(crate) subprog: u32,
}

impl Answer {
    /// An empty answer, to be filled in by [`Answer::lookup`].
    pub(crate) const fn new() -> Self {
        Self {
            name_len: 0,
            owner: [0; OWNER_LEN],
            owner_len: 1,
            start: 0,
            size: 0,
            kind: bindings::kallsyms_sym_kind_KALLSYMS_SYM_NONE,
            prog_id: 0,
            subprog: 0,
        }
    }

    /// The name, NUL included, from the buffer the lookup wrote it to.
    pub(crate) fn name<'a>(&self, buf: &'a NameBuf) -> &'a [u8] {
        &buf[..self.name_len]
    }

    /// The owner as the struct's `sym_owner` holds it, zeroes after the NUL: for a new answer
    /// only, whose bytes past the NUL [`Answer::set_owner`] has not written.
    pub(crate) fn new_answer_owner(&self) -> [u8; OWNER_LEN] {
        debug_assert!(self.owner[self.owner_len..].iter().all(|&b| b == 0));
        self.owner
    }

    /// The owner, NUL included.
    pub(crate) fn owner(&self) -> &[u8] {
        &self.owner[..self.owner_len]
    }

    /// Sets the owner; the bytes past its NUL are left as they were, zeroes in a new answer.
    fn set_owner(&mut self, who: &[u8]) {
        let n = who.len().min(OWNER_LEN - 1);
        self.owner[..n].copy_from_slice(&who[..n]);
        self.owner[n] = 0;
        self.owner_len = n + 1;
    }

    /// Forgets the previous answer; the name and owner bytes past their lengths are never read.
    pub(crate) fn clear(&mut self) {
        self.name_len = 0;
        self.owner[0] = 0;
        self.owner_len = 1;
        self.start = 0;
        self.size = 0;
        self.kind = bindings::kallsyms_sym_kind_KALLSYMS_SYM_NONE;
        self.prog_id = 0;
        self.subprog = 0;
    }

    /// Fills `self` with the symbol that covers `addr`, as `%pS` finds it, and `name` with its
    /// name; `ENOENT` if none does or the query must not say (see [`Rules`]). `prog_id` is the
    /// program's id whoever asks: the caller hides it from those who may not see it. `cursor`
    /// makes the next lookup of a vmlinux address after this one cheaper (see [`Cursor`]); any
    /// [`Cursor`] that keeps its invariants gives the same answer.
    pub(crate) fn lookup(
        &mut self,
        addr: usize,
        rules: &Rules,
        cursor: &mut Cursor,
        name: &mut NameBuf,
    ) -> Result {
        self.clear();
        // vmlinux first, the commonest answer: BPF images are never in the kernel image.
        if self.lookup_vmlinux(addr, cursor, name)? {
            return Ok(());
        }
        let rcu = rcu::read_lock();
        // BPF images before modules: a freed module init text that an image reuses is the
        // image's, as in `kallsyms_lookup()`.
        if let Some(ksym) = bpf_ksym_at(addr, &rcu) {
            if !rules.bpf_shown {
                return Err(ENOENT);
            }
            self.describe_bpf(ksym, name);
            return Ok(());
        }
        self.lookup_module(addr, rules, name, &rcu)
    }

    /// Fills `self` and `name` with the vmlinux symbol that covers `addr`, if one does: whether
    /// one did.
    fn lookup_vmlinux(
        &mut self,
        addr: usize,
        cursor: &mut Cursor,
        name: &mut NameBuf,
    ) -> Result<bool> {
        let (mut size, mut offset) = (0, 0);
        // SAFETY: `name` holds `KSYM_NAME_LEN` bytes; the other pointers are valid; the cursor's
        // offset is where its symbol's name starts (type invariant), so the walk from it stays
        // inside the names.
        let len = unsafe {
            bindings::kallsyms_query_lookup_vmlinux(
                addr,
                &mut cursor.0,
                &mut size,
                &mut offset,
                name.as_mut_ptr(),
            )
        };
        if len <= 0 {
            return Ok(false);
        }
        // `kallsyms_expand_symbol()` stops at `KSYM_NAME_LEN - 1` bytes.
        let len = usize::try_from(len).ok().filter(|&n| n < NAME_LEN);
        self.name_len = len.ok_or(ENOENT)? + 1;
        self.start = addr - offset;
        self.size = size;
        self.kind = bindings::kallsyms_sym_kind_KALLSYMS_SYM_VMLINUX;
        Ok(true)
    }

    /// Fills `self` and `name` with the module symbol that covers `addr` (or ftrace's name of a
    /// module's freed init function), under `_rcu`; `ENOENT` if none does or the query must not
    /// say.
    fn lookup_module(
        &mut self,
        addr: usize,
        rules: &Rules,
        name: &mut NameBuf,
        _rcu: &rcu::Guard,
    ) -> Result {
        let (mut size, mut offset) = (0, 0);
        let mut modname: *mut c_char = core::ptr::null_mut();
        // SAFETY: `name` holds `KSYM_NAME_LEN` bytes; the other pointers are valid.
        let found = unsafe {
            bindings::kallsyms_lookup(
                addr,
                &mut size,
                &mut offset,
                &mut modname,
                name.as_mut_ptr(),
            )
        };
        // vmlinux was answered before: a symbol without a module is a BPF image registered since
        // that lookup. That moved the BPF count, so the caller's check looks up again.
        if found.is_null() || modname.is_null() {
            return Err(ENOENT);
        }
        self.name_len = name.iter().position(|&b| b == 0).ok_or(ENOENT)? + 1;
        self.start = addr - offset;
        self.size = size;
        // SAFETY: `kallsyms_lookup` set `modname` to the NUL-terminated name of a module (or of
        // ftrace's record of one) that stays allocated while `_rcu` is held.
        let owner = unsafe { CStr::from_char_ptr(modname) };
        self.set_owner(owner.to_bytes());
        self.kind = match module_at(addr, _rcu) {
            Some(ModuleState::Going) if rules.skip_going => return Err(ENOENT),
            Some(_) => bindings::kallsyms_sym_kind_KALLSYMS_SYM_MODULE,
            // Not module memory: a freed init function that ftrace still names, until its
            // module's unload releases the names, which it does while the module is going:
            // gone with the module's other symbols.
            None if rules.skip_going && module_named_going(owner, _rcu) => return Err(ENOENT),
            None => bindings::kallsyms_sym_kind_KALLSYMS_SYM_MODULE_INIT,
        };
        Ok(())
    }

    /// Fills `self` and `buf` from a registered BPF symbol.
    fn describe_bpf(&mut self, ksym: &Ksym, buf: &mut NameBuf) {
        self.name_len = ksym.copy_name(buf) + 1;
        self.start = ksym.start();
        self.size = ksym.end() - ksym.start();
        self.set_owner(b"bpf");
        let (Some(subprog), Some(prog_id)) = (ksym.subprog_index(), ksym.prog_id()) else {
            self.kind = BPF_IMAGE_PREFIXES
                .iter()
                .find(|(prefix, _)| self.name(buf).starts_with(prefix))
                .map_or(bindings::kallsyms_sym_kind_KALLSYMS_SYM_BPF_IMAGE, |p| p.1);
            return;
        };
        self.subprog = subprog;
        self.kind = if subprog == 0 {
            bindings::kallsyms_sym_kind_KALLSYMS_SYM_BPF_PROG
        } else {
            bindings::kallsyms_sym_kind_KALLSYMS_SYM_BPF_SUBPROG
        };
        self.prog_id = prog_id;
    }
}

/// The registered BPF symbol that covers `addr`, if any.
///
/// Ranges are end-inclusive (a return address may equal a symbol's end), so two images that
/// touch share an address: a FineIBT preamble ends where its program starts, and an image may
/// end where the next one in the same pack starts. At the first byte of an image, the image that
/// starts there is the answer, not the one that ends there.
fn bpf_ksym_at<'a>(addr: usize, rcu: &'a rcu::Guard) -> Option<&'a Ksym> {
    let ksym = Ksym::lookup(addr, rcu)?;
    if ksym.start() == addr || ksym.end() != addr {
        return Some(ksym);
    }
    let next = addr.checked_add(1).and_then(|next| Ksym::lookup(next, rcu));
    match next {
        Some(next) if next.start() == addr => Some(next),
        _ => Some(ksym),
    }
}

/// Where the last vmlinux name was found, for [`Answer::lookup`]: the next lookup of an address
/// after it searches forward from its symbol (in doubling steps, then bisecting) instead of
/// bisecting the whole table, and, in the same block of 256 symbols, walks the compressed names
/// from there instead of from the block's marker. A batch in address order thus reads each name
/// once, the walk a single query does (up to 255 names) shrinking to the names between two
/// entries.
///
/// # Invariants
///
/// `self.0.off` is where the name of symbol `self.0.pos` starts in `kallsyms_names`: all zeroes
/// (symbol 0, whose name starts at `kallsyms_markers[0] == 0`), or as a lookup left it.
pub(crate) struct Cursor(bindings::kallsyms_query_cursor);

impl Cursor {
    /// A cursor at symbol 0, which a lookup of any address may start from.
    pub(crate) fn new() -> Self {
        // INVARIANT: Symbol 0's name starts at offset 0.
        Self(bindings::kallsyms_query_cursor::default())
    }

    /// The cursor's symbol index and name offset.
    #[cfg(CONFIG_KALLSYMS_QUERY_KUNIT_TEST)]
    pub(crate) fn parts(&self) -> (usize, u32) {
        (self.0.pos, self.0.off)
    }

    /// A cursor that claims symbol `pos` has its name at `off`, for a test that the cursor is
    /// read: with the wrong offset, the names it walks to are the wrong ones.
    ///
    /// # Safety
    ///
    /// `off` is where the name of a symbol at or after `pos` starts, at least 256 symbols before
    /// the last one: walking up to 255 names from it (the most a lookup walks from a cursor)
    /// stays inside `kallsyms_names`.
    #[cfg(CONFIG_KALLSYMS_QUERY_KUNIT_TEST)]
    pub(crate) unsafe fn from_parts(pos: usize, off: u32) -> Self {
        // INVARIANT: Not kept, on purpose; the safety requirements keep the walk in bounds.
        Self(bindings::kallsyms_query_cursor { pos, off })
    }
}

/// What a lookup may answer, decided once per call.
pub(crate) struct Rules {
    /// Whether BPF symbols are shown (`bpf_jit_kallsyms` on, no JIT hardening), as read with
    /// the generation: what `/proc/kallsyms` hides the query hides too, since answering would give
    /// away where the JIT images are.
    pub(crate) bpf_shown: bool,
    /// Whether modules being unloaded are gone (version-2 callers, see `generation.rs`).
    pub(crate) skip_going: bool,
}

/// Whether an address is in a module that the query answers for.
enum ModuleState {
    Present,
    /// Being unloaded: gone for the query (see `generation.rs`).
    Going,
}

/// The state of the module whose memory holds `addr`, if any.
#[cfg(CONFIG_MODULES)]
fn module_at(addr: usize, _rcu: &rcu::Guard) -> Option<ModuleState> {
    // SAFETY: `_rcu` holds the RCU read lock, so the module is not freed while it is looked at.
    let m = unsafe { bindings::__module_address(addr) };
    if m.is_null() {
        return None;
    }
    // SAFETY: As above.
    Some(if unsafe { state_going(m) } {
        ModuleState::Going
    } else {
        ModuleState::Present
    })
}

/// Whether module `m` is going.
///
/// # Safety
///
/// `m` is a module that stays allocated for the duration of the call.
#[cfg(CONFIG_MODULES)]
unsafe fn state_going(m: *mut bindings::module) -> bool {
    // The loader changes the state while readers under RCU look, with `WRITE_ONCE()` in
    // `module_set_state()`: this marked load reads the old state or the new one.
    // SAFETY: `m` is allocated, per the safety requirements; `state` is aligned and only
    // written with marked stores; it is only read here, once, through the atomic.
    let state = unsafe { Atomic::from_ptr(&raw mut (*m).state) }.load(Relaxed);
    state == bindings::module_state_MODULE_STATE_GOING
}

/// Whether the module named `name` is going or gone (not in the module list, or being freed).
#[cfg(CONFIG_MODULES)]
fn module_named_going(name: &CStr, _rcu: &rcu::Guard) -> bool {
    // SAFETY: `name` is NUL-terminated, and `_rcu` holds the RCU read lock that the list walk
    // needs.
    let m = unsafe { bindings::find_module(name.as_char_ptr()) };
    // SAFETY: A module found under the RCU read lock is not freed before it is released.
    m.is_null() || unsafe { state_going(m) }
}

#[cfg(not(CONFIG_MODULES))]
fn module_at(_addr: usize, _rcu: &rcu::Guard) -> Option<ModuleState> {
    None
}

/// Without modules, ftrace names no freed module init text.
#[cfg(not(CONFIG_MODULES))]
fn module_named_going(_name: &CStr, _rcu: &rcu::Guard) -> bool {
    true
}

/// Whether a module symbol found at `addr` by a walk over module symbols belongs to a module
/// being unloaded.
pub(crate) fn module_going_at(addr: usize, rcu: &rcu::Guard) -> bool {
    matches!(module_at(addr, rcu), Some(ModuleState::Going))
}
