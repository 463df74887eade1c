// SPDX-License-Identifier: GPL-2.0
//! `--capi`: the blazesym-c program capi_check against kq.

use std::io::Read as _;
use std::io::Write as _;
use std::path::Path;
use std::process::Command;
use std::process::Stdio;

use super::addrs::Test;
use super::ctx::Ctx;
use super::ATTEMPTS;
use super::CHUNK;
use super::SHOWN;
use crate::answer::Answer;
use crate::answer::Client as _;
use crate::answer::KqClient;

const CAPI_SAMPLE: usize = 2000;

/// `check()` on every BPF address and gap of `tests`, and a spread of
/// the rest, about `CAPI_SAMPLE` in all; `ka` and `gens` are the
/// compare's kq answers and their generations, one per test.
pub(super) fn check_sample(
    ctx: &Ctx,
    path: &Path,
    tests: &[Test],
    ka: &[Answer],
    gens: &[Option<u64>],
) -> bool {
    let (special, rest): (Vec<usize>, Vec<usize>) =
        (0..tests.len()).partition(|&i| tests[i].kind.is_bpf());
    let need = CAPI_SAMPLE.saturating_sub(special.len()).max(1);
    let step = (rest.len() / need).max(1);
    let mut pick: Vec<usize> = special
        .into_iter()
        .chain(rest.into_iter().step_by(step))
        .collect();
    pick.sort_unstable();
    let a: Vec<u64> = pick.iter().map(|&i| tests[i].addr).collect();
    let raw: Vec<&Answer> = pick.iter().map(|&i| &ka[i]).collect();
    let raw_gen: Vec<Option<u64>> = pick.iter().map(|&i| gens[i]).collect();
    check(ctx, path, &a, &raw, &raw_gen)
}

/// Run capi_check on `addrs`: its output and whether it exited 0.
fn run_capi(path: &Path, addrs: &[u64]) -> Result<(String, String, bool), String> {
    let input: String = addrs.iter().map(|a| format!("0x{a:x}\n")).collect();
    let mut child = Command::new(path)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .map_err(|err| format!("cannot run {}: {err}", path.display()))?;
    let mut stdin = child.stdin.take().expect("piped stdin");
    let writer = std::thread::spawn(move || stdin.write_all(input.as_bytes()));
    let mut out = String::new();
    let read = child
        .stdout
        .take()
        .expect("piped stdout")
        .read_to_string(&mut out);
    let wrote = writer.join().expect("writer thread");
    let status = child.wait();
    read.and(wrote)
        .map_err(|err| format!("I/O with {}: {err}", path.display()))?;
    Ok((
        out,
        status
            .as_ref()
            .map_or_else(|e| e.to_string(), |s| s.to_string()),
        status.is_ok_and(|s| s.success()),
    ))
}

/// A run of capi_check and kq's answers (demangling on), in one
/// generation.
struct Run {
    out: String,
    status: String,
    exited_ok: bool,
    want: Vec<Answer>,
    generation: Option<u64>,
}

/// capi_check and a kq symbolizer with blazesym's defaults on `addrs`,
/// again until the generation stays the same; `None` (the reason
/// printed) if it never does or either fails.
fn run_once(ctx: &Ctx, path: &Path, addrs: &[u64]) -> Option<Run> {
    let mut attempt = 0;
    loop {
        let g0 = ctx.generation();
        let run = run_capi(path, addrs);
        let want = KqClient::new(true, true).symbolize_all(addrs, CHUNK);
        let g1 = ctx.generation();
        let generation = match (g0, g1) {
            (Ok(g0), Ok(g1)) if g0 == g1 => g0,
            (Ok(_), Ok(_)) => {
                attempt += 1;
                if attempt == ATTEMPTS {
                    println!("capi: FAILED: the generation changed during each of {ATTEMPTS} runs");
                    return None;
                }
                println!("capi: the generation changed during the run: again");
                continue;
            }
            (Err(err), _) | (_, Err(err)) => {
                println!("capi: FAILED: {err}");
                return None;
            }
        };
        match run {
            Ok((out, status, exited_ok)) => {
                return Some(Run {
                    out,
                    status,
                    exited_ok,
                    want,
                    generation,
                })
            }
            Err(err) => {
                println!("capi: FAILED: {err}");
                return None;
            }
        }
    }
}

/// The counts of `check()`.
#[derive(Default)]
struct Counts {
    bad: usize,
    errors: usize,
    found: usize,
    demangled: usize,
    unlike_raw: usize,
    not_cross: usize,
}

impl Counts {
    /// capi_check's line `got` for `addr` against kq's answer `want`.
    fn line(&mut self, addr: u64, want: &Answer, got: &str) {
        match want {
            Answer::Error(err) => {
                if self.errors < SHOWN {
                    println!("capi: kq (demangling) failed at 0x{addr:x}: {err}");
                }
                self.errors += 1;
            }
            Answer::Found { .. } => self.found += 1,
            Answer::NotFound => {}
        }
        let line = want.capi_line(addr);
        if got != line {
            if self.bad < SHOWN {
                println!("capi: mismatch: C: {got} | kq: {line}");
            }
            self.bad += 1;
        }
    }

    /// kq's answer `want` (demangling) against the compare's `raw` (not
    /// demangling) of the same generation: the same but for names that
    /// are mangled in `raw`.
    fn cross(&mut self, addr: u64, want: &Answer, raw: &Answer) {
        if want == raw {
            return;
        }
        match (want, raw) {
            (
                Answer::Found {
                    name,
                    offset,
                    module,
                },
                Answer::Found {
                    name: raw_name,
                    offset: raw_offset,
                    module: raw_module,
                },
            ) if offset == raw_offset
                && module == raw_module
                && name != raw_name
                && (raw_name.starts_with("_R") || raw_name.starts_with("_Z")) =>
            {
                self.demangled += 1;
            }
            _ => {
                if self.unlike_raw < SHOWN {
                    println!("capi: kq demangling: {want} but kq in compare: {raw} at 0x{addr:x}");
                }
                self.unlike_raw += 1;
            }
        }
    }
}

/// capi_check's lines for `addrs` against the answers of a kq
/// symbolizer with blazesym's defaults, as the C API's (demangling on),
/// both in one generation. `raw` are the compare's answers (demangling
/// off) for the same addresses, of the generations `raw_gen`: where the
/// generation is the same, the demangling answers must be those but for
/// names that are mangled there.
fn check(ctx: &Ctx, path: &Path, addrs: &[u64], raw: &[&Answer], raw_gen: &[Option<u64>]) -> bool {
    let Some(run) = run_once(ctx, path, addrs) else {
        return false;
    };
    let lines: Vec<&str> = run.out.lines().collect();
    let mut n = Counts::default();
    for (i, (addr, want)) in addrs.iter().zip(&run.want).enumerate() {
        n.line(*addr, want, lines.get(i).copied().unwrap_or("(no line)"));
        // The reference is the compare's answer, demangled at most.
        if raw_gen[i] != run.generation {
            n.not_cross += 1;
        } else {
            n.cross(*addr, want, raw[i]);
        }
    }
    let Counts {
        bad,
        errors,
        found,
        demangled,
        unlike_raw,
        not_cross,
    } = n;
    let (status, exited_ok) = (run.status, run.exited_ok);
    let ok = bad == 0
        && errors == 0
        && unlike_raw == 0
        && found > 0
        && lines.len() == addrs.len()
        && exited_ok;
    println!(
        "capi: {} addresses through blaze_symbolize_kernel_abs_addrs(), {} lines, {bad} differ from kq \
         (demangling, {found} found, {errors} errors), {status}: {}",
        addrs.len(),
        lines.len(),
        if ok { "ok" } else { "FAILED" }
    );
    println!(
        "capi: kq demangling vs kq in compare: {demangled} names demangled, {unlike_raw} other differences, \
         {not_cross} not cross-checked (symbols changed since)"
    );
    if found == 0 {
        println!("capi: FAILED: no address has a symbol: nothing was compared");
    }
    ok
}
