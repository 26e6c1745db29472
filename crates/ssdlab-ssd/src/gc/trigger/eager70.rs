//! `eager70`: the conventional schemes' reading of "GC is enabled once 70%
//! of the SSD is full" (Lee, Choi, Hong 2023; the paper does not say how
//! the baselines use it, so this reading is a choice of ours, see
//! docs/model.md): a plane collects
//! whenever 70% or more of it is in use, so it hovers at the 70% line.
//! Guard: when valid data alone fills more than 70% of the plane, the rule
//! would collect forever; the plane then collects below 5% free blocks and
//! stops at 7% (MQSim-style thresholds).

use super::{GcTrigger, TriggerCtx, TriggerEntry};

pub const ENTRY: TriggerEntry = TriggerEntry {
    name: "eager70",
    help: "collect while 70% or more of the plane is in use (guarded by 5%/7% free blocks)",
    make: |p| {
        Box::new(Eager70 {
            collecting: vec![false; p.planes],
        })
    },
};

const USED_LINE: f64 = 0.70;
const GUARD_START: f64 = 0.05;
const GUARD_STOP: f64 = 0.07;

pub struct Eager70 {
    /// Guard regime: a plane between its start and stop marks.
    collecting: Vec<bool>,
}

impl GcTrigger for Eager70 {
    fn name(&self) -> &'static str {
        "eager70"
    }

    fn due(&mut self, c: &TriggerCtx) -> bool {
        let l = c.ftl.layout();
        let plane_pages = (c.ftl.native_blocks_per_plane() * l.pages_per_block) as f64;
        let valid = c.ftl.plane_valid(c.plane);
        if (valid as f64) <= USED_LINE * plane_pages {
            let used = 1.0 - c.ftl.free_pages(c.plane) as f64 / plane_pages;
            return used >= USED_LINE;
        }
        let free = c.ftl.free_blocks(c.plane) as f64 / c.ftl.native_blocks_per_plane() as f64;
        let flag = &mut self.collecting[c.plane.index()];
        if free < GUARD_START {
            *flag = true;
        } else if free >= GUARD_STOP {
            *flag = false;
        }
        *flag
    }
}
