//! Per-plane buckets of Full blocks by valid count (intrusive doubly linked
//! lists) and the iterator over one bucket.

use super::{Ftl, NONE};

impl Ftl {
    /// Full blocks of `plane` with exactly `valid` valid pages.
    pub fn bucket(&self, plane: u32, valid: u16) -> BucketIter<'_> {
        let idx = plane as usize * (self.layout.pages_per_block as usize + 1) + valid as usize;
        BucketIter {
            ftl: self,
            cur: self.bucket_head[idx],
        }
    }

    /// Every settled Full native block of a plane that holds an invalid page,
    /// from the fewest valid pages up.
    pub fn candidates(&self, plane: u32) -> impl Iterator<Item = u32> + '_ {
        (0..self.layout.pages_per_block as u16).flat_map(move |v| self.bucket(plane, v))
    }

    fn bucket_index(&self, block: u32) -> usize {
        let plane = self.layout.plane_of_block(block) as usize;
        plane * (self.layout.pages_per_block as usize + 1) + self.valid[block as usize] as usize
    }

    pub(super) fn bucket_insert(&mut self, block: u32) {
        let idx = self.bucket_index(block);
        let head = self.bucket_head[idx];
        self.next[block as usize] = head;
        self.prev[block as usize] = NONE;
        if head != NONE {
            self.prev[head as usize] = block;
        }
        self.bucket_head[idx] = block;
    }

    pub(super) fn bucket_remove(&mut self, block: u32) {
        let (p, n) = (self.prev[block as usize], self.next[block as usize]);
        if p != NONE {
            self.next[p as usize] = n;
        } else {
            let idx = self.bucket_index(block);
            self.bucket_head[idx] = n;
        }
        if n != NONE {
            self.prev[n as usize] = p;
        }
        self.next[block as usize] = NONE;
        self.prev[block as usize] = NONE;
    }
}

pub struct BucketIter<'a> {
    ftl: &'a Ftl,
    cur: u32,
}

impl Iterator for BucketIter<'_> {
    type Item = u32;
    fn next(&mut self) -> Option<u32> {
        if self.cur == NONE {
            return None;
        }
        let b = self.cur;
        self.cur = self.ftl.next[b as usize];
        Some(b)
    }
}
