// SPDX-License-Identifier: GPL-2.0
//! Resolve kernel symbols through `/proc/kallsyms`.
//!
//! [`Kallsyms::open`] uses the `KALLSYMS_QUERY` ioctl when the kernel has it and falls back to
//! reading and parsing the text file (once, into a sorted table) when it does not.

use std::ffi::{c_int, c_ulong};
use std::fs::File;
use std::io::{self, BufRead, BufReader};
use std::os::fd::AsRawFd;

const KALLSYMS: &str = "/proc/kallsyms";
const QUERY_BY_SYMBOL: u64 = 0x01;
const QUERY_BY_ADDR: u64 = 0x02;
const NAME_LEN: usize = 512;

/// `KALLSYMS_QUERY_SIZE_VER0`: the size of the first struct version, the seed's.
const SIZE_VER0: u64 = 40;
/// `KALLSYMS_QUERY_SIZE_VER1`: the size of [`RawQuery`].
const SIZE_VER1: u64 = 120;
/// `sizeof(sym_owner)`: room for any module name (`MODULE_NAME_LEN`, `64 - sizeof(unsigned
/// long)` in the kernel, is at most 60).
const OWNER_LEN: usize = 64;

/// `struct kallsyms_query`, version 1 (include/uapi/linux/fs.h).
#[repr(C)]
struct RawQuery {
    size: u64,
    query_flags: u64,
    sym_name_addr: u64,
    sym_addr: u64,
    sym_name_size: u64,
    sym_start: u64,
    sym_size: u64,
    sym_owner: [u8; OWNER_LEN],
}

const _: () = assert!(std::mem::size_of::<RawQuery>() as u64 == SIZE_VER1);
// MODULE_NAME_LEN is 64 - sizeof(unsigned long): 56 on 64-bit kernels, 60 on 32-bit ones.
const _: () = assert!(OWNER_LEN >= 60);

/// `_IOWR(PROCFS_IOCTL_MAGIC ('f'), 18, struct kallsyms_query)`, with the version-0 size (40):
/// the size inside the struct, not in the command, says which version the caller speaks.
/// `unsigned long`, as ioctl(2) takes it: 32 bits in 32-bit processes.
const KALLSYMS_QUERY: c_ulong =
    (3 << 30) | ((SIZE_VER0 as c_ulong) << 16) | ((b'f' as c_ulong) << 8) | 18;

extern "C" {
    fn ioctl(fd: c_int, request: c_ulong, ...) -> c_int;
}

/// A symbol that covers an address.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Symbol {
    /// Its name.
    pub name: String,
    /// Its first address.
    pub start: u64,
    /// Its size in bytes, when known (0 from the text fallback for the last symbol).
    pub size: u64,
    /// Module name, `bpf`, or empty for vmlinux.
    pub owner: String,
}

/// Why a query failed, in words a user can act on.
#[derive(Debug)]
pub enum Error {
    /// No symbol matches.
    NotFound,
    /// The name is at more than one address.
    Ambiguous,
    /// The name is longer than the kernel's 511 bytes.
    NameTooLong,
    /// The kernel hides addresses from this user.
    NotPermitted,
    /// Anything else, from the system.
    Io(io::Error),
}

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Error::NotFound => write!(f, "no such symbol"),
            Error::Ambiguous => write!(f, "the name is at more than one address"),
            Error::NameTooLong => write!(f, "name too long (the kernel allows 511 bytes)"),
            Error::NotPermitted => write!(
                f,
                "kernel addresses are hidden from you: run as root, or lower kptr_restrict"
            ),
            Error::Io(e) => write!(f, "{e}"),
        }
    }
}

impl From<io::Error> for Error {
    fn from(e: io::Error) -> Self {
        match e.raw_os_error() {
            Some(2) => Error::NotFound,     // ENOENT
            Some(99) => Error::Ambiguous,   // EADDRNOTAVAIL
            Some(36) => Error::NameTooLong, // ENAMETOOLONG
            Some(1) => Error::NotPermitted, // EPERM
            _ => Error::Io(e),
        }
    }
}

/// A sorted copy of the text file, for kernels without the ioctl.
struct Table {
    /// (address, name, owner), by address.
    syms: Vec<(u64, String, String)>,
}

enum Backend {
    Ioctl(File),
    Text(Table),
}

/// An open `/proc/kallsyms`.
pub struct Kallsyms(Backend);

impl Kallsyms {
    /// Opens `/proc/kallsyms`, with the ioctl if the kernel has it.
    pub fn open() -> Result<Self, Error> {
        let file = File::open(KALLSYMS)?;
        let k = Kallsyms(Backend::Ioctl(file));
        // A probe: ENOTTY means no KALLSYMS_QUERY in this kernel.
        match k.by_name("_text") {
            Err(Error::Io(e)) if e.raw_os_error() == Some(25) => Self::open_text(),
            _ => Ok(k),
        }
    }

    /// Reads and parses the text file, as symbolizers without the ioctl do.
    pub fn open_text() -> Result<Self, Error> {
        let mut syms = Vec::new();
        for line in BufReader::new(File::open(KALLSYMS)?).lines() {
            let line = line?;
            let mut it = line.split_ascii_whitespace();
            let (Some(addr), Some(_ty), Some(name)) = (it.next(), it.next(), it.next()) else {
                continue;
            };
            let owner = it
                .next()
                .unwrap_or("")
                .trim_matches(|c| c == '[' || c == ']');
            if let Ok(addr) = u64::from_str_radix(addr, 16) {
                syms.push((addr, name.to_string(), owner.to_string()));
            }
        }
        if syms.iter().all(|s| s.0 == 0) {
            return Err(Error::NotPermitted);
        }
        syms.sort_by_key(|s| s.0);
        Ok(Kallsyms(Backend::Text(Table { syms })))
    }

    /// Whether queries go through the ioctl.
    pub fn uses_ioctl(&self) -> bool {
        matches!(self.0, Backend::Ioctl(_))
    }

    /// The address of the symbol called `name` (vmlinux first, then modules).
    pub fn by_name(&self, name: &str) -> Result<u64, Error> {
        match &self.0 {
            Backend::Ioctl(f) => {
                let cname = std::ffi::CString::new(name).map_err(|_| Error::NotFound)?;
                let mut q = raw(QUERY_BY_SYMBOL);
                q.sym_name_addr = cname.as_ptr() as u64;
                query(f, &mut q)?;
                Ok(q.sym_addr)
            }
            Backend::Text(t) => {
                let mut addrs = t
                    .syms
                    .iter()
                    .filter(|s| s.1 == name && s.2 != "bpf")
                    .map(|s| s.0);
                let first = addrs.next().ok_or(Error::NotFound)?;
                if addrs.any(|a| a != first) {
                    return Err(Error::Ambiguous);
                }
                Ok(first)
            }
        }
    }

    /// The symbol that covers `addr`.
    pub fn by_addr(&self, addr: u64) -> Result<Symbol, Error> {
        match &self.0 {
            Backend::Ioctl(f) => {
                let mut name = [0u8; NAME_LEN];
                let mut q = raw(QUERY_BY_ADDR);
                q.sym_addr = addr;
                q.sym_name_addr = name.as_mut_ptr() as u64;
                q.sym_name_size = NAME_LEN as u64;
                query(f, &mut q)?;
                Ok(Symbol {
                    name: cstr(&name),
                    start: q.sym_start,
                    size: q.sym_size,
                    owner: cstr(&q.sym_owner),
                })
            }
            Backend::Text(t) => {
                let i = t.syms.partition_point(|s| s.0 <= addr);
                let s = t
                    .syms
                    .get(i.checked_sub(1).ok_or(Error::NotFound)?)
                    .ok_or(Error::NotFound)?;
                let next = t.syms[i..].iter().find(|n| n.0 > s.0).map_or(0, |n| n.0);
                Ok(Symbol {
                    name: s.1.clone(),
                    start: s.0,
                    size: next.saturating_sub(s.0),
                    owner: s.2.clone(),
                })
            }
        }
    }
}

fn raw(flags: u64) -> RawQuery {
    RawQuery {
        size: std::mem::size_of::<RawQuery>() as u64,
        query_flags: flags,
        sym_name_addr: 0,
        sym_addr: 0,
        sym_name_size: 0,
        sym_start: 0,
        sym_size: 0,
        sym_owner: [0; OWNER_LEN],
    }
}

fn query(f: &File, q: &mut RawQuery) -> Result<(), Error> {
    // SAFETY: `q` is a valid `struct kallsyms_query` whose pointers outlive the call.
    if unsafe { ioctl(f.as_raw_fd(), KALLSYMS_QUERY, q as *mut RawQuery) } != 0 {
        return Err(io::Error::last_os_error().into());
    }
    Ok(())
}

fn cstr(b: &[u8]) -> String {
    String::from_utf8_lossy(&b[..b.iter().position(|&c| c == 0).unwrap_or(b.len())]).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::mem::{offset_of, size_of};

    #[test]
    fn raw_query_is_the_version_1_layout() {
        assert_eq!(size_of::<RawQuery>(), 120);
        assert_eq!(offset_of!(RawQuery, sym_name_size) + 8, SIZE_VER0 as usize);
        assert_eq!(offset_of!(RawQuery, sym_start), 40);
        assert_eq!(offset_of!(RawQuery, sym_size), 48);
        assert_eq!(offset_of!(RawQuery, sym_owner), 56);
        assert_eq!(raw(QUERY_BY_ADDR).size, 120);
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
