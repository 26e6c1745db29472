//! Data-integrity shadow checks: page versions, flash-read verification and
//! the full invariant check of maps, valid counts and buckets.

use super::{BlockState, Ftl};
use crate::ids::{BlockId, PlaneId};
use ssdlab_protocol::Lpn;

impl Ftl {
    /// Next version of a logical page about to be written (0 when unchecked).
    pub fn next_version(&mut self, lpa: Lpn) -> u32 {
        match &mut self.integrity {
            Some(ig) => {
                let v = &mut ig.expected[lpa.index()];
                *v = v.wrapping_add(1);
                *v
            }
            None => 0,
        }
    }

    /// The version of `lpa` last written (0 when unchecked).
    pub fn version(&self, lpa: Lpn) -> u32 {
        self.integrity
            .as_ref()
            .map_or(0, |ig| ig.expected[lpa.index()])
    }

    /// Checks that the flash copy of `lpa` is the version last written.
    pub fn verify_flash_read(&self, lpa: Lpn) -> Result<(), String> {
        let Some(ig) = &self.integrity else {
            return Ok(());
        };
        let Some(ppa) = self.fwd.get(lpa) else {
            return Err(format!("lpa {lpa} read from flash but not mapped"));
        };
        let want = ig.expected[lpa.index()];
        let got = ig.page_tag[ppa.index()];
        if got != tag(lpa, want) {
            return Err(format!(
                "lpa {lpa} at ppa {ppa} holds (lpa {}, version {}), expected version {want}",
                got >> 32,
                got & 0xffff_ffff
            ));
        }
        Ok(())
    }

    /// The full invariant check: forward and reverse maps agree, valid counts
    /// and bucket membership are right, every mapped page holds its latest
    /// version (when not superseded by data still in the write buffer, which
    /// the caller lists in `buffered`).
    pub fn check(&self, buffered: &dyn Fn(Lpn) -> bool) -> Result<(), String> {
        let ppb = self.layout.pages_per_block;
        for (lpa, ppa) in self.fwd.mapped() {
            if self.rev.get(ppa) != Some(lpa) {
                return Err(format!(
                    "fwd[{lpa}] = {ppa} but rev[{ppa}] = {:?}",
                    self.rev.get(ppa)
                ));
            }
            if !buffered(lpa) {
                self.verify_flash_read(lpa)?;
            }
        }
        let mut counted = vec![0u16; self.valid.len()];
        for (ppa, lpa) in self.rev.mapped() {
            if self.fwd.get(lpa) != Some(ppa) {
                return Err(format!(
                    "rev[{ppa}] = {lpa} but fwd[{lpa}] = {:?}",
                    self.fwd.get(lpa)
                ));
            }
            let b = self.layout.block_of(ppa);
            if self.layout.offset_in_block(ppa) as u16 >= self.written[b.index()] {
                return Err(format!(
                    "valid page {ppa} beyond the write pointer of block {b}"
                ));
            }
            counted[b.index()] += 1;
        }
        let mut per_plane = vec![0u64; self.layout.planes as usize];
        for (b, &n) in counted.iter().enumerate() {
            per_plane[self.layout.plane_of_block(BlockId(b as u32)).index()] += n as u64;
        }
        if per_plane != self.plane_valid {
            return Err(format!(
                "per-plane valid pages {:?} but counted {:?}",
                self.plane_valid, per_plane
            ));
        }
        for (b, &n) in counted.iter().enumerate() {
            if n != self.valid[b] {
                return Err(format!(
                    "block {b}: valid count {} but {n} pages map to it",
                    self.valid[b]
                ));
            }
            if self.state[b] == BlockState::Free && self.written[b] != 0 {
                return Err(format!(
                    "free block {b} has {} pages written",
                    self.written[b]
                ));
            }
        }
        for plane in self.layout.all_planes() {
            for v in 0..=ppb as u16 {
                for b in self.bucket(plane, v) {
                    if self.valid[b.index()] != v || self.state[b.index()] != BlockState::Full {
                        return Err(format!("block {b} misfiled in bucket {v} of plane {plane}"));
                    }
                }
            }
        }
        let in_buckets: usize = (0..self.layout.planes)
            .map(PlaneId)
            .map(|p| {
                (0..=ppb as u16)
                    .map(|v| self.bucket(p, v).count())
                    .sum::<usize>()
            })
            .sum();
        let full_native = (0..self.layout.blocks)
            .map(BlockId)
            .filter(|&b| self.state[b.index()] == BlockState::Full && !self.is_slc(b))
            .count();
        if in_buckets != full_native {
            return Err(format!(
                "{in_buckets} blocks in buckets but {full_native} full native blocks"
            ));
        }
        Ok(())
    }
}

#[inline]
pub(super) fn tag(lpa: Lpn, version: u32) -> u64 {
    (lpa.0 as u64) << 32 | version as u64
}
