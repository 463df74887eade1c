// SPDX-License-Identifier: GPL-2.0
//! The dynamic cases: a BPF program loaded after the symbolizers were
//! first used, then unloaded, then programs loaded until one lands over
//! an address kq found nothing at. The kernel is asked afresh here
//! (never `Ctx::cache`), and `kq` is one symbolizer used throughout, so
//! that what it remembers is put to the test.

use std::time::Duration;
use std::time::Instant;

use super::ctx::Ctx;
use super::verdict::kernel_agrees;
use super::Opts;
use super::CHUNK;
use crate::answer::Answer;
use crate::answer::Client;
use crate::answer::KqClient;
use crate::answer::TextClient;
use crate::bpf;
use crate::bpf::Prog;
use crate::kallsyms::Kq;
use crate::kallsyms::KALLSYMS_SYM_BPF_PROG;

/// Programs loaded at most to land one on a freed address.
const REUSE_LOADS: usize = 20;

/// The checks' outcome: without KALLSYMS_QUERY (not `strict`) none is
/// checked.
struct Checks {
    strict: bool,
    ok: bool,
}

impl Checks {
    fn check(&mut self, what: &str, good: bool) {
        if self.strict {
            println!("dynamic: {what}: {}", if good { "ok" } else { "FAILED" });
            self.ok &= good;
        } else {
            println!("dynamic: {what}: not checked (no KALLSYMS_QUERY)");
        }
    }
}

/// One answer of `c` for `addr`.
fn one<C: Client>(c: &C, addr: u64) -> Answer {
    match c.symbolize(&[addr]) {
        Ok(mut a) if a.len() == 1 => a.remove(0),
        Ok(a) => Answer::Error(format!("{} answers for 1 address", a.len())),
        Err(err) => Answer::Error(err),
    }
}

/// Whether /proc/kallsyms lists `name`.
fn listed(name: &str) -> bool {
    std::fs::read_to_string("/proc/kallsyms")
        .map(|s| {
            s.lines()
                .any(|l| l.split_ascii_whitespace().nth(2) == Some(name))
        })
        .unwrap_or(false)
}

/// KALLSYMS_QUERY's answer for `addr` as text, "?" without it.
fn kernel_says(ctx: &Ctx, addr: u64) -> String {
    ctx.kq
        .as_ref()
        .map_or_else(|| "?".to_string(), |q| q.answer(addr).to_string())
}

/// The dynamic cases; returns whether they passed.
pub(super) fn check(ctx: &Ctx, text: &TextClient, kq: &KqClient, opts: &Opts) -> bool {
    let mut chk = Checks {
        strict: ctx.kq.is_some(),
        ok: true,
    };

    // Both symbolizers in use before the program exists, as a profiler's are
    // when a program is loaded after its first stack: the published one
    // read /proc/kallsyms then.
    if let Some(warm) = ctx.listing.syms.iter().find(|s| s.owner.is_none()) {
        let _ = text.symbolize_all(&[warm.addr], CHUNK);
        let _ = kq.symbolize_all(&[warm.addr], CHUNK);
    }

    let prog = match bpf::load_socket_filter("bzs_late") {
        Ok(prog) => prog,
        Err(err) => {
            println!("dynamic: cannot load the BPF program bzs_late: {err}");
            if opts.allow_fallback && !chk.strict {
                println!("dynamic: skipped (--allow-fallback)");
                return true;
            }
            return false;
        }
    };
    let name = prog.sym_name();
    let inside = prog.addr + u64::from(prog.len) / 2;
    live_inside(ctx, text, kq, &prog, inside, &mut chk);
    live_extent(ctx, text, kq, &prog, &mut chk);
    if !unload(prog, &name) {
        chk.check("program gone within 10 s", false);
        return chk.ok;
    }

    let (t, k) = (one(text, inside), one(kq, inside));
    let want = kernel_says(ctx, inside);
    println!("  after unload, 0x{inside:x}: text: {t} | kq: {k} | KALLSYMS_QUERY: {want}");
    let Some(kqd) = &ctx.kq else {
        chk.check("kq after unload is the kernel's answer", false);
        chk.check("kq names a program loaded over a freed address", false);
        return chk.ok;
    };
    chk.check(
        "kq after unload is the kernel's answer",
        k.name() != Some(name.as_str()) && kernel_agrees(&k, &kqd.answer(inside)),
    );
    load_over(kqd, kq, inside, &k, &mut chk);
    chk.ok
}

/// The live program `prog`: where it is, and what both say at `inside`,
/// an address in it.
fn live_inside(
    ctx: &Ctx,
    text: &TextClient,
    kq: &KqClient,
    prog: &Prog,
    inside: u64,
    chk: &mut Checks,
) {
    let name = prog.sym_name();
    println!(
        "dynamic: loaded {name} (id {}) at 0x{:x}, JIT image {} bytes, functions {}",
        prog.id,
        prog.addr,
        prog.len,
        prog.funcs
            .iter()
            .map(|(a, l)| format!("0x{a:x} ({l} bytes)"))
            .collect::<Vec<_>>()
            .join(", ")
    );
    let (t, k) = (one(text, inside), one(kq, inside));
    println!("  inside it, 0x{inside:x}: text: {t} | kq: {k}");
    if let Some(kqd) = &ctx.kq {
        let want = kqd.answer(inside);
        chk.check(
            &format!("kq names {name}"),
            k.name() == Some(name.as_str()) && kernel_agrees(&k, &want),
        );
    }
}

/// The live program `prog`'s extent: KALLSYMS_QUERY at its start against
/// bpf(), and both symbolizers just past its end.
fn live_extent(ctx: &Ctx, text: &TextClient, kq: &KqClient, prog: &Prog, chk: &mut Checks) {
    let name = prog.sym_name();
    let q = ctx
        .kq
        .as_ref()
        .and_then(|kq| kq.by_addr(prog.addr).ok().flatten())
        .filter(|q| q.start == prog.addr);
    if let Some(q) = &q {
        println!(
            "  KALLSYMS_QUERY at its start: {} size {} kind {} prog id {} subprog {}",
            q.name, q.size, q.kind, q.prog_id, q.subprog
        );
        chk.check(
            "KALLSYMS_QUERY names it, with its program id, as a main program",
            q.name == name
                && q.prog_id == u64::from(prog.id)
                && q.kind == KALLSYMS_SYM_BPF_PROG
                && q.subprog == 0,
        );
        // Not circular: the size is the program's own, as bpf() says.
        let lens: Vec<u32> = prog.funcs.iter().map(|f| f.1).collect();
        chk.check(
            &format!(
                "KALLSYMS_QUERY size {} is its jited_func_lens[0] {lens:?}",
                q.size
            ),
            prog.funcs.len() == 1 && q.size == u64::from(prog.funcs[0].1),
        );
    } else {
        chk.check("KALLSYMS_QUERY finds it at its start", false);
    }
    let end = q.map_or(prog.addr + u64::from(prog.len), |q| q.start + q.size);
    let past = end + 1;
    let (t, k) = (one(text, past), one(kq, past));
    let want = kernel_says(ctx, past);
    println!(
        "  past its end (image [0x{:x}, 0x{end:x}]), 0x{past:x}: text: {t} | kq: {k} | KALLSYMS_QUERY: {want}",
        prog.addr
    );
    if let Some(kqd) = &ctx.kq {
        chk.check(
            "kq past the live program's end is the kernel's answer",
            kernel_agrees(&k, &kqd.answer(past)),
        );
    }
}

/// Unload `prog`, named `name`; returns whether /proc/kallsyms stopped
/// listing it within 10 s.
fn unload(prog: Prog, name: &str) -> bool {
    let was_listed = listed(name);
    println!(
        "dynamic: /proc/kallsyms {} {name} while it is loaded",
        if was_listed { "lists" } else { "does NOT list" }
    );
    drop(prog);
    let t0 = Instant::now();
    let gone = loop {
        if !listed(name) {
            break true;
        }
        if t0.elapsed() > Duration::from_secs(10) {
            break false;
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    println!(
        "dynamic: closed it; {} from /proc/kallsyms after {:.2} s",
        if gone { "gone" } else { "still listed" },
        t0.elapsed().as_secs_f64()
    );
    gone
}

/// The load direction: kq has just said `k` at `inside`, "nothing" if
/// the program there is gone (and may remember it); a program the JIT
/// puts over it must be named.
fn load_over(kqd: &Kq, kq: &KqClient, inside: u64, k: &Answer, chk: &mut Checks) {
    match kqd.by_addr(inside) {
        Ok(None) if *k == Answer::NotFound => {}
        Ok(None) => {
            println!("dynamic: load: skipped: kq did not say \"not found\" at 0x{inside:x}");
            return;
        }
        Ok(Some(q)) => {
            println!(
                "dynamic: load: skipped: 0x{inside:x} is already {} (something else took it)",
                q.name
            );
            return;
        }
        Err(err) => {
            chk.check(
                &format!("KALLSYMS_QUERY BY_ADDR 0x{inside:x}: {err}"),
                false,
            );
            return;
        }
    }
    let Some(Reuse {
        landed,
        held,
        same_chunk,
    }) = load_until_over(kqd, inside, chk)
    else {
        return;
    };
    match landed {
        Some((n, prog)) => {
            let name = prog.sym_name();
            let k = one(kq, inside);
            let want = kqd.answer(inside);
            println!(
                "dynamic: load: {name} (id {}, load {n}) at 0x{:x}, {} bytes, covers 0x{inside:x}: kq: {k} | KALLSYMS_QUERY: {want}",
                prog.id, prog.addr, prog.len
            );
            chk.check(
                "kq names a program loaded over an address it found nothing at",
                k.name() == Some(name.as_str()) && kernel_agrees(&k, &want),
            );
        }
        None => println!(
            "dynamic: load: NOTE: no program of up to {REUSE_LOADS} loaded covered 0x{inside:x} \
             ({} elsewhere, {same_chunk} in its chunk at another offset): \
             the load direction was not exercised (not a failure)",
            held.len()
        ),
    }
    drop(held);
}

/// Programs loaded to land one over a freed address.
struct Reuse {
    /// The one over it, and which load it was (from 1).
    landed: Option<(usize, Prog)>,
    /// Those elsewhere, still loaded.
    held: Vec<Prog>,
    /// Those in the address's chunk at another offset, unloaded.
    same_chunk: usize,
}

/// Load programs until KALLSYMS_QUERY says one covers `inside`, at most
/// `REUSE_LOADS`. Those that land elsewhere stay loaded, for the next to
/// go on; one that lands in the same pack chunk (BPF_PROG_CHUNK_SIZE, 64
/// bytes) at another random offset is unloaded, to free the chunk again.
/// The JIT image is freed a little after its symbol goes: wait a little.
/// `None` if BY_ADDR failed (a failed check).
fn load_until_over(kqd: &Kq, inside: u64, chk: &mut Checks) -> Option<Reuse> {
    let chunk = |addr: u64| addr & !63;
    let mut held = Vec::new();
    let mut same_chunk = 0;
    let mut landed = None;
    std::thread::sleep(Duration::from_millis(100));
    for i in 0..REUSE_LOADS {
        let prog = match bpf::load_socket_filter(&format!("bzs_reuse{i}")) {
            Ok(prog) => prog,
            Err(err) => {
                println!("dynamic: load: cannot load bzs_reuse{i}: {err}");
                break;
            }
        };
        let q = match kqd.by_addr(inside) {
            Ok(q) => q,
            Err(err) => {
                chk.check(
                    &format!("KALLSYMS_QUERY BY_ADDR 0x{inside:x}: {err}"),
                    false,
                );
                return None;
            }
        };
        if q.is_some_and(|q| q.prog_id == u64::from(prog.id)) {
            landed = Some((i + 1, prog));
            break;
        }
        if chunk(prog.addr) == chunk(inside) {
            same_chunk += 1;
            drop(prog);
            std::thread::sleep(Duration::from_millis(100));
        } else {
            held.push(prog);
        }
    }
    Some(Reuse {
        landed,
        held,
        same_chunk,
    })
}
