//! `ssdlab postmark`: the Postmark-like workload over the page cache and
//! the host block layer, on any device model.

use crate::engine::Ns;
use crate::error::InputError;
use crate::host::{BlockLayer, HostConfig, HostCounters};
use crate::kernel::{Device, Simulation};
use crate::sched;
use crate::workload::postmark::{PostmarkFile, PostmarkReport, PostmarkWorkload};
use std::collections::BTreeMap;

/// A finished Postmark run.
#[derive(Debug, Clone)]
pub struct PostmarkResult {
    pub report: PostmarkReport,
    pub host: HostCounters,
    pub scheduler: String,
    pub scheduler_counters: BTreeMap<String, u64>,
    pub sim_end_ns: Ns,
    pub events: u64,
}

/// Runs `workload` on `device` behind `host` and `scheduler`. Returns the
/// result and the device (for its own statistics and checks).
pub fn run_postmark<D: Device>(
    device: D,
    host: &HostConfig,
    scheduler: &str,
    workload: &PostmarkFile,
    seed: u64,
) -> Result<(PostmarkResult, D), InputError> {
    host.validate()?;
    let sched =
        sched::build(scheduler).map_err(|e| InputError::invalid("--scheduler", e.to_string()))?;
    let info = device.info();
    let mut w = PostmarkWorkload::new(
        workload.postmark.clone(),
        workload.page_cache.clone(),
        info.logical_pages,
        info.page_size,
        seed,
    )
    .map_err(|m| InputError::invalid("postmark", m))?;
    let block = BlockLayer::new(host.clone(), sched, &info);
    let mut sim = Simulation::new(device, Some(block), seed);
    sim.run(&mut w, None);
    if !crate::kernel::Workload::is_done(&w) {
        return Err(InputError::invalid(
            "postmark",
            "the run stopped before every process finished (simulated time limit)",
        ));
    }
    let (end, events) = (sim.now(), sim.events());
    let (device, block) = sim.into_parts();
    let block = block.expect("a host path");
    let result = PostmarkResult {
        report: w.report(),
        host: block.counters().clone(),
        scheduler: block.scheduler_name().to_string(),
        scheduler_counters: block.scheduler_counters(),
        sim_end_ns: end,
        events,
    };
    Ok((result, device))
}
