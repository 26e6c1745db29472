//! The simulated NVMe SSD: controller (submission queues, device queue depth,
//! command processing, host-link DMA), DRAM write buffer, FTL and the flash
//! array (dies on channels). The device is driven by the caller's event queue:
//! `submit` adds a command, `handle` processes one of the device's own events,
//! completed commands are collected in `completions`.
//!
//! Execution unit: a die runs one array command at a time (a single-plane
//! operation, or a multi-plane one when enabled). A channel moves one transfer
//! at a time, first come first served. The order in which an idle die takes
//! its ready work (critical GC, host reads, programs, GC, prefetches,
//! folding) is the die scheduler's (`ssd::die_sched`).
//!
//! This file holds the types, the controller and the die scheduler;
//! `reads.rs` the read path, `writes.rs` the buffer and program path,
//! `jobs.rs` GC and folding.

use super::alloc::{make_policy as make_allocation, AllocationPolicy};
use super::buffer::WriteBuffer;
use super::config::{GcExecution, SlcCache, SsdConfig};
use super::die_sched::{self, DieScheduler, DieView, DieWork};
use super::ftl::{Ftl, FtlCounters, Stream, NONE};
use super::gc::trigger::{make_trigger, GcTrigger, TriggerCtx};
use super::gc::{make_policy, GcPolicy};
use super::layout::Layout;
use crate::engine::{Ns, Timers};
use crate::kernel::{Device, DeviceInfo};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::collections::VecDeque;

mod jobs;
pub mod precondition;
mod read_ahead;
mod reads;
mod writes;

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
    /// Buffered pages have waited `buffer.gather_ns`: partial programs may go.
    GatherDue,
}

/// What the device has counted, as a snapshot.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize)]
pub struct DeviceStats {
    pub device: DeviceCounters,
    pub ftl: FtlCounters,
}

/// Device counters for reports.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize)]
pub struct DeviceCounters {
    pub commands: u64,
    pub read_pages: u64,
    pub write_pages: u64,
    pub buffer_read_hits: u64,
    pub unmapped_reads: u64,
    /// Array reads (one per plane sensed).
    pub flash_reads: u64,
    /// Pages read from a flash page already in the plane's page register.
    pub register_hits: u64,
    pub flash_programs: u64,
    /// Mapping-table pages written back (ftl.map_journal).
    pub map_pages_written: u64,
    pub write_stalls: u64,
    pub gc_preemptions: u64,
    pub suspends: u64,
    pub multi_plane_ops: u64,
    /// Pages the controller read ahead on its own (controller.read_ahead).
    pub prefetched_pages: u64,
    /// Host reads served from the read-ahead buffer.
    pub read_ahead_hits: u64,
}

#[derive(Debug, Clone, Copy)]
struct ReadTx {
    slot: u32,
    lpa: u32,
    /// Where the page was when the read was queued (re-checked when taken).
    ppa: u32,
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
    /// Pages the job copies per host page to keep up (its victim's valid
    /// over invalid pages), for paced background GC.
    copies_per_host_page: f64,
    /// Paced GC: the job pauses after this many pages for a host program.
    quota: Option<u32>,
}

/// One page program in flight: (lpa, ppa, version); lpa `META` is a
/// mapping-table page.
type ProgramItem = (u32, u32, u32);

/// The flush-queue entry of a mapping-table page.
const META: u32 = u32::MAX - 1;

/// A page waiting to be flushed and when it was queued.
type Flush = (u32, Ns);

/// The reads of one array operation and the (plane, flash page) pairs it
/// senses.
type ReadScratch = (Vec<ReadTx>, Vec<(u32, u32)>);

#[derive(Debug, Clone)]
enum DieOp {
    Idle,
    /// Array read of these pages in progress; `sensed` holds (plane, flash
    /// page) for each plane whose array is read.
    Read {
        txs: Vec<ReadTx>,
        sensed: Vec<(u32, u32)>,
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
    /// A paced GC job yielded: one host program goes before it resumes.
    host_turn: bool,
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
    cfg: SsdConfig,
    layout: Layout,
    ftl: Ftl,
    gc: Box<dyn GcPolicy>,
    trigger: Box<dyn GcTrigger>,
    rng: ChaCha8Rng,
    buffer: WriteBuffer,
    dies: Vec<Die>,
    channel_busy: Vec<Ns>,
    allocation: Box<dyn AllocationPolicy>,
    die_scheduler: Box<dyn DieScheduler>,
    /// Pages waiting to be flushed to their home plane.
    plane_flushes: Vec<VecDeque<Flush>>,
    /// Pages waiting to be flushed to any plane.
    shared_flushes: VecDeque<Flush>,
    /// A `GatherDue` event is pending.
    gather_armed: bool,
    /// Emptied buffers of finished array reads, for the next ones.
    read_scratch: Vec<ReadScratch>,
    /// The flash page in each plane's page register (NONE after a program or
    /// erase).
    plane_register: Vec<u32>,
    /// Dirty mapping-table pages in DRAM, and their order of first dirtying.
    map_dirty: rustc_hash::FxHashSet<u32>,
    map_dirty_order: VecDeque<u32>,
    sqs: Vec<VecDeque<IoCommand>>,
    rr: usize,
    outstanding: u32,
    slots: Vec<Slot>,
    free_slots: Vec<u32>,
    ctrl_busy: Ns,
    /// The controller's read path (decode) is busy until then.
    decode_busy: Ns,
    link_in_busy: Ns,
    link_out_busy: Ns,
    soft_blocks: u32,
    page_xfer_ns: Ns,
    page_link_ns: Ns,
    counters: DeviceCounters,
    completions: Vec<IoCompletion>,
    /// First data-integrity failure seen on a read (checked runs only).
    integrity_error: Option<String>,
    /// The latest time the device was driven at.
    clock: Ns,
    read_ahead: Option<Box<read_ahead::ReadAheadState>>,
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
                host_turn: false,
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
            die_scheduler: die_sched::build(&cfg.controller.die_scheduler)
                .expect("validated die scheduler name"),
            plane_flushes: vec![VecDeque::new(); layout.planes as usize],
            shared_flushes: VecDeque::new(),
            gather_armed: false,
            read_scratch: Vec::new(),
            plane_register: vec![NONE; layout.planes as usize],
            map_dirty: Default::default(),
            map_dirty_order: VecDeque::new(),
            sqs: vec![VecDeque::new(); cfg.controller.submission_queues as usize],
            rr: 0,
            outstanding: 0,
            slots: Vec::new(),
            free_slots: Vec::new(),
            ctrl_busy: 0,
            decode_busy: 0,
            link_in_busy: 0,
            link_out_busy: 0,
            soft_blocks,
            page_xfer_ns,
            page_link_ns,
            counters: DeviceCounters::default(),
            completions: Vec::new(),
            integrity_error: None,
            clock: 0,
            read_ahead: cfg
                .controller
                .read_ahead
                .clone()
                .map(|c| Box::new(read_ahead::ReadAheadState::new(c))),
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

    /// The preset the device was built from.
    pub fn config(&self) -> &SsdConfig {
        &self.cfg
    }

    /// The geometry: channels, dies, planes, blocks, pages and their numbering.
    pub fn layout(&self) -> &Layout {
        &self.layout
    }

    /// A snapshot of the device's and the FTL's counters.
    pub fn stats(&self) -> DeviceStats {
        DeviceStats {
            device: self.counters.clone(),
            ftl: self.ftl.counters.clone(),
        }
    }

    /// Starts the counters afresh (after preconditioning or a warm-up).
    pub fn reset_stats(&mut self) {
        self.counters = DeviceCounters::default();
        self.ftl.counters = Default::default();
    }

    /// Starts the device's own counters afresh, leaving the FTL's.
    pub fn reset_device_counters(&mut self) {
        self.counters = DeviceCounters::default();
    }

    /// Free blocks of a plane (for tests and reports).
    pub fn free_blocks(&self, plane: u32) -> u32 {
        self.ftl.free_blocks(plane)
    }

    /// Whether the invariant and data-integrity checker is on.
    pub fn is_checked(&self) -> bool {
        self.ftl.integrity.is_some()
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
            && !self.shared_flushes.iter().any(|&(lpa, _)| lpa == META)
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
    fn submit_command(
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

    fn handle_event(&mut self, ev: DevEvent, now: Ns, q: &mut impl Timers<DevEvent>) {
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
            DevEvent::GatherDue => self.on_gather_due(now, q),
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
        // After the command's own reads, so that its prefetches queue
        // behind them.
        if op == IoOp::Read && self.read_ahead.is_some() {
            self.read_ahead_issue(lpa0, pages, now, q);
        }
    }

    /// A host read of one page: from the write buffer, the read-ahead buffer
    /// or flash.
    fn read_page(&mut self, slot: u32, lpa: u32, now: Ns, q: &mut impl Timers<DevEvent>) {
        let dram = now + self.cfg.controller.dram_ns;
        if self.buffer.holds(lpa) {
            self.counters.buffer_read_hits += 1;
            self.read_page_out(slot, dram, q);
            return;
        }
        if self.read_ahead.is_some() && self.read_ahead_lookup(slot, lpa, now, q) {
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
            .push_back(ReadTx { slot, lpa, ppa });
        self.wake_for_read(die, now, q);
    }

    fn write_page(&mut self, slot: u32, lpa: u32, now: Ns, q: &mut impl Timers<DevEvent>) {
        if let Some(ra) = self.read_ahead.as_mut() {
            ra.invalidate(lpa);
        }
        if self.buffer.must_wait(slot, lpa) {
            self.counters.write_stalls += 1;
            return;
        }
        self.buffer_write(slot, lpa, now, q);
    }

    /// Unmaps a page. A buffered copy not yet flushing is dropped (its
    /// write-through waiters complete: the trim supersedes their data); one
    /// being programmed is marked so that its commit maps nothing.
    fn trim_page(&mut self, lpa: u32, now: Ns, q: &mut impl Timers<DevEvent>) {
        if let Some(ra) = self.read_ahead.as_mut() {
            ra.invalidate(lpa);
        }
        let superseded = self.buffer.trim(lpa);
        self.ftl.trim(lpa);
        for (slot, _) in superseded {
            self.page_done(slot, now, q);
        }
        self.admit_waiting(now, q);
    }

    fn idle_dies_channel_first(&self) -> Vec<u32> {
        let per_channel = self.layout.chips_per_channel * self.layout.dies_per_chip;
        (0..self.layout.dies)
            .map(|i| (i % self.layout.channels) * per_channel + i / self.layout.channels)
            .filter(|&d| matches!(self.dies[d as usize].op, DieOp::Idle))
            .collect()
    }

    // ---- die scheduling --------------------------------------------------------

    /// Starts the die's next operation if it is idle: a suspended program
    /// first admits one read, then the die scheduler orders the rest.
    fn try_start(&mut self, die: u32, now: Ns, q: &mut impl Timers<DevEvent>) {
        if !matches!(self.dies[die as usize].op, DieOp::Idle) {
            return;
        }
        // A suspended program admits one read operation, then resumes (a
        // later read may suspend it again).
        if self.dies[die as usize].suspended.is_some() {
            if self.dies[die as usize].suspend_read_done
                || self.dies[die as usize].reads.is_empty()
                || (self.read_ahead.is_some() && !self.has_host_read(die))
            {
                let (items, rem) = self.dies[die as usize].suspended.take().expect("checked");
                return self.resume_program(die, items, rem, now, q);
            }
            self.dies[die as usize].suspend_read_done = true;
            return self.start_read(die, now, q);
        }
        let d = &self.dies[die as usize];
        let reads_queued = !d.reads.is_empty();
        // The controller's own prefetches are not host reads.
        let host_read_queued =
            reads_queued && (self.read_ahead.is_none() || self.has_host_read(die));
        let view = DieView {
            die,
            reads_queued,
            host_read_queued,
            host_turn: d.host_turn,
        };
        // Copied out so that the device may change while it tries them.
        let mut order = [DieWork::Fold; 8];
        let n = {
            let o = self.die_scheduler.order(&view);
            let n = o.len().min(order.len());
            order[..n].copy_from_slice(&o[..n]);
            n
        };
        for &work in &order[..n] {
            if self.try_work(die, work, &view, now, q) {
                return;
            }
        }
    }

    /// Starts `work` on the die if there is any; false when there is none.
    fn try_work(
        &mut self,
        die: u32,
        work: DieWork,
        view: &DieView,
        now: Ns,
        q: &mut impl Timers<DevEvent>,
    ) -> bool {
        let job = match work {
            DieWork::CriticalGc => self.next_gc(die, true),
            DieWork::Gc => self.next_gc(die, false),
            DieWork::Fold => self.next_fold(die),
            DieWork::HostRead | DieWork::Prefetch => {
                let wanted = match work {
                    DieWork::HostRead => view.host_read_queued,
                    _ => view.reads_queued && !view.host_read_queued,
                };
                if wanted {
                    self.start_read(die, now, q);
                }
                return wanted;
            }
            DieWork::PacedHostProgram => {
                return std::mem::take(&mut self.dies[die as usize].host_turn)
                    && self.start_program(die, now, q);
            }
            DieWork::HostProgram => return self.start_program(die, now, q),
        };
        let Some(job) = job else {
            return false;
        };
        self.start_job(die, job, now, q);
        true
    }

    fn planes_of(&self, die: u32) -> std::ops::Range<u32> {
        let p = self.layout.planes_per_die;
        die * p..die * p + p
    }

    /// Gives the die its next operation, ending at `at` (a new generation,
    /// so the event of an operation it replaces is ignored).
    fn set_die_op(&mut self, die: u32, op: DieOp, at: Ns, q: &mut impl Timers<DevEvent>) {
        let d = &mut self.dies[die as usize];
        d.gen = d.gen.wrapping_add(1);
        d.op = op;
        q.schedule(at, DevEvent::DieDone { die, gen: d.gen });
    }

    /// The SLC-mode times when `block` runs in SLC mode.
    fn slc_mode(&self, block: u32) -> Option<&SlcCache> {
        self.cfg
            .slc_cache
            .as_ref()
            .filter(|_| self.ftl.is_slc(block))
    }

    /// A nominal array time with the configured spread applied.
    fn vary(&mut self, nominal: Ns) -> Ns {
        let spread = self.cfg.timing.spread;
        if spread == 0.0 {
            return nominal;
        }
        let f: f64 = self.rng.gen_range(1.0 - spread..=1.0 + spread);
        (nominal as f64 * f).round() as Ns
    }

    fn on_die_done(&mut self, die: u32, now: Ns, q: &mut impl Timers<DevEvent>) {
        let op = std::mem::replace(&mut self.dies[die as usize].op, DieOp::Idle);
        match op {
            DieOp::Program { items, .. } => {
                for (lpa, ppa, version) in items {
                    self.commit_flush(lpa, ppa, version, now, q);
                }
            }
            DieOp::Job(mut job) => match job.quota.take() {
                Some(pages) => {
                    job.pages_left -= pages;
                    self.dies[die as usize].paused_gc = Some(job);
                }
                None => self.ftl.erase(job.victim),
            },
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

impl Device for SimSsd {
    type Event = DevEvent;

    fn info(&self) -> DeviceInfo {
        DeviceInfo {
            name: self.cfg.name.clone(),
            page_size: self.layout.page_size,
            logical_pages: self.layout.logical_pages,
        }
    }

    fn submit<Q: Timers<DevEvent>>(
        &mut self,
        cmd: IoCommand,
        now: Ns,
        q: &mut Q,
    ) -> Result<(), CommandError> {
        self.submit_command(cmd, now, q)
    }

    #[inline]
    fn handle<Q: Timers<DevEvent>>(&mut self, ev: DevEvent, now: Ns, q: &mut Q) {
        self.handle_event(ev, now, q);
    }

    fn take_completions(&mut self, out: &mut Vec<IoCompletion>) {
        out.append(&mut self.completions);
    }

    fn now(&self) -> Ns {
        self.clock
    }
}
