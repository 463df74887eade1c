// SPDX-License-Identifier: GPL-2.0

//! `KALLSYMS_QUERY_BY_ADDR_BATCH`: one call symbolizes an array of addresses.
//!
//! C headers: [`include/uapi/linux/kallsyms_query.h`](srctree/include/uapi/linux/kallsyms_query.h),
//! [`include/linux/kallsyms_query.h`](srctree/include/linux/kallsyms_query.h)
//!
//! What one call costs the kernel is bounded whatever the caller asks: at most
//! `KALLSYMS_QUERY_BATCH_MAX` entries, each one lookup as a single `BY_ADDR` (for vmlinux a
//! binary search and a walk over at most 255 compressed names; else `O(log n)` under RCU),
//! answered in blocks of [`BLOCK`] entries with a `cond_resched()` between blocks. A block's user
//! accesses are one access window that reads its addresses, a check that the bytes of larger
//! entries past the fields we know (`KALLSYMS_QUERY_ADDR_SIZE_MAX` at most) are zero, one copy of
//! its strings (576 bytes at most per entry) and one access window that writes its answer fields;
//! each goes entry by entry from where it faults, to find the first entry that does. `addr` is
//! never written. Its memory is a block and two answers (under 4 KiB, allocated once) whatever the
//! batch size: a block is read, answered and written back before the next is read, and no user
//! memory is touched under the RCU read lock.
//!
//! Entries are answered in order. What stops one (its strings do not fit in the name buffer, a
//! fault, bytes it must not have) ends the call early with the count of entries answered before
//! it, so the caller continues from there; only for the first entry is it the call's error.
//!
//! Each block's addresses are read, then its lookups made under the call's [`Window`], then its
//! answers written: if a change overlapped the lookups, or came since the call's first block,
//! the block is dropped and the call ends before it (or, for the first block, the caller looks up
//! again), so every answer the call returns holds for its generation (see `pass.rs`).

use crate::{
    answer::{
        Answer,
        Cursor,
        Rules, //
    },
    buf_len,
    kernel_addr,
    pass::Window,
    user_addr,
    IdRule,
    Query,
    NAME_LEN,
    OWNER_LEN, //
};
use kernel::{
    bindings,
    num::casts::{
        self,
        FromSafeCast, //
    },
    prelude::*,
    task::cond_resched,
    uaccess::{
        UserPtr,
        UserSlice, //
    },
};

/// The size of the first entry version: `addr` and the answer fields after it.
pub(crate) const ENTRY_SIZE_VER0: usize =
    casts::u32_as_usize(bindings::KALLSYMS_QUERY_ADDR_SIZE_VER0);
/// The largest entry size.
const ENTRY_SIZE_MAX: usize = casts::u32_as_usize(bindings::KALLSYMS_QUERY_ADDR_SIZE_MAX);
/// The most entries one call answers.
pub(crate) const BATCH_MAX: usize = casts::u32_as_usize(bindings::KALLSYMS_QUERY_BATCH_MAX);

type Entry = bindings::kallsyms_query_addr;

static_assert!(size_of::<Entry>() == ENTRY_SIZE_VER0);

/// A range of user addresses, `[start, end)`.
#[derive(Clone, Copy)]
pub(crate) struct UserRange {
    pub(crate) start: usize,
    pub(crate) end: usize,
}

impl UserRange {
    /// `EFAULT` if the range wraps around: no caller can have mapped it.
    pub(crate) fn new(start: usize, len: usize) -> Result<Self> {
        let end = start.checked_add(len).ok_or(EFAULT)?;
        Ok(Self { start, end })
    }

    pub(crate) fn len(self) -> usize {
        self.end - self.start
    }

    pub(crate) fn overlaps(self, other: Self) -> bool {
        self.start < other.end && other.start < self.end
    }
}

/// Entries a round reads, answers and writes back together: the user accesses of a block are one
/// copy of its strings, and one access window each that reads its addresses and writes its
/// answers, rather than three copies per entry.
///
/// The most that the C seams take per call (`KALLSYMS_QUERY_BLOCK_MAX`).
const BLOCK: usize = casts::u32_as_usize(bindings::KALLSYMS_QUERY_BLOCK_MAX);
/// The room for a block's strings; an entry that finds less than [`ENTRY_ROOM`] left (the most
/// its strings can take) ends its block early, and starts the next.
const BLOCK_NAMES: usize = 2048;
static_assert!(NAME_LEN + OWNER_LEN <= BLOCK_NAMES);
/// The room a lookup needs in the block's strings: the longest name, then the longest owner.
const ENTRY_ROOM: usize = NAME_LEN + OWNER_LEN;

/// Where a batch's strings go, and what the entry before wrote there.
struct Names {
    range: UserRange,
    /// Bytes the entries answered so far use.
    used: usize,
    /// The previous found entry's strings, to share them.
    prev: Option<Shared>,
}

/// The strings of the previous found entry, for the next to share where they repeat.
#[derive(Clone, Copy)]
struct Shared {
    /// Offsets of its name and owner in the name buffer.
    name_off: usize,
    owner_off: usize,
    /// Where its name is in the block's strings, if it is in the current block.
    staged: Option<usize>,
}

/// A call's working memory, allocated once: under 4 KiB whatever the batch size.
#[derive(Zeroable)]
struct Work {
    /// The current answer and the previous one, whose strings the current may share.
    answers: [Answer; 2],
    /// Which of `answers` is the current one.
    cur: usize,
    /// The block's addresses.
    addrs: [u64; BLOCK],
    /// The block's answers, to be written back.
    entries: [Entry; BLOCK],
    /// The block's strings, in the order they go to the name buffer; each lookup writes its name
    /// here.
    names: [u8; BLOCK_NAMES],
    /// Where each answered entry's strings end in `names`.
    names_end: [usize; BLOCK],
}

// One page: a kmalloc-4k allocation, not a higher order.
static_assert!(size_of::<Work>() <= 4096);

/// What every entry of a call is looked up with.
struct Lookup<'a> {
    /// Applied to the answers once the lookups hold, outside the locked pass's atomic context.
    ids: &'a mut IdRule,
    /// Entries in address order reach each vmlinux name from the one before.
    cursor: Cursor,
}

/// How an entry ended.
enum Outcome {
    /// Answered; its strings end at this offset of the block's.
    Answered(usize),
    /// Its strings do not fit in what is left of the block's room: it starts the next block.
    BlockFull,
    /// Its strings do not fit in what is left of the name buffer.
    Full,
}

/// Why a block ended before its last entry.
enum Stop {
    /// The entry's strings do not fit in what is left of the name buffer.
    Full,
    /// A change overlapped the block's lookups: none of its answers was written.
    Changed,
    Error(Error),
}

/// Answers the batch described by `q`, whose struct is `size` bytes at `uarg`, under `window`,
/// again until one attempt holds.
pub(crate) fn answer(
    q: &mut Query,
    uarg: usize,
    size: usize,
    ids: &mut IdRule,
    window: &mut Window,
) -> Result {
    loop {
        if let Some(()) = by_addr_batch(q, uarg, size, ids, window)? {
            window.done();
            q.generation = window.generation();
            return Ok(());
        }
        window.retry()?;
    }
}

/// The batch's arrays, checked: its entries, and their count and size, and its name buffer.
/// `q`'s struct is `size` bytes at `uarg`.
fn arrays(q: &Query, uarg: usize, size: usize) -> Result<(UserRange, usize, usize, Names)> {
    if q.sym_addr != 0 || q.sym_name_size == 0 || q.batch_count == 0 {
        return Err(EINVAL);
    }
    let count = usize::from_safe_cast(q.batch_count);
    let entry_size = usize::from_safe_cast(q.batch_entry_size);
    if count > BATCH_MAX || entry_size > ENTRY_SIZE_MAX {
        return Err(E2BIG);
    }
    if entry_size < ENTRY_SIZE_VER0 || entry_size % size_of::<u64>() != 0 {
        return Err(EINVAL);
    }
    // Neither product can overflow: both factors are bounded above.
    let entries = UserRange::new(user_addr(q.batch_addr)?, count * entry_size)?;
    // No more than every entry's name and owner can use: the larger sizes are as good.
    let names_len = buf_len::<usize>(q.sym_name_size).min(count * (NAME_LEN + OWNER_LEN));
    let names = Names {
        range: UserRange::new(user_addr(q.sym_name_addr)?, names_len)?,
        used: 0,
        prev: None,
    };
    let this = UserRange::new(uarg, size)?;
    // The answers would overwrite the questions, or each other.
    if entries.overlaps(names.range) || entries.overlaps(this) || names.range.overlaps(this) {
        return Err(EINVAL);
    }
    Ok((entries, count, entry_size, names))
}

/// Answers the batch described by `q`, whose struct is `size` bytes at `uarg`, under `window`.
/// `None` if a change overlapped the first block's lookups: nothing was written, and the caller
/// tries again.
fn by_addr_batch(
    q: &mut Query,
    uarg: usize,
    size: usize,
    ids: &mut IdRule,
    window: &mut Window,
) -> Result<Option<()>> {
    let (entries, count, entry_size, mut names) = arrays(q, uarg, size)?;
    let mut work = KBox::init::<core::convert::Infallible>(pin_init::zeroed::<Work>(), GFP_KERNEL)?;
    let mut lookup = Lookup {
        ids,
        cursor: Cursor::new(),
    };
    let mut done = 0;
    while done < count {
        let first = entries.start + done * entry_size;
        let n = (count - done).min(BLOCK);
        let (answered, stop) = answer_block(
            first,
            entry_size,
            n,
            (&mut work, &mut names),
            &mut lookup,
            window,
        );
        done += answered;
        match stop {
            None => {}
            Some(Stop::Full) if done == 0 => return Err(ENAMETOOLONG),
            Some(Stop::Changed) if done == 0 => return Ok(None),
            Some(Stop::Error(e)) if done == 0 => return Err(e),
            // The next call starts at the entry that stopped this one, and gets its error then.
            Some(_) => break,
        }
        cond_resched();
    }
    // Both fit their fields: `done <= count`, a `__u32`; `used <= names_len`.
    q.batch_count = u32::try_from(done).map_err(|_| E2BIG)?;
    q.sym_name_size = u64::from_safe_cast(names.used);
    Ok(Some(()))
}

/// Answers up to `n` (at most [`BLOCK`]) entries from `first`: reads their addresses, looks each
/// up under `window` and writes the answers back, the strings first. Returns how many were
/// answered, all of whose writes landed (at least one unless it stops), and what stopped the
/// block, if anything.
fn answer_block(
    first: usize,
    entry_size: usize,
    n: usize,
    (work, names): (&mut Work, &mut Names),
    lookup: &mut Lookup<'_>,
    window: &mut Window,
) -> (usize, Option<Stop>) {
    // Before the lookups: a fault here, however long, holds no snapshot open.
    let (read, stop) = read_block(first, entry_size, n, work);
    if read == 0 {
        return (0, stop);
    }
    // The previous block's strings are written: the new block's overwrite them.
    if let Some(prev) = names.prev.as_mut() {
        prev.staged = None;
    }
    // The block's errors included, which may be a change's doing too. The call ends before the
    // block (or starts again, if it is the first): nothing uses what it left in `names`.
    let Some((mut answered, mut stop)) =
        window.run(|rules| lookup_block(read, stop, work, names, lookup, rules))
    else {
        return (0, Some(Stop::Changed));
    };

    // Program ids only for those who may see them: asked here, with no lock held, and only if
    // an answer has one.
    for e in &mut work.entries[..answered] {
        e.prog_id = u64::from(lookup.ids.filter(u32::try_from(e.prog_id).unwrap_or(0)));
    }
    // The strings, then the answers that point into them.
    let start = names.range.start + names.used;
    if let Some((i, e)) = write_strings(start, answered, work) {
        (answered, stop) = (i, Some(Stop::Error(e)));
    }
    // `answered <= BLOCK`; were it not, nothing would count as written.
    let want = u32::try_from(answered).unwrap_or(0);
    // SAFETY: `entries` holds `BLOCK >= answered` entries; the callee checks the user addresses
    // and faults safely.
    let written = unsafe {
        bindings::kallsyms_query_put_answers(
            UserPtr::from_addr(first).as_mut_ptr(),
            entry_size,
            work.entries.as_ptr(),
            want,
        )
    };
    let written = usize::from_safe_cast(written);
    if written < answered {
        (answered, stop) = (written, Some(Stop::Error(EFAULT)));
    }
    if let Some(last) = answered.checked_sub(1) {
        names.used += work.names_end[last];
    }
    (answered, stop)
}

/// Looks up the block's `read` entries whose addresses are in `work.addrs`; `stop` is what ended
/// their reading early, if anything. Returns how many were answered and what stopped the block,
/// and whether that may change with BPF programs or modules (anything but vmlinux symbols).
fn lookup_block(
    read: usize,
    mut stop: Option<Stop>,
    work: &mut Work,
    names: &mut Names,
    lookup: &mut Lookup<'_>,
    rules: &Rules,
) -> ((usize, Option<Stop>), bool) {
    let vmlinux = bindings::kallsyms_sym_kind_KALLSYMS_SYM_VMLINUX;
    let mut answered = 0;
    let mut staged = 0;
    let mut may_change = false;
    while answered < read {
        match answer_entry(answered, staged, (work, names), lookup, rules) {
            Ok(Outcome::Answered(end)) => {
                staged = end;
                may_change |= work.entries[answered].kind != vmlinux;
            }
            Ok(Outcome::BlockFull) => {
                // Not a stop: the next block starts from this entry, and finds what stopped
                // this one's reading itself.
                stop = None;
                may_change = true;
                break;
            }
            Ok(Outcome::Full) => {
                stop = Some(Stop::Full);
                may_change = true;
                break;
            }
            Err(e) => {
                stop = Some(Stop::Error(e));
                may_change = true;
                break;
            }
        }
        work.names_end[answered] = staged;
        answered += 1;
    }
    ((answered, stop), may_change)
}

/// Writes the strings of the block's first `n` entries to the user at `start`: in one copy, or
/// entry by entry to find the first that faults, whose index and error it returns.
fn write_strings(start: usize, n: usize, work: &Work) -> Option<(usize, Error)> {
    let staged = work.names_end[..n].last()?;
    if write_user(start, &work.names[..*staged]).is_ok() {
        return None;
    }
    let mut from = 0;
    work.names_end[..n]
        .iter()
        .enumerate()
        .find_map(|(i, &end)| {
            let r = write_user(start + from, &work.names[from..end]);
            from = end;
            r.err().map(|e| (i, e))
        })
}

/// Copies `data` to the user at `addr`.
fn write_user(addr: usize, data: &[u8]) -> Result {
    UserSlice::new(UserPtr::from_addr(addr), data.len())
        .writer()
        .write_slice(data)
}

/// Reads the addresses of the `n` (at most [`BLOCK`]) entries from `first` into `work.addrs`,
/// and checks that the bytes of each entry past the fields we know are zero. Returns how many
/// were read, and the error of the first that could not be.
fn read_block(first: usize, entry_size: usize, n: usize, work: &mut Work) -> (usize, Option<Stop>) {
    let want = u32::try_from(n).unwrap_or(0);
    // SAFETY: `addrs` holds `BLOCK >= n` values; the callee checks the user addresses and faults
    // safely.
    let got = unsafe {
        bindings::kallsyms_query_get_addrs(
            UserPtr::from_addr(first).as_const_ptr(),
            entry_size,
            work.addrs.as_mut_ptr(),
            want,
        )
    };
    let read = usize::from_safe_cast(got.min(want));
    if entry_size > ENTRY_SIZE_VER0 {
        for i in 0..read {
            if let Err(e) = check_unknown_zero(first + i * entry_size, entry_size) {
                return (i, Some(Stop::Error(e)));
            }
        }
    }
    (read, (read < n).then_some(Stop::Error(EFAULT)))
}

/// Checks that the bytes of the entry at `entry` (`entry_size` bytes) past the fields we know are
/// zero, as in the struct: a newer caller's inputs there would otherwise be ignored without a
/// word.
fn check_unknown_zero(entry: usize, entry_size: usize) -> Result {
    let len = entry_size - ENTRY_SIZE_VER0;
    let mut tail = UserSlice::new(UserPtr::from_addr(entry + ENTRY_SIZE_VER0), len).reader();
    if tail.check_zeroed(len)? {
        Ok(())
    } else {
        Err(E2BIG)
    }
}

/// Where an answer's name and owner go in the name buffer, `here` being its first free byte:
/// `(name_off, name_need, owner_off, owner_need)`, the bytes each needs there 0 where it shares
/// the previous answer's (`prev`, whose strings are at `shared`).
///
/// A profile's addresses often share a function, and its owner: each string is written once
/// while they repeat. A vmlinux name is the same if its start is (the table does not change, and
/// a lookup finds the first of the symbols at an address); others are compared, in the block's
/// strings (`staged_names`, the answer's name at `staged`).
fn string_places(
    shared: Option<Shared>,
    (answer, prev): (&Answer, &Answer),
    staged_names: &[u8],
    staged: usize,
    here: usize,
) -> (usize, usize, usize, usize) {
    let vmlinux = bindings::kallsyms_sym_kind_KALLSYMS_SYM_VMLINUX;
    let name_len = answer.name_len;
    let (name_off, name_need) = match shared {
        Some(p) if answer.kind == vmlinux && prev.kind == vmlinux && prev.start == answer.start => {
            (p.name_off, 0)
        }
        Some(Shared {
            name_off,
            staged: Some(at),
            ..
        }) if answer.kind != vmlinux
            && prev.name_len == name_len
            && staged_names[at..at + name_len] == staged_names[staged..staged + name_len] =>
        {
            (name_off, 0)
        }
        _ => (here, name_len),
    };
    let (owner_off, owner_need) = match shared {
        // Empty (vmlinux): the name's own NUL.
        _ if answer.owner_len == 1 => (name_off + name_len - 1, 0),
        Some(p) if prev.owner() == answer.owner() => (p.owner_off, 0),
        _ => (here + name_need, answer.owner_len),
    };
    (name_off, name_need, owner_off, owner_need)
}

/// The entry of `answer`, its strings at `name_off` and `owner_off`: below the name buffer's
/// length, at most `BATCH_MAX` times a name and owner.
fn entry_of(answer: &Answer, name_off: usize, owner_off: usize) -> Result<Entry> {
    Ok(Entry {
        addr: 0,
        start: u64::from_safe_cast(answer.start),
        size: u64::from_safe_cast(answer.size),
        // Whoever asks, for now: `answer_block` hides it from those who may not see it.
        prog_id: u64::from(answer.prog_id),
        name_off: u32::try_from(name_off).map_err(|_| E2BIG)?,
        owner_off: u32::try_from(owner_off).map_err(|_| E2BIG)?,
        kind: answer.kind,
        subprog: answer.subprog,
    })
}

/// Answers entry `i` of the block (its address in `work.addrs`) into the current answer, its name
/// into `work.names` from `staged` and its other strings after it (sharing those of the previous
/// answer where they repeat), its answer fields into `work.entries`.
fn answer_entry(
    i: usize,
    staged: usize,
    (work, names): (&mut Work, &mut Names),
    lookup: &mut Lookup<'_>,
    rules: &Rules,
) -> Result<Outcome> {
    let addr = work.addrs[i];
    // Never the block's first entry, which always has the room (see `BLOCK_NAMES`): a block
    // answers at least one entry unless it stops.
    let Some(name) = work
        .names
        .get_mut(staged..staged + ENTRY_ROOM)
        .and_then(|room| room.first_chunk_mut())
    else {
        return Ok(Outcome::BlockFull);
    };
    let [a0, a1] = &mut work.answers;
    let (answer, prev) = if work.cur == 0 {
        (a0, &*a1)
    } else {
        (a1, &*a0)
    };
    let out = &mut work.entries[i];
    match kernel_addr(addr).and_then(|addr| answer.lookup(addr, rules, &mut lookup.cursor, name)) {
        Ok(()) => {}
        // No symbol: an answer too (kind NONE, every field 0).
        Err(e) if e == ENOENT => {
            *out = Entry::default();
            return Ok(Outcome::Answered(staged));
        }
        Err(e) => return Err(e),
    }
    let here = names.used + staged;
    let (name_off, name_need, owner_off, owner_need) =
        string_places(names.prev, (&*answer, prev), &work.names, staged, here);
    if here + name_need + owner_need > names.range.len() {
        return Ok(Outcome::Full);
    }
    // The name is in place (where the lookup wrote it) unless it is shared; the owner goes after
    // what stays.
    let end = staged + name_need;
    if owner_need > 0 {
        work.names[end..end + owner_need].copy_from_slice(answer.owner());
    }
    *out = entry_of(answer, name_off, owner_off)?;
    // A shared name is where the previous one's is, staged or not.
    let name_at = if name_need > 0 {
        Some(staged)
    } else {
        names.prev.and_then(|p| p.staged)
    };
    names.prev = Some(Shared {
        name_off,
        owner_off,
        staged: name_at,
    });
    work.cur ^= 1;
    Ok(Outcome::Answered(end + owner_need))
}
