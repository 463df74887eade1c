// SPDX-License-Identifier: GPL-2.0

//! BPF.
//!
//! C header: [`include/linux/bpf.h`](srctree/include/linux/bpf.h)

pub mod ksym;
