//! The parts `SimSsd` is built from. Each owns one concern's state; the
//! file that works on a part is named beside it. A part's fields are
//! visible to the device's files (`pub(super)`) but to nothing else.

use super::{Die, Flush, ReadScratch, Slot};
use crate::alloc::AllocationPolicy;
use crate::buffer::WriteBuffer;
use crate::die_sched::DieScheduler;
use crate::gc::trigger::GcTrigger;
use crate::gc::GcPolicy;
use crate::ids::{DieId, SlotId};
use rand_chacha::ChaCha8Rng;
use ssdlab_protocol::{IoCommand, IoCompletion, Ns};
use std::collections::VecDeque;

/// The policies the preset names, resolved once when the device is built,
/// and the seeded generator they and the timing spread draw from
/// (`jobs.rs`, `dies.rs`, `writes.rs`).
pub(super) struct Policies {
    pub(super) victim: Box<dyn GcPolicy>,
    pub(super) trigger: Box<dyn GcTrigger>,
    pub(super) allocation: Box<dyn AllocationPolicy>,
    pub(super) die_scheduler: Box<dyn DieScheduler>,
    /// The die scheduler serves by deadline (`DieScheduler::by_deadline`).
    pub(super) by_deadline: bool,
    /// Free blocks of a plane below which GC starts (`gc.soft_threshold`).
    pub(super) soft_blocks: u32,
    pub(super) rng: ChaCha8Rng,
}

/// Command intake (`controller.rs`): submission queues, command slots, the
/// firmware cores and the host link.
pub(super) struct Intake {
    pub(super) sqs: Vec<VecDeque<IoCommand>>,
    /// Commands waiting in all submission queues (a fetch with none to
    /// take returns without scanning the queues).
    pub(super) queued_commands: u32,
    /// The submission queue the round-robin fetch looks at next.
    pub(super) rr: usize,
    pub(super) outstanding: u32,
    pub(super) slots: Vec<Slot>,
    pub(super) free_slots: Vec<SlotId>,
    /// When each firmware core is next free.
    pub(super) ctrl_busy: Vec<Ns>,
    pub(super) link_in_busy: Ns,
    pub(super) link_out_busy: Ns,
    pub(super) completions: Vec<IoCompletion>,
}

/// The write path's queues (`writes.rs`, `deadlines.rs`): the DRAM buffer
/// and the pages waiting to be flushed.
pub(super) struct WritePath {
    pub(super) buffer: WriteBuffer,
    /// Pages waiting to be flushed to their home plane, or to any plane of
    /// their die group (chip clusters): a queue per plane or per group.
    pub(super) own_flushes: Vec<VecDeque<Flush>>,
    /// Each plane's own queue in `own_flushes`.
    pub(super) own_queue: Vec<u32>,
    /// Pages waiting to be flushed to any plane.
    pub(super) shared_flushes: VecDeque<Flush>,
    /// A `GatherDue` event is pending.
    pub(super) gather_armed: bool,
    /// Deadlines of pages rewritten while their older version was being
    /// programmed: the page's next flush inherits it (deadline order only).
    pub(super) late_deadlines: rustc_hash::FxHashMap<u32, Ns>,
}

/// When the SLC cache may fold (`controller.rs`, `jobs.rs`).
pub(super) struct Fold {
    /// Since when no command has been outstanding (None while busy).
    pub(super) idle_since: Option<Ns>,
    /// How long the drive must be idle before a cache with room folds
    /// (`slc_cache.fold_idle_ns`; 0 = no wait).
    pub(super) idle_ns: Ns,
    /// A `FoldDue` is pending (at most one is: an idle period that began
    /// while one was pending is checked when it fires).
    pub(super) due_armed: bool,
}

/// The flash array and its queues (`dies.rs`, `reads.rs`): dies, channels,
/// page registers and the read-out path.
pub(super) struct FlashArray {
    pub(super) dies: Vec<Die>,
    pub(super) channel_busy: Vec<Ns>,
    /// The dies in the order idle dies are offered work: channel first
    /// (die k of channel 0, of channel 1, …, then die k + 1).
    pub(super) channel_first: Vec<DieId>,
    /// The flash page in each plane's page register (None after a program
    /// or erase).
    pub(super) plane_register: Vec<Option<u32>>,
    /// Emptied buffers of finished array reads, for the next ones.
    pub(super) read_scratch: Vec<ReadScratch>,
    /// The controller's read path (decode) is busy until then.
    pub(super) decode_busy: Ns,
    /// One page over a channel, and over the host link.
    pub(super) page_xfer_ns: Ns,
    pub(super) page_link_ns: Ns,
}

/// What the device has counted, and the first data-integrity failure seen
/// on a read (checked runs only).
#[derive(Default)]
pub(super) struct Tally {
    pub(super) counters: super::DeviceCounters,
    pub(super) integrity_error: Option<String>,
    /// Where host pages wait (`waits.rs`), when asked for.
    pub(super) waits: Option<super::waits::WaitBook>,
}
