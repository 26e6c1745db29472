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
//! The device is a handful of parts, each owning one concern's state
//! (`parts.rs`: the resolved policies, command intake, the write path's
//! queues, the fold's idle clock, the flash array, the tally; `map_cache.rs`:
//! the mapping-table cache). This file holds the types and construction;
//! `controller.rs` the controller and event handling, `dies.rs` the die
//! scheduling, `api.rs` the accessors and the `Device` impl, `reads.rs` the
//! read path, `writes.rs` the buffer and program path, `jobs.rs` GC and
//! folding.

use super::buffer::WriteBuffer;
use super::build;
use super::config::{GcExecution, SsdConfig};
use super::ftl::{Ftl, FtlCounters, SlcLending, Stream};
use super::gc::trigger::TriggerCtx;
use super::gc::GcPolicy;
use super::ids::{BlockId, DieId, Lpn, PlaneId, Ppn, SlotId};
use super::layout::Layout;
use map_cache::MapCache;
use parts::{FlashArray, Fold, Intake, Policies, Tally, WritePath};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use ssdlab_protocol::Dir;
use ssdlab_protocol::{Ns, Timers};
use std::collections::VecDeque;

mod api;
mod controller;
mod deadlines;
mod dies;
mod jobs;
mod map_cache;
mod parts;
pub mod precondition;
mod random_steady;
mod read_ahead;
mod reads;
mod waits;
mod writes;

pub use waits::{HostWaits, WaitSplit};

/// The device's own events.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DevEvent {
    /// A fetched command has been decoded (and its write data moved).
    CmdReady(SlotId),
    /// A die's array read finished; its data can cross the channel.
    ReadArrayDone(DieId),
    /// A die finished its current operation (`gen` guards preempted ones).
    DieDone { die: DieId, gen: u32 },
    /// A command's completion is posted to the host.
    CmdComplete(SlotId),
    /// Buffered pages have waited `buffer.gather_ns`: partial programs may go.
    GatherDue,
    /// A check whether the drive has been idle for `slc_cache.fold_idle_ns`
    /// (then folding may start).
    FoldDue,
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

/// Whom an array read is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum ReadFor {
    /// A host command's page.
    Host(SlotId),
    /// The controller's own read-ahead (its data goes to the read-ahead
    /// buffer).
    Prefetch,
    /// A prefetch a host read waits for: scheduled like a host read.
    Promoted,
}

impl ReadFor {
    /// Whether the read is a prefetch (promoted or not).
    fn is_prefetch(self) -> bool {
        !matches!(self, ReadFor::Host(_))
    }
}

#[derive(Debug, Clone, Copy)]
struct ReadTx {
    read_for: ReadFor,
    lpa: Lpn,
    /// Where the page was when the read was queued (re-checked when taken).
    ppa: Ppn,
    /// `ppa`'s plane and the index of its flash page inside its block: what
    /// a die looks at for every queued read when it assembles a
    /// multi-plane read, kept so it need not be worked out again.
    plane: PlaneId,
    page_in_block: u32,
}

impl ReadTx {
    fn new(read_for: ReadFor, lpa: Lpn, ppa: Ppn, layout: &Layout) -> ReadTx {
        ReadTx {
            read_for,
            lpa,
            ppa,
            plane: layout.plane_of(ppa),
            page_in_block: layout.flash_page_in_block(ppa),
        }
    }

    /// The same read of the page now at `ppa`.
    fn moved_to(self, ppa: Ppn, layout: &Layout) -> ReadTx {
        ReadTx::new(self.read_for, self.lpa, ppa, layout)
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum JobKind {
    Gc,
    Fold,
}

/// Planes of one die a GC job collects on at once.
const MAX_PARALLEL_VICTIMS: usize = 4;

/// A GC or fold of victim blocks (one per plane, in parallel): relocations
/// already applied to the maps at start; the die is busy copying
/// `pages_left` pages, then erasing.
#[derive(Debug, Clone, Copy)]
struct Job {
    kind: JobKind,
    critical: bool,
    /// The victims: one per plane the job collects in parallel (a
    /// multi-plane GC job copies on up to `MAX_PARALLEL_VICTIMS` planes of
    /// its die at once).
    victims: [Option<BlockId>; MAX_PARALLEL_VICTIMS],
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

/// What a flush writes: a host page, or a page of the mapping table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum PageData {
    Host(Lpn),
    MapTable,
}

/// One page program in flight: what it writes, where, and the version.
type ProgramItem = (PageData, Ppn, u32);

/// The host pages a program writes (mapping-table pages left out).
fn host_pages(items: &[ProgramItem]) -> impl Iterator<Item = Lpn> + '_ {
    items.iter().filter_map(|&(data, _, _)| match data {
        PageData::Host(lpa) => Some(lpa),
        PageData::MapTable => None,
    })
}

/// A page waiting to be flushed: what, when it was queued, and the
/// deadline of the command that wrote it (`NO_DEADLINE`: none).
type Flush = (PageData, Ns, Ns);

/// The deadline of work that has none: later than any real one.
const NO_DEADLINE: Ns = Ns::MAX;

/// The reads of one array operation and the (plane, flash page) pairs it
/// senses.
type ReadScratch = (Vec<ReadTx>, Vec<(PlaneId, u32)>);

#[derive(Debug, Clone)]
enum DieOp {
    Idle,
    /// Array read of these pages in progress; `sensed` holds (plane, flash
    /// page) for each plane whose array is read.
    Read {
        txs: Vec<ReadTx>,
        sensed: Vec<(PlaneId, u32)>,
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
    /// Pages a mixed program wrote beyond the host share its GC quota
    /// paid for (mapping-table pages): the next quota pays for them.
    unpaid_pages: u32,
}

struct Slot {
    id: u64,
    op: Dir,
    lpa: Lpn,
    pages: u32,
    remaining: u32,
    /// Host-link time of each of its pages (its bytes spread evenly).
    link_ns_per_page: u32,
    latest: Ns,
    /// The command's deadline (`NO_DEADLINE`: none).
    deadline: Ns,
}

pub struct SimSsd {
    cfg: SsdConfig,
    layout: Layout,
    ftl: Ftl,
    policies: Policies,
    intake: Intake,
    writes: WritePath,
    map_cache: MapCache,
    fold: Fold,
    array: FlashArray,
    tally: Tally,
    /// The latest time the device was driven at.
    clock: Ns,
    read_ahead: Option<Box<read_ahead::ReadAheadState>>,
}

impl SimSsd {
    /// Builds an empty (trimmed) device. `check` turns on the data-integrity
    /// shadow used by `check_invariants`.
    pub fn new(cfg: SsdConfig, seed: u64, check: bool) -> SimSsd {
        let layout = cfg.layout();
        let native =
            layout.blocks_per_plane - cfg.slc_cache.as_ref().map_or(0, |s| s.blocks_per_plane);
        let reserve = ((cfg.gc.hard_threshold * native as f64).ceil() as u32).max(1);
        let soft_blocks = ((cfg.gc.soft_threshold * native as f64).ceil() as u32).max(reserve + 1);
        let slc = cfg
            .slc_cache
            .as_ref()
            .map(|s| (s.blocks_per_plane, s.bits_per_cell));
        let mut ftl = Ftl::new(layout.clone(), slc, reserve, check);
        if let Some(s) = &cfg.slc_cache {
            ftl.set_slc_lending(SlcLending {
                max_blocks: s.dynamic_blocks_per_plane,
                keep_free: soft_blocks,
            });
        }
        let t = &cfg.timing;
        let bytes_per_us = (t.channel_mts.saturating_mul(t.channel_width_bits) / 8).max(1);
        let page_xfer_ns = (layout.page_size as u64 * 1000).div_ceil(bytes_per_us);
        let page_link_ns = (layout.page_size as u64 * 1000).div_ceil(cfg.controller.link_mbs);
        let dies = layout
            .all_dies()
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
                unpaid_pages: 0,
            })
            .collect();
        let buffer = WriteBuffer::new((cfg.buffer.capacity_bytes / layout.page_size as u64) as u32);
        let allocation = build::allocation(&cfg, &layout);
        let own_queue = own_queues(&layout, allocation.die_groups());
        let die_scheduler = build::die_scheduler(&cfg);
        SimSsd {
            policies: Policies {
                victim: build::gc_policy(&cfg),
                trigger: build::gc_trigger(&cfg),
                by_deadline: die_scheduler.by_deadline(),
                die_scheduler,
                allocation,
                soft_blocks,
                rng: ChaCha8Rng::seed_from_u64(seed),
            },
            intake: Intake {
                sqs: vec![VecDeque::new(); cfg.controller.submission_queues as usize],
                queued_commands: 0,
                rr: 0,
                outstanding: 0,
                slots: Vec::new(),
                free_slots: Vec::new(),
                ctrl_busy: vec![0; cfg.controller.firmware_cores as usize],
                link_in_busy: 0,
                link_out_busy: 0,
                completions: Vec::new(),
            },
            writes: WritePath {
                buffer,
                own_flushes: vec![
                    VecDeque::new();
                    own_queue.iter().max().map_or(0, |&q| q as usize + 1)
                ],
                own_queue,
                shared_flushes: VecDeque::new(),
                gather_armed: false,
                late_deadlines: Default::default(),
            },
            map_cache: MapCache::default(),
            fold: Fold {
                idle_since: Some(0),
                idle_ns: cfg.slc_cache.as_ref().map_or(0, |s| s.fold_idle_ns),
                due_armed: false,
            },
            array: FlashArray {
                dies,
                channel_busy: vec![0; layout.channels as usize],
                channel_first: channel_first_order(&layout),
                plane_register: vec![None; layout.planes as usize],
                read_scratch: Vec::new(),
                decode_busy: 0,
                page_xfer_ns,
                page_link_ns,
            },
            tally: Tally::default(),
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
}

/// Each plane's own flush queue: its die group's where the allocation
/// groups dies (chip clusters), else a queue of its own.
fn own_queues(layout: &Layout, die_groups: &[u32]) -> Vec<u32> {
    layout
        .all_planes()
        .map(|p| {
            let die = layout.die_of_plane(p).index();
            die_groups.get(die).copied().unwrap_or(p.0)
        })
        .collect()
}

/// The dies channel first: the first die of every channel, then the second…
fn channel_first_order(layout: &Layout) -> Vec<DieId> {
    let per_channel = layout.chips_per_channel * layout.dies_per_chip;
    (0..layout.dies)
        .map(|i| DieId((i % layout.channels) * per_channel + i / layout.channels))
        .collect()
}
