//! A page map (logical → physical or back) whose memory follows the data.
//!
//! Entries are stored plus one, so "no page" is stored as 0 and a new map is
//! an all-zero allocation: the operating system hands out zero pages lazily,
//! so a map costs physical memory only for the 4 KiB stretches (1024
//! entries) that were ever written. A huge device with little data on it
//! needs little memory.
//!
//! A large map lives in an anonymous mapping the kernel is asked to back
//! with transparent huge pages (`madvise(MADV_HUGEPAGE)`): a random lookup
//! into a map of tens of megabytes then misses the TLB far less often
//! (`ssdlab bench --compare`: random reads 1.19×, GC-bound writes 1.15×,
//! the full stack 1.13×; docs/performance.md). Memory still follows the
//! data, in 2 MiB steps instead of 4 KiB. It changes only where the entries
//! live, never what they hold.

use crate::ids::RawIndex;
use std::marker::PhantomData;

/// Maps of at least this many bytes ask for huge pages.
const HUGE_PAGE_MIN_BYTES: usize = 4 << 20;

/// Where the entries live.
enum Store {
    Heap(Vec<u32>),
    Mapped(memmap2::MmapMut),
}

/// A map from `K` (a logical or physical page) to an optional `V`.
pub(crate) struct PageMap<K, V> {
    store: Store,
    types: PhantomData<(K, V)>,
}

/// A zeroed anonymous mapping of `len` entries backed by huge pages where
/// the kernel allows; None when the mapping cannot be made.
fn mapped(len: usize) -> Option<memmap2::MmapMut> {
    let bytes = len.checked_mul(4)?;
    let map = memmap2::MmapOptions::new().len(bytes).map_anon().ok()?;
    #[cfg(target_os = "linux")]
    {
        // Only a hint: without huge pages the map works the same.
        let _ = map.advise(memmap2::Advice::HugePage);
    }
    Some(map)
}

impl<K: RawIndex, V: RawIndex> PageMap<K, V> {
    /// `len` entries, all empty.
    pub fn new(len: usize) -> Self {
        // Both stores are zeroed allocations (calloc / fresh mmap): no page
        // is touched until written.
        let store = match (len * 4 >= HUGE_PAGE_MIN_BYTES)
            .then(|| mapped(len))
            .flatten()
        {
            Some(map) => Store::Mapped(map),
            None => Store::Heap(vec![0; len]),
        };
        PageMap {
            store,
            types: PhantomData,
        }
    }

    #[inline]
    fn entries(&self) -> &[u32] {
        match &self.store {
            Store::Heap(v) => v,
            Store::Mapped(m) => bytemuck::cast_slice(&m[..]),
        }
    }

    #[inline]
    fn entries_mut(&mut self) -> &mut [u32] {
        match &mut self.store {
            Store::Heap(v) => v,
            Store::Mapped(m) => bytemuck::cast_slice_mut(&mut m[..]),
        }
    }

    #[inline]
    pub fn get(&self, key: K) -> Option<V> {
        match self.entries()[key.raw() as usize] {
            0 => None,
            stored => Some(V::from_raw(stored - 1)),
        }
    }

    /// Asks the CPU to bring `key`'s entry into its cache ahead of a
    /// `get` or `set`: the random access into a map of tens of megabytes
    /// is a cache miss, which this lets overlap with other work.
    #[inline]
    pub fn prefetch(&self, key: K) {
        #[cfg(target_arch = "x86_64")]
        {
            use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
            let at = self.entries().as_ptr().wrapping_add(key.raw() as usize);
            // SAFETY: a prefetch is a hint: it never faults, whatever the
            // address, and reads nothing into the program.
            #[allow(unsafe_code)]
            unsafe {
                _mm_prefetch::<_MM_HINT_T0>(at.cast::<i8>())
            };
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = key;
    }

    /// Maps `key` to `value`. A value of `u32::MAX` cannot be stored (it
    /// would read back as empty); no device has that many pages.
    #[inline]
    pub fn set(&mut self, key: K, value: V) {
        debug_assert!(value.raw() != u32::MAX);
        self.entries_mut()[key.raw() as usize] = value.raw() + 1;
    }

    #[inline]
    pub fn clear(&mut self, key: K) {
        self.entries_mut()[key.raw() as usize] = 0;
    }

    pub fn len(&self) -> usize {
        self.entries().len()
    }

    /// `(key, value)` for every entry in use.
    pub fn mapped(&self) -> impl Iterator<Item = (K, V)> + '_ {
        self.entries()
            .iter()
            .enumerate()
            .filter(|(_, &v)| v != 0)
            .map(|(i, &v)| (K::from_raw(i as u32), V::from_raw(v - 1)))
    }

    /// Entries in use.
    pub fn count_mapped(&self) -> u64 {
        self.entries().iter().filter(|&&v| v != 0).count() as u64
    }
}
