// SPDX-License-Identifier: GPL-2.0

//! Symbol names of programs: `bpf_prog_<tag>[_<name>]`.
//!
//! `<tag>` is the program's tag in hex. `<name>` is the BTF function name when the program has
//! BTF function info (it is not cut to `BPF_OBJ_NAME_LEN`), else the name given at load time,
//! else nothing. Names longer than `KSYM_NAME_LEN - 1` are cut, as C's `snprintf()` does.

use kernel::{
    bindings,
    prelude::*, //
};

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

/// Writes `__cfi_<name>` into `buf`, the FineIBT preamble's symbol of the program called `name`
/// (NUL-terminated); returns its length.
#[cfg_attr(
    not(any(CONFIG_FINEIBT, CONFIG_BPF_KSYM_KUNIT_TEST)),
    expect(dead_code, reason = "only FineIBT has __cfi_ symbols")
)]
pub(crate) fn format_cfi(buf: &mut [u8], name: &[u8]) -> usize {
    let mut out = NameBuf::new(buf);
    out.push(b"__cfi_");
    out.push(until_nul(name));
    out.finish()
}

/// The bytes before the first NUL of `s`.
fn until_nul(s: &[u8]) -> &[u8] {
    &s[..s.iter().position(|&b| b == 0).unwrap_or(s.len())]
}

/// The BTF name of function `idx` of `func_info`, if the program has BTF function info.
///
/// # Safety
///
/// `func_info` has `cnt` entries whose types are in `btf`, and `btf` outlives `'a`.
unsafe fn btf_func_name<'a>(
    func_info: *const bindings::bpf_func_info,
    cnt: u32,
    idx: u32,
    btf: *const bindings::btf,
) -> Option<&'a [u8]> {
    if cnt == 0 || idx >= cnt {
        return None;
    }
    // SAFETY: `idx < cnt`, per the check above and the safety requirements.
    let info = unsafe { &*func_info.add(idx as usize) };
    // SAFETY: The verifier checked `type_id` against `btf`.
    let ty = unsafe { bindings::btf_type_by_id(btf, info.type_id) };
    if ty.is_null() {
        // An id outside `btf`, or no BTF at all (the stub without `CONFIG_BPF_SYSCALL`).
        return None;
    }
    // SAFETY: `ty` is a valid type of `btf`, whose string section holds its name.
    let name = unsafe { bindings::btf_name_by_offset(btf, (*ty).name_off) };
    // SAFETY: BTF strings are NUL-terminated and live as long as `btf`.
    (!name.is_null()).then(|| unsafe { CStr::from_char_ptr(name) }.to_bytes())
}

/// Sets the name of `ksym`, the unregistered `aux->ksym` of program `fp`, as
/// `bpf_prog_ksym_set_name()` did in C: the BTF function name when there is one (not cut to
/// `BPF_OBJ_NAME_LEN`), else `aux->name`.
///
/// Reads single fields of `fp` and its `aux` through raw places: other CPUs may write other
/// fields of them meanwhile (e.g. `aux->refcnt`).
///
/// # Safety
///
/// `fp` is a valid, JIT-compiled program whose BTF is valid, and `ksym` is its `aux->ksym`, not
/// registered, so that nothing else reads or writes it.
pub(crate) unsafe fn set(fp: *const bindings::bpf_prog, ksym: *mut bindings::bpf_ksym) {
    // SAFETY: `fp` and its `aux` are valid; the tag, name and BTF fields are set at load time,
    // before the program is JIT-compiled, and not changed while it lives, so shared references
    // to those fields alone do not alias any writer.
    let (tag, aux_name, btf) = unsafe {
        let aux = (*fp).aux;
        (
            &(*fp).__bindgen_anon_1.tag,
            &(*aux).name,
            btf_func_name(
                (*aux).func_info,
                (*aux).func_info_cnt,
                (*aux).func_idx,
                (*aux).btf,
            ),
        )
    };
    let name = btf.unwrap_or_else(|| until_nul(aux_name));
    // SAFETY: `ksym` is not registered, so this is the only access to its name.
    format(unsafe { &mut (*ksym).name }, tag, name);
}
