// SPDX-License-Identifier: GPL-2.0
//! `bench <client> <workload> <addrfile>`: one timed run in this process,
//! as bench_query.c's `--client` mode.

use std::io::Write as _;
use std::path::Path;
use std::time::Instant;

use crate::answer::Answer;
use crate::answer::Client;
use crate::answer::KqClient;
use crate::answer::TextClient;

/// Hex addresses, one a line ("0x" optional); blank lines skipped.
pub fn read_addrs(path: &Path) -> Result<Vec<u64>, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    text.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .map(|l| {
            let hex = l.strip_prefix("0x").unwrap_or(l);
            u64::from_str_radix(hex, 16)
                .map_err(|e| format!("{}: bad address {l:?}: {e}", path.display()))
        })
        .collect()
}

/// The timed part, from `t0` on: a new Symbolizer, then the workload's calls. `bpf_info`
/// measures a JIT address to its program's information on a Symbolizer already in use: its
/// first address (a core one) is symbolized before `t0` is reset, so that neither client's
/// first use (reading /proc/kallsyms, or the probe) is counted.
fn workload<C: Client>(
    workload: &str,
    addrs: &[u64],
    t0: &mut Instant,
) -> Result<Vec<Answer>, String> {
    match workload {
        "first" => C::new(true, true).symbolize(&addrs[..1]),
        "cold" => C::new(true, true).symbolize(addrs),
        "bpf_info" => {
            let symbolizer = C::new(true, true);
            let mut out = symbolizer.symbolize(&addrs[..1])?;
            *t0 = Instant::now();
            for addr in &addrs[1..] {
                out.extend(symbolizer.symbolize(std::slice::from_ref(addr))?);
            }
            Ok(out)
        }
        _ => Err(format!("unknown workload {workload:?}")),
    }
}

pub fn run(client: &str, wl: &str, addrfile: &Path) -> i32 {
    if !matches!(wl, "first" | "cold" | "bpf_info") {
        eprintln!("blazesym-check: bench: unknown workload {wl:?} (first, cold, bpf_info)");
        return 2;
    }
    let addrs = match read_addrs(addrfile) {
        Ok(addrs) if addrs.len() > usize::from(wl == "bpf_info") => addrs,
        Ok(_) => {
            eprintln!(
                "blazesym-check: bench: {}: no addresses",
                addrfile.display()
            );
            return 2;
        }
        Err(err) => {
            eprintln!("blazesym-check: bench: {err}");
            return 2;
        }
    };

    // Instant is CLOCK_MONOTONIC on Linux.
    let mut t0 = Instant::now();
    let result = match client {
        "text" => workload::<TextClient>(wl, &addrs, &mut t0),
        "kq" => workload::<KqClient>(wl, &addrs, &mut t0),
        _ => {
            eprintln!("blazesym-check: bench: unknown client {client:?} (text, kq)");
            return 2;
        }
    };
    let mut ms = t0.elapsed().as_secs_f64() * 1e3;
    if wl == "bpf_info" {
        // Per BPF address, in microseconds.
        ms = ms * 1e3 / (addrs.len() - 1) as f64;
    }

    let asked = if wl == "first" { 1 } else { addrs.len() };
    let mut err = 0;
    match result {
        Ok(answers) if answers.len() == asked => {
            if let Some((addr, answer)) = addrs
                .iter()
                .zip(&answers)
                .find(|(_, a)| a.name().is_none_or(str::is_empty))
            {
                eprintln!("blazesym-check: bench: {client} {wl}: 0x{addr:x}: {answer}");
                err = 1;
            }
        }
        Ok(answers) => {
            eprintln!(
                "blazesym-check: bench: {client} {wl}: {} answers for {asked} addresses",
                answers.len()
            );
            err = 1;
        }
        Err(e) => {
            eprintln!("blazesym-check: bench: {client} {wl}: symbolize: {e}");
            err = 1;
        }
    }

    println!("{ms:.4}");
    // Stopped, for the parent to read our RSS; not when run by hand.
    let _ = std::io::stdout().flush();
    if std::env::var_os("BENCH_QUERY_STOP").is_some() {
        // SAFETY: raise() is async-signal-safe and has no preconditions.
        unsafe { libc::raise(libc::SIGSTOP) };
    }
    err
}
