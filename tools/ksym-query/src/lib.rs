// SPDX-License-Identifier: GPL-2.0
//! Resolve kernel symbols through `/proc/kallsyms`.
//!
//! [`Kallsyms::open`] uses the `KALLSYMS_QUERY` ioctl when the kernel has it and falls back to
//! reading and parsing the text file (once, into a sorted table) when it does not.
//! [`Symbolizer`] symbolizes batches of addresses, as profilers do, and keeps the answers until
//! the kernel's generation says the symbols changed.

mod raw;
pub mod scan;
mod symbolizer;
mod text;

pub use symbolizer::Symbolizer;

use raw::{cstr, query, RawEntry, RawQuery, BATCH_MAX, NAME_LEN};
use std::fs::File;
use std::io;
use text::Table;

const KALLSYMS: &str = "/proc/kallsyms";

/// What a symbol is (`enum kallsyms_sym_kind`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// The kernel image.
    Vmlinux,
    /// A loaded module.
    Module,
    /// A BPF program's main function.
    BpfProg,
    /// A BPF subprogram.
    BpfSubprog,
    /// A BPF trampoline (`bpf_trampoline_<key>`).
    BpfTrampoline,
    /// A BPF dispatcher (`bpf_dispatcher_<name>`).
    BpfDispatcher,
    /// Other BPF code: struct_ops, FineIBT preambles.
    BpfImage,
    /// A module's freed init function, still named by ftrace.
    ModuleInit,
    /// A kind this tool does not know yet.
    Other(u32),
}

impl Kind {
    fn from_raw(k: u32) -> Self {
        match k {
            1 => Kind::Vmlinux,
            2 => Kind::Module,
            3 => Kind::BpfProg,
            4 => Kind::BpfSubprog,
            5 => Kind::BpfTrampoline,
            6 => Kind::BpfDispatcher,
            7 => Kind::BpfImage,
            8 => Kind::ModuleInit,
            k => Kind::Other(k),
        }
    }

    /// A short name, for output.
    pub fn name(self) -> &'static str {
        match self {
            Kind::Vmlinux => "vmlinux",
            Kind::Module => "module",
            Kind::BpfProg => "bpf_prog",
            Kind::BpfSubprog => "bpf_subprog",
            Kind::BpfTrampoline => "bpf_trampoline",
            Kind::BpfDispatcher => "bpf_dispatcher",
            Kind::BpfImage => "bpf_image",
            Kind::ModuleInit => "module_init",
            Kind::Other(_) => "other",
        }
    }
}

/// A symbol that covers an address.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Symbol {
    /// Its name.
    pub name: String,
    /// Its first address.
    pub start: u64,
    /// Its size in bytes. From the text fallback, the distance to the next symbol (0 for the
    /// last one): see [`Symbol::exact`].
    pub size: u64,
    /// Module name, `bpf`, or empty for vmlinux.
    pub owner: String,
    /// What it is. The text fallback cannot tell a BPF subprogram from a program, nor a
    /// module's freed init function from its other functions.
    pub kind: Kind,
    /// The BPF program's id (the main program's, for a subprogram), for
    /// `bpf_prog_get_fd_by_id()`: only from the ioctl, for callers with `CAP_SYS_ADMIN`.
    pub prog_id: Option<u32>,
    /// The BPF subprogram index, 0 for a program's main function: only from the ioctl.
    pub subprog: Option<u32>,
    /// Whether `size` and `kind` are the kernel's (ioctl) rather than guessed from the text.
    pub exact: bool,
}

impl Symbol {
    /// `name+0xoff/0xsize [owner]`, as `%pS` prints a frame (owner `vmlinux` for the kernel).
    pub fn frame(&self, addr: u64) -> String {
        let owner = if self.owner.is_empty() {
            "vmlinux"
        } else {
            &self.owner
        };
        format!(
            "{}+0x{:x}/0x{:x} [{owner}]",
            self.name,
            addr - self.start,
            self.size
        )
    }
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

enum Backend {
    Ioctl(File),
    Text(Table),
}

/// An open `/proc/kallsyms`.
pub struct Kallsyms(Backend);

/// Bytes of names per batch call: room for 128 names of the longest kind, and for thousands of
/// usual ones. A call that fills it answers fewer entries, and the next call goes on.
const NAMES_BUF: usize = 64 * 1024;

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
        Ok(Kallsyms(Backend::Text(Table::read(KALLSYMS)?)))
    }

    /// Whether queries go through the ioctl.
    pub fn uses_ioctl(&self) -> bool {
        matches!(self.0, Backend::Ioctl(_))
    }

    /// The fields of a [`Symbol`] this backend cannot know (and only guesses, or leaves out).
    pub fn unknowable(&self) -> &'static [&'static str] {
        match self.0 {
            Backend::Ioctl(_) => &[],
            Backend::Text(_) => &[
                "exact size (the text has none: the distance to the next symbol instead)",
                "BPF program id",
                "BPF subprogram index (subprograms look like programs)",
                "freed module init functions (they look like module functions)",
                "staleness (no generation: a parsed copy is never refreshed)",
            ],
        }
    }

    /// The kernel's generation: it changes whenever the symbols an address query can answer
    /// change. `None` from the text fallback, which cannot know, and from kernels whose
    /// `KALLSYMS_QUERY` predates it (`EINVAL`).
    pub fn generation(&self) -> Result<Option<u64>, Error> {
        match &self.0 {
            Backend::Ioctl(f) => {
                let mut q = RawQuery::new(raw::QUERY_GENERATION);
                match query(f, &mut q) {
                    Ok(()) => Ok(Some(q.generation)),
                    Err(e) if e.raw_os_error() == Some(22) => Ok(None),
                    Err(e) => Err(e.into()),
                }
            }
            Backend::Text(_) => Ok(None),
        }
    }

    /// [`Kallsyms::by_addrs`] one query at a time, for kernels without batches.
    fn by_addrs_singly(&self, addrs: &[u64]) -> Result<(Vec<Option<Symbol>>, Option<u64>), Error> {
        let generation = self.generation()?;
        let mut out = Vec::with_capacity(addrs.len());
        for &addr in addrs {
            out.push(match self.by_addr(addr) {
                Ok(s) => Some(s),
                Err(Error::NotFound) => None,
                Err(e) => return Err(e),
            });
        }
        Ok((out, generation))
    }

    /// The address of the symbol called `name` (vmlinux first, then modules).
    pub fn by_name(&self, name: &str) -> Result<u64, Error> {
        match &self.0 {
            Backend::Ioctl(f) => {
                let cname = std::ffi::CString::new(name).map_err(|_| Error::NotFound)?;
                let mut q = RawQuery::new(raw::QUERY_BY_SYMBOL);
                q.sym_name_addr = cname.as_ptr() as u64;
                query(f, &mut q)?;
                Ok(q.sym_addr)
            }
            Backend::Text(t) => t.by_name(name),
        }
    }

    /// The symbol that covers `addr`.
    pub fn by_addr(&self, addr: u64) -> Result<Symbol, Error> {
        match &self.0 {
            Backend::Ioctl(f) => {
                let mut name = [0u8; NAME_LEN];
                let mut q = RawQuery::new(raw::QUERY_BY_ADDR);
                q.sym_addr = addr;
                q.sym_name_addr = name.as_mut_ptr() as u64;
                q.sym_name_size = NAME_LEN as u64;
                query(f, &mut q)?;
                Ok(symbol(
                    cstr(&name),
                    cstr(&q.sym_owner),
                    q.sym_start,
                    q.sym_size,
                    q.sym_kind,
                    q.sym_prog_id,
                    q.sym_subprog,
                ))
            }
            Backend::Text(t) => t.by_addr(addr).ok_or(Error::NotFound),
        }
    }

    /// One answer per address: the symbol that covers it, or `None`, with as few system calls
    /// as the kernel allows (`KALLSYMS_QUERY_BY_ADDR_BATCH`), and the generation the answers
    /// are at least as new as (`None` from the text fallback).
    pub fn by_addrs(&self, addrs: &[u64]) -> Result<(Vec<Option<Symbol>>, Option<u64>), Error> {
        let f = match &self.0 {
            Backend::Ioctl(f) => f,
            Backend::Text(t) => return Ok((addrs.iter().map(|&a| t.by_addr(a)).collect(), None)),
        };
        let mut out = Vec::with_capacity(addrs.len());
        let mut names = vec![0u8; NAMES_BUF];
        let mut entries = vec![RawEntry::default(); addrs.len().min(BATCH_MAX)];
        let mut generation = None;
        for window in addrs.chunks(BATCH_MAX) {
            let entries = &mut entries[..window.len()];
            for (e, &addr) in entries.iter_mut().zip(window) {
                *e = RawEntry {
                    addr,
                    ..Default::default()
                };
            }
            let mut done = 0;
            while done < window.len() {
                let todo = &mut entries[done..];
                let mut q = RawQuery::new(raw::QUERY_BY_ADDR_BATCH);
                q.sym_name_addr = names.as_mut_ptr() as u64;
                q.sym_name_size = names.len() as u64;
                q.batch_addr = todo.as_mut_ptr() as u64;
                q.batch_count = todo.len() as u32;
                q.batch_entry_size = std::mem::size_of::<RawEntry>() as u32;
                match query(f, &mut q) {
                    Ok(()) => {}
                    // A kernel whose KALLSYMS_QUERY has no batches (version 0 or 1): E2BIG for
                    // the batch fields it does not know.
                    Err(e) if matches!(e.raw_os_error(), Some(7) | Some(22)) && out.is_empty() => {
                        return self.by_addrs_singly(addrs)
                    }
                    Err(e) => return Err(e.into()),
                }
                // The oldest generation of the calls: every answer is at least as new.
                generation.get_or_insert(q.generation);
                let answered = (q.batch_count as usize).min(todo.len());
                if answered == 0 {
                    return Err(Error::Io(io::Error::other("the kernel answered no entry")));
                }
                let used = &names[..(q.sym_name_size as usize).min(names.len())];
                for e in &todo[..answered] {
                    out.push((e.kind != 0).then(|| {
                        symbol(
                            cstr(used.get(e.name_off as usize..).unwrap_or_default()),
                            cstr(used.get(e.owner_off as usize..).unwrap_or_default()),
                            e.start,
                            e.size,
                            e.kind,
                            e.prog_id,
                            e.subprog,
                        )
                    }));
                }
                done += answered;
            }
        }
        Ok((out, generation))
    }
}

/// A symbol from the kernel's answer.
fn symbol(
    name: String,
    owner: String,
    start: u64,
    size: u64,
    kind: u32,
    prog_id: u64,
    subprog: u32,
) -> Symbol {
    // Kind 0: a kernel older than version 2, which says only what the owner says.
    let (kind, exact) = match kind {
        0 => (text::kind_from_text(&name, &owner), false),
        k => (Kind::from_raw(k), true),
    };
    let bpf_prog = exact && matches!(kind, Kind::BpfProg | Kind::BpfSubprog);
    Symbol {
        name,
        start,
        size,
        owner,
        kind,
        prog_id: (prog_id != 0).then_some(prog_id as u32),
        subprog: bpf_prog.then_some(subprog),
        exact,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frames_read_like_percent_ps() {
        let s = symbol("f".into(), String::new(), 0x1000, 0x40, 1, 0, 0);
        assert_eq!(s.frame(0x1010), "f+0x10/0x40 [vmlinux]");
        let s = symbol("bpf_prog_x".into(), "bpf".into(), 0x2000, 0x20, 4, 7, 2);
        assert_eq!(s.frame(0x2000), "bpf_prog_x+0x0/0x20 [bpf]");
        assert_eq!(
            (s.kind, s.prog_id, s.subprog),
            (Kind::BpfSubprog, Some(7), Some(2))
        );
    }

    #[test]
    fn ids_and_indexes_only_for_programs() {
        let s = symbol("bpf_trampoline_1".into(), "bpf".into(), 0, 1, 5, 0, 0);
        assert_eq!(
            (s.kind, s.prog_id, s.subprog),
            (Kind::BpfTrampoline, None, None)
        );
        // A program whose id the caller may not see.
        let s = symbol("bpf_prog_x".into(), "bpf".into(), 0, 1, 3, 0, 0);
        assert_eq!((s.prog_id, s.subprog), (None, Some(0)));
        assert_eq!(Kind::from_raw(99), Kind::Other(99));
    }

    #[test]
    fn answers_of_version_1_kernels_say_what_the_owner_says() {
        let s = symbol("bpf_prog_x_f".into(), "bpf".into(), 0, 1, 0, 0, 0);
        assert_eq!((s.kind, s.exact, s.subprog), (Kind::BpfProg, false, None));
        let s = symbol("f".into(), "some_mod".into(), 0, 1, 0, 0, 0);
        assert_eq!((s.kind, s.exact), (Kind::Module, false));
    }
}
