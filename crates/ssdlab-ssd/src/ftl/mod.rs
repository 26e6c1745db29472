//! Page-mapping FTL: forward and reverse maps, block bookkeeping, free-block
//! pools, page allocation, invalidation, relocation and erase. It has no notion
//! of time; the device decides when each step happens.

mod buckets;
mod integrity;
pub(crate) mod page_map;
mod relocate;
mod slc;

use buckets::BlockLink;
pub use buckets::BucketIter;
use integrity::tag;
use page_map::PageMap;
pub use slc::SlcLending;

use super::ids::{BlockId, Lpn, PlaneId, Ppn};
use super::layout::Layout;
use std::collections::VecDeque;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BlockState {
    Free,
    /// Receiving writes, or written but with programs still in flight.
    Open,
    /// Closed and settled: a GC candidate.
    Full,
    /// Being collected.
    Victim,
}

/// Who a page is written for: host data goes to the host frontier (the SLC
/// cache first where there is one), relocated data to the GC frontier.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stream {
    Host,
    /// Host data that bypasses the SLC cache (preconditioning, and a die
    /// whose other plane has no cache room left).
    HostNative,
    Gc,
}

#[derive(Debug, Clone, Default)]
struct PlaneState {
    free: VecDeque<BlockId>,
    slc_free: VecDeque<BlockId>,
    host_open: Option<BlockId>,
    gc_open: Option<BlockId>,
    slc_open: Option<BlockId>,
    /// SLC-mode blocks in the order they filled (the fold order).
    slc_full: VecDeque<BlockId>,
    /// Native blocks lent to the SLC cache now (its dynamic part).
    slc_lent: u32,
}

/// Counters the FTL keeps for reports and for WAF.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize)]
pub struct FtlCounters {
    pub host_pages_written: u64,
    pub gc_pages_moved: u64,
    pub fold_pages_moved: u64,
    pub erases: u64,
    pub gc_invocations: u64,
    /// GC victims that had at least 70% / 90% invalid pages when chosen.
    pub victims_ge70_invalid: u64,
    pub victims_ge90_invalid: u64,
    pub folds: u64,
    pub trims: u64,
}

impl FtlCounters {
    /// Write amplification: flash pages programmed (host, GC, SLC folding)
    /// per host page; 0 before any host write.
    pub fn waf(&self) -> f64 {
        if self.host_pages_written == 0 {
            return 0.0;
        }
        (self.host_pages_written + self.gc_pages_moved + self.fold_pages_moved) as f64
            / self.host_pages_written as f64
    }
}

/// Data-integrity shadow: which (logical page, version) each physical page
/// holds, and the version each logical page must read back.
#[derive(Debug, Clone)]
pub struct Integrity {
    expected: Vec<u32>,
    page_tag: Vec<u64>,
}

pub struct Ftl {
    layout: Layout,
    fwd: PageMap<Lpn, Ppn>,
    rev: PageMap<Ppn, Lpn>,
    valid: Vec<u16>,
    written: Vec<u16>,
    pending: Vec<u16>,
    erase_count: Vec<u32>,
    state: Vec<BlockState>,
    closed_seq: Vec<u64>,
    /// Buckets of Full blocks by valid count, one list per (plane, count).
    bucket_head: Vec<BlockLink>,
    next: Vec<BlockLink>,
    prev: Vec<BlockLink>,
    planes: Vec<PlaneState>,
    slc_blocks_per_plane: u32,
    slc_pages_per_block: u16,
    /// Which blocks run in SLC mode now: the static cache, and native
    /// blocks lent to the cache.
    slc_mode: Vec<bool>,
    /// The dynamic cache's limits (none lent while unset).
    slc_lending: SlcLending,
    /// Free native blocks at or below which a plane lends none: the
    /// lending's `keep_free` plus the plane's spare (set with it).
    slc_lend_floor: u32,
    /// Free blocks a plane keeps for GC destinations: host allocation stops there.
    host_reserve_blocks: u32,
    /// Host pages written so far: the logical clock for block ages.
    seq: u64,
    /// Simulated time, set by the device as it runs (0 while preconditioning).
    now: u64,
    /// Free blocks opened as a frontier so far (each needs an erase when the
    /// device erases blocks as it opens them).
    opened_blocks: u64,
    /// When each block was closed (simulated ns).
    closed_ns: Vec<u64>,
    /// Pages programmed into each plane (host and relocated), cumulative.
    plane_programs: Vec<u64>,
    /// Valid pages held by each plane.
    plane_valid: Vec<u64>,
    /// Free blocks over all planes (native and SLC), for the SSD's fill level.
    total_free_blocks: u64,
    counters: FtlCounters,
    integrity: Option<Integrity>,
}

impl Ftl {
    pub fn new(
        layout: Layout,
        slc: Option<(u32, u32)>,
        host_reserve_blocks: u32,
        check: bool,
    ) -> Ftl {
        let blocks = layout.blocks as usize;
        let ppb = layout.pages_per_block;
        let (slc_blocks_per_plane, slc_pages_per_block) = match slc {
            Some((n, bits)) => (n, (ppb / bits) as u16),
            None => (0, ppb as u16),
        };
        let mut planes = vec![PlaneState::default(); layout.planes as usize];
        let mut slc_mode = vec![false; blocks];
        for (p, ps) in planes.iter_mut().enumerate() {
            for i in 0..layout.blocks_per_plane {
                let block = layout.block_of_plane(PlaneId(p as u32), i);
                if i < slc_blocks_per_plane {
                    slc_mode[block.index()] = true;
                    ps.slc_free.push_back(block);
                } else {
                    ps.free.push_back(block);
                }
            }
        }
        let integrity = check.then(|| Integrity {
            expected: vec![0; layout.logical_pages as usize],
            page_tag: vec![u64::MAX; layout.physical_pages as usize],
        });
        Ftl {
            fwd: PageMap::new(layout.logical_pages as usize),
            rev: PageMap::new(layout.physical_pages as usize),
            valid: vec![0; blocks],
            written: vec![0; blocks],
            pending: vec![0; blocks],
            erase_count: vec![0; blocks],
            state: vec![BlockState::Free; blocks],
            closed_seq: vec![0; blocks],
            bucket_head: vec![BlockLink::NONE; layout.planes as usize * (ppb as usize + 1)],
            next: vec![BlockLink::NONE; blocks],
            prev: vec![BlockLink::NONE; blocks],
            planes,
            slc_blocks_per_plane,
            slc_pages_per_block,
            slc_mode,
            slc_lending: SlcLending::default(),
            slc_lend_floor: 0,
            host_reserve_blocks: host_reserve_blocks.max(1),
            seq: 0,
            now: 0,
            opened_blocks: 0,
            closed_ns: vec![0; blocks],
            plane_programs: vec![0; layout.planes as usize],
            plane_valid: vec![0; layout.planes as usize],
            total_free_blocks: blocks as u64,
            counters: FtlCounters::default(),
            integrity,
            layout,
        }
    }

    // ---- queries -------------------------------------------------------

    /// The geometry the FTL maps onto.
    pub fn layout(&self) -> &Layout {
        &self.layout
    }

    pub fn counters(&self) -> &FtlCounters {
        &self.counters
    }

    /// Whether the data-integrity shadow is kept.
    pub fn is_checked(&self) -> bool {
        self.integrity.is_some()
    }

    /// Host pages written so far: the logical clock for block ages.
    pub fn seq(&self) -> u64 {
        self.seq
    }

    /// The simulated time the device last set.
    pub fn now(&self) -> u64 {
        self.now
    }

    /// The FTL has no clock of its own: the device tells it the time, for
    /// the close times of blocks.
    pub fn set_now(&mut self, now: u64) {
        self.now = now;
    }

    /// Free blocks a plane keeps for GC destinations.
    pub fn host_reserve_blocks(&self) -> u32 {
        self.host_reserve_blocks
    }

    /// Free blocks opened as a frontier so far.
    pub fn opened_blocks(&self) -> u64 {
        self.opened_blocks
    }

    /// Starts the counters afresh (after preconditioning).
    pub fn reset_counters(&mut self) {
        self.counters = FtlCounters::default();
    }

    #[inline]
    pub fn lookup(&self, lpa: Lpn) -> Option<Ppn> {
        self.fwd.get(lpa)
    }

    /// Starts bringing `lpa`'s forward-map entry into the cache (a hint;
    /// nothing changes).
    #[inline]
    pub fn prefetch(&self, lpa: Lpn) {
        self.fwd.prefetch(lpa)
    }

    /// Starts bringing into the cache what committing a new copy of `lpa`
    /// will touch besides its forward-map entry: the reverse-map entry of
    /// its current copy. Reads the forward map, so call it once that entry
    /// has been prefetched (a hint; nothing changes).
    #[inline]
    pub fn prefetch_commit(&self, lpa: Lpn) {
        if let Some(old) = self.fwd.get(lpa) {
            self.rev.prefetch(old);
        }
    }

    #[inline]
    pub fn lpa_at(&self, ppa: Ppn) -> Option<Lpn> {
        self.rev.get(ppa)
    }

    #[inline]
    pub fn valid(&self, block: BlockId) -> u16 {
        self.valid[block.index()]
    }

    #[inline]
    pub fn written(&self, block: BlockId) -> u16 {
        self.written[block.index()]
    }

    #[inline]
    pub fn state(&self, block: BlockId) -> BlockState {
        self.state[block.index()]
    }

    #[inline]
    pub fn erase_count(&self, block: BlockId) -> u32 {
        self.erase_count[block.index()]
    }

    #[inline]
    pub fn closed_seq(&self, block: BlockId) -> u64 {
        self.closed_seq[block.index()]
    }

    /// When the block was closed, in simulated ns.
    #[inline]
    pub fn closed_ns(&self, block: BlockId) -> u64 {
        self.closed_ns[block.index()]
    }

    /// Valid pages a plane holds.
    pub fn plane_valid(&self, plane: PlaneId) -> u64 {
        self.plane_valid[plane.index()]
    }

    /// Pages programmed into a plane so far (host and relocated).
    pub fn plane_programs(&self, plane: PlaneId) -> u64 {
        self.plane_programs[plane.index()]
    }

    /// Free native pages of a plane: its free blocks plus the room left in
    /// its open host block.
    pub fn free_pages(&self, plane: PlaneId) -> u64 {
        let ps = &self.planes[plane.index()];
        let ppb = self.layout.pages_per_block as u64;
        let open = ps
            .host_open
            .map_or(0, |b| ppb - self.written[b.index()] as u64);
        ps.free.len() as u64 * ppb + open
    }

    /// Share of the SSD's blocks in use (not free).
    pub fn used_share(&self) -> f64 {
        1.0 - self.total_free_blocks as f64 / self.layout.blocks as f64
    }

    #[inline]
    pub fn block_capacity(&self, block: BlockId) -> u16 {
        if self.is_slc(block) {
            self.slc_pages_per_block
        } else {
            self.layout.pages_per_block as u16
        }
    }

    /// Free native-mode blocks of a plane (SLC cache blocks not counted).
    #[inline]
    pub fn free_blocks(&self, plane: PlaneId) -> u32 {
        self.planes[plane.index()].free.len() as u32
    }

    pub fn native_blocks_per_plane(&self) -> u32 {
        self.layout.blocks_per_plane - self.slc_blocks_per_plane
    }

    /// Whether `stream`'s frontier of `plane` can take one more host page
    /// (`HostNative` ignores the SLC cache).
    pub fn can_write(&self, plane: PlaneId, stream: Stream) -> bool {
        let ps = &self.planes[plane.index()];
        let has_room = |b: Option<BlockId>| {
            b.is_some_and(|b| self.written[b.index()] < self.block_capacity(b))
        };
        let cached = stream == Stream::Host && (has_room(ps.slc_open) || !ps.slc_free.is_empty());
        cached || has_room(ps.host_open) || ps.free.len() as u32 > self.host_reserve_blocks
    }

    // ---- allocation ------------------------------------------------------

    /// Takes the next page of `plane` for `stream`, opening a block when needed.
    /// Returns None when the host may not take a new block (reserve reached).
    /// The page is pending until `commit` or `commit_relocated`.
    pub fn alloc_page(&mut self, plane: PlaneId, stream: Stream) -> Option<Ppn> {
        let block = self.frontier(plane, stream)?;
        let ppa = self
            .layout
            .page_of_block(block, self.written[block.index()] as u32);
        self.written[block.index()] += 1;
        self.pending[block.index()] += 1;
        self.plane_programs[plane.index()] += 1;
        if self.written[block.index()] == self.block_capacity(block) {
            self.close_frontier(plane, block);
        }
        Some(ppa)
    }

    fn frontier(&mut self, plane: PlaneId, stream: Stream) -> Option<BlockId> {
        let reserve = self.host_reserve_blocks;
        if stream == Stream::Host && self.slc_blocks_per_plane > 0 {
            let ps = &mut self.planes[plane.index()];
            if let Some(b) = ps.slc_open {
                return Some(b);
            }
            let cached = ps.slc_free.pop_front();
            if let Some(b) = cached.or_else(|| self.lend_to_slc(plane)) {
                let ps = &mut self.planes[plane.index()];
                self.opened_blocks += 1;
                self.total_free_blocks -= 1;
                ps.slc_open = Some(b);
                self.state[b.index()] = BlockState::Open;
                return Some(b);
            }
        }
        let ps = &mut self.planes[plane.index()];
        let open = match stream {
            Stream::Host | Stream::HostNative => &mut ps.host_open,
            Stream::Gc => &mut ps.gc_open,
        };
        if let Some(b) = *open {
            return Some(b);
        }
        if stream != Stream::Gc && ps.free.len() as u32 <= reserve {
            return None;
        }
        let b = ps.free.pop_front()?;
        self.opened_blocks += 1;
        self.total_free_blocks -= 1;
        *open = Some(b);
        self.state[b.index()] = BlockState::Open;
        Some(b)
    }

    fn close_frontier(&mut self, plane: PlaneId, block: BlockId) {
        let ps = &mut self.planes[plane.index()];
        for slot in [&mut ps.host_open, &mut ps.gc_open, &mut ps.slc_open] {
            if *slot == Some(block) {
                *slot = None;
            }
        }
        self.closed_seq[block.index()] = self.seq;
        self.closed_ns[block.index()] = self.now;
        self.settle(block);
    }

    /// A written-out block with no program in flight becomes a candidate.
    fn settle(&mut self, block: BlockId) {
        let b = block.index();
        if self.state[b] != BlockState::Open
            || self.pending[b] != 0
            || self.written[b] != self.block_capacity(block)
        {
            return;
        }
        if self.is_slc(block) {
            self.state[b] = BlockState::Full;
            let plane = self.layout.plane_of_block(block);
            self.planes[plane.index()].slc_full.push_back(block);
        } else {
            self.state[b] = BlockState::Full;
            self.bucket_insert(block);
        }
    }

    // ---- mapping updates ---------------------------------------------------

    /// Host data of `lpa` (at `version`) now sits at `ppa`: map it, invalidate
    /// the previous copy.
    pub fn commit(&mut self, lpa: Lpn, ppa: Ppn, version: u32) {
        if let Some(old) = self.fwd.get(lpa) {
            self.invalidate(old);
        }
        self.map(lpa, ppa);
        if let Some(ig) = &mut self.integrity {
            ig.page_tag[ppa.index()] = tag(lpa, version);
        }
        self.counters.host_pages_written += 1;
        self.seq += 1;
        let block = self.layout.block_of(ppa);
        self.pending[block.index()] -= 1;
        self.settle(block);
    }

    /// A program that was allocated but whose data is no longer wanted (an
    /// unmapped or superseded page): the page is written but holds nothing.
    pub fn commit_stale(&mut self, ppa: Ppn) {
        let block = self.layout.block_of(ppa);
        self.pending[block.index()] -= 1;
        self.settle(block);
    }

    fn map(&mut self, lpa: Lpn, ppa: Ppn) {
        self.fwd.set(lpa, ppa);
        self.rev.set(ppa, lpa);
        let block = self.layout.block_of(ppa);
        self.bump_valid(block, 1);
    }

    fn invalidate(&mut self, ppa: Ppn) {
        self.rev.clear(ppa);
        let block = self.layout.block_of(ppa);
        self.bump_valid(block, -1);
    }

    fn bump_valid(&mut self, block: BlockId, delta: i32) {
        let in_bucket = self.state[block.index()] == BlockState::Full && !self.is_slc(block);
        if in_bucket {
            self.bucket_remove(block);
        }
        let v = &mut self.valid[block.index()];
        *v = (*v as i32 + delta) as u16;
        let pv = &mut self.plane_valid[self.layout.plane_of_block(block).index()];
        *pv = (*pv as i64 + delta as i64) as u64;
        if in_bucket {
            self.bucket_insert(block);
        }
    }

    /// Unmaps a logical page (TRIM).
    pub fn trim(&mut self, lpa: Lpn) {
        if let Some(old) = self.fwd.get(lpa) {
            self.invalidate(old);
            self.fwd.clear(lpa);
            self.counters.trims += 1;
        }
        if let Some(ig) = &mut self.integrity {
            ig.expected[lpa.index()] = ig.expected[lpa.index()].wrapping_add(1);
        }
    }

    /// Forward-map entries in use (mapped logical pages).
    pub fn mapped_pages(&self) -> u64 {
        self.fwd.count_mapped()
    }

    /// Bytes held by the maps and block tables (for memory reports).
    pub fn table_bytes(&self) -> usize {
        (self.fwd.len() + self.rev.len()) * 4 + self.valid.len() * 40
    }
}
