// SPDX-License-Identifier: GPL-2.0

//! KUnit tests of the conversions of the user's `__u64` fields, the struct versions, the
//! batch's checks of its arrays, and the cursor of its vmlinux lookups.
//!
//! The conversions are generic over the integer type they produce, `usize` in the kernel, so a
//! 64-bit kernel can show what a 32-bit one does: with `u32`, values that do not fit an
//! `unsigned long` there.

use super::*;
use answer::Answer;

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

    /// `UserSliceReader::read_struct()` refuses a slice over a page before it reads a byte: the
    /// address here is one no task can have mapped, which a read would fault on (`EFAULT`).
    #[test]
    fn read_struct_over_a_page_is_e2big_unread() {
        let bad = UserPtr::from_addr(usize::MAX - PAGE_SIZE);
        let read = |len| UserSlice::new(bad, len).reader().read_struct::<UserQuery>();
        assert!(matches!(read(PAGE_SIZE + 1), Err(e) if e == E2BIG));
        assert!(matches!(read(usize::MAX), Err(e) if e == E2BIG));
        assert!(matches!(read(SIZE_VER2), Err(e) if e == EFAULT));
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

    /// The name `kallsyms_lookup()` gives for `addr`, the walk from the block's marker that the
    /// cursor saves; `None` if `addr` is not a vmlinux symbol.
    fn reference(addr: usize, buf: &mut [u8; NAME_LEN]) -> Option<(usize, usize)> {
        let (mut size, mut offset) = (0, 0);
        let mut modname = core::ptr::null_mut();
        // SAFETY: `buf` holds `KSYM_NAME_LEN` bytes; the other pointers are valid.
        let name = unsafe {
            bindings::kallsyms_lookup(addr, &mut size, &mut offset, &mut modname, buf.as_mut_ptr())
        };
        (!name.is_null() && modname.is_null()).then_some((addr - offset, size))
    }

    /// `answer`'s name, in `got`, is `want`'s.
    fn same_name(answer: &Answer, got: &answer::NameBuf, want: &[u8; NAME_LEN]) -> bool {
        core::ffi::CStr::from_bytes_until_nul(want)
            .is_ok_and(|want| want.to_bytes_with_nul() == answer.name(got))
    }

    /// A cursor saves walking names and never changes an answer: vmlinux text addresses in
    /// ascending, descending and scattered order through one cursor get what
    /// `kallsyms_lookup()` gives for each.
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
        // A stride prime to `n`: a permutation of the addresses.
        let stride = (7919..).find(|s| gcd(*s, n) == 1).unwrap_or(1);
        let rules = answer::Rules {
            bpf_shown: true,
            skip_going: true,
        };
        let mut want = KBox::new([0u8; NAME_LEN], GFP_KERNEL)?;
        let mut got = KBox::new(Answer::new(), GFP_KERNEL)?;
        let mut got_name = KBox::new([0u8; NAME_LEN], GFP_KERNEL)?;
        let mut found = 0;
        for order in 0..3 {
            let mut cursor = answer::Cursor::new();
            for k in 0..n {
                let i = match order {
                    0 => k,
                    1 => n - 1 - k,
                    _ => (k * stride) % n,
                };
                let addr = stext + i * step;
                let w = reference(addr, &mut want);
                let g = got.lookup(addr, &rules, &mut cursor, &mut got_name);
                assert_eq!(w.is_some(), g.is_ok());
                if let Some(extent) = w {
                    assert!(same_name(&got, &got_name, &want));
                    assert_eq!(extent, (got.start, got.size));
                    found += 1;
                }
            }
        }
        assert!(found > n);
        Ok(())
    }

    /// The lookup reads the cursor: one whose offset is that of a later name than it claims
    /// (still in bounds) walks to the wrong name. Without this, a lookup that ignored the cursor
    /// would pass the test above.
    #[test]
    fn lookup_walks_from_the_cursor() -> Result {
        #[allow(unused_unsafe, reason = "Safe since Rust 1.82.0")]
        // SAFETY: Only the address of the linker's symbol is taken.
        let stext = unsafe { (&raw const bindings::_stext).addr() };
        let rules = answer::Rules {
            bpf_shown: true,
            skip_going: true,
        };
        let mut a = KBox::new(Answer::new(), GFP_KERNEL)?;
        let mut b = KBox::new(Answer::new(), GFP_KERNEL)?;
        let mut a_name = KBox::new([0u8; NAME_LEN], GFP_KERNEL)?;
        let mut b_name = KBox::new([0u8; NAME_LEN], GFP_KERNEL)?;
        // Three symbols in a row from the start of the text, the first two in one block.
        let mut addr = stext;
        for _ in 0..1024 {
            let mut at_a = answer::Cursor::new();
            a.lookup(addr, &rules, &mut at_a, &mut a_name)?;
            let next = a.start + a.size;
            let mut at_b = answer::Cursor::new();
            b.lookup(next, &rules, &mut at_b, &mut b_name)?;
            let ((pa, _), (pb, off_b)) = (at_a.parts(), at_b.parts());
            if pb <= pa || pa >> 8 != pb >> 8 {
                addr = next.max(addr + 1);
                continue;
            }
            // SAFETY: `off_b` is where symbol `pb >= pa`'s name starts, near the start of the
            // text, far more than 256 symbols before the last one.
            let mut forged = unsafe { answer::Cursor::from_parts(pa, off_b) };
            let mut c = KBox::new(Answer::new(), GFP_KERNEL)?;
            let mut c_name = KBox::new([0u8; NAME_LEN], GFP_KERNEL)?;
            c.lookup(next, &rules, &mut forged, &mut c_name)?;
            // Walking `pb - pa` names from `pb`'s lands on a later one.
            assert!(c.name(&c_name) != b.name(&b_name));
            return Ok(());
        }
        // Text without two symbols in one block in its first 1,024: the test found nothing.
        Err(ENOENT)
    }
}

/// The greatest common divisor.
fn gcd(a: usize, b: usize) -> usize {
    if b == 0 {
        a
    } else {
        gcd(b, a % b)
    }
}
