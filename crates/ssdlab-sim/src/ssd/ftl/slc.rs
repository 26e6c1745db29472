//! The SLC write cache in the FTL: a static part (the first blocks of each
//! plane, always in SLC mode) and a dynamic part (free native blocks lent
//! to the cache while the drive has room for them, given back when folded).

use super::{BlockState, Ftl};
use crate::ssd::ids::{BlockId, PlaneId};

/// Limits of the cache's dynamic part, per plane.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SlcLending {
    /// The most native blocks a plane lends to the cache at once.
    pub max_blocks: u32,
    /// Free native blocks a plane keeps: it lends none at or below this
    /// (GC's soft threshold, so that lending never starts GC by itself).
    pub keep_free: u32,
}

impl Ftl {
    /// Sets the cache's dynamic part (none by default).
    pub fn set_slc_lending(&mut self, lending: SlcLending) {
        self.slc_lending = lending;
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
        let l = self.slc_lending;
        ps.slc_lent < l.max_blocks
            && ps.free.len() as u32 > l.keep_free.max(self.host_reserve_blocks) + 1
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
