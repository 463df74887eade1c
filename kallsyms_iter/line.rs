// SPDX-License-Identifier: GPL-2.0

//! A symbol as its line of `/proc/kallsyms`.
//!
//! C header: [`include/linux/seq_file.h`](srctree/include/linux/seq_file.h)
//!
//! Mainline prints each line with `seq_printf(m, "%px %c %s\n", ...)` (`"%px %c %s\t[%s]\n"` for
//! a symbol with an owner), and `vsnprintf()` decoding that format is about half of what a read
//! of the file costs. The line has one shape, so it is written here directly, byte for byte what
//! that format prints (the KUnit tests compare the two), into the `seq_file`'s buffer.

use crate::Iter;
use core::mem::MaybeUninit;
use kernel::seq_file::SeqFile;

/// `%px`: the whole pointer in lower-case hex, zero-padded.
const VALUE_LEN: usize = 2 * size_of::<usize>();
const HEX: &[u8; 16] = b"0123456789abcdef";

/// The fields of one line.
pub(crate) struct Line<'a> {
    value: usize,
    type_: u8,
    name: &'a [u8],
    /// Empty for the core kernel (no owner column).
    owner: &'a [u8],
}

/// The bytes of `s` before its first NUL (all of them if it has none). A byte loop: symbol names
/// are short, and `memchr()`'s word-at-a-time setup cost more than it saved (perf in the guest).
fn until_nul(s: &[u8]) -> &[u8] {
    let len = s.iter().position(|&b| b == 0).unwrap_or(s.len());
    &s[..len]
}

impl<'a> Line<'a> {
    /// The line of the symbol `iter` holds, or `None` for a symbol without a name (some debugging
    /// symbols), which mainline skips.
    pub(crate) fn of(iter: &'a Iter) -> Option<Self> {
        let name = until_nul(&iter.name);
        if name.is_empty() {
            return None;
        }
        let owner = until_nul(&iter.module_name);
        let type_ = if owner.is_empty() {
            iter.type_
        } else if iter.exported != 0 {
            // "Global" if the module exports it, "local" if not.
            iter.type_.to_ascii_uppercase()
        } else {
            iter.type_.to_ascii_lowercase()
        };
        Some(Self {
            // Readers who may not see addresses get zeroes, as `%px` of `NULL`.
            value: if iter.show_value != 0 { iter.value } else { 0 },
            type_,
            name,
            owner,
        })
    }

    /// Its length in bytes, newline included.
    pub(crate) fn len(&self) -> usize {
        // "<value> <type> <name>" then "\n" or "\t[<owner>]\n".
        let tail = if self.owner.is_empty() {
            1
        } else {
            self.owner.len() + 4
        };
        VALUE_LEN + 3 + self.name.len() + tail
    }

    /// Writes it to `dst`, [`Line::len`] bytes long.
    pub(crate) fn write(&self, dst: &mut [MaybeUninit<u8>]) {
        let (value, rest) = dst.split_at_mut(VALUE_LEN);
        let mut v = self.value;
        for d in value.iter_mut().rev() {
            d.write(HEX[v & 0xf]);
            v >>= 4;
        }
        let mut out = Out(rest);
        out.bytes(&[b' ', self.type_, b' ']);
        out.bytes(self.name);
        if self.owner.is_empty() {
            out.bytes(b"\n");
        } else {
            out.bytes(b"\t[");
            out.bytes(self.owner);
            out.bytes(b"]\n");
        }
    }
}

/// What is left of a line to write.
struct Out<'b>(&'b mut [MaybeUninit<u8>]);

impl Out<'_> {
    fn bytes(&mut self, s: &[u8]) {
        let (head, tail) = core::mem::take(&mut self.0).split_at_mut(s.len());
        for (d, &b) in head.iter_mut().zip(s) {
            d.write(b);
        }
        self.0 = tail;
    }
}

/// Appends the line of `iter`'s symbol to `m`, as `seq_write()` would: when it does not fit,
/// marks the buffer overflowed, and `seq_read()` calls again with a larger one.
pub(crate) fn show(m: &SeqFile, iter: &Iter) {
    let Some(line) = Line::of(iter) else {
        return;
    };
    // SAFETY: `Line::write` writes all of the `line.len()` bytes it is given, and not to `m`.
    unsafe { m.write_in_place(line.len(), |dst| line.write(dst)) };
}
