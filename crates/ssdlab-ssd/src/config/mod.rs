//! Device configuration: the device sections of the TOML preset format
//! (this file), their checks (`check.rs`, every problem reported at once)
//! and the memory a device needs (`memory.rs`). Reading a preset file is
//! `ssdlab_sim::preset`'s (a preset also holds the host's settings). Every
//! field is an integer (ns, bytes, counts) or a plain fraction; times are
//! integer nanoseconds.

mod builtin;
mod check;
mod check_clusters;
mod memory;
mod read;
pub use builtin::{BuiltinPreset, PRESETS};
pub use read::DEVICE_KEYS;

pub use crate::toml_sections::line_of_key;

use crate::alloc::AllocationChoice;
pub use crate::alloc::ChipCluster;
use crate::die_sched::DieSchedulerChoice;
use crate::gc::trigger::GcTriggerChoice;
pub use crate::gc::trigger::OnDemand;
use crate::gc::GcPolicyChoice;
pub use crate::layout::{Geometry, Layout};
use crate::registry::Choice;
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct SsdConfig {
    pub name: String,
    #[serde(default)]
    pub description: String,
    pub geometry: Geometry,
    pub timing: Timing,
    #[serde(default)]
    pub controller: Controller,
    #[serde(default)]
    pub buffer: Buffer,
    #[serde(default)]
    pub slc_cache: Option<SlcCache>,
    #[serde(default)]
    pub ftl: Ftl,
    #[serde(default)]
    pub gc: Gc,
}

impl SsdConfig {
    /// The flat indices of this device's flash array and logical space.
    pub fn layout(&self) -> Layout {
        Layout::new(&self.geometry, self.ftl.over_provisioning)
    }
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Timing {
    /// Array read of one flash page (tR).
    pub read_ns: u64,
    /// tR by page type of a native-mode block (LSB, CSB, MSB for TLC): flash
    /// page `i` of a block has type `i % len`. Replaces `read_ns` for native
    /// blocks when given.
    #[serde(default)]
    pub read_ns_by_page_type: Option<Vec<u64>>,
    /// Array program of one program operation (tPROG): `one_shot_pages`
    /// flash pages of a plane.
    pub program_ns: u64,
    /// Flash pages a native-mode program writes at once (TLC one-shot
    /// programming: 3). SLC-mode blocks program one flash page.
    #[serde(default = "one")]
    pub one_shot_pages: u32,
    /// Each array read and program takes its nominal time × a factor drawn
    /// uniformly from [1 − spread, 1 + spread] (program-loop and read-retry
    /// variation; 0 = fixed times).
    #[serde(default)]
    pub spread: f64,
    /// Block erase (tBERS).
    pub erase_ns: u64,
    /// Channel transfer rate in mega-transfers per second.
    pub channel_mts: u64,
    /// Channel width in bits (bytes per transfer × 8).
    pub channel_width_bits: u64,
    /// Command and address cycles of one flash command.
    #[serde(default = "default_flash_command_ns")]
    pub flash_command_ns: u64,
    /// Multi-plane operations: a die may run one read or program on several of
    /// its planes at once.
    #[serde(default)]
    pub multi_plane: bool,
    /// A multi-plane read may sense a different page on each plane
    /// (independent plane reads); otherwise the planes' page addresses must
    /// match, as in MQSim.
    #[serde(default)]
    pub independent_plane_reads: bool,
    /// Program/erase suspend: a read arriving at a die busy with a program or
    /// erase suspends it, runs, and the program resumes.
    #[serde(default)]
    pub suspend: Option<Suspend>,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Suspend {
    /// Time to suspend an ongoing program or erase.
    pub suspend_ns: u64,
    /// Time to resume it after the read.
    pub resume_ns: u64,
}

fn one() -> u32 {
    1
}

fn default_flash_command_ns() -> u64 {
    100
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Controller {
    /// Device queue depth: commands fetched and not yet completed.
    pub queue_depth: u32,
    /// Number of NVMe submission queues served round-robin.
    pub submission_queues: u32,
    /// Controller firmware time to decode one command (serial on its
    /// firmware core; fetching it over PCIe is `pcie_read_ns`).
    pub command_ns: u64,
    /// Firmware cores that decode commands; submission queue `i` is served
    /// by core `i mod firmware_cores` (NVMe queues exist so that cores can
    /// work on them in parallel).
    #[serde(default = "one")]
    pub firmware_cores: u32,
    /// Time to post a completion entry and raise the interrupt.
    pub completion_ns: u64,
    /// Host link payload bandwidth in MB/s, each direction (PCIe is full duplex).
    pub link_mbs: u64,
    /// DRAM access for a buffer hit or a buffered write.
    pub dram_ns: u64,
    /// Round trip of a PCIe memory read by the drive: fetching a command's
    /// submission entry, and a write's data, from host memory. Latency
    /// only: other transfers proceed meanwhile (0 = none; left out of the
    /// serialized form at 0, so that study cache keys stay as they were).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub pcie_read_ns: u64,
    /// Controller time per page read from flash (ECC decode), serial across
    /// the controller (0 = none).
    #[serde(default)]
    pub read_page_ns: u64,
    /// Extra firmware time of a read command on the serial command path
    /// (mapping lookups, flash command issue, DMA set-up), once per command
    /// whatever its length (0 = none).
    #[serde(default)]
    pub read_command_ns: u64,
    /// Extra firmware time of a write command on the serial command path
    /// (a write-buffer slot and the mapping update at intake), once per
    /// command whatever its length (0 = none; left out of the serialized
    /// form at 0, so that study cache keys stay as they were).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub write_command_ns: u64,
    /// Read-ahead for sequential read streams (absent = none).
    #[serde(default)]
    pub read_ahead: Option<ReadAhead>,
    /// The order in which a die serves its ready work (ssd::die_sched).
    #[serde(default = "default_die_scheduler")]
    pub die_scheduler: DieSchedulerChoice,
}

fn default_die_scheduler() -> DieSchedulerChoice {
    Choice::parse("priority").expect("the default die scheduler is registered")
}

/// Controller read-ahead: `streams` sequential streams are tracked; once a
/// stream has read two pages in a row, the controller keeps up to `depth`
/// pages ahead of it prefetched, topping the window up `chunk` pages at a
/// time, into a read-ahead buffer of `buffer_pages` pages (a page being
/// prefetched holds its place; a page handed to the host frees it; the
/// oldest is evicted first).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct ReadAhead {
    pub streams: u32,
    pub depth: u32,
    pub chunk: u32,
    pub buffer_pages: u32,
}

impl Default for Controller {
    fn default() -> Self {
        Controller {
            queue_depth: 1024,
            submission_queues: 1,
            command_ns: 1_000,
            firmware_cores: 1,
            completion_ns: 1_000,
            link_mbs: 3_200,
            dram_ns: 1_000,
            pcie_read_ns: 0,
            read_page_ns: 0,
            read_command_ns: 0,
            write_command_ns: 0,
            read_ahead: None,
            die_scheduler: default_die_scheduler(),
        }
    }
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Buffer {
    /// DRAM write-buffer capacity in bytes; 0 disables buffering (writes
    /// complete when programmed).
    pub capacity_bytes: u64,
    /// How long a buffered page may wait for a full program's worth of
    /// pages on its plane before a partial program starts (0: flush eagerly,
    /// whatever is there).
    #[serde(default)]
    pub gather_ns: u64,
}

impl Default for Buffer {
    fn default() -> Self {
        Buffer {
            capacity_bytes: 256 << 20,
            gather_ns: 0,
        }
    }
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct SlcCache {
    /// Blocks per plane that run in SLC mode as a write cache.
    pub blocks_per_plane: u32,
    /// Bits per cell of the native (TLC = 3) mode: an SLC-mode block holds
    /// pages_per_block / bits_per_cell pages.
    pub bits_per_cell: u32,
    pub read_ns: u64,
    pub program_ns: u64,
    pub erase_ns: u64,
    /// The cache's dynamic part: the most free native blocks of a plane
    /// used in SLC mode at once, while the plane has free blocks beyond its
    /// spare and GC's soft threshold, i.e. out of unwritten user capacity
    /// (so it shrinks as the drive fills; 0 = a static cache only).
    #[serde(default)]
    pub dynamic_blocks_per_plane: u32,
    /// A cache with free room is folded only once no command has been
    /// outstanding for this long; a full one whenever a die has nothing
    /// else to do (0: always the latter).
    #[serde(default)]
    pub fold_idle_ns: u64,
}

impl SlcCache {
    /// Flash pages one SLC-mode program writes: the NAND pages of one
    /// wordline. A native one-shot program writes `one_shot_pages` flash
    /// pages on a wordline of `bits_per_cell` NAND pages, so one SLC page
    /// is `one_shot_pages / bits_per_cell` flash pages (at least one).
    pub fn program_pages(&self, one_shot_pages: u32) -> u32 {
        (one_shot_pages / self.bits_per_cell.max(1)).max(1)
    }
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Ftl {
    /// Spare share of the physical space: logical = physical × (1 − op).
    pub over_provisioning: f64,
    /// Page-allocation policy (`static`, `dynamic`, `clusters`).
    pub allocation: AllocationChoice,
    /// Persisting the mapping table: off when absent.
    #[serde(default)]
    pub map_journal: Option<MapJournal>,
    /// Erase a free block when it is opened for writing (its first program
    /// waits for the erase), not when GC frees it.
    #[serde(default)]
    pub erase_when_opened: bool,
    /// How logical pages map to flash: `page` (page mapping, the NVMe
    /// model) or `hybrid` (FAST log-block mapping on the SATA-era model).
    #[serde(default)]
    pub mapping: Mapping,
    /// Random-write log blocks of the hybrid mapping (logical blocks it
    /// may hold updates for at once).
    #[serde(default = "default_log_blocks")]
    pub log_blocks: u32,
    /// Chip clusters of the `clusters` allocation: each a range of the
    /// logical space whose pages are written only to its chips.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub clusters: Vec<ChipCluster>,
}

/// The FTL's mapping scheme.
#[derive(Debug, Clone, Copy, Default, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum Mapping {
    #[default]
    Page,
    Hybrid,
}

fn default_log_blocks() -> u32 {
    16
}

impl Default for Ftl {
    fn default() -> Self {
        Ftl {
            over_provisioning: 0.07,
            allocation: Choice::parse("static").expect("registered"),
            map_journal: None,
            erase_when_opened: false,
            mapping: Mapping::Page,
            log_blocks: default_log_blocks(),
            clusters: Vec::new(),
        }
    }
}

/// The FTL keeps the mapping-table pages its host writes dirty in a DRAM
/// cache of `dirty_pages` table pages and writes the oldest back to flash
/// when a new one does not fit (docs/model.md, "Mapping-table persistence").
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct MapJournal {
    /// Logical pages one mapping-table page covers (4 KiB of 4-byte entries:
    /// 1024).
    pub entries_per_page: u32,
    /// Dirty table pages the cache holds before writing back.
    pub dirty_pages: u32,
    /// Table pages written back at once when the cache overflows (the
    /// oldest ones).
    #[serde(default = "one")]
    pub write_back_batch: u32,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Gc {
    /// Victim policy (see `ssdlab presets --gc`).
    pub policy: GcPolicyChoice,
    /// A plane collects in the background while its free blocks are below
    /// this share of its blocks.
    pub soft_threshold: f64,
    /// Below this share host writes to the plane stop until GC frees space.
    pub hard_threshold: f64,
    /// Relocate valid pages inside the chip instead of over the channel.
    pub copy_back: bool,
    /// How a GC job shares its die with host I/O.
    #[serde(default)]
    pub execution: GcExecution,
    /// When a plane collects in the background: `threshold` (free blocks
    /// below soft_threshold), `eager70` or `on-demand` (after Lee, Choi,
    /// Hong, Electronics 12(9):2142, 2023; see docs/model.md).
    #[serde(default = "default_trigger")]
    pub trigger: GcTriggerChoice,
    /// Background GC only once this share of the SSD's blocks is in use
    /// (0 = always; the on-demand study uses 0.70). GC at the host reserve
    /// always runs.
    #[serde(default)]
    pub enable_at_full: f64,
    /// Parameters of the on-demand trigger and the prioritized victims.
    #[serde(default)]
    pub on_demand: OnDemand,
    /// Background GC paces itself against host writes: while programs
    /// wait, a job copies only as many pages as one host program needs to
    /// stay covered (valid / invalid pages of its victim per host page),
    /// then lets one program go (default false: background GC goes first).
    #[serde(default)]
    pub pacing: bool,
    /// With pacing, every program of a die that collects carries host
    /// pages and GC copies in the ratio its victims pay for (one write
    /// point for both), instead of a whole host program after a quota of
    /// copies: host pages commit at every program (default false).
    #[serde(default)]
    pub mixed_programs: bool,
    /// Candidates the `randomized-greedy` policy samples per victim
    /// (0 = log2 of the blocks per plane, as MQSim's RGA). Left out of the
    /// serialized form at 0, so that study cache keys stay as they were.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub rga_samples: u32,
}

fn is_zero<T: Default + PartialEq>(n: &T) -> bool {
    *n == T::default()
}

fn default_trigger() -> GcTriggerChoice {
    Choice::parse("threshold").expect("the default trigger is registered")
}

/// GC execution mode: the PBGC and BBGC baselines of Lee, Choi, Hong (2023),
/// as ssdlab reads them (docs/model.md).
#[derive(Debug, Clone, Copy, Default, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum GcExecution {
    /// PBGC: a GC job holds its die from start to end; host I/O waits.
    PlaneBlocking,
    /// BBGC: host reads go between the job's page copies (the victim block
    /// alone is locked); GC goes before host writes, and before reads too
    /// when the plane is at its reserve.
    #[default]
    BlockBlocking,
}

impl Default for Gc {
    fn default() -> Self {
        Gc {
            policy: Choice::parse("greedy").expect("registered"),
            soft_threshold: 0.05,
            hard_threshold: 0.005,
            copy_back: false,
            execution: GcExecution::BlockBlocking,
            trigger: default_trigger(),
            enable_at_full: 0.0,
            on_demand: OnDemand::default(),
            pacing: false,
            mixed_programs: false,
            rga_samples: 0,
        }
    }
}
