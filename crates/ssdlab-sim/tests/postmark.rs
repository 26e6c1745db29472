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
    let text = "[postmark]\nfiles = 0\nsize_min = 900\nsize_max = 100\n\n[page_cache]\ndirty_ratio = 150\n";
    let e = PostmarkFile::from_toml(text, "pm.toml", 4096)
        .unwrap_err()
        .to_string();
    for want in [
        "pm.toml:2",
        "postmark.files",
        "inverted",
        "page_cache.dirty_ratio",
        "pm.toml:7",
    ] {
        assert!(e.contains(want), "{want} missing from: {e}");
    }
}
