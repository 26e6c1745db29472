//! `ssdlab run --target`: the same fio jobs, block layer and scheduler as a
//! simulated run, in front of a live device (a real drive), in real time.
//!
//! The host path's modelled CPU costs are set to zero: on a live run the
//! real CPU pays them, and a modelled cost would only delay requests.
//! What the live engine cannot do is refused before any I/O, naming the
//! job's option: buffered I/O (the engine submits with O_DIRECT), fsync,
//! fdatasync and O_SYNC writes, and CPU affinity.

use super::fio_run::{build_jobs, job_option_error};
use crate::error::InputError;
use crate::host::{BlockLayer, GaugeSeries, HostConfig, HostCosts, HostCounters};
use crate::kernel::{LiveEnd, Simulation};
use crate::workload::fio::FioWorkload;
use crate::workload::fio_job::{FioJob, IoSource};
use crate::workload::fio_log::JobLogs;
use crate::workload::job_stats::JobStats;
use ssdlab_fio::{JobFile, JobSpec};
use ssdlab_protocol::{LiveDevice, Ns};
use std::collections::BTreeMap;

/// What a live run needs besides the job file and the device.
#[derive(Debug, Clone)]
pub struct LiveSetup {
    pub host: HostConfig,
    pub scheduler: String,
    pub seed: u64,
}

/// A finished (or stopped) live run.
pub struct LiveResult<D> {
    pub jobs: Vec<FioJob>,
    pub stats: Vec<JobStats>,
    pub host: HostCounters,
    pub scheduler: String,
    pub scheduler_counters: BTreeMap<String, u64>,
    pub scheduler_gauges: GaugeSeries,
    /// The device's clock at the end.
    pub end_ns: Ns,
    pub events: u64,
    /// Whether the run ended before its jobs did (a signal, a failure).
    pub partial: bool,
    /// The command that failed and ended the run, if one did.
    pub failure: Option<String>,
    pub device: D,
}

/// Checks what the live engine can run, before the device is opened.
pub fn check_live_jobs(jobfile: &JobFile, logical_block: u32) -> Result<(), InputError> {
    if jobfile.jobs.is_empty() {
        return Err(InputError::invalid("job file", "defines no job"));
    }
    jobfile
        .jobs
        .iter()
        .try_for_each(|spec| check_live_job(spec, logical_block))?;
    cpus_allowed(jobfile).map(drop)
}

fn check_live_job(spec: &JobSpec, logical_block: u32) -> Result<(), InputError> {
    let refuse = |key: &str, why: &str| Err(job_option_error(spec, key, why.to_string()));
    if !spec.direct {
        return refuse(
            "direct",
            "a real target is driven with O_DIRECT: set direct=1 (buffered I/O, fio's \
             default, runs in simulation only)",
        );
    }
    if spec.sync_writes {
        return refuse(
            "sync",
            "O_SYNC writes (FUA) are not issued on a real target yet; fsync= and fdatasync= are",
        );
    }
    let lb = u64::from(logical_block);
    if !spec.min_bs().is_multiple_of(lb) {
        let msg = format!(
            "block size {} is not a multiple of the target's logical block ({lb} bytes), \
             which O_DIRECT needs",
            spec.min_bs()
        );
        return Err(job_option_error(spec, "bs", msg));
    }
    Ok(())
}

/// The CPUs the submitting thread is pinned to (fio's `cpus_allowed` or
/// `cpumask`). ssdlab submits every job's I/O from one thread, so the jobs
/// of a run must name one set, or none.
pub fn cpus_allowed(jobfile: &JobFile) -> Result<Option<Vec<u32>>, InputError> {
    let mut sets = jobfile.jobs.iter().map(|j| &j.cpus_allowed);
    let first = sets.next().cloned().flatten();
    if sets.any(|s| *s != first) {
        let spec = jobfile
            .jobs
            .iter()
            .find(|j| j.cpus_allowed != first)
            .unwrap_or(&jobfile.jobs[0]);
        let key = ["cpus_allowed", "cpumask"]
            .into_iter()
            .find(|k| spec.option_lines.iter().any(|(n, _, _)| n == k))
            .unwrap_or("cpus_allowed");
        return Err(job_option_error(
            spec,
            key,
            "on a real target every job must name the same CPUs, or none: ssdlab submits \
             every job's I/O from one thread, pinned to them"
                .to_string(),
        ));
    }
    Ok(first)
}

/// How a live run verifies data (fio's `verify=` family), the same for
/// every job.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LiveVerify {
    /// fio's method name.
    pub method: String,
    /// Bytes each header covers.
    pub unit: u64,
    pub fatal: bool,
    /// Read back every unit written once the jobs end (`do_verify` of a
    /// job that writes).
    pub read_back: bool,
}

/// The jobs' verification, checked: one setting for every job that names
/// one (the engine stamps every write of the run), a unit no smaller than a
/// header and a multiple of the target's logical block.
pub fn verify_of(jobfile: &JobFile, logical_block: u32) -> Result<Option<LiveVerify>, InputError> {
    let mut found: Option<(&JobSpec, LiveVerify)> = None;
    for spec in &jobfile.jobs {
        let Some(method) = &spec.verify else {
            continue;
        };
        let unit = spec.verify_interval.unwrap_or_else(|| spec.min_bs());
        let lb = u64::from(logical_block);
        if unit < 512 || !unit.is_multiple_of(lb) || unit > u64::from(u32::MAX) {
            let key = if spec.verify_interval.is_some() {
                "verify_interval"
            } else {
                "bs"
            };
            let msg = format!(
                "a verify unit of {unit} bytes: it must be at least 512 and a multiple of the \
                 target's logical block ({lb} bytes)"
            );
            return Err(job_option_error(spec, key, msg));
        }
        let v = LiveVerify {
            method: method.clone(),
            unit,
            fatal: spec.verify_fatal,
            read_back: spec.do_verify && (spec.rw.has_write()),
        };
        match &mut found {
            None => found = Some((spec, v)),
            Some((first, f)) => {
                if (f.method.as_str(), f.unit, f.fatal) != (v.method.as_str(), v.unit, v.fatal) {
                    let msg = format!(
                        "differs from job '{}': every job of a run on a target verifies the same \
                         way (verify, verify_interval, verify_fatal)",
                        first.name
                    );
                    return Err(job_option_error(spec, "verify", msg));
                }
                f.read_back |= v.read_back;
            }
        }
    }
    Ok(found.map(|(_, v)| v))
}

/// The bytes the jobs need of a target: the furthest end of a region given
/// in bytes; None when a job takes the whole target (no size, or a share).
pub fn bytes_needed(jobfile: &JobFile) -> Option<u64> {
    jobfile
        .jobs
        .iter()
        .map(|spec| {
            let size = match spec.size? {
                ssdlab_fio::SizeSpec::Bytes(b) => b,
                ssdlab_fio::SizeSpec::Percent(_) => return None,
            };
            let (ssdlab_fio::SizeSpec::Bytes(base), ssdlab_fio::SizeSpec::Bytes(inc)) =
                (spec.offset, spec.offset_increment)
            else {
                return None;
            };
            Some(base + inc * u64::from(spec.clone_index) + size)
        })
        .try_fold(0u64, |acc, end| end.map(|e| acc.max(e)))
}

/// Commands the engine may need at the target at once: each job's depth
/// times the requests its largest block splits into, at most the host's
/// tags (and io_uring's 32768 entries).
pub fn slots_needed(jobfile: &JobFile, host: &HostConfig) -> u16 {
    let max_request = u64::from(host.max_request_bytes);
    let wanted: u64 = jobfile
        .jobs
        .iter()
        .map(|j| u64::from(j.iodepth.max(1)) * largest_bs(j).div_ceil(max_request).max(1))
        .sum();
    let tags = u64::from(host.hw_queues) * u64::from(host.hw_queue_depth);
    wanted.min(tags).clamp(1, 32_768) as u16
}

/// The largest block of any job: the block layer does not split a bio, so
/// a command may be this large.
pub fn largest_block(jobfile: &JobFile) -> u64 {
    jobfile.jobs.iter().map(largest_bs).max().unwrap_or(4096)
}

/// The largest block any active direction of `spec` uses.
fn largest_bs(spec: &JobSpec) -> u64 {
    let dirs = [
        (
            spec.rw.has_read(),
            spec.bs.read,
            &spec.bssplit.read,
            spec.bsrange.read,
        ),
        (
            spec.rw.has_write(),
            spec.bs.write,
            &spec.bssplit.write,
            spec.bsrange.write,
        ),
        (
            spec.rw.has_trim(),
            spec.bs.trim,
            &spec.bssplit.trim,
            spec.bsrange.trim,
        ),
    ];
    dirs.into_iter()
        .filter(|(active, ..)| *active)
        .map(|(_, bs, split, range)| {
            let split_max = split.iter().map(|&(b, _)| b).max();
            split_max.or(range.map(|(_, hi)| hi)).unwrap_or(bs)
        })
        .max()
        .unwrap_or(4096)
}

/// Whether any job writes or trims.
pub fn writes(jobfile: &JobFile) -> bool {
    jobfile
        .jobs
        .iter()
        .any(|j| j.rw.has_write() || j.rw.has_trim())
}

/// Runs the jobs on `device` in real time until they end or `stop` says so;
/// job `i` takes its I/Os from `sources[i]` when it is Some (a trace) and
/// writes its fio logs through `logs[i]` when that is Some.
pub fn run_live<D: LiveDevice>(
    jobfile: &JobFile,
    setup: &LiveSetup,
    device: D,
    sources: Vec<Option<Box<dyn IoSource>>>,
    logs: Vec<Option<JobLogs>>,
    stop: &dyn Fn() -> bool,
) -> Result<LiveResult<D>, InputError> {
    setup.host.validate()?;
    let sched = ssdlab_sched::build(&setup.scheduler)
        .map_err(|e| InputError::invalid("--scheduler", e.to_string()))?;
    let host = HostConfig {
        costs: zero_costs(),
        ..setup.host.clone()
    };
    let block = BlockLayer::new(host.clone(), sched, &device.info()).real_cpu();
    let bytes = block.device_bytes();
    let jobs = build_jobs(jobfile, bytes, setup.seed, &host.costs, sources)?;
    let mut workload = FioWorkload::new(jobs).with_logs(logs);
    let mut sim = Simulation::new(device, Some(block), setup.seed);
    let end = sim
        .run_live(&mut workload, stop)
        .map_err(|e| InputError::invalid("target", e))?;
    if end == LiveEnd::Stalled {
        return Err(InputError::invalid(
            "target",
            "the run stalled: nothing outstanding and nothing scheduled, with jobs unfinished",
        ));
    }
    let end_ns = sim.device().clock();
    let partial = matches!(end, LiveEnd::Stopped | LiveEnd::Failed);
    if partial {
        workload.stop(end_ns);
    }
    let failure = sim.device().failure().map(str::to_string);
    let events = sim.events();
    let (device, block) = sim.into_parts();
    let block = block.expect("a host path");
    let (jobs, stats) = workload.finish();
    Ok(LiveResult {
        jobs,
        stats,
        host: block.counters().clone(),
        scheduler: block.scheduler_name().to_string(),
        scheduler_counters: block.scheduler_counters(),
        scheduler_gauges: block.gauge_series().clone(),
        end_ns,
        events,
        partial,
        failure,
        device,
    })
}

/// No modelled CPU time: the real CPU pays it.
fn zero_costs() -> HostCosts {
    HostCosts {
        submit_ns: 0,
        dispatch_ns: 0,
        complete_ns: 0,
        wakeup_ns: 0,
        async_run_ns: 0,
        idle_exit_ns: 0,
        idle_after_ns: 0,
        page_copy_ns: 0,
    }
}
