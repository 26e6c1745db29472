//! Per-plane buckets of Full blocks by valid count (intrusive doubly linked
//! lists) and the iterator over one bucket.

use super::Ftl;
use crate::ids::{BlockId, PlaneId};

/// A bucket-list link: a block or none, in 4 bytes (the block plus one, 0
/// for none). The lists are walked and relinked on every valid-count
/// change, so they stay as small as a plain `u32` table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct BlockLink(u32);

impl BlockLink {
    pub const NONE: BlockLink = BlockLink(0);

    #[inline]
    fn of(block: BlockId) -> BlockLink {
        BlockLink(block.0 + 1)
    }

    #[inline]
    fn get(self) -> Option<BlockId> {
        self.0.checked_sub(1).map(BlockId)
    }
}

impl Ftl {
    /// Full blocks of `plane` with exactly `valid` valid pages.
    pub fn bucket(&self, plane: PlaneId, valid: u16) -> BucketIter<'_> {
        BucketIter {
            ftl: self,
            cur: self.bucket_head[self.bucket_slot(plane, valid)].get(),
        }
    }

    /// Every settled Full native block of a plane that holds an invalid page,
    /// from the fewest valid pages up.
    pub fn candidates(&self, plane: PlaneId) -> impl Iterator<Item = BlockId> + '_ {
        (0..self.layout.pages_per_block as u16).flat_map(move |v| self.bucket(plane, v))
    }

    fn bucket_slot(&self, plane: PlaneId, valid: u16) -> usize {
        plane.index() * (self.layout.pages_per_block as usize + 1) + valid as usize
    }

    fn bucket_of(&self, block: BlockId) -> usize {
        self.bucket_slot(self.layout.plane_of_block(block), self.valid[block.index()])
    }

    pub(super) fn bucket_insert(&mut self, block: BlockId) {
        let idx = self.bucket_of(block);
        let head = self.bucket_head[idx];
        self.next[block.index()] = head;
        self.prev[block.index()] = BlockLink::NONE;
        if let Some(head) = head.get() {
            self.prev[head.index()] = BlockLink::of(block);
        }
        self.bucket_head[idx] = BlockLink::of(block);
    }

    pub(super) fn bucket_remove(&mut self, block: BlockId) {
        let (p, n) = (self.prev[block.index()], self.next[block.index()]);
        match p.get() {
            Some(pb) => self.next[pb.index()] = n,
            None => {
                let idx = self.bucket_of(block);
                self.bucket_head[idx] = n;
            }
        }
        if let Some(nb) = n.get() {
            self.prev[nb.index()] = p;
        }
        self.next[block.index()] = BlockLink::NONE;
        self.prev[block.index()] = BlockLink::NONE;
    }
}

pub struct BucketIter<'a> {
    ftl: &'a Ftl,
    cur: Option<BlockId>,
}

impl Iterator for BucketIter<'_> {
    type Item = BlockId;
    fn next(&mut self) -> Option<BlockId> {
        let b = self.cur?;
        self.cur = self.ftl.next[b.index()].get();
        Some(b)
    }
}
