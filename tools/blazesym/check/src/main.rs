// SPDX-License-Identifier: GPL-2.0
//! blazesym-check: compare blazesym 0.2.7 as published ("text", parsing
//! /proc/kallsyms) with the KALLSYMS_QUERY-patched copy ("kq"). See
//! `usage()`. Benchmarks use capi_bench (../capi_bench.c), one blazesym in
//! each binary.

mod answer;
mod bpf;
mod compare;
mod kallsyms;

use std::path::PathBuf;
use std::process::ExitCode;

fn usage() -> ExitCode {
    eprintln!(
        "usage: blazesym-check compare [--addrs N] [--capi PATH] [--require KIND,...]\n\
         \x20                             [--allow-fallback]\n\
         \n\
         compare: symbolize at least N (default 100000) kernel addresses derived\n\
         from /proc/kallsyms with both blazesym copies, check kq against text and\n\
         the kernel, plus BPF programs loaded and unloaded meanwhile. Needs root\n\
         and KALLSYMS_QUERY v2; --allow-fallback (host smoke tests only) runs\n\
         without it and skips the kq-only checks. --capi PATH also checks the\n\
         blazesym-c program capi_check at PATH against kq. --require fails the\n\
         run if a kind (core, module, bpf_prog, bpf_subprog, bpf_trampoline,\n\
         bpf_dispatcher, bpf_other, builtin) has no test address. bpf_subprog:\n\
         a bpf_prog_ line that KALLSYMS_QUERY says is a subprogram (none\n\
         without it)."
    );
    ExitCode::from(2)
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.first().map(String::as_str) {
        Some("compare") => {
            let mut opts = compare::Opts {
                addrs: 100_000,
                capi: None,
                allow_fallback: false,
                require: Vec::new(),
            };
            let mut it = args[1..].iter();
            while let Some(arg) = it.next() {
                match arg.as_str() {
                    "--addrs" => match it.next().and_then(|n| n.parse().ok()) {
                        Some(n) if n > 0 => opts.addrs = n,
                        _ => return usage(),
                    },
                    "--capi" => match it.next() {
                        Some(path) => opts.capi = Some(PathBuf::from(path)),
                        None => return usage(),
                    },
                    "--allow-fallback" => opts.allow_fallback = true,
                    "--require" => match it.next() {
                        Some(kinds) => opts.require = kinds.split(',').map(String::from).collect(),
                        None => return usage(),
                    },
                    _ => return usage(),
                }
            }
            ExitCode::from(compare::run(&opts))
        }
        _ => usage(),
    }
}
