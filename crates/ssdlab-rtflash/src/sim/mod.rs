//! The real-time flash simulation: periodic RT tasks and an NRT load on
//! `chips` flash chips grouped into clusters. Each task's logical pages are
//! striped page by page over its cluster's chips; NRT data over all chips.
//! Every chip serves its ready flash operations earliest deadline first,
//! one at a time and non-preemptively (`chip.rs`). A host write that finds
//! its chip out of room starts a GC round there, in the writer's context:
//! the round's copies and erase run under the earliest deadline of the
//! writers waiting for its room, and no page is written into that room
//! before the round's last operation ends (`space.rs`). An ordinary SSD
//! (`ChipOrder::Fifo`) serves every operation in arrival order instead,
//! and the host then holds background NRT requests while RT I/O is open.
//!
//! RT jobs are released at their worst-case rate (every period, from their
//! offset); each issues its reads and its writes at release, as one read
//! and one write request with the job's absolute deadline. NRT requests are
//! split per cluster; a cluster serves its part in the background (no
//! deadline) or through a Total Bandwidth Server (a deadline of
//! `max(arrival, previous deadline) + demand / bandwidth`, Spuri and
//! Buttazzo).

mod chip;
mod device;
mod load;
mod nrt;
mod report;
mod run;
mod setup;
mod slots;
mod space;
#[cfg(test)]
mod tests;

pub use report::{NrtOutcome, SimReport, TaskOutcome};
pub use run::{
    duration_ns, run_task_set, simulate_on, ssd_model, Model, RunOptions, RunOutput, TaskRow,
};
pub use setup::{released_jobs, setup_from, NrtPolicy};
pub use space::OutOfSpace;

use super::platform::Platform;
use super::taskset::{NrtArrival, NrtLoad};
pub use chip::ChipOrder;
use chip::{ChipQueue, GcRound, Op, OpKind, Running};
pub use device::simulate_on_device;
use nrt::NrtServers;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use slots::Slots;
use space::FlashSpace;
use ssdlab_protocol::Ns;
use ssdlab_sim::engine::EventQueue;
use std::collections::VecDeque;

/// An RT task as the simulation runs it.
#[derive(Debug, Clone)]
pub struct SimTask {
    pub name: String,
    pub period_ns: Ns,
    pub deadline_ns: Ns,
    pub offset_ns: Ns,
    pub read_pages: u32,
    pub write_pages: u32,
    pub footprint_pages: u64,
    /// Index into `SimSetup::clusters`.
    pub cluster: usize,
}

/// How a cluster serves NRT work.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NrtService {
    /// Only when no operation with a deadline is ready.
    Background,
    /// A Total Bandwidth Server of this bandwidth (parts per million of
    /// one chip's time).
    Tbs { bandwidth_ppm: u64 },
}

/// A cluster: its chips and how it serves NRT work.
#[derive(Debug, Clone)]
pub struct SimCluster {
    pub chips: Vec<u32>,
    pub nrt: NrtService,
    /// Worst-case cost of one GC round and the pages it frees (for the
    /// server's demand of an NRT write).
    pub gc_round_ns: Ns,
    pub freed_pages_per_round: u64,
}

/// Everything one simulation needs.
#[derive(Debug, Clone)]
pub struct SimSetup {
    pub platform: Platform,
    pub tasks: Vec<SimTask>,
    pub clusters: Vec<SimCluster>,
    pub nrt: Option<NrtLoad>,
    pub duration_ns: Ns,
    pub seed: u64,
    /// How every chip orders its operations (the analysis assumes EDF).
    pub order: ChipOrder,
}

#[derive(Debug, Clone, Copy)]
enum Event {
    Release(usize),
    NrtArrival,
    ChipDone(u32),
}

/// Who a job is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Owner {
    Task(usize),
    Nrt,
}

/// An RT job or an NRT request: done when all its parts are (on the SSD
/// model a part is one command).
#[derive(Debug, Clone, Copy)]
pub(super) struct Job {
    owner: Owner,
    release: Ns,
    pages: u64,
    parts_left: u32,
}

/// A part of a job served under one deadline: an RT job's reads or its
/// writes, or an NRT request's pages on one cluster.
#[derive(Debug, Clone)]
struct Part {
    job: usize,
    is_write: bool,
    deadline: Option<Ns>,
    ops_left: u32,
}

/// Simulates `setup`. An error when the data does not fit the chips.
pub fn simulate(setup: &SimSetup) -> Result<SimReport, OutOfSpace> {
    let mut sim = Sim::new(setup)?;
    sim.run();
    match sim.error.take() {
        Some(e) => Err(e),
        None => Ok(sim.report()),
    }
}

struct Sim<'a> {
    s: &'a SimSetup,
    rng: ChaCha8Rng,
    q: EventQueue<Event>,
    chips: Vec<ChipQueue>,
    space: FlashSpace,
    /// First logical page of each task's region; the NRT region follows.
    task_base: Vec<u64>,
    nrt_base: u64,
    cluster_of_chip: Vec<usize>,
    /// Each cluster's server (None: background service).
    servers: NrtServers,
    /// Jobs and parts in flight.
    jobs: Slots<Job>,
    parts: Slots<Part>,
    report: report::Collector,
    /// The first out-of-space error met while running.
    error: Option<OutOfSpace>,
    /// RT jobs released and not yet finished.
    rt_open: u32,
    /// Background NRT service is the host's: an ordinary device and no
    /// cluster with a server (then NRT waits while an RT job is open).
    host_serves_background: bool,
    /// Arrival times of NRT requests the host holds back (ordinary device,
    /// background service) until no RT job is open.
    nrt_held: VecDeque<Ns>,
}

impl<'a> Sim<'a> {
    fn new(s: &'a SimSetup) -> Result<Self, OutOfSpace> {
        let p = &s.platform;
        let mut task_base = Vec::with_capacity(s.tasks.len());
        let mut next = 0u64;
        for t in &s.tasks {
            task_base.push(next);
            next += t.footprint_pages;
        }
        let nrt_base = next;
        let logical = next + s.nrt.as_ref().map_or(0, |n| n.footprint_pages);
        let mut cluster_of_chip = vec![usize::MAX; p.chips as usize];
        for (k, c) in s.clusters.iter().enumerate() {
            for &chip in &c.chips {
                cluster_of_chip[chip as usize] = k;
            }
        }
        let space = FlashSpace::new(
            p.chips,
            p.blocks_per_chip as u32,
            p.pages_per_block as u32,
            p.reserved_blocks as u32,
            logical,
        );
        let mut sim = Sim {
            s,
            rng: ChaCha8Rng::seed_from_u64(s.seed),
            q: EventQueue::new(),
            chips: (0..p.chips).map(|_| ChipQueue::new(s.order)).collect(),
            space,
            task_base,
            nrt_base,
            cluster_of_chip,
            servers: NrtServers::new(s),
            jobs: Slots::new(),
            parts: Slots::new(),
            report: report::Collector::new(s),
            error: None,
            rt_open: 0,
            host_serves_background: nrt::host_serves_background(s),
            nrt_held: Default::default(),
        };
        sim.precondition(logical)?;
        Ok(sim)
    }

    /// The chip a logical page lives on: its stripe over its cluster's
    /// chips (NRT pages over all chips).
    fn home_chip(&self, lpn: u64) -> u32 {
        if lpn >= self.nrt_base {
            return ((lpn - self.nrt_base) % u64::from(self.s.platform.chips)) as u32;
        }
        let task = self.task_base.partition_point(|&b| b <= lpn) - 1;
        let chips = &self.s.clusters[self.s.tasks[task].cluster].chips;
        chips[((lpn - self.task_base[task]) % chips.len() as u64) as usize]
    }

    /// Every page written once; then, chip by chip, random overwrites of
    /// the pages that live there until the chip has collected its first
    /// block, and one more chip's worth of overwrites after that: each chip
    /// starts the run in a GC steady state, whatever its fill. (Overwrites
    /// drawn over the whole logical space would leave a chip that holds
    /// little data with free blocks for the whole run.)
    fn precondition(&mut self, logical: u64) -> Result<(), OutOfSpace> {
        let chips = self.s.platform.chips as usize;
        let mut on_chip: Vec<Vec<u32>> = vec![Vec::new(); chips];
        for lpn in 0..logical {
            let chip = self.home_chip(lpn);
            self.space.write_now(lpn as u32, chip)?;
            on_chip[chip as usize].push(lpn as u32);
        }
        let p = &self.s.platform;
        let chip_pages = p
            .blocks_per_chip
            .saturating_sub(p.reserved_blocks)
            .saturating_mul(p.pages_per_block);
        for (chip, pages) in on_chip.iter().enumerate() {
            if pages.is_empty() {
                continue;
            }
            let overwrite = |sim: &mut Self| {
                let lpn = pages[sim.rng.gen_range(0..pages.len())];
                sim.space.write_now(lpn, chip as u32)
            };
            // Until the chip collects its first block, then a chip's worth.
            while overwrite(self)? == 0 {}
            for _ in 0..chip_pages {
                overwrite(self)?;
            }
        }
        Ok(())
    }

    fn run(&mut self) {
        for (i, t) in self.s.tasks.iter().enumerate() {
            if t.offset_ns < self.s.duration_ns {
                self.q.push(t.offset_ns, Event::Release(i));
            }
        }
        if let Some(n) = &self.s.nrt {
            match n.arrival {
                NrtArrival::Saturating => {
                    let depth = n
                        .outstanding
                        .unwrap_or(load::SATURATING_PER_CHIP * self.s.platform.chips);
                    for _ in 0..depth {
                        self.issue_nrt(0);
                    }
                }
                NrtArrival::Poisson { .. } => self.q.push(0, Event::NrtArrival),
            }
        }
        while let Some((now, ev)) = self.q.pop() {
            match ev {
                Event::Release(i) => self.release(i, now),
                Event::NrtArrival => {
                    self.issue_nrt(now);
                    let gap = self
                        .s
                        .nrt
                        .as_ref()
                        .and_then(|n| load::next_gap(n, &mut self.rng));
                    if let Some(gap) = gap {
                        if now + gap < self.s.duration_ns {
                            self.q.push(now + gap, Event::NrtArrival);
                        }
                    }
                }
                Event::ChipDone(chip) => self.chip_done(chip, now),
            }
            if self.error.is_some() {
                return;
            }
        }
    }

    fn release(&mut self, task: usize, now: Ns) {
        let t = &self.s.tasks[task];
        let next = now + t.period_ns;
        if next < self.s.duration_ns {
            self.q.push(next, Event::Release(task));
        }
        let deadline = Some(now + t.deadline_ns);
        let size = |pages: u32| u64::from(pages).min(t.footprint_pages);
        let (reads, writes) = (size(t.read_pages), size(t.write_pages));
        if reads + writes == 0 {
            return;
        }
        let job = self.new_job(Owner::Task(task), now, reads + writes);
        self.rt_open += 1;
        let base = self.task_base[task];
        for (pages, is_write) in [(reads, false), (writes, true)] {
            if pages == 0 {
                continue;
            }
            // A contiguous run: its pages spread evenly over the stripe.
            let start = self.rng.gen_range(0..=t.footprint_pages - pages);
            let lpns: Vec<u64> = (base + start..base + start + pages).collect();
            self.add_part(job, is_write, deadline, &lpns, now);
        }
    }

    fn new_job(&mut self, owner: Owner, release: Ns, pages: u64) -> usize {
        self.jobs.insert(Job {
            owner,
            release,
            pages,
            parts_left: 0,
        })
    }

    fn add_part(
        &mut self,
        job: usize,
        is_write: bool,
        deadline: Option<Ns>,
        lpns: &[u64],
        now: Ns,
    ) {
        let new = Part {
            job,
            is_write,
            deadline,
            ops_left: lpns.len() as u32,
        };
        let part = self.parts.insert(new) as u32;
        self.jobs[job].parts_left += 1;
        let kind = if is_write {
            OpKind::Program
        } else {
            OpKind::Read
        };
        for &lpn in lpns {
            let chip = self.home_chip(lpn);
            let op = Op {
                kind,
                request: part,
                lpn: lpn as u32,
            };
            self.chips[chip as usize].push(deadline, op);
            self.start_if_idle(chip, now);
        }
    }

    fn start_if_idle(&mut self, chip: u32, now: Ns) {
        if self.chips[chip as usize].is_idle() {
            self.dispatch(chip, now);
        }
    }

    /// Starts the chip's next operation, earliest deadline first: a host
    /// operation, or the next step of the GC round when its waiters' deadline
    /// is the earliest. A program with no room waits for the round (and
    /// starts one when none is running).
    fn dispatch(&mut self, chip: u32, now: Ns) {
        let p = &self.s.platform;
        let c = chip as usize;
        let running = loop {
            if self.chips[c].round_goes_first() {
                break self.round_step(chip);
            }
            let Some((deadline, op)) = self.chips[c].pop() else {
                return;
            };
            if op.kind == OpKind::Read || self.room_for(chip, op) {
                break Running::Host(op);
            }
            if self.error.is_some() {
                return;
            }
            self.chips[c].wait_for_room(deadline, op);
        };
        let ns = match running {
            Running::Host(Op {
                kind: OpKind::Read, ..
            }) => p.page_read_ns(),
            Running::Host(_) => p.page_write_ns(),
            Running::GcCopy => p.page_copy_ns(),
            Running::GcErase => p.erase_ns,
        };
        self.chips[c].running = Some(running);
        self.q.push(now + ns, Event::ChipDone(chip));
    }

    /// Places the program's page if the chip has room; otherwise starts a
    /// GC round when none is running, and returns false.
    fn room_for(&mut self, chip: u32, op: Op) -> bool {
        if self.chips[chip as usize].round.is_some() {
            return false;
        }
        if self.space.try_write(op.lpn, chip) {
            return true;
        }
        match self.space.begin_round(chip) {
            Ok(copies) => {
                self.report.gc_round(1, copies);
                self.chips[chip as usize].round = Some(GcRound {
                    copies_left: copies,
                    deadline: Ns::MAX,
                });
            }
            Err(e) => {
                self.error.get_or_insert(e);
            }
        }
        false
    }

    /// The round's next operation: a copy while any is left, then the erase.
    fn round_step(&mut self, chip: u32) -> Running {
        let round = self.chips[chip as usize]
            .round
            .as_mut()
            .expect("a round goes first only when there is one");
        if round.copies_left > 0 {
            round.copies_left -= 1;
            Running::GcCopy
        } else {
            Running::GcErase
        }
    }

    fn chip_done(&mut self, chip: u32, now: Ns) {
        let running = self.chips[chip as usize]
            .running
            .take()
            .expect("a chip event has a running operation");
        match running {
            Running::Host(op) => {
                let part = &mut self.parts[op.request as usize];
                part.ops_left -= 1;
                if part.ops_left == 0 {
                    self.part_done(op.request as usize, now);
                }
            }
            Running::GcCopy => {}
            Running::GcErase => {
                self.space.finish_round(chip);
                self.chips[chip as usize].end_round();
            }
        }
        // Completing the part may have issued new work that started it.
        self.start_if_idle(chip, now);
    }

    fn part_done(&mut self, part: usize, now: Ns) {
        let Part {
            job,
            is_write,
            deadline,
            ..
        } = self.parts[part];
        self.parts.release(part);
        if let Owner::Task(task) = self.jobs[job].owner {
            let missed = deadline.is_some_and(|d| now > d);
            self.report.rt_part(task, is_write, missed);
        }
        let j = &mut self.jobs[job];
        j.parts_left -= 1;
        if j.parts_left > 0 {
            return;
        }
        let (owner, response, pages) = (j.owner, now - j.release, j.pages);
        self.jobs.release(job);
        match owner {
            Owner::Task(task) => {
                self.report.rt_job(task, response);
                self.rt_open -= 1;
                if self.rt_open == 0 {
                    self.release_held_nrt(now);
                }
            }
            Owner::Nrt => {
                self.report.nrt_request(pages, response);
                let saturating = matches!(
                    self.s.nrt.as_ref().map(|n| &n.arrival),
                    Some(NrtArrival::Saturating)
                );
                if saturating && now < self.s.duration_ns {
                    self.issue_nrt(now);
                }
            }
        }
    }

    fn report(self) -> SimReport {
        self.report.finish(self.s)
    }
}
