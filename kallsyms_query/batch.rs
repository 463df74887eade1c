// SPDX-License-Identifier: GPL-2.0

//! `KALLSYMS_QUERY_BY_ADDR_BATCH`: one call symbolizes an array of addresses.
//!
//! C header: [`include/uapi/linux/fs.h`](srctree/include/uapi/linux/fs.h)
//!
//! What one call costs the kernel is bounded whatever the caller asks: at most
//! `KALLSYMS_QUERY_BATCH_MAX` entries, each one lookup as a single `BY_ADDR` (for vmlinux a
//! binary search and a walk over at most 255 compressed names; else `O(log n)` under RCU) and at
//! most four user accesses: reads of its address and of the rest of the entry
//! (`KALLSYMS_QUERY_ADDR_SIZE_MAX` bytes at most), and writes of its name and owner (576 bytes at
//! most) and of its answer fields, with a `cond_resched()` between entries. Its memory is two
//! answers (about 1.2 KiB, allocated once) whatever the batch size: each entry is read, answered
//! and written back before the next is read, and no user memory is touched under the RCU read
//! lock.
//!
//! Entries are answered in order. What stops one (its strings do not fit in the name buffer, a
//! fault, bytes it must not have) ends the call early with the count of entries answered before
//! it, so the caller continues from there; only for the first entry is it the call's error.

use crate::{
    answer::{
        Answer,
        Cursor,
        Rules, //
    },
    buf_len,
    kernel_addr,
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
    transmute::AsBytes,
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
/// The answer fields follow `addr`, the one input.
const ANSWER_OFFSET: usize = core::mem::offset_of!(Entry, start);
static_assert!(ANSWER_OFFSET == size_of::<u64>());

/// An entry's answer, as bytes to copy out.
#[repr(transparent)]
struct UserEntry(Entry);

// SAFETY: `__u64`s and `__u32`s with no padding (the size is the sum of the fields',
// `ENTRY_SIZE_VER0`, checked above) and no interior mutability.
unsafe impl AsBytes for UserEntry {}

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

/// Where a batch's strings go, and what the entry before wrote there.
struct Names {
    range: UserRange,
    /// Bytes written so far.
    used: usize,
    /// Offsets of the previous found entry's name and owner, to share them.
    prev: Option<(usize, usize)>,
}

/// What every entry of a call is looked up with.
struct Lookup<'a> {
    rules: &'a Rules,
    ids: &'a mut IdRule,
    /// Entries in address order reach each vmlinux name from the one before.
    cursor: Cursor,
}

/// How an entry ended.
enum Outcome {
    Answered,
    /// Its strings do not fit in what is left of the name buffer.
    Full,
}

/// Answers the batch described by `q`, whose struct is `size` bytes at `uarg`.
pub(crate) fn by_addr_batch(
    q: &mut Query,
    uarg: usize,
    size: usize,
    rules: &Rules,
    ids: &mut IdRule,
) -> Result {
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
    let mut names = Names {
        range: UserRange::new(user_addr(q.sym_name_addr)?, names_len)?,
        used: 0,
        prev: None,
    };
    let this = UserRange::new(uarg, size)?;
    // The answers would overwrite the questions, or each other.
    if entries.overlaps(names.range) || entries.overlaps(this) || names.range.overlaps(this) {
        return Err(EINVAL);
    }

    // The current answer and the previous one, whose strings the current may share.
    let mut answers =
        KBox::init::<core::convert::Infallible>(pin_init::zeroed::<[Answer; 2]>(), GFP_KERNEL)?;
    let mut cur = 0;
    let mut lookup = Lookup {
        rules,
        ids,
        cursor: Cursor::new(),
    };
    let mut done = 0;
    while done < count {
        let [a0, a1] = &mut *answers;
        let (answer, prev) = if cur == 0 { (a0, &*a1) } else { (a1, &*a0) };
        let entry = entries.start + done * entry_size;
        match answer_entry(entry, entry_size, answer, prev, &mut names, &mut lookup) {
            Ok(Outcome::Answered) => {
                if answer.kind != bindings::kallsyms_sym_kind_KALLSYMS_SYM_NONE {
                    cur ^= 1;
                }
            }
            Ok(Outcome::Full) if done == 0 => return Err(ENAMETOOLONG),
            Err(e) if done == 0 => return Err(e),
            // The next call starts at this entry, and gets the error then.
            Ok(Outcome::Full) | Err(_) => break,
        }
        done += 1;
        // SAFETY: Called from the ioctl, in process context, holding no lock.
        unsafe { bindings::cond_resched() };
    }
    // Both fit their fields: `done <= count`, a `__u32`; `used <= names_len`.
    q.batch_count = u32::try_from(done).map_err(|_| E2BIG)?;
    q.sym_name_size = u64::from_safe_cast(names.used);
    Ok(())
}

/// Reads the entry at `entry` (`entry_size` bytes), answers it into `answer` and writes the
/// answer back: its strings to `names` (sharing those of `prev` where they repeat), its fields
/// to the entry.
fn answer_entry(
    entry: usize,
    entry_size: usize,
    answer: &mut Answer,
    prev: &Answer,
    names: &mut Names,
    lookup: &mut Lookup<'_>,
) -> Result<Outcome> {
    let addr = UserSlice::new(UserPtr::from_addr(entry), size_of::<u64>())
        .reader()
        .read::<u64>()?;
    if entry_size > ENTRY_SIZE_VER0 {
        // Bytes we do not know must be zero, as in the struct: a newer caller's inputs there
        // would otherwise be ignored without a word.
        // SAFETY: A user address and length; the callee checks and faults safely.
        let zeroed = unsafe {
            bindings::check_zeroed_user(
                UserPtr::from_addr(entry + ENTRY_SIZE_VER0).as_const_ptr(),
                entry_size - ENTRY_SIZE_VER0,
            )
        };
        match zeroed {
            1 => {}
            0 => return Err(E2BIG),
            e => return Err(Error::from_errno(e)),
        }
    }
    let mut out = UserEntry(Entry {
        addr,
        ..Default::default()
    });
    match kernel_addr(addr).and_then(|addr| answer.lookup(addr, lookup.rules, &mut lookup.cursor)) {
        Ok(()) => {
            // A profile's addresses often share a function, and its owner: write each string
            // once while they repeat.
            let (name_off, name_need) = match names.prev {
                Some((off, _)) if prev.name() == answer.name() => (off, 0),
                _ => (names.used, answer.name_len),
            };
            let (owner_off, owner_need) = match names.prev {
                // Empty (vmlinux): the name's own NUL.
                _ if answer.owner_len == 1 => (name_off + answer.name_len - 1, 0),
                Some((_, off)) if prev.owner() == answer.owner() => (off, 0),
                _ => (names.used + name_need, answer.owner_len),
            };
            if names.used + name_need + owner_need > names.range.len() {
                return Ok(Outcome::Full);
            }
            let mut w = UserSlice::new(
                UserPtr::from_addr(names.range.start + names.used),
                name_need + owner_need,
            )
            .writer();
            if name_need > 0 {
                w.write_slice(answer.name())?;
            }
            if owner_need > 0 {
                w.write_slice(answer.owner())?;
            }
            // Offsets are below `names_len`, at most `BATCH_MAX` times a name and owner.
            out.0.name_off = u32::try_from(name_off).map_err(|_| E2BIG)?;
            out.0.owner_off = u32::try_from(owner_off).map_err(|_| E2BIG)?;
            out.0.start = u64::from_safe_cast(answer.start);
            out.0.size = u64::from_safe_cast(answer.size);
            out.0.prog_id = u64::from(lookup.ids.filter(answer.prog_id));
            out.0.kind = answer.kind;
            out.0.subprog = answer.subprog;
            UserSlice::new(
                UserPtr::from_addr(entry + ANSWER_OFFSET),
                ENTRY_SIZE_VER0 - ANSWER_OFFSET,
            )
            .writer()
            .write_slice(&out.as_bytes()[ANSWER_OFFSET..])?;
            // Only now: strings of an entry that failed to be written are not shared.
            names.used += name_need + owner_need;
            names.prev = Some((name_off, owner_off));
        }
        // No symbol: an answer too (kind NONE, every field 0).
        Err(e) if e == ENOENT => {
            answer.clear();
            UserSlice::new(
                UserPtr::from_addr(entry + ANSWER_OFFSET),
                ENTRY_SIZE_VER0 - ANSWER_OFFSET,
            )
            .writer()
            .write_slice(&out.as_bytes()[ANSWER_OFFSET..])?;
        }
        Err(e) => return Err(e),
    }
    Ok(Outcome::Answered)
}
