//! Flat indices for the flash hierarchy. Channels → chips → dies → planes →
//! blocks → pages are numbered so that a plane's blocks, and a block's pages,
//! are contiguous: `ppa = block * pages_per_block + page`,
//! `block = plane * blocks_per_plane + index`.

use super::ids::{BlockId, DieId, Lpn, PlaneId, Ppn};
use serde::{Deserialize, Serialize};
use strength_reduce::StrengthReducedU32 as Divisor;

/// The flash array's organisation: the `[geometry]` section of a preset.
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

#[derive(Debug, Clone)]
pub struct Layout {
    pub channels: u32,
    pub chips_per_channel: u32,
    pub dies_per_chip: u32,
    pub planes_per_die: u32,
    pub blocks_per_plane: u32,
    pub pages_per_block: u32,
    pub page_size: u32,
    /// Mapping pages per flash page (the read and program granule).
    pub units_per_flash_page: u32,
    pub dies: u32,
    pub planes: u32,
    pub blocks: u32,
    pub physical_pages: u32,
    pub logical_pages: u32,
    /// The geometry's divisors, prepared once: every event maps a page to
    /// its block, plane and die, and a hardware division costs tens of
    /// cycles where a prepared one costs two multiplications.
    div: Divisors,
}

#[derive(Debug, Clone, Copy)]
struct Divisors {
    pages_per_block: Divisor,
    blocks_per_plane: Divisor,
    units_per_flash_page: Divisor,
    planes_per_die: Divisor,
    dies_per_channel: Divisor,
    channels: Divisor,
    chips_per_channel: Divisor,
    dies_per_chip: Divisor,
}

impl Layout {
    pub fn new(g: &Geometry, over_provisioning: f64) -> Layout {
        let dies = g.channels * g.chips_per_channel * g.dies_per_chip;
        let planes = dies * g.planes_per_die;
        let blocks = planes * g.blocks_per_plane;
        let physical_pages = blocks * g.pages_per_block();
        let logical_pages = (physical_pages as f64 * (1.0 - over_provisioning)).floor() as u32;
        // A zero count never passes the configuration check; `max(1)`
        // keeps a layout of an unchecked one from panicking here.
        let d = |n: u32| Divisor::new(n.max(1));
        let div = Divisors {
            pages_per_block: d(g.pages_per_block()),
            blocks_per_plane: d(g.blocks_per_plane),
            units_per_flash_page: d(g.units_per_flash_page()),
            planes_per_die: d(g.planes_per_die),
            dies_per_channel: d(g.chips_per_channel * g.dies_per_chip),
            channels: d(g.channels),
            chips_per_channel: d(g.chips_per_channel),
            dies_per_chip: d(g.dies_per_chip),
        };
        Layout {
            div,
            channels: g.channels,
            chips_per_channel: g.chips_per_channel,
            dies_per_chip: g.dies_per_chip,
            planes_per_die: g.planes_per_die,
            blocks_per_plane: g.blocks_per_plane,
            pages_per_block: g.pages_per_block(),
            page_size: g.page_size,
            units_per_flash_page: g.units_per_flash_page(),
            dies,
            planes,
            blocks,
            physical_pages,
            logical_pages,
        }
    }

    #[inline]
    pub fn block_of(&self, ppa: Ppn) -> BlockId {
        BlockId(ppa.0 / self.div.pages_per_block)
    }

    /// Page `offset` of `block`.
    #[inline]
    pub fn page_of_block(&self, block: BlockId, offset: u32) -> Ppn {
        Ppn(block.0 * self.pages_per_block + offset)
    }

    /// The index of `ppa` inside its block.
    #[inline]
    pub fn offset_in_block(&self, ppa: Ppn) -> u32 {
        ppa.0 % self.div.pages_per_block
    }

    /// The flash page holding `ppa`, numbered across the device.
    #[inline]
    pub fn flash_page_of(&self, ppa: Ppn) -> u32 {
        ppa.0 / self.div.units_per_flash_page
    }

    /// The index of `ppa`'s flash page inside its block.
    #[inline]
    pub fn flash_page_in_block(&self, ppa: Ppn) -> u32 {
        self.offset_in_block(ppa) / self.div.units_per_flash_page
    }

    #[inline]
    pub fn plane_of_block(&self, block: BlockId) -> PlaneId {
        PlaneId(block.0 / self.div.blocks_per_plane)
    }

    /// The index of `block` inside its plane.
    #[inline]
    pub fn block_in_plane(&self, block: BlockId) -> u32 {
        block.0 % self.div.blocks_per_plane
    }

    /// Block `index` of `plane`.
    #[inline]
    pub fn block_of_plane(&self, plane: PlaneId, index: u32) -> BlockId {
        BlockId(plane.0 * self.blocks_per_plane + index)
    }

    #[inline]
    pub fn plane_of(&self, ppa: Ppn) -> PlaneId {
        self.plane_of_block(self.block_of(ppa))
    }

    #[inline]
    pub fn die_of_plane(&self, plane: PlaneId) -> DieId {
        DieId(plane.0 / self.div.planes_per_die)
    }

    /// Plane `index` of `die`.
    #[inline]
    pub fn plane_of_die(&self, die: DieId, index: u32) -> PlaneId {
        PlaneId(die.0 * self.planes_per_die + index)
    }

    /// The planes of `die`.
    pub fn planes_of_die(&self, die: DieId) -> impl Iterator<Item = PlaneId> {
        let first = die.0 * self.planes_per_die;
        (first..first + self.planes_per_die).map(PlaneId)
    }

    /// Every plane of the device.
    pub fn all_planes(&self) -> impl Iterator<Item = PlaneId> {
        (0..self.planes).map(PlaneId)
    }

    /// Every die of the device.
    pub fn all_dies(&self) -> impl Iterator<Item = DieId> {
        (0..self.dies).map(DieId)
    }

    #[inline]
    pub fn channel_of_die(&self, die: DieId) -> u32 {
        die.0 / self.div.dies_per_channel
    }

    /// Channel-first static striping (MQSim's CWDP order): consecutive logical
    /// pages go to consecutive channels, then chips, dies and planes.
    pub fn static_plane(&self, lpa: Lpn) -> PlaneId {
        let lpa = lpa.0;
        let (rest, c) = Divisor::div_rem(lpa, self.div.channels);
        let (rest, w) = Divisor::div_rem(rest, self.div.chips_per_channel);
        let (rest, d) = Divisor::div_rem(rest, self.div.dies_per_chip);
        let p = rest % self.div.planes_per_die;
        PlaneId(
            ((c * self.chips_per_channel + w) * self.dies_per_chip + d) * self.planes_per_die + p,
        )
    }

    pub fn capacity_bytes(&self) -> u64 {
        self.logical_pages as u64 * self.page_size as u64
    }
}
