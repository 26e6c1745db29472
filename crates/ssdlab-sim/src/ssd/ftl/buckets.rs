//! Per-plane buckets of Full blocks by valid count (intrusive doubly linked
//! lists) and the iterator over one bucket.

use super::Ftl;
use crate::ssd::ids::{BlockId, PlaneId};

impl Ftl {
    /// Full blocks of `plane` with exactly `valid` valid pages.
    pub fn bucket(&self, plane: PlaneId, valid: u16) -> BucketIter<'_> {
        BucketIter {
            ftl: self,
            cur: self.bucket_head[self.bucket_slot(plane, valid)],
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
        self.prev[block.index()] = None;
        if let Some(head) = head {
            self.prev[head.index()] = Some(block);
        }
        self.bucket_head[idx] = Some(block);
    }

    pub(super) fn bucket_remove(&mut self, block: BlockId) {
        let (p, n) = (self.prev[block.index()], self.next[block.index()]);
        match p {
            Some(p) => self.next[p.index()] = n,
            None => {
                let idx = self.bucket_of(block);
                self.bucket_head[idx] = n;
            }
        }
        if let Some(n) = n {
            self.prev[n.index()] = p;
        }
        self.next[block.index()] = None;
        self.prev[block.index()] = None;
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
        self.cur = self.ftl.next[b.index()];
        Some(b)
    }
}
