//! FAST, the hybrid log-block mapping (Lee et al., ACM TECS 2007), as pure
//! logic: no clock. A write returns the flash operations it costs, in the
//! order they must run.
//!
//! A logical block (LB) is a superblock: block `b` of every unit (die), so
//! `units * pages_per_block` pages. Slot `s` of a superblock is page
//! `s / units` of its block on unit `s % units`: consecutive slots stripe
//! over the dies. Logical page `lpn` belongs to LB `lpn / lb_pages` at
//! offset `lpn % lb_pages`.
//!
//! A superblock is free, a data block (block-mapped: offset `o` lives in
//! slot `o`), the one sequential-write (SW) log block (owned by one LB,
//! filled in offset order from 0), or one of the random-write (RW) log
//! blocks (fully associative: any LB's pages, appended slot by slot).
//!
//! - A write at offset 0 merges the SW log (a switch merge when it is full,
//!   else a partial merge: the missing offsets' latest copies are copied
//!   into it and it becomes the data block) and opens a new SW log for its
//!   LB.
//! - A write at the SW log owner's next offset appends to it; a full SW log
//!   is switched at once.
//! - Every other write appends to the newest RW log block. When it is full
//!   and all `rw_log_blocks` are in use, the oldest RW log block is the
//!   victim: every LB with a valid page in it is full-merged (a new
//!   superblock gets each offset's latest copy, in ascending slot order;
//!   the old data block, the LB's SW log, and any log block left without a
//!   valid page are erased), then the victim is erased and reused.
//!
//! Data blocks are never written in place (MLC pages program in order).
//! A page-level location map and its reverse, with valid counts per
//! superblock, make "the latest copy" exact.
//!
//! Data integrity (the `check` flag): every logical page has a version, and
//! every physical page a (page, version) tag that copies carry along.
//! [`Fast::read`] does not look at it; [`Fast::read_checked`] returns an
//! error when the page found is not the version last written, and
//! [`Fast::check`] verifies every mapped page.

mod check;
mod merge;
#[cfg(test)]
mod tests;

use crate::ftl::page_map::PageMap;
use crate::ids::{BlockId, Ppn};
use ssdlab_protocol::Lpn;
use std::collections::VecDeque;

/// A flash page: a unit (die), a block of that unit, a page of that block.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FlashAddr {
    pub unit: u32,
    pub block: u32,
    pub page: u32,
}

/// One flash operation a write costs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FlashOp {
    /// A host page is programmed.
    Program(FlashAddr),
    /// A merge copies a valid page.
    Copy { from: FlashAddr, to: FlashAddr },
    /// One unit's block of a superblock is erased.
    Erase { unit: u32, block: u32 },
}

/// The shape of the mapping.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FastGeometry {
    /// Dies: a superblock has one block on each.
    pub units: u32,
    pub pages_per_block: u32,
    /// Blocks per unit: the number of superblocks.
    pub blocks_per_unit: u32,
    /// Logical blocks (superblocks) the host sees.
    pub logical_blocks: u32,
    /// RW log blocks.
    pub rw_log_blocks: u32,
}

impl FastGeometry {
    /// Pages of a logical block (a superblock).
    pub fn lb_pages(&self) -> u32 {
        self.units * self.pages_per_block
    }

    pub fn logical_pages(&self) -> u32 {
        self.logical_blocks * self.lb_pages()
    }

    /// Every count at least 1; logical blocks, RW log blocks, the SW log
    /// and one merge destination fit in the superblocks; every physical
    /// page has a 32-bit number.
    pub fn validate(&self) -> Result<(), String> {
        let counts = [
            ("units", self.units),
            ("pages_per_block", self.pages_per_block),
            ("blocks_per_unit", self.blocks_per_unit),
            ("logical_blocks", self.logical_blocks),
            ("rw_log_blocks", self.rw_log_blocks),
        ];
        if let Some((name, _)) = counts.iter().find(|(_, n)| *n == 0) {
            return Err(format!("FAST geometry: {name} must be at least 1"));
        }
        let needed = self.logical_blocks as u64 + self.rw_log_blocks as u64 + 2;
        if needed > self.blocks_per_unit as u64 {
            return Err(format!(
                "FAST geometry: {} logical blocks + {} RW log blocks + 2 (SW log, merge \
                 destination) exceed the {} superblocks",
                self.logical_blocks, self.rw_log_blocks, self.blocks_per_unit
            ));
        }
        let pages = self.units as u64 * self.pages_per_block as u64 * self.blocks_per_unit as u64;
        if pages >= u32::MAX as u64 {
            return Err(format!(
                "FAST geometry: {pages} physical pages do not fit 32-bit page numbers"
            ));
        }
        Ok(())
    }
}

/// What the mapping has done.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
pub struct FastCounters {
    /// Host pages written.
    pub host_pages: u64,
    pub switch_merges: u64,
    pub partial_merges: u64,
    pub full_merges: u64,
    /// Pages copied by merges.
    pub merge_copies: u64,
    /// Superblocks erased.
    pub erases: u64,
}

impl FastCounters {
    /// Write amplification: pages programmed (host and merge copies) per
    /// host page; 0 before any host write.
    pub fn waf(&self) -> f64 {
        if self.host_pages == 0 {
            return 0.0;
        }
        (self.host_pages + self.merge_copies) as f64 / self.host_pages as f64
    }
}

/// What a superblock is used for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Role {
    Free,
    /// The data block of this LB.
    Data(u32),
    /// The SW log block, owned by this LB.
    SwLog(u32),
    RwLog,
}

/// The data-integrity shadow: the version each logical page must read back
/// and the (page, version) tag each physical page holds.
struct Shadow {
    version: Vec<u32>,
    tag: Vec<u64>,
}

#[inline]
fn tag(lpn: Lpn, version: u32) -> u64 {
    (lpn.0 as u64) << 32 | version as u64
}

pub struct Fast {
    geo: FastGeometry,
    lb_pages: u32,
    /// Logical page → physical page (superblock × lb_pages + slot).
    loc: PageMap<Lpn, Ppn>,
    rev: PageMap<Ppn, Lpn>,
    /// Valid pages of each superblock.
    valid: Vec<u32>,
    /// Write pointer of each superblock (slots programmed or skipped).
    written: Vec<u32>,
    role: Vec<Role>,
    data_block: Vec<Option<BlockId>>,
    /// Free superblocks, oldest erased first.
    free: VecDeque<BlockId>,
    sw_log: Option<BlockId>,
    /// RW log blocks, oldest first; the newest is written.
    rw_logs: VecDeque<BlockId>,
    counters: FastCounters,
    shadow: Option<Shadow>,
}

impl std::fmt::Debug for Fast {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Fast")
            .field("geometry", &self.geo)
            .field("free", &self.free.len())
            .field("sw_log", &self.sw_log)
            .field("rw_logs", &self.rw_logs.len())
            .field("counters", &self.counters)
            .finish_non_exhaustive()
    }
}

impl Fast {
    /// An empty (trimmed) mapping; `check` turns the integrity shadow on.
    pub fn new(geo: FastGeometry, check: bool) -> Result<Fast, String> {
        geo.validate()?;
        let lb_pages = geo.lb_pages();
        let blocks = geo.blocks_per_unit as usize;
        let physical = blocks * lb_pages as usize;
        let logical = geo.logical_pages() as usize;
        Ok(Fast {
            geo,
            lb_pages,
            loc: PageMap::new(logical),
            rev: PageMap::new(physical),
            valid: vec![0; blocks],
            written: vec![0; blocks],
            role: vec![Role::Free; blocks],
            data_block: vec![None; geo.logical_blocks as usize],
            free: (0..geo.blocks_per_unit).map(BlockId).collect(),
            sw_log: None,
            rw_logs: VecDeque::new(),
            counters: FastCounters::default(),
            shadow: check.then(|| Shadow {
                version: vec![0; logical],
                tag: vec![0; physical],
            }),
        })
    }

    pub fn geometry(&self) -> &FastGeometry {
        &self.geo
    }

    /// Pages of a logical block.
    pub fn lb_pages(&self) -> u32 {
        self.lb_pages
    }

    pub fn logical_pages(&self) -> u32 {
        self.geo.logical_pages()
    }

    pub fn counters(&self) -> &FastCounters {
        &self.counters
    }

    /// Starts the counters afresh (after preconditioning, say).
    pub fn reset_counters(&mut self) {
        self.counters = FastCounters::default();
    }

    pub fn free_superblocks(&self) -> u32 {
        self.free.len() as u32
    }

    /// RW log blocks in use.
    pub fn rw_logs_in_use(&self) -> u32 {
        self.rw_logs.len() as u32
    }

    pub fn is_checked(&self) -> bool {
        self.shadow.is_some()
    }

    /// Where the latest copy of `lpn` is (None: never written or trimmed).
    pub fn read(&self, lpn: Lpn) -> Option<FlashAddr> {
        self.loc.get(lpn).map(|p| self.addr(p))
    }

    /// [`Fast::read`], with the integrity shadow checked: an error when the
    /// page found does not hold the version last written.
    pub fn read_checked(&self, lpn: Lpn) -> Result<Option<FlashAddr>, String> {
        if let Some(p) = self.loc.get(lpn) {
            self.verify(lpn, p)?;
        }
        Ok(self.read(lpn))
    }

    /// A host write of one logical page; its flash operations are appended
    /// to `ops`.
    ///
    /// # Panics
    /// When `lpn` lies outside the logical pages.
    pub fn write(&mut self, lpn: Lpn, ops: &mut Vec<FlashOp>) {
        assert!(lpn.0 < self.logical_pages(), "lpn {lpn} out of range");
        self.counters.host_pages += 1;
        let (lbn, offset) = self.split(lpn);
        if offset == 0 {
            self.merge_sw_log(ops);
            let sb = self.take_free();
            self.role[sb.index()] = Role::SwLog(lbn);
            self.sw_log = Some(sb);
            self.append_host(lpn, sb, ops);
            self.switch_if_full(ops);
        } else if let Some(sb) = self.sw_log_accepting(lbn, offset) {
            self.append_host(lpn, sb, ops);
            self.switch_if_full(ops);
        } else {
            let sb = self.rw_log_with_room(ops);
            self.append_host(lpn, sb, ops);
        }
    }

    /// Unmaps a logical page (no flash operation).
    pub fn trim(&mut self, lpn: Lpn) {
        self.invalidate(lpn);
    }

    /// Lays down a full data block of fresh data for `lbn`, untimed: no
    /// operations and no counts (preconditioning). Older copies of its
    /// pages are dropped, and blocks left empty freed.
    pub fn fill(&mut self, lbn: u32) {
        let saved = self.counters;
        let mut discarded = Vec::new();
        let first = lbn * self.lb_pages;
        for lpn in (first..first + self.lb_pages).map(Lpn) {
            self.invalidate(lpn);
        }
        let sb = self.take_free();
        for offset in 0..self.lb_pages {
            self.store_new_version(Lpn(first + offset), self.ppn(sb, offset));
        }
        self.written[sb.index()] = self.lb_pages;
        self.become_data(sb, lbn, &mut discarded);
        self.drop_sw_log_of(lbn, &mut discarded);
        self.release_empty_rw_logs(&mut discarded);
        self.counters = saved;
    }

    /// Fills the first `fraction` of the logical blocks (rounded), untimed.
    /// Returns how many were filled.
    pub fn precondition(&mut self, fraction: f64) -> u32 {
        let n = (fraction.clamp(0.0, 1.0) * self.geo.logical_blocks as f64).round() as u32;
        for lbn in 0..n {
            self.fill(lbn);
        }
        n
    }

    // ---- addressing ------------------------------------------------------

    /// (LB, offset) of a logical page.
    fn split(&self, lpn: Lpn) -> (u32, u32) {
        (lpn.0 / self.lb_pages, lpn.0 % self.lb_pages)
    }

    fn lpn(&self, lbn: u32, offset: u32) -> Lpn {
        Lpn(lbn * self.lb_pages + offset)
    }

    fn ppn(&self, sb: BlockId, slot: u32) -> Ppn {
        Ppn(sb.0 * self.lb_pages + slot)
    }

    fn superblock_of(&self, p: Ppn) -> BlockId {
        BlockId(p.0 / self.lb_pages)
    }

    fn slot_of(&self, p: Ppn) -> u32 {
        p.0 % self.lb_pages
    }

    /// The flash page of a physical page: slots stripe over the units.
    pub fn addr(&self, p: Ppn) -> FlashAddr {
        let slot = self.slot_of(p);
        FlashAddr {
            unit: slot % self.geo.units,
            block: self.superblock_of(p).0,
            page: slot / self.geo.units,
        }
    }

    // ---- page bookkeeping ------------------------------------------------

    /// The SW log, if `lbn` owns it and its next offset is `offset`.
    fn sw_log_accepting(&self, lbn: u32, offset: u32) -> Option<BlockId> {
        self.sw_log.filter(|sb| {
            self.role[sb.index()] == Role::SwLog(lbn) && self.written[sb.index()] == offset
        })
    }

    /// Programs the host's new version of `lpn` at the next slot of `sb`.
    fn append_host(&mut self, lpn: Lpn, sb: BlockId, ops: &mut Vec<FlashOp>) {
        let slot = self.written[sb.index()];
        debug_assert!(slot < self.lb_pages, "superblock {sb} is full");
        self.written[sb.index()] += 1;
        self.invalidate(lpn);
        let p = self.ppn(sb, slot);
        self.store_new_version(lpn, p);
        ops.push(FlashOp::Program(self.addr(p)));
    }

    /// Maps `lpn` to the free physical page `p` as a new version.
    fn store_new_version(&mut self, lpn: Lpn, p: Ppn) {
        self.place(lpn, p);
        if let Some(sh) = &mut self.shadow {
            let v = &mut sh.version[lpn.index()];
            *v = v.wrapping_add(1);
            sh.tag[p.index()] = tag(lpn, *v);
        }
    }

    fn place(&mut self, lpn: Lpn, p: Ppn) {
        debug_assert!(self.rev.get(p).is_none(), "page {p} already holds data");
        self.loc.set(lpn, p);
        self.rev.set(p, lpn);
        let sb = self.superblock_of(p);
        self.valid[sb.index()] += 1;
    }

    /// Drops the current copy of `lpn`, if any.
    fn invalidate(&mut self, lpn: Lpn) {
        if let Some(p) = self.loc.get(lpn) {
            self.loc.clear(lpn);
            self.rev.clear(p);
            let sb = self.superblock_of(p);
            self.valid[sb.index()] -= 1;
        }
    }

    fn take_free(&mut self) -> BlockId {
        // The geometry keeps one superblock spare beyond every role's share.
        self.free.pop_front().expect("a free superblock")
    }
}
