//! `validate datasheet`: a preset run as a user would run a new drive
//! against its vendor's data sheet (128 KiB sequential and 4 KiB random fio
//! jobs at QD 32 and QD 1, on a fresh drive), printed beside the vendor's
//! figures.
//!
//! The data sheet of the drive `consumer-tlc-250g` stands for: Samsung
//! 970 EVO Plus 250 GB (MZ-V7S250), data sheet rev. 1.0 (2019): sequential
//! read 3,500 MB/s; sequential write 2,300 MB/s inside TurboWrite and
//! 400 MB/s after it; TurboWrite buffer 13 GB at most (4 GB static plus up
//! to 9 GB "intelligent"); random read 250 K IOPS and random write 550 K IOPS
//! at QD 32 × 4 threads, 17 K and 60 K IOPS at QD 1 × 1 thread; and, in its
//! footnote 4, random writes beyond the TurboWrite buffer at 100 K IOPS
//! (QD 32 × 4 threads). The vendor measured with IOmeter 1.1.0 on an
//! i7-7700K under Windows 10; the data sheet does not give the span of the
//! random writes beyond the buffer, so that run writes the whole drive (an
//! IOmeter target's default: the whole raw disk).

use crate::calibrate::Metric;
use crate::point::{PointFigures, PointSpec};
use rayon::prelude::*;
use serde::Serialize;
use ssdlab_sim::error::InputError;
use ssdlab_sim::experiment::fio_run::RunSetup;
use ssdlab_sim::preset::Preset;
use ssdlab_sim::ssd::device::precondition::PreconditionMode;

/// One data-sheet figure and what the preset gives.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Row {
    pub figure: &'static str,
    pub unit: &'static str,
    pub vendor: f64,
    pub simulated: f64,
    /// simulated / vendor.
    pub ratio: f64,
    /// Within the tolerance (`TOLERANCE`).
    pub within: bool,
}

/// How far a figure may be from the data sheet: ±25 %.
pub const TOLERANCE: f64 = 0.25;

/// The drives with a data sheet.
pub const KNOWN: [&str; 1] = ["consumer-tlc-250g"];

/// Simulated seconds of the sustained sequential write (enough to write
/// past a 13 GB buffer at the post-buffer speed).
const SUSTAINED_SECONDS: u64 = 40;

/// One data-sheet figure: the run it is read from, its label and unit, the
/// vendor's value, and the metric (of the named job's, or of all jobs)
/// that measures it — the same metric a `calibrate` target names.
#[derive(Debug, Clone, Copy)]
pub struct Figure {
    pub run: &'static str,
    pub figure: &'static str,
    pub unit: &'static str,
    pub vendor: f64,
    pub metric: Metric,
    pub job_name: Option<&'static str>,
}

/// The test file the read and random-write runs work on, GiB: written
/// sequentially just before (as CrystalDiskMark and IOmeter prepare
/// theirs), so it sits where a fresh drive puts new data.
const TEST_FILE_GIB: u32 = 2;

/// What every data-sheet job file shares: libaio, direct I/O, QD 32 (the
/// measured job sets its own depth).
const GLOBAL: &str = "[global]\nioengine=libaio\ndirect=1\niodepth=32\n\n";

/// Simulated seconds of the sustained random write: past a 13 GB buffer
/// at 4 KiB and QD 32 × 4, then long enough to measure the speed after it.
const SUSTAINED_RANDOM_SECONDS: u64 = 30;

/// Where a run's measured job works.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Span {
    /// The whole drive, from empty.
    WholeDrive,
    /// The test file, written just before by the `prep` job.
    TestFile,
}

/// One data-sheet run: its measured job, `numjobs` threads of `iodepth`
/// for `seconds` over its span.
#[derive(Debug)]
struct Run {
    name: &'static str,
    rw: &'static str,
    bs: &'static str,
    numjobs: u32,
    iodepth: u32,
    seconds: u64,
    span: Span,
}

const fn run_of(
    name: &'static str,
    rw: &'static str,
    bs: &'static str,
    (numjobs, iodepth, seconds): (u32, u32, u64),
    span: Span,
) -> Run {
    Run {
        name,
        rw,
        bs,
        numjobs,
        iodepth,
        seconds,
        span,
    }
}

/// Every run of the data sheet (`calibrate`'s `datasheet:<run>` jobs).
const RUN_TABLE: [Run; 8] = [
    run_of("seqread", "read", "128k", (1, 32, 2), Span::TestFile),
    run_of("seqwrite", "write", "128k", (1, 32, 1), Span::WholeDrive),
    run_of(
        "sustained",
        "write",
        "128k",
        (1, 32, SUSTAINED_SECONDS),
        Span::WholeDrive,
    ),
    run_of("randread", "randread", "4k", (4, 32, 2), Span::TestFile),
    run_of("randwrite", "randwrite", "4k", (4, 32, 2), Span::TestFile),
    run_of("qd1read", "randread", "4k", (1, 1, 2), Span::TestFile),
    run_of("qd1write", "randwrite", "4k", (1, 1, 2), Span::TestFile),
    run_of(
        "sustained-random",
        "randwrite",
        "4k",
        (4, 32, SUSTAINED_RANDOM_SECONDS),
        Span::WholeDrive,
    ),
];

/// The names of the data sheet's runs, in the table's order.
pub fn runs() -> impl Iterator<Item = &'static str> {
    RUN_TABLE.iter().map(|r| r.name)
}

impl Run {
    fn named(name: &str) -> Option<&'static Run> {
        RUN_TABLE.iter().find(|r| r.name == name)
    }

    fn section(&self, size: &str) -> String {
        let Run {
            name,
            rw,
            bs,
            numjobs,
            iodepth,
            seconds,
            ..
        } = self;
        format!(
            "[{name}]\nrw={rw}\nbs={bs}\nnumjobs={numjobs}\niodepth={iodepth}\nsize={size}\n\
             time_based=1\nruntime={seconds}\n"
        )
    }

    /// The run's job file; on the test file, after a sequential write of
    /// it (the `prep` job, not measured).
    fn job_text(&self) -> String {
        match self.span {
            Span::WholeDrive => format!("{GLOBAL}{}", self.section("100%")),
            Span::TestFile => {
                let size = format!("{TEST_FILE_GIB}g");
                let measured = self.section(&size);
                format!("{GLOBAL}[prep]\nrw=write\nbs=128k\nsize={size}\n\n{measured}stonewall\n")
            }
        }
    }
}

/// The job file of a data-sheet run, run on a fresh drive (occupancy 0,
/// written in order) under `none` and the preset's own host.
pub fn job_text(run: &str) -> Option<String> {
    Run::named(run).map(Run::job_text)
}

/// The data-sheet runs that `calibrate` fits by default: all but the
/// random write beyond the buffer, whose span the data sheet does not
/// give (a check of the model, not a target to bend keys towards;
/// docs/calibration.md, "Three more data-sheet rows").
pub fn is_fit_target(run: &str) -> bool {
    run != "sustained-random"
}

/// The data sheet's figures, in its order. The measured job's own
/// bandwidth or IOPS leaves the test file's preparation out.
pub fn figures() -> Vec<Figure> {
    let f = |run, figure, unit, vendor, metric, job_name| Figure {
        run,
        figure,
        unit,
        vendor,
        metric,
        job_name,
    };
    vec![
        f(
            "seqread",
            "sequential read, 128 KiB, QD 32 (2 GiB test file)",
            "MB/s",
            3500.0,
            Metric::BwMbs,
            Some("seqread"),
        ),
        f(
            "seqwrite",
            "sequential write, 128 KiB, QD 32, inside TurboWrite (fresh drive)",
            "MB/s",
            2300.0,
            Metric::BwMbs,
            Some("seqwrite"),
        ),
        f(
            "sustained",
            "sequential write after TurboWrite is used up (fresh drive)",
            "MB/s",
            400.0,
            Metric::AfterCacheMbs,
            None,
        ),
        f(
            "sustained",
            "TurboWrite buffer, as the sustained write sees it (fresh drive)",
            "GB",
            13.0,
            Metric::CacheGb,
            None,
        ),
        f(
            "randread",
            "random read, 4 KiB, QD 32 × 4 jobs (2 GiB test file)",
            "IOPS",
            250_000.0,
            Metric::Iops,
            Some("randread"),
        ),
        f(
            "randwrite",
            "random write, 4 KiB, QD 32 × 4 jobs (2 GiB test file)",
            "IOPS",
            550_000.0,
            Metric::Iops,
            Some("randwrite"),
        ),
        f(
            "qd1read",
            "random read, 4 KiB, QD 1 × 1 job (2 GiB test file)",
            "IOPS",
            17_000.0,
            Metric::Iops,
            Some("qd1read"),
        ),
        f(
            "qd1write",
            "random write, 4 KiB, QD 1 × 1 job (2 GiB test file)",
            "IOPS",
            60_000.0,
            Metric::Iops,
            Some("qd1write"),
        ),
        f(
            "sustained-random",
            "random write after TurboWrite, 4 KiB, QD 32 × 4 jobs (whole drive)",
            "IOPS",
            100_000.0,
            Metric::AfterCacheIops,
            None,
        ),
    ]
}

/// One field of a run's per-second figures, every second from 0 (seconds
/// without I/O as 0).
fn dense(per_second: &[(u64, u64, u64)], field: fn(&(u64, u64, u64)) -> u64) -> Vec<u64> {
    let mut out: Vec<u64> = Vec::new();
    for row in per_second {
        let i = row.0 as usize;
        if out.len() <= i {
            out.resize(i + 1, 0);
        }
        out[i] += field(row);
    }
    out
}

/// A run's bytes per simulated second.
fn dense_bytes(per_second: &[(u64, u64, u64)]) -> Vec<u64> {
    dense(per_second, |&(_, bytes, _)| bytes)
}

/// The mean per second of a dense series over its last five seconds
/// before the last (which may be cut short).
fn last_five_mean(s: &[u64]) -> f64 {
    let tail = &s[s.len().saturating_sub(6)..s.len().saturating_sub(1)];
    tail.iter().sum::<u64>() as f64 / tail.len().max(1) as f64
}

/// A sustained write's speed after its cache, MB/s.
pub fn after_cache_mbs(per_second: &[(u64, u64, u64)]) -> f64 {
    last_five_mean(&dense_bytes(per_second)) / 1e6
}

/// A sustained write's IOPS after its cache.
pub fn after_cache_iops(per_second: &[(u64, u64, u64)]) -> f64 {
    last_five_mean(&dense(per_second, |&(_, _, ios)| ios))
}

/// A write cache's size as a sustained write sees it: the bytes written
/// before the per-second bandwidth first falls below the midpoint of the
/// first second's and the after-cache speed, GB.
pub fn cache_gb(per_second: &[(u64, u64, u64)]) -> f64 {
    let s = dense_bytes(per_second);
    let (Some(&first), after) = (s.first(), after_cache_mbs(per_second) * 1e6) else {
        return 0.0;
    };
    let mid = (first as f64 + after) / 2.0;
    let fall = s.iter().position(|&b| (b as f64) < mid).unwrap_or(s.len());
    s[..fall].iter().sum::<u64>() as f64 / 1e9
}

/// Every data-sheet run is on a fresh drive (nothing written, then the
/// run's own preparation), under `none`, on the preset's own host.
pub const SCHEDULER: &str = "none";
pub const OCCUPANCY: f64 = 0.0;
pub const PRECONDITION: PreconditionMode = PreconditionMode::Fill;

/// How a data-sheet run is set up on `preset`.
fn setup(preset: &Preset, seed: u64) -> RunSetup {
    RunSetup {
        device: preset.device.clone(),
        host: preset.host.clone(),
        scheduler: SCHEDULER.into(),
        occupancy: OCCUPANCY,
        precondition: PRECONDITION,
        seed,
        check: false,
    }
}

/// Runs the data-sheet jobs on `preset` (under `none`, the preset's own
/// host) on `threads` threads and returns the table.
pub fn run(preset_name: &str, seed: u64, threads: usize) -> Result<Vec<Row>, InputError> {
    let preset = Preset::load(preset_name)?;
    // A preset file may stand for a known drive under its own `name`.
    if !KNOWN.contains(&preset.device.name.as_str()) {
        return Err(InputError::invalid(
            "PRESET",
            format!(
                "no data sheet is known for '{}' (known: {})",
                preset.device.name,
                KNOWN.join(", ")
            ),
        ));
    }
    let mut runs: Vec<&Run> = RUN_TABLE.iter().collect();
    // The longest first, so that the others fill the other threads.
    runs.sort_by_key(|r| std::cmp::Reverse(r.seconds));
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads.max(1))
        .build()
        .map_err(|e| InputError::invalid("--jobs", e.to_string()))?;
    let figures_of_runs: Vec<(&str, PointFigures)> = pool.install(|| {
        runs.par_iter()
            .with_max_len(1)
            .map(|run| {
                let spec = PointSpec {
                    job_name: run.name.into(),
                    job_text: run.job_text(),
                    setup: setup(&preset, seed),
                };
                Ok((run.name, spec.run()?))
            })
            .collect::<Result<_, InputError>>()
    })?;
    // The data sheet's order, whatever order the runs finished in.
    Ok(figures()
        .iter()
        .map(|f| {
            let run = &figures_of_runs
                .iter()
                .find(|(n, _)| *n == f.run)
                .expect("run")
                .1;
            let simulated = f.metric.read(run, f.job_name).unwrap_or(0.0);
            let ratio = simulated / f.vendor;
            Row {
                figure: f.figure,
                unit: f.unit,
                vendor: f.vendor,
                simulated,
                ratio,
                within: (ratio - 1.0).abs() <= TOLERANCE,
            }
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn job_texts_parse() {
        for r in runs() {
            ssdlab_fio::parse_str(&job_text(r).unwrap(), r, &|_| None).unwrap();
        }
        assert!(figures().iter().all(|f| runs().any(|r| r == f.run)));
        let mut names: Vec<_> = runs().collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), RUN_TABLE.len(), "run names are unique");
        assert!(job_text("trim").is_none());
    }

    #[test]
    fn after_the_cache_is_the_mean_of_the_last_five_whole_seconds() {
        // (second, bytes, ios): a cache for two seconds, then 4 KiB writes
        // at 100 and 200 a second; the last second is cut short.
        let mut series = vec![(0, 8_000_000, 2000), (1, 8_000_000, 2000)];
        series.extend((2..9).map(|s| (s, 4096 * (100 + 100 * (s % 2)), 100 + 100 * (s % 2))));
        series.push((9, 4096, 1));
        // Seconds 4–8: 100, 200, 100, 200, 100 I/Os.
        assert_eq!(after_cache_iops(&series), 140.0);
        assert_eq!(after_cache_mbs(&series), 140.0 * 4096.0 / 1e6);
    }

    #[test]
    fn an_unknown_drive_is_refused() {
        let e = run("seed004", 1, 1).unwrap_err().to_string();
        assert!(e.contains("no data sheet"), "{e}");
    }
}
