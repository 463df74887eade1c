// SPDX-License-Identifier: GPL-2.0

//! Symbol names of programs: `bpf_prog_<tag>[_<name>]`.
//!
//! `<tag>` is the program's tag in hex. `<name>` is the BTF function name when the program has
//! BTF function info (it is not cut to `BPF_OBJ_NAME_LEN`), else the name given at load time,
//! else nothing. Names longer than `KSYM_NAME_LEN - 1` are cut, as C's `snprintf()` does.

use kernel::{bindings, prelude::*};

/// Fills a fixed buffer, cutting what does not fit and always leaving a terminating NUL.
struct NameBuf<'a> {
    buf: &'a mut [u8],
    len: usize,
}

impl<'a> NameBuf<'a> {
    fn new(buf: &'a mut [u8]) -> Self {
        Self { buf, len: 0 }
    }

    fn push(&mut self, bytes: &[u8]) {
        let room = self.buf.len().saturating_sub(self.len + 1);
        let n = bytes.len().min(room);
        self.buf[self.len..self.len + n].copy_from_slice(&bytes[..n]);
        self.len += n;
    }

    fn push_hex(&mut self, bytes: &[u8]) {
        const HEX: &[u8; 16] = b"0123456789abcdef";
        for b in bytes {
            self.push(&[HEX[usize::from(b >> 4)], HEX[usize::from(b & 0xf)]]);
        }
    }

    fn finish(self) -> usize {
        if let Some(nul) = self.buf.get_mut(self.len) {
            *nul = 0;
        }
        self.len
    }
}

/// Writes the name of a program with tag `tag` and name `name` into `buf`; returns its length.
pub(crate) fn format(buf: &mut [u8], tag: &[u8], name: &[u8]) -> usize {
    let mut out = NameBuf::new(buf);
    out.push(b"bpf_prog_");
    out.push_hex(tag);
    if !name.is_empty() {
        out.push(b"_");
        out.push(name);
    }
    out.finish()
}

/// The bytes before the first NUL of `s`.
fn until_nul(s: &[u8]) -> &[u8] {
    &s[..s.iter().position(|&b| b == 0).unwrap_or(s.len())]
}

/// The name part of `prog`'s symbol: BTF function name, else `aux->name`.
///
/// # Safety
///
/// `prog` is a valid, JIT-compiled program whose `aux` and BTF are valid for `'a`.
unsafe fn prog_name<'a>(prog: &'a bindings::bpf_prog) -> &'a [u8] {
    // SAFETY: `aux` is valid for the lifetime of the program, per the safety requirements.
    let aux = unsafe { &*prog.aux };
    if aux.func_info_cnt != 0 && aux.func_idx < aux.func_info_cnt {
        // SAFETY: `func_info` has `func_info_cnt` entries and `func_idx` is in range.
        let info = unsafe { &*aux.func_info.add(aux.func_idx as usize) };
        // SAFETY: The verifier checked `type_id` against `btf`.
        let ty = unsafe { bindings::btf_type_by_id(aux.btf, info.type_id) };
        // SAFETY: `ty` is a valid type of `btf`, whose string section holds its name.
        let name = unsafe { bindings::btf_name_by_offset(aux.btf, (*ty).name_off) };
        if !name.is_null() {
            // SAFETY: BTF strings are NUL-terminated and live as long as `btf`.
            return unsafe { CStr::from_char_ptr(name) }.to_bytes();
        }
    }
    until_nul(&aux.name)
}

/// Sets `prog->aux->ksym`'s name, as `bpf_prog_ksym_set_name()` did in C.
///
/// # Safety
///
/// As for [`prog_name`], and nothing reads `aux->ksym.name` concurrently (it is not registered).
pub(crate) unsafe fn set(prog: &bindings::bpf_prog) {
    // SAFETY: Per the safety requirements.
    let name = unsafe { prog_name(prog) };
    // SAFETY: The caller has the only access to the unregistered `ksym`.
    let sym = unsafe { &mut (*prog.aux).ksym.name };
    // SAFETY: `tag` is the active member of its union once the program is loaded.
    let tag = unsafe { &prog.__bindgen_anon_1.tag };
    format(sym, tag, name);
}
