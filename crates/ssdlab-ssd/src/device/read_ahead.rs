//! Controller read-ahead (`controller.read_ahead`): the firmware tracks a few
//! read streams by their next logical page and, once two read commands of a
//! stream follow each other, reads ahead of it into a small read-ahead
//! buffer. Prefetches are ordinary array reads: they queue at the dies, cross
//! the channel and take the controller's decode path like host reads, so
//! work the host cannot see (and K2 cannot bound) sits in front of later
//! reads. Whether they pay off depends on the buffer: a prefetched page
//! evicted before the host asks for it was read for nothing.

use crate::config::ReadAhead as ReadAheadConfig;
use crate::ids::SlotId;
use rustc_hash::FxHashMap;
use ssdlab_protocol::Lpn;
use ssdlab_protocol::Ns;
use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};
use std::ops::Range;

/// Host read commands in a row that make a stream sequential.
const SEQUENTIAL_RUN: u32 = 2;

#[derive(Debug, Clone, Copy)]
struct Stream {
    /// The logical page that continues the stream.
    next: u32,
    /// Pages are prefetched up to here (exclusive).
    issued_to: u32,
    run: u32,
    last_used: u64,
}

/// Where a host read finds its page in the read-ahead buffer.
pub(super) enum Held {
    /// In DRAM from this time on; the version prefetched.
    Ready(Ns, u32),
    /// Its prefetch is still in flight; the version being read.
    Pending(u32),
    Absent,
}

#[derive(Debug, Clone, Copy)]
struct HeldPage {
    at: Ns,
    version: u32,
    seq: u64,
}

#[derive(Debug, Clone)]
struct Pending {
    version: u32,
    waiters: Vec<SlotId>,
    stale: bool,
}

#[derive(Debug, Clone)]
pub(super) struct ReadAheadState {
    cfg: ReadAheadConfig,
    streams: Vec<Stream>,
    tick: u64,
    /// The stream of the last host read command.
    current: Option<usize>,
    /// Prefetched pages in the buffer: the time their data is there and the
    /// version read (checked runs).
    held: FxHashMap<Lpn, HeldPage>,
    /// Insertion order of `held`, oldest first (the eviction order), with
    /// the insertion number that tells a page's current copy from an
    /// earlier one already taken.
    order: VecDeque<(Lpn, u64)>,
    inserted: u64,
    /// Prefetches in flight: the version read, the host reads waiting, and
    /// whether the page was written since (then its data is not kept).
    pending: FxHashMap<Lpn, Pending>,
    /// When prefetched pages already read finish decoding.
    landing: BinaryHeap<Reverse<Ns>>,
}

impl ReadAheadState {
    pub fn new(cfg: ReadAheadConfig) -> Self {
        ReadAheadState {
            cfg,
            streams: Vec::new(),
            tick: 0,
            current: None,
            held: Default::default(),
            order: VecDeque::new(),
            inserted: 0,
            pending: Default::default(),
            landing: BinaryHeap::new(),
        }
    }

    pub fn find(&self, lpa: Lpn) -> Held {
        if let Some(h) = self.held.get(&lpa) {
            return Held::Ready(h.at, h.version);
        }
        match self.pending.get(&lpa) {
            Some(p) if !p.stale => Held::Pending(p.version),
            _ => Held::Absent,
        }
    }

    /// A host read of `lpa` waits for its prefetch.
    pub fn wait(&mut self, lpa: Lpn, slot: SlotId) {
        if let Some(p) = self.pending.get_mut(&lpa) {
            p.waiters.push(slot);
        }
    }

    /// Records a host read command of `pages` pages from `lpa` and returns
    /// the pages to prefetch now (logical page numbers): the stream's window of `depth` pages after
    /// the command, topped up `chunk` pages at a time. Streams are told
    /// apart by commands, as a firmware sees them: one command of several
    /// pages is one access, and the second command that continues another
    /// makes a stream sequential.
    pub fn on_host_read(&mut self, lpa: Lpn, pages: u32, logical_pages: u32) -> Range<u32> {
        self.tick += 1;
        let tick = self.tick;
        let end = lpa.0.saturating_add(pages);
        let Some(i) = self.streams.iter().position(|s| s.next == lpa.0) else {
            let fresh = Stream {
                next: end,
                issued_to: end,
                run: 1,
                last_used: tick,
            };
            let i = if self.streams.len() < self.cfg.streams as usize {
                self.streams.push(fresh);
                self.streams.len() - 1
            } else {
                let lru = (0..self.streams.len())
                    .min_by_key(|&i| self.streams[i].last_used)
                    .expect("at least one stream");
                self.streams[lru] = fresh;
                lru
            };
            self.current = Some(i);
            return 0..0;
        };
        self.current = Some(i);
        let s = &mut self.streams[i];
        s.run = s.run.saturating_add(1);
        s.next = end;
        s.last_used = tick;
        let depth = self.cfg.depth;
        let ahead = s.issued_to.saturating_sub(end);
        if s.run < SEQUENTIAL_RUN || ahead > depth - self.cfg.chunk.min(depth) {
            return 0..0;
        }
        let from = s.issued_to.max(end);
        let to = end.saturating_add(depth).min(logical_pages).max(from);
        s.issued_to = to;
        from..to
    }

    /// The current stream's prefetches stop before `lpa` (no place left):
    /// the window is topped up from there later.
    pub fn stop_at(&mut self, lpa: Lpn) {
        if let Some(s) = self.current.and_then(|i| self.streams.get_mut(i)) {
            s.issued_to = s.issued_to.min(lpa.0);
        }
    }

    pub fn is_known(&self, lpa: Lpn) -> bool {
        self.held.contains_key(&lpa) || self.pending.contains_key(&lpa)
    }

    /// Whether one more prefetch may start: at most `buffer_pages` are
    /// being read or decoded (staged in the controller before they reach
    /// the buffer, or handed on to a waiting host read).
    pub fn has_room(&mut self, now: Ns) -> bool {
        while self.landing.peek().is_some_and(|&Reverse(at)| at <= now) {
            self.landing.pop();
        }
        self.pending.len() + self.landing.len() < self.cfg.buffer_pages as usize
    }

    pub fn issue(&mut self, lpa: Lpn, version: u32) {
        let p = Pending {
            version,
            waiters: Vec::new(),
            stale: false,
        };
        self.pending.insert(lpa, p);
    }

    /// The prefetch of `lpa` has its data decoded at `at`: keeps it unless a
    /// host read already waits for it or it went stale, and returns the
    /// waiting host reads.
    pub fn complete(&mut self, lpa: Lpn, at: Ns) -> Vec<SlotId> {
        let Some(p) = self.pending.remove(&lpa) else {
            return Vec::new();
        };
        // The page occupies the staging area until its data is decoded.
        self.landing.push(Reverse(at));
        if !p.stale && p.waiters.is_empty() {
            self.inserted += 1;
            let seq = self.inserted;
            let version = p.version;
            self.held.insert(lpa, HeldPage { at, version, seq });
            self.order.push_back((lpa, seq));
            while self.held.len() > self.cfg.buffer_pages as usize && self.evict_oldest() {}
        }
        p.waiters
    }

    /// A host read took the prefetched copy of `lpa`: its place is free.
    pub fn take(&mut self, lpa: Lpn) {
        self.held.remove(&lpa);
        self.prune_order();
    }

    /// Evicts the oldest page held; false if none is. `order` may name pages
    /// already taken; they are skipped.
    fn evict_oldest(&mut self) -> bool {
        while let Some((old, seq)) = self.order.pop_front() {
            if self.held.get(&old).is_some_and(|h| h.seq == seq) {
                self.held.remove(&old);
                return true;
            }
        }
        false
    }

    /// Drops the names of taken pages from `order` when they pile up.
    fn prune_order(&mut self) {
        if self.order.len() > 2 * self.held.len() + 64 {
            let held = &self.held;
            self.order
                .retain(|(p, seq)| held.get(p).is_some_and(|h| h.seq == *seq));
        }
    }

    /// `lpa` is written or trimmed: a prefetched copy is stale.
    pub fn invalidate(&mut self, lpa: Lpn) {
        if self.held.remove(&lpa).is_some() {
            self.prune_order();
        }
        if let Some(p) = self.pending.get_mut(&lpa) {
            p.stale = true;
        }
    }
}
