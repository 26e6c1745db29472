//! `ssdlab run`: fio jobs → host block layer + scheduler → simulated SSD, one
//! deterministic event loop, fio's statistics out.

use crate::error::InputError;
use crate::host::{BlockLayer, CpuPlan, GaugeSeries, HostConfig, HostCosts, HostCounters};
use crate::kernel::Simulation;
use crate::ssd::config::SsdConfig;
use crate::ssd::device::{DeviceCounters, HostWaits, SimSsd};
use crate::ssd::ftl::FtlCounters;
use crate::ssd::precondition::{precondition, PreconditionMode, PreconditionReport};
use crate::workload::buffered::BufferedCounters;
use crate::workload::fio::FioWorkload;
use crate::workload::fio_job::{FioJob, IoSource};
use crate::workload::fio_log::JobLogs;
use crate::workload::job_stats::JobStats;
use ssdlab_fio::{JobFile, JobSpec};
use ssdlab_protocol::Device;
use ssdlab_protocol::Ns;
use std::collections::BTreeMap;

/// Everything a run needs besides the job file.
#[derive(Debug, Clone)]
pub struct RunSetup {
    pub device: SsdConfig,
    pub host: HostConfig,
    pub scheduler: String,
    /// Share of the logical space holding data before the run, in [0, 1].
    pub occupancy: f64,
    /// How that data is laid down before the run.
    pub precondition: PreconditionMode,
    pub seed: u64,
    /// Turn the device's invariant checker on (slow; tests).
    pub check: bool,
}

/// A finished run: per-job statistics and the device's counters.
pub struct RunResult {
    pub jobs: Vec<FioJob>,
    pub stats: Vec<JobStats>,
    pub precondition: PreconditionReport,
    pub device: DeviceCounters,
    pub ftl: FtlCounters,
    pub host: HostCounters,
    /// What the page cache did, when a job was buffered (`direct=0`).
    pub page_cache: Option<BufferedCounters>,
    pub scheduler: String,
    /// The scheduler's own counters (bundles, expiries…); empty for most.
    pub scheduler_counters: BTreeMap<String, u64>,
    /// The scheduler's gauges (an adaptive bound…) once per second.
    pub scheduler_gauges: GaugeSeries,
    pub sim_end_ns: Ns,
    pub events: u64,
    /// Where host pages waited at the flash array (`PreparedRun::account_waits`).
    pub host_waits: Option<HostWaits>,
}

/// A run with its device preconditioned and its jobs built, ready to go.
pub struct PreparedRun {
    sim: Simulation<SimSsd>,
    workload: FioWorkload,
    pre: PreconditionReport,
}

/// Runs a parsed job file. `progress` is called with the fraction of the
/// planned simulated time done (for a progress bar).
pub fn run(
    jobfile: &JobFile,
    setup: &RunSetup,
    progress: Option<&mut dyn FnMut(f64)>,
) -> Result<RunResult, InputError> {
    prepare(jobfile, setup)?.execute(progress)
}

/// Validates the setup, preconditions the device and builds the jobs.
pub fn prepare(jobfile: &JobFile, setup: &RunSetup) -> Result<PreparedRun, InputError> {
    prepare_with_sources(jobfile, setup, Vec::new())
}

/// As `prepare`, with the I/Os of job `i` taken from `sources[i]` when it
/// is Some (a trace replay) instead of fio's generator.
pub fn prepare_with_sources(
    jobfile: &JobFile,
    setup: &RunSetup,
    sources: Vec<Option<Box<dyn IoSource>>>,
) -> Result<PreparedRun, InputError> {
    setup.host.validate()?;
    let sched = ssdlab_sched::build(&setup.scheduler)
        .map_err(|e| InputError::invalid("--scheduler", e.to_string()))?;
    check_device(jobfile, &setup.device)?;
    let mut dev = SimSsd::new(setup.device.clone(), setup.seed, setup.check);
    let mut block = BlockLayer::new(setup.host.clone(), sched, &dev.info());
    // The jobs are checked against the device (sizes, regions) before the
    // preconditioning, which can take minutes, so that a bad job file fails
    // at once.
    let bytes = block.device_bytes();
    let mut jobs = build_jobs(jobfile, bytes, setup.seed, &setup.host.costs, sources)?;
    place_on_cpus(&mut jobs, &mut block);
    let recipe = setup.precondition.recipe(setup.occupancy);
    let pre = precondition(&mut dev, &recipe, setup.seed)?;
    let workload = FioWorkload::new(jobs).with_page_cache(&setup.host, block.device_bytes());
    let sim = Simulation::new(dev, Some(block), setup.seed);
    Ok(PreparedRun { sim, workload, pre })
}

impl PreparedRun {
    /// Accounts where host pages wait at the flash array during the run
    /// (`RunResult::host_waits`); preconditioning is not counted.
    pub fn account_waits(mut self) -> Self {
        self.sim.device_mut().account_waits();
        self
    }

    /// Writes job `i`'s fio log files through `logs[i]` when it is Some.
    pub fn with_logs(mut self, logs: Vec<Option<JobLogs>>) -> Self {
        self.workload = self.workload.with_logs(logs);
        self
    }

    /// Runs the jobs to their end. `progress` gets the fraction of the planned
    /// simulated time done.
    pub fn execute(self, progress: Option<&mut dyn FnMut(f64)>) -> Result<RunResult, InputError> {
        let PreparedRun {
            mut sim,
            mut workload,
            pre,
        } = self;
        run_with_progress(&mut sim, &mut workload, progress);
        if sim.past_time_limit() {
            return Err(InputError::invalid(
                "job file",
                "the run goes past 100 years of simulated time, the longest ssdlab \
                 simulates (a thinktime, rate, start delay or trace time too long for the \
                 number of I/Os); shorten it or bound the run with runtime= or io_size=",
            ));
        }
        if let Some(e) = workload.jobs().iter().find_map(|j| j.source_error()) {
            return Err(InputError::invalid("trace", e));
        }
        // With the checker on (--check), every flash read was verified as it
        // ran; the maps and valid counts are checked once more at the end.
        let dev = sim.device();
        if dev.is_checked() {
            if let Err(e) = dev.check_invariants() {
                return Err(InputError::invalid(
                    "device",
                    format!("invariant or data-integrity check failed: {e}"),
                ));
            }
        }
        let (end, events) = (sim.now(), sim.events());
        let stats = dev.stats();
        let block = sim.host().expect("a host path");
        let (scheduler, scheduler_counters) = (
            block.scheduler_name().to_string(),
            block.scheduler_counters(),
        );
        let host = block.counters().clone();
        let scheduler_gauges = block.gauge_series().clone();
        let page_cache = workload.page_cache_counters();
        let (jobs, stats_by_job) = workload.finish();
        Ok(RunResult {
            precondition: pre,
            device: stats.device,
            ftl: stats.ftl,
            host,
            page_cache,
            scheduler,
            scheduler_counters,
            scheduler_gauges,
            sim_end_ns: end,
            events,
            host_waits: dev.host_waits(),
            stats: stats_by_job,
            jobs,
        })
    }
}

/// Runs the jobs, reporting the fraction of the planned simulated time done
/// about 200 times over the run.
fn run_with_progress(
    sim: &mut Simulation<SimSsd>,
    workload: &mut FioWorkload,
    progress: Option<&mut dyn FnMut(f64)>,
) {
    let t0 = sim.now();
    let horizon = workload.planned_end(t0);
    let Some(p) = progress else {
        return sim.run(workload, None);
    };
    let mut next_report = t0;
    let mut step = |now: Ns, _: &SimSsd| {
        if now >= next_report && horizon > t0 {
            p(((now - t0) as f64 / (horizon - t0) as f64).min(1.0));
            next_report = now + (horizon - t0) / 200;
        }
    };
    sim.run(workload, Some(&mut step));
}

/// What a job file needs of a device: a job, and page mapping.
fn check_device(jobfile: &JobFile, device: &SsdConfig) -> Result<(), InputError> {
    if jobfile.jobs.is_empty() {
        return Err(InputError::invalid("job file", "defines no job"));
    }
    if let Some(spec) = jobfile.jobs.iter().find(|j| j.verify.is_some()) {
        let msg = "verify= checks written data, which a simulated drive does not carry: \
                   run the job on a real target (run --target)";
        return Err(job_option_error(spec, "verify", msg.into()));
    }
    if device.ftl.mapping == crate::ssd::config::Mapping::Hybrid {
        return Err(InputError::invalid(
            "ftl.mapping",
            format!(
                "device '{}' uses the hybrid (FAST) mapping, which runs under `ssdlab postmark` \
                 and `reproduce stb`; fio jobs and traces run on page mapping (set ftl.mapping=page)",
                device.name
            ),
        ));
    }
    Ok(())
}

/// The checks `prepare` makes of a job file against a device before any
/// simulation (page mapping; each job's block size and region against the
/// device's capacity), for callers that check many points before running
/// any (a sweep).
pub fn check_jobs(jobfile: &JobFile, device: &SsdConfig) -> Result<(), InputError> {
    check_device(jobfile, device)?;
    let bytes = device.layout().capacity_bytes();
    jobfile
        .jobs
        .iter()
        .try_for_each(|spec| check_job_region(spec, bytes))
}

/// A job's block size and region fit a device of `bytes` bytes.
fn check_job_region(spec: &JobSpec, bytes: u64) -> Result<(), InputError> {
    let (_, len) = spec.region(bytes);
    if spec.min_bs() > bytes {
        return Err(job_option_error(
            spec,
            "bs",
            format!(
                "block size {} is larger than the device ({bytes} bytes)",
                spec.min_bs()
            ),
        ));
    }
    if len < spec.min_bs() {
        // Name the option that shrank the region, else the block size.
        let key = ["size", "offset", "bs"]
            .into_iter()
            .find(|k| spec.option_lines.iter().any(|(n, _, _)| n == k))
            .unwrap_or("bs");
        return Err(job_option_error(
            spec,
            key,
            format!(
                "its region (offset/size) holds {len} bytes of the device's {bytes}, less than one block of {}",
                spec.min_bs()
            ),
        ));
    }
    Ok(())
}

/// An error at the line of the job's option `key`, named `job 'NAME': key`.
pub(super) fn job_option_error(spec: &JobSpec, key: &str, message: String) -> InputError {
    let (file, line) = spec.line_of(key);
    InputError::At {
        file: file.to_string(),
        line,
        field: format!("job '{}': {key}", spec.name),
        message,
    }
}

/// Puts each job on its CPU (fio's affinity options) and each hardware
/// queue on the CPU that serves it.
fn place_on_cpus(jobs: &mut [FioJob], block: &mut BlockLayer) {
    let pins: Vec<Option<u32>> = jobs.iter().map(|j| j.spec.pinned_cpu(j.index)).collect();
    let plan = CpuPlan::new(&pins, block.config().hw_queues);
    for (job, cpu) in jobs.iter_mut().zip(&plan.job_cpus) {
        job.run_on(cpu.clone());
    }
    block.use_cpus(&plan);
}

/// The jobs of a job file on a device of `bytes` bytes; job `i` takes its
/// I/Os from `sources[i]` when it is Some.
pub(super) fn build_jobs(
    jobfile: &JobFile,
    bytes: u64,
    seed: u64,
    costs: &HostCosts,
    mut sources: Vec<Option<Box<dyn IoSource>>>,
) -> Result<Vec<FioJob>, InputError> {
    sources.resize_with(jobfile.jobs.len(), || None);
    jobfile
        .jobs
        .iter()
        .zip(sources)
        .enumerate()
        .map(|(i, (spec, source))| {
            if let Some(source) = source {
                let seed = seed ^ (i as u64 + 1);
                return Ok(FioJob::with_source(
                    i as u32,
                    spec.clone(),
                    source,
                    None,
                    seed,
                    costs,
                ));
            }
            check_job_region(spec, bytes)?;
            FioJob::new(i as u32, spec.clone(), bytes, seed, costs).map_err(|m| InputError::At {
                file: spec.file.clone(),
                line: spec.line,
                field: format!("job '{}'", spec.name),
                message: m,
            })
        })
        .collect()
}
