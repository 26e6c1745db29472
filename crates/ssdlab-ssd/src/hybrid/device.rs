//! `HybridSsd`: a SATA-era MLC SSD with the FAST mapping (`fast.rs`) as a
//! `kernel::Device`. The timing model is deliberately simple, deterministic
//! and fast: a command's whole schedule is booked when it starts, and one
//! event marks its completion.
//!
//! - No DRAM write cache: a write completes when its pages are programmed.
//!   A flush therefore has nothing to wait for (the host path ends empty
//!   flushes itself). The preset's `[buffer]` is ignored.
//! - NCQ: commands are taken in arrival order while fewer than
//!   `controller.queue_depth` are in the drive; later ones wait in a FIFO
//!   and are taken as commands complete.
//! - Each command takes `controller.command_ns` of the controller (serial).
//!   The FTL runs then, so merges a write triggers delay that write and
//!   everything booked after them on the same units (FAST merges in the
//!   foreground).
//! - The SATA link (`controller.link_mbs`, half duplex, `link.rs`) moves
//!   write data before the programs (page `i` of a command may be
//!   programmed once the first `i + 1` pages are across) and read data
//!   after the last array read of the command.
//! - Flash (`flash.rs`): each operation is booked on its unit (die) and its
//!   channel in the order the FTL emits it, each a busy-until time. A read
//!   is tR, then the page out over the channel; a program is the page in,
//!   then tPROG; a copy on one unit is copy-back (tR + tPROG, no channel);
//!   across units, tR on the source, the page out and in over the two
//!   channels, tPROG on the destination; an erase is tBERS. A die's planes
//!   form one unit (no multi-plane operations).
//! - A command completes at the end of its last operation (its link
//!   transfer, for reads) plus `controller.completion_ns`.
//! - Trim unmaps pages at command start, with no flash operation.

mod flash;
mod link;
#[cfg(test)]
mod tests;

use super::fast::{Fast, FastCounters, FastGeometry, FlashOp};
use crate::config::SsdConfig;
use flash::{FlashArray, FlashTiming};
use link::Link;
use ssdlab_protocol::Lpn;
use ssdlab_protocol::{CommandError, Dir, IoCommand, IoCompletion};
use ssdlab_protocol::{Device, DeviceInfo};
use ssdlab_protocol::{Ns, Timers};
use std::collections::VecDeque;

/// The device's own event.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HybridEvent {
    /// The command with this id completes.
    Complete(u64),
}

/// What the device has counted, as a snapshot.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize)]
pub struct HybridStats {
    pub fast: FastCounters,
    pub commands: u64,
    pub host_read_pages: u64,
    pub host_write_pages: u64,
    pub trimmed_pages: u64,
    /// Reads of pages never written or trimmed (answered with zeroes).
    pub unmapped_reads: u64,
    /// Pages programmed per host page written (FAST's).
    pub waf: f64,
}

#[derive(Debug, Clone, Copy, Default)]
struct HostCounters {
    commands: u64,
    read_pages: u64,
    write_pages: u64,
    trimmed_pages: u64,
    unmapped_reads: u64,
}

/// The controller's parameters.
#[derive(Debug, Clone, Copy)]
struct ControllerTiming {
    queue_depth: u32,
    command_ns: Ns,
    completion_ns: Ns,
    /// SATA payload rate (MB/s = bytes per µs).
    link_mbs: u64,
}

pub struct HybridSsd {
    name: String,
    page_size: u32,
    fast: Fast,
    flash: FlashArray,
    link: Link,
    ctrl: ControllerTiming,
    /// The controller is busy with command processing until then.
    ctrl_busy: Ns,
    /// Commands beyond the NCQ depth, in arrival order.
    held: VecDeque<IoCommand>,
    outstanding: u32,
    completions: Vec<IoCompletion>,
    /// Scratch for the FTL's operations.
    ops: Vec<FlashOp>,
    counters: HostCounters,
    /// First data-integrity failure seen on a read (checked runs only).
    integrity_error: Option<String>,
    clock: Ns,
}

impl HybridSsd {
    /// An empty (trimmed) device with `rw_log_blocks` RW log superblocks.
    /// Logical blocks: the superblocks less the RW logs, the SW log and a
    /// merge destination, or less the preset's `ftl.over_provisioning`
    /// share when that reserves more. `seed` drives the timing spread;
    /// `check` turns on the integrity shadow.
    pub fn new(
        cfg: &SsdConfig,
        rw_log_blocks: u32,
        seed: u64,
        check: bool,
    ) -> Result<HybridSsd, String> {
        check_config(cfg)?;
        let fast = Fast::new(fast_geometry(cfg, rw_log_blocks), check)?;
        let g = &cfg.geometry;
        let t = &cfg.timing;
        let bytes_per_us = (t.channel_mts.saturating_mul(t.channel_width_bits) / 8).max(1);
        let timing = FlashTiming {
            read_ns: t.read_ns,
            program_ns: t.program_ns,
            erase_ns: t.erase_ns,
            xfer_ns: (g.page_size as u64 * 1000).div_ceil(bytes_per_us),
            command_ns: t.flash_command_ns,
            spread: t.spread,
        };
        let units = fast.geometry().units;
        let units_per_channel = g.chips_per_channel * g.dies_per_chip;
        let c = &cfg.controller;
        Ok(HybridSsd {
            name: cfg.name.clone(),
            page_size: g.page_size,
            fast,
            flash: FlashArray::new(timing, units, units_per_channel, seed),
            link: Link::default(),
            ctrl: ControllerTiming {
                queue_depth: c.queue_depth,
                command_ns: c.command_ns,
                completion_ns: c.completion_ns,
                link_mbs: c.link_mbs,
            },
            ctrl_busy: 0,
            held: VecDeque::new(),
            outstanding: 0,
            completions: Vec::new(),
            ops: Vec::new(),
            counters: HostCounters::default(),
            integrity_error: None,
            clock: 0,
        })
    }

    /// The mapping (read-only).
    pub fn fast(&self) -> &Fast {
        &self.fast
    }

    /// Fills the first `fraction` of the logical blocks with data, untimed.
    pub fn precondition(&mut self, fraction: f64) -> u32 {
        self.fast.precondition(fraction)
    }

    /// Channel time of one page.
    pub fn page_transfer_ns(&self) -> Ns {
        self.flash.timing().xfer_ns
    }

    /// Commands in the drive (not those held beyond the NCQ depth).
    pub fn outstanding(&self) -> u32 {
        self.outstanding
    }

    pub fn stats(&self) -> HybridStats {
        let c = self.counters;
        HybridStats {
            fast: *self.fast.counters(),
            commands: c.commands,
            host_read_pages: c.read_pages,
            host_write_pages: c.write_pages,
            trimmed_pages: c.trimmed_pages,
            unmapped_reads: c.unmapped_reads,
            waf: self.fast.counters().waf(),
        }
    }

    /// Starts every counter afresh (after preconditioning, say).
    pub fn reset_counters(&mut self) {
        self.counters = HostCounters::default();
        self.fast.reset_counters();
    }

    /// The mapping's invariants and every read's data integrity so far.
    pub fn check_invariants(&self) -> Result<(), String> {
        if let Some(e) = &self.integrity_error {
            return Err(e.clone());
        }
        self.fast.check()
    }

    fn logical_pages(&self) -> u32 {
        self.fast.logical_pages()
    }

    /// Takes held commands while the NCQ has room.
    fn take_held<Q: Timers<HybridEvent>>(&mut self, now: Ns, q: &mut Q) {
        while self.outstanding < self.ctrl.queue_depth {
            let Some(cmd) = self.held.pop_front() else {
                return;
            };
            self.start(cmd, now, q);
        }
    }

    /// Books the whole of `cmd` and schedules its completion.
    fn start<Q: Timers<HybridEvent>>(&mut self, cmd: IoCommand, now: Ns, q: &mut Q) {
        self.outstanding += 1;
        self.counters.commands += 1;
        self.ctrl_busy = self.ctrl_busy.max(now) + self.ctrl.command_ns;
        let taken = self.ctrl_busy;
        let done = match cmd.op {
            Dir::Read => self.run_read(cmd, now, taken),
            Dir::Write => self.run_write(cmd, now, taken),
            Dir::Trim => self.run_trim(cmd, taken),
        };
        q.schedule(
            done + self.ctrl.completion_ns,
            HybridEvent::Complete(cmd.id),
        );
    }

    /// Link time of a command's data (its bytes, at most its pages).
    fn link_ns(&self, cmd: &IoCommand) -> Ns {
        let bytes = (cmd.bytes as u64).min(cmd.pages as u64 * self.page_size as u64);
        (bytes * 1000).div_ceil(self.ctrl.link_mbs)
    }

    /// Data in over the link, then each page through the FTL.
    fn run_write(&mut self, cmd: IoCommand, now: Ns, taken: Ns) -> Ns {
        let link_ns = self.link_ns(&cmd);
        let (start, mut done) = self.link.book(now, taken, link_ns);
        let pages = cmd.pages as u64;
        for i in 0..cmd.pages {
            self.counters.write_pages += 1;
            let arrived = start + (link_ns * (i as u64 + 1)).div_ceil(pages);
            self.ops.clear();
            self.fast.write(cmd.lpa + i, &mut self.ops);
            for &op in &self.ops {
                let earliest = match op {
                    FlashOp::Program(_) => arrived,
                    FlashOp::Copy { .. } | FlashOp::Erase { .. } => taken,
                };
                done = done.max(self.flash.run(op, earliest));
            }
        }
        done
    }

    /// Each page from flash, then the data out over the link.
    fn run_read(&mut self, cmd: IoCommand, now: Ns, taken: Ns) -> Ns {
        let mut ready = taken;
        for lpn in (0..cmd.pages).map(|i| cmd.lpa + i) {
            self.counters.read_pages += 1;
            match self.locate(lpn) {
                Some(at) => ready = ready.max(self.flash.read(at, taken)),
                None => self.counters.unmapped_reads += 1,
            }
        }
        let link_ns = self.link_ns(&cmd);
        self.link.book(now, ready, link_ns).1
    }

    /// Where `lpn` is; a failed integrity check is kept for
    /// `check_invariants` (the read still goes to the page found).
    fn locate(&mut self, lpn: Lpn) -> Option<super::FlashAddr> {
        match self.fast.read_checked(lpn) {
            Ok(at) => at,
            Err(e) => {
                self.integrity_error.get_or_insert(e);
                self.fast.read(lpn)
            }
        }
    }

    fn run_trim(&mut self, cmd: IoCommand, taken: Ns) -> Ns {
        for lpn in (0..cmd.pages).map(|i| cmd.lpa + i) {
            self.counters.trimmed_pages += 1;
            self.fast.trim(lpn);
        }
        taken
    }
}

/// What the hybrid model cannot represent or would divide by. A loaded
/// preset has passed `SsdConfig::validate` already; this is not repeated
/// here, as its GC checks are the page FTL's (a hand-made config may
/// differ there). The FAST geometry is checked by `FastGeometry::validate`.
fn check_config(cfg: &SsdConfig) -> Result<(), String> {
    let g = &cfg.geometry;
    let c = &cfg.controller;
    let op = cfg.ftl.over_provisioning;
    let problems = [
        (g.page_size == 0, "geometry.page_size must be positive"),
        (
            g.units_per_flash_page() != 1,
            "geometry.flash_page_size must equal page_size",
        ),
        (cfg.slc_cache.is_some(), "there is no SLC cache"),
        (
            c.queue_depth == 0,
            "controller.queue_depth must be positive",
        ),
        (c.link_mbs == 0, "controller.link_mbs must be positive"),
        (
            !(0.0..1.0).contains(&op),
            "ftl.over_provisioning must be in [0, 1)",
        ),
    ];
    match problems.iter().find(|(broken, _)| *broken) {
        Some((_, what)) => Err(format!("hybrid device: {what}")),
        None => Ok(()),
    }
}

/// The FAST geometry of a preset: a unit per die, a die's planes' blocks
/// in one unit.
fn fast_geometry(cfg: &SsdConfig, rw_log_blocks: u32) -> FastGeometry {
    let g = &cfg.geometry;
    let superblocks = g.planes_per_die * g.blocks_per_plane;
    let after_logs = superblocks.saturating_sub(rw_log_blocks.saturating_add(2));
    let after_op = (superblocks as f64 * (1.0 - cfg.ftl.over_provisioning)).floor() as u32;
    FastGeometry {
        units: g.channels * g.chips_per_channel * g.dies_per_chip,
        pages_per_block: g.pages_per_block(),
        blocks_per_unit: superblocks,
        logical_blocks: after_logs.min(after_op),
        rw_log_blocks,
    }
}

impl Device for HybridSsd {
    type Event = HybridEvent;

    fn info(&self) -> DeviceInfo {
        DeviceInfo {
            name: self.name.clone(),
            page_size: self.page_size,
            logical_pages: self.logical_pages(),
            volatile_write_cache: false,
        }
    }

    fn submit<Q: Timers<HybridEvent>>(
        &mut self,
        cmd: IoCommand,
        now: Ns,
        q: &mut Q,
    ) -> Result<(), CommandError> {
        let end = cmd.lpa.0 as u64 + cmd.pages as u64;
        if cmd.pages == 0 || end > self.logical_pages() as u64 {
            return Err(CommandError {
                id: cmd.id,
                lpa: cmd.lpa,
                pages: cmd.pages,
                logical_pages: self.logical_pages(),
            });
        }
        self.clock = now;
        self.held.push_back(cmd);
        self.take_held(now, q);
        Ok(())
    }

    fn handle<Q: Timers<HybridEvent>>(&mut self, ev: HybridEvent, now: Ns, q: &mut Q) {
        self.clock = now;
        match ev {
            HybridEvent::Complete(id) => {
                self.completions.push(IoCompletion { id, time: now });
                self.outstanding -= 1;
                self.take_held(now, q);
            }
        }
    }

    fn take_completions(&mut self, out: &mut Vec<IoCompletion>) {
        out.append(&mut self.completions);
    }

    fn now(&self) -> Ns {
        self.clock
    }
}
