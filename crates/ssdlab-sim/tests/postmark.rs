//! The Postmark workload over the page cache: it runs to its end, every
//! dirty page reaches the device, the data-integrity checker agrees, and a
//! run is deterministic.

use ssdlab_sim::experiment::postmark_run::run_postmark;
use ssdlab_sim::host::{HostConfig, PageCacheConfig};
use ssdlab_sim::preset::Preset;
use ssdlab_sim::ssd::device::SimSsd;
use ssdlab_sim::workload::postmark::{PostmarkConfig, PostmarkFile};

fn small() -> PostmarkFile {
    PostmarkFile {
        postmark: PostmarkConfig {
            processes: 2,
            files: 60,
            transactions: 150,
            journal_bytes: 1 << 20,
            ..PostmarkConfig::default()
        },
        page_cache: PageCacheConfig {
            capacity_bytes: 4 << 20,
            ..PageCacheConfig::default()
        },
        seed: None,
    }
}

fn sata_host() -> HostConfig {
    HostConfig {
        hw_queue_depth: 31,
        nr_requests: 128,
        ..HostConfig::default()
    }
}

fn run(sched: &str, seed: u64) -> ssdlab_sim::experiment::postmark_run::PostmarkResult {
    let preset = Preset::load("seed004").unwrap();
    let dev = SimSsd::new(preset.device, seed, true);
    let (result, dev) = run_postmark(dev, &sata_host(), sched, &small(), seed).unwrap();
    dev.check_invariants().expect("maps and data agree");
    result
}

#[test]
fn postmark_runs_to_its_end_and_writes_every_dirty_page_back() {
    let r = run("mq-deadline", 1).report;
    assert_eq!(r.transactions, 300);
    assert!(r.transactions_per_s > 0.0);
    let pc = &r.page_cache;
    assert!(pc.pages_dirtied > 0);
    // Every dirtied page was either written back or dropped by a delete.
    assert!(pc.pages_written_back + pc.dirty_pages_dropped >= pc.pages_dirtied);
    assert!(
        r.sync_write.count >= 2 * 60,
        "each create waits for a commit"
    );
    assert!(r.async_write.count > 0);
    let create = &r.ops.iter().find(|(k, _)| k == "create").unwrap().1;
    assert!(create.mean_us >= r.sync_write.mean_us * 0.5);
}

#[test]
fn postmark_is_deterministic_and_seeded() {
    assert_eq!(run("stb", 3).report, run("stb", 3).report);
    assert_ne!(run("stb", 3).report, run("stb", 4).report);
}

#[test]
fn bad_postmark_files_are_refused_with_every_problem_located() {
    let text = "[postmark]\nfiles = 0\nsize_min = 900\nsize_max = 100\n\n[page_cache]\ndirty_ratio = 150\nwriteback_interval_ns = 1\n";
    let e = PostmarkFile::from_toml(text, "pm.toml", 4096)
        .unwrap_err()
        .to_string();
    for want in [
        "pm.toml:2",
        "postmark.files",
        "inverted",
        "page_cache.dirty_ratio",
        "pm.toml:7",
        "pm.toml:8",
        "below 10 ms",
    ] {
        assert!(e.contains(want), "{want} missing from: {e}");
    }
}

fn run_with(w: &PostmarkFile) -> ssdlab_sim::workload::postmark::PostmarkReport {
    let preset = Preset::load("seed004").unwrap();
    let dev = SimSsd::new(preset.device, 1, false);
    run_postmark(dev, &sata_host(), "noop", w, 1)
        .unwrap()
        .0
        .report
}

/// With the cache far above the data and every page expired at once, only
/// the flusher's wake-ups write back: the pages leave in bursts at its
/// period (here 1 s), and nothing in between but the final sync.
#[test]
fn write_back_arrives_in_bursts_at_the_flusher_period() {
    let mut w = small();
    w.postmark.transactions = 4_000;
    w.postmark.syscall_ns = 400_000;
    w.page_cache = PageCacheConfig {
        capacity_bytes: 1 << 30,
        dirty_expire_ns: 0,
        writeback_interval_ns: 1_000_000_000,
        ..PageCacheConfig::default()
    };
    let r = run_with(&w);
    let bins = &r.writeback_pages_per_100ms;
    assert!(
        r.elapsed_s > 3.0,
        "the run spans several periods: {}",
        r.elapsed_s
    );
    let busy: Vec<usize> = (0..bins.len()).filter(|&i| bins[i] > 0).collect();
    let last = bins.len() - 1;
    for &i in &busy {
        assert!(
            i % 10 <= 1 || i == last,
            "write-back in the 100 ms bin {i}, away from a wake-up: {bins:?}"
        );
    }
    let wakes = busy.iter().filter(|&&i| i % 10 == 0).count();
    assert!(wakes >= 3, "a burst at each wake-up: {bins:?}");
}

/// A small cache whose flusher starts only at the dirty limit (both ratios
/// 20 % of 1 MiB: 51 pages) and files of up to 64 KiB: writers wait at the
/// limit, which the dirty pages never pass by more than one write (and its
/// inode page) per process, as balance_dirty_pages checks after dirtying.
#[test]
fn writers_are_throttled_at_the_dirty_limit() {
    let mut w = small();
    w.postmark.size_max = 64 << 10;
    w.page_cache.capacity_bytes = 1 << 20;
    w.page_cache.dirty_background_ratio = 20;
    let r = run_with(&w);
    let pc = &r.page_cache;
    assert!(pc.throttled_writes > 0, "{pc:?}");
    let limit = 256 * 20 / 100;
    let one_write = (64u64 << 10).div_ceil(4096) + 2;
    assert!(
        pc.peak_dirty_pages <= limit + 2 * one_write,
        "peak {} against a limit of {limit}",
        pc.peak_dirty_pages
    );
    assert!(pc.pages_written_back + pc.dirty_pages_dropped >= pc.pages_dirtied);
}
