// SPDX-License-Identifier: GPL-2.0

//! KUnit tests of the conversions of the user's `__u64` fields, the struct versions, the
//! batch's checks of its arrays, and the cursor of its vmlinux lookups.
//!
//! The conversions are generic over the integer type they produce, `usize` in the kernel, so a
//! 64-bit kernel can show what a 32-bit one does: with `u32`, values that do not fit an
//! `unsigned long` there.

use super::*;

#[kunit_tests(kallsyms_query)]
mod cases {
    use super::*;

    /// `size`: never truncated into a valid size; `E2BIG` above a page.
    #[test]
    fn struct_size_over_a_page_or_the_type_is_e2big() {
        assert_eq!(struct_size::<u32>(40, 4096), Ok(40));
        assert_eq!(struct_size::<u32>(4096, 4096), Ok(4096));
        assert_eq!(struct_size::<u32>(4097, 4096), Err(E2BIG));
        // Truncated to 32 bits this would be 40, a valid version-0 size.
        assert_eq!(struct_size::<u32>(0x1_0000_0028, 4096), Err(E2BIG));
        assert_eq!(struct_size::<u32>(u64::MAX, 4096), Err(E2BIG));
        assert_eq!(struct_size::<u64>(0x1_0000_0028, 4096), Err(E2BIG));
        assert_eq!(
            struct_size(u64::from_safe_cast(SIZE_VER1), PAGE_SIZE),
            Ok(SIZE_VER1)
        );
        assert_eq!(struct_size(u64::MAX, PAGE_SIZE), Err(E2BIG));
    }

    /// `sym_addr` of `BY_ADDR`: `ENOENT` where `unsigned long` cannot hold it.
    #[test]
    fn kernel_addr_that_does_not_fit_has_no_symbol() {
        assert_eq!(kernel_addr::<u32>(0xc100_0000), Ok(0xc100_0000));
        assert_eq!(kernel_addr::<u32>(0xffff_ffff), Ok(0xffff_ffff));
        // Truncated to 32 bits this would be 0xc1000000, a kernel text address.
        assert_eq!(kernel_addr::<u32>(0xffff_ffff_c100_0000), Err(ENOENT));
        assert_eq!(kernel_addr::<u32>(0x1_0000_0000), Err(ENOENT));
        assert_eq!(kernel_addr::<u32>(u64::MAX), Err(ENOENT));
        assert_eq!(
            kernel_addr::<u64>(0xffff_ffff_c100_0000),
            Ok(0xffff_ffff_c100_0000)
        );
        assert_eq!(
            kernel_addr::<usize>(u64::from_safe_cast(usize::MAX)),
            Ok(usize::MAX)
        );
    }

    /// `sym_name_addr`: `EFAULT` where `unsigned long` cannot hold it.
    #[test]
    fn user_addr_that_does_not_fit_faults() {
        assert_eq!(user_addr::<u32>(0xbfff_f000), Ok(0xbfff_f000));
        // Truncated to 32 bits this would be 0x8000, a user page another buffer may live in.
        assert_eq!(user_addr::<u32>(0x1_0000_8000), Err(EFAULT));
        assert_eq!(user_addr::<u32>(u64::MAX), Err(EFAULT));
        assert_eq!(user_addr::<u64>(0x7fff_0000_8000), Ok(0x7fff_0000_8000));
        assert_eq!(user_addr::<usize>(0x8000), Ok(0x8000));
        // The pointer the query passes on is that address, not a truncated one.
        let p = UserPtr::from_addr(user_addr(0x8000).unwrap_or(0));
        assert_eq!(p.as_const_ptr().addr(), 0x8000);
    }

    /// `sym_name_size` of `BY_ADDR`: saturates, so a huge buffer is never `ENAMETOOLONG`.
    #[test]
    fn buf_len_saturates() {
        assert_eq!(buf_len::<u32>(512), 512);
        assert_eq!(buf_len::<u64>(512), 512);
        assert_eq!(buf_len::<usize>(512), 512);
        assert_eq!(buf_len::<u32>(0xffff_ffff), u32::MAX);
        // Truncated to 32 bits these would be 0 and 16: too short for any name.
        assert_eq!(buf_len::<u32>(0x1_0000_0000), u32::MAX);
        assert_eq!(buf_len::<u32>(0x1_0000_0010), u32::MAX);
        assert_eq!(buf_len::<u32>(u64::MAX), u32::MAX);
        assert_eq!(buf_len::<u64>(u64::MAX), u64::MAX);
        assert_eq!(buf_len::<usize>(u64::MAX), usize::MAX);
        // Whatever the type, a huge size holds the longest name.
        assert!(buf_len::<usize>(u64::MAX) >= NAME_LEN);
        assert!(u64::from(buf_len::<u32>(0x1_0000_0000)) >= u64::from_safe_cast(NAME_LEN));
    }

    /// A size between two versions is the older version.
    #[test]
    fn struct_versions_by_size() {
        assert!(Version::of(SIZE_VER0) == Version::V0);
        assert!(Version::of(SIZE_VER1 - 1) == Version::V0);
        assert!(Version::of(SIZE_VER1) == Version::V1);
        assert!(Version::of(SIZE_VER2 - 8) == Version::V1);
        assert!(Version::of(SIZE_VER2) == Version::V2);
        assert!(Version::of(PAGE_SIZE) == Version::V2);
        assert_eq!(Version::V1.len(), SIZE_VER1);
        assert_eq!(Version::V2.len(), size_of::<Query>());
    }

    /// Arrays overlap when they share a byte; touching is fine.
    #[test]
    fn user_ranges_overlap_when_they_share_a_byte() {
        let r = |start, len| {
            batch::UserRange::new(start, len).unwrap_or(batch::UserRange { start: 0, end: 0 })
        };
        assert!(r(0x1000, 48).overlaps(r(0x1000 + 47, 1)));
        assert!(r(0x1000, 0x100).overlaps(r(0x1080, 8)));
        assert!(r(0x1080, 8).overlaps(r(0x1000, 0x100)));
        assert!(!r(0x1000, 48).overlaps(r(0x1000 + 48, 16)));
        assert!(!r(0x1030, 16).overlaps(r(0x1000, 48)));
        assert_eq!(r(0x1000, 48).len(), 48);
    }

    /// A range that wraps around the address space cannot be mapped: `EFAULT`.
    #[test]
    fn user_range_that_wraps_faults() {
        assert!(batch::UserRange::new(usize::MAX - 8, 8).is_ok());
        assert!(matches!(
            batch::UserRange::new(usize::MAX - 8, 9),
            Err(e) if e == EFAULT
        ));
        // The largest batch: 4096 entries of 4096 bytes, and names, cannot overflow a usize.
        assert!(batch::BATCH_MAX
            .checked_mul(PAGE_SIZE)
            .is_some_and(|n| n < usize::MAX / 2));
        assert_eq!(batch::ENTRY_SIZE_VER0, 48);
    }

    /// A cursor saves walking names and never changes an answer: vmlinux text addresses in
    /// ascending, descending and scattered order through one cursor get what a fresh cursor
    /// gets for each.
    #[test]
    fn cursor_never_changes_an_answer() -> Result {
        #[allow(unused_unsafe, reason = "Safe since Rust 1.82.0")]
        // SAFETY: Only the addresses of the linker's symbols are taken.
        let (stext, etext) = unsafe {
            (
                (&raw const bindings::_stext).addr(),
                (&raw const bindings::_etext).addr(),
            )
        };
        // Every 1 KiB of text: several addresses in each block of 256 symbols.
        let step = 1024;
        let n = (etext - stext) / step;
        let rules = answer::Rules {
            bpf_shown: true,
            skip_going: true,
        };
        let mut want = KBox::new(Answer::new(), GFP_KERNEL)?;
        let mut got = KBox::new(Answer::new(), GFP_KERNEL)?;
        let mut same_block = 0;
        for order in 0..3 {
            let mut cursor = answer::Cursor::new();
            for k in 0..n {
                let i = match order {
                    0 => k,
                    1 => n - 1 - k,
                    _ => (k * 7919) % n,
                };
                let addr = stext + i * step;
                let before = cursor.pos();
                let w = want.lookup(addr, &rules, &mut answer::Cursor::new());
                assert_eq!(w, got.lookup(addr, &rules, &mut cursor));
                if w.is_ok() {
                    assert!(want.name() == got.name());
                    assert_eq!((want.start, want.size), (got.start, got.size));
                    if before != 0 && before >> 8 == cursor.pos() >> 8 && before <= cursor.pos() {
                        same_block += 1;
                    }
                }
            }
        }
        // The walk from the cursor ran, not only the one from the markers.
        assert!(same_block > n / 2);
        Ok(())
    }
}
