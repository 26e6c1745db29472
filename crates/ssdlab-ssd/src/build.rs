//! A preset's named policies resolved into policies, once, when a device is
//! built. Each policy gets the numbers it needs (a layout, a parameter
//! struct of its own), never the configuration: the policies sit below
//! `config`, which names them, and do not import it back.

use super::alloc::{self, AllocationPolicy};
use super::config::SsdConfig;
use super::die_sched::{self, DieScheduler};
use super::gc::trigger::{make_trigger, GcTrigger, TriggerParams};
use super::gc::{make_policy, GcPolicy, VictimParams};
use super::layout::Layout;

/// The numbers the GC victim policies are built from.
pub fn victim_params(cfg: &SsdConfig) -> VictimParams {
    VictimParams {
        blocks_per_plane: cfg.geometry.blocks_per_plane,
        rga_samples: cfg.gc.rga_samples,
        copy_ns: cfg.timing.read_ns + cfg.timing.program_ns,
        erase_ns: cfg.timing.erase_ns,
        lambda: cfg.gc.on_demand.lambda,
        hot_horizon_ns: cfg.gc.on_demand.hot_horizon_ns,
    }
}

/// The numbers the GC triggers are built from.
pub fn trigger_params(cfg: &SsdConfig) -> TriggerParams {
    TriggerParams {
        planes: cfg.layout().planes as usize,
        on_demand: cfg.gc.on_demand.clone(),
    }
}

/// The GC victim policy `gc.policy` names.
pub fn gc_policy(cfg: &SsdConfig) -> Box<dyn GcPolicy> {
    make_policy(cfg.gc.policy, &victim_params(cfg))
}

/// The GC trigger `gc.trigger` names.
pub fn gc_trigger(cfg: &SsdConfig) -> Box<dyn GcTrigger> {
    make_trigger(cfg.gc.trigger, &trigger_params(cfg))
}

/// The page allocation `ftl.allocation` names, on the device's layout.
pub fn allocation(cfg: &SsdConfig, layout: &Layout) -> Box<dyn AllocationPolicy> {
    alloc::make_policy(cfg.ftl.allocation, layout, &cfg.ftl.clusters)
}

/// The die scheduler `controller.die_scheduler` names.
pub fn die_scheduler(cfg: &SsdConfig) -> Box<dyn DieScheduler> {
    die_sched::build(cfg.controller.die_scheduler)
}
