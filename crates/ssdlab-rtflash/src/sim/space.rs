//! The flash space of the real-time simulation: a page-mapping store per
//! chip with greedy GC, as the analysis assumes. Each logical page has a
//! home chip (its stripe); host writes and GC copies share one open block
//! per chip. When the open block is full and the chip is down to its
//! reserved free blocks, a GC round is needed: the full block with the
//! fewest valid pages (greedy) is copied into a reserved block, which
//! becomes the open block with `pages_per_block − valid` pages of room,
//! and the victim is erased back into the reserve. One round thus frees
//! exactly the room the analysis counts (`f = Np − u`).
//!
//! The room a round makes exists only once its copies and its erase have
//! run: between `begin_round` and `finish_round` no host page can be
//! placed on that chip. The store has no notion of time; the simulation
//! times the round's operations (`mod.rs`).

use std::collections::VecDeque;

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
    open: Option<u32>,
    /// The victim of the round in progress, erased when it finishes.
    erasing: Option<u32>,
}

/// The chips' pages, and where each logical page is.
#[derive(Debug, Clone)]
pub struct FlashSpace {
    chips: Vec<Chip>,
    pages_per_block: u32,
    reserved_blocks: usize,
    /// Logical page → (chip, block, page), None when never written.
    location: Vec<Option<(u32, u32, u32)>>,
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
            open: None,
            erasing: None,
        };
        FlashSpace {
            chips: vec![chip; chips as usize],
            pages_per_block,
            reserved_blocks: reserved_blocks as usize,
            location: vec![None; logical_pages as usize],
        }
    }

    /// Places logical page `lpn` on `chip` if the chip has room now (its
    /// open block, or a free block outside the reserve); false when it
    /// needs a GC round first, or one is in progress.
    pub fn try_write(&mut self, lpn: u32, chip: u32) -> bool {
        let ppb = self.pages_per_block;
        let reserved = self.reserved_blocks;
        let c = &mut self.chips[chip as usize];
        if c.erasing.is_some() {
            return false;
        }
        let open_room = c.open.is_some_and(|b| c.blocks[b as usize].written < ppb);
        if !open_room {
            if c.free.len() <= reserved {
                return false;
            }
            c.open = c.free.pop_front();
        }
        let block = c.open.expect("an open block with room");
        self.invalidate(lpn);
        self.place(lpn, chip, block);
        true
    }

    /// Starts a GC round on `chip`: the greedy victim's valid pages move
    /// into a reserved block, which becomes the open block. Returns the
    /// pages copied; the round's room is usable after `finish_round`.
    pub fn begin_round(&mut self, chip: u32) -> Result<u64, OutOfSpace> {
        let victim = self.greedy_victim(chip).ok_or(OutOfSpace { chip })?;
        let c = &mut self.chips[chip as usize];
        let target = c.free.pop_front().ok_or(OutOfSpace { chip })?;
        c.open = Some(target);
        c.erasing = Some(victim);
        let holds = std::mem::take(&mut c.blocks[victim as usize].holds);
        let mut copied = 0;
        for lpn in holds.into_iter().flatten() {
            self.place(lpn, chip, target);
            copied += 1;
        }
        Ok(copied)
    }

    /// Ends the round on `chip`: its victim is erased into the free pool.
    pub fn finish_round(&mut self, chip: u32) {
        let c = &mut self.chips[chip as usize];
        if let Some(victim) = c.erasing.take() {
            c.blocks[victim as usize] = Block::default();
            c.free.push_back(victim);
        }
    }

    /// Writes `lpn` with no clock: rounds, if needed, finish at once
    /// (preconditioning). Returns the rounds run.
    pub fn write_now(&mut self, lpn: u32, chip: u32) -> Result<u64, OutOfSpace> {
        let mut rounds = 0;
        while !self.try_write(lpn, chip) {
            self.begin_round(chip)?;
            self.finish_round(chip);
            rounds += 1;
        }
        Ok(rounds)
    }

    fn place(&mut self, lpn: u32, chip: u32, block: u32) {
        let b = &mut self.chips[chip as usize].blocks[block as usize];
        let page = b.written;
        b.written += 1;
        b.valid += 1;
        b.holds.push(Some(lpn));
        self.location[lpn as usize] = Some((chip, block, page));
    }

    fn invalidate(&mut self, lpn: u32) {
        if let Some((chip, block, page)) = self.location[lpn as usize].take() {
            let b = &mut self.chips[chip as usize].blocks[block as usize];
            b.valid -= 1;
            b.holds[page as usize] = None;
        }
    }

    /// The full block (not the open one) with the fewest valid pages, the
    /// lowest number among equals; None when every such block is all valid.
    fn greedy_victim(&self, chip: u32) -> Option<u32> {
        let c = &self.chips[chip as usize];
        let ppb = self.pages_per_block;
        (0..c.blocks.len() as u32)
            .filter(|&b| Some(b) != c.open && Some(b) != c.erasing)
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
            assert_eq!(s.write_now(lpn, 0).unwrap(), 0);
        }
        let mut rounds = 0;
        for i in 0..200u32 {
            rounds += s.write_now((i * 7) % 12, 0).unwrap();
        }
        assert!(rounds > 0, "overwrites of a full space must collect");
        assert_eq!(s.valid_pages(0), 12);
        assert!((0..12).all(|l| s.location[l].is_some()));
    }

    #[test]
    fn data_larger_than_the_space_is_an_error_not_a_loop() {
        // 4 blocks of 4 pages, 2 reserved: 8 pages outside the reserve.
        let mut s = FlashSpace::new(1, 4, 4, 2, 16);
        let result: Result<Vec<_>, _> = (0..16).map(|l| s.write_now(l, 0)).collect();
        assert_eq!(result, Err(OutOfSpace { chip: 0 }));
    }

    #[test]
    fn a_round_frees_its_room_only_when_it_finishes() {
        // One chip of 4 blocks of 4 pages, 1 reserved; 8 logical pages.
        let mut s = FlashSpace::new(1, 4, 4, 1, 8);
        for lpn in 0..8 {
            s.write_now(lpn, 0).unwrap();
        }
        for lpn in [0, 1, 2, 4] {
            s.write_now(lpn, 0).unwrap();
        }
        // Blocks: two full (valid 1 and 3), the third full too; reserve only.
        assert!(!s.try_write(5, 0), "only the reserve is left");
        let copied = s.begin_round(0).unwrap();
        assert_eq!(copied, 1, "the greedy victim holds one valid page");
        assert!(!s.try_write(5, 0), "no room until the erase is done");
        s.finish_round(0);
        for lpn in [5, 6, 7] {
            assert!(s.try_write(lpn, 0), "the round freed Np − u = 3 pages");
        }
        assert!(!s.try_write(0, 0));
        assert_eq!(s.valid_pages(0), 8);
    }
}
