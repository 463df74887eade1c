// SPDX-License-Identifier: GPL-2.0
//! The uapi of `KALLSYMS_QUERY` (include/uapi/linux/kallsyms_query.h), as this tool speaks it:
//! version 2 of `struct kallsyms_query` and `struct kallsyms_query_addr`.

use std::ffi::{c_int, c_ulong};
use std::fs::File;
use std::io;
use std::os::fd::AsRawFd;

pub(crate) const QUERY_BY_SYMBOL: u64 = 0x01;
pub(crate) const QUERY_BY_ADDR: u64 = 0x02;
pub(crate) const QUERY_BY_ADDR_BATCH: u64 = 0x04;
pub(crate) const QUERY_GENERATION: u64 = 0x08;
pub(crate) const NAME_LEN: usize = 512;

/// `KALLSYMS_QUERY_SIZE_VER0`: the size of the first struct version, the seed's.
pub(crate) const SIZE_VER0: u64 = 40;
/// `KALLSYMS_QUERY_SIZE_VER2`: the size of [`RawQuery`].
pub(crate) const SIZE_VER2: u64 = 160;
/// `KALLSYMS_QUERY_BATCH_MAX`: entries per call.
pub(crate) const BATCH_MAX: usize = 4096;
/// `sizeof(sym_owner)`: room for any module name (`MODULE_NAME_LEN`, `64 - sizeof(unsigned
/// long)` in the kernel, is at most 60).
pub(crate) const OWNER_LEN: usize = 64;

/// `struct kallsyms_query`, version 2, each field marked with its direction as the header's
/// kernel-doc gives it: `in`, the caller's (a successful call writes it back as it was); `out`,
/// the kernel's answer (what the caller puts there is ignored); `in/out`, an input that some
/// modes replace with an answer (the field's kernel-doc says which).
#[repr(C)]
pub(crate) struct RawQuery {
    pub(crate) size: u64,                  /* in */
    pub(crate) query_flags: u64,           /* in */
    pub(crate) sym_name_addr: u64,         /* in */
    pub(crate) sym_addr: u64,              /* in/out */
    pub(crate) sym_name_size: u64,         /* in/out */
    pub(crate) sym_start: u64,             /* out */
    pub(crate) sym_size: u64,              /* out */
    pub(crate) sym_owner: [u8; OWNER_LEN], /* out */
    pub(crate) generation: u64,            /* out */
    pub(crate) sym_prog_id: u64,           /* out */
    pub(crate) sym_kind: u32,              /* out */
    pub(crate) sym_subprog: u32,           /* out */
    pub(crate) batch_addr: u64,            /* in */
    pub(crate) batch_count: u32,           /* in/out */
    pub(crate) batch_entry_size: u32,      /* in */
}

/// `struct kallsyms_query_addr`, version 0: one entry of a batch, its fields marked as
/// [`RawQuery`]'s are.
#[repr(C)]
#[derive(Default, Clone, Copy)]
pub(crate) struct RawEntry {
    pub(crate) addr: u64,      /* in */
    pub(crate) start: u64,     /* out */
    pub(crate) size: u64,      /* out */
    pub(crate) prog_id: u64,   /* out */
    pub(crate) name_off: u32,  /* out */
    pub(crate) owner_off: u32, /* out */
    pub(crate) kind: u32,      /* out */
    pub(crate) subprog: u32,   /* out */
}

const _: () = assert!(std::mem::size_of::<RawQuery>() as u64 == SIZE_VER2);
const _: () = assert!(std::mem::size_of::<RawEntry>() == 48);
// MODULE_NAME_LEN is 64 - sizeof(unsigned long): 56 on 64-bit kernels, 60 on 32-bit ones.
const _: () = assert!(OWNER_LEN >= 60);

impl RawQuery {
    pub(crate) fn new(flags: u64) -> Self {
        RawQuery {
            size: SIZE_VER2,
            query_flags: flags,
            sym_name_addr: 0,
            sym_addr: 0,
            sym_name_size: 0,
            sym_start: 0,
            sym_size: 0,
            sym_owner: [0; OWNER_LEN],
            generation: 0,
            sym_prog_id: 0,
            sym_kind: 0,
            sym_subprog: 0,
            batch_addr: 0,
            batch_count: 0,
            batch_entry_size: 0,
        }
    }
}

/// `_IOWR(PROCFS_IOCTL_MAGIC ('f'), 18, struct kallsyms_query)`, with the version-0 size (40):
/// the size inside the struct, not in the command, says which version the caller speaks.
/// `unsigned long`, as ioctl(2) takes it: 32 bits in 32-bit processes.
pub(crate) const KALLSYMS_QUERY: c_ulong =
    (3 << 30) | ((SIZE_VER0 as c_ulong) << 16) | ((b'f' as c_ulong) << 8) | 18;

extern "C" {
    fn ioctl(fd: c_int, request: c_ulong, ...) -> c_int;
}

/// One `KALLSYMS_QUERY` call, made again when a signal interrupted it: `EINTR` writes nothing
/// and means "call again" (the header's Errors), as std's own I/O retries it.
pub(crate) fn query(f: &File, q: &mut RawQuery) -> io::Result<()> {
    loop {
        // SAFETY: `q` is a valid `struct kallsyms_query` whose pointers outlive the call.
        if unsafe { ioctl(f.as_raw_fd(), KALLSYMS_QUERY, q as *mut RawQuery) } == 0 {
            return Ok(());
        }
        let err = io::Error::last_os_error();
        if err.kind() != io::ErrorKind::Interrupted {
            return Err(err);
        }
    }
}

/// The NUL-terminated string at the start of `b`.
pub(crate) fn cstr(b: &[u8]) -> String {
    String::from_utf8_lossy(&b[..b.iter().position(|&c| c == 0).unwrap_or(b.len())]).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::mem::offset_of;

    #[test]
    fn raw_query_is_the_version_2_layout() {
        assert_eq!(offset_of!(RawQuery, sym_name_size) + 8, SIZE_VER0 as usize);
        assert_eq!(offset_of!(RawQuery, sym_start), 40);
        assert_eq!(offset_of!(RawQuery, sym_size), 48);
        assert_eq!(offset_of!(RawQuery, sym_owner), 56);
        // KALLSYMS_QUERY_SIZE_VER1 ends where the generation starts.
        assert_eq!(offset_of!(RawQuery, generation), 120);
        assert_eq!(offset_of!(RawQuery, sym_kind), 136);
        assert_eq!(offset_of!(RawQuery, batch_addr), 144);
        assert_eq!(offset_of!(RawQuery, batch_entry_size), 156);
        assert_eq!(RawQuery::new(QUERY_BY_ADDR).size, 160);
    }

    #[test]
    fn raw_entry_is_the_version_0_layout() {
        assert_eq!(offset_of!(RawEntry, start), 8);
        assert_eq!(offset_of!(RawEntry, name_off), 32);
        assert_eq!(offset_of!(RawEntry, kind), 40);
        assert_eq!(offset_of!(RawEntry, subprog), 44);
    }

    #[test]
    fn ioctl_command_is_iowr_f_18_with_the_version_0_size() {
        assert_eq!(KALLSYMS_QUERY, 0xc028_6612);
    }

    #[test]
    fn owner_fills_the_field() {
        let mut owner = [b'm'; OWNER_LEN];
        owner[OWNER_LEN - 1] = 0;
        assert_eq!(cstr(&owner).len(), OWNER_LEN - 1);
        assert_eq!(cstr(b"bpf\0\0\0"), "bpf");
        assert_eq!(cstr(&[0; OWNER_LEN]), "");
    }
}
