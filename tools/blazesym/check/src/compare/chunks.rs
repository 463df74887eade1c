// SPDX-License-Identifier: GPL-2.0
//! The static comparison: the test addresses symbolized, a chunk with
//! text then with kq, each pair (and its judgement, which asks the
//! kernel) in one generation: a pair the generation changed during is
//! done again, with new symbolizers and, if need be, the listing read
//! again.

use std::time::Duration;
use std::time::Instant;

use super::ctx::Ctx;
use super::verdict::judge;
use super::verdict::Verdict;
use super::ATTEMPTS;
use super::CHUNK;
use crate::answer::Answer;
use crate::answer::Client;
use crate::answer::KqClient;
use crate::answer::TextClient;

/// The answers and verdicts, one of each per address, and the
/// generation each was of.
pub(super) struct Compared {
    pub(super) text: Vec<Answer>,
    pub(super) kq: Vec<Answer>,
    pub(super) verdicts: Vec<Verdict>,
    pub(super) gens: Vec<Option<u64>>,
}

/// Symbolizers remember /proc/kallsyms: new ones for a new generation.
struct Clients {
    generation: Option<u64>,
    text: TextClient,
    kq: KqClient,
}

/// One attempt at a chunk: both answers and their verdicts, and the
/// generation before and after.
struct Pass {
    g0: Option<u64>,
    g1: Option<u64>,
    text: Vec<Answer>,
    kq: Vec<Answer>,
    verdicts: Vec<Verdict>,
}

/// Time spent in each symbolizer, discarded attempts included.
#[derive(Default)]
struct Times {
    text: Duration,
    kq: Duration,
}

/// Symbolize and judge `addrs`; `Err` is the exit status, the reason
/// printed.
pub(super) fn compare(ctx: &mut Ctx, addrs: &[u64]) -> Result<Compared, u8> {
    let mut out = Compared {
        text: Vec::with_capacity(addrs.len()),
        kq: Vec::with_capacity(addrs.len()),
        verdicts: Vec::with_capacity(addrs.len()),
        gens: Vec::with_capacity(addrs.len()),
    };
    let mut times = Times::default();
    let mut redone = 0usize;
    let mut clients: Option<Clients> = None;
    for (c, part) in addrs.chunks(CHUNK).enumerate() {
        let mut attempt = 0;
        loop {
            let pass = attempt_chunk(ctx, &mut clients, part, &mut times)?;
            let (g0, g1) = (pass.g0, pass.g1);
            if g1 == g0 {
                out.text.extend(pass.text);
                out.kq.extend(pass.kq);
                out.verdicts.extend(pass.verdicts);
                out.gens.extend(std::iter::repeat_n(g0, part.len()));
                break;
            }
            attempt += 1;
            redone += 1;
            let (lo, hi) = (part[0], part[part.len() - 1]);
            println!(
                "chunk {c} [0x{lo:x}, 0x{hi:x}]: the generation changed ({g0:?} -> {g1:?}) while it was symbolized: attempt {attempt} of {ATTEMPTS} discarded"
            );
            if attempt == ATTEMPTS {
                println!(
                    "blazesym-check: compare: FAIL: the kernel's symbols changed during each of \
                     {ATTEMPTS} attempts at chunk {c} [0x{lo:x}, 0x{hi:x}]: too much churn to compare"
                );
                return Err(1);
            }
        }
    }
    println!(
        "symbolized {} addresses in chunks of {CHUNK} (demangling off): text {:.1} ms, kq {:.1} ms; \
         {redone} chunk pairs redone (generation changed)",
        addrs.len(),
        times.text.as_secs_f64() * 1e3,
        times.kq.as_secs_f64() * 1e3
    );
    Ok(out)
}

/// Symbolize and judge `part` once, the listing read again and the
/// symbolizers made again if the generation is not theirs.
fn attempt_chunk(
    ctx: &mut Ctx,
    clients: &mut Option<Clients>,
    part: &[u64],
    times: &mut Times,
) -> Result<Pass, u8> {
    let g0 = generation(ctx)?;
    if g0 != ctx.listing_gen {
        if let Err(err) = ctx.reload(g0) {
            eprintln!("blazesym-check: compare: {err}");
            return Err(2);
        }
    }
    if clients.as_ref().is_none_or(|c| c.generation != g0) {
        *clients = Some(Clients {
            generation: g0,
            text: TextClient::new(true, false),
            kq: KqClient::new(true, false),
        });
    }
    let Some(Clients { text, kq, .. }) = clients.as_ref() else {
        unreachable!("clients were just made");
    };
    let t0 = Instant::now();
    let t = text.symbolize_all(part, CHUNK);
    times.text += t0.elapsed();
    let t0 = Instant::now();
    let k = kq.symbolize_all(part, CHUNK);
    times.kq += t0.elapsed();
    let verdicts: Vec<Verdict> = part
        .iter()
        .zip(t.iter().zip(&k))
        .map(|(&addr, (t, k))| judge(ctx, addr, t, k))
        .collect();
    let g1 = generation(ctx)?;
    Ok(Pass {
        g0,
        g1,
        text: t,
        kq: k,
        verdicts,
    })
}

/// `Ctx::generation()`; `Err(2)` on an error, printed.
fn generation(ctx: &Ctx) -> Result<Option<u64>, u8> {
    ctx.generation().map_err(|err| {
        eprintln!("blazesym-check: compare: {err}");
        2
    })
}
