//! Controller read-ahead (`controller.read_ahead`): the firmware tracks a few
//! sequential read streams by their next logical page and, once a stream has
//! read two pages in a row, reads ahead of it into a small DRAM read-ahead
//! buffer. Prefetches are ordinary array reads: they queue at the dies, cross
//! the channel and take the controller's decode path like host reads, so
//! work the host cannot see (and K2 cannot bound) sits in front of later
//! reads. Whether they pay off depends on the buffer: a prefetched page
//! evicted before the host asks for it was read for nothing.

use crate::engine::Ns;
use crate::ssd::config::ReadAhead as ReadAheadConfig;
use rustc_hash::FxHashMap;
use std::collections::VecDeque;
use std::ops::Range;

/// The slot of a read the controller issued on its own.
pub(super) const PREFETCH: u32 = u32::MAX;
/// A prefetch a host read waits for: scheduled like a host read.
pub(super) const PROMOTED: u32 = u32::MAX - 1;

/// Whether a read's slot marks a prefetch (its data goes to the buffer).
pub(super) fn is_prefetch(slot: u32) -> bool {
    slot == PREFETCH || slot == PROMOTED
}

/// Reads of this many pages in a row make a stream sequential.
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
    waiters: Vec<u32>,
    stale: bool,
}

#[derive(Debug, Clone)]
pub(super) struct ReadAheadState {
    cfg: ReadAheadConfig,
    streams: Vec<Stream>,
    tick: u64,
    /// Prefetched pages in the buffer: the time their data is there and the
    /// version read (checked runs).
    held: FxHashMap<u32, HeldPage>,
    /// Insertion order of `held`, oldest first (the eviction order), with
    /// the insertion number that tells a page's current copy from an
    /// earlier one already taken.
    order: VecDeque<(u32, u64)>,
    inserted: u64,
    /// Prefetches in flight: the version read, the host reads waiting, and
    /// whether the page was written since (then its data is not kept).
    pending: FxHashMap<u32, Pending>,
    /// When the data of prefetches already read but still being decoded
    /// lands, in order (the decode path is first come, first served).
    landing: VecDeque<Ns>,
}

impl ReadAheadState {
    pub fn new(cfg: ReadAheadConfig) -> Self {
        ReadAheadState {
            cfg,
            streams: Vec::new(),
            tick: 0,
            held: Default::default(),
            order: VecDeque::new(),
            inserted: 0,
            pending: Default::default(),
            landing: VecDeque::new(),
        }
    }

    pub fn find(&self, lpa: u32) -> Held {
        if let Some(h) = self.held.get(&lpa) {
            return Held::Ready(h.at, h.version);
        }
        match self.pending.get(&lpa) {
            Some(p) if !p.stale => Held::Pending(p.version),
            _ => Held::Absent,
        }
    }

    /// A host read of `lpa` waits for its prefetch.
    pub fn wait(&mut self, lpa: u32, slot: u32) {
        if let Some(p) = self.pending.get_mut(&lpa) {
            p.waiters.push(slot);
        }
    }

    /// Records a host read of `lpa` and returns the pages to prefetch now:
    /// the stream's window of `depth` pages ahead, topped up when half of it
    /// is used.
    pub fn on_host_read(&mut self, lpa: u32, logical_pages: u32) -> Range<u32> {
        self.tick += 1;
        let tick = self.tick;
        let i = match self.streams.iter().position(|s| s.next == lpa) {
            Some(i) => {
                let s = &mut self.streams[i];
                s.run += 1;
                s.next = lpa + 1;
                s.last_used = tick;
                i
            }
            None => {
                let fresh = Stream {
                    next: lpa + 1,
                    issued_to: lpa + 1,
                    run: 1,
                    last_used: tick,
                };
                if self.streams.len() < self.cfg.streams as usize {
                    self.streams.push(fresh);
                    return 0..0;
                }
                let lru = (0..self.streams.len())
                    .min_by_key(|&i| self.streams[i].last_used)
                    .expect("at least one stream");
                self.streams[lru] = fresh;
                return 0..0;
            }
        };
        let s = &mut self.streams[i];
        let depth = self.cfg.depth;
        if s.run < SEQUENTIAL_RUN
            || s.issued_to.saturating_sub(lpa) > depth - self.cfg.chunk.min(depth)
        {
            return 0..0;
        }
        let from = s.issued_to.max(lpa + 1);
        let to = (lpa + 1).saturating_add(depth).min(logical_pages);
        s.issued_to = to.max(from);
        from..to.max(from)
    }

    /// Whether buffer space is left for one more prefetch: a page being
    /// prefetched holds its buffer slot until it lands.
    pub fn has_room(&mut self, now: Ns) -> bool {
        while self.landing.front().is_some_and(|&at| at <= now) {
            self.landing.pop_front();
        }
        self.pending.len() + self.landing.len() < self.cfg.buffer_pages as usize
    }

    pub fn is_known(&self, lpa: u32) -> bool {
        self.held.contains_key(&lpa) || self.pending.contains_key(&lpa)
    }

    pub fn issue(&mut self, lpa: u32, version: u32) {
        let p = Pending {
            version,
            waiters: Vec::new(),
            stale: false,
        };
        self.pending.insert(lpa, p);
    }

    /// The prefetch of `lpa` has its data in DRAM at `at`: keeps it (evicting
    /// the oldest page when full) and returns the host reads waiting for it.
    pub fn complete(&mut self, lpa: u32, at: Ns) -> Vec<u32> {
        let Some(p) = self.pending.remove(&lpa) else {
            return Vec::new();
        };
        self.landing.push_back(at);
        // A page a host read waits for is handed over as it lands and its
        // buffer slot freed; only pages nobody asked for yet are kept.
        if !p.stale && p.waiters.is_empty() {
            self.inserted += 1;
            let seq = self.inserted;
            let version = p.version;
            self.held.insert(lpa, HeldPage { at, version, seq });
            self.order.push_back((lpa, seq));
            self.evict();
        }
        p.waiters
    }

    /// A host read took the prefetched copy of `lpa`: its slot is free.
    pub fn take(&mut self, lpa: u32) {
        self.held.remove(&lpa);
    }

    /// Drops the oldest pages beyond the buffer's capacity. `order` may name
    /// pages already taken; they are skipped (and pruned when they pile up).
    fn evict(&mut self) {
        while self.held.len() > self.cfg.buffer_pages as usize {
            let Some((old, seq)) = self.order.pop_front() else {
                break;
            };
            if self.held.get(&old).is_some_and(|h| h.seq == seq) {
                self.held.remove(&old);
            }
        }
        if self.order.len() > 4 * self.cfg.buffer_pages as usize + 64 {
            let held = &self.held;
            self.order
                .retain(|(p, seq)| held.get(p).is_some_and(|h| h.seq == *seq));
        }
    }

    /// `lpa` is written or trimmed: a prefetched copy is stale.
    pub fn invalidate(&mut self, lpa: u32) {
        self.held.remove(&lpa);
        if let Some(p) = self.pending.get_mut(&lpa) {
            p.stale = true;
        }
    }
}
