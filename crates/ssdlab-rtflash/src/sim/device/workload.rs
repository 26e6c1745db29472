//! The task set as a kernel workload on the SSD model: RT jobs released at
//! their worst-case rate, each a read and a write command carrying the
//! job's absolute deadline; NRT requests split per cluster into one command
//! each, with the cluster's TBS deadline or none (background). The same
//! figures as the chip model's (`report::Collector`).

use super::super::load;
use super::super::nrt::{host_serves_background, NrtServers};
use super::super::report::Collector;
use super::super::slots::Slots;
use super::super::{Job, Owner, SimReport, SimSetup};
use super::Placement;
use crate::taskset::NrtArrival;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use ssdlab_protocol::Device;
use ssdlab_protocol::Lpn;
use ssdlab_protocol::Ns;
use ssdlab_protocol::{Dir, IoCommand, IoCompletion};
use ssdlab_sim::kernel::{Ctx, WorkEvent, Workload};
use std::collections::VecDeque;

/// A command in flight: its job, direction and deadline.
#[derive(Debug, Clone, Copy)]
struct Command {
    job: usize,
    is_write: bool,
    deadline: Option<Ns>,
}

pub(super) struct RtOnSsd<'a> {
    s: &'a SimSetup,
    at: &'a Placement,
    rng: ChaCha8Rng,
    jobs: Slots<Job>,
    /// Indexed by command id; a finished command's id is reused.
    commands: Slots<Command>,
    servers: NrtServers,
    report: Collector,
    /// RT jobs released and not yet finished; NRT requests in flight.
    rt_open: u32,
    nrt_open: u32,
    /// Wake-ups still scheduled (releases, Poisson arrivals).
    wakes_pending: u32,
    /// An ordinary device and background NRT: the host holds NRT requests
    /// while an RT job is open (BFQ's idle class; the chip model does the
    /// same).
    host_serves_background: bool,
    nrt_held: VecDeque<Ns>,
    pub(super) error: Option<String>,
}

impl<'a> RtOnSsd<'a> {
    pub(super) fn new(s: &'a SimSetup, at: &'a Placement) -> Self {
        RtOnSsd {
            s,
            at,
            rng: ChaCha8Rng::seed_from_u64(s.seed),
            jobs: Slots::new(),
            commands: Slots::new(),
            servers: NrtServers::new(s),
            report: Collector::new(s),
            rt_open: 0,
            nrt_open: 0,
            wakes_pending: 0,
            host_serves_background: host_serves_background(s),
            nrt_held: VecDeque::new(),
            error: None,
        }
    }

    pub(super) fn finish(self) -> SimReport {
        self.report.finish(self.s)
    }

    /// The NRT source's wake-up number (tasks are `0..tasks`).
    fn nrt_source(&self) -> u32 {
        self.s.tasks.len() as u32
    }

    fn wake_at<D: Device>(&mut self, at: Ns, source: u32, cx: &mut Ctx<'_, D>) {
        self.wakes_pending += 1;
        cx.schedule(at, WorkEvent::Wake(source));
    }

    fn new_job(&mut self, owner: Owner, release: Ns, pages: u64) -> usize {
        self.jobs.insert(Job {
            owner,
            release,
            pages,
            parts_left: 0,
        })
    }

    /// Submits one command of `job`: `pages` pages from `lpa`.
    fn submit<D: Device>(
        &mut self,
        job: usize,
        (lpa, pages): (u32, u32),
        is_write: bool,
        deadline: Option<Ns>,
        cx: &mut Ctx<'_, D>,
    ) {
        let command = Command {
            job,
            is_write,
            deadline,
        };
        let id = self.commands.insert(command) as u64;
        self.jobs[job].parts_left += 1;
        let page_size = u64::from(cx.device().info().page_size);
        let cmd = IoCommand {
            id,
            op: if is_write { Dir::Write } else { Dir::Read },
            lpa: Lpn(lpa),
            pages,
            bytes: u32::try_from(u64::from(pages) * page_size).unwrap_or(u32::MAX),
            sq: 0,
            deadline,
        };
        if let Err(e) = cx.submit_command(cmd) {
            self.error.get_or_insert(e.to_string());
        }
    }

    fn release<D: Device>(&mut self, task: usize, cx: &mut Ctx<'_, D>) {
        let now = cx.now();
        let t = &self.s.tasks[task];
        if now + t.period_ns < self.s.duration_ns {
            self.wake_at(now + t.period_ns, task as u32, cx);
        }
        let deadline = Some(now + t.deadline_ns);
        let size = |pages: u32| u64::from(pages).min(t.footprint_pages);
        let (reads, writes, footprint) =
            (size(t.read_pages), size(t.write_pages), t.footprint_pages);
        if reads + writes == 0 {
            return;
        }
        let job = self.new_job(Owner::Task(task), now, reads + writes);
        self.rt_open += 1;
        let base = u64::from(self.at.task_base[task]);
        for (pages, is_write) in [(reads, false), (writes, true)] {
            if pages > 0 {
                let start = base + self.rng.gen_range(0..=footprint - pages);
                self.submit(job, (start as u32, pages as u32), is_write, deadline, cx);
            }
        }
    }

    fn issue_nrt<D: Device>(&mut self, arrival: Ns, cx: &mut Ctx<'_, D>) {
        if self.host_serves_background && self.rt_open > 0 {
            self.nrt_held.push_back(arrival);
            return;
        }
        let Some(n) = self.s.nrt.as_ref() else {
            return;
        };
        let Some((start, pages, is_write)) =
            load::draw(n, self.s.platform.page_size, &mut self.rng)
        else {
            return;
        };
        let job = self.new_job(Owner::Nrt, arrival, pages);
        self.nrt_open += 1;
        // One contiguous run per cluster (see the layout in mod.rs).
        let mut runs: Vec<Option<(u32, u32)>> = vec![None; self.s.clusters.len()];
        for x in start..start + pages {
            let (k, lpa) = self.at.nrt_page(x, u64::from(self.s.platform.chips));
            let run = runs[k].get_or_insert((lpa, 0));
            run.1 += 1;
        }
        let now = cx.now();
        for (k, run) in runs.into_iter().enumerate() {
            let Some(run) = run else { continue };
            let deadline = self
                .servers
                .deadline(self.s, k, u64::from(run.1), is_write, now);
            self.submit(job, run, is_write, deadline, cx);
        }
    }
}

impl Workload for RtOnSsd<'_> {
    fn start<D: Device>(&mut self, cx: &mut Ctx<'_, D>) {
        for (i, t) in self.s.tasks.iter().enumerate() {
            if t.offset_ns < self.s.duration_ns {
                self.wake_at(t.offset_ns, i as u32, cx);
            }
        }
        let Some(n) = &self.s.nrt else { return };
        match n.arrival {
            NrtArrival::Saturating => {
                let depth = n
                    .outstanding
                    .unwrap_or(load::SATURATING_PER_CHIP * self.s.platform.chips);
                for _ in 0..depth {
                    self.issue_nrt(0, cx);
                }
            }
            NrtArrival::Poisson { .. } => self.wake_at(0, self.nrt_source(), cx),
        }
    }

    fn on_event<D: Device>(&mut self, ev: WorkEvent, cx: &mut Ctx<'_, D>) {
        let WorkEvent::Wake(source) = ev else { return };
        self.wakes_pending -= 1;
        if source < self.nrt_source() {
            return self.release(source as usize, cx);
        }
        let now = cx.now();
        self.issue_nrt(now, cx);
        let gap = self
            .s
            .nrt
            .as_ref()
            .and_then(|n| load::next_gap(n, &mut self.rng));
        if let Some(gap) = gap.filter(|&g| now + g < self.s.duration_ns) {
            self.wake_at(now + gap, source, cx);
        }
    }

    fn command_done<D: Device>(&mut self, c: IoCompletion, cx: &mut Ctx<'_, D>) {
        let cmd = self.commands[c.id as usize];
        self.commands.release(c.id as usize);
        let job = &mut self.jobs[cmd.job];
        if let Owner::Task(task) = job.owner {
            let missed = cmd.deadline.is_some_and(|d| c.time > d);
            self.report.rt_part(task, cmd.is_write, missed);
        }
        job.parts_left -= 1;
        if job.parts_left > 0 {
            return;
        }
        let job = *job;
        self.jobs.release(cmd.job);
        match job.owner {
            Owner::Task(task) => {
                self.report.rt_job(task, c.time - job.release);
                self.rt_open -= 1;
                if self.rt_open == 0 {
                    while let Some(arrival) = self.nrt_held.pop_front() {
                        self.issue_nrt(arrival, cx);
                    }
                }
            }
            Owner::Nrt => {
                self.report.nrt_request(job.pages, c.time - job.release);
                self.nrt_open -= 1;
                let saturating = self
                    .s
                    .nrt
                    .as_ref()
                    .is_some_and(|n| matches!(n.arrival, NrtArrival::Saturating));
                if saturating && c.time < self.s.duration_ns {
                    self.issue_nrt(c.time, cx);
                }
            }
        }
    }

    fn is_done(&self) -> bool {
        self.error.is_some()
            || (self.wakes_pending == 0
                && self.rt_open == 0
                && self.nrt_open == 0
                && self.nrt_held.is_empty())
    }
}
