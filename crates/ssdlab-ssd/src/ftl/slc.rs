//! The SLC write cache in the FTL: a static part (the first blocks of each
//! plane, always in SLC mode) and a dynamic part (free native blocks lent
//! to the cache while the drive has room for them, given back when folded).

use super::{BlockState, Ftl};
use crate::ids::{BlockId, PlaneId};

/// Limits of the cache's dynamic part, per plane.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SlcLending {
    /// The most native blocks a plane lends to the cache at once.
    pub max_blocks: u32,
    /// Free native blocks a plane keeps beyond its spare: it lends none at
    /// or below the two together (GC's soft threshold, so that lending never
    /// starts GC by itself).
    pub keep_free: u32,
}

impl Ftl {
    /// Sets the cache's dynamic part (none by default). The plane's spare
    /// stays native whatever `keep_free` says: Samsung's Intelligent
    /// TurboWrite grows out of *unwritten user capacity*, so a drive holding
    /// data in every logical page has no dynamic cache.
    pub fn set_slc_lending(&mut self, lending: SlcLending) {
        self.slc_lending = lending;
        self.slc_lend_floor = lending.keep_free + self.spare_blocks_per_plane();
    }

    /// Native blocks a plane holds beyond its share of the logical space.
    pub fn spare_blocks_per_plane(&self) -> u32 {
        let l = &self.layout;
        let per_plane = (l.logical_pages as u64).div_ceil(l.planes.max(1) as u64);
        let needed = per_plane.div_ceil(l.pages_per_block.max(1) as u64);
        (self.native_blocks_per_plane() as u64).saturating_sub(needed) as u32
    }

    /// Whether the block runs in SLC mode now (the SLC write cache).
    #[inline]
    pub fn is_slc(&self, block: BlockId) -> bool {
        self.slc_mode[block.index()]
    }

    /// Native blocks `plane` has lent to the cache now.
    pub fn slc_lent_blocks(&self, plane: PlaneId) -> u32 {
        self.planes[plane.index()].slc_lent
    }

    /// Whether the plane's next host page goes to an SLC-mode block.
    pub fn host_goes_to_slc(&self, plane: PlaneId) -> bool {
        let ps = &self.planes[plane.index()];
        self.slc_blocks_per_plane > 0
            && (ps.slc_open.is_some() || !ps.slc_free.is_empty() || self.may_lend(plane))
    }

    /// The oldest full SLC-mode block of a plane, if any (the next to fold).
    pub fn fold_candidate(&self, plane: PlaneId) -> Option<BlockId> {
        self.planes[plane.index()].slc_full.front().copied()
    }

    /// Blocks of the plane's static cache in use.
    pub fn slc_used_blocks(&self, plane: PlaneId) -> u32 {
        self.slc_blocks_per_plane - self.planes[plane.index()].slc_free.len() as u32
    }

    pub fn has_slc(&self) -> bool {
        self.slc_blocks_per_plane > 0
    }

    fn may_lend(&self, plane: PlaneId) -> bool {
        let ps = &self.planes[plane.index()];
        ps.slc_lent < self.slc_lending.max_blocks
            && ps.free.len() as u32 > self.slc_lend_floor.max(self.host_reserve_blocks) + 1
    }

    /// A free native block switched to SLC mode for the cache, if the
    /// plane may lend one. The caller opens it.
    pub(super) fn lend_to_slc(&mut self, plane: PlaneId) -> Option<BlockId> {
        if !self.may_lend(plane) {
            return None;
        }
        let ps = &mut self.planes[plane.index()];
        let b = ps.free.pop_front()?;
        ps.slc_lent += 1;
        self.slc_mode[b.index()] = true;
        debug_assert_eq!(self.state[b.index()], BlockState::Free);
        Some(b)
    }

    /// An erased SLC-mode block goes back to the native pool if it was
    /// lent (true), else it stays in the static cache (false).
    pub(super) fn return_lent(&mut self, plane: PlaneId, block: BlockId) -> bool {
        let static_part = self.layout.block_in_plane(block) < self.slc_blocks_per_plane;
        if static_part {
            return false;
        }
        self.slc_mode[block.index()] = false;
        let ps = &mut self.planes[plane.index()];
        ps.slc_lent -= 1;
        ps.free.push_back(block);
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::SsdConfig;
    use crate::ftl::Stream;

    use ssdlab_protocol::Lpn;

    /// One plane of 40 blocks of 6 pages; 2 static SLC blocks of 2 pages;
    /// 120 logical pages need 20 of the 38 native blocks: 18 spare.
    fn ftl(max_blocks: u32, keep_free: u32) -> Ftl {
        let mut cfg = SsdConfig::builtin("seed004").unwrap();
        cfg.geometry.channels = 1;
        cfg.geometry.planes_per_die = 1;
        cfg.geometry.blocks_per_plane = 40;
        cfg.geometry.pages_per_block = Some(6);
        cfg.ftl.over_provisioning = 0.5;
        let mut ftl = Ftl::new(cfg.layout(), Some((2, 3)), 1, true);
        ftl.set_slc_lending(SlcLending {
            max_blocks,
            keep_free,
        });
        ftl
    }

    /// Writes `n` host pages from `lpa` on; returns the blocks they went to.
    fn write(ftl: &mut Ftl, lpa: u32, n: u32) -> Vec<BlockId> {
        (lpa..lpa + n)
            .map(|l| {
                let ppa = ftl.alloc_page(PlaneId(0), Stream::Host).unwrap();
                ftl.commit(Lpn(l), ppa, 0);
                ftl.layout.block_of(ppa)
            })
            .collect()
    }

    #[test]
    fn lends_native_blocks_once_the_static_part_is_used_and_takes_them_back() {
        let mut f = ftl(3, 10);
        let free = f.free_blocks(PlaneId(0));
        // 2 static blocks × 2 pages, then 3 lent blocks × 2 pages.
        let blocks = write(&mut f, 0, 10);
        assert!(blocks.iter().all(|&b| f.is_slc(b)));
        assert_eq!(f.slc_lent_blocks(PlaneId(0)), 3);
        assert_eq!(f.free_blocks(PlaneId(0)), free - 3);
        // The cache is full: the next page goes native.
        assert!(!f.host_goes_to_slc(PlaneId(0)));
        let native = write(&mut f, 10, 1)[0];
        assert!(!f.is_slc(native));
        // Folding a lent block returns it to the native pool in native mode.
        let lent = blocks[4];
        assert_eq!(f.fold_candidate(PlaneId(0)), Some(blocks[0]));
        for victim in [blocks[0], blocks[2], lent] {
            f.relocate(victim);
            f.erase(victim);
        }
        assert!(!f.is_slc(lent));
        assert!(f.is_slc(blocks[0]), "a static block stays in the cache");
        assert_eq!(f.slc_lent_blocks(PlaneId(0)), 2);
        f.check(&|_| false).unwrap();
    }

    #[test]
    fn the_spare_is_what_a_plane_holds_beyond_its_share_of_the_logical_space() {
        assert_eq!(ftl(0, 0).spare_blocks_per_plane(), 18);
        let cfg = SsdConfig::builtin("consumer-tlc-250g").unwrap();
        let slc = cfg.slc_cache.as_ref().unwrap();
        let f = Ftl::new(cfg.layout(), Some((slc.blocks_per_plane, 3)), 1, false);
        // 2611 native blocks of 1536 pages; 61,054,156 logical pages over
        // 16 planes need 2485 of them: 126 spare (12.7 GB in all).
        assert_eq!(f.spare_blocks_per_plane(), 126);
    }

    #[test]
    fn keeps_its_spare_native_whatever_it_is_told_to_keep() {
        // 38 free native blocks, 18 of them spare: with nothing more to
        // keep it lends while more than 19 are free (the spare and one
        // block for a frontier), so 19 at most.
        let mut f = ftl(100, 0);
        write(&mut f, 0, 4 + 2 * 30);
        assert_eq!(f.slc_lent_blocks(PlaneId(0)), 19);
    }

    #[test]
    fn lends_nothing_at_or_below_the_free_blocks_it_must_keep() {
        let mut f = ftl(100, 1000);
        let blocks = write(&mut f, 0, 5);
        assert_eq!(f.slc_lent_blocks(PlaneId(0)), 0);
        assert!(!f.is_slc(blocks[4]), "a static cache only");
    }
}
