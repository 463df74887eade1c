// SPDX-License-Identifier: GPL-2.0
//! `bench <client> <workload> <addrfile>`: one timed run in this process,
//! as bench_query.c's `--client` mode.
//!
//! `first` and `cold` time the first symbolizer of a fresh process, as a
//! tool's first stack pays it. Under TCG, a process's first run of code
//! is dear (each page of code and heap it touches first is a page fault
//! and a code translation), and blazesym_kq's own work is small enough for
//! that to be most of its time there. So `first_warm` and `cold_warm` also
//! time a new `Symbolizer` in a process that has run the same workload once
//! on another one, dropped before the clock starts: the symbolizer's own
//! cost, without the process's first run of blazesym's code.

use std::io::Write as _;
use std::path::Path;
use std::time::Instant;

use crate::answer::Answer;
use crate::answer::Client;
use crate::answer::KqClient;
use crate::answer::TextClient;

/// The workloads, as `bench` takes them.
pub const WORKLOADS: &[&str] = &[
    "first",
    "cold",
    "first_warm",
    "cold_warm",
    "bpf_first",
    "bpf_info",
];

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

/// This process's peak RSS so far, in KiB (`VmHWM`). The kernel keeps it
/// from per-CPU counters, so it moves in steps of up to 128 KiB.
fn peak_rss_kib() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().strip_suffix("kB"))
        .and_then(|v| v.trim().parse().ok())
}

/// How many of `addrs` a workload answers.
fn answered(workload: &str, addrs: &[u64]) -> usize {
    match workload {
        "first" | "first_warm" | "bpf_first" => 1,
        "bpf_info" => addrs.len() - BPF_INFO_FROM,
        _ => addrs.len(),
    }
}

/// The addresses `bpf_info` times: after the core one and the first JIT
/// address, which `bpf_first` times (the published blazesym walks every
/// program on it).
const BPF_INFO_FROM: usize = 2;

/// The first address of `addrs` a workload's answers are for.
fn answers_from(workload: &str) -> usize {
    match workload {
        "bpf_first" => 1,
        "bpf_info" => BPF_INFO_FROM,
        _ => 0,
    }
}

/// The timed part, from `t0` on, which the warm workloads move: see the
/// module's documentation. `bpf_first` and `bpf_info` time a symbolizer
/// already used once, on the file's first address (a core one), so that
/// neither client's first use (reading /proc/kallsyms, or the probe) is
/// counted: `bpf_first` its first JIT address, `bpf_info` each of the
/// others in turn.
fn workload<C: Client>(
    workload: &str,
    addrs: &[u64],
    t0: &mut Instant,
) -> Result<Vec<Answer>, String> {
    let first = &addrs[..1];
    match workload {
        "first" => C::new(true, true).symbolize(first),
        "cold" => C::new(true, true).symbolize(addrs),
        "first_warm" | "cold_warm" => {
            let addrs = if workload == "first_warm" {
                first
            } else {
                addrs
            };
            drop(C::new(true, true).symbolize(addrs)?);
            *t0 = Instant::now();
            C::new(true, true).symbolize(addrs)
        }
        "bpf_first" | "bpf_info" => {
            let symbolizer = C::new(true, true);
            drop(symbolizer.symbolize(first)?);
            let bpf = if workload == "bpf_first" {
                &addrs[1..2]
            } else {
                drop(symbolizer.symbolize(&addrs[1..2])?);
                &addrs[BPF_INFO_FROM..]
            };
            *t0 = Instant::now();
            let mut out = Vec::with_capacity(bpf.len());
            for addr in bpf {
                out.extend(symbolizer.symbolize(std::slice::from_ref(addr))?);
            }
            Ok(out)
        }
        _ => Err(format!("unknown workload {workload:?}")),
    }
}

/// Runs `wl` with `client` on the addresses of `addrfile` and prints the
/// time in ms (`bpf_info`: in us per BPF address) and, for `cold`, how far
/// the run raised the process's peak RSS, in KiB: the symbolizer's memory
/// and the pages of code it ran for the first time.
pub fn run(client: &str, wl: &str, addrfile: &Path) -> i32 {
    if !WORKLOADS.contains(&wl) {
        eprintln!(
            "blazesym-check: bench: unknown workload {wl:?} ({})",
            WORKLOADS.join(", ")
        );
        return 2;
    }
    let least = match wl {
        "bpf_first" => 2,
        "bpf_info" => BPF_INFO_FROM + 1,
        _ => 1,
    };
    let addrs = match read_addrs(addrfile) {
        Ok(addrs) if addrs.len() >= least => addrs,
        Ok(_) => {
            eprintln!(
                "blazesym-check: bench: {}: {wl} needs at least {least} addresses",
                addrfile.display()
            );
            return 2;
        }
        Err(err) => {
            eprintln!("blazesym-check: bench: {err}");
            return 2;
        }
    };

    let rss_before = peak_rss_kib();
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
    let rss_after = peak_rss_kib();
    let asked = answered(wl, &addrs);
    if wl == "bpf_info" {
        // Per BPF address, in microseconds.
        ms = ms * 1e3 / asked as f64;
    }

    let mut err = 0;
    match result {
        Ok(answers) if answers.len() == asked => {
            let asked_addrs = &addrs[answers_from(wl)..];
            if let Some((addr, answer)) = asked_addrs
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

    if wl == "cold" {
        match (rss_before, rss_after) {
            (Some(before), Some(after)) => println!("{ms:.4} {}", after.saturating_sub(before)),
            _ => {
                eprintln!("blazesym-check: bench: no VmHWM in /proc/self/status");
                println!("{ms:.4}");
                err = 1;
            }
        }
    } else {
        println!("{ms:.4}");
    }
    // Stopped, for the parent to read our RSS; not when run by hand.
    let _ = std::io::stdout().flush();
    if std::env::var_os("BENCH_QUERY_STOP").is_some() {
        // SAFETY: raise() is async-signal-safe and has no preconditions.
        unsafe { libc::raise(libc::SIGSTOP) };
    }
    err
}
