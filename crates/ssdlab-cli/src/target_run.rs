//! `ssdlab run JOB --target PATH`: the job on a real file or block device,
//! through the same host path and scheduler as in simulation.

use crate::run_cmd::{write_report, Outputs, SimArgs};
use serde_json::json;
use ssdlab_drive::{Drive, DriveOptions, TargetKind, TargetRequest};
use ssdlab_fio::JobFile;
use ssdlab_sim::error::InputError;
use ssdlab_sim::experiment::live_run::{self, LiveSetup};
use ssdlab_sim::experiment::report;
use ssdlab_studies::setup::load_host;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

#[derive(clap::Args)]
pub struct TargetArgs {
    /// Run on this file or block device instead of a simulated SSD, in real
    /// time through io_uring (docs/real-drive.md). A file is created and
    /// laid out to the jobs' size.
    #[arg(long, conflicts_with_all = ["device", "gc", "occupancy", "precondition", "check"])]
    pub target: Option<PathBuf>,
    /// Let jobs write to a block device target (its data is lost).
    #[arg(long, requires = "target")]
    pub allow_destructive: bool,
    /// With --allow-destructive: write to a block device even if it is
    /// mounted or holds a partition table, a file system or swap.
    #[arg(long, requires = "allow_destructive")]
    pub force: bool,
    /// Poll for completions (IORING_SETUP_IOPOLL; NVMe with poll queues).
    #[arg(long, requires = "target")]
    pub poll: bool,
}

/// Runs `jobfile` on the target and writes the report.
pub fn run(
    a: &TargetArgs,
    sim: &SimArgs,
    jobfile: &JobFile,
    outputs: Outputs,
) -> Result<(), InputError> {
    let path = a.target.clone().expect("called with a target");
    // What the engine cannot do is refused before the target is touched.
    live_run::check_live_jobs(jobfile, 512)?;
    let host = load_host(sim.host.as_deref(), Default::default())?;
    host.validate()?;
    let request = TargetRequest {
        path,
        bytes_needed: live_run::bytes_needed(jobfile),
        writes: live_run::writes(jobfile),
        allow_destructive: a.allow_destructive,
        force: a.force,
    };
    let target = ssdlab_drive::target::open(&request)
        .map_err(|e| InputError::invalid("--target", e.to_string()))?;
    live_run::check_live_jobs(jobfile, target.logical_block)?;
    let opts = DriveOptions {
        slots: live_run::slots_needed(jobfile, &host),
        max_command_bytes: host.max_request_bytes,
        poll: a.poll,
    };
    let drive = Drive::new(target, opts)
        .map_err(|e| InputError::invalid("--target", format!("io_uring set-up: {e}")))?;
    let setup = LiveSetup {
        host,
        scheduler: sim.scheduler.clone(),
        seed: sim.seed,
    };
    let stop = stop_flag()?;
    let result = live_run::run_live(jobfile, &setup, drive, &|| stop.load(Ordering::Relaxed))?;
    let extras = extras(&result, &setup);
    let rep = report::build_live(&result.jobs, &result.stats, jobfile, extras);
    let timeseries = report::timeseries_csv(&result.jobs, &result.stats);
    write_report(&rep, &timeseries, outputs)
}

/// A flag that SIGINT and SIGTERM raise: the run stops between events,
/// reaps what is outstanding and reports what it measured, marked partial.
fn stop_flag() -> Result<Arc<AtomicBool>, InputError> {
    let flag = Arc::new(AtomicBool::new(false));
    for sig in [signal_hook::consts::SIGINT, signal_hook::consts::SIGTERM] {
        signal_hook::flag::register(sig, Arc::clone(&flag))
            .map_err(|e| InputError::invalid("signals", e.to_string()))?;
    }
    Ok(flag)
}

/// ssdlab's section of a live run's report: the target, the engine's
/// counters and the host path's.
fn extras(r: &live_run::LiveResult<Drive>, setup: &LiveSetup) -> serde_json::Value {
    let target = r.device.target();
    let (kind, laid_out) = match &target.kind {
        TargetKind::File { laid_out } => ("file", Some(*laid_out)),
        TargetKind::Block { .. } => ("block device", None),
    };
    json!({
        "target": target.path.display().to_string(),
        "target_kind": kind,
        "target_bytes": target.bytes,
        "logical_block": target.logical_block,
        "laid_out_bytes": laid_out,
        "kernel_scheduler": r.device.kernel_scheduler(),
        "scheduler": setup.scheduler,
        "seed": setup.seed,
        "partial": r.partial,
        "elapsed_s": (r.end_ns as f64) / 1e9,
        "events": r.events,
        "engine_counters": r.device.counters(),
        "host_counters": r.host,
        "scheduler_counters": r.scheduler_counters,
    })
}
