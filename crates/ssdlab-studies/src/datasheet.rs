//! `validate datasheet`: a preset run as a user would run a new drive
//! against its vendor's data sheet (128 KiB sequential and 4 KiB random fio
//! jobs at QD 32, on a fresh or half-full drive), printed beside the
//! vendor's figures.
//!
//! The data sheet of the drive `consumer-tlc-250g` stands for: Samsung
//! 970 EVO Plus 250 GB (MZ-V7S250), data sheet rev. 1.0 (2019): sequential
//! read 3,500 MB/s; sequential write 2,300 MB/s inside TurboWrite and
//! 400 MB/s after it; TurboWrite buffer 13 GB at most (4 GB static plus up
//! to 9 GB "intelligent"); random read 250 K IOPS and random write 550 K IOPS
//! at QD 32 × 4 threads.

use rayon::prelude::*;
use serde::Serialize;
use ssdlab_sim::error::InputError;
use ssdlab_sim::experiment::fio_run::{self, RunResult, RunSetup};
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

/// One data-sheet figure: its label, unit, vendor value and what to read
/// from the run.
struct Measure {
    figure: &'static str,
    unit: &'static str,
    vendor: f64,
    measure: fn(&RunResult) -> f64,
}

/// A run of the data sheet: a job on a drive this full, and the figures
/// read from it.
struct DatasheetRun {
    name: &'static str,
    job: String,
    occupancy: f64,
    measures: Vec<Measure>,
}

/// The test file the read and random-write runs work on, GiB: written
/// sequentially just before (as CrystalDiskMark and IOmeter prepare
/// theirs), so it sits where a fresh drive puts new data.
const TEST_FILE_GIB: u32 = 2;

/// What every data-sheet job file shares: libaio, direct I/O, QD 32.
const GLOBAL: &str = "[global]\nioengine=libaio\ndirect=1\niodepth=32\n\n";

/// The measured job: `numjobs` threads on one `size` region for `seconds`.
fn section(name: &str, rw: &str, bs: &str, numjobs: u32, seconds: u64, size: &str) -> String {
    format!(
        "[{name}]\nrw={rw}\nbs={bs}\nnumjobs={numjobs}\nsize={size}\ntime_based=1\nruntime={seconds}\n"
    )
}

/// A data-sheet job file of the measured job alone.
fn job(name: &str, rw: &str, bs: &str, numjobs: u32, seconds: u64, size: &str) -> String {
    format!("{GLOBAL}{}", section(name, rw, bs, numjobs, seconds, size))
}

/// The measured job on the test file, after a sequential write of it (the
/// `prep` job, not measured).
fn on_test_file(name: &str, rw: &str, bs: &str, numjobs: u32, seconds: u64) -> String {
    let size = format!("{TEST_FILE_GIB}g");
    let measured = section(name, rw, bs, numjobs, seconds, &size);
    format!("{GLOBAL}[prep]\nrw=write\nbs=128k\nsize={size}\n\n{measured}stonewall\n")
}

/// The measured jobs' reports (the test file's preparation left out).
fn measured(r: &RunResult) -> impl Iterator<Item = &ssdlab_metrics::stats::JobReport> {
    r.stats
        .iter()
        .map(|s| &s.report)
        .filter(|rep| rep.jobname != "prep")
}

fn mb_per_s(r: &RunResult) -> f64 {
    measured(r)
        .map(|rep| (rep.read.bw_bytes() + rep.write.bw_bytes()) as f64 / 1e6)
        .sum()
}

fn iops(r: &RunResult) -> f64 {
    measured(r)
        .map(|rep| rep.read.iops() + rep.write.iops())
        .sum()
}

/// Bytes written per simulated second, all jobs.
fn per_second_bytes(r: &RunResult) -> Vec<u64> {
    let mut out: Vec<u64> = Vec::new();
    for sampler in r.stats.iter().flat_map(|s| &s.samplers) {
        for (sec, bytes, _) in sampler.per_second_series() {
            let i = sec as usize;
            if out.len() <= i {
                out.resize(i + 1, 0);
            }
            out[i] += bytes;
        }
    }
    out
}

/// The sustained write's speed after the buffer: the mean of its last
/// five seconds, MB/s.
fn after_buffer_mbs(r: &RunResult) -> f64 {
    let s = per_second_bytes(r);
    let tail = &s[s.len().saturating_sub(6)..s.len().saturating_sub(1)];
    tail.iter().sum::<u64>() as f64 / tail.len().max(1) as f64 / 1e6
}

/// The buffer's size as the writes see it: bytes written before the
/// per-second bandwidth first falls below the midpoint of the first
/// second's and the last five seconds', GB.
fn buffer_gb(r: &RunResult) -> f64 {
    let s = per_second_bytes(r);
    let (Some(&first), after) = (s.first(), after_buffer_mbs(r) * 1e6) else {
        return 0.0;
    };
    let mid = (first as f64 + after) / 2.0;
    let fall = s.iter().position(|&b| (b as f64) < mid).unwrap_or(s.len());
    s[..fall].iter().sum::<u64>() as f64 / 1e9
}

fn one(
    figure: &'static str,
    unit: &'static str,
    vendor: f64,
    measure: fn(&RunResult) -> f64,
) -> Vec<Measure> {
    vec![Measure {
        figure,
        unit,
        vendor,
        measure,
    }]
}

fn runs() -> Vec<DatasheetRun> {
    vec![
        DatasheetRun {
            name: "seqread",
            job: on_test_file("seqread", "read", "128k", 1, 2),
            occupancy: 0.0,
            measures: one(
                "sequential read, 128 KiB, QD 32 (2 GiB test file)",
                "MB/s",
                3500.0,
                mb_per_s,
            ),
        },
        DatasheetRun {
            name: "seqwrite",
            job: job("seqwrite", "write", "128k", 1, 1, "100%"),
            occupancy: 0.0,
            measures: one(
                "sequential write, 128 KiB, QD 32, inside TurboWrite (fresh drive)",
                "MB/s",
                2300.0,
                mb_per_s,
            ),
        },
        DatasheetRun {
            name: "sustained",
            job: job("sustained", "write", "128k", 1, SUSTAINED_SECONDS, "100%"),
            occupancy: 0.0,
            measures: vec![
                Measure {
                    figure: "sequential write after TurboWrite is used up (fresh drive)",
                    unit: "MB/s",
                    vendor: 400.0,
                    measure: after_buffer_mbs,
                },
                Measure {
                    figure: "TurboWrite buffer, as the sustained write sees it (fresh drive)",
                    unit: "GB",
                    vendor: 13.0,
                    measure: buffer_gb,
                },
            ],
        },
        DatasheetRun {
            name: "randread",
            job: on_test_file("randread", "randread", "4k", 4, 2),
            occupancy: 0.0,
            measures: one(
                "random read, 4 KiB, QD 32 × 4 jobs (2 GiB test file)",
                "IOPS",
                250_000.0,
                iops,
            ),
        },
        DatasheetRun {
            name: "randwrite",
            job: on_test_file("randwrite", "randwrite", "4k", 4, 2),
            occupancy: 0.0,
            measures: one(
                "random write, 4 KiB, QD 32 × 4 jobs (2 GiB test file)",
                "IOPS",
                550_000.0,
                iops,
            ),
        },
    ]
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
    let mut runs = runs();
    // The longest first, so that the others fill the second thread.
    runs.sort_by_key(|r| r.name != "sustained");
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads.max(1))
        .build()
        .map_err(|e| InputError::invalid("--jobs", e.to_string()))?;
    pool.install(|| {
        runs.par_iter()
            .with_max_len(1)
            .map(|f| {
                let jobfile = ssdlab_fio::parse_str(&f.job, f.name, &|_| None)
                    .map_err(|e| InputError::invalid(f.name, e.to_string()))?;
                let setup = RunSetup {
                    device: preset.device.clone(),
                    host: preset.host.clone(),
                    scheduler: "none".into(),
                    occupancy: f.occupancy,
                    precondition: PreconditionMode::Fill,
                    seed,
                    check: false,
                };
                let res = fio_run::run(&jobfile, &setup, None)?;
                Ok(f.measures
                    .iter()
                    .map(|m| {
                        let simulated = (m.measure)(&res);
                        let ratio = simulated / m.vendor;
                        Row {
                            figure: m.figure,
                            unit: m.unit,
                            vendor: m.vendor,
                            simulated,
                            ratio,
                            within: (ratio - 1.0).abs() <= TOLERANCE,
                        }
                    })
                    .collect::<Vec<Row>>())
            })
            .collect::<Result<Vec<Vec<Row>>, InputError>>()
    })
    .map(|groups| {
        let mut rows: Vec<Row> = groups.into_iter().flatten().collect();
        // The data sheet's order, whatever order the runs finished in.
        let order: Vec<&str> = runs_order();
        rows.sort_by_key(|r| order.iter().position(|f| *f == r.figure));
        rows
    })
}

/// The figures in the data sheet's order.
fn runs_order() -> Vec<&'static str> {
    runs()
        .iter()
        .flat_map(|r| r.measures.iter().map(|m| m.figure))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn job_texts_parse() {
        for r in runs() {
            ssdlab_fio::parse_str(&r.job, r.name, &|_| None).unwrap();
        }
    }

    #[test]
    fn an_unknown_drive_is_refused() {
        let e = run("seed004", 1, 1).unwrap_err().to_string();
        assert!(e.contains("no data sheet"), "{e}");
    }
}
