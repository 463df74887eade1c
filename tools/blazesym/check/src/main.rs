// SPDX-License-Identifier: GPL-2.0
//! blazesym-check: compare blazesym 0.2.7 as published ("text", parsing
//! /proc/kallsyms) with the KALLSYMS_QUERY-patched copy ("kq"), and
//! benchmark them. See `usage()`.

mod answer;
mod bench;
mod bpf;
mod compare;
mod kallsyms;

use std::path::PathBuf;
use std::process::ExitCode;

fn usage() -> ExitCode {
    eprintln!(
        "usage: blazesym-check compare [--addrs N] [--capi PATH] [--require KIND,...]\n\
         \x20                             [--allow-fallback]\n\
         \x20      blazesym-check bench <text|kq> <workload> <addrfile>\n\
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
         without it).\n\
         bench: time one client on the addresses of addrfile (hex, one a line)\n\
         and print milliseconds. Workloads: first, cold (the first or all\n\
         addresses on the process's first symbolizer; cold also prints how\n\
         far it raised the process's peak RSS, in KiB); first_warm, cold_warm\n\
         (the same on a new symbolizer after one run on another); bpf_first,\n\
         bpf_info (on a symbolizer that answered the first address: the\n\
         second, or each after it in microseconds per address)."
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
        Some("bench") if args.len() == 4 => {
            let rc = bench::run(&args[1], &args[2], &PathBuf::from(&args[3]));
            ExitCode::from(rc as u8)
        }
        _ => usage(),
    }
}
