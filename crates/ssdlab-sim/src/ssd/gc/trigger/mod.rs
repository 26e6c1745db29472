//! When a plane collects in the background. One trigger, one file;
//! `REGISTRY` maps names to constructors. GC at the host reserve (critical)
//! runs whatever the trigger says; the device also honours
//! `gc.enable_at_full` before asking a trigger.

mod eager70;
mod on_demand;
mod threshold;

use crate::engine::Ns;
use crate::ssd::config::SsdConfig;
use crate::ssd::ftl::Ftl;

/// What a trigger sees when asked about one plane.
pub struct TriggerCtx<'a> {
    pub ftl: &'a Ftl,
    pub plane: u32,
    pub now: Ns,
    /// Free blocks below which the threshold rule collects.
    pub soft_blocks: u32,
}

pub trait GcTrigger: Send {
    fn name(&self) -> &'static str;
    /// Whether the plane should collect one more victim now.
    fn due(&mut self, c: &TriggerCtx) -> bool;
}

pub struct TriggerEntry {
    pub name: &'static str,
    pub help: &'static str,
    pub make: fn(&SsdConfig) -> Box<dyn GcTrigger>,
}

pub const REGISTRY: &[TriggerEntry] = &[threshold::ENTRY, eager70::ENTRY, on_demand::ENTRY];

pub fn trigger_names() -> Vec<&'static str> {
    REGISTRY.iter().map(|e| e.name).collect()
}

pub fn make_trigger(cfg: &SsdConfig) -> Option<Box<dyn GcTrigger>> {
    REGISTRY
        .iter()
        .find(|e| e.name == cfg.gc.trigger)
        .map(|e| (e.make)(cfg))
}
