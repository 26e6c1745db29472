//! Garbage-collection steps: relocating a victim's valid pages to the GC
//! frontier and erasing it back into its free pool.

use super::{BlockState, Ftl, Stream};
use crate::ids::{BlockId, PlaneId};

impl Ftl {
    /// Moves every valid page of `victim` to the GC frontier of its plane and
    /// marks it a victim awaiting erase. Returns the number of pages moved.
    /// The caller checks `can_relocate` first.
    pub fn relocate(&mut self, victim: BlockId) -> u32 {
        let slc = self.is_slc(victim);
        if slc {
            let plane = self.layout.plane_of_block(victim);
            let q = &mut self.planes[plane.index()].slc_full;
            if let Some(pos) = q.iter().position(|&b| b == victim) {
                q.remove(pos);
            }
        } else if self.state[victim.index()] == BlockState::Full {
            self.bucket_remove(victim);
        }
        self.state[victim.index()] = BlockState::Victim;
        let plane = self.layout.plane_of_block(victim);
        let written = self.written[victim.index()] as u32;
        // Each valid page's forward-map entry is a random access: ask for
        // them all first, so that their cache misses overlap.
        for offset in 0..written {
            if let Some(lpa) = self.rev.get(self.layout.page_of_block(victim, offset)) {
                self.fwd.prefetch(lpa);
            }
        }
        let mut moved = 0;
        for offset in 0..written {
            let ppa = self.layout.page_of_block(victim, offset);
            let Some(lpa) = self.rev.get(ppa) else {
                continue;
            };
            let dst = self
                .alloc_page(plane, Stream::Gc)
                .expect("GC destination: caller checked can_relocate");
            self.rev.clear(ppa);
            self.fwd.set(lpa, dst);
            self.rev.set(dst, lpa);
            let dst_block = self.layout.block_of(dst);
            self.bump_valid(dst_block, 1);
            self.pending[dst_block.index()] -= 1;
            self.settle(dst_block);
            if let Some(ig) = &mut self.integrity {
                ig.page_tag[dst.index()] = ig.page_tag[ppa.index()];
            }
            moved += 1;
        }
        // The moved pages were counted again at their destination (same plane).
        self.plane_valid[plane.index()] -= moved as u64;
        self.valid[victim.index()] = 0;
        if slc {
            self.counters.fold_pages_moved += moved as u64;
            self.counters.folds += 1;
        } else {
            self.counters.gc_pages_moved += moved as u64;
            self.counters.gc_invocations += 1;
            let invalid = 1.0 - moved as f64 / self.block_capacity(victim) as f64;
            self.counters.victims_ge70_invalid += (invalid >= 0.7) as u64;
            self.counters.victims_ge90_invalid += (invalid >= 0.9) as u64;
        }
        moved
    }

    /// Whether the GC frontier of the plane has room for `pages` more pages.
    pub fn can_relocate(&self, plane: PlaneId, pages: u32) -> bool {
        let ps = &self.planes[plane.index()];
        let ppb = self.layout.pages_per_block;
        let open_room = ps
            .gc_open
            .map_or(0, |b| ppb - self.written[b.index()] as u32);
        open_room + ps.free.len() as u32 * ppb >= pages
    }

    /// Erases a collected victim and returns it to its free pool.
    pub fn erase(&mut self, victim: BlockId) {
        let b = victim.index();
        debug_assert_eq!(self.state[b], BlockState::Victim);
        self.written[b] = 0;
        self.valid[b] = 0;
        self.erase_count[b] += 1;
        self.state[b] = BlockState::Free;
        self.total_free_blocks += 1;
        self.counters.erases += 1;
        let plane = self.layout.plane_of_block(victim);
        if !self.is_slc(victim) {
            self.planes[plane.index()].free.push_back(victim);
        } else if !self.return_lent(plane, victim) {
            self.planes[plane.index()].slc_free.push_back(victim);
        }
    }
}
