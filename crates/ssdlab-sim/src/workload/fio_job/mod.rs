//! One fio job's issue model: how many I/Os it keeps outstanding (sync engines
//! one, async engines `iodepth`), when it may issue the next one (thinktime,
//! rate / rate_iops with linear or Poisson spacing), when it stops (runtime,
//! time_based, size / io_size / number_ios) and which completions count
//! (ramp_time). What each I/O is (direction, offset, size) comes from the
//! fio crate's `IoGenerator`.

use crate::host::{Bio, BioDone, CpuClock, HostCosts};
use latency_target::LatencySearch;
pub use latency_target::ETIMEDOUT;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
pub use sample::IoSample;
use ssdlab_fio::generator::{IoDir, IoGenerator, IoUnit};
use ssdlab_fio::{JobSpec, RateProcess};
use ssdlab_protocol::Dir;
use ssdlab_protocol::Ns;
use std::collections::{HashSet, VecDeque};
use sync::SyncPlan;

mod latency_target;
mod prio;
mod sample;
mod sync;

/// One I/O as a source yields it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SourcedIo {
    pub unit: IoUnit,
    /// For a timed source, the earliest time (from the job's start) it may
    /// be issued.
    pub not_before: Option<Ns>,
    /// REQ_SYNC: reads and direct writes are; a traced write-back is not.
    pub sync: bool,
}

/// Where a job's I/Os come from: fio's generator, or a replayed trace.
pub trait IoSource: Send {
    /// The next I/O; None when the source is exhausted.
    fn next_io(&mut self) -> Option<SourcedIo>;
    /// Why the source ended early (a malformed trace line), if it did.
    fn error(&self) -> Option<String> {
        None
    }
    /// What the source has to say in the report (replay counters).
    fn report(&self) -> Option<serde_json::Value> {
        None
    }
}

impl IoSource for IoGenerator {
    /// fio's I/O is direct: reads and O_DIRECT writes are REQ_SYNC in Linux.
    fn next_io(&mut self) -> Option<SourcedIo> {
        Some(SourcedIo {
            unit: IoGenerator::next_io(self),
            not_before: None,
            sync: true,
        })
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum JobState {
    /// Waiting for its group or its start delay.
    Pending,
    Running,
    /// No more issues; waiting for outstanding I/O.
    Draining,
    Done,
}

/// What the job asks the simulation loop to do next.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum JobAction {
    /// Hand this bio to the block layer at `at` (its submission cost paid).
    Submit { at: Ns },
    /// Call `try_issue` again at `at` (thinktime or rate limit).
    WakeAt { at: Ns },
    /// The job's statistics restart at `at` (latency_target's final window).
    ResetStats { at: Ns },
}

pub struct FioJob {
    pub index: u32,
    pub spec: JobSpec,
    source: Box<dyn IoSource>,
    exhausted: bool,
    depth: u32,
    /// I/Os submitted together (iodepth_batch_submit).
    batch_submit: u32,
    /// Completions reaped before the job issues again
    /// (iodepth_batch_complete_min).
    batch_complete: u32,
    reaped: u32,
    batch_left: u32,
    sync: bool,
    submit_ns: Ns,
    wakeup_ns: Ns,
    waking_until: Option<Ns>,
    pub state: JobState,
    pub start_ns: Ns,
    pub ramp_end_ns: Ns,
    end_ns: Option<Ns>,
    bytes_limit: Option<u64>,
    ios_limit: Option<u64>,
    bytes_issued: u64,
    ios_issued: u64,
    inflight: u32,
    think_until: Ns,
    /// A think time is due once the outstanding I/O has completed.
    think_pending: bool,
    since_think: u32,
    next_allowed: [Ns; 3],
    held: Option<SourcedIo>,
    syncs: SyncPlan,
    /// fio's latency_target search, when the job sets a target.
    latency: Option<LatencySearch>,
    /// The CPU the job's submissions run on.
    cpu: CpuClock,
    pub(crate) blocked: bool,
    wake_pending: Option<Ns>,
    rng: ChaCha8Rng,
    /// In-flight bios whose priority cmdprio chose (for the logs' column).
    cmdprio_ios: HashSet<u64>,
    next_bio: u64,
    /// Bios paid for and waiting to enter the block layer, in order.
    pub(crate) to_submit: VecDeque<Bio>,
    /// Ended bios waiting for the job to see them, in the order it sees
    /// them (`time` is when it does).
    pub(crate) to_complete: VecDeque<BioDone>,
    /// Time the job finished (Done).
    pub end_time: Ns,
}

impl FioJob {
    /// `region` is the job's byte range on the device; `seed` the run's seed.
    pub fn new(
        index: u32,
        spec: JobSpec,
        device_bytes: u64,
        seed: u64,
        costs: &HostCosts,
    ) -> Result<FioJob, String> {
        let region = spec.region(device_bytes);
        let job_seed = seed ^ (index as u64 + 1).wrapping_mul(0x9e37_79b9_7f4a_7c15);
        let gen = IoGenerator::new(&spec, region, job_seed).map_err(|e| e.to_string())?;
        // `size` is the region (capped at the device end, whole blocks);
        // `io_size` may ask for more or less I/O than one pass over it.
        let size_limit = spec
            .io_size
            .map(|s| s.resolve(device_bytes))
            .unwrap_or(region.1);
        Ok(Self::with_source(
            index,
            spec,
            Box::new(gen),
            Some(size_limit),
            job_seed,
            costs,
        ))
    }

    /// A job whose I/Os come from `source` (a trace replay). `size_limit`
    /// bounds the bytes it issues when not time based (None: until the
    /// source ends).
    pub fn with_source(
        index: u32,
        spec: JobSpec,
        source: Box<dyn IoSource>,
        size_limit: Option<u64>,
        job_seed: u64,
        costs: &HostCosts,
    ) -> FioJob {
        // fio: "time_based requires a runtime/timeout setting" — without one
        // the job runs by size.
        let time_based = spec.time_based && spec.runtime_ns > 0;
        FioJob {
            index,
            depth: spec.effective_iodepth().max(1),
            batch_submit: spec
                .iodepth_batch_submit
                .clamp(1, spec.effective_iodepth().max(1)),
            batch_complete: spec
                .iodepth_batch_complete_min
                .clamp(1, spec.effective_iodepth().max(1)),
            reaped: 0,
            batch_left: 0,
            sync: spec.ioengine.is_sync(),
            submit_ns: costs.submit_ns,
            wakeup_ns: costs.wakeup_ns,
            waking_until: None,
            state: JobState::Pending,
            start_ns: 0,
            ramp_end_ns: 0,
            end_ns: None,
            bytes_limit: size_limit
                .filter(|_| !time_based)
                .map(|b| b.max(1).saturating_mul(spec.loops.max(1) as u64)),
            // number_ios=0 is fio's "no limit".
            ios_limit: spec.number_ios.filter(|&n| n > 0),
            bytes_issued: 0,
            ios_issued: 0,
            inflight: 0,
            think_until: 0,
            think_pending: false,
            since_think: 0,
            next_allowed: [0; 3],
            held: None,
            syncs: SyncPlan {
                every: spec.sync_every(),
                at_end: spec.end_fsync,
                ..SyncPlan::default()
            },
            latency: None,
            cpu: CpuClock::default(),
            blocked: false,
            wake_pending: None,
            rng: ChaCha8Rng::seed_from_u64(job_seed ^ 0xc0ff_ee00),
            cmdprio_ios: HashSet::new(),
            next_bio: 0,
            to_submit: VecDeque::new(),
            to_complete: VecDeque::new(),
            end_time: 0,
            source,
            exhausted: false,
            spec,
        }
    }

    /// Why the job's source ended early, if it did.
    pub fn source_error(&self) -> Option<String> {
        self.source.error()
    }

    /// The source's own report section, if any.
    pub fn source_report(&self) -> Option<serde_json::Value> {
        self.source.report()
    }

    /// Runs the job's submissions on `cpu` (shared with the jobs pinned to
    /// the same CPU).
    pub fn run_on(&mut self, cpu: CpuClock) {
        self.cpu = cpu;
    }

    /// Starts the job at `now` (its group's turn has come); returns when it
    /// should first try to issue.
    pub fn start(&mut self, now: Ns) -> Ns {
        self.start_ns = now + self.spec.startdelay_ns;
        self.ramp_end_ns = self.start_ns + self.spec.ramp_time_ns;
        if self.spec.runtime_ns > 0 {
            self.end_ns = Some(self.ramp_end_ns + self.spec.runtime_ns);
        }
        self.state = JobState::Running;
        self.latency = LatencySearch::of(&self.spec, self.ramp_end_ns);
        self.next_allowed = [self.start_ns; 3];
        self.start_ns
    }

    /// Queues an ended bio the job sees at `done.time`, in seeing order:
    /// device completions arrive in that order (a push at the back), a
    /// page-cache hit may overtake an earlier miss.
    pub(crate) fn queue_completion(&mut self, done: BioDone) {
        let at = self
            .to_complete
            .iter()
            .rposition(|d| d.time <= done.time)
            .map_or(0, |i| i + 1);
        self.to_complete.insert(at, done);
    }

    pub fn inflight(&self) -> u32 {
        self.inflight
    }

    /// When the job sees a completion that ended at `t`: a sync engine
    /// sleeps in its call, an async job sleeps in io_getevents when it can
    /// issue nothing else; a sleeping job needs `wakeup_ns` to wake, and
    /// completions that end while it is waking are reaped with the first.
    pub fn completion_seen_at(&mut self, t: Ns) -> Ns {
        if let Some(w) = self.waking_until {
            if t <= w {
                return w;
            }
        }
        if self.sync || self.inflight >= self.depth || self.blocked {
            self.waking_until = Some(t + self.wakeup_ns);
            t + self.wakeup_ns
        } else {
            t
        }
    }

    /// Issues as many I/Os as the issue model allows at `now`. Returns the
    /// actions for the simulation loop (submissions and at most one wake-up).
    pub fn try_issue(&mut self, now: Ns, out: &mut Vec<JobAction>) {
        if self.wake_pending.is_some_and(|t| t <= now) {
            self.wake_pending = None;
        }
        while self.state == JobState::Running {
            if self.sync_holds(now, out) {
                return;
            }
            if self.blocked || self.think_pending {
                return;
            }
            // A batch starts only when it fits whole (fio queues the I/Os
            // and submits them in one call).
            if self.batch_left == 0 {
                let depth = self.issue_depth();
                if depth - self.inflight.min(depth) < self.batch_submit {
                    return;
                }
                self.batch_left = self.batch_submit;
            }
            if now < self.think_until {
                return self.wake(self.cap_at_end(self.think_until), out);
            }
            let Some(mut io) = self.held.take().or_else(|| self.source.next_io()) else {
                self.exhausted = true;
                continue;
            };
            // A timed source (open-loop replay) issues at its recorded time.
            if let Some(at) = io.not_before.map(|t| self.start_ns + t) {
                if now < at {
                    self.held = Some(io);
                    return self.wake(self.cap_at_end(at), out);
                }
            }
            if now < self.next_allowed[dir_index(io.unit.dir)] {
                // A mixed job switches to a direction that is not held back
                // by its rate (fio's rate_ddir).
                match self.unthrottled_other(io.unit.dir, now) {
                    Some(other) => io.unit.dir = other,
                    None => {
                        let at = self.cap_at_end(self.earliest_allowed(io.unit.dir));
                        self.held = Some(io);
                        return self.wake(at, out);
                    }
                }
            }
            let d = dir_index(io.unit.dir);
            self.advance_rate(d, io.unit.len);
            self.batch_left -= 1;
            self.issue(io, now, out);
        }
    }

    fn wake(&mut self, at: Ns, out: &mut Vec<JobAction>) {
        if self.wake_pending.is_none_or(|t| at < t) {
            self.wake_pending = Some(at);
            out.push(JobAction::WakeAt { at });
        }
    }

    /// For a read/write mix: the other direction, when its rate allows an
    /// issue now.
    fn unthrottled_other(&self, dir: IoDir, now: Ns) -> Option<IoDir> {
        let other = self.mix_partner(dir)?;
        (now >= self.next_allowed[dir_index(other)]).then_some(other)
    }

    fn mix_partner(&self, dir: IoDir) -> Option<IoDir> {
        match (self.spec.rw.is_mixed(), dir) {
            (true, IoDir::Read) => Some(IoDir::Write),
            (true, IoDir::Write) => Some(IoDir::Read),
            _ => None,
        }
    }

    /// When the job may next issue in `dir` or, mixed, in its partner.
    fn earliest_allowed(&self, dir: IoDir) -> Ns {
        let own = self.next_allowed[dir_index(dir)];
        match self.mix_partner(dir) {
            Some(other) => own.min(self.next_allowed[dir_index(other)]),
            None => own,
        }
    }

    /// A wake-up no later than the job's end (runtime).
    fn cap_at_end(&self, at: Ns) -> Ns {
        self.end_ns.map_or(at, |end| at.min(end))
    }

    fn finished_issuing(&self, now: Ns) -> bool {
        self.exhausted
            || self.end_ns.is_some_and(|end| now >= end)
            || self.bytes_limit.is_some_and(|b| self.bytes_issued >= b)
            || self.ios_limit.is_some_and(|n| self.ios_issued >= n)
            || self.latency.as_ref().is_some_and(|l| l.ended)
    }

    /// The depth the job may issue to now: its iodepth, or less while a
    /// latency_target search tries a depth.
    fn issue_depth(&self) -> u32 {
        self.latency
            .as_ref()
            .map_or(self.depth, |l| l.depth(self.depth, self.inflight))
    }

    /// The depth a latency_target search found and whether it failed at
    /// depth 1 (None: the job sets no target).
    pub fn latency_outcome(&self) -> Option<(u32, bool)> {
        self.latency.as_ref().map(|l| (l.depth_found(), l.failed))
    }

    /// Spaces issues of direction `d` by the rate limits (the later of the
    /// byte rate and the IOPS rate).
    fn advance_rate(&mut self, d: usize, len: u32) {
        let (rate, iops) = per_dir(&self.spec, d);
        let mut gap = 0f64;
        if rate > 0 {
            gap = gap.max(len as f64 * 1e9 / rate as f64);
        }
        if iops > 0 {
            gap = gap.max(1e9 / iops as f64);
        }
        if gap == 0.0 {
            return;
        }
        if self.spec.rate_process == RateProcess::Poisson {
            // Exponential inter-arrival times with the same mean.
            let u: f64 = self.rng.gen_range(f64::EPSILON..1.0);
            gap *= -u.ln();
        }
        self.next_allowed[d] += gap.round() as Ns;
    }

    fn issue(&mut self, io: SourcedIo, now: Ns, out: &mut Vec<JobAction>) {
        let unit = io.unit;
        if unit.dir == IoDir::Write {
            self.note_write();
        }
        self.inflight += 1;
        self.bytes_issued += unit.len as u64;
        self.ios_issued += 1;
        self.next_bio += 1;
        let id = (self.index as u64) << 40 | self.next_bio;
        let prio = self.prio_for(unit.dir, id);
        let bio = Bio {
            id,
            job: self.index,
            dir: match unit.dir {
                IoDir::Read => Dir::Read,
                IoDir::Write => Dir::Write,
                IoDir::Trim => Dir::Trim,
            },
            sector: unit.offset / 512,
            bytes: unit.len,
            prio,
            // A read is REQ_SYNC whatever its source says (op_is_sync).
            sync: io.sync || unit.dir == IoDir::Read,
            flush: false,
            // O_SYNC/O_DSYNC direct writes carry FUA (block/fops.c).
            fua: self.spec.sync_writes && self.spec.direct && unit.dir == IoDir::Write,
            issue_ns: now,
            submit_ns: 0,
        };
        self.submit(bio, now, out);
    }

    /// Pays a bio's submission on the job's CPU, then hands it over.
    fn submit(&mut self, bio: Bio, now: Ns, out: &mut Vec<JobAction>) {
        let at = self.cpu.run(now, self.submit_ns);
        self.to_submit.push_back(bio);
        out.push(JobAction::Submit { at });
    }

    /// A bio of this job ended (the job sees it at `now`): returns its sample
    /// when it counts (after ramp_time), then lets the job issue again.
    pub fn complete(
        &mut self,
        done: BioDone,
        now: Ns,
        out: &mut Vec<JobAction>,
    ) -> Option<IoSample> {
        self.inflight -= 1;
        let b = &done.bio;
        let is_sync_op = b.is_empty_flush();
        let lat = now - b.issue_ns;
        let sample = self.sample_of(b, now);
        if is_sync_op {
            // fio's sync is synchronous: the job goes on once it returns.
            self.syncs.in_flight = false;
            match self.state {
                JobState::Running => self.try_issue(now, out),
                JobState::Draining => self.maybe_done(now),
                _ => {}
            }
            return sample;
        }
        if let Some(search) = &mut self.latency {
            if search.completed(lat, now, self.inflight) {
                // The final window: statistics from here (fio resets them).
                self.ramp_end_ns = now;
                out.push(JobAction::ResetStats { at: now });
            }
        }
        if self.spec.thinktime_ns > 0 {
            self.since_think += 1;
            if self.since_think >= self.spec.thinktime_blocks.max(1) {
                self.since_think = 0;
                self.think_pending = true;
            }
            // fio quiesces before thinking: the think time starts once every
            // outstanding I/O has completed.
            if self.think_pending && self.inflight == 0 {
                self.think_pending = false;
                self.think_until = now + self.spec.thinktime_ns;
            }
        }
        self.reaped += 1;
        // An async job reaps at least iodepth_batch_complete_min completions
        // (or all outstanding ones) before it issues again.
        let reaped_enough = self.reaped >= self.batch_complete || self.inflight == 0;
        match self.state {
            JobState::Running if reaped_enough => {
                self.reaped = 0;
                self.try_issue(now, out)
            }
            JobState::Draining => self.maybe_done(now),
            _ => {}
        }
        sample
    }

    fn maybe_done(&mut self, now: Ns) {
        if self.inflight == 0 && self.to_submit.is_empty() {
            self.state = JobState::Done;
            self.end_time = now;
        }
    }

    /// Ends an unfinished job at `now` (a live run stopped by a signal): its
    /// statistics close there, with what it measured so far.
    pub fn stop(&mut self, now: Ns) {
        if self.state != JobState::Done {
            self.state = JobState::Done;
            self.end_time = now.max(self.ramp_end_ns);
        }
    }

    /// Measured runtime: from the end of ramp to the job's end.
    pub fn runtime_ns(&self) -> Ns {
        self.end_time.saturating_sub(self.ramp_end_ns)
    }
}

fn dir_index(d: IoDir) -> usize {
    match d {
        IoDir::Read => 0,
        IoDir::Write => 1,
        IoDir::Trim => 2,
    }
}

fn per_dir(spec: &JobSpec, d: usize) -> (u64, u64) {
    match d {
        0 => (spec.rate.read, spec.rate_iops.read),
        1 => (spec.rate.write, spec.rate_iops.write),
        _ => (spec.rate.trim, spec.rate_iops.trim),
    }
}
