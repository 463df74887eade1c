// SPDX-License-Identifier: GPL-2.0

//! `KALLSYMS_QUERY`: point queries on `/proc/kallsyms`.
//!
//! C headers: [`include/uapi/linux/fs.h`](srctree/include/uapi/linux/fs.h),
//! [`include/linux/kallsyms_query.h`](srctree/include/linux/kallsyms_query.h)
//!
//! `kernel/kallsyms.c` owns the `proc_ops` seam and calls [`kallsyms_query`] with the user's
//! `struct kallsyms_query`. Every error is one of the errnos the uapi header documents.
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
    sync::rcu,
    transmute::{
        AsBytes,
        FromBytes, //
    },
    uaccess::{
        UserPtr,
        UserSlice, //
    }, //
};

#[cfg(CONFIG_KALLSYMS_QUERY_KUNIT_TEST)]
mod tests;

type Query = bindings::kallsyms_query;

/// The user's `struct kallsyms_query`, as bytes to copy in and out.
#[repr(transparent)]
struct UserQuery(Query);

// SAFETY: `__u64`s and a `char` array: any bytes are a valid value.
unsafe impl FromBytes for UserQuery {}

// SAFETY: No padding (the size is the sum of the fields', `SIZE_VER1`, checked below) and no
// interior mutability: every byte is initialised.
unsafe impl AsBytes for UserQuery {}

const SIZE_VER0: usize = casts::u32_as_usize(bindings::KALLSYMS_QUERY_SIZE_VER0);
const SIZE_VER1: usize = casts::u32_as_usize(bindings::KALLSYMS_QUERY_SIZE_VER1);
const NAME_LEN: usize = casts::u32_as_usize(bindings::KSYM_NAME_LEN);
/// `NAME_LEN` as the count of `strncpy_from_user()`.
const NAME_COUNT: c_long = bindings::KSYM_NAME_LEN as c_long;

static_assert!(size_of::<Query>() == SIZE_VER1);

/// The length of the array that `field` selects in a `T`, known without a `T` at hand.
const fn array_len<T, U, const N: usize>(_field: fn(&T) -> &[U; N]) -> usize {
    N
}

/// The length of `sym_owner`.
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
    let UserQuery(mut q) = UserSlice::new(uarg, size).reader().read_struct()?;

    // A size between two versions is the older version with bytes we do not know.
    let ver1 = size >= SIZE_VER1;
    match u32::try_from(q.query_flags) {
        Ok(bindings::kallsyms_query_flags_KALLSYMS_QUERY_BY_SYMBOL) => by_symbol(&mut q)?,
        Ok(bindings::kallsyms_query_flags_KALLSYMS_QUERY_BY_ADDR) => by_addr(&mut q, ver1)?,
        _ => return Err(EINVAL),
    }
    // Write back the fields of the caller's version, nothing past them.
    let len = if ver1 { SIZE_VER1 } else { SIZE_VER0 };
    let q = UserQuery(q);
    UserSlice::new(uarg, len)
        .writer()
        .write_slice(&q.as_bytes()[..len])
}

/// `KALLSYMS_QUERY_BY_SYMBOL`: the address of the symbol named at `sym_name_addr`.
fn by_symbol(q: &mut Query) -> Result {
    if q.sym_addr != 0 || q.sym_name_size != 0 {
        return Err(EINVAL);
    }
    // The version-1 fields describe BY_ADDR results only.
    q.sym_start = 0;
    q.sym_size = 0;
    q.sym_owner = [0; OWNER_LEN];
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
    let addr = vmlinux_address(name).or_else(|e| {
        if e == ENOENT {
            module_address(name)
        } else {
            Err(e)
        }
    })?;
    q.sym_addr = u64::from_safe_cast(addr);
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
}

/// Called for each module symbol; stops the walk with `EADDRNOTAVAIL` on a second address.
///
/// # Safety
///
/// `data` is a `ModuleFind`; `name` is a NUL-terminated string.
unsafe extern "C" fn module_symbol(data: *mut c_void, name: *const c_char, addr: c_ulong) -> c_int {
    // SAFETY: Per the safety requirements.
    let (find, name) = unsafe {
        (
            &mut *data.cast::<ModuleFind<'_>>(),
            CStr::from_char_ptr(name),
        )
    };
    if name.to_bytes_with_nul() != find.name {
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
fn module_address(name: &CStr) -> Result<usize> {
    let mut find = ModuleFind {
        name: name.to_bytes_with_nul(),
        addr: None,
    };
    // SAFETY: `module_symbol` matches the callback type and `find` outlives the walk.
    let err = unsafe {
        bindings::module_kallsyms_on_each_symbol(
            core::ptr::null(),
            Some(module_symbol),
            (&raw mut find).cast(),
        )
    };
    // Not found first: without modules the walk itself fails with `EOPNOTSUPP`.
    let addr = find.addr.ok_or(ENOENT)?;
    to_result(err)?;
    Ok(addr)
}

/// `KALLSYMS_QUERY_BY_ADDR`: the symbol that covers `sym_addr`, as `%pS` finds it.
fn by_addr(q: &mut Query, ver1: bool) -> Result {
    if q.sym_name_size == 0 {
        return Err(EINVAL);
    }
    let addr = kernel_addr(q.sym_addr)?;
    let mut name = [0u8; NAME_LEN];
    let (mut size, mut offset) = (0, 0);
    let mut modname: *mut c_char = core::ptr::null_mut();
    let mut owner = [0u8; OWNER_LEN];
    let (found, bpf) = {
        // The module that `modname` points into may go away once this RCU read section ends:
        // its name is copied out before then.
        let _rcu = rcu::read_lock();
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
        // Not in a module and not in vmlinux: a BPF image. Decided from the address alone,
        // since a second registry lookup could disagree with the first while programs come
        // and go.
        // SAFETY: Always safe to call.
        let bpf = modname.is_null() && unsafe { bindings::is_ksym_addr(addr) } == 0;
        let who: &[u8] = if !modname.is_null() {
            // SAFETY: `kallsyms_lookup` set `modname` to the NUL-terminated name of a module
            // that stays loaded while we are in this RCU read section.
            unsafe { CStr::from_char_ptr(modname) }.to_bytes()
        } else if bpf {
            b"bpf"
        } else {
            b""
        };
        let n = who.len().min(owner.len() - 1);
        owner[..n].copy_from_slice(&who[..n]);
        (found, bpf)
    };
    if found.is_null() {
        return Err(ENOENT);
    }
    // What `/proc/kallsyms` hides (`bpf_jit_kallsyms` off, or JIT hardening on), the query
    // hides too: answering would give away where the JIT images are.
    // SAFETY: Always safe to call.
    if bpf && !unsafe { bindings::bpf_jit_kallsyms_enabled() } {
        return Err(ENOENT);
    }
    let len = name.iter().position(|&b| b == 0).ok_or(ENOENT)? + 1;
    if buf_len::<usize>(q.sym_name_size) < len {
        return Err(ENAMETOOLONG);
    }
    let dst = UserPtr::from_addr(user_addr(q.sym_name_addr)?);
    UserSlice::new(dst, len)
        .writer()
        .write_slice(&name[..len])?;
    q.sym_name_size = u64::from_safe_cast(len);
    if ver1 {
        q.sym_start = u64::from_safe_cast(addr - offset);
        q.sym_size = u64::from_safe_cast(size);
        // All of it: the caller's struct may hold a longer name from an earlier answer.
        q.sym_owner = owner;
    }
    Ok(())
}
