//! The flash space of the real-time simulation: a page-mapping store per
//! chip with greedy GC, as the analysis assumes. Each logical page has a
//! home chip (its stripe); writes go to the chip's open block, and when the
//! chip would have to take one of its reserved free blocks, a GC round
//! collects the full block with the fewest valid pages into the GC frontier
//! (which may use the reserve) and erases it.
//!
//! The store has no notion of time: the simulation turns what a write did
//! (pages copied, blocks erased) into timed flash operations.

use std::collections::VecDeque;

/// A physical page of one chip: (block, page in block).
type Slot = (u32, u32);

#[derive(Debug, Clone, Default)]
struct Block {
    valid: u32,
    written: u32,
    /// The logical page each written page holds, if still valid.
    holds: Vec<Option<u32>>,
}

/// One chip's blocks.
#[derive(Debug, Clone)]
struct Chip {
    blocks: Vec<Block>,
    free: VecDeque<u32>,
    host_open: Option<u32>,
    gc_open: Option<u32>,
}

/// What one host write cost its chip beyond the program itself.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct GcWork {
    /// Valid pages copied by GC rounds the write needed.
    pub copied_pages: u64,
    /// Blocks erased by those rounds.
    pub erased_blocks: u64,
}

/// The chips' pages, and where each logical page is.
#[derive(Debug, Clone)]
pub struct FlashSpace {
    chips: Vec<Chip>,
    pages_per_block: u32,
    reserved_blocks: usize,
    /// Logical page → (chip, block, page), None when never written.
    location: Vec<Option<(u32, Slot)>>,
}

/// A chip with no block left to collect: the data does not fit.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("chip {chip} is full: every block holds only valid pages, GC frees nothing")]
pub struct OutOfSpace {
    pub chip: u32,
}

impl FlashSpace {
    pub fn new(
        chips: u32,
        blocks_per_chip: u32,
        pages_per_block: u32,
        reserved_blocks: u32,
        logical_pages: u64,
    ) -> Self {
        let chip = Chip {
            blocks: vec![Block::default(); blocks_per_chip as usize],
            free: (0..blocks_per_chip).collect(),
            host_open: None,
            gc_open: None,
        };
        FlashSpace {
            chips: vec![chip; chips as usize],
            pages_per_block,
            reserved_blocks: reserved_blocks as usize,
            location: vec![None; logical_pages as usize],
        }
    }

    /// Writes logical page `lpn` on `chip`, collecting first when the chip
    /// has no page left outside its reserve. Returns the GC work done.
    pub fn write(&mut self, lpn: u32, chip: u32) -> Result<GcWork, OutOfSpace> {
        let mut work = GcWork::default();
        while !self.host_has_room(chip) {
            let copied = self.collect(chip)?;
            work.copied_pages += copied;
            work.erased_blocks += 1;
        }
        self.invalidate(lpn);
        let block = self.frontier(chip, false).expect("room checked");
        self.place(lpn, chip, block);
        Ok(work)
    }

    fn host_has_room(&self, chip: u32) -> bool {
        let c = &self.chips[chip as usize];
        let open_room = c
            .host_open
            .is_some_and(|b| c.blocks[b as usize].written < self.pages_per_block);
        open_room || c.free.len() > self.reserved_blocks
    }

    /// The open block of the host (or GC) frontier, opening a free block
    /// when it is full.
    fn frontier(&mut self, chip: u32, gc: bool) -> Option<u32> {
        let ppb = self.pages_per_block;
        let c = &mut self.chips[chip as usize];
        let open = if gc { &mut c.gc_open } else { &mut c.host_open };
        if let Some(b) = *open {
            if c.blocks[b as usize].written < ppb {
                return Some(b);
            }
        }
        let b = c.free.pop_front()?;
        *open = Some(b);
        Some(b)
    }

    fn place(&mut self, lpn: u32, chip: u32, block: u32) {
        let b = &mut self.chips[chip as usize].blocks[block as usize];
        let page = b.written;
        b.written += 1;
        b.valid += 1;
        b.holds.push(Some(lpn));
        self.location[lpn as usize] = Some((chip, (block, page)));
    }

    fn invalidate(&mut self, lpn: u32) {
        if let Some((chip, (block, page))) = self.location[lpn as usize].take() {
            let b = &mut self.chips[chip as usize].blocks[block as usize];
            b.valid -= 1;
            b.holds[page as usize] = None;
        }
    }

    /// One greedy GC round on `chip`: the full block with the fewest valid
    /// pages is copied to the GC frontier and erased. Returns the pages
    /// copied.
    fn collect(&mut self, chip: u32) -> Result<u64, OutOfSpace> {
        let victim = self.greedy_victim(chip).ok_or(OutOfSpace { chip })?;
        let holds = std::mem::take(&mut self.chips[chip as usize].blocks[victim as usize].holds);
        let mut copied = 0;
        for lpn in holds.into_iter().flatten() {
            self.location[lpn as usize] = None;
            let dst = self.frontier(chip, true).ok_or(OutOfSpace { chip })?;
            self.place(lpn, chip, dst);
            copied += 1;
        }
        let c = &mut self.chips[chip as usize];
        c.blocks[victim as usize] = Block::default();
        c.free.push_back(victim);
        Ok(copied)
    }

    /// The full block (not a frontier) with the fewest valid pages, the
    /// lowest number among equals; None when every such block is all valid.
    fn greedy_victim(&self, chip: u32) -> Option<u32> {
        let c = &self.chips[chip as usize];
        let ppb = self.pages_per_block;
        (0..c.blocks.len() as u32)
            .filter(|&b| Some(b) != c.host_open && Some(b) != c.gc_open)
            .filter(|&b| c.blocks[b as usize].written == ppb)
            .filter(|&b| c.blocks[b as usize].valid < ppb)
            .min_by_key(|&b| c.blocks[b as usize].valid)
    }

    /// Valid pages on `chip` (for checks).
    #[cfg(test)]
    pub fn valid_pages(&self, chip: u32) -> u64 {
        self.chips[chip as usize]
            .blocks
            .iter()
            .map(|b| u64::from(b.valid))
            .sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn overwrites_collect_and_keep_every_page() {
        // One chip of 8 blocks of 4 pages, 2 reserved; 12 logical pages.
        let mut s = FlashSpace::new(1, 8, 4, 2, 12);
        for lpn in 0..12 {
            assert_eq!(s.write(lpn, 0).unwrap(), GcWork::default());
        }
        let mut copied = 0;
        let mut rounds = 0;
        for i in 0..200u32 {
            let w = s.write((i * 7) % 12, 0).unwrap();
            copied += w.copied_pages;
            rounds += w.erased_blocks;
        }
        assert!(rounds > 0, "overwrites of a full space must collect");
        assert!(copied < rounds * 4, "a victim is never all valid");
        assert_eq!(s.valid_pages(0), 12);
        assert!((0..12).all(|l| s.location[l].is_some()));
    }

    #[test]
    fn data_larger_than_the_space_is_an_error_not_a_loop() {
        // 4 blocks of 4 pages, 2 reserved: 8 pages outside the reserve.
        let mut s = FlashSpace::new(1, 4, 4, 2, 16);
        let result: Result<Vec<_>, _> = (0..16).map(|l| s.write(l, 0)).collect();
        assert_eq!(result, Err(OutOfSpace { chip: 0 }));
    }
}
