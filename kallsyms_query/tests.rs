// SPDX-License-Identifier: GPL-2.0

//! KUnit tests of the conversions of the user's `__u64` fields.
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
}
