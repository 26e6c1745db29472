//! fio's buffered path (`direct=0`) through the host page cache: write-back
//! at the flusher's period, writers throttled at the dirty limit, readahead,
//! fsync and O_SYNC waiting for their data and the FLUSH, and nothing dirty
//! lost at the end of a run (the device's data-integrity checker on).

use ssdlab_fio::JobFile;
use ssdlab_metrics::JobReport;
use ssdlab_sim::experiment::fio_run::{self, RunResult, RunSetup};
use ssdlab_sim::experiment::report;
use ssdlab_sim::host::{HostConfig, PageCacheConfig};
use ssdlab_sim::preset::Preset;
use ssdlab_sim::ssd::precondition::PreconditionMode;
use ssdlab_sim::workload::buffered::BufferedCounters;

const MS: u64 = 1_000_000;

fn setup(host: HostConfig) -> RunSetup {
    RunSetup {
        device: Preset::load_device("seed004").expect("preset loads"),
        host,
        scheduler: "mq-deadline".into(),
        occupancy: 0.0,
        precondition: PreconditionMode::Auto,
        seed: 3,
        check: true,
    }
}

fn small_cache(capacity_bytes: u64) -> HostConfig {
    HostConfig {
        page_cache: PageCacheConfig {
            capacity_bytes,
            ..PageCacheConfig::default()
        },
        ..HostConfig::default()
    }
}

fn parse(text: &str) -> JobFile {
    ssdlab_fio::parse_str(text, "test.fio", &|_| None).expect("job file parses")
}

fn run(text: &str, s: &RunSetup) -> (RunResult, Vec<JobReport>) {
    let jf = parse(text);
    let r = fio_run::run(&jf, s, None).expect("run succeeds");
    let jobs = report::build(&r, &jf, s).jobs;
    (r, jobs)
}

fn cache(r: &RunResult) -> &BufferedCounters {
    r.page_cache
        .as_ref()
        .expect("a buffered run has a page cache")
}

#[test]
fn direct_jobs_have_no_page_cache_and_buffered_ones_do() {
    let s = setup(HostConfig::default());
    let direct = "[w]\ndirect=1\nrw=randwrite\nsize=1m\n";
    assert!(run(direct, &s).0.page_cache.is_none());
    let (r, _) = run("[w]\nrw=randwrite\nsize=1m\n", &s);
    assert_eq!(cache(&r).cache.pages_dirtied, 256);
}

#[test]
fn nothing_dirty_is_lost_and_the_checker_reads_it_all_back() {
    // 8 MiB of random buffered writes, never synced by the job: all reach
    // the device by the end of the run.
    let (r, _) = run(
        "[w]\nrw=randwrite\nbs=4k\nsize=8m\n",
        &setup(HostConfig::default()),
    );
    assert_eq!(r.ftl.host_pages_written, 2048);
    // Then a direct read of the region: direct I/O writes back the dirty
    // pages of its range first (block/fops.c), so every page is read from
    // flash with its latest version (the checker verifies each read).
    let text = "[w]\nrw=randwrite\nbs=4k\nsize=8m\n\
                [r]\nstonewall\ndirect=1\nrw=read\nbs=4k\nsize=8m\n";
    let (r, jobs) = run(text, &setup(HostConfig::default()));
    let c = cache(&r);
    assert_eq!(c.cache.pages_dirtied, 2048);
    assert_eq!(c.cache.pages_written_back, 2048);
    assert_eq!(r.ftl.host_pages_written, 2048);
    assert_eq!(jobs[1].read.total_ios, 2048);
    assert_eq!(r.device.flash_reads, 2048, "every page reached flash");
    // The buffered writes ended at memory speed, long before write-back.
    assert!(jobs[0].write.lat.stat.max < 100_000);
}

#[test]
fn writers_are_throttled_at_the_dirty_limit() {
    // A 4 MiB cache: the dirty limit is 20 % of it, 204 pages.
    let s = setup(small_cache(4 << 20));
    let (r, jobs) = run("[w]\nrw=randwrite\nbs=4k\nsize=16m\nio_size=32m\n", &s);
    let c = cache(&r);
    assert!(c.cache.throttled_writes > 1000, "{c:?}");
    assert!(c.cache.peak_dirty_pages <= 205, "{c:?}");
    // Throttled, the writer goes at the device's pace, not memory's.
    let unthrottled = run(
        "[w]\nrw=randwrite\nbs=4k\nsize=16m\nio_size=32m\n",
        &setup(HostConfig::default()),
    );
    let bw = |j: &JobReport| j.write.io_bytes as f64 / j.write.runtime_ns as f64;
    assert!(bw(&jobs[0]) * 3.0 < bw(&unthrottled.1[0]));
}

#[test]
fn write_back_leaves_at_the_flusher_period_once_pages_expire() {
    // 50 ms expiry, 100 ms period, 1 MiB/s of writes for 1 s: under the
    // background threshold, pages leave only when the flusher wakes, about
    // ten times, each time in one run of neighbouring pages.
    let mut host = HostConfig::default();
    host.page_cache.dirty_expire_ns = 50 * MS;
    host.page_cache.writeback_interval_ns = 100 * MS;
    let s = setup(host);
    let (r, _) = run(
        "[w]\nrw=write\nbs=4k\nsize=16m\nrate=1m\ntime_based\nruntime=1s\n",
        &s,
    );
    let c = cache(&r);
    assert_eq!(c.sync_writeback_bios, 0);
    assert!((9..=11).contains(&c.writeback_wakeups), "{c:?}");
    assert!(c.writeback_bios <= 2 * c.writeback_wakeups, "{c:?}");
}

#[test]
fn sequential_buffered_reads_read_ahead_and_random_ones_do_not() {
    let s = setup_with_data();
    let direct = run("[r]\ndirect=1\nrw=read\nbs=4k\nsize=4m\n", &s).1;
    let (r, buffered) = run("[r]\nrw=read\nbs=4k\nsize=4m\n", &s);
    assert!(cache(&r).readahead_pages > 900);
    assert!(cache(&r).cache.read_misses < 64, "{:?}", cache(&r));
    let iops = |j: &JobReport| j.read.total_ios as f64 / j.read.runtime_ns as f64;
    assert!(iops(&buffered[0]) > 4.0 * iops(&direct[0]));
    // A random read next to the previous one reads ahead, as in Linux.
    let (r, _) = run("[r]\nrw=randread\nbs=4k\nsize=4m\nio_size=1m\n", &s);
    assert!(cache(&r).readahead_pages < 256 / 20, "{:?}", cache(&r));
}

fn setup_with_data() -> RunSetup {
    RunSetup {
        occupancy: 0.5,
        ..setup(HostConfig::default())
    }
}

#[test]
fn fsync_waits_for_its_data_and_the_flush() {
    let s = setup_with_data();
    let text = "[w]\nrw=randwrite\nbs=4k\nsize=4m\nnumber_ios=200\nfsync=1\n";
    let (r, jobs) = run(text, &s);
    let c = cache(&r);
    // fio leaves its loop after the last write, before that write's fsync.
    assert_eq!(jobs[0].sync.stat.samples, 199);
    assert_eq!(c.flushes, 199);
    assert_eq!(c.sync_writeback_bios, 199);
    // Each fsync took at least a device write: compare a direct QD1 write.
    let direct = run(
        "[w]\ndirect=1\nrw=randwrite\nbs=4k\nsize=4m\nnumber_ios=200\n",
        &s,
    )
    .1;
    assert!(jobs[0].sync.stat.min as f64 >= 0.9 * direct[0].write.clat.stat.min as f64);
    // The writes themselves were copies into the cache.
    assert!(jobs[0].write.clat.stat.max < 20_000);
    // fdatasync on a block device is the same; end_fsync adds one at the end.
    let text = "[w]\nrw=randwrite\nbs=4k\nsize=4m\nnumber_ios=200\nfdatasync=50\nend_fsync=1\n";
    let (_, jobs) = run(text, &s);
    assert_eq!(jobs[0].sync.stat.samples, 3 + 1);
}

#[test]
fn a_direct_fsync_is_an_empty_flush_and_o_sync_writes_go_through() {
    let s = setup_with_data();
    let (r, jobs) = run(
        "[w]\ndirect=1\nrw=randwrite\nbs=4k\nsize=4m\nnumber_ios=100\nfsync=10\n",
        &s,
    );
    assert!(r.page_cache.is_none());
    assert_eq!(jobs[0].sync.stat.samples, 9);
    assert!(jobs[0].sync.stat.max < 50_000, "nothing to write back");
    let (r, jobs) = run(
        "[w]\nrw=randwrite\nbs=4k\nsize=4m\nnumber_ios=100\nsync=1\n",
        &s,
    );
    let c = cache(&r);
    assert_eq!((c.flushes, c.sync_writeback_bios), (100, 100));
    assert_eq!(c.writeback_bios, 0, "nothing was left for the flusher");
    assert!(
        jobs[0].write.clat.stat.min > 20_000,
        "each write waited for the device"
    );
}

#[test]
fn a_buffered_run_is_deterministic() {
    let text = "[a]\nrw=randrw\nbs=4k\nsize=8m\nio_size=16m\nfsync=64\n\
                [b]\nrw=read\nbs=16k\nsize=8m\noffset=8m\n";
    let s = setup(small_cache(8 << 20));
    let one = serde_json::to_string(&run(text, &s).1).unwrap();
    let two = serde_json::to_string(&run(text, &s).1).unwrap();
    assert_eq!(one, two);
}

#[test]
fn bad_page_cache_settings_are_refused_with_their_key() {
    let text = "[page_cache]\ndirty_ratio = 150\n";
    let e = HostConfig::from_toml(text, "host.toml")
        .unwrap_err()
        .to_string();
    assert!(e.contains("host.toml") && e.contains("dirty_ratio"), "{e}");
    let e = HostConfig::from_toml("read_ahead_kb = 100000\n", "h.toml")
        .unwrap_err()
        .to_string();
    assert!(e.contains("read_ahead_kb"), "{e}");
}
