// SPDX-License-Identifier: GPL-2.0

//! KUnit tests: every line as mainline's `seq_printf()` prints it.

use crate::{
    line::Line,
    Iter, //
};
use core::mem::MaybeUninit;
use kernel::{
    bindings,
    ffi::c_int,
    prelude::*, //
};

#[kunit_tests(kallsyms_iter)]
mod cases {
    use super::*;

    /// Longer than any line.
    const LINE_MAX: usize = 1024;

    /// A kernel text address, of the width of the architecture's addresses.
    #[cfg(CONFIG_64BIT)]
    const TEXT_ADDR: usize = 0xffff_ffff_8100_0000;
    #[cfg(not(CONFIG_64BIT))]
    const TEXT_ADDR: usize = 0xc100_0000;

    /// An address whose hex digits all differ, to catch a digit out of place.
    #[cfg(CONFIG_64BIT)]
    const EVERY_DIGIT: usize = 0x0123_4567_89ab_cdef;
    #[cfg(not(CONFIG_64BIT))]
    const EVERY_DIGIT: usize = 0x89ab_cdef;

    /// What mainline's `s_show()` prints for `iter`, by `snprintf()` with its formats.
    fn mainline(iter: &Iter, out: &mut [u8; LINE_MAX]) -> usize {
        let value = if iter.show_value != 0 { iter.value } else { 0 };
        let owner = iter.module_name[0] != 0;
        let type_ = match (owner, iter.exported != 0) {
            (false, _) => iter.type_,
            (true, true) => iter.type_.to_ascii_uppercase(),
            (true, false) => iter.type_.to_ascii_lowercase(),
        };
        // SAFETY: `out` holds `LINE_MAX` bytes; the formats take a pointer, a char and
        // NUL-terminated strings, which the iterator's arrays are.
        let n = unsafe {
            if owner {
                bindings::snprintf(
                    out.as_mut_ptr(),
                    LINE_MAX,
                    c"%px %c %s\t[%s]\n".as_char_ptr(),
                    value as *const u8,
                    c_int::from(type_),
                    iter.name.as_ptr(),
                    iter.module_name.as_ptr(),
                )
            } else {
                bindings::snprintf(
                    out.as_mut_ptr(),
                    LINE_MAX,
                    c"%px %c %s\n".as_char_ptr(),
                    value as *const u8,
                    c_int::from(type_),
                    iter.name.as_ptr(),
                )
            }
        };
        usize::try_from(n).unwrap_or(0)
    }

    /// An iterator holding one symbol.
    fn symbol(
        value: usize,
        type_: u8,
        name: &[u8],
        owner: &[u8],
        exported: bool,
        show: bool,
    ) -> KBox<Iter> {
        let mut iter = KBox::new(Iter::default(), GFP_KERNEL).expect("no memory for a test");
        iter.value = value;
        iter.type_ = type_;
        iter.name[..name.len()].copy_from_slice(name);
        iter.module_name[..owner.len()].copy_from_slice(owner);
        iter.exported = c_int::from(exported);
        iter.show_value = c_int::from(show);
        iter
    }

    #[test]
    fn every_line_is_what_seq_printf_prints() {
        let long = [b'x'; bindings::KSYM_NAME_LEN as usize - 1];
        // `MODULE_NAME_LEN` is not a constant bindgen can see: the array's length is.
        let owner_max = Iter::default().module_name.len() - 1;
        let long_owner = [b'm'; 64];
        let long_owner = &long_owner[..owner_max];
        let names: [&[u8]; 4] = [
            b"a",
            b"bpf_prog_6deef7357e7b4530_do_sys_open",
            b"__cfi_x",
            &long,
        ];
        let owners: [&[u8]; 5] = [
            b"",
            b"bpf",
            b"ksym_test_mod",
            b"__builtin__kprobes",
            long_owner,
        ];
        let values = [0, 1, TEXT_ADDR, usize::MAX, EVERY_DIGIT];
        let mut checked = 0;
        for &name in &names {
            for &owner in &owners {
                for &value in &values {
                    for (type_, exported, show) in [
                        (b't', false, true),
                        (b'T', true, true),
                        (b'd', true, false),
                        (b'b', false, false),
                    ] {
                        let iter = symbol(value, type_, name, owner, exported, show);
                        let mut want = [0u8; LINE_MAX];
                        let want_len = mainline(&iter, &mut want);
                        let line = Line::of(&iter).expect("a named symbol has a line");
                        assert_eq!(line.len(), want_len);
                        let mut got = [0u8; LINE_MAX];
                        let dst =
                            core::ptr::from_mut(&mut got[..want_len]) as *mut [MaybeUninit<u8>];
                        // SAFETY: The same bytes, as `MaybeUninit<u8>`: `write` stores only `u8`s.
                        line.write(unsafe { &mut *dst });
                        assert_eq!(&got[..want_len], &want[..want_len]);
                        checked += 1;
                    }
                }
            }
        }
        assert_eq!(checked, 4 * 5 * 5 * 4);
    }

    #[test]
    fn nameless_symbol_has_no_line() {
        let iter = symbol(TEXT_ADDR, b't', b"", b"", false, true);
        assert!(Line::of(&iter).is_none());
    }
}
