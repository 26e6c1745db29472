//! `ssdlab bench`: how fast the simulator runs, on a device preset. Wall-clock
//! figures are kept apart from the simulated (deterministic) ones.

use crate::peak_rss_mb;
use serde::Serialize;
use ssdlab_protocol::Dir;
use ssdlab_sim::error::InputError;
use ssdlab_sim::experiment::closed_loop::{ClosedLoop, LoadFigures};
use ssdlab_sim::experiment::fio_run::{self, RunSetup};
use ssdlab_sim::kernel::Simulation;
use ssdlab_sim::preset::Preset;
use ssdlab_sim::ssd::device::{DeviceCounters, SimSsd};
use ssdlab_sim::ssd::ftl::FtlCounters;
use ssdlab_sim::ssd::precondition::{precondition, Precondition, PreconditionReport};
use std::time::Instant;

pub struct BenchOptions {
    pub device: String,
    pub requests: u64,
    pub qd: u32,
    pub seed: u64,
    /// Simulated seconds of the fio front-end figure (0 skips it).
    pub fio_seconds: u64,
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
    /// The K2 study's random-read job under `none` (absent with --fio-seconds 0).
    pub fio_k2_randread: Option<FioFigures>,
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
    /// Full stack (fio jobs, host, scheduler, device): requests per wall-second.
    pub fio_k2_randread_req_per_s: Option<f64>,
    pub fio_peak_rss_mb: Option<f64>,
}

/// Simulated figures of the fio front-end run.
#[derive(Debug, Clone, Serialize)]
pub struct FioFigures {
    pub device: String,
    pub scheduler: String,
    pub simulated_s: u64,
    pub requests: u64,
    pub total_bw_mbs: f64,
    pub rt_p999_us: f64,
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
    let cfg = Preset::load_device(&opts.device)?;
    let mut ssd = SimSsd::new(cfg, opts.seed, false);

    let t0 = Instant::now();
    let pre = precondition(&mut ssd, &Precondition::full(), opts.seed)?;
    let precondition_s = t0.elapsed().as_secs_f64();
    let span = ssd.layout().logical_pages;

    let load = |op| ClosedLoop {
        op,
        qd: opts.qd,
        requests: opts.requests,
        span,
        seed: opts.seed,
    };
    let mut sim = Simulation::new(ssd, None, opts.seed);
    let t1 = Instant::now();
    let reads = load(Dir::Read).run(&mut sim);
    let read_s = t1.elapsed().as_secs_f64();

    // The write figures count the writes' device work; GC that the reads
    // left running stays in the FTL's counters, as it did before.
    sim.device_mut().reset_device_counters();
    let t2 = Instant::now();
    let writes = load(Dir::Write).run(&mut sim);
    let write_s = t2.elapsed().as_secs_f64();
    let stats = sim.device().stats();
    let (ftl, device_counters) = (stats.ftl, stats.device);
    let device_name = sim.device().config().name.clone();
    let peak = peak_rss_mb();
    drop(sim);
    let fio = match opts.fio_seconds {
        0 => None,
        secs => Some(fio_figure(secs, opts.seed)?),
    };
    let waf = ftl.waf();
    Ok(BenchReport {
        device: device_name,
        requests: opts.requests,
        qd: opts.qd,
        seed: opts.seed,
        precondition: pre,
        randread: reads.figures,
        randwrite_gc: writes.figures,
        randwrite_gc_ftl: ftl,
        randwrite_gc_waf: waf,
        randwrite_gc_device: device_counters,
        fio_k2_randread: fio.as_ref().map(|f| f.0.clone()),
        wall: BenchWall {
            precondition_s,
            randread_req_per_s: opts.requests as f64 / read_s,
            randwrite_gc_req_per_s: opts.requests as f64 / write_s,
            randread_events_per_s: reads.events as f64 / read_s,
            randwrite_gc_events_per_s: writes.events as f64 / write_s,
            peak_rss_mb: peak,
            fio_k2_randread_req_per_s: fio.as_ref().map(|f| f.1),
            fio_peak_rss_mb: fio.as_ref().map(|_| peak_rss_mb()),
        },
    })
}

/// The K2 study's random-read job file (3 async jobs at QD 32 + 1 RT sync
/// job) under `none` on consumer-tlc-250g and the K2 study's host at 50%
/// occupancy, for `secs`
/// simulated seconds. Returns the figures and requests per wall-second of
/// the run itself (preconditioning excluded).
fn fio_figure(secs: u64, seed: u64) -> Result<(FioFigures, f64), InputError> {
    let text = include_str!("../jobs/k2/randread.fio")
        .replace("runtime=100s", &format!("runtime={secs}s"));
    let jobfile = ssdlab_fio::parse_str(&text, "examples/k2/randread.fio", &|_| None)
        .map_err(|e| InputError::invalid("examples/k2/randread.fio", e.to_string()))?;
    let device = Preset::load("consumer-tlc-250g")?.device;
    let setup = RunSetup {
        host: crate::k2::k2_host(),
        device,
        scheduler: "none".into(),
        occupancy: 0.5,
        precondition: ssdlab_sim::ssd::precondition::PreconditionMode::Auto,
        seed,
        check: false,
    };
    let prepared = fio_run::prepare(&jobfile, &setup)?;
    let t = Instant::now();
    let res = prepared.execute(None)?;
    let wall = t.elapsed().as_secs_f64();
    let reports: Vec<_> = res.stats.iter().map(|s| &s.report).collect();
    let requests: u64 = reports.iter().map(|r| r.read.total_ios).sum();
    let bw: u64 = reports.iter().map(|r| r.read.bw_bytes()).sum();
    let rt = reports
        .iter()
        .find(|r| r.jobname == "rt")
        .expect("the job file has an rt job");
    let p999 = rt.read.clat.percentiles(&[99.9]).first().map_or(0, |p| p.1);
    let figures = FioFigures {
        device: setup.device.name.clone(),
        scheduler: setup.scheduler.clone(),
        simulated_s: secs,
        requests,
        total_bw_mbs: bw as f64 / 1e6,
        rt_p999_us: p999 as f64 / 1000.0,
    };
    Ok((figures, requests as f64 / wall))
}
