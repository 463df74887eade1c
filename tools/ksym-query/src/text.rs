// SPDX-License-Identifier: GPL-2.0
//! The fallback: `/proc/kallsyms` read once and sorted, as symbolizers without the ioctl do.
//!
//! The text has no sizes, so an address past the end of a symbol (an unloaded BPF program, a
//! gap between images) gets the nearest symbol below it; it has no program ids or subprogram
//! indexes either. [`crate::Kallsyms::unknowable`] lists what this cannot know.

use crate::raw::NAME_LEN;
use crate::{Error, Kind, Symbol};
use std::fs::File;
use std::io::{BufRead, BufReader};

/// A sorted copy of the text file.
pub(crate) struct Table {
    /// (address, name, owner), by address.
    syms: Vec<(u64, String, String)>,
}

impl Table {
    pub(crate) fn read(path: &str) -> Result<Self, Error> {
        Self::parse(BufReader::new(File::open(path).map_err(Error::Io)?))
    }

    pub(crate) fn parse(r: impl BufRead) -> Result<Self, Error> {
        let mut syms = Vec::new();
        for line in r.lines() {
            let line = line.map_err(Error::Io)?;
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
        Ok(Table { syms })
    }

    /// As `KALLSYMS_QUERY_BY_SYMBOL` answers: vmlinux first, then modules, never BPF; a name
    /// the kernel would not take is too long here too.
    pub(crate) fn by_name(&self, name: &str) -> Result<u64, Error> {
        if name.len() >= NAME_LEN {
            return Err(Error::NameTooLong);
        }
        let among = |vmlinux: bool| {
            let mut addrs = self
                .syms
                .iter()
                .filter(|s| s.1 == name && s.2 != "bpf" && s.2.is_empty() == vmlinux)
                .map(|s| s.0);
            let first = addrs.next()?;
            Some(if addrs.any(|a| a != first) {
                Err(Error::Ambiguous)
            } else {
                Ok(first)
            })
        };
        among(true)
            .or_else(|| among(false))
            .unwrap_or(Err(Error::NotFound))
    }

    /// The nearest symbol at or below `addr`: right inside a symbol, wrong past its end.
    pub(crate) fn by_addr(&self, addr: u64) -> Option<Symbol> {
        let i = self.syms.partition_point(|s| s.0 <= addr);
        let s = self.syms.get(i.checked_sub(1)?)?;
        let next = self.syms[i..].iter().find(|n| n.0 > s.0).map_or(0, |n| n.0);
        Some(Symbol {
            name: s.1.clone(),
            start: s.0,
            size: next.saturating_sub(s.0),
            owner: s.2.clone(),
            kind: kind_from_text(&s.1, &s.2),
            prog_id: None,
            subprog: None,
            exact: false,
        })
    }
}

/// What the text's owner column and the BPF core's names say a symbol is.
pub(crate) fn kind_from_text(name: &str, owner: &str) -> Kind {
    match owner {
        "" => Kind::Vmlinux,
        "bpf" if name.starts_with("bpf_prog_") => Kind::BpfProg,
        "bpf" if name.starts_with("bpf_trampoline_") => Kind::BpfTrampoline,
        "bpf" if name.starts_with("bpf_dispatcher_") => Kind::BpfDispatcher,
        "bpf" => Kind::BpfImage,
        _ => Kind::Module,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const TEXT: &str = "\
ffffffff81000000 T _text
ffffffff81000100 T first_func
ffffffff81000200 t second_func
ffffffffc0000000 t mod_func\t[some_mod]
ffffffffc0100000 t bpf_prog_0123456789abcdef_prog\t[bpf]
ffffffffc0100800 t bpf_trampoline_6442450944\t[bpf]
ffffffffc0101000 t bpf_dispatcher_xdp\t[bpf]
";

    fn table() -> Table {
        Table::parse(TEXT.as_bytes()).unwrap()
    }

    #[test]
    fn nearest_symbol_below_with_the_distance_as_size() {
        let s = table().by_addr(0xffffffff81000150).unwrap();
        assert_eq!(
            (s.name.as_str(), s.start, s.size),
            ("first_func", 0xffffffff81000100, 0x100)
        );
        assert_eq!((s.kind, s.exact), (Kind::Vmlinux, false));
        assert!(table().by_addr(0x1000).is_none());
    }

    #[test]
    fn kinds_from_owner_and_name() {
        let t = table();
        let kind = |a| t.by_addr(a).unwrap().kind;
        assert_eq!(kind(0xffffffffc0000010), Kind::Module);
        assert_eq!(kind(0xffffffffc0100010), Kind::BpfProg);
        assert_eq!(kind(0xffffffffc0100810), Kind::BpfTrampoline);
        assert_eq!(kind(0xffffffffc0101010), Kind::BpfDispatcher);
        assert_eq!(t.by_addr(0xffffffffc0100010).unwrap().prog_id, None);
    }

    #[test]
    fn by_name_skips_bpf_and_finds_modules() {
        let t = table();
        assert_eq!(t.by_name("mod_func").unwrap(), 0xffffffffc0000000);
        assert!(matches!(
            t.by_name("bpf_dispatcher_xdp"),
            Err(Error::NotFound)
        ));
    }

    #[test]
    fn by_name_prefers_vmlinux_to_a_module_of_the_same_name() {
        let text = format!("{TEXT}ffffffffc0000100 t first_func\t[some_mod]\n");
        let t = Table::parse(text.as_bytes()).unwrap();
        assert_eq!(t.by_name("first_func").unwrap(), 0xffffffff81000100);
    }

    #[test]
    fn a_name_the_kernel_would_refuse_is_too_long() {
        let t = table();
        assert!(matches!(
            t.by_name(&"x".repeat(NAME_LEN)),
            Err(Error::NameTooLong)
        ));
        assert!(matches!(
            t.by_name(&"x".repeat(NAME_LEN - 1)),
            Err(Error::NotFound)
        ));
    }

    #[test]
    fn all_zero_addresses_mean_hidden() {
        let hidden = "0000000000000000 T _text\n0000000000000000 T f\n";
        assert!(matches!(
            Table::parse(hidden.as_bytes()),
            Err(Error::NotPermitted)
        ));
    }

    #[test]
    fn a_missing_file_is_an_io_error_not_a_missing_symbol() {
        let Err(Error::Io(e)) = Table::read("/nonexistent/kallsyms") else {
            panic!("not an I/O error");
        };
        assert_eq!(e.raw_os_error(), Some(crate::errno::ENOENT));
    }
}
