// SPDX-License-Identifier: GPL-2.0
//! Kernel addresses in any text: `perf script` output, a `bpftrace` stack, a log line.

/// The lowest x86-64 kernel address (the start of the upper half, 4-level paging): smaller
/// hexadecimal numbers in the text are left alone.
pub const KERNEL_MIN: u64 = 0xffff_8000_0000_0000;

/// The kernel addresses in `line`, which may be any bytes: each a byte range of the line and
/// its value. An address is exactly 16 hex digits, with or without `0x`, not inside a longer
/// word (letters, digits, `_`), whose value is at least [`KERNEL_MIN`].
pub fn kernel_addresses(line: &[u8]) -> Vec<(std::ops::Range<usize>, u64)> {
    let b = line;
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let word_start = i == 0 || !is_word(b[i - 1]);
        let prefix = if b[i..].starts_with(b"0x") { 2 } else { 0 };
        let digits = b[i + prefix..]
            .iter()
            .take_while(|c| c.is_ascii_hexdigit())
            .count();
        let end = i + prefix + digits;
        let word_end = end == b.len() || !is_word(b[end]);
        if word_start && word_end && digits == 16 {
            // 16 ASCII hex digits: UTF-8, and a value that fits.
            let v = std::str::from_utf8(&b[i + prefix..end])
                .ok()
                .and_then(|digits| u64::from_str_radix(digits, 16).ok());
            if let Some(v) = v.filter(|&v| v >= KERNEL_MIN) {
                out.push((i..end, v));
            }
        }
        i = if digits > 0 { end } else { i + 1 };
    }
    out
}

/// A byte of a word (an identifier): an address inside one is part of a name.
fn is_word(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_'
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_addresses_in_perf_script_and_bpftrace_lines() {
        let perf = "\tffffffff81234567 bpf_user_rnd_u32+0x7 ([kernel.kallsyms])";
        assert_eq!(
            kernel_addresses(perf.as_bytes()),
            vec![(1..17, 0xffffffff81234567)]
        );
        let bt = "        0xffffffffc0001234";
        assert_eq!(
            kernel_addresses(bt.as_bytes()),
            vec![(8..26, 0xffffffffc0001234)]
        );
        let two = "ffffffff81000000,ffffffffa0000010";
        assert_eq!(kernel_addresses(two.as_bytes()).len(), 2);
    }

    #[test]
    fn leaves_user_addresses_words_and_short_numbers() {
        assert!(kernel_addresses(b"7f0012345678 main+0x10").is_empty());
        assert!(kernel_addresses(b"pid 1234 cpu 0001").is_empty());
        assert!(kernel_addresses(b"xffffffff81234567 ffffffff81234567z").is_empty());
        assert!(kernel_addresses(b"ffffffff812345670").is_empty());
        assert!(kernel_addresses(b"func_ffffffff81234567 ffffffff81234567_x").is_empty());
    }

    #[test]
    fn kernel_addresses_start_at_kernel_min() {
        let line = b"ffff7fffffffffff ffff800000000000 0xffff7fffffffffff 0xffff800000000000";
        assert_eq!(
            kernel_addresses(line),
            vec![(17..33, KERNEL_MIN), (53..71, KERNEL_MIN)]
        );
    }

    #[test]
    fn finds_addresses_among_bytes_that_are_not_utf8() {
        let line = b"\xff\xfe ffffffff81234567\r\n";
        assert_eq!(kernel_addresses(line), vec![(3..19, 0xffffffff81234567)]);
    }
}
