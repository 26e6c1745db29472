//! `threshold`: collect while the plane's free blocks are below
//! `gc.soft_threshold` (MQSim's GC_Exec_Threshold).

use super::{GcTrigger, TriggerCtx, TriggerEntry};

pub const ENTRY: TriggerEntry = TriggerEntry {
    name: "threshold",
    help: "collect while free blocks are below gc.soft_threshold",
    make: |_| Box::new(Threshold),
};

pub struct Threshold;

impl GcTrigger for Threshold {
    fn name(&self) -> &'static str {
        "threshold"
    }

    fn due(&mut self, c: &TriggerCtx) -> bool {
        c.ftl.free_blocks(c.plane) < c.soft_blocks
    }
}
