//! The simulated NVMe SSD: controller (submission queues, device queue depth,
//! command processing, host-link DMA), DRAM write buffer, FTL and the flash
//! array (dies on channels). The device is driven by the caller's event queue:
//! `submit` adds a command, `handle` processes one of the device's own events,
//! completed commands are collected in `completions`.
//!
//! Execution unit: a die runs one array command at a time (a single-plane
//! operation, or a multi-plane one when enabled). A channel moves one transfer
//! at a time, first come first served. Die service order:
//! critical GC (a plane at its reserve) > host reads > GC > host programs >
//! SLC folding.

use super::alloc::{make_policy as make_allocation, AllocationPolicy};
use super::buffer::WriteBuffer;
use super::config::{GcExecution, SsdConfig};
use super::ftl::{Ftl, Stream, NONE};
use super::gc::trigger::{make_trigger, GcTrigger, TriggerCtx};
use super::gc::{make_policy, GcPolicy};
use super::layout::Layout;
use crate::engine::{Ns, Timers};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use std::collections::VecDeque;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IoOp {
    Read,
    Write,
    Trim,
}

/// A command as the host submits it: `pages` logical pages from `lpa`.
#[derive(Debug, Clone, Copy)]
pub struct IoCommand {
    pub id: u64,
    pub op: IoOp,
    pub lpa: u32,
    pub pages: u32,
    /// Submission queue (0-based; taken modulo the device's queue count).
    pub sq: u16,
}

/// A command the device cannot execute.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("command {id}: pages [{lpa}, {lpa} + {pages}) empty or outside the {logical_pages} logical pages")]
pub struct CommandError {
    pub id: u64,
    pub lpa: u32,
    pub pages: u32,
    pub logical_pages: u32,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct IoCompletion {
    pub id: u64,
    pub time: Ns,
}

/// The device's own events.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DevEvent {
    /// A fetched command has been decoded (and its write data moved).
    CmdReady(u32),
    /// A die's array read finished; its data can cross the channel.
    ReadArrayDone(u32),
    /// A die finished its current operation (`gen` guards preempted ones).
    DieDone { die: u32, gen: u32 },
    /// A command's completion is posted to the host.
    CmdComplete(u32),
}

/// Device counters for reports.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize)]
pub struct DeviceCounters {
    pub commands: u64,
    pub read_pages: u64,
    pub write_pages: u64,
    pub buffer_read_hits: u64,
    pub unmapped_reads: u64,
    pub flash_reads: u64,
    pub flash_programs: u64,
    pub write_stalls: u64,
    pub gc_preemptions: u64,
    pub suspends: u64,
    pub multi_plane_ops: u64,
}

#[derive(Debug, Clone, Copy)]
struct ReadTx {
    slot: u32,
    lpa: u32,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum JobKind {
    Gc,
    Fold,
}

/// A GC or fold of one victim block: relocations already applied to the maps
/// at start; the die is busy copying `pages_left` pages, then erasing.
#[derive(Debug, Clone, Copy)]
struct Job {
    kind: JobKind,
    critical: bool,
    victim: u32,
    pages_left: u32,
    step_ns: Ns,
    erase_left: Ns,
    started: Ns,
}

/// One page program in flight: (lpa, ppa, version).
type ProgramItem = (u32, u32, u32);

#[derive(Debug, Clone)]
enum DieOp {
    Idle,
    /// Array read of these pages in progress.
    Read {
        txs: Vec<ReadTx>,
    },
    /// Read data leaving the chip over the channel.
    ReadOut,
    /// Programs in flight; the array phase is the last `array_ns` before `end`.
    Program {
        items: Vec<ProgramItem>,
        end: Ns,
        array_ns: Ns,
    },
    Job(Job),
    /// A job stopping at its next page boundary for host I/O.
    Pausing(Job),
    /// A program being suspended for a read.
    Suspending,
}

struct Die {
    channel: u32,
    op: DieOp,
    gen: u32,
    reads: VecDeque<ReadTx>,
    paused_gc: Option<Job>,
    paused_fold: Option<Job>,
    /// A program suspended for reads, with its remaining time.
    suspended: Option<(Vec<ProgramItem>, Ns)>,
    /// The read admitted during the current suspension has been started.
    suspend_read_done: bool,
}

struct Slot {
    id: u64,
    op: IoOp,
    lpa: u32,
    pages: u32,
    remaining: u32,
    latest: Ns,
}

pub struct SimSsd {
    pub cfg: SsdConfig,
    pub layout: Layout,
    pub ftl: Ftl,
    gc: Box<dyn GcPolicy>,
    trigger: Box<dyn GcTrigger>,
    rng: ChaCha8Rng,
    pub buffer: WriteBuffer,
    dies: Vec<Die>,
    channel_busy: Vec<Ns>,
    allocation: Box<dyn AllocationPolicy>,
    /// Pages waiting to be flushed to their home plane.
    plane_flushes: Vec<VecDeque<u32>>,
    /// Pages waiting to be flushed to any plane.
    shared_flushes: VecDeque<u32>,
    sqs: Vec<VecDeque<IoCommand>>,
    rr: usize,
    outstanding: u32,
    slots: Vec<Slot>,
    free_slots: Vec<u32>,
    ctrl_busy: Ns,
    link_in_busy: Ns,
    link_out_busy: Ns,
    soft_blocks: u32,
    page_xfer_ns: Ns,
    page_link_ns: Ns,
    pub counters: DeviceCounters,
    pub completions: Vec<IoCompletion>,
    /// First data-integrity failure seen on a read (checked runs only).
    pub integrity_error: Option<String>,
    /// The latest time the device was driven at.
    clock: Ns,
}

impl SimSsd {
    /// Builds an empty (trimmed) device. `check` turns on the data-integrity
    /// shadow used by `check_invariants`.
    pub fn new(cfg: SsdConfig, seed: u64, check: bool) -> SimSsd {
        let layout = Layout::new(&cfg);
        let native =
            layout.blocks_per_plane - cfg.slc_cache.as_ref().map_or(0, |s| s.blocks_per_plane);
        let reserve = ((cfg.gc.hard_threshold * native as f64).ceil() as u32).max(1);
        let soft_blocks = ((cfg.gc.soft_threshold * native as f64).ceil() as u32).max(reserve + 1);
        let slc = cfg
            .slc_cache
            .as_ref()
            .map(|s| (s.blocks_per_plane, s.bits_per_cell));
        let ftl = Ftl::new(layout.clone(), slc, reserve, check);
        let t = &cfg.timing;
        let bytes_per_us = t.channel_mts * t.channel_width_bits / 8;
        let page_xfer_ns = (layout.page_size as u64 * 1000).div_ceil(bytes_per_us);
        let page_link_ns = (layout.page_size as u64 * 1000).div_ceil(cfg.controller.link_mbs);
        let dies = (0..layout.dies)
            .map(|d| Die {
                channel: layout.channel_of_die(d),
                op: DieOp::Idle,
                gen: 0,
                reads: VecDeque::new(),
                paused_gc: None,
                paused_fold: None,
                suspended: None,
                suspend_read_done: false,
            })
            .collect();
        let buffer = WriteBuffer::new((cfg.buffer.capacity_bytes / layout.page_size as u64) as u32);
        SimSsd {
            gc: make_policy(&cfg).expect("validated policy name"),
            trigger: make_trigger(&cfg).expect("validated trigger name"),
            rng: ChaCha8Rng::seed_from_u64(seed),
            buffer,
            dies,
            channel_busy: vec![0; layout.channels as usize],
            allocation: make_allocation(&cfg.ftl.allocation, &layout)
                .expect("validated allocation name"),
            plane_flushes: vec![VecDeque::new(); layout.planes as usize],
            shared_flushes: VecDeque::new(),
            sqs: vec![VecDeque::new(); cfg.controller.submission_queues as usize],
            rr: 0,
            outstanding: 0,
            slots: Vec::new(),
            free_slots: Vec::new(),
            ctrl_busy: 0,
            link_in_busy: 0,
            link_out_busy: 0,
            soft_blocks,
            page_xfer_ns,
            page_link_ns,
            counters: DeviceCounters::default(),
            completions: Vec::new(),
            integrity_error: None,
            clock: 0,
            ftl,
            layout,
            cfg,
        }
    }

    /// Channel time of one page.
    pub fn page_transfer_ns(&self) -> Ns {
        self.page_xfer_ns
    }

    /// Host-link DMA time of one page.
    pub fn page_link_ns(&self) -> Ns {
        self.page_link_ns
    }

    /// Free blocks below which a plane collects in the background.
    pub fn soft_gc_blocks(&self) -> u32 {
        self.soft_blocks
    }

    /// The latest simulated time the device has seen: a new run continues
    /// from here.
    pub fn now(&self) -> Ns {
        self.clock
    }

    /// Commands fetched and not yet completed.
    pub fn outstanding(&self) -> u32 {
        self.outstanding
    }

    /// Whether the device has nothing queued, buffered or running.
    pub fn is_quiescent(&self) -> bool {
        self.outstanding == 0
            && self.sqs.iter().all(|q| q.is_empty())
            && self.buffer.is_empty()
            && self.dies.iter().all(|d| matches!(d.op, DieOp::Idle))
    }

    /// The full invariant check (maps, valid counts, data integrity).
    pub fn check_invariants(&self) -> Result<(), String> {
        if let Some(e) = &self.integrity_error {
            return Err(e.clone());
        }
        self.ftl.check(&|lpa| self.buffer.holds(lpa))
    }

    // ---- controller ----------------------------------------------------------

    /// The host rings a submission-queue doorbell. A command outside the
    /// logical space, or of zero pages, is refused.
    pub fn submit(
        &mut self,
        cmd: IoCommand,
        now: Ns,
        q: &mut impl Timers<DevEvent>,
    ) -> Result<(), CommandError> {
        let end = cmd.lpa as u64 + cmd.pages as u64;
        if cmd.pages == 0 || end > self.layout.logical_pages as u64 {
            return Err(CommandError {
                id: cmd.id,
                lpa: cmd.lpa,
                pages: cmd.pages,
                logical_pages: self.layout.logical_pages,
            });
        }
        self.clock = now;
        let sq = cmd.sq as usize % self.sqs.len();
        self.sqs[sq].push_back(cmd);
        self.fetch(now, q);
        Ok(())
    }

    /// Fetches commands round-robin over the submission queues while the
    /// device queue has room. Firmware decode is serial; write data crosses
    /// the host link before the command is ready.
    fn fetch(&mut self, now: Ns, q: &mut impl Timers<DevEvent>) {
        while self.outstanding < self.cfg.controller.queue_depth {
            let n = self.sqs.len();
            let Some(sq) = (0..n)
                .map(|i| (self.rr + i) % n)
                .find(|&i| !self.sqs[i].is_empty())
            else {
                return;
            };
            self.rr = (sq + 1) % n;
            let cmd = self.sqs[sq].pop_front().expect("non-empty queue");
            self.outstanding += 1;
            self.counters.commands += 1;
            let slot = self.alloc_slot(cmd);
            self.ctrl_busy = self.ctrl_busy.max(now) + self.cfg.controller.command_ns;
            let mut ready = self.ctrl_busy;
            if cmd.op == IoOp::Write {
                self.link_in_busy =
                    self.link_in_busy.max(ready) + self.page_link_ns * cmd.pages as u64;
                ready = self.link_in_busy;
            }
            q.schedule(ready, DevEvent::CmdReady(slot));
        }
    }

    fn alloc_slot(&mut self, cmd: IoCommand) -> u32 {
        let slot = Slot {
            id: cmd.id,
            op: cmd.op,
            lpa: cmd.lpa,
            pages: cmd.pages,
            remaining: cmd.pages,
            latest: 0,
        };
        match self.free_slots.pop() {
            Some(i) => {
                self.slots[i as usize] = slot;
                i
            }
            None => {
                self.slots.push(slot);
                self.slots.len() as u32 - 1
            }
        }
    }

    /// One page of a command is done at `at` (≥ now).
    fn page_done(&mut self, slot: u32, at: Ns, q: &mut impl Timers<DevEvent>) {
        let s = &mut self.slots[slot as usize];
        s.latest = s.latest.max(at);
        s.remaining -= 1;
        if s.remaining == 0 {
            q.schedule(
                s.latest + self.cfg.controller.completion_ns,
                DevEvent::CmdComplete(slot),
            );
        }
    }

    /// A read page leaves over the host link at `at`.
    fn read_page_out(&mut self, slot: u32, at: Ns, q: &mut impl Timers<DevEvent>) {
        self.link_out_busy = self.link_out_busy.max(at) + self.page_link_ns;
        let done = self.link_out_busy;
        self.page_done(slot, done, q);
    }

    // ---- events --------------------------------------------------------------

    pub fn handle(&mut self, ev: DevEvent, now: Ns, q: &mut impl Timers<DevEvent>) {
        self.clock = now;
        self.ftl.now = now;
        match ev {
            DevEvent::CmdReady(slot) => self.on_cmd_ready(slot, now, q),
            DevEvent::ReadArrayDone(die) => self.on_read_array_done(die, now, q),
            DevEvent::DieDone { die, gen } => {
                if self.dies[die as usize].gen == gen {
                    self.on_die_done(die, now, q);
                }
            }
            DevEvent::CmdComplete(slot) => {
                let s = &self.slots[slot as usize];
                self.completions.push(IoCompletion {
                    id: s.id,
                    time: now,
                });
                self.free_slots.push(slot);
                self.outstanding -= 1;
                self.fetch(now, q);
            }
        }
    }

    fn on_cmd_ready(&mut self, slot: u32, now: Ns, q: &mut impl Timers<DevEvent>) {
        let (op, lpa0, pages) = {
            let s = &self.slots[slot as usize];
            (s.op, s.lpa, s.pages)
        };
        let dram = now + self.cfg.controller.dram_ns;
        for lpa in lpa0..lpa0 + pages {
            match op {
                IoOp::Read => {
                    self.counters.read_pages += 1;
                    self.read_page(slot, lpa, now, q);
                }
                IoOp::Write => {
                    self.counters.write_pages += 1;
                    self.write_page(slot, lpa, now, q);
                }
                IoOp::Trim => {
                    self.trim_page(lpa, now, q);
                    self.page_done(slot, dram, q);
                }
            }
        }
    }

    fn read_page(&mut self, slot: u32, lpa: u32, now: Ns, q: &mut impl Timers<DevEvent>) {
        let dram = now + self.cfg.controller.dram_ns;
        if self.buffer.holds(lpa) {
            self.counters.buffer_read_hits += 1;
            self.read_page_out(slot, dram, q);
            return;
        }
        let ppa = self.ftl.lookup(lpa);
        if ppa == NONE {
            // Never written or trimmed: the controller returns zeroes.
            self.counters.unmapped_reads += 1;
            self.read_page_out(slot, dram, q);
            return;
        }
        let die = self.layout.die_of_plane(self.layout.plane_of(ppa));
        self.dies[die as usize]
            .reads
            .push_back(ReadTx { slot, lpa });
        self.wake_for_read(die, now, q);
    }

    fn write_page(&mut self, slot: u32, lpa: u32, now: Ns, q: &mut impl Timers<DevEvent>) {
        if !self.buffer.has_room() && !self.buffer.entries.contains_key(&lpa) {
            self.counters.write_stalls += 1;
            self.buffer.waiting.push_back((slot, lpa));
            return;
        }
        self.buffer_write(slot, lpa, now, q);
    }

    /// Puts one page into the buffer (room was checked).
    fn buffer_write(&mut self, slot: u32, lpa: u32, now: Ns, q: &mut impl Timers<DevEvent>) {
        use std::collections::hash_map::Entry as Slot;
        let version = self.ftl.next_version(lpa);
        let through = self.buffer.write_through();
        let (e, fresh) = match self.buffer.entries.entry(lpa) {
            Slot::Vacant(v) => (v.insert(Default::default()), true),
            Slot::Occupied(o) => (o.into_mut(), false),
        };
        e.version = version;
        e.trimmed = false;
        // Queued and not yet flushing: the queued flush takes the new version.
        if e.flushing {
            e.dirty_again = true;
        }
        if through {
            e.waiters.push((slot, version));
        }
        if fresh {
            self.enqueue_flush(lpa, now, q);
        }
        if !through {
            self.page_done(slot, now + self.cfg.controller.dram_ns, q);
        }
    }

    /// Unmaps a page. A buffered copy not yet flushing is dropped (its
    /// write-through waiters complete: the trim supersedes their data); one
    /// being programmed is marked so that its commit maps nothing.
    fn trim_page(&mut self, lpa: u32, now: Ns, q: &mut impl Timers<DevEvent>) {
        let mut superseded = Vec::new();
        if let Some(e) = self.buffer.entries.get_mut(&lpa) {
            if e.flushing {
                e.trimmed = true;
                e.dirty_again = false;
                let inflight = e.inflight_version;
                let (wait, done): (Vec<_>, Vec<_>) =
                    e.waiters.drain(..).partition(|&(_, v)| v <= inflight);
                e.waiters = wait;
                superseded = done;
            } else {
                superseded = std::mem::take(&mut e.waiters);
                self.buffer.entries.remove(&lpa);
            }
        }
        self.ftl.trim(lpa);
        for (slot, _) in superseded {
            self.page_done(slot, now, q);
        }
        self.admit_waiting(now, q);
    }

    fn enqueue_flush(&mut self, lpa: u32, now: Ns, q: &mut impl Timers<DevEvent>) {
        match self.allocation.home_plane(lpa) {
            Some(plane) => {
                self.plane_flushes[plane as usize].push_back(lpa);
                self.wake_for_write(self.layout.die_of_plane(plane), now, q);
            }
            None => {
                self.shared_flushes.push_back(lpa);
                // Offer it to the idle dies in channel-first order until one
                // takes it (an idle die may prefer GC or have no room).
                for d in self.idle_dies_channel_first() {
                    if self.shared_flushes.is_empty() {
                        break;
                    }
                    self.try_start(d, now, q);
                }
            }
        }
    }

    fn idle_dies_channel_first(&self) -> Vec<u32> {
        let per_channel = self.layout.chips_per_channel * self.layout.dies_per_chip;
        (0..self.layout.dies)
            .map(|i| (i % self.layout.channels) * per_channel + i / self.layout.channels)
            .filter(|&d| matches!(self.dies[d as usize].op, DieOp::Idle))
            .collect()
    }

    // ---- die scheduling --------------------------------------------------------

    /// A read arrived at `die`: start it, or preempt background work for it.
    fn wake_for_read(&mut self, die: u32, now: Ns, q: &mut impl Timers<DevEvent>) {
        match self.dies[die as usize].op {
            DieOp::Idle => self.try_start(die, now, q),
            DieOp::Job(job) if self.read_preempts(&job) => self.preempt_job(die, job, now, q),
            // Only the array phase (after the data transfer) can be suspended.
            DieOp::Program { end, array_ns, .. }
                if self.cfg.timing.suspend.is_some() && end > now && now + array_ns >= end =>
            {
                self.suspend_program(die, now, q)
            }
            _ => {}
        }
    }

    /// Reads go between the page copies of a non-critical job, except a GC
    /// job in plane-blocking mode (folding is always background work).
    fn read_preempts(&self, job: &Job) -> bool {
        !job.critical
            && (job.kind == JobKind::Fold || self.cfg.gc.execution == GcExecution::BlockBlocking)
    }

    fn wake_for_write(&mut self, die: u32, now: Ns, q: &mut impl Timers<DevEvent>) {
        match self.dies[die as usize].op {
            DieOp::Idle => self.try_start(die, now, q),
            DieOp::Job(job) if job.kind == JobKind::Fold => self.preempt_job(die, job, now, q),
            _ => {}
        }
    }

    /// Starts the die's next operation if it is idle.
    fn try_start(&mut self, die: u32, now: Ns, q: &mut impl Timers<DevEvent>) {
        if !matches!(self.dies[die as usize].op, DieOp::Idle) {
            return;
        }
        // A suspended program admits one read operation, then resumes (a
        // later read may suspend it again).
        if self.dies[die as usize].suspended.is_some() {
            if self.dies[die as usize].suspend_read_done || self.dies[die as usize].reads.is_empty()
            {
                let (items, rem) = self.dies[die as usize].suspended.take().expect("checked");
                return self.resume_program(die, items, rem, now, q);
            }
            self.dies[die as usize].suspend_read_done = true;
            return self.start_read(die, now, q);
        }
        if let Some(job) = self.next_gc(die, true) {
            return self.start_job(die, job, now, q);
        }
        if !self.dies[die as usize].reads.is_empty() {
            return self.start_read(die, now, q);
        }
        if let Some(job) = self.next_gc(die, false) {
            return self.start_job(die, job, now, q);
        }
        if self.start_program(die, now, q) {
            return;
        }
        if let Some(job) = self.next_fold(die) {
            self.start_job(die, job, now, q);
        }
    }

    fn planes_of(&self, die: u32) -> std::ops::Range<u32> {
        let p = self.layout.planes_per_die;
        die * p..die * p + p
    }

    /// The GC job due on this die: with `critical`, only for a plane at its
    /// host reserve; else for any plane below the soft threshold. A paused
    /// job resumes before a new one starts.
    fn next_gc(&mut self, die: u32, critical: bool) -> Option<Job> {
        let reserve = self.ftl.host_reserve_blocks;
        if let Some(job) = self.dies[die as usize].paused_gc {
            // Any plane of the die at its reserve makes the paused job run to
            // its end, so that the critical job can follow it.
            let is_critical = self
                .planes_of(die)
                .any(|p| self.ftl.free_blocks(p) <= reserve);
            if critical && !is_critical {
                return None;
            }
            self.dies[die as usize].paused_gc = None;
            return Some(Job {
                critical: is_critical,
                ..job
            });
        }
        let enabled = self.ftl.used_share() >= self.cfg.gc.enable_at_full;
        let global = !critical && self.cfg.gc.on_demand.global_order;
        let mut best: Option<(f64, u32)> = None;
        for plane in self.planes_of(die) {
            let due = if critical {
                self.ftl.free_blocks(plane) <= reserve
            } else {
                enabled && self.background_gc_due(plane)
            };
            if !due {
                continue;
            }
            let Some(victim) = self.gc.select_victim(&self.ftl, plane, &mut self.rng) else {
                continue;
            };
            if !self.ftl.can_relocate(plane, self.ftl.valid(victim) as u32) {
                continue;
            }
            if !global {
                return Some(self.new_job(JobKind::Gc, victim, critical));
            }
            let score = self.gc.score(&self.ftl, victim);
            if best.is_none_or(|(s, _)| score > s) {
                best = Some((score, victim));
            }
        }
        best.map(|(_, victim)| self.new_job(JobKind::Gc, victim, false))
    }

    fn background_gc_due(&mut self, plane: u32) -> bool {
        let ctx = TriggerCtx {
            ftl: &self.ftl,
            plane,
            now: self.clock,
            soft_blocks: self.soft_blocks,
        };
        self.trigger.due(&ctx)
    }

    /// Background folding of the SLC cache, when the die has nothing else.
    fn next_fold(&mut self, die: u32) -> Option<Job> {
        if let Some(job) = self.dies[die as usize].paused_fold.take() {
            return Some(job);
        }
        for plane in self.planes_of(die) {
            let Some(victim) = self.ftl.fold_candidate(plane) else {
                continue;
            };
            // A fold needs at most one destination block; background GC
            // restores the soft threshold afterwards.
            let valid = self.ftl.valid(victim) as u32;
            let room = valid == 0 || self.ftl.free_blocks(plane) > self.ftl.host_reserve_blocks + 1;
            if room && self.ftl.can_relocate(plane, valid) {
                return Some(self.new_job(JobKind::Fold, victim, false));
            }
        }
        None
    }

    /// Relocates the victim's valid pages in the maps now and returns the job
    /// that occupies the die for the copies and the erase.
    fn new_job(&mut self, kind: JobKind, victim: u32, critical: bool) -> Job {
        let t = &self.cfg.timing;
        let slc = self.cfg.slc_cache.as_ref();
        let (src_read, erase) = match (self.ftl.is_slc(victim), slc) {
            (true, Some(s)) => (s.read_ns, s.erase_ns),
            _ => (t.read_ns, t.erase_ns),
        };
        let bus = if self.cfg.gc.copy_back {
            0
        } else {
            2 * self.page_xfer_ns
        };
        let step_ns = t.flash_command_ns + src_read + bus + t.program_ns;
        let pages_left = self.ftl.relocate(victim);
        Job {
            kind,
            critical,
            victim,
            pages_left,
            step_ns,
            erase_left: erase,
            started: 0,
        }
    }

    fn start_job(&mut self, die: u32, mut job: Job, now: Ns, q: &mut impl Timers<DevEvent>) {
        job.started = now;
        let end = now + job.pages_left as u64 * job.step_ns + job.erase_left;
        let d = &mut self.dies[die as usize];
        d.gen = d.gen.wrapping_add(1);
        d.op = DieOp::Job(job);
        q.schedule(end, DevEvent::DieDone { die, gen: d.gen });
    }

    /// Host I/O waits for background work only until the page copy in
    /// progress ends (or, with suspend, briefly during the erase).
    fn preempt_job(&mut self, die: u32, mut job: Job, now: Ns, q: &mut impl Timers<DevEvent>) {
        let copy_end = job.started + job.pages_left as u64 * job.step_ns;
        let pause_at = if now < copy_end {
            let done = (now - job.started).div_ceil(job.step_ns);
            job.pages_left -= done as u32;
            job.started + done * job.step_ns
        } else if let Some(s) = &self.cfg.timing.suspend {
            let erase_end = copy_end + job.erase_left;
            job.pages_left = 0;
            job.erase_left = erase_end - now + s.resume_ns;
            self.counters.suspends += 1;
            now + s.suspend_ns
        } else {
            return;
        };
        self.counters.gc_preemptions += 1;
        let d = &mut self.dies[die as usize];
        d.gen = d.gen.wrapping_add(1);
        d.op = DieOp::Pausing(job);
        q.schedule(pause_at, DevEvent::DieDone { die, gen: d.gen });
    }

    fn start_read(&mut self, die: u32, now: Ns, q: &mut impl Timers<DevEvent>) {
        let max = if self.cfg.timing.multi_plane {
            self.layout.planes_per_die as usize
        } else {
            1
        };
        let mut txs: Vec<ReadTx> = Vec::with_capacity(max);
        let mut used_planes = 0u64;
        let mut array_ns = 0;
        let mut i = 0;
        while i < self.dies[die as usize].reads.len() && txs.len() < max && i < 16 {
            let tx = self.dies[die as usize].reads[i];
            // Re-resolve: the page may have been rewritten or moved since.
            if self.buffer.holds(tx.lpa) || self.ftl.lookup(tx.lpa) == NONE {
                self.dies[die as usize].reads.remove(i);
                self.counters.buffer_read_hits += 1;
                self.read_page_out(tx.slot, now + self.cfg.controller.dram_ns, q);
                continue;
            }
            let ppa = self.ftl.lookup(tx.lpa);
            let plane = self.layout.plane_of(ppa);
            let owner = self.layout.die_of_plane(plane);
            if owner != die {
                self.dies[die as usize].reads.remove(i);
                self.dies[owner as usize].reads.push_back(tx);
                self.wake_for_read(owner, now, q);
                continue;
            }
            let bit = 1u64 << (plane % 64);
            if used_planes & bit == 0 {
                used_planes |= bit;
                self.dies[die as usize].reads.remove(i);
                if let Err(e) = self.ftl.verify_flash_read(tx.lpa) {
                    self.integrity_error.get_or_insert(e);
                }
                array_ns = array_ns.max(self.read_time(ppa));
                txs.push(tx);
                continue;
            }
            i += 1;
        }
        if txs.is_empty() {
            return self.try_start(die, now, q);
        }
        self.counters.flash_reads += txs.len() as u64;
        if txs.len() > 1 {
            self.counters.multi_plane_ops += 1;
        }
        self.dies[die as usize].op = DieOp::Read { txs };
        q.schedule(
            now + self.cfg.timing.flash_command_ns + array_ns,
            DevEvent::ReadArrayDone(die),
        );
    }

    fn read_time(&self, ppa: u32) -> Ns {
        match &self.cfg.slc_cache {
            Some(s) if self.ftl.is_slc(self.layout.block_of(ppa)) => s.read_ns,
            _ => self.cfg.timing.read_ns,
        }
    }

    fn program_time(&self, ppa: u32) -> Ns {
        match &self.cfg.slc_cache {
            Some(s) if self.ftl.is_slc(self.layout.block_of(ppa)) => s.program_ns,
            _ => self.cfg.timing.program_ns,
        }
    }

    fn on_read_array_done(&mut self, die: u32, now: Ns, q: &mut impl Timers<DevEvent>) {
        let DieOp::Read { txs } = std::mem::replace(&mut self.dies[die as usize].op, DieOp::Idle)
        else {
            unreachable!("ReadArrayDone without a read in progress");
        };
        let ch = self.dies[die as usize].channel as usize;
        let mut t = self.channel_busy[ch].max(now);
        for tx in &txs {
            t += self.page_xfer_ns;
            self.read_page_out(tx.slot, t, q);
        }
        self.channel_busy[ch] = t;
        let d = &mut self.dies[die as usize];
        d.gen = d.gen.wrapping_add(1);
        // The die stays busy until its data has left the chip.
        d.op = DieOp::ReadOut;
        q.schedule(t, DevEvent::DieDone { die, gen: d.gen });
    }

    /// Gathers flushes for this die (one per plane with multi-plane, else one)
    /// and programs them. Returns false when there was nothing to program.
    fn start_program(&mut self, die: u32, now: Ns, q: &mut impl Timers<DevEvent>) -> bool {
        let max = if self.cfg.timing.multi_plane {
            self.layout.planes_per_die as usize
        } else {
            1
        };
        let mut items = Vec::new();
        for plane in self.planes_of(die) {
            if items.len() == max {
                break;
            }
            if !self.ftl.can_write_host(plane) {
                continue;
            }
            if let Some(item) = self.next_flush(plane) {
                items.push(item);
            }
        }
        if items.is_empty() {
            return false;
        }
        self.counters.flash_programs += items.len() as u64;
        if items.len() > 1 {
            self.counters.multi_plane_ops += 1;
        }
        let ch = self.dies[die as usize].channel as usize;
        let xfer_end = self.channel_busy[ch].max(now + self.cfg.timing.flash_command_ns)
            + self.page_xfer_ns * items.len() as u64;
        self.channel_busy[ch] = xfer_end;
        let prog = items
            .iter()
            .map(|&(_, ppa, _)| self.program_time(ppa))
            .max()
            .unwrap_or(0);
        let end = xfer_end + prog;
        let d = &mut self.dies[die as usize];
        d.gen = d.gen.wrapping_add(1);
        d.op = DieOp::Program {
            items,
            end,
            array_ns: prog,
        };
        q.schedule(end, DevEvent::DieDone { die, gen: d.gen });
        true
    }

    /// The next page to program on `plane`: its own queue first, then the
    /// shared one. Entries trimmed or already flushing are dropped.
    fn next_flush(&mut self, plane: u32) -> Option<ProgramItem> {
        while let Some(lpa) = self.plane_flushes[plane as usize].pop_front() {
            if let Some(item) = self.take_flush(lpa, plane) {
                return Some(item);
            }
        }
        while let Some(lpa) = self.shared_flushes.pop_front() {
            if let Some(item) = self.take_flush(lpa, plane) {
                return Some(item);
            }
        }
        None
    }

    /// Marks the buffered page as flushing and allocates its flash page.
    /// None when the page no longer needs flushing (trimmed meanwhile).
    fn take_flush(&mut self, lpa: u32, plane: u32) -> Option<(u32, u32, u32)> {
        let e = self.buffer.entries.get_mut(&lpa)?;
        if e.trimmed || e.flushing {
            return None;
        }
        e.flushing = true;
        e.dirty_again = false;
        e.inflight_version = e.version;
        let version = e.version;
        let ppa = self
            .ftl
            .alloc_page(plane, Stream::Host)
            .expect("can_write_host checked");
        Some((lpa, ppa, version))
    }

    fn suspend_program(&mut self, die: u32, now: Ns, q: &mut impl Timers<DevEvent>) {
        let s = self.cfg.timing.suspend.clone().expect("suspend configured");
        let d = &mut self.dies[die as usize];
        if d.suspended.is_some() {
            return;
        }
        let DieOp::Program { items, end, .. } = std::mem::replace(&mut d.op, DieOp::Idle) else {
            unreachable!("suspend_program on a die that is not programming");
        };
        // Only the array phase can be suspended; keep the remaining time.
        let remaining = end.saturating_sub(now) + s.resume_ns;
        d.suspended = Some((items, remaining));
        d.suspend_read_done = false;
        d.gen = d.gen.wrapping_add(1);
        self.counters.suspends += 1;
        d.op = DieOp::Suspending;
        q.schedule(now + s.suspend_ns, DevEvent::DieDone { die, gen: d.gen });
    }

    fn resume_program(
        &mut self,
        die: u32,
        items: Vec<ProgramItem>,
        remaining: Ns,
        now: Ns,
        q: &mut impl Timers<DevEvent>,
    ) {
        let end = now + remaining;
        let d = &mut self.dies[die as usize];
        d.gen = d.gen.wrapping_add(1);
        d.op = DieOp::Program {
            items,
            end,
            array_ns: remaining,
        };
        q.schedule(end, DevEvent::DieDone { die, gen: d.gen });
    }

    fn on_die_done(&mut self, die: u32, now: Ns, q: &mut impl Timers<DevEvent>) {
        let op = std::mem::replace(&mut self.dies[die as usize].op, DieOp::Idle);
        match op {
            DieOp::Program { items, .. } => {
                for (lpa, ppa, version) in items {
                    self.commit_flush(lpa, ppa, version, now, q);
                }
            }
            DieOp::Job(job) => self.ftl.erase(job.victim),
            DieOp::Pausing(job) => {
                let d = &mut self.dies[die as usize];
                match job.kind {
                    JobKind::Gc => d.paused_gc = Some(job),
                    JobKind::Fold => d.paused_fold = Some(job),
                }
            }
            DieOp::Read { .. } => unreachable!("array reads end with ReadArrayDone"),
            DieOp::ReadOut | DieOp::Suspending | DieOp::Idle => {}
        }
        self.try_start(die, now, q);
    }

    /// A flush program finished: map it, release or re-flush the buffer entry
    /// and let back-pressured writes in.
    fn commit_flush(
        &mut self,
        lpa: u32,
        ppa: u32,
        version: u32,
        now: Ns,
        q: &mut impl Timers<DevEvent>,
    ) {
        let Some(e) = self.buffer.entries.get_mut(&lpa) else {
            unreachable!("flushing page {lpa} has no buffer entry");
        };
        e.flushing = false;
        if e.trimmed {
            self.ftl.commit_stale(ppa);
        } else {
            self.ftl.commit(lpa, ppa, version);
        }
        let done: Vec<u32> = {
            let waiters = &mut e.waiters;
            let (ready, rest): (Vec<_>, Vec<_>) =
                waiters.drain(..).partition(|&(_, v)| v <= version);
            *waiters = rest;
            ready.into_iter().map(|(s, _)| s).collect()
        };
        let again = e.dirty_again && !e.trimmed;
        if again {
            e.dirty_again = false;
        } else {
            self.buffer.entries.remove(&lpa);
        }
        for slot in done {
            self.page_done(slot, now, q);
        }
        if again {
            self.enqueue_flush(lpa, now, q);
        }
        self.admit_waiting(now, q);
    }

    /// Lets back-pressured writes into freed buffer slots, in arrival order.
    fn admit_waiting(&mut self, now: Ns, q: &mut impl Timers<DevEvent>) {
        while self.buffer.has_room() {
            let Some((slot, lpa)) = self.buffer.waiting.pop_front() else {
                break;
            };
            self.buffer_write(slot, lpa, now, q);
        }
    }
}

impl SimSsd {
    /// The plane a page must go to under the allocation policy, if any.
    pub fn home_plane(&self, lpa: u32) -> Option<u32> {
        self.allocation.home_plane(lpa)
    }

    /// Untimed GC of one victim of `plane` (preconditioning). False when the
    /// plane has no collectable block.
    pub fn collect_now(&mut self, plane: u32, rng: &mut ChaCha8Rng) -> bool {
        let Some(victim) = self.gc.select_victim(&self.ftl, plane, rng) else {
            return false;
        };
        if !self.ftl.can_relocate(plane, self.ftl.valid(victim) as u32) {
            return false;
        }
        self.ftl.relocate(victim);
        self.ftl.erase(victim);
        true
    }
}
