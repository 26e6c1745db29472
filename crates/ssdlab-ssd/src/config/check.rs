//! The checks of a parsed preset: values that parse but make no device.
//! Every problem is collected, so a bad preset reports them all at once.

use super::SsdConfig;

/// A problem of a preset: the dotted key and what is wrong with it.
pub type Problem = (String, String);

impl SsdConfig {
    /// Checks the values that parse but make no device. Returns every
    /// problem found, each as the dotted key and the reason.
    pub fn validate(&self) -> Result<(), Vec<Problem>> {
        let mut problems = Vec::new();
        self.check_geometry(&mut problems);
        // The other checks compute with the geometry: only once it is sound.
        if problems.is_empty() {
            self.check_the_rest(&mut problems);
            self.check_hybrid(&mut problems);
            self.check_clusters(&mut problems);
        }
        if problems.is_empty() {
            Ok(())
        } else {
            Err(problems)
        }
    }

    /// Counts that must be positive, and the page and block sizes.
    fn check_geometry(&self, problems: &mut Vec<Problem>) {
        let mut err = |k: &str, m: String| problems.push((k.to_string(), m));
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
            (
                "controller.firmware_cores",
                self.controller.firmware_cores as u64,
            ),
            ("controller.link_mbs", self.controller.link_mbs),
        ];
        for (key, v) in positive {
            if v == 0 {
                err(key, "must be greater than zero".into());
            }
        }
        if self.controller.firmware_cores > 256 {
            err("controller.firmware_cores", "must be at most 256".into());
        }
        if !g.page_size.is_multiple_of(512) {
            err(
                "geometry.page_size",
                "must be a multiple of 512 bytes".into(),
            );
        }
        match (g.pages_per_block, g.block_size) {
            (Some(_), Some(_)) | (None, None) => err(
                "geometry.pages_per_block",
                "give exactly one of pages_per_block and block_size".into(),
            ),
            (Some(0), None) => err(
                "geometry.pages_per_block",
                "must be greater than zero".into(),
            ),
            (None, Some(b)) if b < g.page_size as u64 => err(
                "geometry.block_size",
                format!(
                    "block of {b} bytes is smaller than a page ({} bytes)",
                    g.page_size
                ),
            ),
            (None, Some(b)) if b % g.page_size as u64 != 0 => err(
                "geometry.block_size",
                "must be a whole number of pages".into(),
            ),
            _ => {}
        }
        if let Some(f) = g.flash_page_size {
            if f < g.page_size || f % g.page_size != 0 || f / g.page_size > 64 {
                err(
                    "geometry.flash_page_size",
                    format!(
                        "must be 1 to 64 mapping pages of {} bytes (got {f})",
                        g.page_size
                    ),
                );
            }
        }
    }

    /// Everything else: timings, controller, buffer, FTL, GC and SLC cache.
    fn check_the_rest(&self, problems: &mut Vec<Problem>) {
        let mut err = |k: &str, m: String| problems.push((k.to_string(), m));
        let g = &self.geometry;
        let unit = g.units_per_flash_page() * self.timing.one_shot_pages.clamp(1, 8);
        if !g.pages_per_block().is_multiple_of(unit) {
            err(
                "geometry.pages_per_block",
                format!("must be a whole number of programs ({unit} pages each)"),
            );
        }
        if self.buffer.gather_ns > 1_000_000_000 {
            err("buffer.gather_ns", "must be at most 1 s".into());
        }
        if let Some((key, _)) = self
            .durations()
            .into_iter()
            .find(|&(_, v)| v > MAX_DURATION_NS)
        {
            err(&key, "must be at most 10 s (10_000_000_000 ns)".into());
        }
        let spread = self.timing.spread;
        if !(0.0..1.0).contains(&spread) {
            err("timing.spread", format!("{spread} must be in [0, 1)"));
        }
        if self.timing.one_shot_pages == 0 || self.timing.one_shot_pages > 8 {
            err("timing.one_shot_pages", "must be in [1, 8]".into());
        }
        if let Some(types) = &self.timing.read_ns_by_page_type {
            if types.is_empty() || types.len() > 4 || types.contains(&0) {
                err(
                    "timing.read_ns_by_page_type",
                    "give 1 to 4 read times, each greater than zero".into(),
                );
            }
        }
        if let Some(j) = &self.ftl.map_journal {
            if j.entries_per_page == 0
                || j.dirty_pages == 0
                || j.write_back_batch == 0
                || j.write_back_batch > j.dirty_pages
            {
                err(
                    "ftl.map_journal",
                    "entries_per_page, dirty_pages and write_back_batch must be greater than zero, write_back_batch at most dirty_pages".into(),
                );
            }
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
                    err(
                        &format!("controller.read_ahead.{key}"),
                        format!("{v} is outside 1 ..= {max}"),
                    );
                }
            }
        }
        if g.pages_per_block() > u16::MAX as u32 {
            err(
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
            err(
                "geometry",
                format!("{pages} physical pages exceed the 2^32 - 1 page limit"),
            );
        }
        // The channel rate in bytes per µs must be a sane integer: at most
        // 1 TB/s (a flash channel moves a few GB/s at most).
        let rate = self
            .timing
            .channel_mts
            .checked_mul(self.timing.channel_width_bits);
        if rate.is_none_or(|r| r / 8 > 1_000_000) {
            err(
                "timing.channel_mts",
                "channel_mts × channel_width_bits / 8 exceeds 1,000,000 bytes per µs".into(),
            );
        }
        if !self.timing.channel_width_bits.is_multiple_of(8) {
            err(
                "timing.channel_width_bits",
                "must be a multiple of 8".into(),
            );
        }
        let op = self.ftl.over_provisioning;
        // Checks that derive from the spare space wait until it is sound.
        let op_ok = op > 0.0 && op < 0.9;
        if !op_ok {
            err("ftl.over_provisioning", format!("{op} is outside (0, 0.9)"));
        }
        let gc = &self.gc;
        if !(0.0..1.0).contains(&gc.enable_at_full) {
            err(
                "gc.enable_at_full",
                format!("{} must be in [0, 1)", gc.enable_at_full),
            );
        }
        if gc.mixed_programs && !gc.pacing {
            err(
                "gc.mixed_programs",
                "needs gc.pacing = true (it shares the programs paced GC lets go)".into(),
            );
        }
        let od = &gc.on_demand;
        if !(0.0..=1.0).contains(&od.theta_ir) || od.lambda < 0.0 || !od.lambda.is_finite() {
            err(
                "gc.on_demand",
                "theta_ir must be in [0, 1] and lambda ≥ 0".into(),
            );
        }
        if od.window_ns == 0 || !(od.ewma_weight > 0.0 && od.ewma_weight <= 1.0) {
            err(
                "gc.on_demand",
                "window_ns must be > 0 and ewma_weight in (0, 1]".into(),
            );
        }
        if op_ok && !(gc.soft_threshold >= 0.0 && gc.soft_threshold < op) {
            err(
                "gc.soft_threshold",
                format!("{} must be in [0, over_provisioning)", gc.soft_threshold),
            );
        }
        if !(gc.hard_threshold >= 0.0 && gc.hard_threshold <= gc.soft_threshold) {
            err(
                "gc.hard_threshold",
                format!("{} must be in [0, soft_threshold]", gc.hard_threshold),
            );
        }
        let spare_blocks = (g.blocks_per_plane as f64 * op) as u64;
        let slc_blocks = self.slc_blocks_per_plane();
        let needed = self.gc_blocks_per_plane();
        if op_ok && spare_blocks < needed + slc_blocks {
            err(
                "ftl.over_provisioning",
                format!(
                    "leaves {} spare native blocks per plane; GC needs at least {needed}",
                    spare_blocks.saturating_sub(slc_blocks)
                ),
            );
        }
        if let Some(slc) = &self.slc_cache {
            if slc.bits_per_cell < 2 {
                err(
                    "slc_cache.bits_per_cell",
                    "must be at least 2 (TLC = 3)".into(),
                );
            }
            if slc.blocks_per_plane == 0
                || (op_ok && slc.blocks_per_plane as u64 * 2 > spare_blocks)
            {
                err(
                    "slc_cache.blocks_per_plane",
                    format!(
                        "must be in [1, {}] (half the spare blocks)",
                        spare_blocks / 2
                    ),
                );
            }
            let native = (g.blocks_per_plane as u64).saturating_sub(slc.blocks_per_plane as u64);
            if slc.dynamic_blocks_per_plane as u64 > native / 2 {
                err(
                    "slc_cache.dynamic_blocks_per_plane",
                    format!("must be at most {} (half the native blocks)", native / 2),
                );
            }
            let slc_pages = g.pages_per_block() / slc.bits_per_cell.max(1);
            if slc.bits_per_cell >= 2
                && (slc_pages == 0 || !slc_pages.is_multiple_of(g.units_per_flash_page()))
            {
                err(
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
                    err(k, "must be greater than zero".into());
                }
            }
        }
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
            ("controller.pcie_read_ns", c.pcie_read_ns),
            ("controller.read_page_ns", c.read_page_ns),
            ("controller.read_command_ns", c.read_command_ns),
            ("controller.write_command_ns", c.write_command_ns),
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
            all.push(("slc_cache.fold_idle_ns".into(), slc.fold_idle_ns));
        }
        all
    }

    /// The hybrid (FAST) mapping runs on the SATA-era device model, which
    /// has none of the NVMe model's SLC cache or mapping-table journal.
    fn check_hybrid(&self, problems: &mut Vec<Problem>) {
        if self.ftl.mapping != super::Mapping::Hybrid {
            return;
        }
        let mut err = |k: &str, m: String| problems.push((k.to_string(), m));
        let g = &self.geometry;
        let superblocks = g.planes_per_die as u64 * g.blocks_per_plane as u64;
        let logs = self.ftl.log_blocks as u64;
        if logs == 0 || logs + 3 > superblocks {
            err(
                "ftl.log_blocks",
                format!(
                    "{logs} must be in [1, {}]: the hybrid mapping needs a data block, \
                     the sequential log block and a merge destination besides its \
                     random log blocks among the {superblocks} blocks of a die",
                    superblocks.saturating_sub(3)
                ),
            );
        }
        if self.slc_cache.is_some() {
            err(
                "slc_cache",
                "the hybrid mapping has no SLC cache: remove the section".into(),
            );
        }
        if self.ftl.map_journal.is_some() {
            err(
                "ftl.map_journal",
                "the hybrid mapping keeps its block map in RAM: remove map_journal".into(),
            );
        }
        if self.controller.pcie_read_ns != 0 {
            err(
                "controller.pcie_read_ns",
                "the hybrid mapping's SATA-era device has no PCIe round trips: set it to 0".into(),
            );
        }
        if self.controller.write_command_ns != 0 {
            err(
                "controller.write_command_ns",
                "the hybrid mapping's device charges one command time to every command: set it to 0"
                    .into(),
            );
        }
    }

    /// Blocks of each plane that run in SLC mode for good (the static cache).
    pub(super) fn slc_blocks_per_plane(&self) -> u64 {
        self.slc_cache
            .as_ref()
            .map_or(0, |c| c.blocks_per_plane as u64)
            .min(self.geometry.blocks_per_plane as u64)
    }

    /// Free native blocks a plane needs for GC to make progress: the host
    /// reserve, two open frontiers and one block of invalid pages.
    pub(super) fn gc_blocks_per_plane(&self) -> u64 {
        let native = self.geometry.blocks_per_plane as u64 - self.slc_blocks_per_plane();
        let reserve = ((self.gc.hard_threshold * native as f64).ceil() as u64).max(1);
        reserve + 3
    }
}
