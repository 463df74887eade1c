// SPDX-License-Identifier: GPL-2.0
//! Resolve kernel symbols through `/proc/kallsyms`.
//!
//! [`Kallsyms::open`] uses the `KALLSYMS_QUERY` ioctl when the kernel has it and falls back to
//! reading and parsing the text file (once, into a sorted table) when it does not.
//! [`Symbolizer`] symbolizes batches of addresses, as profilers do: one [`Symbolized`] per
//! address, the symbol or why there is none ([`Reason`]), with the answers kept in a bounded
//! cache for as long as the kernel's generation says they hold (see [`Symbolizer`]).
//!
//! ```no_run
//! use ksym_query::{Kallsyms, Symbolized, Symbolizer};
//!
//! let kallsyms = Kallsyms::open()?;
//! let addr = kallsyms.by_name("bpf_user_rnd_u32")?;
//! let mut symbolizer = Symbolizer::new(kallsyms);
//! for (addr, answer) in [addr + 4, 0x1000].iter().zip(symbolizer.symbolize(&[addr + 4, 0x1000])) {
//!     match answer {
//!         Symbolized::Sym(s) => println!("{addr:x}: {}", s.frame(*addr)),
//!         Symbolized::Unknown(why) => println!("{addr:x}: {why}"),
//!     }
//! }
//! # Ok::<(), ksym_query::Error>(())
//! ```

pub mod errno;
mod raw;
pub mod scan;
mod symbolizer;
mod text;

pub use symbolizer::{Reason, Symbolized, Symbolizer, DEFAULT_CACHE_MAX};

use raw::{cstr, query, RawEntry, RawQuery, BATCH_MAX, NAME_LEN};
use std::any::Any;
use std::fs::File;
use std::io::{self, BufRead};
use std::panic::{RefUnwindSafe, UnwindSafe};
use text::Table;

const KALLSYMS: &str = "/proc/kallsyms";

/// What a symbol is (`enum kallsyms_sym_kind`). The kernel may add kinds, and so may this
/// crate: match it with a `_` arm.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
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
    /// Every kind this version knows, in the kernel's numbering (from 1): all but
    /// [`Kind::Other`].
    pub const ALL: [Kind; 8] = [
        Kind::Vmlinux,
        Kind::Module,
        Kind::BpfProg,
        Kind::BpfSubprog,
        Kind::BpfTrampoline,
        Kind::BpfDispatcher,
        Kind::BpfImage,
        Kind::ModuleInit,
    ];

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
    /// Its size in bytes: the kernel's, always known with the ioctl; from the text fallback
    /// only where the text can tell it (`ksym-query --help` says where), else `None`.
    pub size: Option<u64>,
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
    /// Whether `kind` (and so `subprog`) is the kernel's, from version 2 of the ioctl, rather
    /// than read from the owner column and the name (the text, or an older ioctl), which cannot
    /// tell subprograms or freed init code.
    pub exact: bool,
}

impl Symbol {
    /// `name+0xoff/0xsize [owner]`, as `%pS` prints a frame (owner `vmlinux` for the kernel);
    /// `name+0xoff/? [owner]` where the size is unknown.
    pub fn frame(&self, addr: u64) -> String {
        let owner = if self.owner.is_empty() {
            "vmlinux"
        } else {
            &self.owner
        };
        let off = addr - self.start;
        match self.size {
            Some(size) => format!("{}+0x{off:x}/0x{size:x} [{owner}]", self.name),
            None => format!("{}+0x{off:x}/? [{owner}]", self.name),
        }
    }
}

/// Why a query failed, in words a user can act on. [`Error::errno`] gives the errno each stands
/// for, and its `Display` names it (`ENOENT`, `EPERM`, ...).
#[derive(Debug)]
#[non_exhaustive]
pub enum Error {
    /// No symbol matches (`ENOENT`).
    NotFound,
    /// The name is at more than one address (`EADDRNOTAVAIL`).
    Ambiguous,
    /// The name is longer than the kernel's 511 bytes (`ENAMETOOLONG`).
    NameTooLong,
    /// The kernel hides addresses from this user (`EPERM`, or a text of zero addresses).
    NotPermitted,
    /// Anything else, from the system.
    Io(io::Error),
}

impl Error {
    /// The errno this error is, or came from: `ENOENT` for [`Error::NotFound`] also from the
    /// text fallback, `None` for an I/O error without one.
    pub fn errno(&self) -> Option<i32> {
        match self {
            Error::NotFound => Some(errno::ENOENT),
            Error::Ambiguous => Some(errno::EADDRNOTAVAIL),
            Error::NameTooLong => Some(errno::ENAMETOOLONG),
            Error::NotPermitted => Some(errno::EPERM),
            Error::Io(e) => e.raw_os_error(),
        }
    }
}

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Error::NotFound => write!(f, "no such symbol (ENOENT)"),
            Error::Ambiguous => write!(f, "the name is at more than one address (EADDRNOTAVAIL)"),
            Error::NameTooLong => {
                write!(
                    f,
                    "name too long: the kernel allows 511 bytes (ENAMETOOLONG)"
                )
            }
            // kallsyms_show_value()'s rule, written here only: the help points to this message.
            Error::NotPermitted => write!(
                f,
                "kernel addresses are hidden from you: the kernel shows them to openers with \
                 CAP_SYSLOG while kernel.kptr_restrict is 0 or 1, and to everyone while \
                 kptr_restrict is 0 and kernel.perf_event_paranoid is 1 or less (EPERM)"
            ),
            Error::Io(e) => match e.raw_os_error() {
                // "Bad address (os error 14)" becomes "Bad address (EFAULT)".
                Some(n) => {
                    let text = e.to_string();
                    let suffix = format!(" (os error {n})");
                    let text = text.strip_suffix(&suffix).unwrap_or(&text);
                    write!(f, "{text} ({})", errno::describe(n))
                }
                None => write!(f, "{e}"),
            },
        }
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Error::Io(e) => Some(e),
            _ => None,
        }
    }
}

impl From<io::Error> for Error {
    fn from(e: io::Error) -> Self {
        match e.raw_os_error() {
            Some(errno::ENOENT) => Error::NotFound,
            Some(errno::EADDRNOTAVAIL) => Error::Ambiguous,
            Some(errno::ENAMETOOLONG) => Error::NameTooLong,
            Some(errno::EPERM) => Error::NotPermitted,
            _ => Error::Io(e),
        }
    }
}

/// Where a [`Kallsyms`] gets its answers: the ioctl ([`Ioctl`]) or the parsed text ([`Table`]);
/// in unit tests, which run on kernels without the ioctl, a mock (`mock::Mock`). Each method
/// answers for the [`Kallsyms`] method of its name. `Send`, `Sync` and unwind-safe, as
/// [`Kallsyms`] is whichever backend it holds; `Any`, for unit tests to reach their mock.
trait Backend: Any + Send + Sync + UnwindSafe + RefUnwindSafe {
    fn uses_ioctl(&self) -> bool;
    fn unknowable(&self) -> &'static [&'static str];
    fn generation(&self) -> Result<Option<u64>, Error>;
    fn by_name(&self, name: &str) -> Result<u64, Error>;
    fn by_addr(&self, addr: u64) -> Result<Symbol, Error>;
    fn by_addrs(&self, addrs: &[u64]) -> Result<(Vec<Option<Symbol>>, Option<u64>), Error>;
}

/// An open `/proc/kallsyms`.
pub struct Kallsyms(Box<dyn Backend>);

// Whichever backend it holds, as callers may rely on.
const _: fn() = || {
    fn auto_traits<T: Send + Sync + Unpin + UnwindSafe + RefUnwindSafe>() {}
    auto_traits::<Kallsyms>();
};

/// Bytes of names per batch call: room for 128 names of the longest kind, and for thousands of
/// usual ones. A call that fills it answers fewer entries, and the next call goes on.
const NAMES_BUF: usize = 64 * 1024;

impl Kallsyms {
    /// Opens `/proc/kallsyms`, with the ioctl if the kernel has it. [`Error::NotPermitted`] if
    /// the kernel hides addresses from this opener, with the ioctl as without it.
    pub fn open() -> Result<Self, Error> {
        // Not through From: a missing file is no "no such symbol".
        let file = File::open(KALLSYMS).map_err(Error::Io)?;
        Self::probed(Kallsyms(Box::new(Ioctl(file))), Self::open_text)
    }

    /// What a probe of `k`'s ioctl (a lookup of `_text`) says to use:
    /// - the kernel has no `KALLSYMS_QUERY` (`ENOTTY`): `text()`, the text fallback;
    /// - the kernel hides addresses from this opener (`EPERM`, decided when the file was
    ///   opened): [`Error::NotPermitted`] now, before any query, as [`Kallsyms::open_text`]
    ///   fails on a text of zeros;
    /// - anything else: `k`, whose queries report their own failures.
    fn probed(k: Self, text: impl FnOnce() -> Result<Self, Error>) -> Result<Self, Error> {
        match k.by_name("_text") {
            Err(Error::Io(e)) if e.raw_os_error() == Some(errno::ENOTTY) => text(),
            Err(Error::NotPermitted) => Err(Error::NotPermitted),
            _ => Ok(k),
        }
    }

    /// Reads and parses the text file, as symbolizers without the ioctl do.
    pub fn open_text() -> Result<Self, Error> {
        Ok(Kallsyms(Box::new(Table::read(KALLSYMS)?)))
    }

    /// Parses text in the format of `/proc/kallsyms` (`address type name [owner]` lines), such
    /// as a copy saved on another machine: queries then answer from it as from
    /// [`Kallsyms::open_text`]. [`Error::NotPermitted`] if all its addresses are zero.
    pub fn from_text(r: impl BufRead) -> Result<Self, Error> {
        Ok(Kallsyms(Box::new(Table::parse(r)?)))
    }

    /// Whether queries go through the ioctl.
    pub fn uses_ioctl(&self) -> bool {
        self.0.uses_ioctl()
    }

    /// What this backend cannot know, for a caller to tell its user: nothing with the ioctl;
    /// with the text, the fields it leaves out or reads from the names (its rules are those
    /// `ksym-query --help` states).
    pub fn unknowable(&self) -> &'static [&'static str] {
        self.0.unknowable()
    }

    /// The kernel's generation: it changes whenever the symbols an address query can answer
    /// change. `None` from the text fallback, which cannot know, and from kernels whose
    /// `KALLSYMS_QUERY` predates it (`EINVAL`).
    pub fn generation(&self) -> Result<Option<u64>, Error> {
        self.0.generation()
    }

    /// The address of the symbol called `name` (vmlinux first, then modules).
    pub fn by_name(&self, name: &str) -> Result<u64, Error> {
        self.0.by_name(name)
    }

    /// The symbol that covers `addr`.
    pub fn by_addr(&self, addr: u64) -> Result<Symbol, Error> {
        self.0.by_addr(addr)
    }

    /// One answer per address: the symbol that covers it, or `None`, with as few system calls
    /// as the kernel allows (`KALLSYMS_QUERY_BY_ADDR_BATCH`), and the generation the answers
    /// are at least as new as (`None` from the text fallback).
    pub fn by_addrs(&self, addrs: &[u64]) -> Result<(Vec<Option<Symbol>>, Option<u64>), Error> {
        self.0.by_addrs(addrs)
    }
}

/// The `KALLSYMS_QUERY` ioctl on an open `/proc/kallsyms`.
struct Ioctl(File);

impl Ioctl {
    /// [`Backend::by_addrs`] one query at a time, for kernels without batches.
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
}

impl Backend for Ioctl {
    fn uses_ioctl(&self) -> bool {
        true
    }

    fn unknowable(&self) -> &'static [&'static str] {
        &[]
    }

    fn generation(&self) -> Result<Option<u64>, Error> {
        let mut q = RawQuery::new(raw::QUERY_GENERATION);
        match query(&self.0, &mut q) {
            Ok(()) => Ok(Some(q.generation)),
            Err(e) if e.raw_os_error() == Some(errno::EINVAL) => Ok(None),
            Err(e) => Err(e.into()),
        }
    }

    fn by_name(&self, name: &str) -> Result<u64, Error> {
        let cname = std::ffi::CString::new(name).map_err(|_| Error::NotFound)?;
        let mut q = RawQuery::new(raw::QUERY_BY_SYMBOL);
        q.sym_name_addr = cname.as_ptr() as u64;
        query(&self.0, &mut q)?;
        Ok(q.sym_addr)
    }

    fn by_addr(&self, addr: u64) -> Result<Symbol, Error> {
        let mut name = [0u8; NAME_LEN];
        let mut q = RawQuery::new(raw::QUERY_BY_ADDR);
        q.sym_addr = addr;
        q.sym_name_addr = name.as_mut_ptr() as u64;
        q.sym_name_size = NAME_LEN as u64;
        query(&self.0, &mut q)?;
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

    fn by_addrs(&self, addrs: &[u64]) -> Result<(Vec<Option<Symbol>>, Option<u64>), Error> {
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
                match query(&self.0, &mut q) {
                    Ok(()) => {}
                    // A kernel whose KALLSYMS_QUERY has no batches (version 0 or 1): E2BIG for
                    // the batch fields it does not know.
                    Err(e)
                        if matches!(e.raw_os_error(), Some(errno::E2BIG | errno::EINVAL))
                            && out.is_empty() =>
                    {
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

/// The text fallback: [`Table`]'s own answers, by the rules of `src/text.rs`.
impl Backend for Table {
    fn uses_ioctl(&self) -> bool {
        false
    }

    fn unknowable(&self) -> &'static [&'static str] {
        &[
            "sizes (the text has none)",
            "BPF program id",
            "BPF subprogram index (subprograms look like programs)",
            "freed module init functions (they look like module functions)",
            "staleness (no generation: a parsed copy is never refreshed)",
        ]
    }

    fn generation(&self) -> Result<Option<u64>, Error> {
        Ok(None)
    }

    fn by_name(&self, name: &str) -> Result<u64, Error> {
        Table::by_name(self, name)
    }

    fn by_addr(&self, addr: u64) -> Result<Symbol, Error> {
        Table::by_addr(self, addr).ok_or(Error::NotFound)
    }

    fn by_addrs(&self, addrs: &[u64]) -> Result<(Vec<Option<Symbol>>, Option<u64>), Error> {
        Ok((
            addrs.iter().map(|&a| Table::by_addr(self, a)).collect(),
            None,
        ))
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
        // The kernel's: known for every symbol, 0 included.
        size: Some(size),
        owner,
        kind,
        prog_id: (prog_id != 0).then_some(prog_id as u32),
        subprog: bpf_prog.then_some(subprog),
        exact,
    }
}

/// A backend for unit tests: a parsed text with a generation and errors a test sets.
#[cfg(test)]
pub(crate) mod mock {
    use super::{Backend, Error, Kallsyms, Symbol, Table};
    use std::any::Any;
    use std::io;
    use std::sync::Mutex;

    /// A value a test sets and the mock reads: a `Cell` that is `Sync`, as backends are.
    pub(crate) struct Knob<T>(Mutex<T>);

    impl<T: Copy> Knob<T> {
        fn new(value: T) -> Self {
            Knob(Mutex::new(value))
        }

        pub(crate) fn get(&self) -> T {
            *self.0.lock().unwrap()
        }

        pub(crate) fn set(&self, value: T) {
            *self.0.lock().unwrap() = value;
        }
    }

    pub(crate) struct Mock {
        pub(crate) table: Table,
        /// What the generation call answers.
        pub(crate) generation: Knob<Option<u64>>,
        /// The errno every call fails with, if set.
        pub(crate) errno: Knob<Option<i32>>,
        /// The errno batches fail with, if set.
        pub(crate) batch_errno: Knob<Option<i32>>,
        /// Addresses looked up.
        pub(crate) asked: Knob<usize>,
    }

    impl Mock {
        pub(crate) fn fail(&self) -> Result<(), Error> {
            match self.errno.get() {
                Some(n) => Err(io::Error::from_raw_os_error(n).into()),
                None => Ok(()),
            }
        }
    }

    /// A stand-in for the ioctl.
    impl Backend for Mock {
        fn uses_ioctl(&self) -> bool {
            true
        }

        fn unknowable(&self) -> &'static [&'static str] {
            &[]
        }

        fn generation(&self) -> Result<Option<u64>, Error> {
            self.fail().map(|()| self.generation.get())
        }

        fn by_name(&self, name: &str) -> Result<u64, Error> {
            self.fail().and_then(|()| self.table.by_name(name))
        }

        fn by_addr(&self, addr: u64) -> Result<Symbol, Error> {
            self.fail()
                .and_then(|()| self.table.by_addr(addr).ok_or(Error::NotFound))
        }

        fn by_addrs(&self, addrs: &[u64]) -> Result<(Vec<Option<Symbol>>, Option<u64>), Error> {
            self.fail()?;
            if let Some(n) = self.batch_errno.get() {
                return Err(io::Error::from_raw_os_error(n).into());
            }
            self.asked.set(self.asked.get() + addrs.len());
            let answers = addrs.iter().map(|&a| self.table.by_addr(a)).collect();
            Ok((answers, self.generation.get()))
        }
    }

    impl Kallsyms {
        /// `text` as the kernel's symbols, at `generation`.
        pub(crate) fn mock(text: &str, generation: Option<u64>) -> Self {
            Kallsyms(Box::new(Mock {
                table: Table::parse(text.as_bytes()).unwrap(),
                generation: Knob::new(generation),
                errno: Knob::new(None),
                batch_errno: Knob::new(None),
                asked: Knob::new(0),
            }))
        }

        pub(crate) fn as_mock(&self) -> &Mock {
            let backend: &dyn Any = &*self.0;
            backend.downcast_ref().expect("not a mock")
        }
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
    fn all_is_every_kind_the_kernel_numbers() {
        let numbered: Vec<_> = (1..)
            .map(Kind::from_raw)
            .take_while(|k| !matches!(k, Kind::Other(_)))
            .collect();
        assert_eq!(numbered, Kind::ALL);
    }

    #[test]
    fn answers_of_version_1_kernels_say_what_the_owner_says() {
        let s = symbol("bpf_prog_x_f".into(), "bpf".into(), 0, 1, 0, 0, 0);
        assert_eq!((s.kind, s.exact, s.subprog), (Kind::BpfProg, false, None));
        let s = symbol("f".into(), "some_mod".into(), 0, 1, 0, 0, 0);
        assert_eq!((s.kind, s.exact), (Kind::Module, false));
    }

    #[test]
    fn errors_name_their_errno() {
        assert_eq!(Error::NotFound.to_string(), "no such symbol (ENOENT)");
        for e in [Error::Ambiguous, Error::NameTooLong, Error::NotPermitted] {
            let name = errno::name(e.errno().unwrap()).unwrap();
            assert!(e.to_string().ends_with(&format!(" ({name})")), "{e}");
        }
        let e = Error::from(io::Error::from_raw_os_error(errno::EFAULT));
        assert_eq!(e.to_string(), "Bad address (EFAULT)");
        assert_eq!(e.errno(), Some(errno::EFAULT));
        let e = Error::from(io::Error::from_raw_os_error(4000));
        assert!(e.to_string().ends_with("(errno 4000)"), "{e}");
        let e = Error::Io(io::Error::other("the kernel answered no entry"));
        assert_eq!(
            (e.to_string().as_str(), e.errno()),
            ("the kernel answered no entry", None)
        );
    }

    #[test]
    fn errnos_map_to_errors_and_back() {
        for n in [
            errno::ENOENT,
            errno::EADDRNOTAVAIL,
            errno::ENAMETOOLONG,
            errno::EPERM,
            errno::ENOTTY,
            errno::EINVAL,
        ] {
            assert_eq!(
                Error::from(io::Error::from_raw_os_error(n)).errno(),
                Some(n)
            );
        }
        assert!(matches!(
            Error::from(io::Error::from_raw_os_error(errno::EPERM)),
            Error::NotPermitted
        ));
        assert!(matches!(
            Error::from(io::Error::from_raw_os_error(errno::ENOTTY)),
            Error::Io(_)
        ));
    }

    #[test]
    fn error_is_a_std_error_with_a_source() {
        let e: Box<dyn std::error::Error> =
            Box::new(Error::from(io::Error::from_raw_os_error(errno::EFAULT)));
        assert!(e.source().is_some());
        assert!(std::error::Error::source(&Error::NotFound).is_none());
    }

    #[test]
    fn open_takes_the_text_without_the_ioctl_and_fails_on_hidden_addresses() {
        let text = "ffffffff81000000 T _text\n";
        let probe_failing = |n| {
            let k = Kallsyms::mock(text, Some(1));
            k.as_mock().errno.set(n);
            k
        };
        let no_text = || -> Result<Kallsyms, Error> { panic!("the text was read") };
        assert!(Kallsyms::probed(probe_failing(None), no_text)
            .unwrap()
            .uses_ioctl());
        let k = Kallsyms::probed(probe_failing(Some(errno::ENOTTY)), || {
            Kallsyms::from_text(text.as_bytes())
        });
        assert!(!k.unwrap().uses_ioctl());
        // As the text of zeros says: not a Kallsyms whose every query fails.
        assert!(matches!(
            Kallsyms::probed(probe_failing(Some(errno::EPERM)), no_text),
            Err(Error::NotPermitted)
        ));
        // Other failures are the queries' to report.
        assert!(Kallsyms::probed(probe_failing(Some(errno::EINTR)), no_text)
            .unwrap()
            .uses_ioctl());
    }

    #[test]
    fn from_text_answers_like_the_file() {
        let k = Kallsyms::from_text(
            "ffffffff81000000 T _text\nffffffff81000100 T f\nffffffff81000200 T g\n".as_bytes(),
        )
        .unwrap();
        assert!(!k.uses_ioctl());
        assert_eq!(k.by_name("f").unwrap(), 0xffffffff81000100);
        assert_eq!(k.by_addr(0xffffffff81000104).unwrap().name, "f");
        assert!(matches!(k.by_addr(0x1000), Err(Error::NotFound)));
        assert!(matches!(
            Kallsyms::from_text("0000000000000000 T _text\n".as_bytes()),
            Err(Error::NotPermitted)
        ));
    }

    #[test]
    fn the_text_answers_batches_and_says_what_it_cannot_know() {
        let k = Kallsyms::from_text(
            "ffffffff81000000 T _text\nffffffff81000100 T f\nffffffff81000200 T g\n".as_bytes(),
        )
        .unwrap();
        assert_eq!(k.generation().unwrap(), None);
        let (found, generation) = k.by_addrs(&[0xffffffff81000104, 0x1000]).unwrap();
        let names: Vec<_> = found.iter().map(|s| s.as_ref().map(|s| &*s.name)).collect();
        assert_eq!((names, generation), (vec![Some("f"), None], None));
        assert!(k.unknowable().iter().any(|u| u.starts_with("sizes")));
    }
}
