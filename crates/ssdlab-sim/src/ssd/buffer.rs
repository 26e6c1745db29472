//! DRAM write buffer. A write completes once its page is buffered; the buffer
//! flushes each dirty page to flash in the background (eagerly, as soon as a
//! die can take it) and frees the slot when the program commits. A full buffer
//! back-pressures new writes. Reads of a buffered page hit in DRAM.
//!
//! With capacity 0 the buffer is write-through: the same bookkeeping keeps one
//! flush per logical page in flight, and writes complete at commit.

use rustc_hash::FxHashMap;
use std::collections::VecDeque;

#[derive(Debug, Clone, Default)]
pub struct Entry {
    /// Version to program next (the latest written).
    pub version: u32,
    /// A program of this page is in flight.
    pub flushing: bool,
    /// The version that program writes.
    pub inflight_version: u32,
    /// Written again (or trimmed) while flushing: re-flush (or drop) at commit.
    pub dirty_again: bool,
    pub trimmed: bool,
    /// Write-through only: command slots waiting for a version to commit.
    pub waiters: Vec<(u32, u32)>,
}

pub struct WriteBuffer {
    pub entries: FxHashMap<u32, Entry>,
    pub capacity: u32,
    /// Writes waiting for a free slot: (command slot, lpa).
    pub waiting: VecDeque<(u32, u32)>,
}

impl WriteBuffer {
    pub fn new(capacity_pages: u32) -> Self {
        WriteBuffer {
            entries: FxHashMap::default(),
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
    pub fn holds(&self, lpa: u32) -> bool {
        self.entries.get(&lpa).is_some_and(|e| !e.trimmed)
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }
}
