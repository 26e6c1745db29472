//! The device's public surface: accessors and statistics, untimed
//! preconditioning helpers, and the `Device` trait impl.

use super::{DevEvent, DeviceCounters, DeviceStats, DieOp, PageData, SimSsd};

use crate::config::SsdConfig;
use crate::ids::PlaneId;
use crate::layout::Layout;
use rand_chacha::ChaCha8Rng;
use ssdlab_protocol::Lpn;
use ssdlab_protocol::{CommandError, IoCommand, IoCompletion};
use ssdlab_protocol::{Device, DeviceInfo};
use ssdlab_protocol::{Ns, Timers};

impl SimSsd {
    /// Channel time of one page.
    pub fn page_transfer_ns(&self) -> Ns {
        self.array.page_xfer_ns
    }

    /// Host-link DMA time of one page.
    pub fn page_link_ns(&self) -> Ns {
        self.array.page_link_ns
    }

    /// Free blocks below which a plane collects in the background.
    pub fn soft_gc_blocks(&self) -> u32 {
        self.policies.soft_blocks
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
            device: self.tally.counters.clone(),
            ftl: self.ftl.counters().clone(),
        }
    }

    /// Starts the device's own counters afresh, leaving the FTL's.
    pub fn reset_device_counters(&mut self) {
        self.tally.counters = DeviceCounters::default();
    }

    /// Free blocks of a plane (for tests and reports).
    pub fn free_blocks(&self, plane: PlaneId) -> u32 {
        self.ftl.free_blocks(plane)
    }

    /// Whether the invariant and data-integrity checker is on.
    pub fn is_checked(&self) -> bool {
        self.ftl.is_checked()
    }

    /// Commands fetched and not yet completed.
    pub fn outstanding(&self) -> u32 {
        self.intake.outstanding
    }

    /// Whether the device has nothing queued, buffered or running.
    pub fn is_quiescent(&self) -> bool {
        self.intake.outstanding == 0
            && self.intake.queued_commands == 0
            && self.writes.buffer.is_empty()
            && !self
                .writes
                .shared_flushes
                .iter()
                .chain(self.writes.own_flushes.iter().flatten())
                .any(|&(data, _, _)| data == PageData::MapTable)
            && self.array.dies.iter().all(|d| matches!(d.op, DieOp::Idle))
    }

    /// The full invariant check (maps, valid counts, data integrity).
    pub fn check_invariants(&self) -> Result<(), String> {
        if let Some(e) = &self.tally.integrity_error {
            return Err(e.clone());
        }
        self.ftl.check(&|lpa| self.writes.buffer.holds(lpa))
    }

    /// Where a page may be written under the allocation policy.
    pub fn allocation_target(&self, lpa: Lpn) -> crate::alloc::Target {
        self.policies.allocation.target(lpa)
    }

    /// The plane holding `lpa` on flash, if it is there (a newer version
    /// may still wait in the write buffer).
    pub fn plane_of_page(&self, lpa: Lpn) -> Option<PlaneId> {
        self.ftl.lookup(lpa).map(|ppa| self.layout.plane_of(ppa))
    }

    /// Whether `plane` may take a page of die group `group`.
    pub fn plane_in_group(&self, plane: PlaneId, group: u32) -> bool {
        let die = self.layout.die_of_plane(plane).index();
        self.policies.allocation.die_groups().get(die) == Some(&group)
    }

    /// Whether `plane` may take a page the allocation sends to `target`.
    pub fn target_allows(&self, target: crate::alloc::Target, plane: PlaneId) -> bool {
        use crate::alloc::Target;
        match target {
            Target::Any => true,
            Target::Group(g) => self.plane_in_group(plane, g),
            Target::Plane(p) => p == plane,
        }
    }

    /// Untimed GC of one victim of `plane` (preconditioning). False when the
    /// plane has no collectable block.
    pub fn collect_now(&mut self, plane: PlaneId, rng: &mut ChaCha8Rng) -> bool {
        let Some(victim) =
            super::jobs::collectable(self.policies.victim.as_mut(), &self.ftl, plane, rng)
        else {
            return false;
        };
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
            volatile_write_cache: false,
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
        out.append(&mut self.intake.completions);
    }

    fn now(&self) -> Ns {
        self.clock
    }

    #[inline]
    fn expect_command(&self, lpa: Lpn) {
        self.prefetch_map_entry(lpa);
    }
}
