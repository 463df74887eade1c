// SPDX-License-Identifier: GPL-2.0
//! /proc/kallsyms: its text, and KALLSYMS_QUERY called directly
//! (include/uapi/linux/kallsyms_query.h).

use std::fs::File;
use std::io;
use std::io::BufRead as _;
use std::io::BufReader;
use std::os::fd::AsRawFd as _;

use crate::answer::Answer;

/// One line of /proc/kallsyms.
#[derive(Debug)]
pub struct KSym {
    pub addr: u64,
    pub typ: u8,
    pub name: String,
    /// The name in brackets, without them; `None` for vmlinux.
    pub owner: Option<String>,
}

/// What a line is, for the counts and the choice of test addresses.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Kind {
    Core,
    Module,
    BpfProg,
    /// A `bpf_prog_` line that KALLSYMS_QUERY says is a subprogram
    /// (`KALLSYMS_SYM_BPF_SUBPROG`): /proc/kallsyms alone cannot tell.
    BpfSubprog,
    BpfTrampoline,
    BpfDispatcher,
    BpfOther,
    /// `[__builtin__ftrace]` and the like.
    Builtin,
}

impl Kind {
    pub const ALL: [Kind; 8] = [
        Kind::Core,
        Kind::Module,
        Kind::BpfProg,
        Kind::BpfSubprog,
        Kind::BpfTrampoline,
        Kind::BpfDispatcher,
        Kind::BpfOther,
        Kind::Builtin,
    ];

    pub fn is_bpf(self) -> bool {
        matches!(
            self,
            Kind::BpfProg
                | Kind::BpfSubprog
                | Kind::BpfTrampoline
                | Kind::BpfDispatcher
                | Kind::BpfOther
        )
    }

    pub fn label(self) -> &'static str {
        match self {
            Kind::Core => "core",
            Kind::Module => "module",
            Kind::BpfProg => "bpf_prog",
            Kind::BpfSubprog => "bpf_subprog",
            Kind::BpfTrampoline => "bpf_trampoline",
            Kind::BpfDispatcher => "bpf_dispatcher",
            Kind::BpfOther => "bpf_other",
            Kind::Builtin => "builtin",
        }
    }
}

impl KSym {
    /// The kind as the line shows it: a subprogram is `BpfProg` here
    /// (see `Ctx::kind` in compare.rs).
    pub fn kind(&self) -> Kind {
        match self.owner.as_deref() {
            None => Kind::Core,
            Some("bpf") if self.name.starts_with("bpf_prog_") => Kind::BpfProg,
            Some("bpf") if self.name.starts_with("bpf_trampoline_") => Kind::BpfTrampoline,
            Some("bpf") if self.name.starts_with("bpf_dispatcher_") => Kind::BpfDispatcher,
            Some("bpf") => Kind::BpfOther,
            Some(owner) if owner.starts_with("__builtin__") => Kind::Builtin,
            Some(_) => Kind::Module,
        }
    }

    /// A text (code) symbol.
    pub fn is_text(&self) -> bool {
        matches!(self.typ, b't' | b'T' | b'w' | b'W')
    }
}

/// /proc/kallsyms sorted as blazesym's text parser sorts it: lines with
/// address 0 left out, a stable sort by address (so of several names at
/// one address the first listed comes first).
pub struct Listing {
    pub syms: Vec<KSym>,
}

impl Listing {
    pub fn read() -> io::Result<Self> {
        let file = File::open("/proc/kallsyms")?;
        let mut syms = Vec::with_capacity(200_000);
        for line in BufReader::new(file).lines() {
            let line = line?;
            let mut tokens = line.split_ascii_whitespace();
            let (Some(addr), Some(typ), Some(name)) = (tokens.next(), tokens.next(), tokens.next())
            else {
                continue;
            };
            let Ok(addr) = u64::from_str_radix(addr, 16) else {
                continue;
            };
            if addr == 0 {
                continue;
            }
            let owner = tokens
                .next()
                .map(|o| o.trim_start_matches('[').trim_end_matches(']').to_string());
            syms.push(KSym {
                addr,
                typ: typ.as_bytes()[0],
                name: name.to_string(),
                owner,
            });
        }
        syms.sort_by_key(|s| s.addr);
        Ok(Self { syms })
    }

    /// The index of the first line at `addr`.
    pub fn first_at(&self, addr: u64) -> Option<usize> {
        let idx = self.syms.partition_point(|s| s.addr < addr);
        (self.syms.get(idx)?.addr == addr).then_some(idx)
    }

    /// The address of vmlinux's `_stext`: the kernel names no vmlinux address
    /// below it (`is_ksym_addr()`; arm64 keeps its image header there).
    pub fn stext(&self) -> Option<u64> {
        self.syms
            .iter()
            .find(|s| s.owner.is_none() && s.name == "_stext")
            .map(|s| s.addr)
    }

    /// The index of the first line above the address of line `idx`.
    pub fn next_above(&self, idx: usize) -> Option<usize> {
        let addr = self.syms[idx].addr;
        let next = self.syms.partition_point(|s| s.addr <= addr);
        (next < self.syms.len()).then_some(next)
    }
}

const KALLSYMS_QUERY: u64 = 0xC0A0_6612; // _IOWR('f', 18, 160 bytes)
const KALLSYMS_QUERY_SIZE_VER2: u64 = 160;
const KALLSYMS_QUERY_BY_ADDR: u64 = 0x02;
const KALLSYMS_QUERY_GENERATION: u64 = 0x08;
const KALLSYMS_QUERY_NAME_LEN: usize = 512;

pub const KALLSYMS_SYM_VMLINUX: u32 = 1;
pub const KALLSYMS_SYM_BPF_PROG: u32 = 3;
pub const KALLSYMS_SYM_BPF_SUBPROG: u32 = 4;
pub const KALLSYMS_SYM_BPF_IMAGE: u32 = 7;

#[repr(C)]
struct KallsymsQuery {
    size: u64,
    query_flags: u64,
    sym_name_addr: u64,
    sym_addr: u64,
    sym_name_size: u64,
    sym_start: u64,
    sym_size: u64,
    sym_owner: [u8; 64],
    generation: u64,
    sym_prog_id: u64,
    sym_kind: u32,
    sym_subprog: u32,
    batch_addr: u64,
    batch_count: u32,
    batch_entry_size: u32,
}

const _: () = assert!(std::mem::size_of::<KallsymsQuery>() == KALLSYMS_QUERY_SIZE_VER2 as usize);

impl KallsymsQuery {
    fn new(flags: u64) -> Self {
        Self {
            size: KALLSYMS_QUERY_SIZE_VER2,
            query_flags: flags,
            sym_name_addr: 0,
            sym_addr: 0,
            sym_name_size: 0,
            sym_start: 0,
            sym_size: 0,
            sym_owner: [0; 64],
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

/// A BY_ADDR answer.
#[derive(Clone, Debug)]
pub struct KqSym {
    pub name: String,
    pub owner: String,
    pub start: u64,
    pub size: u64,
    pub kind: u32,
    pub prog_id: u64,
    /// The BPF subprogram index (0 for a main function).
    pub subprog: u32,
}

impl KqSym {
    pub fn is_bpf(&self) -> bool {
        (KALLSYMS_SYM_BPF_PROG..=KALLSYMS_SYM_BPF_IMAGE).contains(&self.kind)
    }

    /// Whether the symbol covers `addr` (a BPF image's end included).
    pub fn covers(&self, addr: u64) -> bool {
        let off = addr.wrapping_sub(self.start);
        if self.is_bpf() {
            off <= self.size
        } else {
            off < self.size
        }
    }

    /// What the patched blazesym should say for `addr` in this symbol.
    pub fn answer(&self, addr: u64) -> Answer {
        let module = if self.kind == KALLSYMS_SYM_VMLINUX || self.owner.is_empty() {
            None
        } else {
            Some(format!("[{}]", self.owner))
        };
        Answer::Found {
            name: self.name.clone(),
            offset: addr.wrapping_sub(self.start),
            module,
        }
    }
}

/// KALLSYMS_QUERY on an fd of /proc/kallsyms.
pub struct Kq {
    file: File,
}

fn cstr(bytes: &[u8]) -> String {
    let end = bytes.iter().position(|&b| b == 0).unwrap_or(bytes.len());
    String::from_utf8_lossy(&bytes[..end]).into_owned()
}

impl Kq {
    pub fn open() -> io::Result<Self> {
        Ok(Self {
            file: File::open("/proc/kallsyms")?,
        })
    }

    fn call(&self, q: &mut KallsymsQuery) -> io::Result<()> {
        // SAFETY: `q` is a valid version-2 argument whose pointers, if
        // any, point to buffers of the sizes given.
        let rc = unsafe { libc::ioctl(self.file.as_raw_fd(), KALLSYMS_QUERY as _, q as *mut _) };
        if rc < 0 {
            Err(io::Error::last_os_error())
        } else {
            Ok(())
        }
    }

    /// The probe: GENERATION, which only version 2 has.
    pub fn generation(&self) -> io::Result<u64> {
        let mut q = KallsymsQuery::new(KALLSYMS_QUERY_GENERATION);
        self.call(&mut q)?;
        Ok(q.generation)
    }

    /// BY_ADDR; `None` for ENOENT.
    pub fn by_addr(&self, addr: u64) -> io::Result<Option<KqSym>> {
        let mut name = vec![0u8; KALLSYMS_QUERY_NAME_LEN];
        let mut q = KallsymsQuery::new(KALLSYMS_QUERY_BY_ADDR);
        q.sym_addr = addr;
        q.sym_name_addr = name.as_mut_ptr() as u64;
        q.sym_name_size = name.len() as u64;
        match self.call(&mut q) {
            Ok(()) => Ok(Some(KqSym {
                name: cstr(&name),
                owner: cstr(&q.sym_owner),
                start: q.sym_start,
                size: q.sym_size,
                kind: q.sym_kind,
                prog_id: q.sym_prog_id,
                subprog: q.sym_subprog,
            })),
            Err(err) if err.raw_os_error() == Some(libc::ENOENT) => Ok(None),
            Err(err) => Err(err),
        }
    }

    /// What the patched blazesym should say for `addr`.
    pub fn answer(&self, addr: u64) -> Answer {
        match self.by_addr(addr) {
            Ok(Some(sym)) => sym.answer(addr),
            Ok(None) => Answer::NotFound,
            Err(err) => Answer::Error(format!("KALLSYMS_QUERY BY_ADDR: {err}")),
        }
    }
}

/// Whether the kernel's lookups skip `name`: an ELF mapping symbol (`$x`, `$d`),
/// a local label (`.L`, `L0`), as `is_mapping_symbol()` in
/// include/linux/module_symbol.h says. Modules list them (arm64's do).
pub fn is_mapping_symbol(name: &str) -> bool {
    name.starts_with(".L") || name.starts_with("L0") || name.starts_with('$')
}
