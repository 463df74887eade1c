// SPDX-License-Identifier: GPL-2.0
//! `compare`: text and kq blazesym on the same addresses.
//!
//! `run()` goes through the steps in order, one module each:
//!
//! - `ctx`: the listing and KALLSYMS_QUERY the other steps look at;
//! - `addrs`: the test addresses (a);
//! - `chunks` and `verdict`: both symbolizers on them, judged (b);
//! - `capi`: `--capi`, the C API against kq;
//! - `report`: the tally (c) and the summary (f);
//! - `extents`: BPF functions' extents against bpf()'s own (d);
//! - `dynamic`: BPF programs loaded and unloaded meanwhile (e).

mod addrs;
mod capi;
mod chunks;
mod ctx;
mod dynamic;
mod extents;
mod report;
mod verdict;

use std::path::PathBuf;

use crate::answer::Client as _;
use crate::answer::KqClient;
use crate::answer::TextClient;
use crate::kallsyms::Kind;

use self::ctx::Ctx;

pub struct Opts {
    pub addrs: usize,
    pub capi: Option<PathBuf>,
    pub allow_fallback: bool,
    /// Kinds (`Kind::label()`) that must have test addresses.
    pub require: Vec<String>,
}

const CHUNK: usize = 4096;
const SHOWN: usize = 20;
/// Attempts at a chunk pair (or another step) in one generation.
const ATTEMPTS: usize = 6;

/// The exit status: 0 on a pass, 1 on a failure, 2 when there is
/// nothing to compare (or the arguments are wrong).
pub fn run(opts: &Opts) -> u8 {
    match run_steps(opts) {
        Ok(status) | Err(status) => status,
    }
}

/// `run()`; `Err` is an exit status that stops the run early, its
/// reason already printed.
fn run_steps(opts: &Opts) -> Result<u8, u8> {
    for r in &opts.require {
        if !Kind::ALL.into_iter().any(|k| k.label() == r) {
            eprintln!("blazesym-check: compare: --require: no kind {r:?}");
            return Err(2);
        }
    }
    let mut ctx = Ctx::open(opts.allow_fallback)?;

    // a. Addresses.
    let tests = addrs::select(&ctx, opts.addrs);
    addrs::show(&ctx, &tests, &opts.require)?;
    let addrs: Vec<u64> = tests.iter().map(|t| t.addr).collect();

    // b. Symbolize and judge.
    let compared = chunks::compare(&mut ctx, &addrs)?;

    // --capi: every BPF address and gap, and a spread of the rest.
    let capi_ok = match &opts.capi {
        None => true,
        Some(path) => capi::check_sample(&ctx, path, &tests, &compared.kq, &compared.gens),
    };

    // c. Tally.
    let results = report::Results {
        tests: &tests,
        text: &compared.text,
        kq: &compared.kq,
    };
    let tally = report::tally(&results, compared.verdicts);

    // d. BPF functions' extents, against bpf()'s own.
    let extents_ok = extents::check(&ctx, opts.require.iter().any(|r| r == "bpf_prog"));

    // e. Dynamic cases, with a symbolizer of each kind of their own.
    let dyn_ok = dynamic::check(
        &ctx,
        &TextClient::new(true, false),
        &KqClient::new(true, false),
        opts,
    );

    // f. Summary.
    let others = report::Others {
        dynamic: dyn_ok,
        capi: capi_ok,
        extents: extents_ok,
        no_kq: ctx.kq.is_none(),
    };
    Ok(report::summary(&results, &tally, &others, opts))
}
