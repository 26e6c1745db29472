//! A page map (logical → physical or back) whose memory follows the data.
//!
//! Entries are stored plus one, so "no page" ([`NONE`], `u32::MAX`) is
//! stored as 0 and a new map is an all-zero allocation: the operating system
//! hands out zero pages lazily, so a map costs physical memory only for the
//! 4 KiB stretches (1024 entries) that were ever written. A huge device with
//! little data on it needs little memory.

use super::NONE;

pub(crate) struct PageMap(Vec<u32>);

impl PageMap {
    /// `len` entries, all [`NONE`].
    pub fn new(len: usize) -> PageMap {
        // vec![0; n] is a zeroed allocation (calloc / fresh mmap): no page
        // is touched until written.
        PageMap(vec![0; len])
    }

    #[inline]
    pub fn get(&self, i: u32) -> u32 {
        self.0[i as usize].wrapping_sub(1)
    }

    #[inline]
    pub fn set(&mut self, i: u32, v: u32) {
        self.0[i as usize] = v.wrapping_add(1);
    }

    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// `(index, entry)` for every entry that is not [`NONE`].
    pub fn mapped(&self) -> impl Iterator<Item = (u32, u32)> + '_ {
        self.0
            .iter()
            .enumerate()
            .filter(|(_, &v)| v != 0)
            .map(|(i, &v)| (i as u32, v - 1))
    }

    /// Entries that are not [`NONE`].
    pub fn count_mapped(&self) -> u64 {
        self.0.iter().filter(|&&v| v != 0).count() as u64
    }
}

const _: () = assert!(NONE.wrapping_add(1) == 0);
