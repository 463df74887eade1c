// SPDX-License-Identifier: GPL-2.0
//! `ksym-query name <symbol>` / `ksym-query addr <address>`: one kernel symbol lookup.
//! `ksym-query symbolize`: every kernel address in the text on stdin, named, in batches.

use ksym_query::{scan, Kallsyms, Symbol, Symbolizer};
use std::io::{self, BufRead, Write};
use std::process::ExitCode;

fn usage() -> ExitCode {
    eprintln!("usage: ksym-query [--text] name <symbol> | addr <hex address> | symbolize [-v]");
    eprintln!("  --text: parse /proc/kallsyms instead of using the KALLSYMS_QUERY ioctl");
    eprintln!("  symbolize: read text on stdin (addresses, 'perf script', a bpftrace stack) and");
    eprintln!("    write it back with each kernel address as symbol+0xoff/0xsize [owner];");
    eprintln!("    -v adds what each symbol is, and BPF program ids and subprogram indexes");
    ExitCode::from(2)
}

/// `symbol+0xoff/0xsize [owner]`, with `-v` what it is and, for BPF code, its ids.
fn describe(s: &Symbol, addr: u64, verbose: bool) -> String {
    let mut out = s.frame(addr);
    if verbose {
        out += &format!(" <{}", s.kind.name());
        if let Some(id) = s.prog_id {
            out += &format!(" id={id}");
        }
        if let Some(sub) = s.subprog {
            out += &format!(" subprog={sub}");
        }
        out += ">";
    }
    out
}

/// Every line of stdin, with its kernel addresses named; all addresses go to the kernel in one
/// batch (the text is read to its end first).
fn symbolize(k: Kallsyms, verbose: bool) -> Result<(), String> {
    let lines: Vec<String> = io::stdin()
        .lock()
        .lines()
        .collect::<Result<_, _>>()
        .map_err(|e| format!("reading stdin: {e}"))?;
    let found: Vec<_> = lines.iter().map(|l| scan::kernel_addresses(l)).collect();
    let addrs: Vec<u64> = found.iter().flatten().map(|(_, a)| *a).collect();
    let mut sym = Symbolizer::new(k);
    let answers = sym.symbolize(&addrs).map_err(|e| e.to_string())?;
    let mut answers = answers.into_iter();
    let mut out = io::BufWriter::new(io::stdout().lock());
    for (line, found) in lines.iter().zip(found) {
        let mut text = String::with_capacity(line.len() + 64);
        let mut last = 0;
        for (range, addr) in found {
            text += &line[last..range.start];
            match answers.next().flatten() {
                Some(s) => text += &describe(&s, addr, verbose),
                None => text += &line[range.clone()],
            }
            last = range.end;
        }
        text += &line[last..];
        writeln!(out, "{text}").map_err(|e| format!("writing stdout: {e}"))?;
    }
    out.flush().map_err(|e| format!("writing stdout: {e}"))
}

fn main() -> ExitCode {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let text = args.first().is_some_and(|a| a == "--text");
    if text {
        args.remove(0);
    }
    let Some(mode) = args.first().cloned() else {
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
    if mode == "symbolize" {
        let verbose = match &args[1..] {
            [] => false,
            [v] if v == "-v" => true,
            _ => return usage(),
        };
        return match symbolize(k, verbose) {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => {
                eprintln!("ksym-query: symbolize: {e}");
                ExitCode::FAILURE
            }
        };
    }
    let [_, arg] = args.as_slice() else {
        return usage();
    };
    let result = match mode.as_str() {
        "name" => k.by_name(arg).map(|a| println!("{a:016x} {arg}")),
        "addr" => {
            let Ok(addr) = u64::from_str_radix(arg.trim_start_matches("0x"), 16) else {
                eprintln!("ksym-query: '{arg}' is not a hex address");
                return ExitCode::from(2);
            };
            k.by_addr(addr).map(|s| println!("{}", s.frame(addr)))
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
