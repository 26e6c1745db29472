//! `ssdlab run JOB --target PATH`: the job on a real file or block device,
//! through the same host path and scheduler as in simulation.

use crate::log_files::LogFiles;
use crate::output::{note_detected, warn_if_series_capped, write_report, Outputs};
use serde_json::json;
use ssdlab_drive::{Drive, DriveOptions, Target, TargetKind, TargetRequest, VerifySettings};
use ssdlab_fio::JobFile;
use ssdlab_sim::error::InputError;
use ssdlab_sim::experiment::live_run::{self, LiveSetup};
use ssdlab_sim::experiment::report;
use ssdlab_sim::host::HostConfig;
use ssdlab_sim::workload::fio_job::IoSource;
use ssdlab_sim::workload::fio_log::JobLogs;
use ssdlab_sim::workload::replay_setup::{open_replay_on, ReplayRequest};
use ssdlab_studies::setup::load_host;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// The host, scheduler and seed of a run on a real target (the flags `run`
/// and `replay` share).
pub struct LiveChoices {
    pub host: Option<PathBuf>,
    pub scheduler: String,
    pub seed: u64,
}

#[derive(clap::Args)]
pub struct TargetArgs {
    /// Run on this file or block device instead of a simulated SSD, in real
    /// time through io_uring (docs/real-drive.md). A file is created and
    /// laid out to the jobs' size.
    #[arg(long, conflicts_with_all = ["device", "gc", "occupancy", "precondition"])]
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
    /// Create (or extend) a file target to this size (k/m/g suffixes);
    /// without it a file is laid out to the jobs' size= (a trace replay
    /// needs it, or an existing file).
    #[arg(long, requires = "target")]
    pub target_size: Option<String>,
}

impl TargetArgs {
    /// The request for the target; `bytes_needed` is the jobs' own need.
    fn request(
        &self,
        bytes_needed: Option<u64>,
        writes: bool,
    ) -> Result<TargetRequest, InputError> {
        let size = self
            .target_size
            .as_deref()
            .map(|s| {
                ssdlab_fio::parse_size(s)
                    .ok()
                    .filter(|&n| n > 0)
                    .ok_or_else(|| {
                        InputError::invalid("--target-size", format!("'{s}' is not a size"))
                    })
            })
            .transpose()?;
        let path = self.target.clone().expect("called with a target");
        if size.is_none() && bytes_needed.is_none() && !path.exists() {
            return Err(InputError::invalid(
                "--target",
                format!(
                    "{} does not exist: give --target-size SIZE to create it (or each job a \
                     size= in bytes, as fio needs)",
                    path.display()
                ),
            ));
        }
        Ok(TargetRequest {
            path,
            bytes_needed: match (size, bytes_needed) {
                (Some(a), Some(b)) => Some(a.max(b)),
                (a, b) => a.or(b),
            },
            writes,
            allow_destructive: self.allow_destructive,
            force: self.force,
        })
    }
}

/// Runs `jobfile` on the target and writes the report.
pub fn run(
    a: &TargetArgs,
    sim: &LiveChoices,
    jobfile: &JobFile,
    outputs: Outputs,
) -> Result<(), InputError> {
    // What the engine cannot do is refused before the target is touched.
    live_run::check_live_jobs(jobfile, 512)?;
    let host = load_host(sim.host.as_deref(), Default::default())?;
    host.validate()?;
    buffer_bytes(jobfile, &host, None)?;
    let request = a.request(live_run::bytes_needed(jobfile), live_run::writes(jobfile))?;
    // The logs' directories are checked before the target is touched.
    let logs = LogFiles::open(jobfile)?;
    let target = open_target(&request)?;
    let setup = live_setup(sim, host);
    execute(a, &setup, target, jobfile, Vec::new(), outputs, logs)
}

/// Replays a trace on the target: its offsets fold into the target, aligned
/// to its logical block. A trace may write, so a block device needs
/// `--allow-destructive`.
pub fn replay(
    a: &TargetArgs,
    sim: &LiveChoices,
    request: &ReplayRequest,
    outputs: Outputs,
) -> Result<(), InputError> {
    request.check()?;
    let host = load_host(sim.host.as_deref(), Default::default())?;
    host.validate()?;
    // The trace is opened (and its format found) before the target is
    // created, so that a bad trace leaves nothing behind.
    open_replay_on(request, 1 << 30, 512)?;
    let target = open_target(&a.request(None, true)?)?;
    let align = u64::from(target.logical_block);
    let opened = open_replay_on(request, target.bytes, align)?;
    note_detected(request, &opened);
    let feed: Box<dyn IoSource> = Box::new(opened.feed);
    // A trace's job writes no fio logs.
    let logs = (LogFiles::default(), Vec::new());
    let setup = live_setup(sim, host);
    let jobfile = &opened.jobfile;
    execute(a, &setup, target, jobfile, vec![Some(feed)], outputs, logs)
}

fn live_setup(sim: &LiveChoices, host: HostConfig) -> LiveSetup {
    LiveSetup {
        host,
        scheduler: sim.scheduler.clone(),
        seed: sim.seed,
    }
}

/// The most I/O buffer memory a run may ask for (slots × largest command).
const MAX_BUFFER_BYTES: u64 = 1 << 30;

/// The bytes of one engine buffer: the largest command the jobs can send
/// (a bio is not split, so a job's largest block; a merge reaches the
/// host's largest request), checked against the memory all slots take.
fn buffer_bytes(
    jobfile: &JobFile,
    host: &HostConfig,
    verify: Option<&live_run::LiveVerify>,
) -> Result<u32, InputError> {
    let largest = live_run::largest_block(jobfile)
        .max(u64::from(host.max_request_bytes))
        .max(verify.map_or(0, |v| v.unit));
    let total = largest.saturating_mul(u64::from(live_run::slots_needed(jobfile, host)));
    if total > MAX_BUFFER_BYTES {
        return Err(InputError::invalid(
            "job file",
            format!(
                "the jobs need {total} bytes of I/O buffers (their depth times a block of \
                 {largest} bytes); a run on a target may use at most {MAX_BUFFER_BYTES}"
            ),
        ));
    }
    Ok(largest as u32)
}

pub(crate) fn open_target(request: &TargetRequest) -> Result<Target, InputError> {
    ssdlab_drive::target::open(request).map_err(|e| InputError::invalid("--target", e.to_string()))
}

/// Runs the jobs on the open target and writes the report and the fio log
/// files (`logs`: the files, and each job's writers).
fn execute(
    a: &TargetArgs,
    setup: &LiveSetup,
    target: Target,
    jobfile: &JobFile,
    sources: Vec<Option<Box<dyn IoSource>>>,
    outputs: Outputs,
    logs: (LogFiles, Vec<Option<JobLogs>>),
) -> Result<(), InputError> {
    let (log_files, job_logs) = logs;
    let stop = stop_flag()?;
    let stopped = || stop.load(Ordering::Relaxed);
    // fio's cpus_allowed: this thread submits every job's I/O.
    let cpus = live_run::cpus_allowed(jobfile)?;
    if let Some(cpus) = &cpus {
        ssdlab_drive::affinity::pin_current_thread(cpus)
            .map_err(|e| InputError::invalid("cpus_allowed", e))?;
    }
    let cpu_before = ProcessCpu::now();
    let result = run_jobs(a.poll, setup, target, jobfile, sources, job_logs, &stopped)?;
    let cpu = ProcessCpu::now().since(&cpu_before);
    let mut extras = extras(&result, setup);
    extras["cpus_allowed"] = json!(cpus);
    let ios = result.device.counters().completed;
    extras["cpu"] = json!({
        "user_s": cpu.user_ns as f64 / 1e9,
        "system_s": cpu.system_ns as f64 / 1e9,
        "ns_per_io": (cpu.user_ns + cpu.system_ns).checked_div(ios),
    });
    let mut rep = report::build_live(&result.jobs, &result.stats, jobfile, extras);
    // One thread submits for every job: with one job, its CPU is the job's,
    // as fio reports a job's thread.
    if let [job] = rep.jobs.as_mut_slice() {
        let elapsed = result.end_ns.max(1) as f64;
        job.usr_cpu = 100.0 * cpu.user_ns as f64 / elapsed;
        job.sys_cpu = 100.0 * cpu.system_ns as f64 / elapsed;
    }
    let timeseries = report::timeseries_csv(&result.jobs, &result.stats, &result.scheduler_gauges);
    warn_if_series_capped(&result.stats, &outputs);
    write_report(&rep, &timeseries, outputs)?;
    // A stopped or failed run's logs hold what it did, as its report does.
    log_files.commit(&result.jobs, &result.stats)?;
    exit_if_failed(&result);
    Ok(())
}

/// Runs the jobs on the open target through the host path (fio's verify
/// phase after them, when asked) and returns what they measured; job `i`
/// writes its fio logs through `logs[i]` when it is Some; `stopped` ends
/// the run early (a signal).
pub(crate) fn run_jobs(
    poll: bool,
    setup: &LiveSetup,
    target: Target,
    jobfile: &JobFile,
    sources: Vec<Option<Box<dyn IoSource>>>,
    logs: Vec<Option<JobLogs>>,
    stopped: &dyn Fn() -> bool,
) -> Result<live_run::LiveResult<Drive>, InputError> {
    live_run::check_live_jobs(jobfile, target.logical_block)?;
    let verify = live_run::verify_of(jobfile, target.logical_block)?;
    let settings = verify
        .as_ref()
        .map(|v| {
            VerifySettings::new(&v.method, v.unit as u32, v.fatal).ok_or_else(|| {
                InputError::invalid(
                    "verify",
                    format!("'{}' is not verified on a target", v.method),
                )
            })
        })
        .transpose()?;
    let opts = DriveOptions {
        slots: live_run::slots_needed(jobfile, &setup.host),
        max_command_bytes: buffer_bytes(jobfile, &setup.host, verify.as_ref())?,
        poll,
        verify: settings,
    };
    let drive = Drive::new(target, opts)
        .map_err(|e| InputError::invalid("--target", format!("io_uring set-up: {e}")))?;
    let mut result = live_run::run_live(jobfile, setup, drive, sources, logs, stopped)?;
    // fio's verify phase: once the jobs end, every unit written is read
    // back (not after a stop: the report is partial).
    if verify.as_ref().is_some_and(|v| v.read_back) && !result.partial {
        if let Err(e) = result.device.read_back() {
            result.failure = Some(e);
        }
    }
    Ok(result)
}

/// A failed command or data that failed verification is not a bad input
/// but a bad drive (or path): the report is written, the failures are
/// named with their offsets on stderr, and ssdlab exits with 1, as fio
/// exits non-zero.
fn exit_if_failed(r: &live_run::LiveResult<Drive>) {
    let verify = r.device.verify_counters().filter(|v| v.failures > 0);
    if r.failure.is_none() && verify.is_none() {
        return;
    }
    if let Some(v) = verify {
        for f in &v.first_failures {
            eprintln!("ssdlab: verify: offset {}: {}", f.offset, f.what);
        }
        eprintln!(
            "ssdlab: error: verify: {} of {} units checked failed",
            v.failures, v.units_checked
        );
    }
    if let Some(f) = &r.failure {
        eprintln!("ssdlab: error: the run stopped: {f}");
    }
    std::process::exit(1);
}

/// The CPU time this process has used (Linux's /proc/self/stat, in clock
/// ticks of 1/100 s, the USER_HZ every Linux reports them in).
struct ProcessCpu {
    user_ns: u64,
    system_ns: u64,
}

impl ProcessCpu {
    fn now() -> ProcessCpu {
        let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
        // Fields after the command name (which may hold spaces) in parentheses.
        let rest = stat.rsplit_once(')').map_or("", |(_, r)| r);
        let field = |i: usize| -> u64 {
            rest.split_whitespace()
                .nth(i)
                .and_then(|v| v.parse().ok())
                .unwrap_or(0)
        };
        // utime and stime are fields 14 and 15 of the line, 11 and 12 after ')'.
        ProcessCpu {
            user_ns: field(11) * 10_000_000,
            system_ns: field(12) * 10_000_000,
        }
    }

    fn since(&self, before: &ProcessCpu) -> ProcessCpu {
        ProcessCpu {
            user_ns: self.user_ns.saturating_sub(before.user_ns),
            system_ns: self.system_ns.saturating_sub(before.system_ns),
        }
    }
}

/// A flag that SIGINT and SIGTERM raise: the run stops between events,
/// reaps what is outstanding and reports what it measured, marked partial.
pub(crate) fn stop_flag() -> Result<Arc<AtomicBool>, InputError> {
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
        "failure": r.failure,
        "elapsed_s": (r.end_ns as f64) / 1e9,
        "events": r.events,
        "replay": r.jobs.iter().find_map(|j| j.source_report()),
        "engine_counters": r.device.counters(),
        "verify": r.device.verify_counters(),
        "host_counters": r.host,
        "scheduler_counters": r.scheduler_counters,
    })
}
