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
use rand::{Rng, SeedableRng};
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
    /// Buffered pages have waited `buffer.gather_ns`: partial programs may go.
    GatherDue,
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
            .push_back(ReadTx { slot, lpa, ppa });
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
        self.arm_gather(now, q);
        match self.allocation.home_plane(lpa) {
            Some(plane) => {
                self.plane_flushes[plane as usize].push_back((lpa, now));
                self.wake_for_write(self.layout.die_of_plane(plane), now, q);
            }
            None => {
                self.shared_flushes.push_back((lpa, now));
                self.offer_shared(now, q);
            }
        }
    }

    /// Offers the shared flush queue to the idle dies in channel-first order
    /// until it is empty (an idle die may prefer GC, have no room, or wait to
    /// gather a full program).
    fn offer_shared(&mut self, now: Ns, q: &mut impl Timers<DevEvent>) {
        for d in self.idle_dies_channel_first() {
            if self.shared_flushes.is_empty() {
                break;
            }
            self.try_start(d, now, q);
        }
        // Shared pages concern every die: one running background GC paces it.
        if self.cfg.gc.pacing && !self.shared_flushes.is_empty() {
            for d in 0..self.layout.dies {
                if matches!(self.dies[d as usize].op, DieOp::Job(job) if job.kind == JobKind::Gc) {
                    self.wake_for_write(d, now, q);
                }
            }
        }
    }

    fn arm_gather(&mut self, now: Ns, q: &mut impl Timers<DevEvent>) {
        let gather = self.cfg.buffer.gather_ns;
        if gather > 0 && !self.gather_armed {
            self.gather_armed = true;
            q.schedule(now + gather, DevEvent::GatherDue);
        }
    }

    /// Pages have waited long enough: idle dies program what there is.
    fn on_gather_due(&mut self, now: Ns, q: &mut impl Timers<DevEvent>) {
        self.gather_armed = false;
        for d in self.idle_dies_channel_first() {
            self.try_start(d, now, q);
        }
        // Busy dies too: pages now due preempt folds and pace GC.
        for d in 0..self.layout.dies {
            self.wake_for_write(d, now, q);
        }
        let waiting =
            !self.shared_flushes.is_empty() || self.plane_flushes.iter().any(|f| !f.is_empty());
        if waiting {
            self.arm_gather(now, q);
        }
    }

    /// A mapping update of a host page dirties its table page; when the
    /// dirty-page cache overflows, the `write_back_batch` oldest dirty table
    /// pages are queued for writing back.
    fn note_map_update(&mut self, lpa: u32, now: Ns, q: &mut impl Timers<DevEvent>) {
        let Some(j) = &self.cfg.ftl.map_journal else {
            return;
        };
        let (table_page, limit) = (lpa / j.entries_per_page, j.dirty_pages as usize);
        let batch = j.write_back_batch as usize;
        if !self.map_dirty.insert(table_page) {
            return;
        }
        self.map_dirty_order.push_back(table_page);
        if self.map_dirty_order.len() <= limit {
            return;
        }
        for _ in 0..batch {
            let oldest = self.map_dirty_order.pop_front().expect("over the limit");
            self.map_dirty.remove(&oldest);
            self.shared_flushes.push_back((META, now));
        }
        self.arm_gather(now, q);
        self.offer_shared(now, q);
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
            DieOp::Job(job) if job.kind == JobKind::Fold && self.program_ready(die, now) => {
                self.preempt_job(die, job, now, q)
            }
            DieOp::Job(job) if job.kind == JobKind::Gc && job.quota.is_none() => {
                self.pace_running_job(die, job, now, q)
            }
            _ => {}
        }
    }

    /// Host programs became ready while a background GC job runs unpaced:
    /// it pauses once it has copied a quota more (paced GC only).
    fn pace_running_job(&mut self, die: u32, mut job: Job, now: Ns, q: &mut impl Timers<DevEvent>) {
        let Some(quota) = self.pacing_quota(die, &job, now) else {
            return;
        };
        let done = ((now - job.started).div_ceil(job.step_ns) as u32).min(job.pages_left);
        let pause_after = done + quota;
        if pause_after >= job.pages_left {
            return;
        }
        job.quota = Some(pause_after);
        let d = &mut self.dies[die as usize];
        d.host_turn = true;
        d.gen = d.gen.wrapping_add(1);
        d.op = DieOp::Job(job);
        let at = job.started + pause_after as u64 * job.step_ns;
        q.schedule(at, DevEvent::DieDone { die, gen: d.gen });
    }

    /// Pages a host program on `plane` writes at once: whole flash pages, one
    /// per SLC-mode program, `one_shot_pages` per native one.
    fn program_pages(&self, plane: u32) -> usize {
        let units = self.layout.units_per_flash_page;
        let pages = if self.ftl.host_goes_to_slc(plane) {
            1
        } else {
            self.cfg.timing.one_shot_pages
        };
        (units * pages) as usize
    }

    /// Whether `plane` has a full program queued, or pages that waited
    /// `gather_ns` (always, when flushing eagerly).
    fn plane_ready(&self, plane: u32, now: Ns) -> bool {
        let own = &self.plane_flushes[plane as usize];
        let queued = own.len() + self.shared_flushes.len();
        if queued == 0 {
            return false;
        }
        let gather = self.cfg.buffer.gather_ns;
        if gather == 0 || queued >= self.program_pages(plane) {
            return true;
        }
        let oldest = [own.front(), self.shared_flushes.front()]
            .into_iter()
            .flatten()
            .map(|&(_, t)| t)
            .min()
            .unwrap_or(now);
        oldest + gather <= now
    }

    fn program_ready(&self, die: u32, now: Ns) -> bool {
        self.planes_of(die).any(|p| self.plane_ready(p, now))
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
        if std::mem::take(&mut self.dies[die as usize].host_turn) && self.start_program(die, now, q)
        {
            return;
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
        // Per mapping page: a share of the flash-page read and of the
        // one-shot program.
        let units = self.layout.units_per_flash_page as u64;
        let step_ns = (t.flash_command_ns
            + src_read / units
            + bus
            + t.program_ns / (units * t.one_shot_pages as u64))
            .max(1);
        let opened_before = self.ftl.opened_blocks;
        let capacity = self.ftl.block_capacity(victim) as f64;
        let pages_left = self.ftl.relocate(victim);
        let invalid = (capacity - pages_left as f64).max(1.0);
        // Erasing as blocks open: the job erases the destination blocks it
        // opens instead of its victim.
        let erase_left = if self.cfg.ftl.erase_when_opened {
            (self.ftl.opened_blocks - opened_before) * t.erase_ns
        } else {
            erase
        };
        Job {
            kind,
            critical,
            victim,
            pages_left,
            step_ns,
            erase_left,
            started: 0,
            copies_per_host_page: pages_left as f64 / invalid,
            quota: None,
        }
    }

    fn start_job(&mut self, die: u32, mut job: Job, now: Ns, q: &mut impl Timers<DevEvent>) {
        job.started = now;
        self.clear_registers(die);
        let end = now + job.pages_left as u64 * job.step_ns + job.erase_left;
        job.quota = self.pacing_quota(die, &job, now);
        // Paced: copy the quota, then pause for one host program.
        let at = job
            .quota
            .map_or(end, |pages| now + pages as u64 * job.step_ns);
        let d = &mut self.dies[die as usize];
        d.host_turn = job.quota.is_some();
        d.gen = d.gen.wrapping_add(1);
        d.op = DieOp::Job(job);
        q.schedule(at, DevEvent::DieDone { die, gen: d.gen });
    }

    /// With paced GC, the pages a background job copies before it lets a
    /// waiting host program go: enough for that program's pages to be
    /// covered. None when the job runs to its end (not paced, critical,
    /// nothing waiting, or fewer pages left than the quota).
    fn pacing_quota(&self, die: u32, job: &Job, now: Ns) -> Option<u32> {
        if !self.cfg.gc.pacing || job.critical || job.kind != JobKind::Gc {
            return None;
        }
        if !self.program_ready(die, now) {
            return None;
        }
        let planes = self.planes_of(die);
        let programmed = if self.cfg.timing.multi_plane {
            planes.len()
        } else {
            1
        };
        let host_pages = self.program_pages(planes.start) as f64 * programmed as f64;
        let quota = ((host_pages * job.copies_per_host_page).ceil() as u32).max(1);
        (quota < job.pages_left).then_some(quota)
    }

    /// Host I/O waits for background work only until the page copy in
    /// progress ends (or, with suspend, briefly during the erase).
    fn preempt_job(&mut self, die: u32, mut job: Job, now: Ns, q: &mut impl Timers<DevEvent>) {
        let quota = job.quota.take();
        let copy_end = job.started + job.pages_left as u64 * job.step_ns;
        let pause_at = if now < copy_end {
            // Copies stop only between destination programs (whole one-shot
            // programs of the native mode).
            let grain = (self.layout.units_per_flash_page * self.cfg.timing.one_shot_pages) as u64;
            let started = (now - job.started).div_ceil(job.step_ns);
            let done = (started.div_ceil(grain) * grain)
                .min(job.pages_left as u64)
                .min(quota.map_or(u64::MAX, u64::from));
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

    /// Starts an array read on `die`: one flash page per plane (several
    /// planes with multi-plane reads), serving every queued read of that flash
    /// page at once. A flash page already in its plane's page register needs
    /// no array time.
    fn start_read(&mut self, die: u32, now: Ns, q: &mut impl Timers<DevEvent>) {
        let max_planes = if self.cfg.timing.multi_plane {
            self.layout.planes_per_die as usize
        } else {
            1
        };
        // Buffers of finished reads are reused: no allocation per read.
        let (mut txs, mut sensed) = self.read_scratch.pop().unwrap_or_default();
        txs.clear();
        sensed.clear();
        let mut array_ns = 0;
        let mut i = 0;
        let mut looked = 0;
        while i < self.dies[die as usize].reads.len() && looked < 16 && sensed.len() < max_planes {
            looked += 1;
            let tx = self.dies[die as usize].reads[i];
            // Skip on the address the read was queued with; only a read that
            // fits is looked up again.
            if !self.may_take_read(&sensed, tx.ppa) {
                i += 1;
                continue;
            }
            // Re-resolve: the page may have been rewritten or moved since.
            let ppa = if self.buffer.holds(tx.lpa) {
                NONE
            } else {
                self.ftl.lookup(tx.lpa)
            };
            if ppa == NONE {
                self.dies[die as usize].reads.remove(i);
                self.counters.buffer_read_hits += 1;
                self.read_page_out(tx.slot, now + self.cfg.controller.dram_ns, q);
                continue;
            }
            let plane = self.layout.plane_of(ppa);
            let owner = self.layout.die_of_plane(plane);
            if owner != die {
                self.dies[die as usize].reads.remove(i);
                self.dies[owner as usize]
                    .reads
                    .push_back(ReadTx { ppa, ..tx });
                self.wake_for_read(owner, now, q);
                continue;
            }
            if ppa != tx.ppa {
                self.dies[die as usize].reads[i].ppa = ppa;
                if !self.may_take_read(&sensed, ppa) {
                    i += 1;
                    continue;
                }
            }
            // One page per plane and operation: a further page of the same
            // flash page follows as a register hit.
            let page = self.layout.flash_page_of(ppa);
            sensed.push((plane, page));
            if self.plane_register[plane as usize] == page {
                self.counters.register_hits += 1;
            } else {
                self.counters.flash_reads += 1;
                array_ns = array_ns.max(self.read_time(ppa));
            }
            self.dies[die as usize].reads.remove(i);
            if let Err(e) = self.ftl.verify_flash_read(tx.lpa) {
                self.integrity_error.get_or_insert(e);
            }
            txs.push(ReadTx { ppa, ..tx });
        }
        if txs.is_empty() {
            self.read_scratch.push((txs, sensed));
            return self.try_start(die, now, q);
        }
        if sensed.len() > 1 {
            self.counters.multi_plane_ops += 1;
        }
        self.dies[die as usize].op = DieOp::Read { txs, sensed };
        q.schedule(
            now + self.cfg.timing.flash_command_ns + array_ns,
            DevEvent::ReadArrayDone(die),
        );
    }

    /// Whether a read at `ppa` can join the read being assembled: its plane
    /// is not reading yet and its page address suits a multi-plane read.
    fn may_take_read(&self, sensed: &[(u32, u32)], ppa: u32) -> bool {
        let plane = self.layout.plane_of(ppa);
        sensed.iter().all(|&(p, _)| p != plane) && self.may_join_read(sensed, ppa)
    }

    /// Whether a read of `ppa` on a further plane may join a multi-plane read
    /// of `sensed`: the same page address on each plane, unless the planes
    /// read independently.
    fn may_join_read(&self, sensed: &[(u32, u32)], ppa: u32) -> bool {
        let Some(&(_, first)) = sensed.first() else {
            return true;
        };
        self.cfg.timing.independent_plane_reads
            || self
                .layout
                .flash_page_in_block(first * self.layout.units_per_flash_page)
                == self.layout.flash_page_in_block(ppa)
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

    fn read_time(&mut self, ppa: u32) -> Ns {
        let nominal = self.nominal_read_time(ppa);
        self.vary(nominal)
    }

    fn nominal_read_time(&self, ppa: u32) -> Ns {
        match &self.cfg.slc_cache {
            Some(s) if self.ftl.is_slc(self.layout.block_of(ppa)) => s.read_ns,
            _ => match &self.cfg.timing.read_ns_by_page_type {
                Some(by_type) => {
                    let page = self.layout.flash_page_in_block(ppa) as usize;
                    by_type[page % by_type.len()]
                }
                None => self.cfg.timing.read_ns,
            },
        }
    }

    fn program_time(&mut self, ppa: u32) -> Ns {
        let nominal = match &self.cfg.slc_cache {
            Some(s) if self.ftl.is_slc(self.layout.block_of(ppa)) => s.program_ns,
            _ => self.cfg.timing.program_ns,
        };
        self.vary(nominal)
    }

    fn on_read_array_done(&mut self, die: u32, now: Ns, q: &mut impl Timers<DevEvent>) {
        let DieOp::Read { txs, sensed } =
            std::mem::replace(&mut self.dies[die as usize].op, DieOp::Idle)
        else {
            unreachable!("ReadArrayDone without a read in progress");
        };
        for &(plane, page) in &sensed {
            self.plane_register[plane as usize] = page;
        }
        let ch = self.dies[die as usize].channel as usize;
        let mut t = self.channel_busy[ch].max(now);
        for tx in &txs {
            t += self.page_xfer_ns;
            let decode = self.cfg.controller.read_page_ns;
            self.decode_busy = self.decode_busy.max(t) + decode;
            self.read_page_out(tx.slot, self.decode_busy, q);
        }
        self.channel_busy[ch] = t;
        self.read_scratch.push((txs, sensed));
        let d = &mut self.dies[die as usize];
        d.gen = d.gen.wrapping_add(1);
        // The die stays busy until its data has left the chip.
        d.op = DieOp::ReadOut;
        q.schedule(t, DevEvent::DieDone { die, gen: d.gen });
    }

    /// Programs this die: on each plane (one, or several with multi-plane)
    /// that is ready, up to one program's worth of queued pages. Returns
    /// false when there was nothing to program.
    fn start_program(&mut self, die: u32, now: Ns, q: &mut impl Timers<DevEvent>) -> bool {
        let max_planes = if self.cfg.timing.multi_plane {
            self.layout.planes_per_die as usize
        } else {
            1
        };
        let mut items = Vec::new();
        let mut planes = 0;
        for plane in self.planes_of(die) {
            if planes == max_planes {
                break;
            }
            if !self.ftl.can_write_host(plane) || !self.plane_ready(plane, now) {
                continue;
            }
            let before = items.len();
            for _ in 0..self.program_pages(plane) {
                match self.next_flush(plane) {
                    Some(item) => items.push(item),
                    None => break,
                }
                if !self.ftl.can_write_host(plane) {
                    break;
                }
            }
            if items.len() > before {
                planes += 1;
            }
        }
        if items.is_empty() {
            return false;
        }
        self.counters.flash_programs += planes as u64;
        if planes > 1 {
            self.counters.multi_plane_ops += 1;
        }
        self.clear_registers(die);
        let ch = self.dies[die as usize].channel as usize;
        let xfer_end = self.channel_busy[ch].max(now + self.cfg.timing.flash_command_ns)
            + self.page_xfer_ns * items.len() as u64;
        self.channel_busy[ch] = xfer_end;
        // One array time per plane programmed (its first page stands for it).
        let mut firsts: Vec<u32> = items.iter().map(|&(_, ppa, _)| ppa).collect();
        firsts.dedup_by_key(|ppa| self.layout.plane_of(*ppa));
        let mut prog = 0;
        for ppa in firsts {
            prog = prog.max(self.program_time(ppa));
        }
        prog += self.open_erase_time(&items);
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

    /// The erase that must precede a program opening new blocks (with
    /// `erase_when_opened`; the planes erase in parallel).
    fn open_erase_time(&self, items: &[ProgramItem]) -> Ns {
        if !self.cfg.ftl.erase_when_opened {
            return 0;
        }
        let ppb = self.layout.pages_per_block;
        items
            .iter()
            .filter(|&&(_, ppa, _)| ppa % ppb == 0)
            .map(|&(_, ppa, _)| match &self.cfg.slc_cache {
                Some(s) if self.ftl.is_slc(self.layout.block_of(ppa)) => s.erase_ns,
                _ => self.cfg.timing.erase_ns,
            })
            .max()
            .unwrap_or(0)
    }

    /// A program or erase on the die overwrites its planes' page registers.
    fn clear_registers(&mut self, die: u32) {
        for plane in self.planes_of(die) {
            self.plane_register[plane as usize] = NONE;
        }
    }

    /// The next page to program on `plane`: its own queue first, then the
    /// shared one. Entries trimmed or already flushing are dropped.
    fn next_flush(&mut self, plane: u32) -> Option<ProgramItem> {
        // Older shared entries (mapping-table pages under static allocation)
        // go before the plane's own, so neither starves.
        while self.shared_flushes.front().is_some_and(|&(_, t)| {
            self.plane_flushes[plane as usize]
                .front()
                .is_some_and(|&(_, own)| t < own)
        }) {
            let (lpa, _) = self.shared_flushes.pop_front().expect("checked");
            if let Some(item) = self.take_flush(lpa, plane) {
                return Some(item);
            }
        }
        while let Some((lpa, _)) = self.plane_flushes[plane as usize].pop_front() {
            if let Some(item) = self.take_flush(lpa, plane) {
                return Some(item);
            }
        }
        while let Some((lpa, _)) = self.shared_flushes.pop_front() {
            if let Some(item) = self.take_flush(lpa, plane) {
                return Some(item);
            }
        }
        None
    }

    /// Marks the buffered page as flushing and allocates its flash page.
    /// None when the page no longer needs flushing (trimmed meanwhile).
    fn take_flush(&mut self, lpa: u32, plane: u32) -> Option<(u32, u32, u32)> {
        if lpa == META {
            let ppa = self.ftl.alloc_page(plane, Stream::Host)?;
            return Some((META, ppa, 0));
        }
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
        self.clear_registers(die);
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
        if lpa == META {
            // The table page supersedes an older copy: count the space as
            // garbage at once (the table is a tiny share of the flash).
            self.ftl.commit_stale(ppa);
            self.counters.map_pages_written += 1;
            return;
        }
        let Some(e) = self.buffer.entries.get_mut(&lpa) else {
            unreachable!("flushing page {lpa} has no buffer entry");
        };
        e.flushing = false;
        if e.trimmed {
            self.ftl.commit_stale(ppa);
        } else {
            self.ftl.commit(lpa, ppa, version);
        }
        let mapped = !e.trimmed;
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
        if mapped {
            self.note_map_update(lpa, now, q);
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
