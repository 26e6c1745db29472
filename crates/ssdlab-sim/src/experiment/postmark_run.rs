//! `ssdlab postmark`: the Postmark-like workload over the page cache and
//! the host block layer, on any device model.

use super::lb_size;
use crate::error::InputError;
use crate::host::{BlockLayer, HostConfig, HostCounters};
use crate::kernel::Simulation;
use crate::ssd::config::{Mapping, SsdConfig};
use crate::ssd::device::SimSsd;
use crate::ssd::hybrid::HybridSsd;
use crate::workload::postmark::{PostmarkFile, PostmarkReport, PostmarkWorkload};
use ssdlab_protocol::Device;
use ssdlab_protocol::Ns;
use std::cell::Cell;
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
    let sched = ssdlab_sched::build(scheduler)
        .map_err(|e| InputError::invalid("--scheduler", e.to_string()))?;
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

/// What the device did during a run, for either mapping.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize)]
pub struct DeviceFigures {
    /// `page` or `hybrid`.
    pub mapping: String,
    pub waf: f64,
    pub erases: u64,
    /// Pages the FTL copied (GC relocations, or merge copies).
    pub copied_pages: u64,
    /// The hybrid FTL's merges (0 under page mapping).
    pub switch_merges: u64,
    pub partial_merges: u64,
    pub full_merges: u64,
}

/// Runs `workload` on a fresh device built from `device` (its mapping picks
/// the model), with `lb_size=auto` in `scheduler` measured on that device.
/// Returns the result, the device's figures and the measured logical-block
/// size when one was asked for.
pub fn run_postmark_on(
    device: &SsdConfig,
    host: &HostConfig,
    scheduler: &str,
    workload: &PostmarkFile,
    seed: u64,
    check: bool,
) -> Result<(PostmarkResult, DeviceFigures, Option<u64>), InputError> {
    let (spec, lb) = lb_size::resolve_auto(scheduler, || measure_lb_size(device, seed))?;
    let run = Fresh {
        host,
        scheduler: &spec,
        workload,
        seed,
        check,
    };
    let (result, figures) = match device.ftl.mapping {
        Mapping::Page => run.on(
            || Ok(SimSsd::new(device.clone(), seed, check)),
            |d| d.check_invariants().map_err(|e| e.to_string()),
            |d| {
                let ftl = d.stats().ftl;
                DeviceFigures {
                    mapping: "page".into(),
                    waf: ftl.waf(),
                    erases: ftl.erases,
                    copied_pages: ftl.gc_pages_moved + ftl.fold_pages_moved,
                    ..DeviceFigures::default()
                }
            },
        ),
        // The hybrid mapping runs on the SATA-era device model.
        Mapping::Hybrid => run.on(
            || HybridSsd::new(device, device.ftl.log_blocks, seed, check),
            HybridSsd::check_invariants,
            |d| {
                let s = d.stats();
                DeviceFigures {
                    mapping: "hybrid".into(),
                    waf: s.waf,
                    erases: s.fast.erases,
                    copied_pages: s.fast.merge_copies,
                    switch_merges: s.fast.switch_merges,
                    partial_merges: s.fast.partial_merges,
                    full_merges: s.fast.full_merges,
                }
            },
        ),
    }?;
    Ok((result, figures, lb))
}

/// `lb_size=auto` (lb_size.rs) measured on fresh devices built from
/// `device`, whichever its mapping.
pub fn measure_lb_size(device: &SsdConfig, seed: u64) -> Result<u64, InputError> {
    match device.ftl.mapping {
        Mapping::Page => calibrated(|| Ok(SimSsd::new(device.clone(), seed, false)), seed),
        Mapping::Hybrid => calibrated(
            || HybridSsd::new(device, device.ftl.log_blocks, seed, false),
            seed,
        ),
    }
}

fn calibrated<D: Device>(
    make: impl Fn() -> Result<D, String>,
    seed: u64,
) -> Result<u64, InputError> {
    // The first device tells a bad configuration; the same one then builds
    // every later device.
    let first = Cell::new(Some(make().map_err(|m| InputError::invalid("device", m))?));
    let next = || {
        first
            .take()
            .unwrap_or_else(|| make().expect("a device that was built once builds again"))
    };
    Ok(lb_size::calibrate(next, 64 << 20, seed).lb_size)
}

/// One Postmark run on a fresh device of one model: the run, its checks and
/// its figures.
struct Fresh<'a> {
    host: &'a HostConfig,
    scheduler: &'a str,
    workload: &'a PostmarkFile,
    seed: u64,
    check: bool,
}

impl Fresh<'_> {
    fn on<D: Device>(
        &self,
        make: impl Fn() -> Result<D, String>,
        invariants: impl Fn(&D) -> Result<(), String>,
        figures: impl Fn(&D) -> DeviceFigures,
    ) -> Result<(PostmarkResult, DeviceFigures), InputError> {
        let dev = make().map_err(|m| InputError::invalid("device", m))?;
        let (result, dev) = run_postmark(dev, self.host, self.scheduler, self.workload, self.seed)?;
        if self.check {
            invariants(&dev).map_err(|e| InputError::invalid("device", e))?;
        }
        Ok((result, figures(&dev)))
    }
}
