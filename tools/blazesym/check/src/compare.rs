// SPDX-License-Identifier: GPL-2.0
//! `compare`: text and kq blazesym on the same addresses.

use std::cell::RefCell;
use std::collections::HashMap;
use std::collections::HashSet;
use std::io::Read as _;
use std::io::Write as _;
use std::path::Path;
use std::path::PathBuf;
use std::process::Command;
use std::process::Stdio;
use std::time::Duration;
use std::time::Instant;

use crate::answer::Answer;
use crate::answer::Client;
use crate::answer::KqClient;
use crate::answer::TextClient;
use crate::bpf;
use crate::kallsyms::is_mapping_symbol;
use crate::kallsyms::Kind;
use crate::kallsyms::Kq;
use crate::kallsyms::KqSym;
use crate::kallsyms::Listing;
use crate::kallsyms::KALLSYMS_SYM_BPF_PROG;
use crate::kallsyms::KALLSYMS_SYM_BPF_SUBPROG;

pub struct Opts {
    pub addrs: usize,
    pub capi: Option<PathBuf>,
    pub allow_fallback: bool,
    /// Kinds (`Kind::label()`) that must have test addresses.
    pub require: Vec<String>,
}

const CHUNK: usize = 4096;
const SHOWN: usize = 20;
const CAPI_SAMPLE: usize = 2000;
/// Attempts at a chunk pair (or another step) in one generation.
const ATTEMPTS: usize = 6;
/// Programs loaded at most to land one on a freed address.
const REUSE_LOADS: usize = 20;

/// A test address: where it came from.
struct Test {
    addr: u64,
    kind: Kind,
    what: &'static str,
}

#[derive(Default)]
struct Tests {
    seen: HashSet<u64>,
    tests: Vec<Test>,
}

impl Tests {
    fn add(&mut self, addr: u64, kind: Kind, what: &'static str) {
        if self.seen.insert(addr) {
            self.tests.push(Test { addr, kind, what });
        }
    }
}

/// xorshift64*: a fixed, repeatable sample.
fn shuffle<T>(v: &mut [T], mut seed: u64) {
    for i in (1..v.len()).rev() {
        seed ^= seed >> 12;
        seed ^= seed << 25;
        seed ^= seed >> 27;
        let r = seed.wrapping_mul(0x2545_f491_4f6c_dd1d);
        v.swap(i, (r % (i as u64 + 1)) as usize);
    }
}

/// The listing, and KALLSYMS_QUERY if the kernel has version 2.
struct Ctx {
    listing: Listing,
    kq: Option<Kq>,
    /// BY_ADDR answers, of generation `listing_gen` like the listing.
    cache: RefCell<HashMap<u64, Option<KqSym>>>,
    /// The generation the listing and the cache are of (read before the
    /// listing; `None` without KALLSYMS_QUERY).
    listing_gen: Option<u64>,
    /// The listing's `_stext`.
    stext: Option<u64>,
}

impl Ctx {
    /// GENERATION, or `None` without KALLSYMS_QUERY.
    fn generation(&self) -> Result<Option<u64>, String> {
        self.kq
            .as_ref()
            .map(|kq| kq.generation())
            .transpose()
            .map_err(|err| format!("KALLSYMS_QUERY GENERATION: {err}"))
    }

    /// Read the listing again, for generation `generation`, and forget
    /// the BY_ADDR answers.
    fn reload(&mut self, generation: Option<u64>) -> Result<(), String> {
        self.listing = Listing::read().map_err(|err| format!("/proc/kallsyms: {err}"))?;
        self.cache.borrow_mut().clear();
        self.listing_gen = generation;
        Ok(())
    }

    /// The kind of line `idx`: a `bpf_prog_` line is a subprogram if
    /// KALLSYMS_QUERY says so.
    fn kind(&self, idx: usize) -> Kind {
        let sym = &self.listing.syms[idx];
        match sym.kind() {
            Kind::BpfProg
                if self
                    .kq_sym(sym.addr)
                    .is_some_and(|q| q.start == sym.addr && q.kind == KALLSYMS_SYM_BPF_SUBPROG) =>
            {
                Kind::BpfSubprog
            }
            kind => kind,
        }
    }

    /// BY_ADDR, remembered; errors are "no symbol". Not for the dynamic
    /// cases, which ask the kernel afresh.
    fn kq_sym(&self, addr: u64) -> Option<KqSym> {
        let kq = self.kq.as_ref()?;
        self.cache
            .borrow_mut()
            .entry(addr)
            .or_insert_with(|| kq.by_addr(addr).ok().flatten())
            .clone()
    }

    fn is_first_at(&self, idx: usize) -> bool {
        idx == 0 || self.listing.syms[idx - 1].addr != self.listing.syms[idx].addr
    }

    /// Whether line `idx` is a text symbol followed (at the next address)
    /// by a text symbol of the same owner, so that the next symbol's
    /// start bounds it for text and kernel alike.
    fn bounded_by_next(&self, idx: usize) -> Option<u64> {
        let syms = &self.listing.syms;
        let next = &syms[self.listing.next_above(idx)?];
        (syms[idx].is_text() && next.is_text() && next.owner == syms[idx].owner)
            .then_some(next.addr)
    }

    fn gen_tests(&self, want: usize) -> Tests {
        let syms = &self.listing.syms;
        let mut t = Tests::default();
        let mut core = Vec::new();
        let mut module = Vec::new();

        for idx in 0..syms.len() {
            if !self.is_first_at(idx) {
                continue;
            }
            let sym = &syms[idx];
            let kind = self.kind(idx);
            let s = sym.addr;
            let next = self.listing.next_above(idx).map(|j| syms[j].addr);
            if kind.is_bpf() {
                match self.kq_sym(s).filter(|q| q.start == s) {
                    Some(q) => {
                        let end = s + q.size;
                        t.add(s, kind, "start");
                        if q.size >= 1 {
                            t.add(s + 1, kind, "start+1");
                        }
                        t.add(s + q.size / 2, kind, "middle");
                        t.add(end, kind, "end (inclusive)");
                        if next.is_none_or(|n| end + 1 < n) {
                            t.add(end + 1, kind, "gap: end+1");
                            if let Some(n) = next.filter(|&n| n > end + 2) {
                                t.add(end + 1 + (n - end - 1) / 2, kind, "gap: middle");
                                t.add(n - 1, kind, "gap: before next symbol");
                            }
                        }
                    }
                    None => {
                        t.add(s, kind, "start");
                        if let Some(n) = next {
                            t.add(s + 1, kind, "start+1");
                            t.add(s + (n - s) / 2, kind, "middle");
                            t.add(n - 1, kind, "before next symbol");
                        }
                    }
                }
            } else if matches!(kind, Kind::Core | Kind::Module) && sym.is_text() {
                match self.bounded_by_next(idx) {
                    Some(_) if kind == Kind::Core => core.push(idx),
                    Some(_) => module.push(idx),
                    // The last text symbol of a run (of a module, of
                    // vmlinux text): the kernel bounds it by its own
                    // end, text by the next line.
                    None => {
                        if let Some(n) = next {
                            t.add(s + (n - s) / 2, kind, "run end: middle to next line");
                            t.add(n - 1, kind, "run end: before next line");
                        }
                    }
                }
            }
        }

        shuffle(&mut core, 0x6b71_7379_6d73_0001);
        shuffle(&mut module, 0x6b71_7379_6d73_0002);
        let add_sym = |t: &mut Tests, idx: usize| {
            let s = syms[idx].addr;
            let kind = self.kind(idx);
            let n = self.bounded_by_next(idx).unwrap_or(s + 1);
            t.add(s, kind, "start");
            if n > s + 1 {
                t.add(s + 1, kind, "start+1");
            }
            t.add(s + (n - s) / 2, kind, "middle");
            t.add(n - 1, kind, "last byte");
        };
        let mut module = module.into_iter();
        let module_budget = want / 5;
        for idx in module.by_ref() {
            if t.tests.len() >= module_budget {
                break;
            }
            add_sym(&mut t, idx);
        }
        for idx in core.into_iter().chain(module) {
            if t.tests.len() >= want {
                break;
            }
            add_sym(&mut t, idx);
        }
        t.tests.sort_by_key(|t| t.addr);
        t
    }

    fn owner_module(&self, start: u64) -> Option<String> {
        let idx = self.listing.first_at(start)?;
        self.listing.syms[idx]
            .owner
            .as_ref()
            .map(|o| format!("[{o}]"))
    }

    fn has_name_at(&self, start: u64, name: &str) -> bool {
        let Some(idx) = self.listing.first_at(start) else {
            return false;
        };
        self.listing.syms[idx..]
            .iter()
            .take_while(|s| s.addr == start)
            .any(|s| s.name == name)
    }

    /// Whether the text answer for `addr` is right: the address lies in
    /// the named symbol's real extent.
    fn text_right(&self, addr: u64, t: &Answer) -> bool {
        let Some(start) = t.start(addr) else {
            return false;
        };
        let Some(idx) = self.listing.first_at(start) else {
            return false;
        };
        let syms = &self.listing.syms;
        // Names no lookup gives: mapping symbols and labels, and vmlinux below _stext
        // (the kernel names neither; both are listed on arm64).
        if t.name().is_some_and(is_mapping_symbol)
            || (syms[idx].owner.is_none() && self.stext.is_some_and(|s| addr < s))
        {
            return false;
        }
        let below_next = self
            .listing
            .next_above(idx)
            .is_none_or(|j| addr < syms[j].addr);
        if !below_next {
            return false;
        }
        if self.bounded_by_next(idx).is_some() && !syms[idx].kind().is_bpf() {
            return true;
        }
        if self.kq.is_none() {
            return true;
        }
        // A BPF image (its size is the kernel's), or a symbol the next
        // line does not bound for sure: the kernel's extent.
        match self.kq_sym(start) {
            Some(q) if q.start == start => q.covers(addr),
            _ => false,
        }
    }
}

enum Verdict {
    Same,
    /// Same but for the module: text has none, kq `[owner]` as listed.
    ModuleAdded,
    /// The same symbol under another of its names.
    Alias,
    TextWrong,
    /// Text failed (an error), kq has the kernel's answer.
    TextError,
    Fail(String),
}

fn judge(ctx: &Ctx, addr: u64, t: &Answer, k: &Answer) -> Verdict {
    // An error is never an answer: on the kq side a failure, on the
    // text side reported, and kq must then be the kernel's answer.
    if let Answer::Error(err) = k {
        return Verdict::Fail(format!("kq failed: {err}"));
    }
    if let Answer::Error(_) = t {
        return match &ctx.kq {
            Some(kq) => {
                let want = kq.answer(addr);
                if kernel_agrees(k, &want) {
                    Verdict::TextError
                } else {
                    Verdict::Fail(format!("text failed, KALLSYMS_QUERY says {want}"))
                }
            }
            None => Verdict::Fail("text failed (no KALLSYMS_QUERY to check kq)".into()),
        };
    }
    if t == k {
        return Verdict::Same;
    }
    if let (
        Answer::Found {
            name: tn,
            offset: to,
            module: tm,
        },
        Answer::Found {
            name: kn,
            offset: ko,
            module: km,
        },
    ) = (t, k)
    {
        if to == ko {
            let start = addr.wrapping_sub(*to);
            let added = tm.is_none() && km.is_some() && *km == ctx.owner_module(start);
            if tn == kn && added {
                return Verdict::ModuleAdded;
            }
            if (tm == km || added) && ctx.has_name_at(start, tn) && ctx.has_name_at(start, kn) {
                return Verdict::Alias;
            }
        }
    }
    if ctx.text_right(addr, t) {
        let kernel = ctx
            .kq
            .as_ref()
            .map(|kq| format!(" (KALLSYMS_QUERY says {})", kq.answer(addr)))
            .unwrap_or_default();
        return Verdict::Fail(format!("text is right, kq differs{kernel}"));
    }
    match &ctx.kq {
        Some(kq) => {
            let want = kq.answer(addr);
            if kernel_agrees(k, &want) {
                Verdict::TextWrong
            } else {
                Verdict::Fail(format!("text is wrong, KALLSYMS_QUERY says {want}"))
            }
        }
        None => Verdict::Fail("text and kq differ (no KALLSYMS_QUERY to decide)".into()),
    }
}

/// Whether blazesym's answer `k` is the kernel's `want`: exactly, names
/// included (the symbolizers of `compare` do not demangle). An error is
/// never the kernel's answer.
fn kernel_agrees(k: &Answer, want: &Answer) -> bool {
    !matches!(k, Answer::Error(_)) && k == want
}

fn one<C: Client>(c: &C, addr: u64) -> Answer {
    match c.symbolize(&[addr]) {
        Ok(mut a) if a.len() == 1 => a.remove(0),
        Ok(a) => Answer::Error(format!("{} answers for 1 address", a.len())),
        Err(err) => Answer::Error(err),
    }
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

/// `--capi`: capi_check's lines for `addrs` against the answers of a kq
/// symbolizer with blazesym's defaults, as the C API's (demangling on),
/// both in one generation. `raw` are the compare's answers (demangling
/// off) for the same addresses, of the generations `raw_gen`: where the
/// generation is the same, the demangling answers must be those but for
/// names that are mangled there.
fn capi_check(
    ctx: &Ctx,
    path: &Path,
    addrs: &[u64],
    raw: &[&Answer],
    raw_gen: &[Option<u64>],
) -> bool {
    let mut attempt = 0;
    let (out, status, exited_ok, want, generation) = loop {
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
                    return false;
                }
                println!("capi: the generation changed during the run: again");
                continue;
            }
            (Err(err), _) | (_, Err(err)) => {
                println!("capi: FAILED: {err}");
                return false;
            }
        };
        match run {
            Ok((out, status, exited_ok)) => break (out, status, exited_ok, want, generation),
            Err(err) => {
                println!("capi: FAILED: {err}");
                return false;
            }
        }
    };

    let lines: Vec<&str> = out.lines().collect();
    let (mut bad, mut errors, mut found, mut demangled, mut unlike_raw, mut not_cross) =
        (0, 0, 0, 0, 0, 0);
    for (i, (addr, want)) in addrs.iter().zip(&want).enumerate() {
        match want {
            Answer::Error(err) => {
                if errors < SHOWN {
                    println!("capi: kq (demangling) failed at 0x{addr:x}: {err}");
                }
                errors += 1;
            }
            Answer::Found { .. } => found += 1,
            Answer::NotFound => {}
        }
        let line = want.capi_line(*addr);
        let got = lines.get(i).copied().unwrap_or("(no line)");
        if got != line {
            if bad < SHOWN {
                println!("capi: mismatch: C: {got} | kq: {line}");
            }
            bad += 1;
        }
        // The reference is the compare's answer, demangled at most.
        if raw_gen[i] != generation {
            not_cross += 1;
        } else if want != raw[i] {
            match (want, raw[i]) {
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
                    demangled += 1;
                }
                _ => {
                    if unlike_raw < SHOWN {
                        println!(
                            "capi: kq demangling: {want} but kq in compare: {} at 0x{addr:x}",
                            raw[i]
                        );
                    }
                    unlike_raw += 1;
                }
            }
        }
    }
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

/// Whether /proc/kallsyms lists `name`.
fn listed(name: &str) -> bool {
    std::fs::read_to_string("/proc/kallsyms")
        .map(|s| {
            s.lines()
                .any(|l| l.split_ascii_whitespace().nth(2) == Some(name))
        })
        .unwrap_or(false)
}

/// The dynamic cases; returns whether they passed. The kernel is asked
/// afresh here (never `Ctx::cache`), and `kq` is one symbolizer used
/// throughout, so that what it remembers is put to the test.
fn dynamic(ctx: &Ctx, text: &TextClient, kq: &KqClient, opts: &Opts) -> bool {
    let strict = ctx.kq.is_some();
    let mut ok = true;
    let mut check = |what: &str, good: bool| {
        if strict {
            println!("dynamic: {what}: {}", if good { "ok" } else { "FAILED" });
            ok &= good;
        } else {
            println!("dynamic: {what}: not checked (no KALLSYMS_QUERY)");
        }
    };
    let by_addr = |addr: u64| {
        ctx.kq
            .as_ref()
            .and_then(|kq| kq.by_addr(addr).ok().flatten())
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
            if opts.allow_fallback && !strict {
                println!("dynamic: skipped (--allow-fallback)");
                return true;
            }
            return false;
        }
    };
    let name = prog.sym_name();
    let inside = prog.addr + u64::from(prog.len) / 2;
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
        check(
            &format!("kq names {name}"),
            k.name() == Some(name.as_str()) && kernel_agrees(&k, &want),
        );
    }

    let q = by_addr(prog.addr).filter(|q| q.start == prog.addr);
    if let Some(q) = &q {
        println!(
            "  KALLSYMS_QUERY at its start: {} size {} kind {} prog id {} subprog {}",
            q.name, q.size, q.kind, q.prog_id, q.subprog
        );
        check(
            "KALLSYMS_QUERY names it, with its program id, as a main program",
            q.name == name
                && q.prog_id == u64::from(prog.id)
                && q.kind == KALLSYMS_SYM_BPF_PROG
                && q.subprog == 0,
        );
        // Not circular: the size is the program's own, as bpf() says.
        let lens: Vec<u32> = prog.funcs.iter().map(|f| f.1).collect();
        check(
            &format!(
                "KALLSYMS_QUERY size {} is its jited_func_lens[0] {lens:?}",
                q.size
            ),
            prog.funcs.len() == 1 && q.size == u64::from(prog.funcs[0].1),
        );
    } else {
        check("KALLSYMS_QUERY finds it at its start", false);
    }
    let end = q.map_or(prog.addr + u64::from(prog.len), |q| q.start + q.size);
    let past = end + 1;
    let (t, k) = (one(text, past), one(kq, past));
    let want = ctx
        .kq
        .as_ref()
        .map_or_else(|| "?".to_string(), |q| q.answer(past).to_string());
    println!(
        "  past its end (image [0x{:x}, 0x{end:x}]), 0x{past:x}: text: {t} | kq: {k} | KALLSYMS_QUERY: {want}",
        prog.addr
    );
    if let Some(kqd) = &ctx.kq {
        check(
            "kq past the live program's end is the kernel's answer",
            kernel_agrees(&k, &kqd.answer(past)),
        );
    }

    let was_listed = listed(&name);
    println!(
        "dynamic: /proc/kallsyms {} {name} while it is loaded",
        if was_listed { "lists" } else { "does NOT list" }
    );
    drop(prog);
    let t0 = Instant::now();
    let gone = loop {
        if !listed(&name) {
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
    if !gone {
        check("program gone within 10 s", false);
        return ok;
    }
    let (t, k) = (one(text, inside), one(kq, inside));
    let want = ctx
        .kq
        .as_ref()
        .map_or_else(|| "?".to_string(), |q| q.answer(inside).to_string());
    println!("  after unload, 0x{inside:x}: text: {t} | kq: {k} | KALLSYMS_QUERY: {want}");
    let Some(kqd) = &ctx.kq else {
        check("kq after unload is the kernel's answer", false);
        check("kq names a program loaded over a freed address", false);
        return ok;
    };
    check(
        "kq after unload is the kernel's answer",
        k.name() != Some(name.as_str()) && kernel_agrees(&k, &kqd.answer(inside)),
    );

    // The load direction: kq has just said "nothing" at `inside` (and may
    // remember it); a program the JIT puts over it must be named.
    match kqd.by_addr(inside) {
        Ok(None) if k == Answer::NotFound => {}
        Ok(None) => {
            println!("dynamic: load: skipped: kq did not say \"not found\" at 0x{inside:x}");
            return ok;
        }
        Ok(Some(q)) => {
            println!(
                "dynamic: load: skipped: 0x{inside:x} is already {} (something else took it)",
                q.name
            );
            return ok;
        }
        Err(err) => {
            check(
                &format!("KALLSYMS_QUERY BY_ADDR 0x{inside:x}: {err}"),
                false,
            );
            return ok;
        }
    }
    // Those that land elsewhere stay loaded, for the next to go on; one
    // that lands in the same pack chunk (BPF_PROG_CHUNK_SIZE, 64 bytes)
    // at another random offset is unloaded, to free the chunk again. The
    // JIT image is freed a little after its symbol goes: wait a little.
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
                check(
                    &format!("KALLSYMS_QUERY BY_ADDR 0x{inside:x}: {err}"),
                    false,
                );
                return ok;
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
    match landed {
        Some((n, prog)) => {
            let name = prog.sym_name();
            let k = one(kq, inside);
            let want = kqd.answer(inside);
            println!(
                "dynamic: load: {name} (id {}, load {n}) at 0x{:x}, {} bytes, covers 0x{inside:x}: kq: {k} | KALLSYMS_QUERY: {want}",
                prog.id, prog.addr, prog.len
            );
            check(
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
    ok
}

/// The BPF programs' functions, as bpf() gives them (jited_ksyms and
/// jited_func_lens), against KALLSYMS_QUERY at their starts: the sizes are
/// checked against the programs' own, not the kernel's symbol tables.
/// Returns whether they agree.
fn bpf_extents(ctx: &Ctx, required: bool) -> bool {
    let Some(kq) = &ctx.kq else {
        println!("bpf extents: not checked (no KALLSYMS_QUERY)");
        return true;
    };
    let ids: std::collections::BTreeSet<u64> = ctx
        .listing
        .syms
        .iter()
        .filter(|s| s.kind() == Kind::BpfProg)
        .filter_map(|s| ctx.kq_sym(s.addr).filter(|q| q.start == s.addr))
        .map(|q| q.prog_id)
        .filter(|&id| id != 0 && id <= u64::from(u32::MAX))
        .collect();
    let (mut progs, mut funcs, mut subprogs, mut gone, mut bad) = (0, 0, 0, 0, 0);
    for id in ids {
        let mut attempt = 0;
        let problems = loop {
            let g0 = kq.generation();
            let mut problems = Vec::new();
            let mut got = None;
            match bpf::funcs_by_id(id as u32) {
                Ok(None) => {}
                Ok(Some(f)) => {
                    for (i, &(addr, len)) in f.iter().enumerate() {
                        let kind = if i == 0 {
                            KALLSYMS_SYM_BPF_PROG
                        } else {
                            KALLSYMS_SYM_BPF_SUBPROG
                        };
                        match kq.by_addr(addr) {
                            Ok(Some(q))
                                if q.start == addr
                                    && q.size == u64::from(len)
                                    && q.prog_id == id
                                    && q.kind == kind
                                    && q.subprog as usize == i => {}
                            Ok(Some(q)) => problems.push(format!(
                                "function {i} at 0x{addr:x}, jited_func_lens {len}: KALLSYMS_QUERY: {} start 0x{:x} size {} prog id {} kind {} subprog {}",
                                q.name, q.start, q.size, q.prog_id, q.kind, q.subprog
                            )),
                            Ok(None) => problems.push(format!(
                                "function {i} at 0x{addr:x}, jited_func_lens {len}: KALLSYMS_QUERY: no symbol"
                            )),
                            Err(err) => problems.push(format!(
                                "function {i} at 0x{addr:x}: KALLSYMS_QUERY: {err}"
                            )),
                        }
                    }
                    got = Some(f.len());
                }
                Err(err) => problems.push(format!("bpf(): {err}")),
            }
            let same = matches!((g0, kq.generation()), (Ok(a), Ok(b)) if a == b);
            attempt += 1;
            if same || attempt == ATTEMPTS {
                match got {
                    None if problems.is_empty() => gone += 1,
                    None => {}
                    Some(n) => {
                        progs += 1;
                        funcs += n;
                        subprogs += n.saturating_sub(1);
                    }
                }
                if !same {
                    problems.push(format!(
                        "the generation changed during each of {ATTEMPTS} attempts"
                    ));
                }
                break problems;
            }
        };
        for p in &problems {
            if bad < SHOWN {
                println!("bpf extents: FAIL program id {id}: {p}");
            }
            bad += 1;
        }
    }
    let ok = bad == 0 && (progs > 0 || !required);
    println!(
        "bpf extents: {progs} programs ({gone} gone meanwhile), {funcs} functions ({subprogs} subprograms): \
         KALLSYMS_QUERY start, size, id, kind against jited_ksyms/jited_func_lens: {bad} problems: {}",
        if ok { "ok" } else { "FAILED" }
    );
    if progs == 0 && required {
        println!("bpf extents: FAILED: no program checked (bpf_prog is --require'd)");
    }
    ok
}

pub fn run(opts: &Opts) -> u8 {
    for r in &opts.require {
        if !Kind::ALL.into_iter().any(|k| k.label() == r) {
            eprintln!("blazesym-check: compare: --require: no kind {r:?}");
            return 2;
        }
    }
    let kq = match Kq::open() {
        Ok(kq) => kq,
        Err(err) => {
            eprintln!("blazesym-check: compare: /proc/kallsyms: {err}");
            return 2;
        }
    };
    let (kq, listing_gen) = match kq.generation() {
        Ok(generation) => {
            println!("KALLSYMS_QUERY v2: yes (generation {generation})");
            (Some(kq), Some(generation))
        }
        Err(err) if opts.allow_fallback => {
            println!("KALLSYMS_QUERY v2: no (GENERATION: {err}): kq falls back to text.");
            println!(
                "--allow-fallback: kq-only checks are SKIPPED; this is a smoke test, not a pass"
            );
            (None, None)
        }
        Err(err) => {
            eprintln!(
                "blazesym-check: compare: KALLSYMS_QUERY v2 is absent (GENERATION: {err}); \
                 nothing to compare (--allow-fallback for a smoke test)"
            );
            return 2;
        }
    };
    let listing = match Listing::read() {
        Ok(listing) => listing,
        Err(err) => {
            eprintln!("blazesym-check: compare: /proc/kallsyms: {err}");
            return 2;
        }
    };
    if listing.syms.is_empty() {
        eprintln!("blazesym-check: compare: /proc/kallsyms shows no addresses (run as root)");
        return 2;
    }
    let mut ctx = Ctx {
        stext: listing.stext(),
        listing,
        kq,
        cache: RefCell::default(),
        listing_gen,
    };

    // a. Addresses.
    let tests = ctx.gen_tests(opts.addrs).tests;
    let addrs: Vec<u64> = tests.iter().map(|t| t.addr).collect();
    let mut lines = [0usize; Kind::ALL.len()];
    for idx in 0..ctx.listing.syms.len() {
        lines[ctx.kind(idx) as usize] += 1;
    }
    let mut per_kind = [0usize; Kind::ALL.len()];
    for t in &tests {
        per_kind[t.kind as usize] += 1;
    }
    println!(
        "/proc/kallsyms: {} lines with addresses",
        ctx.listing.syms.len()
    );
    for kind in Kind::ALL {
        println!(
            "  {:<15} {:>7} lines, {:>7} test addresses",
            kind.label(),
            lines[kind as usize],
            per_kind[kind as usize]
        );
    }

    let missing: Vec<&str> = Kind::ALL
        .into_iter()
        .filter(|k| per_kind[*k as usize] == 0)
        .map(Kind::label)
        .filter(|l| opts.require.iter().any(|r| r == l))
        .collect();
    if !missing.is_empty() {
        eprintln!(
            "blazesym-check: compare: no test address of {} (--require): load them first",
            missing.join(", ")
        );
        return 1;
    }

    // b. Symbolize and judge, a chunk with text then with kq, each pair
    //    (and its judgement, which asks the kernel) in one generation:
    //    a pair the generation changed during is done again, with new
    //    symbolizers and, if need be, the listing read again.
    let mut ta: Vec<Answer> = Vec::with_capacity(addrs.len());
    let mut ka: Vec<Answer> = Vec::with_capacity(addrs.len());
    let mut verdicts: Vec<Verdict> = Vec::with_capacity(addrs.len());
    let mut gens: Vec<Option<u64>> = Vec::with_capacity(addrs.len());
    let (mut t_text, mut t_kq) = (Duration::ZERO, Duration::ZERO);
    let mut redone = 0usize;
    // Symbolizers remember /proc/kallsyms: new ones for a new generation.
    let mut clients: Option<(Option<u64>, TextClient, KqClient)> = None;
    for (c, part) in addrs.chunks(CHUNK).enumerate() {
        let mut attempt = 0;
        loop {
            let g0 = match ctx.generation() {
                Ok(g) => g,
                Err(err) => {
                    eprintln!("blazesym-check: compare: {err}");
                    return 2;
                }
            };
            if g0 != ctx.listing_gen {
                if let Err(err) = ctx.reload(g0) {
                    eprintln!("blazesym-check: compare: {err}");
                    return 2;
                }
            }
            if clients.as_ref().is_none_or(|(g, _, _)| *g != g0) {
                clients = Some((g0, TextClient::new(true, false), KqClient::new(true, false)));
            }
            let Some((_, text, kqc)) = clients.as_ref() else {
                unreachable!("clients were just made");
            };
            let t0 = Instant::now();
            let t = text.symbolize_all(part, CHUNK);
            t_text += t0.elapsed();
            let t0 = Instant::now();
            let k = kqc.symbolize_all(part, CHUNK);
            t_kq += t0.elapsed();
            let v: Vec<Verdict> = part
                .iter()
                .zip(t.iter().zip(&k))
                .map(|(&addr, (t, k))| judge(&ctx, addr, t, k))
                .collect();
            let g1 = match ctx.generation() {
                Ok(g) => g,
                Err(err) => {
                    eprintln!("blazesym-check: compare: {err}");
                    return 2;
                }
            };
            if g1 == g0 {
                ta.extend(t);
                ka.extend(k);
                verdicts.extend(v);
                gens.extend(std::iter::repeat_n(g0, part.len()));
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
                return 1;
            }
        }
    }
    println!(
        "symbolized {} addresses in chunks of {CHUNK} (demangling off): text {:.1} ms, kq {:.1} ms; \
         {redone} chunk pairs redone (generation changed)",
        addrs.len(),
        t_text.as_secs_f64() * 1e3,
        t_kq.as_secs_f64() * 1e3
    );

    // --capi: every BPF address and gap, and a spread of the rest.
    let capi_ok = match &opts.capi {
        None => true,
        Some(path) => {
            let (special, rest): (Vec<usize>, Vec<usize>) =
                (0..tests.len()).partition(|&i| tests[i].kind.is_bpf());
            let need = CAPI_SAMPLE.saturating_sub(special.len()).max(1);
            let step = (rest.len() / need).max(1);
            let mut pick: Vec<usize> = special
                .into_iter()
                .chain(rest.into_iter().step_by(step))
                .collect();
            pick.sort_unstable();
            let a: Vec<u64> = pick.iter().map(|&i| addrs[i]).collect();
            let raw: Vec<&Answer> = pick.iter().map(|&i| &ka[i]).collect();
            let raw_gen: Vec<Option<u64>> = pick.iter().map(|&i| gens[i]).collect();
            capi_check(&ctx, path, &a, &raw, &raw_gen)
        }
    };

    // c. Tally.
    let (mut same, mut module_added, mut alias, mut wrong) = (0usize, 0usize, 0usize, 0usize);
    let mut text_errors = Vec::new();
    let mut fails = Vec::new();
    let mut wrong_shown = 0;
    for (i, (test, verdict)) in tests.iter().zip(verdicts).enumerate() {
        match verdict {
            Verdict::Same => same += 1,
            Verdict::ModuleAdded => module_added += 1,
            Verdict::Alias => alias += 1,
            Verdict::TextWrong => {
                if wrong_shown < SHOWN {
                    if wrong_shown == 0 {
                        println!("where text is wrong and kq right (at most {SHOWN}):");
                    }
                    println!(
                        "  0x{:x} {}/{}: text: {} | kq: {}",
                        test.addr,
                        test.kind.label(),
                        test.what,
                        ta[i],
                        ka[i]
                    );
                    wrong_shown += 1;
                }
                wrong += 1;
            }
            Verdict::TextError => text_errors.push(i),
            Verdict::Fail(why) => fails.push((i, why)),
        }
    }
    for &i in text_errors.iter().take(SHOWN) {
        let t = &tests[i];
        println!(
            "text failed at 0x{:x} {}/{} (kq has the kernel's answer): text: {} | kq: {}",
            t.addr,
            t.kind.label(),
            t.what,
            ta[i],
            ka[i]
        );
    }

    // d. BPF functions' extents, against bpf()'s own.
    let extents_ok = bpf_extents(&ctx, opts.require.iter().any(|r| r == "bpf_prog"));

    // e. Dynamic cases, with a symbolizer of each kind of their own.
    let dyn_ok = dynamic(
        &ctx,
        &TextClient::new(true, false),
        &KqClient::new(true, false),
        opts,
    );

    // f. Summary.
    let identical = same + module_added + alias;
    for (i, why) in fails.iter().take(SHOWN) {
        let t = &tests[*i];
        println!(
            "FAIL 0x{:x} {}/{}: {why}: text: {} | kq: {}",
            t.addr,
            t.kind.label(),
            t.what,
            ta[*i],
            ka[*i]
        );
    }
    println!(
        "identical: {same} exactly, {module_added} but for the module kq adds ([owner], text has none), \
         {alias} under another name of the same symbol"
    );
    println!(
        "blazesym-check: compare: {} addresses, {identical} identical, {wrong} where text is wrong and kq right, \
         {} where text failed and kq is right (not identical), {} failures",
        tests.len(),
        text_errors.len(),
        fails.len()
    );
    let pass = fails.is_empty()
        && identical > 0
        && tests.len() >= opts.addrs
        && dyn_ok
        && capi_ok
        && extents_ok;
    if tests.len() < opts.addrs {
        println!(
            "blazesym-check: compare: only {} addresses, {} asked for",
            tests.len(),
            opts.addrs
        );
    }
    if !dyn_ok {
        println!("blazesym-check: compare: dynamic cases FAILED");
    }
    if !capi_ok {
        println!("blazesym-check: compare: capi FAILED");
    }
    if !extents_ok {
        println!("blazesym-check: compare: bpf extents FAILED");
    }
    if ctx.kq.is_none() {
        println!("blazesym-check: compare: NOTE: no KALLSYMS_QUERY: kq-only checks skipped (--allow-fallback)");
    }
    println!(
        "blazesym-check: compare: {}",
        if pass { "PASS" } else { "FAIL" }
    );
    u8::from(!pass)
}
