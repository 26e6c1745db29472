//! The flash platform the real-time analysis sees: `chips` chips, each
//! running one flash operation at a time, non-preemptively, with
//! `blocks_per_chip` blocks of `pages_per_block` pages, `reserved_blocks`
//! of them kept free for GC. Defaults follow the evaluation section of
//! Kim et al., "Dynamic Chip Clustering and Task Allocation for Real-time
//! Flash" (DAC 2021); the values the paper does not give are choices of ours (docs/rt-flash.md).

use serde::Serialize;
use ssdlab_protocol::Ns;
use ssdlab_sim::ssd::config::SsdConfig;

/// One flash platform, every time in integer nanoseconds.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Platform {
    /// The preset the platform was derived from, if any.
    pub preset: Option<String>,
    pub chips: u32,
    pub blocks_per_chip: u64,
    pub pages_per_block: u64,
    /// Free blocks each chip keeps for GC (never counted as space).
    pub reserved_blocks: u64,
    pub page_size: u64,
    /// Array read of one page (tR).
    pub read_ns: Ns,
    /// Program of one page (tPROG).
    pub program_ns: Ns,
    /// Erase of one block (tBERS).
    pub erase_ns: Ns,
    /// Moving one page over the chip's channel (tXFER).
    pub transfer_ns: Ns,
}

/// Reserved free blocks per chip when a task set names none.
pub const DEFAULT_RESERVED_BLOCKS: u64 = 2;

impl Default for Platform {
    /// Four chips with the paper's timings (25 µs / 230 µs / 0.7 ms, 4 KiB
    /// pages, 128 pages per block). Our choices: 2048 blocks per chip and
    /// a 10 µs page transfer, the die of the `seed004` preset (4 planes of
    /// 512 blocks, 4 KiB over an 8-bit 410 MT/s channel), so that the
    /// default platform and that preset describe the same flash.
    fn default() -> Self {
        Platform {
            preset: None,
            chips: 4,
            blocks_per_chip: 2048,
            pages_per_block: 128,
            reserved_blocks: DEFAULT_RESERVED_BLOCKS,
            page_size: 4096,
            read_ns: 25_000,
            program_ns: 230_000,
            erase_ns: 700_000,
            transfer_ns: 10_000,
        }
    }
}

/// The most chips a platform may have: far above any SSD's dies, low
/// enough that allocation, which tries cluster sizes chip by chip, stays
/// quick.
pub const MAX_CHIPS: u32 = 1024;

/// The most pages a platform may have: pages are numbered in 32 bits.
pub const MAX_PAGES: u64 = u32::MAX as u64;

/// The longest flash operation a platform may take (10 s, far above any
/// NAND's), so that sums of a few operations cannot overflow.
pub const MAX_OPERATION_NS: u64 = 10_000_000_000;

impl Platform {
    /// The platform of a device preset: a chip is one die; blocks per chip
    /// are planes × blocks per plane; tXFER is one page over the channel.
    /// `chips` takes the first dies only (None: all of them). Multi-plane
    /// operations and one-shot programs are ignored: every page costs a
    /// whole tR or tPROG, which can only overstate the demand.
    pub fn from_preset(name: &str, cfg: &SsdConfig, chips: Option<u32>) -> Result<Self, String> {
        let g = &cfg.geometry;
        let dies = g.channels * g.chips_per_channel * g.dies_per_chip;
        let chips = chips.unwrap_or(dies);
        if chips > dies {
            return Err(format!(
                "{chips} chips asked for, but preset '{name}' has only {dies} dies"
            ));
        }
        let t = &cfg.timing;
        let bytes_per_us = (t.channel_mts.saturating_mul(t.channel_width_bits) / 8).max(1);
        let page_size = u64::from(g.page_size);
        Ok(Platform {
            preset: Some(name.to_string()),
            chips,
            blocks_per_chip: u64::from(g.planes_per_die) * u64::from(g.blocks_per_plane),
            pages_per_block: u64::from(g.pages_per_block()),
            reserved_blocks: DEFAULT_RESERVED_BLOCKS,
            page_size,
            read_ns: t.read_ns,
            program_ns: t.program_ns,
            erase_ns: t.erase_ns,
            transfer_ns: (page_size * 1000).div_ceil(bytes_per_us),
        })
    }

    /// Pages of one chip that may hold data (the reserved blocks left out).
    pub fn usable_pages_per_chip(&self) -> u64 {
        self.blocks_per_chip
            .saturating_sub(self.reserved_blocks)
            .saturating_mul(self.pages_per_block)
    }

    /// Pages of the whole platform that may hold data.
    pub fn usable_pages(&self) -> u64 {
        self.usable_pages_per_chip()
            .saturating_mul(u64::from(self.chips))
    }

    /// One page read: array read plus transfer.
    pub fn page_read_ns(&self) -> Ns {
        self.read_ns.saturating_add(self.transfer_ns)
    }

    /// One page written: transfer plus program.
    pub fn page_write_ns(&self) -> Ns {
        self.program_ns.saturating_add(self.transfer_ns)
    }

    /// One page copied by GC: read, transfer out, transfer in, program.
    pub fn page_copy_ns(&self) -> Ns {
        self.read_ns
            .saturating_add(self.program_ns)
            .saturating_add(self.transfer_ns.saturating_mul(2))
    }

    /// The longest non-preemptive operation another job may be running
    /// when a job arrives: an erase, or one GC page copy.
    pub fn blocking_ns(&self) -> Ns {
        self.erase_ns.max(self.page_copy_ns())
    }

    /// Problems of a platform given field by field, as (field, message).
    pub fn problems(&self) -> Vec<(&'static str, String)> {
        let mut out = Vec::new();
        if self.chips == 0 || self.chips > MAX_CHIPS {
            out.push(("chips", format!("must be 1 to {MAX_CHIPS}")));
        }
        let pages = u64::from(self.chips)
            .saturating_mul(self.blocks_per_chip)
            .saturating_mul(self.pages_per_block);
        if pages > MAX_PAGES {
            out.push((
                "blocks_per_chip",
                format!("chips × blocks × pages per block is {pages}, above {MAX_PAGES} pages"),
            ));
        }
        for (field, ns) in [
            ("read_time", self.read_ns),
            ("program_time", self.program_ns),
            ("erase_time", self.erase_ns),
            ("transfer_time", self.transfer_ns),
        ] {
            if ns > MAX_OPERATION_NS {
                out.push((
                    field,
                    format!("{ns} ns is above one flash operation's limit of 10 s"),
                ));
            }
        }
        if self.pages_per_block < 2 {
            out.push(("pages_per_block", "must be at least 2".to_string()));
        }
        if self.page_size == 0 {
            out.push(("page_size", "must be positive".to_string()));
        }
        if self.blocks_per_chip <= self.reserved_blocks {
            out.push((
                "blocks_per_chip",
                format!(
                    "{} blocks leave none beside the {} reserved for GC",
                    self.blocks_per_chip, self.reserved_blocks
                ),
            ));
        }
        if self.erase_ns == 0 && self.page_copy_ns() == 0 {
            out.push(("erase_time", "flash operations take no time".to_string()));
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ssdlab_sim::preset::Preset;

    #[test]
    fn default_costs() {
        let p = Platform::default();
        assert_eq!(p.page_read_ns(), 35_000);
        assert_eq!(p.page_write_ns(), 240_000);
        assert_eq!(p.page_copy_ns(), 275_000);
        assert_eq!(p.blocking_ns(), 700_000);
        assert_eq!(p.usable_pages_per_chip(), 2046 * 128);
        assert!(p.problems().is_empty());
    }

    #[test]
    fn from_seed004_is_the_default_flash() {
        let cfg = Preset::load_device("seed004").unwrap();
        let p = Platform::from_preset("seed004", &cfg, None).unwrap();
        assert_eq!(p.chips, 4);
        assert_eq!(p.blocks_per_chip, 2048);
        assert_eq!(p.pages_per_block, 128);
        // 4096 B at 410 MB/s: 9990.2 ns, rounded up.
        assert_eq!(p.transfer_ns, 9_991);
        assert!(Platform::from_preset("seed004", &cfg, Some(5)).is_err());
        assert_eq!(
            Platform::from_preset("seed004", &cfg, Some(2))
                .unwrap()
                .chips,
            2
        );
    }
}
