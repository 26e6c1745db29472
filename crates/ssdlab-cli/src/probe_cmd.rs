//! `ssdlab probe --target PATH`: measures a real drive with a fixed plan
//! (`ssdlab_studies::probe`): QD-1 latency by size and operation, bandwidth
//! against queue depth for the four operations, and, when asked, the
//! sustained-write cliff and the random-write steady state. Writes
//! OUT/measurements.json (what `calibrate --measurements` reads) and the
//! report (results.csv, report.md, report.html with figures).

use crate::target_run::{open_target, run_jobs, stop_flag};
use ssdlab_drive::{Target, TargetKind, TargetRequest};
use ssdlab_sim::error::{from_fio, InputError};
use ssdlab_sim::experiment::live_run::LiveSetup;
use ssdlab_sim::host::HostConfig;
use ssdlab_studies::point::PointFigures;
use ssdlab_studies::probe::{self, Measured, Measurements, PlanSettings, TargetInfo};
use std::path::PathBuf;
use std::sync::atomic::Ordering;

/// The region a probe runs over when none is given: the target, up to this.
const DEFAULT_REGION: u64 = 1 << 30;

#[derive(clap::Args)]
pub struct Args {
    /// The file or block device to measure (a file is created and laid out
    /// to --size).
    #[arg(long)]
    target: PathBuf,
    /// The bytes every job runs over, from the target's start (k/m/g
    /// suffixes); default: the whole target, at most 1 GiB. A file that
    /// does not exist is created this large.
    #[arg(long)]
    size: Option<String>,
    /// Seconds per latency and queue-depth case (20 cases).
    #[arg(long, default_value_t = 3)]
    duration: u64,
    /// Seconds of a sustained sequential write at QD 32, where a write cache
    /// runs out (0: skip).
    #[arg(long, default_value_t = 0)]
    sustained: u64,
    /// Seconds of random 4 KiB writes at QD 32 into the drive's GC steady
    /// state (0: skip).
    #[arg(long, default_value_t = 0)]
    steady_state: u64,
    /// Where measurements.json and the report go.
    #[arg(long, default_value = "out/probe")]
    out: PathBuf,
    /// Let the probe write to a block device (its data is lost).
    #[arg(long)]
    allow_destructive: bool,
    /// With --allow-destructive: write to a block device even if it is
    /// mounted or holds a partition table, a file system or swap.
    #[arg(long, requires = "allow_destructive")]
    force: bool,
}

pub fn run(a: Args) -> Result<(), InputError> {
    if a.duration == 0 {
        return Err(InputError::invalid(
            "--duration",
            "must be at least 1 second",
        ));
    }
    let size = a
        .size
        .as_deref()
        .map(|s| {
            ssdlab_fio::parse_size(s)
                .ok()
                .filter(|&n| n >= 1 << 20)
                .ok_or_else(|| {
                    InputError::invalid("--size", format!("'{s}' is not a size of at least 1 MiB"))
                })
        })
        .transpose()?;
    if size.is_none() && !a.target.exists() {
        return Err(InputError::invalid(
            "--target",
            format!(
                "{} does not exist: give --size SIZE to create it",
                a.target.display()
            ),
        ));
    }
    let request = TargetRequest {
        path: a.target.clone(),
        bytes_needed: size,
        writes: true,
        allow_destructive: a.allow_destructive,
        force: a.force,
    };
    let first = open_target(&request)?;
    // Whole MiB, so that every block size of the plan divides the region.
    let region = (size.unwrap_or(DEFAULT_REGION).min(first.bytes) >> 20) << 20;
    if region == 0 {
        return Err(InputError::invalid("--target", "is smaller than 1 MiB"));
    }
    let info = target_info(&first);
    let settings = PlanSettings {
        duration_s: a.duration,
        sustained_s: a.sustained,
        steady_state_s: a.steady_state,
    };
    let setup = LiveSetup {
        host: HostConfig::default(),
        scheduler: "none".into(),
        seed: 1,
    };
    let stop = stop_flag()?;
    let stopped = || stop.load(Ordering::Relaxed);
    // A block device is written once over the region first, as a file is
    // laid out when it is made: reads then meet written blocks.
    let mut target = Some(first);
    if info.kind == "block device" {
        let t = target.take().expect("opened");
        let job = format!(
            "[layout]\nioengine=io_uring\ndirect=1\nrw=write\nbs=1m\niodepth=8\nsize={region}\n"
        );
        run_case_job(&setup, t, &job, &stopped)?;
    }
    let cases = probe::plan(&settings);
    let bar = crate::plumbing::progress_bar("probe cases");
    let mut measured = Vec::new();
    let mut partial = false;
    for (i, case) in cases.iter().enumerate() {
        bar.tick(i, cases.len());
        let t = match target.take() {
            Some(t) => t,
            None => open_target(&TargetRequest {
                bytes_needed: None,
                ..request.clone()
            })?,
        };
        let job = case.job_text(region);
        let (figures, stopped_early) = run_case_job(&setup, t, &job, &stopped)?;
        measured.push(Measured {
            case: case.clone(),
            name: case.name(),
            job,
            figures,
        });
        if stopped_early {
            partial = true;
            break;
        }
    }
    bar.tick(measured.len(), cases.len());
    bar.finish();
    let m = Measurements {
        version: probe::MEASUREMENTS_VERSION,
        target: info,
        region_bytes: region,
        settings,
        cases: measured,
        partial,
    };
    write(&m, &a.out)
}

/// Runs one job file on the target; returns its figures and whether it
/// was stopped early.
fn run_case_job(
    setup: &LiveSetup,
    target: Target,
    job: &str,
    stopped: &dyn Fn() -> bool,
) -> Result<(PointFigures, bool), InputError> {
    let jobfile = ssdlab_fio::parse_str(job, "probe.fio", &|_| None).map_err(from_fio)?;
    let r = run_jobs(
        false,
        setup,
        target,
        &jobfile,
        Vec::new(),
        Vec::new(),
        stopped,
    )?;
    if let Some(f) = &r.failure {
        return Err(InputError::invalid(
            "--target",
            format!("the probe stopped: {f}"),
        ));
    }
    let figures = PointFigures::of_live(&r.stats, r.end_ns, &r.scheduler_gauges);
    Ok((figures, r.partial))
}

fn target_info(t: &Target) -> TargetInfo {
    let (kind, kernel_scheduler) = match &t.kind {
        TargetKind::File { .. } => ("file", None),
        TargetKind::Block { kernel_scheduler } => ("block device", kernel_scheduler.clone()),
    };
    TargetInfo {
        path: t.path.display().to_string(),
        kind: kind.into(),
        bytes: t.bytes,
        logical_block: t.logical_block,
        kernel_scheduler,
    }
}

/// Writes measurements.json (atomically) and the report, and says where.
fn write(m: &Measurements, out: &std::path::Path) -> Result<(), InputError> {
    let io = |e: std::io::Error| InputError::invalid(out.display().to_string(), e.to_string());
    std::fs::create_dir_all(out).map_err(io)?;
    let path = out.join("measurements.json");
    let text = serde_json::to_string_pretty(m)
        .map_err(|e| InputError::invalid("measurements", e.to_string()))?;
    let tmp = path.with_extension(format!("tmp-{}", std::process::id()));
    std::fs::write(&tmp, text + "\n").map_err(io)?;
    std::fs::rename(&tmp, &path).map_err(io)?;
    probe::write_report(m, out)?;
    for c in &m.cases {
        let j = c.figures.job(probe::JOB_NAME);
        println!(
            "{:<26} {:>9.0} IOPS {:>9.1} MB/s {:>9.1} µs mean",
            c.name,
            c.figures.iops,
            c.figures.bw_mbs,
            j.map_or(0.0, |j| j.clat_mean_us)
        );
    }
    if m.partial {
        eprintln!("ssdlab: probe stopped early; the measurements are marked partial");
    }
    println!(
        "  {}\n  {}",
        path.display(),
        out.join("report.html").display()
    );
    Ok(())
}
