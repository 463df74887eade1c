// SPDX-License-Identifier: GPL-2.0
//! `ksym-query name <symbol>` / `ksym-query addr <address>`: one kernel symbol lookup.

use ksym_query::{Kallsyms, Symbol};
use std::process::ExitCode;

fn usage() -> ExitCode {
    eprintln!("usage: ksym-query [--text] name <symbol> | addr <hex address>");
    eprintln!("  --text: parse /proc/kallsyms instead of using the KALLSYMS_QUERY ioctl");
    ExitCode::from(2)
}

fn main() -> ExitCode {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let text = args.first().is_some_and(|a| a == "--text");
    if text {
        args.remove(0);
    }
    let [mode, arg] = args.as_slice() else {
        return usage();
    };
    let k = match if text {
        Kallsyms::open_text()
    } else {
        Kallsyms::open()
    } {
        Ok(k) => k,
        Err(e) => {
            eprintln!("ksym-query: /proc/kallsyms: {e}");
            return ExitCode::FAILURE;
        }
    };
    if !k.uses_ioctl() && !text {
        eprintln!("ksym-query: this kernel has no KALLSYMS_QUERY; parsed /proc/kallsyms instead");
    }
    let result = match mode.as_str() {
        "name" => k.by_name(arg).map(|a| println!("{a:016x} {arg}")),
        "addr" => {
            let Ok(addr) = u64::from_str_radix(arg.trim_start_matches("0x"), 16) else {
                eprintln!("ksym-query: '{arg}' is not a hex address");
                return ExitCode::from(2);
            };
            k.by_addr(addr).map(|s: Symbol| {
                let owner = if s.owner.is_empty() {
                    "vmlinux"
                } else {
                    &s.owner
                };
                println!("{}+0x{:x}/0x{:x} [{owner}]", s.name, addr - s.start, s.size)
            })
        }
        _ => return usage(),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("ksym-query: {mode} {arg}: {e}");
            ExitCode::FAILURE
        }
    }
}
