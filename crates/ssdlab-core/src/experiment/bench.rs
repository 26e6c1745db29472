//! `ssdlab bench`: how fast the simulator runs, on a device preset. Wall-clock
//! figures are kept apart from the simulated (deterministic) ones.

use super::closed_loop::{ClosedLoop, LoadFigures};
use super::peak_rss_mb;
use crate::engine::EventQueue;
use crate::error::InputError;
use crate::ssd::config::SsdConfig;
use crate::ssd::device::{DeviceCounters, IoOp, SimSsd};
use crate::ssd::ftl::FtlCounters;
use crate::ssd::precondition::{precondition, Precondition, PreconditionReport};
use serde::Serialize;
use std::time::Instant;

pub struct BenchOptions {
    pub device: String,
    pub requests: u64,
    pub qd: u32,
    pub seed: u64,
}

#[derive(Debug, Serialize)]
pub struct BenchReport {
    pub device: String,
    pub requests: u64,
    pub qd: u32,
    pub seed: u64,
    pub precondition: PreconditionReport,
    pub randread: LoadFigures,
    pub randwrite_gc: LoadFigures,
    pub randwrite_gc_ftl: FtlCounters,
    pub randwrite_gc_waf: f64,
    pub randwrite_gc_device: DeviceCounters,
    /// Wall-clock figures: they vary from run to run and machine to machine.
    pub wall: BenchWall,
}

#[derive(Debug, Serialize)]
pub struct BenchWall {
    pub precondition_s: f64,
    pub randread_req_per_s: f64,
    pub randwrite_gc_req_per_s: f64,
    pub randread_events_per_s: f64,
    pub randwrite_gc_events_per_s: f64,
    pub peak_rss_mb: f64,
}

pub fn run(opts: &BenchOptions) -> Result<BenchReport, InputError> {
    if opts.requests == 0 {
        return Err(InputError::invalid(
            "--requests",
            "must be greater than zero",
        ));
    }
    if opts.qd == 0 {
        return Err(InputError::invalid("--qd", "must be greater than zero"));
    }
    let cfg = SsdConfig::load(&opts.device)?;
    let mut ssd = SimSsd::new(cfg, opts.seed, false);

    let t0 = Instant::now();
    let pre = precondition(&mut ssd, &Precondition::full(), opts.seed)?;
    let precondition_s = t0.elapsed().as_secs_f64();
    let span = ssd.layout.logical_pages;

    let load = |op| ClosedLoop {
        op,
        qd: opts.qd,
        requests: opts.requests,
        span,
        seed: opts.seed,
    };
    let mut q = EventQueue::starting_at(ssd.now());
    let t1 = Instant::now();
    let reads = load(IoOp::Read).run(&mut ssd, &mut q);
    let read_s = t1.elapsed().as_secs_f64();

    ssd.counters = Default::default();
    let t2 = Instant::now();
    let writes = load(IoOp::Write).run(&mut ssd, &mut q);
    let write_s = t2.elapsed().as_secs_f64();
    let ftl = ssd.ftl.counters.clone();
    let waf = if ftl.host_pages_written > 0 {
        (ftl.host_pages_written + ftl.gc_pages_moved + ftl.fold_pages_moved) as f64
            / ftl.host_pages_written as f64
    } else {
        0.0
    };
    Ok(BenchReport {
        device: ssd.cfg.name.clone(),
        requests: opts.requests,
        qd: opts.qd,
        seed: opts.seed,
        precondition: pre,
        randread: reads.figures,
        randwrite_gc: writes.figures,
        randwrite_gc_ftl: ftl,
        randwrite_gc_waf: waf,
        randwrite_gc_device: ssd.counters.clone(),
        wall: BenchWall {
            precondition_s,
            randread_req_per_s: opts.requests as f64 / read_s,
            randwrite_gc_req_per_s: opts.requests as f64 / write_s,
            randread_events_per_s: reads.events as f64 / read_s,
            randwrite_gc_events_per_s: writes.events as f64 / write_s,
            peak_rss_mb: peak_rss_mb(),
        },
    })
}
