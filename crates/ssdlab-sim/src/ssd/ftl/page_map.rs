//! A page map (logical → physical or back) whose memory follows the data.
//!
//! Entries are stored plus one, so "no page" is stored as 0 and a new map is
//! an all-zero allocation: the operating system hands out zero pages lazily,
//! so a map costs physical memory only for the 4 KiB stretches (1024
//! entries) that were ever written. A huge device with little data on it
//! needs little memory.

use crate::ssd::ids::RawIndex;
use std::marker::PhantomData;

/// A map from `K` (a logical or physical page) to an optional `V`.
pub(crate) struct PageMap<K, V> {
    entries: Vec<u32>,
    types: PhantomData<(K, V)>,
}

impl<K: RawIndex, V: RawIndex> PageMap<K, V> {
    /// `len` entries, all empty.
    pub fn new(len: usize) -> Self {
        // vec![0; n] is a zeroed allocation (calloc / fresh mmap): no page
        // is touched until written.
        PageMap {
            entries: vec![0; len],
            types: PhantomData,
        }
    }

    #[inline]
    pub fn get(&self, key: K) -> Option<V> {
        match self.entries[key.raw() as usize] {
            0 => None,
            stored => Some(V::from_raw(stored - 1)),
        }
    }

    /// Maps `key` to `value`. A value of `u32::MAX` cannot be stored (it
    /// would read back as empty); no device has that many pages.
    #[inline]
    pub fn set(&mut self, key: K, value: V) {
        debug_assert!(value.raw() != u32::MAX);
        self.entries[key.raw() as usize] = value.raw() + 1;
    }

    #[inline]
    pub fn clear(&mut self, key: K) {
        self.entries[key.raw() as usize] = 0;
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// `(key, value)` for every entry in use.
    pub fn mapped(&self) -> impl Iterator<Item = (K, V)> + '_ {
        self.entries
            .iter()
            .enumerate()
            .filter(|(_, &v)| v != 0)
            .map(|(i, &v)| (K::from_raw(i as u32), V::from_raw(v - 1)))
    }

    /// Entries in use.
    pub fn count_mapped(&self) -> u64 {
        self.entries.iter().filter(|&&v| v != 0).count() as u64
    }
}
