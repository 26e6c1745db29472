//! DRAM write buffer. A write completes once its page is buffered; the buffer
//! flushes each dirty page to flash in the background (eagerly, as soon as a
//! die can take it) and frees the slot when the program commits. A full buffer
//! back-pressures new writes. Reads of a buffered page hit in DRAM.
//!
//! With capacity 0 the buffer is write-through: the same bookkeeping keeps one
//! flush per logical page in flight, and writes complete at commit.

use super::ids::{Lpn, SlotId};
use rustc_hash::FxHashMap;
use std::collections::VecDeque;

/// A buffered page: 12 bytes, so that a buffer of tens of thousands of
/// pages keeps its table in the CPU's cache (every host write and every
/// flush looks its page up).
#[derive(Debug, Clone, Copy, Default)]
struct Entry {
    /// Version to program next (the latest written).
    version: u32,
    /// A program of this page is in flight.
    flushing: bool,
    /// The version that program writes.
    inflight_version: u32,
    /// Written again (or trimmed) while flushing: re-flush (or drop) at commit.
    dirty_again: bool,
    trimmed: bool,
}

/// What the commit of a flushed page did to its buffer entry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Committed {
    /// The page was trimmed while it flushed: its flash copy is garbage.
    pub trimmed: bool,
    /// Write-through slots whose version is now on flash.
    pub done_slots: Vec<SlotId>,
    /// Written again while it flushed: it must be flushed once more.
    pub flush_again: bool,
}

pub struct WriteBuffer {
    entries: FxHashMap<Lpn, Entry>,
    /// Write-through only: command slots waiting for a version of a page
    /// to commit.
    waiters: FxHashMap<Lpn, Vec<(SlotId, u32)>>,
    capacity: u32,
    /// Writes waiting for a free slot: (command slot, lpa).
    waiting: VecDeque<(SlotId, Lpn)>,
}

impl WriteBuffer {
    pub fn new(capacity_pages: u32) -> Self {
        WriteBuffer {
            entries: FxHashMap::default(),
            waiters: FxHashMap::default(),
            capacity: capacity_pages,
            waiting: VecDeque::new(),
        }
    }

    pub fn write_through(&self) -> bool {
        self.capacity == 0
    }

    pub fn has_room(&self) -> bool {
        self.write_through() || (self.entries.len() as u32) < self.capacity
    }

    /// Whether reads of `lpa` are served from DRAM.
    #[inline]
    pub fn holds(&self, lpa: Lpn) -> bool {
        // Every read asks: an empty buffer answers without hashing.
        !self.entries.is_empty() && self.entries.get(&lpa).is_some_and(|e| !e.trimmed)
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// A write of `lpa` by command `slot` must wait for room (the buffer is
    /// full and holds no copy of the page to overwrite): it is queued.
    pub fn must_wait(&mut self, slot: SlotId, lpa: Lpn) -> bool {
        if self.has_room() || self.entries.contains_key(&lpa) {
            return false;
        }
        self.waiting.push_back((slot, lpa));
        true
    }

    /// The oldest waiting write, once there is room for it.
    pub fn next_admitted(&mut self) -> Option<(SlotId, Lpn)> {
        if !self.has_room() {
            return None;
        }
        self.waiting.pop_front()
    }

    /// Buffers `version` of `lpa` for command `slot`. True when the page is
    /// new to the buffer (it needs a flush queued).
    pub fn insert(&mut self, slot: SlotId, lpa: Lpn, version: u32) -> bool {
        use std::collections::hash_map::Entry as Slot;
        let through = self.write_through();
        let (e, fresh) = match self.entries.entry(lpa) {
            Slot::Vacant(v) => (v.insert(Default::default()), true),
            Slot::Occupied(o) => (o.into_mut(), false),
        };
        e.version = version;
        e.trimmed = false;
        // Queued and not yet flushing: the queued flush takes the new version.
        if e.flushing {
            e.dirty_again = true;
        }
        if through {
            self.waiters.entry(lpa).or_default().push((slot, version));
        }
        fresh
    }

    /// Starts the flush of `lpa`: the version to program, or None when the
    /// page no longer needs it (trimmed, or already flushing).
    pub fn start_flush(&mut self, lpa: Lpn) -> Option<u32> {
        let e = self.entries.get_mut(&lpa)?;
        if e.trimmed || e.flushing {
            return None;
        }
        e.flushing = true;
        e.dirty_again = false;
        e.inflight_version = e.version;
        Some(e.version)
    }

    /// The program of `version` of `lpa` committed: the entry is freed, or
    /// kept for one more flush when the page was written meanwhile.
    pub fn commit(&mut self, lpa: Lpn, version: u32) -> Committed {
        let Some(e) = self.entries.get_mut(&lpa) else {
            unreachable!("flushing page {lpa} has no buffer entry");
        };
        e.flushing = false;
        let ready = take_waiters(&mut self.waiters, lpa, |v| v <= version);
        let flush_again = e.dirty_again && !e.trimmed;
        let trimmed = e.trimmed;
        if flush_again {
            e.dirty_again = false;
        } else {
            // Waiters of a later version leave with the entry.
            self.entries.remove(&lpa);
            if !self.waiters.is_empty() {
                self.waiters.remove(&lpa);
            }
        }
        Committed {
            trimmed,
            done_slots: ready.into_iter().map(|(s, _)| s).collect(),
            flush_again,
        }
    }

    /// Trims `lpa`: a copy not yet flushing is dropped; one being programmed
    /// is marked so that its commit maps nothing. Returns the write-through
    /// slots the trim supersedes.
    pub fn trim(&mut self, lpa: Lpn) -> Vec<(SlotId, u32)> {
        let Some(e) = self.entries.get_mut(&lpa) else {
            return Vec::new();
        };
        if !e.flushing {
            self.entries.remove(&lpa);
            return self.waiters.remove(&lpa).unwrap_or_default();
        }
        e.trimmed = true;
        e.dirty_again = false;
        let inflight = e.inflight_version;
        take_waiters(&mut self.waiters, lpa, |v| v <= inflight)
    }
}

/// Removes and returns `lpa`'s waiters whose version passes `done`, in
/// order (the rest keep waiting).
fn take_waiters(
    waiters: &mut FxHashMap<Lpn, Vec<(SlotId, u32)>>,
    lpa: Lpn,
    done: impl Fn(u32) -> bool,
) -> Vec<(SlotId, u32)> {
    if waiters.is_empty() {
        return Vec::new();
    }
    let Some(list) = waiters.get_mut(&lpa) else {
        return Vec::new();
    };
    let (ready, rest): (Vec<_>, Vec<_>) = list.drain(..).partition(|&(_, v)| done(v));
    if rest.is_empty() {
        waiters.remove(&lpa);
    } else {
        *list = rest;
    }
    ready
}
