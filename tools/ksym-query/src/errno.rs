// SPDX-License-Identifier: GPL-2.0
//! Errno numbers and their names, for messages that say `ENOENT` rather than "os error 2".
//!
//! The values are the kernel's generic ones (include/uapi/asm-generic/errno-base.h and
//! errno.h), which x86, arm, arm64, riscv, powerpc and s390 use; alpha, mips, parisc and sparc
//! number some of those above 34 differently.

/// Operation not permitted: `KALLSYMS_QUERY` when the opener may not see addresses.
pub const EPERM: i32 = 1;
/// No such file or directory: no such symbol, or none covers the address.
pub const ENOENT: i32 = 2;
/// Interrupted system call.
pub const EINTR: i32 = 4;
/// Input/output error.
pub const EIO: i32 = 5;
/// Argument list too long: unknown non-zero bytes in the argument (a newer caller).
pub const E2BIG: i32 = 7;
/// Out of memory.
pub const ENOMEM: i32 = 12;
/// Permission denied (opening the file).
pub const EACCES: i32 = 13;
/// Bad address.
pub const EFAULT: i32 = 14;
/// Invalid argument: among others, a mode the running kernel's version does not have.
pub const EINVAL: i32 = 22;
/// Inappropriate ioctl for device: a kernel without `KALLSYMS_QUERY`.
pub const ENOTTY: i32 = 25;
/// No space left on device.
pub const ENOSPC: i32 = 28;
/// Broken pipe: the reader of a pipe went away.
pub const EPIPE: i32 = 32;
/// File name too long: a symbol name longer than the kernel allows.
pub const ENAMETOOLONG: i32 = 36;
/// Cannot assign requested address: a name at more than one address.
pub const EADDRNOTAVAIL: i32 = 99;

/// (number, name), by number.
const NAMES: &[(i32, &str)] = &[
    (EPERM, "EPERM"),
    (ENOENT, "ENOENT"),
    (3, "ESRCH"),
    (EINTR, "EINTR"),
    (EIO, "EIO"),
    (6, "ENXIO"),
    (E2BIG, "E2BIG"),
    (8, "ENOEXEC"),
    (9, "EBADF"),
    (10, "ECHILD"),
    (11, "EAGAIN"),
    (ENOMEM, "ENOMEM"),
    (EACCES, "EACCES"),
    (EFAULT, "EFAULT"),
    (15, "ENOTBLK"),
    (16, "EBUSY"),
    (17, "EEXIST"),
    (18, "EXDEV"),
    (19, "ENODEV"),
    (20, "ENOTDIR"),
    (21, "EISDIR"),
    (EINVAL, "EINVAL"),
    (23, "ENFILE"),
    (24, "EMFILE"),
    (ENOTTY, "ENOTTY"),
    (26, "ETXTBSY"),
    (27, "EFBIG"),
    (ENOSPC, "ENOSPC"),
    (29, "ESPIPE"),
    (30, "EROFS"),
    (31, "EMLINK"),
    (EPIPE, "EPIPE"),
    (33, "EDOM"),
    (34, "ERANGE"),
    (35, "EDEADLK"),
    (ENAMETOOLONG, "ENAMETOOLONG"),
    (37, "ENOLCK"),
    (38, "ENOSYS"),
    (61, "ENODATA"),
    (75, "EOVERFLOW"),
    (95, "EOPNOTSUPP"),
    (EADDRNOTAVAIL, "EADDRNOTAVAIL"),
];

/// The name of errno `n` (`ENOENT` for 2), if this table has it.
pub fn name(n: i32) -> Option<&'static str> {
    NAMES
        .binary_search_by_key(&n, |&(v, _)| v)
        .ok()
        .map(|i| NAMES[i].1)
}

/// The name of errno `n`, or `errno <n>` for one this table does not have.
pub(crate) fn describe(n: i32) -> String {
    name(n).map_or_else(|| format!("errno {n}"), str::to_string)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_of_the_errnos_the_ioctl_returns() {
        assert_eq!(name(1), Some("EPERM"));
        assert_eq!(name(2), Some("ENOENT"));
        assert_eq!(name(7), Some("E2BIG"));
        assert_eq!(name(22), Some("EINVAL"));
        assert_eq!(name(25), Some("ENOTTY"));
        assert_eq!(name(36), Some("ENAMETOOLONG"));
        assert_eq!(name(99), Some("EADDRNOTAVAIL"));
        assert_eq!(name(0), None);
        assert_eq!(name(-1), None);
        assert_eq!(name(4095), None);
        assert_eq!(describe(4095), "errno 4095");
    }

    #[test]
    fn table_is_sorted_without_duplicates() {
        assert!(NAMES.windows(2).all(|w| w[0].0 < w[1].0));
        let mut names: Vec<_> = NAMES.iter().map(|n| n.1).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), NAMES.len());
    }

    #[test]
    fn agrees_with_the_standard_library() {
        use std::io::{Error, ErrorKind};
        assert_eq!(Error::from_raw_os_error(ENOENT).kind(), ErrorKind::NotFound);
        assert_eq!(
            Error::from_raw_os_error(EACCES).kind(),
            ErrorKind::PermissionDenied
        );
        assert_eq!(
            Error::from_raw_os_error(EADDRNOTAVAIL).kind(),
            ErrorKind::AddrNotAvailable
        );
        assert_eq!(
            Error::from_raw_os_error(E2BIG).kind(),
            ErrorKind::ArgumentListTooLong
        );
    }
}
