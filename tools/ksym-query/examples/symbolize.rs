// SPDX-License-Identifier: GPL-2.0
//! The library in a few lines: name kernel addresses, say why the others have no name.
//!
//! ```sh
//! cargo run --example symbolize                      # _text and a few addresses near it
//! cargo run --example symbolize -- ffffffff81000010 0
//! ```

use ksym_query::{errno, Kallsyms, Reason, Symbolized, Symbolizer};
use std::process::ExitCode;

fn main() -> ExitCode {
    let kallsyms = match Kallsyms::open() {
        Ok(k) => k,
        Err(e) => {
            eprintln!("/proc/kallsyms: {e}");
            return ExitCode::FAILURE;
        }
    };
    println!(
        "backend: {}",
        if kallsyms.uses_ioctl() {
            "KALLSYMS_QUERY"
        } else {
            "the text"
        }
    );
    let mut addrs = Vec::new();
    for arg in std::env::args().skip(1) {
        match u64::from_str_radix(arg.trim_start_matches("0x"), 16) {
            Ok(a) => addrs.push(a),
            Err(_) => {
                eprintln!("'{arg}' is not a hex address");
                return ExitCode::FAILURE;
            }
        }
    }
    if addrs.is_empty() {
        // A name to an address; errors say which errno they are.
        match kallsyms.by_name("_text") {
            Ok(text) => addrs.extend([text, text + 0x10, 0x1000]),
            Err(e) => {
                let name = e.errno().and_then(errno::name).unwrap_or("?");
                eprintln!("_text: {e} [{name}]");
                return ExitCode::FAILURE;
            }
        }
    }

    // A small cache: 1,024 answers, kept while the kernel's generation stays the same.
    let mut symbolizer = Symbolizer::with_cache_max(kallsyms, 1024);
    for (addr, answer) in addrs.iter().zip(symbolizer.symbolize(&addrs)) {
        match answer {
            Symbolized::Sym(s) => {
                // The text, or a KALLSYMS_QUERY older than version 2, has no kinds.
                let read = if s.exact {
                    ""
                } else {
                    " (kind read from the owner and name)"
                };
                println!("{addr:016x} {} <{}>{read}", s.frame(*addr), s.kind.name());
            }
            Symbolized::Unknown(Reason::NoSymbol) => println!("{addr:016x} -"),
            Symbolized::Unknown(why) => println!("{addr:016x} ? {why}"),
        }
    }
    // The same addresses again: answered from the cache, unless the symbols changed.
    let before = symbolizer.looked_up;
    symbolizer.symbolize(&addrs);
    println!(
        "looked up again: {} of {}",
        symbolizer.looked_up - before,
        addrs.len()
    );
    ExitCode::SUCCESS
}
