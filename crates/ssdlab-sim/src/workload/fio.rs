//! A job file's jobs as one workload: each job issues bios by its issue model
//! (`FioJob`), stonewall groups run one after the other, and every counted
//! completion lands in the job's statistics.

use super::buffered::{BufferedCounters, BufferedIo, JobMode};
use super::fio_job::{FioJob, JobAction, JobState};
use super::fio_log::JobLogs;
use super::job_stats::JobStats;
use crate::host::{BioDone, HostConfig};
use crate::kernel::{Ctx, WorkEvent, Workload};
use ssdlab_protocol::Device;
use ssdlab_protocol::Dir;
use ssdlab_protocol::Ns;

pub struct FioWorkload {
    jobs: Vec<FioJob>,
    stats: Vec<JobStats>,
    actions: Vec<JobAction>,
    /// Each job's execution phase: a stonewall job waits for every job
    /// before it (new_group only starts a new reporting group).
    phases: Vec<u32>,
    groups: Vec<u32>,
    current_group: usize,
    /// The page cache, when a job is buffered (`direct=0`).
    buffered: Option<BufferedIo>,
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

impl FioWorkload {
    pub fn new(jobs: Vec<FioJob>) -> Self {
        let stats = jobs.iter().map(|j| JobStats::new(&j.spec)).collect();
        let phases = phases_of(&jobs);
        let mut groups = phases.clone();
        groups.dedup();
        FioWorkload {
            jobs,
            stats,
            actions: Vec::new(),
            phases,
            groups,
            current_group: 0,
            buffered: None,
        }
    }

    /// Writes job `i`'s fio logs to `logs[i]` when it is Some.
    pub fn with_logs(mut self, logs: Vec<Option<JobLogs>>) -> Self {
        for (st, l) in self.stats.iter_mut().zip(logs) {
            st.logs = l;
        }
        self
    }

    /// Puts a page cache in front of the device when a job is buffered.
    pub fn with_page_cache(mut self, host: &HostConfig, device_bytes: u64) -> Self {
        if self.jobs.iter().any(|j| !j.spec.direct) {
            let modes: Vec<JobMode> = self
                .jobs
                .iter()
                .map(|j| JobMode {
                    buffered: !j.spec.direct,
                    sync_writes: j.spec.sync_writes,
                })
                .collect();
            self.buffered = Some(BufferedIo::new(host, device_bytes, &modes));
        }
        self
    }

    /// What the page cache did, when there is one.
    pub fn page_cache_counters(&self) -> Option<BufferedCounters> {
        self.buffered.as_ref().map(BufferedIo::counters)
    }

    pub fn jobs(&self) -> &[FioJob] {
        &self.jobs
    }

    /// Ends every unfinished job at `now` (see `FioJob::stop`).
    pub fn stop(&mut self, now: Ns) {
        for job in &mut self.jobs {
            job.stop(now);
        }
    }

    /// The jobs and their statistics, closed at each job's end.
    pub fn finish(mut self) -> (Vec<FioJob>, Vec<JobStats>) {
        for (job, st) in self.jobs.iter().zip(self.stats.iter_mut()) {
            st.finish(job.ramp_end_ns, job.end_time);
            if let Some((depth, failed)) = job.latency_outcome() {
                st.report.latency_depth = depth;
                if failed {
                    st.report.error = crate::workload::fio_job::ETIMEDOUT;
                }
            }
        }
        (self.jobs, self.stats)
    }

    /// Simulated end if every time-based job runs its full time (progress).
    pub fn planned_end(&self, t0: Ns) -> Ns {
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

    fn job_issue<D: Device>(&mut self, j: u32, cx: &mut Ctx<'_, D>) {
        self.jobs[j as usize].try_issue(cx.now(), &mut self.actions);
        self.apply_actions(j, cx);
        self.after_job_change(j, cx);
    }

    fn job_complete<D: Device>(&mut self, j: u32, cx: &mut Ctx<'_, D>) {
        let done = self.jobs[j as usize]
            .to_complete
            .pop_front()
            .expect("an ended bio");
        let now = cx.now();
        if let Some(s) = self.jobs[j as usize].complete(done, now, &mut self.actions) {
            self.stats[j as usize].record(&s);
        }
        self.apply_actions(j, cx);
        self.after_job_change(j, cx);
    }

    fn apply_actions<D: Device>(&mut self, j: u32, cx: &mut Ctx<'_, D>) {
        for a in self.actions.drain(..) {
            match a {
                JobAction::Submit { at } => cx.schedule(at, WorkEvent::Submit(j)),
                JobAction::WakeAt { at } => cx.schedule(at, WorkEvent::Wake(j)),
                JobAction::ResetStats { at } => {
                    let st = &mut self.stats[j as usize];
                    // fio's logs go on through a reset, their clock restarted.
                    let logs = st.logs.take();
                    *st = JobStats::new(&self.jobs[j as usize].spec);
                    st.logs = logs;
                    st.begin(at);
                }
            }
        }
    }

    /// When the last job of a group is done, the next group (stonewall) starts.
    fn after_job_change<D: Device>(&mut self, j: u32, cx: &mut Ctx<'_, D>) {
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
            self.start_group(cx);
        } else if group_done {
            if let Some(b) = self.buffered.as_mut() {
                b.sync_all(cx);
            }
        }
    }

    /// Hands the page cache's ended operations to their jobs.
    fn route_finished<D: Device>(&mut self, cx: &mut Ctx<'_, D>) {
        let Some(b) = self.buffered.as_mut() else {
            return;
        };
        for bio in b.take_released() {
            let j = bio.job as usize;
            if !cx.submit_bio(bio) {
                self.jobs[j].blocked = true;
            }
        }
        for f in b.take_finished() {
            let mut done = f.done;
            let j = done.bio.job;
            let job = &mut self.jobs[j as usize];
            if f.slept {
                done.time = job.completion_seen_at(done.time);
            }
            cx.schedule(done.time, WorkEvent::Complete(j));
            job.queue_completion(done);
        }
    }

    fn is_flusher(&self, source: u32) -> bool {
        self.buffered
            .as_ref()
            .is_some_and(|b| b.flusher() == source)
    }

    fn submit_job_bio<D: Device>(&mut self, j: u32, cx: &mut Ctx<'_, D>) {
        let job = &mut self.jobs[j as usize];
        let mut bio = job.to_submit.pop_front().expect("a paid-for bio");
        if let Some(b) = self.buffered.as_mut() {
            if b.takes(&bio) {
                b.submit(bio, cx);
                return self.route_finished(cx);
            }
            if bio.dir == Dir::Trim {
                // A discard drops the cached pages (truncate_bdev_range).
                b.drop_range(&bio);
            } else {
                match b.direct(bio, cx) {
                    Some(ready) => bio = ready,
                    None => return self.route_finished(cx),
                }
            }
        }
        if !cx.submit_bio(bio) {
            job.blocked = true;
        }
    }

    fn start_group<D: Device>(&mut self, cx: &mut Ctx<'_, D>) {
        let g = self.groups[self.current_group];
        for j in 0..self.jobs.len() {
            if self.phases[j] == g {
                let at = self.jobs[j].start(cx.now());
                self.stats[j].begin(self.jobs[j].ramp_end_ns);
                cx.schedule(at, WorkEvent::Wake(j as u32));
            }
        }
    }
}

impl Workload for FioWorkload {
    fn start<D: Device>(&mut self, cx: &mut Ctx<'_, D>) {
        self.start_group(cx);
    }

    #[inline]
    fn on_event<D: Device>(&mut self, ev: WorkEvent, cx: &mut Ctx<'_, D>) {
        match ev {
            WorkEvent::Wake(s) | WorkEvent::Submit(s) if self.is_flusher(s) => {
                let b = self.buffered.as_mut().expect("a page cache");
                b.flusher_event(ev, cx);
            }
            WorkEvent::Wake(j) => self.job_issue(j, cx),
            WorkEvent::Submit(j) => self.submit_job_bio(j, cx),
            WorkEvent::Complete(j) => self.job_complete(j, cx),
        }
    }

    #[inline]
    fn bio_done<D: Device>(&mut self, mut d: BioDone, cx: &mut Ctx<'_, D>) {
        if BufferedIo::owns(d.bio.id) {
            if let Some(b) = self.buffered.as_mut() {
                b.device_done(d, cx);
            }
            return self.route_finished(cx);
        }
        let j = d.bio.job;
        let job = &mut self.jobs[j as usize];
        d.time = job.completion_seen_at(d.time);
        cx.schedule(d.time, WorkEvent::Complete(j));
        job.queue_completion(d);
    }

    fn unblocked<D: Device>(&mut self, j: u32, cx: &mut Ctx<'_, D>) {
        if let Some(b) = self.buffered.as_mut() {
            b.unblocked(j, cx);
            self.route_finished(cx);
        }
        let Some(job) = self.jobs.get_mut(j as usize) else {
            return;
        };
        if job.blocked && !cx.waiting_for_tag(j) {
            job.blocked = false;
            self.job_issue(j, cx);
        }
    }

    fn is_done(&self) -> bool {
        self.current_group + 1 == self.groups.len()
            && self.jobs.iter().all(|j| j.state == JobState::Done)
            && self.buffered.as_ref().is_none_or(BufferedIo::is_clean)
    }
}
