// SPDX-License-Identifier: GPL-2.0

//! A boot-time benchmark of the BPF ksym registry, for `make bench`.
//!
//! C headers: [`include/linux/bpf.h`](srctree/include/linux/bpf.h),
//! [`include/linux/filter.h`](srctree/include/linux/filter.h)
//!
//! It registers `n` synthetic symbols and times the registry through its C prototypes
//! (`is_bpf_text_address`, `bpf_address_lookup`, `bpf_ksym_add`, `bpf_ksym_del`), so the same
//! code measures whichever registry the kernel was built with: the Rust one
//! (`CONFIG_BPF_KSYM_RUST=y`) or the C one of `kernel/bpf/core.c`.
//!
//! It does nothing unless the command line asks: `bpf_ksym_bench.max_n=30000` runs every size of
//! [`SIZES`] up to 30000. Each figure is one console line,
//! `bpf_ksym_bench: workload=<w> n=<n> ops=<ops> ns_per_op=<x.yyy>` (the prefix is the module's
//! `pr_fmt`), and the run ends with
//! `bpf_ksym_bench: done`. A lookup that answers wrongly prints `bpf_ksym_bench: WRONG ...`
//! instead of a figure: a fast wrong registry must not look good.

use core::{mem::size_of, num::NonZeroU64};
use kernel::{
    bindings,
    ffi::c_char,
    prelude::*,
    sync::rcu,
    time::{
        Instant,
        Monotonic, //
    },
    types::Opaque, //
};

module! {
    type: BpfKsymBench,
    name: "bpf_ksym_bench",
    authors: ["bpf_ksym developers"],
    description: "Boot-time benchmark of the BPF ksym registry",
    license: "GPL",
    params: {
        max_n: u32 {
            default: 0,
            description: "Run the benchmark for every size up to this many symbols (0: off)",
        },
        lookups: u32 {
            default: 1_000_000,
            description: "Timed calls per lookup workload and size",
        },
    },
}

/// The registry sizes measured, as in the plots of `make bench`.
const SIZES: [usize; 5] = [1, 100, 1_000, 10_000, 30_000];

/// Add/del pairs per size: `n`, but at least this many, so small sizes are not one sample.
const MIN_PAIRS: usize = 10_000;

/// Timings per figure; the fastest is reported.
const REPS: usize = 3;

/// Add/del pairs between two RCU grace periods; their symbols are then reused.
const BATCH: usize = 1024;

/// Bytes of a resident symbol; an address just past it, up to [`SLOT`], holds no symbol.
const SYM_LEN: usize = 128;

/// Distance between two resident symbols.
///
/// Symbol `i` covers `[start_i, start_i + SYM_LEN]` where `start_i` is the address of the
/// `i`-th `struct bpf_ksym` of our own array: addresses that nothing else can own, spaced by
/// the size of the struct. Nothing ever executes there; only the registry compares them.
const SLOT: usize = size_of::<bindings::bpf_ksym>();
const _: () = assert!(SLOT >= 2 * SYM_LEN + 2);

/// Where the add/del symbols go, inside the gap after a resident one.
const GAP_OFFSET: usize = SYM_LEN + 32;
const GAP_LEN: usize = 32;

struct BpfKsymBench;

impl kernel::Module for BpfKsymBench {
    fn init(_module: &'static ThisModule) -> Result<Self> {
        let max_n = module_parameters::max_n.value() as usize;
        let lookups = module_parameters::lookups.value() as usize;
        if max_n == 0 {
            return Ok(Self);
        }
        // The initramfs is unpacked by an async worker during the initcalls; on one vCPU it
        // would run inside our timings. (Without initramfs support there is none to wait for,
        // and the function is an inline stub.)
        #[cfg(CONFIG_BLK_DEV_INITRD)]
        // SAFETY: Callable from any initcall; it only waits.
        unsafe {
            bindings::wait_for_initramfs()
        };
        pr_info!(
            "sizes up to {max_n}, {lookups} lookups each, {} registry\n",
            if cfg!(CONFIG_BPF_KSYM_RUST) {
                "Rust"
            } else {
                "C"
            }
        );
        for n in SIZES.into_iter().filter(|&n| n <= max_n) {
            run_size(n, lookups.max(1))?;
        }
        pr_info!("done\n");
        Ok(Self)
    }
}

/// A cheap deterministic generator (xorshift64), the same sequence in both kernels.
struct Rng(u64);

impl Rng {
    /// A number in `0..n`, by multiply-shift rather than a division.
    fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (((self.0 >> 32) * n as u64) >> 32) as usize
    }
}

/// `struct bpf_ksym`s owned by the benchmark, at addresses that do not move.
///
/// # Invariants
///
/// `syms` is never resized, so the address of each element stays the same while any of them is
/// registered. Every element is registered, or unregistered with an empty `lnode` (so that
/// `bpf_ksym_del` ignores it), except between its `del` and the `reset` that follows the next
/// grace period.
///
/// The registry and readers on other CPUs use the C structs while they are registered, so they
/// sit in `Opaque` and are reached only through raw pointers.
struct Symbols {
    syms: KVVec<Opaque<bindings::bpf_ksym>>,
}

impl Symbols {
    fn new(n: usize) -> Result<Self> {
        let mut syms = KVVec::with_capacity(n, GFP_KERNEL)?;
        for _ in 0..n {
            // All zeroes is a valid `bpf_ksym`: integers, bytes, NULL links, `false`.
            syms.push(Opaque::zeroed(), GFP_KERNEL)?;
        }
        let this = Self { syms };
        // INVARIANT: `syms` is full now and never pushed to again; `reset` initialises `lnode`.
        for i in 0..n {
            // SAFETY: Not registered: never added yet.
            unsafe { this.reset(i, 0, 0) };
        }
        Ok(this)
    }

    fn ptr(&self, i: usize) -> *mut bindings::bpf_ksym {
        self.syms[i].get()
    }

    /// The address symbol `i` of this array would start at if it were resident.
    fn slot(&self, i: usize) -> usize {
        self.ptr(i) as usize
    }

    /// Makes symbol `i` cover `[start, end]`, unregistered, named `bpf_ksym_bench`.
    ///
    /// # Safety
    ///
    /// Symbol `i` is not registered, and a grace period has passed since it was deleted, so that
    /// no reader still sees it.
    unsafe fn reset(&self, i: usize, start: usize, end: usize) {
        let p = self.ptr(i);
        const NAME: &[u8] = b"bpf_ksym_bench\0";
        // SAFETY: `p` is valid and, per the caller, not visible to the registry or readers, so
        // nothing else accesses it; the name and its NUL fit in `KSYM_NAME_LEN` bytes.
        unsafe {
            (*p).start = start;
            (*p).end = end;
            core::ptr::copy_nonoverlapping(NAME.as_ptr(), (&raw mut (*p).name).cast(), NAME.len());
            bindings::INIT_LIST_HEAD(&raw mut (*p).lnode);
        }
    }

    /// Registers symbol `i`.
    ///
    /// # Safety
    ///
    /// Symbol `i` was [`Symbols::reset`] since it was last added.
    unsafe fn add(&self, i: usize) {
        // SAFETY: The symbol is filled in with an empty `lnode` (safety requirements) and, by
        // the type invariant, stays at this address until it is deleted and a grace period has
        // passed (`Drop`).
        unsafe { bindings::bpf_ksym_add(self.ptr(i)) };
    }

    /// Unregisters symbol `i`, if it is registered.
    ///
    /// # Safety
    ///
    /// Symbol `i` is registered, or unregistered with an empty `lnode` (fresh from
    /// [`Symbols::reset`]): not deleted before without a `reset` since.
    unsafe fn del(&self, i: usize) {
        // SAFETY: Per the safety requirements; deleting an unregistered one is a no-op.
        unsafe { bindings::bpf_ksym_del(self.ptr(i)) };
    }
}

impl Drop for Symbols {
    fn drop(&mut self) {
        for i in 0..self.syms.len() {
            // SAFETY: Every symbol is registered, or unregistered with an empty `lnode` (type
            // invariant: `Drop` runs outside the window between a `del` and its `reset`).
            unsafe { self.del(i) };
        }
        // Readers may still hold a pointer into `syms` until a grace period has passed.
        rcu::synchronize_rcu();
    }
}

/// `dividend / divisor`. 32-bit kernels divide 64-bit numbers with `div64_u64()`: their
/// compilers would call a library function the kernel does not have (`__aeabi_uldivmod`).
fn div64(dividend: u64, divisor: NonZeroU64) -> u64 {
    #[cfg(CONFIG_64BIT)]
    {
        dividend / divisor
    }
    #[cfg(not(CONFIG_64BIT))]
    {
        // SAFETY: `div64_u64()` may be called with any dividend and a non-zero divisor, which
        // `NonZeroU64` guarantees.
        unsafe { bindings::div64_u64(dividend, divisor.get()) }
    }
}

const THOUSAND: NonZeroU64 = NonZeroU64::new(1000).unwrap();

/// Time per call, in picoseconds, from `ops` calls that took `ns`.
fn report(workload: &str, n: usize, ops: usize, ns: i64) {
    let Some(per) = NonZeroU64::new(ops as u64) else {
        pr_warn!("workload={workload} n={n}: no operation timed, nothing to report\n");
        return;
    };
    let ps = div64(ns.max(0) as u64 * 1000, per);
    let whole = div64(ps, THOUSAND);
    pr_info!(
        "workload={workload} n={n} ops={ops} ns_per_op={whole}.{:03}\n",
        ps - whole * 1000
    );
}

fn wrong(workload: &str, n: usize, what: core::fmt::Arguments<'_>) -> Error {
    pr_err!("WRONG workload={workload} n={n}: {what}\n");
    EINVAL
}

/// Times `ops` calls of `is_bpf_text_address` at the addresses `addr` picks and checks that
/// exactly `want_hits` of them were BPF text; returns the time taken in ns.
fn time_text_address(
    workload: &str,
    n: usize,
    ops: usize,
    want_hits: usize,
    mut addr: impl FnMut(usize) -> usize,
) -> Result<i64> {
    let mut hits = 0;
    let t0 = Instant::<Monotonic>::now();
    for k in 0..ops {
        // SAFETY: `is_bpf_text_address` may be called with any address, from any context.
        hits += usize::from(unsafe { bindings::is_bpf_text_address(addr(k)) });
    }
    let ns = t0.elapsed().as_nanos();
    if hits != want_hits {
        return Err(wrong(
            workload,
            n,
            format_args!("{hits} hits, want {want_hits}"),
        ));
    }
    Ok(ns)
}

/// The fastest of [`REPS`] timings: what else the boot runs meanwhile only ever adds time.
fn best_of(mut timed: impl FnMut() -> Result<i64>) -> Result<i64> {
    let mut best = i64::MAX;
    for _ in 0..REPS {
        best = best.min(timed()?);
    }
    Ok(best)
}

fn run_size(n: usize, ops: usize) -> Result {
    let resident = Symbols::new(n)?;
    for i in 0..n {
        let start = resident.slot(i);
        // SAFETY: Fresh from `Symbols::new`: never added.
        unsafe { resident.reset(i, start, start + SYM_LEN) };
        // SAFETY: Just reset.
        unsafe { resident.add(i) };
    }
    let start = |i| resident.slot(i);
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);

    let hit = best_of(|| {
        time_text_address("lookup_hit", n, ops, ops, |_| {
            start(rng.below(n)) + rng.below(SYM_LEN)
        })
    })?;
    report("lookup_hit", n, ops, hit);
    let miss = best_of(|| {
        time_text_address("lookup_miss", n, ops, 0, |_| {
            start(rng.below(n)) + SYM_LEN + 1 + rng.below(SLOT - SYM_LEN - 1)
        })
    })?;
    report("lookup_miss", n, ops, miss);
    // start - 1 and end + 1 miss, start and end (inclusive) hit: exactly half are hits.
    let boundary_hits = ops / 4 * 2 + [0, 0, 1, 2][ops % 4];
    let boundary = best_of(|| {
        time_text_address("lookup_boundary", n, ops, boundary_hits, |k| {
            let s = start(rng.below(n));
            [s - 1, s, s + SYM_LEN, s + SYM_LEN + 1][k % 4]
        })
    })?;
    report("lookup_boundary", n, ops, boundary);
    let lookup = best_of(|| time_address_lookup(n, ops, &mut rng, &resident))?;
    report("address_lookup", n, ops, lookup);
    let pairs = n.max(MIN_PAIRS);
    let add_del = best_of(|| time_add_del(n, pairs, &mut rng, &resident))?;
    report("add_del", n, pairs, add_del);
    drop(resident);
    Ok(())
}

/// Times `bpf_address_lookup` (what `%pS` and `kallsyms_lookup` use) on hits, and checks the
/// size, offset and name it answers.
fn time_address_lookup(n: usize, ops: usize, rng: &mut Rng, resident: &Symbols) -> Result<i64> {
    let mut name = [0 as c_char; bindings::KSYM_NAME_LEN as usize];
    let (mut size, mut off, mut bad) = (0, 0, 0usize);
    let t0 = Instant::<Monotonic>::now();
    for _ in 0..ops {
        let want_off = rng.below(SYM_LEN + 1);
        let addr = resident.slot(rng.below(n)) + want_off;
        // SAFETY: `name` holds `KSYM_NAME_LEN` bytes; `size` and `off` are valid.
        let len =
            unsafe { bindings::bpf_address_lookup(addr, &mut size, &mut off, name.as_mut_ptr()) };
        bad += usize::from(len != 14 || off != want_off || size != SYM_LEN);
    }
    let ns = t0.elapsed().as_nanos();
    if bad != 0 || name[..15] != b"bpf_ksym_bench\0"[..] {
        return Err(wrong(
            "address_lookup",
            n,
            format_args!("{bad} answers with a wrong size/offset/name"),
        ));
    }
    Ok(ns)
}

/// Times adding and deleting one symbol at a random place among the `n` resident ones: what
/// loading and unloading a program costs the registry.
fn time_add_del(n: usize, pairs: usize, rng: &mut Rng, resident: &Symbols) -> Result<i64> {
    let spare = Symbols::new(BATCH)?;
    let mut ns = 0;
    let mut done = 0;
    while done < pairs {
        let batch = BATCH.min(pairs - done);
        for j in 0..batch {
            let start = resident.slot(rng.below(n)) + GAP_OFFSET;
            // SAFETY: Never added, or deleted before the last grace period below.
            unsafe { spare.reset(j, start, start + GAP_LEN) };
        }
        let t0 = Instant::<Monotonic>::now();
        for j in 0..batch {
            // SAFETY: Reset above.
            unsafe { spare.add(j) };
            // SAFETY: Added just now.
            unsafe { spare.del(j) };
        }
        ns += t0.elapsed().as_nanos();
        // The deleted symbols are reused for the next batch: wait out their readers first.
        rcu::synchronize_rcu();
        done += batch;
    }
    // Deleted symbols still have `lnode` linked; leave them all unregistered for `Drop`.
    for j in 0..BATCH {
        // SAFETY: Deleted before the last grace period, or never added.
        unsafe { spare.reset(j, 0, 0) };
    }
    Ok(ns)
}
