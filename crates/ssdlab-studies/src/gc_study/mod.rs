//! `reproduce gc-ondemand`: the on-demand GC study (Lee, Choi, Hong,
//! Electronics 12(9):2142, 2023) on the `seed004` device — the six
//! application profiles
//! (synthetic stand-ins) × PBGC, BBGC and on-demand GC.
//!
//! Each run: precondition to 60% of the physical space (so the 70% point is
//! crossed during the run), write the profile's synthetic trace, replay it
//! open loop at a fixed arrival rate (the time compression that creates GC
//! pressure: every profile offers the same MB/s), looping until the host has
//! written `write_volume` × the logical capacity.

pub mod command;
pub mod findings;
mod load;
mod report;
#[cfg(test)]
pub(crate) mod tests;

pub use load::{headline_load, run, Headline, LoadPlan, SchemeLimit, Sweep, HEADLINE_SHARE};
pub use report::write_report;

use crate::cache::Cache;
use crate::runner::{run_points, StudyPoint};
use serde::{Deserialize, Serialize};
use ssdlab_sim::error::InputError;
use ssdlab_sim::experiment::fio_run::{self, RunSetup};
use ssdlab_sim::preset::Preset;
use ssdlab_sim::ssd::config::{GcExecution, SsdConfig};
use ssdlab_sim::workload::trace_replay::{replay_jobfile, ReplayOptions, TraceFeed};
use ssdlab_trace::{write_trace, Format, Profile, ReadOptions, SynthOptions};
use std::path::{Path, PathBuf};

pub const SCHEMES: [&str; 3] = ["PBGC", "BBGC", "on-demand"];

/// The paper's victim-invalidity shares (≥70%, ≥90% invalid), by profile.
pub const PAPER_VICTIMS: [(&str, f64, f64); 6] = [
    ("cassandra", 59.827, 51.855),
    ("mongodb", 80.908, 74.036),
    ("mysql", 92.859, 84.326),
    ("rocksdb", 68.494, 68.396),
    ("dbench", 88.577, 76.184),
    ("sqlite", 92.712, 42.322),
];

#[derive(Debug, Clone)]
pub struct GcStudyOptions {
    pub out: PathBuf,
    pub threads: usize,
    pub seed: u64,
    /// Requests per trace pass.
    pub requests: u64,
    /// Offered load of the replay, MB/s: each profile's arrival rate is set
    /// so that its average request size times the rate gives this.
    pub offered_mbs: f64,
    /// Host writes per run, in multiples of the logical capacity.
    pub write_volume: f64,
    /// Share of the physical space the traces address (their footprint),
    /// from logical page 0.
    pub footprint: f64,
    /// Where the points not in the cache run instead of local threads.
    pub remote: Option<crate::runner::Remote>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GcRow {
    pub profile: String,
    pub scheme: String,
    pub avg_read_ms: f64,
    pub max_read_ms: f64,
    pub avg_write_ms: f64,
    pub max_write_ms: f64,
    pub p999_read_ms: f64,
    pub p999_write_ms: f64,
    pub waf: f64,
    pub gc_invocations: u64,
    pub victims_ge70_invalid_pct: f64,
    pub victims_ge90_invalid_pct: f64,
    /// The load the replay was set to offer, MB/s.
    pub load_mbs: f64,
    /// What the trace offers (its bytes over its span), MB/s.
    pub offered_mbs: f64,
    /// What the drive served: the bytes over the job's run time, MB/s.
    pub served_mbs: f64,
    /// The drive kept up (served ≥ `BOUNDED_SHARE` of what was offered):
    /// the queue stayed bounded.
    pub bounded: bool,
    /// Mean wait of a host page queued at its die, µs, by what the die was
    /// doing: a GC job's copies, its erase, other host I/O, anything else.
    pub read_wait_gc_copy_us: f64,
    pub read_wait_gc_erase_us: f64,
    pub read_wait_host_us: f64,
    pub read_wait_other_us: f64,
    pub write_wait_gc_copy_us: f64,
    pub write_wait_gc_erase_us: f64,
    pub write_wait_host_us: f64,
    pub write_wait_other_us: f64,
    /// The run is its profile's headline (set when the report is written).
    #[serde(default)]
    pub headline: bool,
}

/// The share of the offered bytes per second a drive must serve over a run
/// for its queue to count as bounded: a queue that grows without bound
/// leaves its backlog to drain after the last arrival, which stretches the
/// run and lowers the served rate (docs/gc-study.md).
pub const BOUNDED_SHARE: f64 = 0.98;

/// The device of a scheme: seed004 with the scheme applied.
pub fn scheme_preset(scheme: &str) -> Preset {
    let mut preset = Preset::load("seed004").expect("built-in preset");
    apply_scheme(&mut preset.device, scheme).expect("a known scheme");
    preset
}

/// Applies a GC scheme of the study to any device: `pbgc` (eager 70%
/// trigger, greedy, plane-blocking), `bbgc` (the same, block-blocking) or
/// `on-demand` (invalidation-rate trigger, prioritized victims,
/// block-blocking); all enable GC at 70% full.
pub fn apply_scheme(cfg: &mut SsdConfig, scheme: &str) -> Result<(), InputError> {
    let (trigger, policy, execution) = match scheme.to_ascii_lowercase().as_str() {
        "pbgc" => ("eager70", "greedy", GcExecution::PlaneBlocking),
        "bbgc" => ("eager70", "greedy", GcExecution::BlockBlocking),
        "on-demand" => ("on-demand", "prioritized", GcExecution::BlockBlocking),
        _ => {
            return Err(InputError::invalid(
                "--gc",
                format!("unknown scheme '{scheme}' (known: pbgc, bbgc, on-demand)"),
            ))
        }
    };
    cfg.gc.enable_at_full = 0.70;
    cfg.gc.trigger = trigger.parse().expect("a registered name");
    cfg.gc.policy = policy.parse().expect("a registered name");
    cfg.gc.execution = execution;
    Ok(())
}

/// The bytes the synthetic traces address: the first `opts.footprint` of
/// the device's physical space, in whole 4 KiB pages, at most the logical
/// capacity.
pub fn trace_span(opts: &GcStudyOptions) -> u64 {
    let device = scheme_preset("BBGC").device;
    let logical = device.layout().capacity_bytes();
    let physical = logical as f64 / (1.0 - device.ftl.over_provisioning);
    let span = ((opts.footprint * physical) as u64).min(logical);
    span / ssdlab_trace::synth::PAGE_BYTES * ssdlab_trace::synth::PAGE_BYTES
}

/// The load a profile's trace offers as written, MB/s; a replay at another
/// load divides its inter-arrival times by `load / TRACE_MBS` (the time
/// compression of the paper's replays).
pub const TRACE_MBS: f64 = 40.0;

/// The arrival rate (requests/s) at which `profile`'s trace offers
/// `TRACE_MBS`.
fn trace_iops(p: &Profile) -> f64 {
    let avg_kb = p.read_pct / 100.0 * p.avg_read_kb + (1.0 - p.read_pct / 100.0) * p.avg_write_kb;
    TRACE_MBS * 1e6 / (avg_kb * 1024.0)
}

fn synth_options(opts: &GcStudyOptions) -> SynthOptions {
    SynthOptions {
        requests: opts.requests,
        span_bytes: trace_span(opts),
        seed: opts.seed,
    }
}

/// Where [`write_profile_trace`] puts `profile`'s trace in `dir` (named
/// by a hash of what generates it), and that hash.
pub fn profile_trace_path(
    profile: &Profile,
    opts: &GcStudyOptions,
    dir: &Path,
) -> (PathBuf, String) {
    let so = synth_options(opts);
    let key = Cache::key(&serde_json::json!({
        "ssdlab": env!("CARGO_PKG_VERSION"),
        "profile": Profile { iops: trace_iops(profile), ..*profile },
        "requests": so.requests,
        "span_bytes": so.span_bytes,
        "seed": so.seed,
    }));
    (
        dir.join(format!("{}-{}.mqsim", profile.name, &key[..12])),
        key,
    )
}

/// Writes `profile`'s synthetic trace into `dir` (MQSim format), at the
/// arrival rate that offers `TRACE_MBS`. A trace is named by a hash
/// of what generates it and written to a temporary file renamed when
/// complete, so one that exists is whole and is reused.
pub fn write_profile_trace(
    profile: &Profile,
    opts: &GcStudyOptions,
    dir: &Path,
) -> Result<PathBuf, InputError> {
    let io = |e: std::io::Error| InputError::invalid(dir.display().to_string(), e.to_string());
    std::fs::create_dir_all(dir).map_err(io)?;
    // A study killed while writing a trace left its temporary behind.
    crate::cache::remove_stale_temporaries(dir);
    let (path, key) = profile_trace_path(profile, opts, dir);
    if path.is_file() {
        return Ok(path);
    }
    let p = profile;
    let profile = Profile {
        iops: trace_iops(p),
        ..*p
    };
    let so = synth_options(opts);
    // Unique among this process's threads too (two points of a profile may
    // both find its trace missing).
    static WRITING: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let tmp = dir.join(format!(
        ".{}-{}-{}.tmp-{}",
        p.name,
        &key[..12],
        WRITING.fetch_add(1, std::sync::atomic::Ordering::Relaxed),
        std::process::id()
    ));
    let written = (|| {
        let mut w = std::io::BufWriter::new(std::fs::File::create(&tmp)?);
        write_trace(&mut w, Format::Mqsim, &profile, &so)?;
        std::io::Write::flush(&mut w)?;
        drop(w);
        std::fs::rename(&tmp, &path)
    })();
    if let Err(e) = written {
        // No half-written trace is left behind.
        let _ = std::fs::remove_file(&tmp);
        return Err(io(e));
    }
    Ok(path)
}

/// One run of the study: a profile (an index into `profiles`) under a
/// scheme at an offered load (MB/s).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Cell {
    pub profile: usize,
    pub scheme: &'static str,
    pub load_mbs: f64,
}

/// Runs `cells` of `profiles`, each taken from the cache (`out/cache`)
/// when it was run before, on local threads (their traces in `out/traces`)
/// or on `opts.remote`. Returns the rows in the cells' order and how many
/// were computed.
pub fn run_cells(
    opts: &GcStudyOptions,
    profiles: &[Profile],
    cells: &[Cell],
    progress: &(dyn Fn(usize, usize) + Sync),
) -> Result<(Vec<GcRow>, usize), InputError> {
    let traces = opts.out.join("traces");
    let points: Vec<StudyPoint<'_, GcRow>> = cells
        .iter()
        .map(|c| {
            let at = GcStudyOptions {
                offered_mbs: c.load_mbs,
                ..opts.clone()
            };
            let config = point_config(&profiles[c.profile], c.scheme, &at);
            let traces = traces.clone();
            StudyPoint {
                config: config.clone(),
                // Heavier loads queue more: they take longer to simulate.
                cost: c.load_mbs.round() as u64,
                compute: Box::new(move || run_config_in(&config, &traces)),
            }
        })
        .collect();
    let cache = opts.out.join("cache");
    run_points(
        &points,
        &cache,
        opts.threads,
        opts.remote.as_ref(),
        progress,
    )
}

/// `reproduce gc-ondemand`'s defaults: requests per trace pass, host
/// writes in multiples of the logical capacity, the traces' footprint.
pub const REQUESTS: u64 = 200_000;
pub const WRITE_VOLUME: f64 = 2.0;
pub const FOOTPRINT: f64 = 0.65;

/// The ladder of the quick or paper load sweep for `ssdlab.sweep`, every
/// profile and scheme at every load, with the command's defaults:
/// (labels, configuration).
pub(crate) fn grid(paper: bool, seed: u64) -> Vec<(serde_json::Value, serde_json::Value)> {
    let plan = if paper {
        LoadPlan::paper()
    } else {
        LoadPlan::quick()
    };
    let mut out = Vec::new();
    for profile in ssdlab_trace::PROFILES {
        for scheme in SCHEMES {
            for &load in &plan.ladder {
                let at = GcStudyOptions {
                    out: PathBuf::new(),
                    threads: 1,
                    seed,
                    requests: REQUESTS,
                    offered_mbs: load,
                    write_volume: WRITE_VOLUME,
                    footprint: FOOTPRINT,
                    remote: None,
                };
                let labels = serde_json::json!({
                    "profile": profile.name, "scheme": scheme, "load_mbs": load,
                });
                out.push((labels, point_config(profile, scheme, &at)));
            }
        }
    }
    out
}

/// The fields of a point's configuration.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ConfigFields {
    row: u32,
    device: SsdConfig,
    host: ssdlab_sim::host::HostConfig,
    /// Read as a `Profile` from an owned value (its name is `'static`).
    profile: serde_json::Value,
    scheme: String,
    footprint: f64,
    requests: u64,
    offered_mbs: f64,
    write_volume: f64,
    seed: u64,
}

/// One point from its configuration alone, its trace written into (or
/// found in) the system's temporary directory: what a Dask worker runs.
pub fn run_config(config: &serde_json::Value) -> Result<GcRow, InputError> {
    run_config_in(config, &std::env::temp_dir().join("ssdlab-gc-traces"))
}

/// One point from its configuration, its trace in `traces` (written there
/// unless a whole one is there already).
pub(crate) fn run_config_in(
    config: &serde_json::Value,
    traces: &Path,
) -> Result<GcRow, InputError> {
    let c: ConfigFields = crate::study_config::fields(config, "gc-ondemand")?;
    if c.row != ROW_FORMAT {
        return Err(InputError::invalid(
            "gc-ondemand point configuration",
            format!("row format {} is not {ROW_FORMAT}", c.row),
        ));
    }
    let opts = GcStudyOptions {
        out: PathBuf::new(),
        threads: 1,
        seed: c.seed,
        requests: c.requests,
        offered_mbs: c.offered_mbs,
        write_volume: c.write_volume,
        footprint: c.footprint,
        remote: None,
    };
    let profile = Profile::deserialize(c.profile).map_err(|e| {
        InputError::invalid("gc-ondemand point configuration", format!("profile: {e}"))
    })?;
    let trace = write_profile_trace(&profile, &opts, traces)?;
    let preset = Preset {
        device: c.device,
        host: c.host,
    };
    run_one(profile.name, &c.scheme, preset, &trace, &opts)
}

/// Writes every profile's trace into `out/traces`.
pub fn write_traces(
    opts: &GcStudyOptions,
    profiles: &[Profile],
) -> Result<Vec<PathBuf>, InputError> {
    profiles
        .iter()
        .map(|p| write_profile_trace(p, opts, &opts.out.join("traces")))
        .collect()
}

/// Everything that decides a point's result (the cache key's input).
pub fn point_config(profile: &Profile, scheme: &str, opts: &GcStudyOptions) -> serde_json::Value {
    serde_json::json!({
        "study": "gc-ondemand",
        "row": ROW_FORMAT,
        "ssdlab": env!("CARGO_PKG_VERSION"),
        "device": scheme_preset(scheme).device,
        "host": scheme_preset(scheme).host,
        "profile": profile,
        "scheme": scheme,
        "footprint": opts.footprint,
        "requests": opts.requests,
        "offered_mbs": opts.offered_mbs,
        "write_volume": opts.write_volume,
        "seed": opts.seed,
    })
}

/// The shape of a point's row and configuration: 2 since rows have the
/// load, the served rate and the waits; 3 since the configuration holds
/// the profile's fields (a Dask worker rebuilds its trace from them).
const ROW_FORMAT: u32 = 3;

/// Replays `trace` (profile `profile`'s) under `scheme` on `preset` (the
/// scheme's device): one row.
fn run_one(
    profile: &str,
    scheme: &str,
    preset: Preset,
    trace: &Path,
    opts: &GcStudyOptions,
) -> Result<GcRow, InputError> {
    let Preset { device, host } = preset;
    let logical = device.layout().capacity_bytes();
    let setup = RunSetup {
        occupancy: 0.60 * (1.0 - device.ftl.over_provisioning).recip(),
        precondition: ssdlab_sim::ssd::precondition::PreconditionMode::Auto,
        host,
        device,
        scheduler: "none".into(),
        seed: opts.seed,
        check: false,
    };
    let feed = TraceFeed::open(ReplayOptions {
        path: trace.to_path_buf(),
        format: Format::Mqsim,
        read: ReadOptions::default(),
        time_scale: opts.offered_mbs / TRACE_MBS,
        open_loop: true,
        loop_until_write_bytes: Some((opts.write_volume * logical as f64) as u64),
        device_bytes: logical,
        align_bytes: 512,
    })
    .map_err(|e| InputError::invalid(trace.display().to_string(), e))?;
    let jobfile = replay_jobfile(
        profile,
        &trace.display().to_string(),
        Format::Mqsim.name(),
        None,
    );
    let res = fio_run::prepare_with_sources(&jobfile, &setup, vec![Some(Box::new(feed))])?
        .account_waits()
        .execute(None)?;
    let r = &res.stats[0].report;
    let ms = |ns: f64| ns / 1e6;
    // Total latency (issue to completion): a request waiting for a tag
    // during a GC stall is part of what the study measures.
    let p999 = |d: &ssdlab_metrics::DirStats| {
        d.lat
            .percentiles(&[99.9])
            .first()
            .map_or(0.0, |p| p.1 as f64)
    };
    let runtime_ns = r.read.runtime_ns.max(r.write.runtime_ns).max(1);
    let served_mbs = (r.read.io_bytes + r.write.io_bytes) as f64 * 1e3 / runtime_ns as f64;
    let offered_mbs = trace_rate_mbs(trace, opts.offered_mbs / TRACE_MBS)?;
    let waits = mean_waits(res.host_waits);
    let f = &res.ftl;
    let share = |n: u64| {
        if f.gc_invocations == 0 {
            0.0
        } else {
            100.0 * n as f64 / f.gc_invocations as f64
        }
    };
    Ok(GcRow {
        profile: profile.into(),
        scheme: scheme.into(),
        avg_read_ms: ms(r.read.lat.mean()),
        max_read_ms: ms(r.read.lat.max() as f64),
        avg_write_ms: ms(r.write.lat.mean()),
        max_write_ms: ms(r.write.lat.max() as f64),
        p999_read_ms: ms(p999(&r.read)),
        p999_write_ms: ms(p999(&r.write)),
        waf: f.waf(),
        gc_invocations: f.gc_invocations,
        victims_ge70_invalid_pct: share(f.victims_ge70_invalid),
        victims_ge90_invalid_pct: share(f.victims_ge90_invalid),
        load_mbs: opts.offered_mbs,
        offered_mbs,
        served_mbs,
        bounded: served_mbs >= BOUNDED_SHARE * offered_mbs,
        read_wait_gc_copy_us: waits.0[0],
        read_wait_gc_erase_us: waits.0[1],
        read_wait_host_us: waits.0[2],
        read_wait_other_us: waits.0[3],
        write_wait_gc_copy_us: waits.1[0],
        write_wait_gc_erase_us: waits.1[1],
        write_wait_host_us: waits.1[2],
        write_wait_other_us: waits.1[3],
        headline: false,
    })
}

/// What a trace offers when replayed at `time_scale`: its bytes over its
/// span, MB/s.
fn trace_rate_mbs(trace: &Path, time_scale: f64) -> Result<f64, InputError> {
    let err = |e: String| InputError::invalid(trace.display().to_string(), e);
    let reader = ssdlab_trace::open(trace, Format::Mqsim, ReadOptions::default())
        .map_err(|e| err(e.to_string()))?;
    let (mut bytes, mut first, mut last) = (0u64, u64::MAX, 0u64);
    for rec in reader {
        let rec = rec.map_err(|e| err(e.to_string()))?;
        bytes += rec.len as u64;
        first = first.min(rec.time_ns);
        last = last.max(rec.time_ns);
    }
    let span_ns = last.saturating_sub(first).max(1) as f64 / time_scale;
    Ok(bytes as f64 * 1e3 / span_ns)
}

/// Mean wait per host page at its die, µs, for reads and writes: GC
/// copies, GC erase, other host I/O, anything else.
fn mean_waits(w: Option<ssdlab_sim::ssd::device::HostWaits>) -> ([f64; 4], [f64; 4]) {
    let Some(w) = w else {
        return ([0.0; 4], [0.0; 4]);
    };
    let per_page = |s: &ssdlab_sim::ssd::device::WaitSplit, pages: u64| {
        let us = |ns: u64| ns as f64 / 1e3 / pages.max(1) as f64;
        [
            us(s.gc_copy),
            us(s.gc_erase),
            us(s.host_read + s.host_program),
            us(s.other),
        ]
    };
    (
        per_page(&w.read, w.read_pages),
        per_page(&w.write, w.write_pages),
    )
}
