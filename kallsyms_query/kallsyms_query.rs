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
//! - [`by_addr`] answers `KALLSYMS_QUERY_BY_ADDR`, [`batch`] `KALLSYMS_QUERY_BY_ADDR_BATCH`,
//!   [`by_symbol`] `KALLSYMS_QUERY_BY_SYMBOL`.
//! - [`prog_id`] says who may see a program's id.
//! - [`debugfs`] shows how the calls came to their answers, for tests.
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
mod by_addr;
mod by_symbol;
mod debugfs;
mod generation;
mod pass;
mod prog_id;

#[cfg(CONFIG_KALLSYMS_QUERY_KUNIT_TEST)]
mod tests;

pub use debugfs::kallsyms_query_init;
use pass::Window;
use prog_id::IdRule;

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

impl Mode {
    /// The mode of `input`, from a caller of version `ver`. The new version's inputs must be
    /// zero where they are not used: a mode that reads them later cannot be mistaken for one that
    /// ignored them.
    fn of(input: &Query, ver: Version) -> Result<Self> {
        let batch_inputs =
            input.batch_addr != 0 || input.batch_count != 0 || input.batch_entry_size != 0;
        let generation_only = !batch_inputs
            && input.sym_name_addr == 0
            && input.sym_addr == 0
            && input.sym_name_size == 0;
        match u32::try_from(input.query_flags) {
            Ok(bindings::kallsyms_query_flags_KALLSYMS_QUERY_BY_SYMBOL) if !batch_inputs => {
                Ok(Self::BySymbol)
            }
            Ok(bindings::kallsyms_query_flags_KALLSYMS_QUERY_BY_ADDR) if !batch_inputs => {
                Ok(Self::ByAddr)
            }
            Ok(bindings::kallsyms_query_flags_KALLSYMS_QUERY_BY_ADDR_BATCH)
                if ver == Version::V2 =>
            {
                Ok(Self::Batch)
            }
            Ok(bindings::kallsyms_query_flags_KALLSYMS_QUERY_GENERATION)
                if ver == Version::V2 && generation_only =>
            {
                Ok(Self::Generation)
            }
            _ => Err(EINVAL),
        }
    }
}

/// The user's struct at `uarg`, its size and the version that size makes it.
fn read_query(uarg: UserPtr) -> Result<(Query, usize, Version)> {
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
    Ok((input, size, ver))
}

fn query(show_value: bool, uarg: *mut c_void) -> Result {
    if !show_value {
        return Err(EPERM);
    }
    let uarg = UserPtr::from_ptr(uarg);
    let (input, size, ver) = read_query(uarg)?;
    let mode = Mode::of(&input, ver)?;
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
        Mode::BySymbol => by_symbol::by_symbol(&mut q, &mut window).map(|()| 0)?,
        Mode::ByAddr => by_addr::answer(&mut q, &mut ids, &mut window, &mut name)?,
        Mode::Batch => {
            batch::answer(
                &mut q,
                uarg.as_const_ptr().addr(),
                size,
                &mut ids,
                &mut window,
            )?;
            0
        }
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
