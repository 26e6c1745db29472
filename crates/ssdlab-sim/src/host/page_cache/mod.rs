//! The host's page cache with write-back, after Linux's (mm/page-writeback.c,
//! the `vm.dirty_*` knobs of 2.6.30): buffered writes dirty pages; a flusher
//! writes them back asynchronously when they are older than
//! `dirty_expire`, every `writeback_interval`, or at once while dirty data
//! is above `dirty_background_ratio`; a writer that finds dirty plus
//! write-back data above `dirty_ratio` is throttled until write-back brings
//! it under. Clean pages are evicted least recently used first.
//!
//! Pages are the device's logical pages (the cache maps block addresses, as
//! the buffer cache does): a workload that models files maps them onto
//! device pages itself. The cache has no clock and issues nothing: it tells
//! its owner which runs of pages to write back, and the owner submits the
//! bios and reports their completion.

use rustc_hash::FxHashMap;
use serde::{Deserialize, Serialize};
use ssdlab_protocol::Ns;
use std::collections::{BTreeSet, VecDeque};

const SECOND: Ns = 1_000_000_000;

/// The page cache's knobs, as the kernel's `vm.dirty_*` sysctls.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct PageCacheConfig {
    /// Memory the cache may hold (clean and dirty pages).
    #[serde(deserialize_with = "crate::units::bytes")]
    pub capacity_bytes: u64,
    /// Dirty data (percent of the cache) above which the flusher writes
    /// back at once (`vm.dirty_background_ratio`).
    pub dirty_background_ratio: u32,
    /// Dirty plus write-back data (percent of the cache) above which a
    /// writer is throttled (`vm.dirty_ratio`).
    pub dirty_ratio: u32,
    /// Age at which a dirty page is written back (`vm.dirty_expire_centisecs`).
    #[serde(deserialize_with = "crate::units::ns")]
    pub dirty_expire_ns: Ns,
    /// The flusher's period (`vm.dirty_writeback_centisecs`).
    #[serde(deserialize_with = "crate::units::ns")]
    pub writeback_interval_ns: Ns,
    /// Largest write-back bio (a run of contiguous dirty pages).
    #[serde(deserialize_with = "crate::units::bytes_u32")]
    pub writeback_max_bytes: u32,
}

impl Default for PageCacheConfig {
    /// Linux 2.6.30's defaults (10 %, 20 %, 30 s, 5 s) on a 256 MiB cache;
    /// write-back bios up to 512 KiB (the era's max_sectors_kb).
    fn default() -> Self {
        PageCacheConfig {
            capacity_bytes: 256 << 20,
            dirty_background_ratio: 10,
            dirty_ratio: 20,
            dirty_expire_ns: 30 * SECOND,
            writeback_interval_ns: 5 * SECOND,
            writeback_max_bytes: 512 << 10,
        }
    }
}

impl PageCacheConfig {
    /// Every problem of the settings, each as the key and the reason.
    pub fn problems(&self, page_bytes: u32) -> Vec<(&'static str, String)> {
        let mut found = Vec::new();
        if self.capacity_bytes < 16 * page_bytes as u64 {
            found.push((
                "capacity_bytes",
                format!("must hold at least 16 pages of {page_bytes} bytes"),
            ));
        }
        if !(1..=100).contains(&self.dirty_ratio) {
            found.push((
                "dirty_ratio",
                format!("{} is not a percentage in [1, 100]", self.dirty_ratio),
            ));
        }
        if self.dirty_background_ratio == 0 || self.dirty_background_ratio > self.dirty_ratio {
            found.push((
                "dirty_background_ratio",
                format!(
                    "{} must be in [1, dirty_ratio = {}]",
                    self.dirty_background_ratio, self.dirty_ratio
                ),
            ));
        }
        // The kernel counts the period in centiseconds; a shorter one would
        // only multiply flusher wake-ups (a hang on a long run).
        if self.writeback_interval_ns < MIN_WRITEBACK_INTERVAL_NS {
            found.push((
                "writeback_interval_ns",
                format!(
                    "{} ns is below 10 ms (one centisecond, vm.dirty_writeback_centisecs' unit)",
                    self.writeback_interval_ns
                ),
            ));
        }
        if self.writeback_max_bytes < page_bytes {
            found.push((
                "writeback_max_bytes",
                format!("must be at least one page ({page_bytes} bytes)"),
            ));
        }
        found
    }
}

/// The smallest chunk of background write-back (MIN_WRITEBACK_PAGES).
const MIN_WRITEBACK_BYTES: u64 = 4 << 20;

/// The shortest flusher period: one centisecond.
pub const MIN_WRITEBACK_INTERVAL_NS: Ns = 10_000_000;

/// A run of contiguous pages to write back: `pages` pages from `first`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Run {
    pub first: u32,
    pub pages: u32,
}

#[derive(Debug, Clone, Copy)]
struct Page {
    /// When the page was first dirtied since it was last clean (its write-back order).
    dirty_since: Option<Ns>,
    /// A write-back bio holding this page is in flight.
    writeback: bool,
    /// Last use, for LRU eviction of clean pages.
    tick: u64,
}

/// What the cache did, for the report.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct PageCacheCounters {
    pub read_hits: u64,
    pub read_misses: u64,
    pub pages_dirtied: u64,
    pub pages_written_back: u64,
    /// Dirty pages dropped by a truncate or delete before reaching the device.
    pub dirty_pages_dropped: u64,
    pub evictions: u64,
    pub throttled_writes: u64,
    /// The most pages ever dirty or under write-back at once: throttling
    /// keeps it within one write of the dirty limit.
    pub peak_dirty_pages: u64,
}

pub struct PageCache {
    cfg: PageCacheConfig,
    capacity_pages: u64,
    page_bytes: u64,
    /// Pages per write-back bio at most.
    run_max_pages: u32,
    pages: FxHashMap<u32, Page>,
    /// Dirty pages in write-back order: first-dirtied time, then page.
    dirty: BTreeSet<(Ns, u32)>,
    /// Dirty pages by index, when the cache is one file's (a block
    /// device's): write-back then goes in index order from `cursor`.
    by_index: Option<BTreeSet<u32>>,
    cursor: u32,
    writeback_pages: u64,
    /// Clean-page candidates for eviction (stale entries skipped lazily).
    lru: VecDeque<(u64, u32)>,
    tick: u64,
    counters: PageCacheCounters,
}

impl PageCache {
    pub fn new(cfg: PageCacheConfig, page_bytes: u32) -> PageCache {
        let capacity_pages = (cfg.capacity_bytes / page_bytes as u64).max(1);
        let run_max_pages = (cfg.writeback_max_bytes / page_bytes.max(1)).max(1);
        PageCache {
            cfg,
            capacity_pages,
            page_bytes: page_bytes.max(1) as u64,
            run_max_pages,
            pages: FxHashMap::default(),
            dirty: BTreeSet::new(),
            by_index: None,
            cursor: 0,
            writeback_pages: 0,
            lru: VecDeque::new(),
            tick: 0,
            counters: PageCacheCounters::default(),
        }
    }

    /// The cache of one file (a block device's inode): write-back walks
    /// its pages in index order from where the last one stopped, as
    /// write_cache_pages does from `writeback_index`, so neighbouring dirty
    /// pages leave in one bio whatever order they were dirtied in.
    pub fn one_file(mut self) -> PageCache {
        self.by_index = Some(BTreeSet::new());
        self
    }

    pub fn config(&self) -> &PageCacheConfig {
        &self.cfg
    }

    pub fn counters(&self) -> &PageCacheCounters {
        &self.counters
    }

    pub fn dirty_pages(&self) -> u64 {
        self.dirty.len() as u64
    }

    pub fn writeback_pages(&self) -> u64 {
        self.writeback_pages
    }

    pub fn resident_pages(&self) -> u64 {
        self.pages.len() as u64
    }

    fn background_limit(&self) -> u64 {
        self.capacity_pages * self.cfg.dirty_background_ratio as u64 / 100
    }

    fn dirty_limit(&self) -> u64 {
        (self.capacity_pages * self.cfg.dirty_ratio as u64 / 100).max(1)
    }

    /// Dirty data is above the background threshold: the flusher should run now.
    pub fn over_background(&self) -> bool {
        self.dirty_pages() > self.background_limit()
    }

    /// Dirty plus write-back data is above `dirty_ratio`: a writer must wait.
    pub fn over_dirty_limit(&self) -> bool {
        self.dirty_pages() + self.writeback_pages > self.dirty_limit()
    }

    /// Counts a writer that had to wait at the dirty limit.
    pub fn note_throttled(&mut self) {
        self.counters.throttled_writes += 1;
    }

    /// Whether page `lpn` is resident (a buffered read of it needs no I/O).
    /// A hit counts as a use.
    pub fn read(&mut self, lpn: u32) -> bool {
        self.tick += 1;
        let tick = self.tick;
        match self.pages.get_mut(&lpn) {
            Some(p) => {
                p.tick = tick;
                if p.dirty_since.is_none() && !p.writeback {
                    self.lru.push_back((tick, lpn));
                }
                self.counters.read_hits += 1;
                true
            }
            None => {
                self.counters.read_misses += 1;
                false
            }
        }
    }

    /// Whether page `lpn` is resident, without counting a use.
    pub fn contains(&self, lpn: u32) -> bool {
        self.pages.contains_key(&lpn)
    }

    /// A read from the device brought page `lpn` in (clean).
    pub fn fill(&mut self, lpn: u32) {
        if self.pages.contains_key(&lpn) {
            return;
        }
        self.tick += 1;
        let page = Page {
            dirty_since: None,
            writeback: false,
            tick: self.tick,
        };
        self.pages.insert(lpn, page);
        self.lru.push_back((self.tick, lpn));
        self.evict();
    }

    /// A buffered write dirties page `lpn` at `now`.
    pub fn write(&mut self, lpn: u32, now: Ns) {
        self.tick += 1;
        let tick = self.tick;
        let page = self.pages.entry(lpn).or_insert(Page {
            dirty_since: None,
            writeback: false,
            tick,
        });
        page.tick = tick;
        if page.dirty_since.is_none() {
            page.dirty_since = Some(now);
            self.dirty.insert((now, lpn));
            if let Some(ix) = self.by_index.as_mut() {
                ix.insert(lpn);
            }
            self.counters.pages_dirtied += 1;
            let held = self.dirty_pages() + self.writeback_pages;
            self.counters.peak_dirty_pages = self.counters.peak_dirty_pages.max(held);
        }
        self.evict();
    }

    /// Drops page `lpn` (truncate, delete): a dirty page never reaches the
    /// device. A page under write-back stays until its bio ends.
    pub fn drop_page(&mut self, lpn: u32) {
        let Some(p) = self.pages.get(&lpn).copied() else {
            return;
        };
        if let Some(t) = p.dirty_since {
            self.unmark_dirty(t, lpn);
            self.counters.dirty_pages_dropped += 1;
        }
        if p.writeback {
            let page = self.pages.get_mut(&lpn).expect("present");
            page.dirty_since = None;
        } else {
            self.pages.remove(&lpn);
        }
    }

    /// Evicts least recently used clean pages while over capacity. Dirty
    /// and write-back pages stay (the dirty limit keeps room for clean ones).
    fn evict(&mut self) {
        while self.pages.len() as u64 > self.capacity_pages {
            let Some((tick, lpn)) = self.lru.pop_front() else {
                return;
            };
            let evictable = self
                .pages
                .get(&lpn)
                .is_some_and(|p| p.tick == tick && p.dirty_since.is_none() && !p.writeback);
            if evictable {
                self.pages.remove(&lpn);
                self.counters.evictions += 1;
            }
        }
    }

    /// The flusher's pick at `now`: every expired dirty page, and, while
    /// dirty data is above the background threshold (or `all`), more in
    /// write-back order (oldest dirtied first). The pages go under
    /// write-back; contiguous pages dirtied in order form one run.
    pub fn take_writeback(&mut self, now: Ns, all: bool) -> Vec<Run> {
        if self.by_index.is_some() {
            return self.take_writeback_by_index(now, all);
        }
        let background = self.background_limit();
        let mut picked = Vec::new();
        while let Some(&(since, lpn)) = self.dirty.first() {
            let expired = since.saturating_add(self.cfg.dirty_expire_ns) <= now;
            let above = self.dirty.len() as u64 > background;
            if !(all || expired || above) {
                break;
            }
            self.dirty.pop_first();
            picked.push(lpn);
        }
        self.start_writeback(&picked)
    }

    /// One file's write-back: the whole file once its oldest dirty page has
    /// expired (kupdate writes back an expired inode), else the excess over
    /// the background threshold; either in index order from the cursor.
    fn take_writeback_by_index(&mut self, now: Ns, all: bool) -> Vec<Run> {
        let oldest = self.dirty.first().map(|&(t, _)| t);
        let expired = oldest.is_some_and(|t| t.saturating_add(self.cfg.dirty_expire_ns) <= now);
        let dirty = self.dirty.len() as u64;
        let excess = dirty.saturating_sub(self.background_limit());
        let count = if all || expired {
            dirty
        } else if excess > 0 {
            // Background write-back goes in chunks of at least
            // MIN_WRITEBACK_PAGES (4 MiB) before it looks at the threshold
            // again (fs/fs-writeback.c, writeback_chunk_size).
            excess.max(MIN_WRITEBACK_BYTES / self.page_bytes).min(dirty)
        } else {
            0
        };
        let ix = self.by_index.as_ref().expect("one file");
        let picked: Vec<u32> = ix
            .range(self.cursor..)
            .chain(ix.range(..self.cursor))
            .copied()
            .take(count as usize)
            .collect();
        if let Some(&last) = picked.last() {
            self.cursor = last.wrapping_add(1);
        }
        for &lpn in &picked {
            let since = self.pages[&lpn].dirty_since.expect("a dirty page");
            self.unmark_dirty(since, lpn);
        }
        self.start_writeback(&picked)
    }

    fn unmark_dirty(&mut self, since: Ns, lpn: u32) {
        self.dirty.remove(&(since, lpn));
        if let Some(ix) = self.by_index.as_mut() {
            ix.remove(&lpn);
        }
    }

    /// The dirty pages among `lpns` (an fsync's range) go under write-back now.
    pub fn take_range(&mut self, lpns: impl IntoIterator<Item = u32>) -> Vec<Run> {
        let mut picked = Vec::new();
        for lpn in lpns {
            if let Some(since) = self.pages.get(&lpn).and_then(|p| p.dirty_since) {
                self.unmark_dirty(since, lpn);
                picked.push(lpn);
            }
        }
        self.start_writeback(&picked)
    }

    /// Whether page `lpn` is dirty or under write-back (an fsync of it must wait).
    pub fn is_unsafe(&self, lpn: u32) -> bool {
        self.pages
            .get(&lpn)
            .is_some_and(|p| p.dirty_since.is_some() || p.writeback)
    }

    fn start_writeback(&mut self, picked: &[u32]) -> Vec<Run> {
        let max_pages = self.run_max_pages;
        let mut runs: Vec<Run> = Vec::new();
        for &lpn in picked {
            let p = self.pages.get_mut(&lpn).expect("a dirty page is resident");
            p.dirty_since = None;
            // A page re-dirtied while its last write-back is in flight is
            // written again: it is counted under write-back once.
            if !p.writeback {
                p.writeback = true;
                self.writeback_pages += 1;
            }
            match runs.last_mut() {
                Some(r) if r.first + r.pages == lpn && r.pages < max_pages => r.pages += 1,
                _ => runs.push(Run {
                    first: lpn,
                    pages: 1,
                }),
            }
        }
        self.counters.pages_written_back += picked.len() as u64;
        runs
    }

    /// The write-back bio of `run` has ended: its pages are clean unless
    /// dirtied again meanwhile.
    pub fn writeback_done(&mut self, run: Run) {
        for lpn in run.first..run.first + run.pages {
            let Some(p) = self.pages.get_mut(&lpn) else {
                continue;
            };
            if !p.writeback {
                continue;
            }
            p.writeback = false;
            self.writeback_pages -= 1;
            if p.dirty_since.is_none() {
                self.tick += 1;
                p.tick = self.tick;
                self.lru.push_back((self.tick, lpn));
            }
        }
        self.evict();
    }
}

#[cfg(test)]
mod tests;
