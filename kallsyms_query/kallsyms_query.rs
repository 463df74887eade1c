// SPDX-License-Identifier: GPL-2.0

//! `KALLSYMS_QUERY`: point queries on `/proc/kallsyms`.
//!
//! C headers: [`include/uapi/linux/kallsyms_query.h`](srctree/include/uapi/linux/kallsyms_query.h),
//! [`include/linux/kallsyms_query.h`](srctree/include/linux/kallsyms_query.h)
//!
//! `kernel/kallsyms.c` owns the `proc_ops` seam and calls [`kallsyms_query`] with the user's
//! `struct kallsyms_query`. The uapi header's kernel-doc is the interface's contract; every error
//! is one of the errnos it lists.
//!
//! - [`answer`] finds the symbol that covers an address, for the single and the batched query.
//! - [`batch`] answers `KALLSYMS_QUERY_BY_ADDR_BATCH`.
//! - [`generation`] keeps the number that tells a cache when to refresh.
//! - [`pass`] makes a call's lookups hold for one generation in a bounded number of attempts.
//!
//! The struct's addresses and sizes are `__u64` on every architecture. Each one becomes a kernel
//! `usize` through a checked conversion below (`struct_size`, `kernel_addr`, `user_addr`,
//! `buf_len`), never by truncation: on a 32-bit kernel a truncated address would name the wrong
//! symbol or write to the wrong user page. Clippy enforces it: an `as` cast that may truncate on
//! some architecture does not build.
#![deny(clippy::cast_possible_truncation)]

use kernel::{
    bindings,
    error::to_result,
    num::casts::{
        self,
        FromSafeCast, //
    },
    page::PAGE_SIZE,
    prelude::*,
    transmute::{
        AsBytes,
        FromBytes, //
    },
    uaccess::{
        UserPtr,
        UserSlice, //
    }, //
};

mod answer;
mod batch;
mod debugfs;
mod generation;
mod pass;

#[cfg(CONFIG_KALLSYMS_QUERY_KUNIT_TEST)]
mod tests;

use answer::Answer;
pub use debugfs::kallsyms_query_init;
use pass::Window;

type Query = bindings::kallsyms_query;

/// The user's `struct kallsyms_query`, as bytes to copy in and out.
#[repr(transparent)]
struct UserQuery(Query);

// SAFETY: `__u64`s and a `char` array: any bytes are a valid value.
unsafe impl FromBytes for UserQuery {}

// SAFETY: No padding (the size is the sum of the fields', `SIZE_VER2`, checked below) and no
// interior mutability: every byte is initialised.
unsafe impl AsBytes for UserQuery {}

const SIZE_VER0: usize = casts::u32_as_usize(bindings::KALLSYMS_QUERY_SIZE_VER0);
const SIZE_VER1: usize = casts::u32_as_usize(bindings::KALLSYMS_QUERY_SIZE_VER1);
const SIZE_VER2: usize = casts::u32_as_usize(bindings::KALLSYMS_QUERY_SIZE_VER2);
const NAME_LEN: usize = casts::u32_as_usize(bindings::KSYM_NAME_LEN);
/// `NAME_LEN` as the count of `strncpy_from_user()`.
const NAME_COUNT: c_long = bindings::KSYM_NAME_LEN as c_long;

static_assert!(size_of::<Query>() == SIZE_VER2);
// The uapi promises that many bytes hold any name.
static_assert!(NAME_LEN == casts::u32_as_usize(bindings::KALLSYMS_QUERY_NAME_LEN));

/// The length of the array that `field` selects in a `T`, known without a `T` at hand.
const fn array_len<T, U, const N: usize>(_field: fn(&T) -> &[U; N]) -> usize {
    N
}

/// The length of `sym_owner`, and the most bytes an owner takes in a batch's name buffer.
const OWNER_LEN: usize = array_len(|q: &Query| &q.sym_owner);

/// `MODULE_NAME_LEN` ([`include/linux/module.h`](srctree/include/linux/module.h)), the size of
/// `struct module`'s `name`. The macro is `64 - sizeof(unsigned long)`, which bindgen does not
/// evaluate, so it is read off the array it sizes.
const MODULE_NAME_LEN: usize = array_len(|m: &bindings::module| &m.name);

// Every module name, NUL included, fits in `sym_owner`.
static_assert!(MODULE_NAME_LEN <= OWNER_LEN);

/// An unsigned integer type that a `__u64` of the user's struct is converted to: `usize` in the
/// kernel; the tests also use `u32` and `u64` to show what 32-bit and 64-bit kernels do.
trait Native: TryFrom<u64> {
    /// The largest value.
    const MAX: Self;
}

macro_rules! impl_native {
    ($($t:ty),*) => {
        $(impl Native for $t {
            const MAX: Self = <$t>::MAX;
        })*
    };
}

impl_native!(u32, u64, usize);

/// The `size` field: the caller's struct size, at most `max` (`PAGE_SIZE`).
///
/// `E2BIG` above `max`, also for a size that `T` cannot hold (which a truncation could have made
/// look like a valid size).
fn struct_size<T: TryFrom<u64> + PartialOrd>(size: u64, max: T) -> Result<T> {
    match T::try_from(size) {
        Ok(size) if size <= max => Ok(size),
        _ => Err(E2BIG),
    }
}

/// `sym_addr` of `BY_ADDR` as a kernel address.
///
/// `ENOENT` if `T` (`unsigned long`) cannot hold it: no symbol can be at such an address.
fn kernel_addr<T: TryFrom<u64>>(addr: u64) -> Result<T> {
    T::try_from(addr).map_err(|_| ENOENT)
}

/// `sym_name_addr` as a user address.
///
/// `EFAULT` if `T` (`unsigned long`) cannot hold it, as for any address the caller cannot have
/// mapped.
fn user_addr<T: TryFrom<u64>>(addr: u64) -> Result<T> {
    T::try_from(addr).map_err(|_| EFAULT)
}

/// `sym_name_size` of `BY_ADDR` as a buffer length.
///
/// Saturates: the size only has to reach the name's length, and every size `T` cannot hold does,
/// so it must not fail with `ENAMETOOLONG`.
fn buf_len<T: Native>(size: u64) -> T {
    T::try_from(size).unwrap_or(T::MAX)
}

/// Answers one `KALLSYMS_QUERY` ioctl.
///
/// `show_value` says whether the opener of `/proc/kallsyms` may see addresses; without it every
/// query fails with `EPERM`, so that no answer leaks the kernel's layout.
///
/// # Safety
///
/// `uarg` is the ioctl's user pointer (it may be anything; it is only accessed through the user
/// copy functions).
#[export]
pub unsafe extern "C" fn kallsyms_query(show_value: bool, uarg: *mut c_void) -> c_long {
    match query(show_value, uarg) {
        Ok(()) => 0,
        Err(e) => e.to_errno() as c_long,
    }
}

/// Which fields of the struct the caller knows, from its size.
#[derive(Clone, Copy, PartialEq)]
enum Version {
    V0,
    V1,
    V2,
}

impl Version {
    /// A size between two versions is the older version with bytes we do not know.
    fn of(size: usize) -> Self {
        if size >= SIZE_VER2 {
            Self::V2
        } else if size >= SIZE_VER1 {
            Self::V1
        } else {
            Self::V0
        }
    }

    /// The bytes of the struct that this version's caller gets back.
    fn len(self) -> usize {
        match self {
            Self::V0 => SIZE_VER0,
            Self::V1 => SIZE_VER1,
            Self::V2 => SIZE_VER2,
        }
    }
}

/// The query mode, as `query_flags` selects it.
#[derive(Clone, Copy)]
enum Mode {
    BySymbol,
    ByAddr,
    Batch,
    Generation,
}

fn query(show_value: bool, uarg: *mut c_void) -> Result {
    if !show_value {
        return Err(EPERM);
    }
    let uarg = UserPtr::from_ptr(uarg);
    let size = UserSlice::new(uarg, size_of::<u64>())
        .reader()
        .read::<u64>()?;
    let size = struct_size(size, PAGE_SIZE)?;
    if size < SIZE_VER0 {
        return Err(EINVAL);
    }
    // Bytes of a larger user struct beyond ours must be zero (`E2BIG` otherwise); a smaller one
    // leaves the newer fields zero.
    let UserQuery(input) = UserSlice::new(uarg, size).reader().read_struct()?;
    let ver = Version::of(size);
    // So must the bytes of a size between two versions past the older one's fields: they are
    // the newer version's, which this caller does not have.
    if UserQuery(input).as_bytes()[ver.len()..size.min(SIZE_VER2)]
        .iter()
        .any(|&b| b != 0)
    {
        return Err(E2BIG);
    }
    // The new version's inputs must be zero where they are not used: a mode that reads them
    // later cannot be mistaken for one that ignored them.
    let batch_inputs =
        input.batch_addr != 0 || input.batch_count != 0 || input.batch_entry_size != 0;
    let mode = match u32::try_from(input.query_flags) {
        Ok(bindings::kallsyms_query_flags_KALLSYMS_QUERY_BY_SYMBOL) if !batch_inputs => {
            Mode::BySymbol
        }
        Ok(bindings::kallsyms_query_flags_KALLSYMS_QUERY_BY_ADDR) if !batch_inputs => Mode::ByAddr,
        Ok(bindings::kallsyms_query_flags_KALLSYMS_QUERY_BY_ADDR_BATCH) if ver == Version::V2 => {
            Mode::Batch
        }
        Ok(bindings::kallsyms_query_flags_KALLSYMS_QUERY_GENERATION)
            if ver == Version::V2
                && !batch_inputs
                && input.sym_name_addr == 0
                && input.sym_addr == 0
                && input.sym_name_size == 0 =>
        {
            Mode::Generation
        }
        _ => return Err(EINVAL),
    };
    let mut ids = IdRule::new(ver);
    // BY_ADDR's name, copied to the user once the lookup is known to hold.
    let mut name = [0; NAME_LEN];
    let mut window = Window::new(ver == Version::V2, ver == Version::V2);
    // Every output field of the caller's version is written: the mode's answer, else 0.
    let mut q = Query {
        sym_start: 0,
        sym_size: 0,
        sym_owner: [0; OWNER_LEN],
        generation: 0,
        sym_prog_id: 0,
        sym_kind: 0,
        sym_subprog: 0,
        ..input
    };
    let name_len = match mode {
        Mode::BySymbol => {
            by_symbol(&mut q, &mut window)?;
            0
        }
        Mode::ByAddr => loop {
            let mut out = q;
            let vmlinux = bindings::kallsyms_sym_kind_KALLSYMS_SYM_VMLINUX;
            if let Some(found) = window.run(|rules| {
                let found = by_addr(&mut out, rules, &mut name);
                let may_change = found.is_err() || out.sym_kind != vmlinux;
                (found, may_change)
            }) {
                let len = found?;
                window.done();
                // With no lock held, and only if the answer has an id.
                out.sym_prog_id =
                    u64::from(ids.filter(u32::try_from(out.sym_prog_id).unwrap_or(0)));
                q = out;
                q.generation = window.generation();
                break len;
            }
            window.retry()?;
        },
        Mode::Batch => loop {
            if let Some(()) = batch::by_addr_batch(
                &mut q,
                uarg.as_const_ptr().addr(),
                size,
                &mut ids,
                &mut window,
            )? {
                window.done();
                q.generation = window.generation();
                break 0;
            }
            window.retry()?;
        },
        Mode::Generation => {
            q.generation = window.snapshot_now()?.value();
            0
        }
    };
    if name_len > 0 {
        let dst = UserPtr::from_addr(user_addr(q.sym_name_addr)?);
        UserSlice::new(dst, name_len)
            .writer()
            .write_slice(&name[..name_len])?;
    }
    // Write back the fields of the caller's version, nothing past them.
    let len = ver.len();
    let q = UserQuery(q);
    UserSlice::new(uarg, len)
        .writer()
        .write_slice(&q.as_bytes()[..len])
}

/// Whether the caller may see BPF program ids, asked once per call and only when an answer has
/// one (the check may go through the LSMs).
pub(crate) struct IdRule {
    /// `None` until asked; version 0 and 1 callers have no field for ids.
    allowed: Option<bool>,
}

impl IdRule {
    fn new(ver: Version) -> Self {
        Self {
            allowed: (ver != Version::V2).then_some(false),
        }
    }

    /// `id`, or 0 if the caller may not see it.
    pub(crate) fn filter(&mut self, id: u32) -> u32 {
        if id == 0 {
            return 0;
        }
        if *self.allowed.get_or_insert_with(may_see_ids) {
            id
        } else {
            0
        }
    }
}

/// Whether the caller may see BPF program ids: the rule of `BPF_PROG_GET_FD_BY_ID` and
/// `BPF_PROG_GET_NEXT_ID`, `capable(CAP_SYS_ADMIN)`: the capability in the initial user
/// namespace, in the calling task's effective credentials. Checked without the audit record a
/// denial would leave for every query: nothing is granted, an id is only shown. A success marks
/// the task as having used a privilege (`PF_SUPERPRIV`), as `capable()` does.
fn may_see_ids() -> bool {
    // SAFETY: `init_user_ns` is the initial user namespace, which lives forever.
    unsafe {
        bindings::ns_capable_noaudit(
            &raw mut bindings::init_user_ns,
            bindings::CAP_SYS_ADMIN as c_int,
        )
    }
}

/// `KALLSYMS_QUERY_BY_SYMBOL`: the address of the symbol named at `sym_name_addr`, and the
/// generation it holds for.
fn by_symbol(q: &mut Query, window: &mut Window) -> Result {
    if q.sym_addr != 0 || q.sym_name_size != 0 {
        return Err(EINVAL);
    }
    let src = UserPtr::from_addr(user_addr(q.sym_name_addr)?);
    // `UserSliceReader::strcpy_into_buf()` cannot tell a name of `NAME_LEN` characters (too
    // long) from one of `NAME_LEN - 1` without reading one byte more, which may fault at the end
    // of a mapping where a read of `NAME_LEN` bytes did not: this one copy calls C directly,
    // with `NAME_LEN` as its bound.
    let mut buf = [0u8; NAME_LEN];
    // SAFETY: `buf` is valid for writes of `NAME_LEN` bytes; the source is a user pointer, which
    // the callee checks.
    let len = unsafe {
        bindings::strncpy_from_user(
            buf.as_mut_ptr().cast::<c_char>(),
            src.as_const_ptr().cast::<c_char>(),
            NAME_COUNT,
        )
    };
    // A negative result is an errno.
    let len =
        usize::try_from(len).map_err(|_| c_int::try_from(len).map_or(EFAULT, Error::from_errno))?;
    match len {
        0 => return Err(EINVAL),
        NAME_LEN => return Err(ENAMETOOLONG),
        _ => {}
    }
    // `strncpy_from_user` stopped at the first NUL, at `len`.
    let name = CStr::from_bytes_with_nul(&buf[..=len]).map_err(|_| EINVAL)?;
    let skip_going = window.skip_going();
    // vmlinux first; its answers, errors included, never change.
    let (addr, generation) = pass::by_symbol(window, || match vmlinux_address(name) {
        Err(e) if e == ENOENT => (module_address(name, skip_going), true),
        found => (found, false),
    })?;
    q.sym_addr = u64::from_safe_cast(addr?);
    q.generation = generation;
    Ok(())
}

/// The one address of `name` in vmlinux; aliases at one address are fine.
fn vmlinux_address(name: &CStr) -> Result<usize> {
    let (mut start, mut end) = (0, 0);
    // SAFETY: `name` is NUL-terminated; `start` and `end` are valid.
    if unsafe { bindings::kallsyms_query_find_names(name.as_char_ptr(), &mut start, &mut end) } != 0
    {
        return Err(ENOENT);
    }
    // SAFETY: `start..=end` are indices just returned by the lookup.
    let addr = unsafe { bindings::kallsyms_query_name_address(start) };
    for i in start + 1..=end {
        // SAFETY: As above.
        if unsafe { bindings::kallsyms_query_name_address(i) } != addr {
            return Err(EADDRNOTAVAIL);
        }
    }
    Ok(addr)
}

/// What a walk over module symbols found so far.
struct ModuleFind<'a> {
    name: &'a [u8],
    addr: Option<usize>,
    /// Skip the symbols of modules being unloaded (version-2 callers, see `generation.rs`).
    skip_going: bool,
}

/// Called for each module symbol, under RCU; stops the walk with `EADDRNOTAVAIL` on a second
/// address.
///
/// # Safety
///
/// `data` is a `ModuleFind`; `name` is a NUL-terminated string; the RCU read lock is held.
unsafe extern "C" fn module_symbol(data: *mut c_void, name: *const c_char, addr: c_ulong) -> c_int {
    // SAFETY: Per the safety requirements.
    let (find, name) = unsafe {
        (
            &mut *data.cast::<ModuleFind<'_>>(),
            CStr::from_char_ptr(name),
        )
    };
    if name.to_bytes_with_nul() != find.name || (find.skip_going && answer::module_going_at(addr)) {
        return 0;
    }
    match find.addr {
        Some(a) if a != addr => EADDRNOTAVAIL.to_errno(),
        _ => {
            find.addr = Some(addr);
            0
        }
    }
}

/// The one address of `name` among the loaded modules.
fn module_address(name: &CStr, skip_going: bool) -> Result<usize> {
    let mut find = ModuleFind {
        name: name.to_bytes_with_nul(),
        addr: None,
        skip_going,
    };
    // Under RCU, not `module_mutex`: a loop of these calls must not hold off module load and
    // unload. The caller checks the module count around the walk.
    // SAFETY: `module_symbol` matches the callback type, does not sleep, and `find` outlives the
    // walk.
    let err = unsafe {
        bindings::module_kallsyms_on_each_symbol_rcu(Some(module_symbol), (&raw mut find).cast())
    };
    // Not found first: without modules the walk itself fails with `EOPNOTSUPP`.
    let addr = find.addr.ok_or(ENOENT)?;
    to_result(err)?;
    Ok(addr)
}

/// `KALLSYMS_QUERY_BY_ADDR`: the symbol that covers `sym_addr`, as `%pS` finds it. Its name goes
/// to `name`, for the caller to copy to the user once it knows the answer holds: the length,
/// NUL included. `sym_prog_id` is the program's id whoever asks: the caller filters it.
fn by_addr(q: &mut Query, rules: &answer::Rules, name: &mut answer::NameBuf) -> Result<usize> {
    if q.sym_name_size == 0 {
        return Err(EINVAL);
    }
    let addr = kernel_addr(q.sym_addr)?;
    let mut a = Answer::new();
    a.lookup(addr, rules, &mut answer::Cursor::new(), name)?;
    if buf_len::<usize>(q.sym_name_size) < a.name_len {
        return Err(ENAMETOOLONG);
    }
    // Checked before the answer is used, as the copy after the lookups would.
    user_addr::<usize>(q.sym_name_addr)?;
    q.sym_name_size = u64::from_safe_cast(a.name_len);
    q.sym_start = u64::from_safe_cast(a.start);
    q.sym_size = u64::from_safe_cast(a.size);
    // All of it, zeroes after the NUL: the caller's struct may hold a longer name from an
    // earlier answer.
    q.sym_owner = a.new_answer_owner();
    q.sym_kind = a.kind;
    // Whoever asks: the caller hides it from those who may not see it.
    q.sym_prog_id = u64::from(a.prog_id);
    q.sym_subprog = a.subprog;
    Ok(a.name_len)
}
