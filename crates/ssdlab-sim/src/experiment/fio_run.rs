//! `ssdlab run`: fio jobs → host block layer + scheduler → simulated SSD, one
//! deterministic event loop, fio's statistics out.

use super::stats::JobStats;
use crate::engine::{EventQueue, Ns};
use crate::error::InputError;
use crate::host::{BlockLayer, HostConfig, HostCounters, HostEvent};
use crate::sched;
use crate::ssd::config::SsdConfig;
use crate::ssd::device::{DevEvent, DeviceCounters, SimSsd};
use crate::ssd::ftl::FtlCounters;
use crate::ssd::precondition::{precondition, Pattern, Precondition, PreconditionReport};
use crate::workload::fio_job::{FioJob, IoSource, JobAction, JobState};
use ssdlab_fio::JobFile;
use std::collections::BTreeMap;

/// Every event of a run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SimEvent {
    Dev(DevEvent),
    Host(HostEvent),
    /// A job may issue again (thinktime or rate limit over).
    JobWake(u32),
    /// A job's next paid-for bio enters the block layer.
    JobSubmit(u32),
    /// A job sees its next ended bio.
    JobComplete(u32),
}

impl From<DevEvent> for SimEvent {
    fn from(e: DevEvent) -> Self {
        SimEvent::Dev(e)
    }
}

impl From<HostEvent> for SimEvent {
    fn from(e: HostEvent) -> Self {
        SimEvent::Host(e)
    }
}

/// Everything a run needs besides the job file.
#[derive(Debug, Clone)]
pub struct RunSetup {
    pub device: SsdConfig,
    pub host: HostConfig,
    pub scheduler: String,
    /// Share of the logical space holding data before the run, in [0, 1].
    pub occupancy: f64,
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
    pub scheduler: String,
    /// The scheduler's own counters (bundles, expiries…); empty for most.
    pub scheduler_counters: BTreeMap<String, u64>,
    pub sim_end_ns: Ns,
    pub events: u64,
}

struct Run {
    dev: SimSsd,
    block: BlockLayer,
    jobs: Vec<FioJob>,
    stats: Vec<JobStats>,
    q: EventQueue<SimEvent>,
    actions: Vec<JobAction>,
    /// Each job's execution phase: a stonewall job waits for every job
    /// before it (new_group only starts a new reporting group).
    phases: Vec<u32>,
    groups: Vec<u32>,
    current_group: usize,
}

fn phases_of(jobs: &[FioJob]) -> Vec<u32> {
    let mut phase = 0;
    jobs.iter()
        .enumerate()
        .map(|(i, j)| {
            if j.spec.stonewall && i > 0 {
                phase += 1;
            }
            phase
        })
        .collect()
}

/// A run with its device preconditioned and its jobs built, ready to go.
pub struct PreparedRun {
    r: Run,
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
    let sched = sched::build(&setup.scheduler)
        .map_err(|e| InputError::invalid("--scheduler", e.to_string()))?;
    if jobfile.jobs.is_empty() {
        return Err(InputError::invalid("job file", "defines no job"));
    }
    let mut dev = SimSsd::new(setup.device.clone(), setup.seed, setup.check);
    let recipe = Precondition {
        occupancy: setup.occupancy,
        overwrites: 0.0,
        pattern: Pattern::Uniform,
        steady_state: setup.occupancy >= 1.0,
    };
    let pre = precondition(&mut dev, &recipe, setup.seed)?;
    let block = BlockLayer::new(setup.host.clone(), sched, &dev);
    let jobs = build_jobs(jobfile, &block, setup, sources)?;
    let stats = jobs.iter().map(|j| JobStats::new(&j.spec)).collect();
    let phases = phases_of(&jobs);
    let mut groups = phases.clone();
    groups.dedup();
    let q = EventQueue::starting_at(dev.now());
    let r = Run {
        dev,
        block,
        jobs,
        stats,
        q,
        actions: Vec::new(),
        phases,
        groups,
        current_group: 0,
    };
    Ok(PreparedRun { r, pre })
}

impl PreparedRun {
    /// Runs the jobs to their end. `progress` gets the fraction of the planned
    /// simulated time done.
    pub fn execute(self, progress: Option<&mut dyn FnMut(f64)>) -> Result<RunResult, InputError> {
        let PreparedRun { mut r, pre } = self;
        let events = r.run_loop(progress);
        if let Some(e) = r.jobs.iter().find_map(|j| j.source_error()) {
            return Err(InputError::invalid("trace", e));
        }
        // With the checker on (--check), every flash read was verified as it
        // ran; the maps and valid counts are checked once more at the end.
        let checked = if r.dev.ftl.integrity.is_some() {
            r.dev.check_invariants()
        } else {
            Ok(())
        };
        if let Err(e) = checked {
            return Err(InputError::invalid(
                "device",
                format!("invariant or data-integrity check failed: {e}"),
            ));
        }
        let end = r.q.now();
        let sched_name = r.block.scheduler_name().to_string();
        for (job, st) in r.jobs.iter().zip(r.stats.iter_mut()) {
            st.finish(job.ramp_end_ns, job.end_time);
        }
        Ok(RunResult {
            precondition: pre,
            device: r.dev.counters.clone(),
            ftl: r.dev.ftl.counters.clone(),
            host: r.block.counters.clone(),
            scheduler: sched_name,
            scheduler_counters: r.block.scheduler_counters(),
            sim_end_ns: end,
            events,
            stats: r.stats,
            jobs: r.jobs,
        })
    }
}

fn build_jobs(
    jobfile: &JobFile,
    block: &BlockLayer,
    setup: &RunSetup,
    mut sources: Vec<Option<Box<dyn IoSource>>>,
) -> Result<Vec<FioJob>, InputError> {
    let bytes = block.device_bytes();
    sources.resize_with(jobfile.jobs.len(), || None);
    jobfile
        .jobs
        .iter()
        .zip(sources)
        .enumerate()
        .map(|(i, (spec, source))| {
            if let Some(source) = source {
                let seed = setup.seed ^ (i as u64 + 1);
                return Ok(FioJob::with_source(i as u32, spec.clone(), source, None, seed, &setup.host.costs));
            }
            let (_, len) = spec.region(bytes);
            if spec.min_bs() > bytes {
                return Err(InputError::At {
                    file: spec.file.clone(),
                    line: spec.line,
                    field: format!("job '{}': bs", spec.name),
                    message: format!(
                        "block size {} is larger than the device ({bytes} bytes)",
                        spec.min_bs()
                    ),
                });
            }
            if len < spec.min_bs() {
                return Err(InputError::At {
                    file: spec.file.clone(),
                    line: spec.line,
                    field: format!("job '{}'", spec.name),
                    message: format!(
                        "its region (offset/size) holds {len} bytes of the device's {bytes}, less than one block of {}",
                        spec.min_bs()
                    ),
                });
            }
            FioJob::new(i as u32, spec.clone(), bytes, setup.seed, &setup.host.costs).map_err(|m| {
                InputError::At {
                    file: spec.file.clone(),
                    line: spec.line,
                    field: format!("job '{}'", spec.name),
                    message: m,
                }
            })
        })
        .collect()
}

impl Run {
    fn run_loop(&mut self, mut progress: Option<&mut dyn FnMut(f64)>) -> u64 {
        let t0 = self.q.now();
        self.start_group(t0);
        let horizon = self.planned_end(t0);
        let mut events = 0u64;
        let mut next_report = t0;
        while let Some((now, ev)) = self.q.pop() {
            events += 1;
            self.dispatch(ev, now);
            if self.all_done() {
                break;
            }
            if let Some(p) = progress.as_mut() {
                if now >= next_report && horizon > t0 {
                    p(((now - t0) as f64 / (horizon - t0) as f64).min(1.0));
                    next_report = now + (horizon - t0) / 200;
                }
            }
        }
        events
    }

    /// Simulated end if every time-based job runs its full time (progress).
    fn planned_end(&self, t0: Ns) -> Ns {
        let per_group = |g: u32| {
            self.jobs
                .iter()
                .zip(&self.phases)
                .filter(|(_, &p)| p == g)
                .map(|(j, _)| j.spec.startdelay_ns + j.spec.ramp_time_ns + j.spec.runtime_ns)
                .max()
                .unwrap_or(0)
        };
        t0 + self.groups.iter().map(|&g| per_group(g)).sum::<Ns>()
    }

    fn dispatch(&mut self, ev: SimEvent, now: Ns) {
        match ev {
            SimEvent::Dev(e) => {
                self.dev.handle(e, now, &mut self.q);
                // Indexing keeps the completions' buffer (no allocation).
                for i in 0..self.dev.completions.len() {
                    let c = self.dev.completions[i];
                    self.block.device_completed(c, &mut self.q);
                }
                self.dev.completions.clear();
            }
            SimEvent::Host(e) => {
                self.block.handle(e, now, &mut self.dev, &mut self.q);
                self.deliver_done();
                self.unblock_jobs(now);
            }
            SimEvent::JobWake(j) => self.job_issue(j, now),
            SimEvent::JobSubmit(j) => {
                let bio = self.jobs[j as usize]
                    .to_submit
                    .pop_front()
                    .expect("a paid-for bio");
                if !self.block.submit_bio(bio, now, &mut self.q) {
                    self.jobs[j as usize].blocked = true;
                }
            }
            SimEvent::JobComplete(j) => self.job_complete(j, now),
        }
    }

    fn deliver_done(&mut self) {
        // Drained and put back, so the buffer keeps its capacity.
        let mut done = std::mem::take(&mut self.block.done);
        for d in done.drain(..) {
            let j = d.bio.job;
            let at = self.jobs[j as usize].completion_seen_at(d.time);
            self.jobs[j as usize].to_complete.push_back(d);
            self.q.push(at, SimEvent::JobComplete(j));
        }
        self.block.done = done;
    }

    fn unblock_jobs(&mut self, now: Ns) {
        for j in 0..self.jobs.len() {
            if self.jobs[j].blocked && !self.block.waiting_for_tag(j as u32) {
                self.jobs[j].blocked = false;
                self.job_issue(j as u32, now);
            }
        }
    }

    fn job_issue(&mut self, j: u32, now: Ns) {
        self.jobs[j as usize].try_issue(now, &mut self.actions);
        self.apply_actions(j);
        self.after_job_change(j, now);
    }

    fn job_complete(&mut self, j: u32, now: Ns) {
        let done = self.jobs[j as usize]
            .to_complete
            .pop_front()
            .expect("an ended bio");
        if let Some(s) = self.jobs[j as usize].complete(done, now, &mut self.actions) {
            self.stats[j as usize].record(&s);
        }
        self.apply_actions(j);
        self.after_job_change(j, now);
    }

    fn apply_actions(&mut self, j: u32) {
        for a in self.actions.drain(..) {
            match a {
                JobAction::Submit { at } => self.q.push(at, SimEvent::JobSubmit(j)),
                JobAction::WakeAt { at } => self.q.push(at, SimEvent::JobWake(j)),
            }
        }
    }

    /// When the last job of a group is done, the next group (stonewall) starts.
    fn after_job_change(&mut self, j: u32, now: Ns) {
        if self.jobs[j as usize].state != JobState::Done {
            return;
        }
        let g = self.groups[self.current_group];
        let group_done = self
            .jobs
            .iter()
            .zip(&self.phases)
            .filter(|(_, &p)| p == g)
            .all(|(job, _)| job.state == JobState::Done);
        if group_done && self.current_group + 1 < self.groups.len() {
            self.current_group += 1;
            self.start_group(now);
        }
    }

    fn start_group(&mut self, now: Ns) {
        let g = self.groups[self.current_group];
        for j in 0..self.jobs.len() {
            if self.phases[j] == g {
                let at = self.jobs[j].start(now);
                self.stats[j].begin(self.jobs[j].ramp_end_ns);
                self.q.push(at, SimEvent::JobWake(j as u32));
            }
        }
    }

    fn all_done(&self) -> bool {
        self.current_group + 1 == self.groups.len()
            && self.jobs.iter().all(|j| j.state == JobState::Done)
    }
}
