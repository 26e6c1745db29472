//! The page cache's unit tests.
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
fn one_file_writes_back_in_index_order_from_its_cursor() {
    let mut c = cache(1000).one_file(); // background 100 pages
    for (i, lpn) in [7u32, 3, 5, 4, 6].into_iter().enumerate() {
        c.write(lpn, i as Ns);
    }
    // Nothing expired, under the background threshold: nothing leaves.
    assert!(c.take_writeback(SECOND, false).is_empty());
    // Expired: the whole file, in index order, in one run.
    let runs = c.take_writeback(31 * SECOND, false);
    assert_eq!(runs, vec![Run { first: 3, pages: 5 }]);
    for r in runs {
        c.writeback_done(r);
    }
    // Over the background threshold: the excess, from the cursor on.
    for lpn in (0..110).rev() {
        c.write(lpn, 40 * SECOND);
    }
    let runs = c.take_writeback(40 * SECOND, false);
    assert_eq!(runs[0].first, 8, "after the last page written back");
    let pages: u32 = runs.iter().map(|r| r.pages).sum();
    assert_eq!(pages, 110, "at least a 4 MiB chunk, here all dirty pages");
    assert_eq!(runs.last().map(|r| r.first + r.pages), Some(8), "wrapped");
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
