//! When a plane collects in the background. One trigger, one file;
//! `REGISTRY` maps names to constructors. GC at the host reserve (critical)
//! runs whatever the trigger says; the device also honours
//! `gc.enable_at_full` before asking a trigger.

mod eager70;
mod on_demand;
mod threshold;

pub use on_demand::OnDemand;

use crate::ftl::Ftl;
use crate::registry::{Choice, Entry, Registry};
use ssdlab_protocol::Ns;

/// What a trigger sees when asked about one plane.
pub struct TriggerCtx<'a> {
    pub ftl: &'a Ftl,
    pub plane: crate::ids::PlaneId,
    pub now: Ns,
    /// Free blocks below which the threshold rule collects.
    pub soft_blocks: u32,
}

pub trait GcTrigger: Send {
    fn name(&self) -> &'static str;
    /// Whether the plane should collect one more victim now.
    fn due(&mut self, c: &TriggerCtx) -> bool;
}

/// What the triggers are built from, taken once when a device is built
/// (`ssd::build`).
#[derive(Debug, Clone, PartialEq)]
pub struct TriggerParams {
    /// Planes of the device (a trigger keeps state per plane).
    pub planes: usize,
    /// The on-demand trigger's parameters (`[gc.on_demand]`).
    pub on_demand: OnDemand,
}

/// A trigger's registry entry.
pub type TriggerEntry = Entry<fn(&TriggerParams) -> Box<dyn GcTrigger>>;

pub const REGISTRY: &[TriggerEntry] = &[threshold::ENTRY, eager70::ENTRY, on_demand::ENTRY];

/// The GC triggers, as a preset names them (`gc.trigger`).
pub struct GcTriggers;

impl Registry for GcTriggers {
    const KIND: &'static str = "GC trigger";
    type Make = fn(&TriggerParams) -> Box<dyn GcTrigger>;
    const ENTRIES: &'static [TriggerEntry] = REGISTRY;
}

/// A GC trigger chosen by name in a preset.
pub type GcTriggerChoice = Choice<GcTriggers>;

/// Builds the chosen trigger.
pub fn make_trigger(choice: GcTriggerChoice, params: &TriggerParams) -> Box<dyn GcTrigger> {
    (choice.entry().make)(params)
}
