// SPDX-License-Identifier: GPL-2.0
//! The fallback: `/proc/kallsyms` read once and sorted, as symbolizers without the ioctl do.
//!
//! What it answers, and what the text cannot say, is written once: in the command line's help
//! (`ksym-query --help`, "without the ioctl", in `src/main.rs`). [`Table::by_addr`] and
//! [`Table::by_name`] keep those rules.

use crate::raw::NAME_LEN;
use crate::{Error, Kind, Symbol};
use std::fs::File;
use std::io::{BufRead, BufReader};

/// The chunk the BPF JIT packs images in (`BPF_PROG_PACK_SIZE` on x86-64): the farthest an
/// image after the last symbol is taken to reach.
const CHUNK: u64 = 2 << 20;

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
        if syms.is_empty() {
            return Err(Error::Io(std::io::Error::other(
                "no symbols in the kallsyms text",
            )));
        }
        if syms.iter().all(|s| s.0 == 0) {
            return Err(Error::NotPermitted);
        }
        syms.sort_by_key(|s| s.0);
        Ok(Table { syms })
    }

    /// As `KALLSYMS_QUERY_BY_SYMBOL` answers: vmlinux first, then modules, never BPF symbols
    /// or trampolines of ftrace and kprobes; a name the kernel would not take is too long here
    /// too.
    pub(crate) fn by_name(&self, name: &str) -> Result<u64, Error> {
        if name.len() >= NAME_LEN {
            return Err(Error::NameTooLong);
        }
        let among = |vmlinux: bool| {
            let mut addrs = self
                .syms
                .iter()
                .filter(|s| s.1 == name && !image_owner(&s.2) && s.2.is_empty() == vmlinux)
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

    /// The symbol that covers `addr`, as far as the text can tell: the nearest at or below it
    /// (of several at one address, the first in the file), if the extent the text gives that
    /// symbol reaches `addr`. A symbol's size and the addresses it names always agree.
    pub(crate) fn by_addr(&self, addr: u64) -> Option<Symbol> {
        let i = self.syms.partition_point(|s| s.0 <= addr);
        let at = self.syms.get(i.checked_sub(1)?)?.0;
        let s = &self.syms[self.syms.partition_point(|s| s.0 < at)];
        let next = self.syms.get(i);
        let image = image_owner(&s.2);
        // Owners' memory never overlaps: a symbol of another owner next ends this one's memory
        // somewhere before it (where, the text cannot say), as the end of the owner's symbols
        // does. Only a next symbol of the same owner gives a size.
        let size = next.filter(|n| !image && n.2 == s.2).map(|n| n.0 - s.0);
        // With a size, `addr` is below the next symbol, so inside it. Without, an image reaches
        // the next symbol, or the end of its chunk; another symbol only its own address.
        let placed = size.is_some()
            || addr == s.0
            || (image && (next.is_some() || addr / CHUNK == s.0 / CHUNK));
        if !placed {
            return None;
        }
        Some(Symbol {
            name: s.1.clone(),
            start: s.0,
            size,
            owner: s.2.clone(),
            kind: kind_from_text(&s.1, &s.2),
            prog_id: None,
            subprog: None,
            exact: false,
        })
    }
}

/// Whether `owner` lists code images rather than a module's or vmlinux's functions: BPF's
/// (`bpf`), and the trampolines of ftrace and kprobes (`__builtin__ftrace`,
/// `__builtin__kprobes`). The text gives none of them a size, and the kernel's lookups by name
/// skip them all.
fn image_owner(owner: &str) -> bool {
    owner == "bpf" || owner.starts_with("__builtin__")
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
            ("first_func", 0xffffffff81000100, Some(0x100))
        );
        assert_eq!((s.kind, s.exact), (Kind::Vmlinux, false));
        assert!(table().by_addr(0x1000).is_none());
    }

    #[test]
    fn a_symbol_ends_at_the_next_one_of_its_owner() {
        // second_func is vmlinux's last symbol here: its end is unknown, so only its own address
        // is placed, never the 1 GiB up to the module that follows it in the file.
        let t = table();
        let s = t.by_addr(0xffffffff81000200).unwrap();
        assert_eq!((s.name.as_str(), s.size), ("second_func", None));
        assert_eq!(s.frame(0xffffffff81000200), "second_func+0x0/? [vmlinux]");
        assert!(t.by_addr(0xffffffff81000201).is_none());
        assert!(t.by_addr(0xffffffff90000000).is_none());
        // A module's last symbol likewise.
        assert_eq!(t.by_addr(0xffffffffc0000000).unwrap().size, None);
        assert!(t.by_addr(0xffffffffc0000010).is_none());
    }

    #[test]
    fn a_symbol_names_exactly_the_addresses_its_size_spans() {
        // Modules' memory interleaves (one module's text between another's text and data), but
        // never overlaps: il_b's memory is not il_a's, so il_a ends before il_b, where the text
        // cannot say. The kernel would answer for 0x3050 from the module whose memory holds it.
        let text = "\
ffffffffc0003000 t il_a\t[mymod]
ffffffffc0003040 t il_b\t[othermod]
ffffffffc0003100 t il_c\t[mymod]
ffffffffc0003180 t il_d\t[mymod]
";
        let t = Table::parse(text.as_bytes()).unwrap();
        let frame = |a| t.by_addr(a).map(|s| s.frame(a));
        assert_eq!(frame(0xffffffffc0003000).unwrap(), "il_a+0x0/? [mymod]");
        assert_eq!(frame(0xffffffffc0003050), None);
        assert_eq!(frame(0xffffffffc0003110).unwrap(), "il_c+0x10/0x80 [mymod]");
        // Whatever a symbol answers with a size, every address that size spans names it.
        for t in [t, table()] {
            for s in &t.syms {
                let Some(found) = t.by_addr(s.0) else {
                    panic!("{} names no symbol", s.1)
                };
                for a in found.start..found.start + found.size.unwrap_or(0) {
                    assert_eq!(t.by_addr(a).as_ref(), Some(&found), "{a:x}");
                }
            }
        }
    }

    #[test]
    fn bpf_symbols_have_no_size_and_the_last_one_no_end() {
        let t = table();
        let s = t.by_addr(0xffffffffc0100010).unwrap();
        assert_eq!(
            (s.name.as_str(), s.size),
            ("bpf_prog_0123456789abcdef_prog", None)
        );
        assert_eq!(
            s.frame(0xffffffffc0100010),
            "bpf_prog_0123456789abcdef_prog+0x10/? [bpf]"
        );
        // The last symbol of the file reaches the end of its 2 MiB, no farther: past it, not
        // placed, as the ioctl says.
        assert_eq!(
            t.by_addr(0xffffffffc0101010).unwrap().name,
            "bpf_dispatcher_xdp"
        );
        assert_eq!(
            t.by_addr(0xffffffffc01fffff).unwrap().name,
            "bpf_dispatcher_xdp"
        );
        assert!(t.by_addr(0xffffffffc0200000).is_none());
        assert!(t.by_addr(0xffffffffffffffff).is_none());
        // An ftrace trampoline likewise has no size.
        let text = format!("{TEXT}ffffffffc0300000 t ftrace_trampoline\t[__builtin__ftrace]\n");
        let t = Table::parse(text.as_bytes()).unwrap();
        assert_eq!(t.by_addr(0xffffffffc0300010).unwrap().size, None);
    }

    #[test]
    fn of_symbols_at_one_address_the_first_in_the_file_answers() {
        let text = "\
ffffffff81000000 T _text
ffffffff81000100 T first_name
ffffffff81000100 T alias_name
ffffffff81000200 T next_func
";
        let t = Table::parse(text.as_bytes()).unwrap();
        let s = t.by_addr(0xffffffff81000180).unwrap();
        assert_eq!((s.name.as_str(), s.size), ("first_name", Some(0x100)));
    }

    #[test]
    fn an_empty_file_is_not_hidden_addresses() {
        assert!(matches!(Table::parse("".as_bytes()), Err(Error::Io(_))));
    }

    #[test]
    fn kinds_from_owner_and_name() {
        let t = table();
        let kind = |a| t.by_addr(a).unwrap().kind;
        assert_eq!(kind(0xffffffffc0000000), Kind::Module);
        assert_eq!(kind(0xffffffffc0100010), Kind::BpfProg);
        assert_eq!(kind(0xffffffffc0100810), Kind::BpfTrampoline);
        assert_eq!(kind(0xffffffffc0101000), Kind::BpfDispatcher);
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
    fn by_name_skips_ftrace_and_kprobe_trampolines() {
        // KALLSYMS_QUERY_BY_SYMBOL does not search them: ENOENT, not the trampoline's address.
        let text = format!(
            "{TEXT}ffffffffc0300000 t ftrace_trampoline\t[__builtin__ftrace]\n\
             ffffffffc0400000 t kprobe_insn_page\t[__builtin__kprobes]\n"
        );
        let t = Table::parse(text.as_bytes()).unwrap();
        for name in ["ftrace_trampoline", "kprobe_insn_page"] {
            assert!(matches!(t.by_name(name), Err(Error::NotFound)), "{name}");
        }
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
