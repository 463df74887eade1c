// SPDX-License-Identifier: GPL-2.0
//! Loading a tiny BPF program with raw bpf() calls.

use std::io;
use std::os::fd::AsRawFd as _;
use std::os::fd::FromRawFd as _;
use std::os::fd::OwnedFd;

const BPF_PROG_LOAD: libc::c_long = 5;
const BPF_PROG_GET_FD_BY_ID: libc::c_long = 13;
const BPF_OBJ_GET_INFO_BY_FD: libc::c_long = 15;
const BPF_PROG_TYPE_SOCKET_FILTER: u32 = 1;

/// The prefix of `union bpf_attr` for BPF_PROG_LOAD, zero-padded.
#[repr(C)]
struct ProgLoadAttr {
    prog_type: u32,
    insn_cnt: u32,
    insns: u64,
    license: u64,
    log_level: u32,
    log_size: u32,
    log_buf: u64,
    kern_version: u32,
    prog_flags: u32,
    prog_name: [u8; 16],
    pad: [u64; 8],
}

/// The prefix of `union bpf_attr` for BPF_OBJ_GET_INFO_BY_FD.
#[repr(C)]
struct InfoAttr {
    bpf_fd: u32,
    info_len: u32,
    info: u64,
}

/// The prefix of `union bpf_attr` for BPF_PROG_GET_FD_BY_ID.
#[repr(C)]
struct GetFdAttr {
    prog_id: u32,
    next_id: u32,
    open_flags: u32,
    pad: u32,
}

/// The prefix of `struct bpf_prog_info` up to `jited_func_lens`.
#[repr(C)]
#[derive(Default)]
struct ProgInfo {
    typ: u32,
    id: u32,
    tag: [u8; 8],
    jited_prog_len: u32,
    xlated_prog_len: u32,
    jited_prog_insns: u64,
    xlated_prog_insns: u64,
    load_time: u64,
    created_by_uid: u32,
    nr_map_ids: u32,
    map_ids: u64,
    name: [u8; 16],
    ifindex: u32,
    gpl_compatible: u32,
    netns_dev: u64,
    netns_ino: u64,
    nr_jited_ksyms: u32,
    nr_jited_func_lens: u32,
    jited_ksyms: u64,
    jited_func_lens: u64,
}

fn sys_bpf<T>(cmd: libc::c_long, attr: &mut T) -> io::Result<libc::c_long> {
    // SAFETY: `attr` is a valid prefix of `union bpf_attr` for `cmd`,
    // its pointers point to live buffers.
    let rc = unsafe {
        libc::syscall(
            libc::SYS_bpf,
            cmd,
            attr as *mut T,
            std::mem::size_of::<T>() as libc::c_uint,
        )
    };
    if rc < 0 {
        Err(io::Error::last_os_error())
    } else {
        Ok(rc)
    }
}

/// A loaded program; unloaded (its last reference dropped) when dropped.
pub struct Prog {
    /// Kept open: the program lives until the last reference is dropped.
    _fd: OwnedFd,
    pub id: u32,
    pub tag: [u8; 8],
    /// Its JIT image's start (`jited_ksyms[0]`).
    pub addr: u64,
    /// The JIT image's length.
    pub len: u32,
    /// Its functions as BPF_OBJ_GET_INFO_BY_FD gives them:
    /// `(jited_ksyms[i], jited_func_lens[i])`.
    pub funcs: Vec<(u64, u32)>,
    pub name: String,
}

impl Prog {
    /// The kernel's name for it: `bpf_prog_<tag>_<name>`.
    pub fn sym_name(&self) -> String {
        let tag: String = self.tag.iter().map(|b| format!("{b:02x}")).collect();
        format!("bpf_prog_{tag}_{}", self.name)
    }
}

/// Load the socket filter "r0 = 0; exit" named `name` (at most 15
/// bytes), license "GPL".
pub fn load_socket_filter(name: &str) -> io::Result<Prog> {
    // BPF_MOV64_IMM(BPF_REG_0, 0); BPF_EXIT_INSN()
    let insns: [u64; 2] = [0xb7, 0x95];
    let license = b"GPL\0";
    let mut prog_name = [0u8; 16];
    prog_name[..name.len().min(15)].copy_from_slice(&name.as_bytes()[..name.len().min(15)]);
    let mut attr = ProgLoadAttr {
        prog_type: BPF_PROG_TYPE_SOCKET_FILTER,
        insn_cnt: insns.len() as u32,
        insns: insns.as_ptr() as u64,
        license: license.as_ptr() as u64,
        log_level: 0,
        log_size: 0,
        log_buf: 0,
        kern_version: 0,
        prog_flags: 0,
        prog_name,
        pad: [0; 8],
    };
    let fd = sys_bpf(BPF_PROG_LOAD, &mut attr)?;
    // SAFETY: a new fd that only we own.
    let fd = unsafe { OwnedFd::from_raw_fd(fd as i32) };

    let (info, funcs) = info(&fd)?;
    let Some(&(addr, len)) = funcs.first() else {
        return Err(io::Error::other(
            "the program has no JIT image (is net.core.bpf_jit_enable 1?)",
        ));
    };
    if addr == 0 || len == 0 || info.jited_prog_len == 0 {
        return Err(io::Error::other(
            "the program has no JIT image (is net.core.bpf_jit_enable 1?)",
        ));
    }
    Ok(Prog {
        _fd: fd,
        id: info.id,
        tag: info.tag,
        addr,
        len: info.jited_prog_len,
        funcs,
        name: name.to_string(),
    })
}

/// The program's information and its functions, main function first:
/// `(jited_ksyms[i], jited_func_lens[i])`.
fn info(fd: &OwnedFd) -> io::Result<(ProgInfo, Vec<(u64, u32)>)> {
    let get = |info: &mut ProgInfo| {
        let mut attr = InfoAttr {
            bpf_fd: fd.as_raw_fd() as u32,
            info_len: std::mem::size_of::<ProgInfo>() as u32,
            info: info as *mut ProgInfo as u64,
        };
        sys_bpf(BPF_OBJ_GET_INFO_BY_FD, &mut attr).map(drop)
    };
    // First the counts, then the arrays (a program's are fixed once
    // it is loaded).
    let mut info = ProgInfo::default();
    get(&mut info)?;
    let n = info.nr_jited_ksyms as usize;
    if n != info.nr_jited_func_lens as usize {
        return Err(io::Error::other(format!(
            "{} jited_ksyms but {} jited_func_lens",
            n, info.nr_jited_func_lens
        )));
    }
    let mut ksyms = vec![0u64; n];
    let mut lens = vec![0u32; n];
    let mut info = ProgInfo {
        nr_jited_ksyms: n as u32,
        nr_jited_func_lens: n as u32,
        jited_ksyms: ksyms.as_mut_ptr() as u64,
        jited_func_lens: lens.as_mut_ptr() as u64,
        ..Default::default()
    };
    get(&mut info)?;
    if info.nr_jited_ksyms as usize != n || info.nr_jited_func_lens as usize != n {
        return Err(io::Error::other("the number of functions changed"));
    }
    Ok((info, ksyms.into_iter().zip(lens).collect()))
}

/// The functions of the loaded program `id`, as `info()` gives them;
/// `None` if there is no such program (any more).
pub fn funcs_by_id(id: u32) -> io::Result<Option<Vec<(u64, u32)>>> {
    let mut attr = GetFdAttr {
        prog_id: id,
        next_id: 0,
        open_flags: 0,
        pad: 0,
    };
    let fd = match sys_bpf(BPF_PROG_GET_FD_BY_ID, &mut attr) {
        Ok(fd) => fd,
        Err(err) if err.raw_os_error() == Some(libc::ENOENT) => return Ok(None),
        Err(err) => return Err(err),
    };
    // SAFETY: a new fd that only we own.
    let fd = unsafe { OwnedFd::from_raw_fd(fd as i32) };
    Ok(Some(info(&fd)?.1))
}
