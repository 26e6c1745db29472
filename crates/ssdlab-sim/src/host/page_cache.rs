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

use crate::engine::Ns;
use rustc_hash::FxHashMap;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeSet, VecDeque};

const SECOND: Ns = 1_000_000_000;

/// The page cache's knobs, as the kernel's `vm.dirty_*` sysctls.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct PageCacheConfig {
    /// Memory the cache may hold (clean and dirty pages).
    pub capacity_bytes: u64,
    /// Dirty data (percent of the cache) above which the flusher writes
    /// back at once (`vm.dirty_background_ratio`).
    pub dirty_background_ratio: u32,
    /// Dirty plus write-back data (percent of the cache) above which a
    /// writer is throttled (`vm.dirty_ratio`).
    pub dirty_ratio: u32,
    /// Age at which a dirty page is written back (`vm.dirty_expire_centisecs`).
    pub dirty_expire_ns: Ns,
    /// The flusher's period (`vm.dirty_writeback_centisecs`).
    pub writeback_interval_ns: Ns,
    /// Largest write-back bio (a run of contiguous dirty pages).
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
    /// Pages per write-back bio at most.
    run_max_pages: u32,
    pages: FxHashMap<u32, Page>,
    /// Dirty pages in write-back order: first-dirtied time, then page.
    dirty: BTreeSet<(Ns, u32)>,
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
            run_max_pages,
            pages: FxHashMap::default(),
            dirty: BTreeSet::new(),
            writeback_pages: 0,
            lru: VecDeque::new(),
            tick: 0,
            counters: PageCacheCounters::default(),
        }
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
            self.dirty.remove(&(t, lpn));
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

    /// The dirty pages among `lpns` (an fsync's range) go under write-back now.
    pub fn take_range(&mut self, lpns: impl IntoIterator<Item = u32>) -> Vec<Run> {
        let mut picked = Vec::new();
        for lpn in lpns {
            if let Some(since) = self.pages.get(&lpn).and_then(|p| p.dirty_since) {
                self.dirty.remove(&(since, lpn));
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
mod tests {
    use super::*;

    fn cache(pages: u64) -> PageCache {
        let cfg = PageCacheConfig {
            capacity_bytes: pages * 4096,
            ..PageCacheConfig::default()
        };
        PageCache::new(cfg, 4096)
    }

    #[test]
    fn reads_miss_then_hit_and_clean_pages_are_evicted_lru() {
        let mut c = cache(16);
        assert!(!c.read(1));
        c.fill(1);
        assert!(c.read(1));
        for lpn in 100..116 {
            c.fill(lpn);
        }
        // Page 1 was used before 100..116 were filled: it went first.
        assert!(!c.contains(1));
        assert_eq!(c.resident_pages(), 16);
        assert_eq!(c.counters().evictions, 1);
    }

    #[test]
    fn dirty_pages_are_never_evicted() {
        let mut c = cache(16);
        for lpn in 0..4 {
            c.write(lpn, 0);
        }
        for lpn in 100..140 {
            c.fill(lpn);
        }
        assert!((0..4).all(|l| c.contains(l)));
    }

    #[test]
    fn only_expired_pages_leave_below_the_background_threshold() {
        let mut c = cache(1000);
        c.write(5, 0);
        c.write(6, 10 * SECOND);
        assert!(c.take_writeback(29 * SECOND, false).is_empty());
        let runs = c.take_writeback(30 * SECOND, false);
        assert_eq!(runs, vec![Run { first: 5, pages: 1 }]);
        assert_eq!(c.writeback_pages(), 1);
        c.writeback_done(runs[0]);
        assert_eq!(c.writeback_pages(), 0);
        assert_eq!(c.dirty_pages(), 1);
    }

    #[test]
    fn above_background_the_flusher_writes_down_to_it_in_dirty_order() {
        let mut c = cache(1000); // background 100 pages, limit 200
        for lpn in 0..150 {
            c.write(lpn, lpn as Ns);
        }
        assert!(c.over_background());
        let runs = c.take_writeback(1000, false);
        let pages: u32 = runs.iter().map(|r| r.pages).sum();
        assert_eq!(pages, 50);
        assert_eq!(runs[0].first, 0, "oldest first");
        assert!(!c.over_background());
    }

    #[test]
    fn the_dirty_limit_counts_write_back_and_clears_when_it_ends() {
        let mut c = cache(100); // limit 20 pages
        for lpn in 0..21 {
            c.write(lpn, 0);
        }
        assert!(c.over_dirty_limit());
        let runs = c.take_writeback(0, true);
        assert!(c.over_dirty_limit(), "pages under write-back still count");
        for r in runs {
            c.writeback_done(r);
        }
        assert!(!c.over_dirty_limit());
    }

    #[test]
    fn runs_are_contiguous_and_bounded() {
        let cfg = PageCacheConfig {
            capacity_bytes: 4096 * 1000,
            writeback_max_bytes: 4 * 4096,
            ..PageCacheConfig::default()
        };
        let mut c = PageCache::new(cfg, 4096);
        for lpn in (0..6).chain(10..12) {
            c.write(lpn, 0);
        }
        let runs = c.take_writeback(0, true);
        let expect = [(0, 4), (4, 2), (10, 2)].map(|(first, pages)| Run { first, pages });
        assert_eq!(runs, expect);
    }

    #[test]
    fn a_dropped_dirty_page_never_reaches_the_device_and_redirtying_rewrites() {
        let mut c = cache(1000);
        c.write(1, 0);
        c.write(2, 0);
        c.drop_page(1);
        let runs = c.take_writeback(0, true);
        assert_eq!(runs, vec![Run { first: 2, pages: 1 }]);
        c.write(2, 5); // dirtied again during write-back
        c.writeback_done(runs[0]);
        assert!(c.is_unsafe(2));
        assert_eq!(c.take_range([2]), vec![Run { first: 2, pages: 1 }]);
        assert_eq!(c.counters().dirty_pages_dropped, 1);
    }

    #[test]
    fn bad_settings_are_named() {
        let cfg = PageCacheConfig {
            dirty_ratio: 150,
            dirty_background_ratio: 0,
            capacity_bytes: 0,
            ..PageCacheConfig::default()
        };
        let keys: Vec<_> = cfg.problems(4096).into_iter().map(|(k, _)| k).collect();
        assert_eq!(
            keys,
            ["capacity_bytes", "dirty_ratio", "dirty_background_ratio"]
        );
    }
}
