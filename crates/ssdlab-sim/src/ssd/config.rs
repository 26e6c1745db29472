//! Device configuration: the TOML preset format, its validation and the
//! built-in presets. Every field is an integer (ns, bytes, counts) or a plain
//! fraction; times are integer nanoseconds.

use crate::error::InputError;
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
    /// The host block layer the preset was calibrated with (docs/model.md,
    /// "Host path"); runs use it unless given `--host`.
    #[serde(default)]
    pub host: Option<crate::host::HostConfig>,
}

impl SsdConfig {
    /// The host settings to run this device with when none are given.
    pub fn default_host(&self) -> crate::host::HostConfig {
        self.host.clone().unwrap_or_default()
    }
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Geometry {
    pub channels: u32,
    pub chips_per_channel: u32,
    pub dies_per_chip: u32,
    pub planes_per_die: u32,
    pub blocks_per_plane: u32,
    /// Give exactly one of `pages_per_block` and `block_size` (bytes).
    #[serde(default)]
    pub pages_per_block: Option<u32>,
    #[serde(default)]
    pub block_size: Option<u64>,
    /// The mapping unit in bytes: the FTL maps, buffers and transfers pages
    /// of this size.
    pub page_size: u32,
    /// The flash page in bytes (default: `page_size`): one array read senses
    /// a whole flash page into the plane's page register, and one program
    /// writes whole flash pages. A multiple of `page_size`.
    #[serde(default)]
    pub flash_page_size: Option<u32>,
}

impl Geometry {
    /// Pages per block, from whichever of the two fields is set (validated).
    pub fn pages_per_block(&self) -> u32 {
        match (self.pages_per_block, self.block_size) {
            (Some(n), _) => n,
            (None, Some(b)) => (b / self.page_size.max(1) as u64) as u32,
            (None, None) => 0,
        }
    }

    /// Mapping units (pages) per flash page.
    pub fn units_per_flash_page(&self) -> u32 {
        self.flash_page_size.unwrap_or(self.page_size) / self.page_size.max(1)
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
    /// Controller firmware time to fetch and decode one command (serial).
    pub command_ns: u64,
    /// Time to post a completion entry and raise the interrupt.
    pub completion_ns: u64,
    /// Host link payload bandwidth in MB/s, each direction (PCIe is full duplex).
    pub link_mbs: u64,
    /// DRAM access for a buffer hit or a buffered write.
    pub dram_ns: u64,
    /// Controller time per page read from flash (mapping lookup and ECC
    /// decode), serial across the controller (0 = none).
    #[serde(default)]
    pub read_page_ns: u64,
    /// Read-ahead for sequential read streams (absent = none).
    #[serde(default)]
    pub read_ahead: Option<ReadAhead>,
    /// The order in which a die serves its ready work (ssd::die_sched).
    #[serde(default = "default_die_scheduler")]
    pub die_scheduler: String,
}

fn default_die_scheduler() -> String {
    "priority".into()
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
            completion_ns: 1_000,
            link_mbs: 3_200,
            dram_ns: 1_000,
            read_page_ns: 0,
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
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Ftl {
    /// Spare share of the physical space: logical = physical × (1 − op).
    pub over_provisioning: f64,
    /// Page-allocation policy name (`static`, `dynamic`).
    pub allocation: String,
    /// Persisting the mapping table: off when absent.
    #[serde(default)]
    pub map_journal: Option<MapJournal>,
    /// Erase a free block when it is opened for writing (its first program
    /// waits for the erase), not when GC frees it.
    #[serde(default)]
    pub erase_when_opened: bool,
}

impl Default for Ftl {
    fn default() -> Self {
        Ftl {
            over_provisioning: 0.07,
            allocation: "static".into(),
            map_journal: None,
            erase_when_opened: false,
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
    /// Victim policy name (see `ssdlab presets --gc`).
    pub policy: String,
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
    pub trigger: String,
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
}

fn default_trigger() -> String {
    "threshold".into()
}

/// Parameters of the on-demand trigger and the prioritized victims (after
/// Lee, Choi, Hong, Electronics 12(9):2142, 2023). The paper gives none of
/// these values: every default is a choice of ours (see docs/model.md).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct OnDemand {
    /// Minimum free space a plane keeps (R_min), in blocks.
    pub r_min_blocks: u32,
    /// Horizon H: the plane must absorb the writes expected in this time.
    pub horizon_ns: u64,
    /// θ_IR: a candidate must be at least this invalid to collect early.
    pub theta_ir: f64,
    /// hard_min: below this many free blocks GC runs whatever the candidates.
    pub hard_min_blocks: u32,
    /// λ: weight that defers still-hot blocks (0 = pure gain/cost).
    pub lambda: f64,
    /// H_exp: horizon over which a hot block is expected to invalidate.
    pub hot_horizon_ns: u64,
    /// W: window of the write-rate estimate.
    pub window_ns: u64,
    /// EWMA weight of the newest window.
    pub ewma_weight: f64,
    /// Global-order variant: a die collects, among all its due planes, the
    /// victim the policy ranks highest (else the first due plane's).
    pub global_order: bool,
}

impl Default for OnDemand {
    fn default() -> Self {
        OnDemand {
            r_min_blocks: 2,
            horizon_ns: 50_000_000,
            theta_ir: 0.5,
            hard_min_blocks: 1,
            lambda: 0.0,
            hot_horizon_ns: 1_000_000_000,
            window_ns: 100_000_000,
            ewma_weight: 0.2,
            global_order: false,
        }
    }
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
            policy: "greedy".into(),
            soft_threshold: 0.05,
            hard_threshold: 0.005,
            copy_back: false,
            execution: GcExecution::BlockBlocking,
            trigger: default_trigger(),
            enable_at_full: 0.0,
            on_demand: OnDemand::default(),
            pacing: false,
        }
    }
}

/// A built-in preset: its name and TOML source.
pub struct Preset {
    pub name: &'static str,
    pub source: &'static str,
}

pub const PRESETS: &[Preset] = &[
    Preset {
        name: "mqsim-64g",
        source: include_str!("../../presets/mqsim-64g.toml"),
    },
    Preset {
        name: "seed004",
        source: include_str!("../../presets/seed004.toml"),
    },
    Preset {
        name: "consumer-tlc-250g",
        source: include_str!("../../presets/consumer-tlc-250g.toml"),
    },
];

impl SsdConfig {
    /// Loads a built-in preset by name, or a TOML file by path.
    pub fn load(name_or_path: &str) -> Result<SsdConfig, InputError> {
        if let Some(p) = PRESETS.iter().find(|p| p.name == name_or_path) {
            return Self::from_toml(p.source, &format!("<preset {}>", p.name));
        }
        let text = std::fs::read_to_string(name_or_path).map_err(|e| {
            let names: Vec<_> = PRESETS.iter().map(|p| p.name).collect();
            InputError::invalid(
                name_or_path,
                format!(
                    "not a preset ({}) and not a readable file: {e}",
                    names.join(", ")
                ),
            )
        })?;
        Self::from_toml(&text, name_or_path)
    }

    /// Parses and validates a preset. `file` names the source in errors.
    pub fn from_toml(text: &str, file: &str) -> Result<SsdConfig, InputError> {
        let cfg: SsdConfig = toml::from_str(text).map_err(|e| {
            let line = e.span().map(|s| line_of_offset(text, s.start)).unwrap_or(1);
            InputError::At {
                file: file.into(),
                line,
                field: field_of_toml_error(&e),
                message: e.message().to_string(),
            }
        })?;
        cfg.validate().map_err(|(key, message)| InputError::At {
            file: file.into(),
            line: line_of_key(text, &key),
            field: key,
            message,
        })?;
        Ok(cfg)
    }

    /// Checks the values that parse but make no device. Returns the dotted key
    /// and the reason.
    pub fn validate(&self) -> Result<(), (String, String)> {
        let g = &self.geometry;
        let positive = [
            ("geometry.channels", g.channels as u64),
            ("geometry.chips_per_channel", g.chips_per_channel as u64),
            ("geometry.dies_per_chip", g.dies_per_chip as u64),
            ("geometry.planes_per_die", g.planes_per_die as u64),
            ("geometry.blocks_per_plane", g.blocks_per_plane as u64),
            ("geometry.page_size", g.page_size as u64),
            ("timing.read_ns", self.timing.read_ns),
            ("timing.program_ns", self.timing.program_ns),
            ("timing.erase_ns", self.timing.erase_ns),
            ("timing.channel_mts", self.timing.channel_mts),
            ("timing.channel_width_bits", self.timing.channel_width_bits),
            ("controller.queue_depth", self.controller.queue_depth as u64),
            (
                "controller.submission_queues",
                self.controller.submission_queues as u64,
            ),
            ("controller.link_mbs", self.controller.link_mbs),
        ];
        for (key, v) in positive {
            if v == 0 {
                return Err((key.into(), "must be greater than zero".into()));
            }
        }
        let err = |k: &str, m: String| Err((k.to_string(), m));
        if !g.page_size.is_multiple_of(512) {
            return err(
                "geometry.page_size",
                "must be a multiple of 512 bytes".into(),
            );
        }
        match (g.pages_per_block, g.block_size) {
            (Some(_), Some(_)) | (None, None) => {
                return err(
                    "geometry.pages_per_block",
                    "give exactly one of pages_per_block and block_size".into(),
                )
            }
            (Some(0), None) => {
                return err(
                    "geometry.pages_per_block",
                    "must be greater than zero".into(),
                )
            }
            (None, Some(b)) if b < g.page_size as u64 => {
                return err(
                    "geometry.block_size",
                    format!(
                        "block of {b} bytes is smaller than a page ({} bytes)",
                        g.page_size
                    ),
                )
            }
            (None, Some(b)) if b % g.page_size as u64 != 0 => {
                return err(
                    "geometry.block_size",
                    "must be a whole number of pages".into(),
                )
            }
            _ => {}
        }
        if let Some(f) = g.flash_page_size {
            if f < g.page_size || f % g.page_size != 0 || f / g.page_size > 64 {
                return err(
                    "geometry.flash_page_size",
                    format!(
                        "must be 1 to 64 mapping pages of {} bytes (got {f})",
                        g.page_size
                    ),
                );
            }
        }
        let unit = g.units_per_flash_page() * self.timing.one_shot_pages.clamp(1, 8);
        if !g.pages_per_block().is_multiple_of(unit) {
            return err(
                "geometry.pages_per_block",
                format!("must be a whole number of programs ({unit} pages each)"),
            );
        }
        if self.buffer.gather_ns > 1_000_000_000 {
            return err("buffer.gather_ns", "must be at most 1 s".into());
        }
        if let Some((key, _)) = self
            .durations()
            .into_iter()
            .find(|&(_, v)| v > MAX_DURATION_NS)
        {
            return err(&key, "must be at most 10 s (10_000_000_000 ns)".into());
        }
        let spread = self.timing.spread;
        if !(0.0..1.0).contains(&spread) {
            return err("timing.spread", format!("{spread} must be in [0, 1)"));
        }
        if self.timing.one_shot_pages == 0 || self.timing.one_shot_pages > 8 {
            return err("timing.one_shot_pages", "must be in [1, 8]".into());
        }
        if let Some(types) = &self.timing.read_ns_by_page_type {
            if types.is_empty() || types.len() > 4 || types.contains(&0) {
                return err(
                    "timing.read_ns_by_page_type",
                    "give 1 to 4 read times, each greater than zero".into(),
                );
            }
        }
        if let Some(host) = &self.host {
            if let Err(e) = host.validate() {
                return match e {
                    InputError::Invalid { context, message } => Err((context, message)),
                    other => Err(("host".into(), other.to_string())),
                };
            }
        }
        if let Some(j) = &self.ftl.map_journal {
            if j.entries_per_page == 0
                || j.dirty_pages == 0
                || j.write_back_batch == 0
                || j.write_back_batch > j.dirty_pages
            {
                return err(
                    "ftl.map_journal",
                    "entries_per_page, dirty_pages and write_back_batch must be greater than zero, write_back_batch at most dirty_pages".into(),
                );
            }
        }
        if let Err(e) = super::die_sched::build(&self.controller.die_scheduler) {
            return Err(("controller.die_scheduler".into(), e));
        }
        if let Some(ra) = &self.controller.read_ahead {
            let limits = [
                ("streams", ra.streams, 1024),
                ("depth", ra.depth, 65_536),
                ("chunk", ra.chunk, ra.depth),
                ("buffer_pages", ra.buffer_pages, 1 << 24),
            ];
            for (key, v, max) in limits {
                if v == 0 || v > max {
                    return err(
                        &format!("controller.read_ahead.{key}"),
                        format!("{v} is outside 1 ..= {max}"),
                    );
                }
            }
        }
        if g.pages_per_block() > u16::MAX as u32 {
            return err(
                "geometry.pages_per_block",
                "at most 65535 pages per block".into(),
            );
        }
        let pages = g.channels as u64
            * g.chips_per_channel as u64
            * g.dies_per_chip as u64
            * g.planes_per_die as u64
            * g.blocks_per_plane as u64
            * g.pages_per_block() as u64;
        if pages >= u32::MAX as u64 {
            return err(
                "geometry",
                format!("{pages} physical pages exceed the 2^32 - 1 page limit"),
            );
        }
        if !self.timing.channel_width_bits.is_multiple_of(8) {
            return err(
                "timing.channel_width_bits",
                "must be a multiple of 8".into(),
            );
        }
        let op = self.ftl.over_provisioning;
        if !(op > 0.0 && op < 0.9) {
            return err("ftl.over_provisioning", format!("{op} is outside (0, 0.9)"));
        }
        let names = crate::ssd::alloc::policy_names();
        if !names.contains(&self.ftl.allocation.as_str()) {
            return err(
                "ftl.allocation",
                format!(
                    "unknown policy '{}' (known: {})",
                    self.ftl.allocation,
                    names.join(", ")
                ),
            );
        }
        let gc = &self.gc;
        let triggers = crate::ssd::gc::trigger::trigger_names();
        if !triggers.contains(&gc.trigger.as_str()) {
            return err(
                "gc.trigger",
                format!(
                    "unknown trigger '{}' (known: {})",
                    gc.trigger,
                    triggers.join(", ")
                ),
            );
        }
        if !(0.0..1.0).contains(&gc.enable_at_full) {
            return err(
                "gc.enable_at_full",
                format!("{} must be in [0, 1)", gc.enable_at_full),
            );
        }
        let od = &gc.on_demand;
        if !(0.0..=1.0).contains(&od.theta_ir) || od.lambda < 0.0 || !od.lambda.is_finite() {
            return err(
                "gc.on_demand",
                "theta_ir must be in [0, 1] and lambda ≥ 0".into(),
            );
        }
        if od.window_ns == 0 || !(od.ewma_weight > 0.0 && od.ewma_weight <= 1.0) {
            return err(
                "gc.on_demand",
                "window_ns must be > 0 and ewma_weight in (0, 1]".into(),
            );
        }
        if crate::ssd::gc::policy_names()
            .iter()
            .all(|n| *n != gc.policy)
        {
            return err(
                "gc.policy",
                format!(
                    "unknown policy '{}' (known: {})",
                    gc.policy,
                    crate::ssd::gc::policy_names().join(", ")
                ),
            );
        }
        if !(gc.soft_threshold >= 0.0 && gc.soft_threshold < op) {
            return err(
                "gc.soft_threshold",
                format!("{} must be in [0, over_provisioning)", gc.soft_threshold),
            );
        }
        if !(gc.hard_threshold >= 0.0 && gc.hard_threshold <= gc.soft_threshold) {
            return err(
                "gc.hard_threshold",
                format!("{} must be in [0, soft_threshold]", gc.hard_threshold),
            );
        }
        let spare_blocks = (g.blocks_per_plane as f64 * op) as u64;
        let slc_blocks = self
            .slc_cache
            .as_ref()
            .map_or(0, |c| c.blocks_per_plane as u64);
        let native = g.blocks_per_plane as u64 - slc_blocks.min(g.blocks_per_plane as u64);
        let reserve = ((gc.hard_threshold * native as f64).ceil() as u64).max(1);
        // GC needs, besides the host reserve, two open frontiers and one block
        // of invalid pages to make progress.
        let needed = reserve + 3;
        if spare_blocks < needed + slc_blocks {
            return err(
                "ftl.over_provisioning",
                format!(
                    "leaves {} spare native blocks per plane; GC needs at least {needed}",
                    spare_blocks.saturating_sub(slc_blocks)
                ),
            );
        }
        if let Some(slc) = &self.slc_cache {
            if slc.bits_per_cell < 2 {
                return err(
                    "slc_cache.bits_per_cell",
                    "must be at least 2 (TLC = 3)".into(),
                );
            }
            if slc.blocks_per_plane == 0 || slc.blocks_per_plane as u64 * 2 > spare_blocks {
                return err(
                    "slc_cache.blocks_per_plane",
                    format!(
                        "must be in [1, {}] (half the spare blocks)",
                        spare_blocks / 2
                    ),
                );
            }
            let slc_pages = g.pages_per_block() / slc.bits_per_cell;
            if slc_pages == 0 || !slc_pages.is_multiple_of(g.units_per_flash_page()) {
                return err(
                    "slc_cache.bits_per_cell",
                    "leaves no page, or a partial flash page, in an SLC-mode block".into(),
                );
            }
            for (k, v) in [
                ("slc_cache.read_ns", slc.read_ns),
                ("slc_cache.program_ns", slc.program_ns),
                ("slc_cache.erase_ns", slc.erase_ns),
            ] {
                if v == 0 {
                    return err(k, "must be greater than zero".into());
                }
            }
        }
        Ok(())
    }
}

/// The longest flash or controller time a preset may give: ten seconds keeps
/// every sum of times far from overflowing.
const MAX_DURATION_NS: u64 = 10_000_000_000;

impl SsdConfig {
    /// Every duration of the preset, with its dotted key.
    fn durations(&self) -> Vec<(String, u64)> {
        let t = &self.timing;
        let c = &self.controller;
        let mut all: Vec<(String, u64)> = [
            ("timing.read_ns", t.read_ns),
            ("timing.program_ns", t.program_ns),
            ("timing.erase_ns", t.erase_ns),
            ("timing.flash_command_ns", t.flash_command_ns),
            ("controller.command_ns", c.command_ns),
            ("controller.completion_ns", c.completion_ns),
            ("controller.dram_ns", c.dram_ns),
            ("controller.read_page_ns", c.read_page_ns),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_string(), v))
        .collect();
        if let Some(s) = &t.suspend {
            all.push(("timing.suspend".into(), s.suspend_ns.max(s.resume_ns)));
        }
        if let Some(types) = &t.read_ns_by_page_type {
            let longest = types.iter().copied().max().unwrap_or(0);
            all.push(("timing.read_ns_by_page_type".into(), longest));
        }
        if let Some(slc) = &self.slc_cache {
            let longest = slc.read_ns.max(slc.program_ns).max(slc.erase_ns);
            all.push(("slc_cache".into(), longest));
        }
        all
    }
}

fn line_of_offset(text: &str, offset: usize) -> usize {
    text.as_bytes()[..offset.min(text.len())]
        .iter()
        .filter(|&&b| b == b'\n')
        .count()
        + 1
}

/// The line where a dotted key (`table.key`) is set, or the table header, or 1.
pub fn line_of_key(text: &str, dotted: &str) -> usize {
    let (table, key) = match dotted.rsplit_once('.') {
        Some((t, k)) => (t, k),
        None => ("", dotted),
    };
    let mut current = String::new();
    let mut header_line = None;
    for (i, raw) in text.lines().enumerate() {
        let line = raw.trim();
        if let Some(h) = line.strip_prefix('[') {
            current = h.trim_end_matches(']').trim().to_string();
            if current == dotted || current == table {
                header_line.get_or_insert(i + 1);
            }
            continue;
        }
        if current == table {
            if let Some((k, _)) = line.split_once('=') {
                if k.trim() == key {
                    return i + 1;
                }
            }
        }
    }
    header_line.unwrap_or(1)
}

fn field_of_toml_error(e: &toml::de::Error) -> String {
    // toml's messages name the key ("unknown field `foo`"); keep the message as
    // it is and give the field separately when we can find it.
    let msg = e.message();
    if let Some(start) = msg.find('`') {
        if let Some(len) = msg[start + 1..].find('`') {
            return msg[start + 1..start + 1 + len].to_string();
        }
    }
    "toml".into()
}
