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

use crate::cache::Cache;
use crate::report::bar_svg::BarChart;
use crate::report::{write_study, Figure, StudyReport};
use crate::runner::{run_points, StudyPoint};
use serde::{Deserialize, Serialize};
use ssdlab_sim::error::InputError;
use ssdlab_sim::experiment::fio_run::{self, RunSetup};
use ssdlab_sim::preset::Preset;
use ssdlab_sim::ssd::config::{GcExecution, SsdConfig};
use ssdlab_sim::workload::trace_replay::{replay_jobfile, ReplayOptions, TraceFeed};
use ssdlab_trace::{write_trace, Format, Profile, ReadOptions, SynthOptions, PROFILES};
use std::fmt::Write as _;
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
}

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

/// Writes `profile`'s synthetic trace into `dir` (MQSim format), at the
/// arrival rate that offers `opts.offered_mbs`. A trace is named by a hash
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
    let p = profile;
    let avg_kb = p.read_pct / 100.0 * p.avg_read_kb + (1.0 - p.read_pct / 100.0) * p.avg_write_kb;
    let iops = opts.offered_mbs * 1e6 / (avg_kb * 1024.0);
    let profile = Profile { iops, ..*p };
    let so = SynthOptions {
        requests: opts.requests,
        span_bytes: trace_span(opts),
        seed: opts.seed,
    };
    let key = Cache::key(&serde_json::json!({
        "ssdlab": env!("CARGO_PKG_VERSION"),
        "profile": format!("{profile:?}"),
        "requests": so.requests,
        "span_bytes": so.span_bytes,
        "seed": so.seed,
    }));
    let path = dir.join(format!("{}-{}.mqsim", p.name, &key[..12]));
    if path.is_file() {
        return Ok(path);
    }
    let tmp = dir.join(format!(
        ".{}-{}.tmp-{}",
        p.name,
        &key[..12],
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

/// Runs the study: every (profile, scheme) point not yet in the cache
/// (`out/cache`). Returns the rows and how many were computed.
pub fn run(
    opts: &GcStudyOptions,
    progress: &(dyn Fn(usize, usize) + Sync),
) -> Result<(Vec<GcRow>, usize), InputError> {
    let traces = PROFILES
        .iter()
        .map(|p| write_profile_trace(p, opts, &opts.out.join("traces")))
        .collect::<Result<Vec<_>, _>>()?;
    let points: Vec<StudyPoint<'_, GcRow>> = (0..PROFILES.len())
        .flat_map(|i| SCHEMES.iter().map(move |&scheme| (i, scheme)))
        .map(|(i, scheme)| {
            let (profile, trace) = (&PROFILES[i], &traces[i]);
            StudyPoint {
                config: point_config(profile, scheme, opts),
                cost: 1,
                compute: Box::new(move || run_one(profile.name, scheme, trace, opts)),
            }
        })
        .collect();
    run_points(&points, &opts.out.join("cache"), opts.threads, progress)
}

/// Everything that decides a point's result (the cache key's input).
pub fn point_config(profile: &Profile, scheme: &str, opts: &GcStudyOptions) -> serde_json::Value {
    serde_json::json!({
        "study": "gc-ondemand",
        "ssdlab": env!("CARGO_PKG_VERSION"),
        "device": scheme_preset(scheme).device,
        "host": scheme_preset(scheme).host,
        "profile": format!("{profile:?}"),
        "scheme": scheme,
        "footprint": opts.footprint,
        "requests": opts.requests,
        "offered_mbs": opts.offered_mbs,
        "write_volume": opts.write_volume,
        "seed": opts.seed,
    })
}

/// Replays `trace` (profile `profile`'s) under `scheme`: one row.
pub fn run_one(
    profile: &str,
    scheme: &str,
    trace: &Path,
    opts: &GcStudyOptions,
) -> Result<GcRow, InputError> {
    let Preset { device, host } = scheme_preset(scheme);
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
        time_scale: 1.0,
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
    })
}

/// Writes the study's report into `out`: results.csv, report.md, one SVG
/// figure per metric and report.html. Returns every file written.
pub fn write_report(
    rows: &[GcRow],
    preamble: &str,
    out: &Path,
) -> Result<Vec<PathBuf>, InputError> {
    let io = |e: std::io::Error| InputError::invalid(out.display().to_string(), e.to_string());
    std::fs::create_dir_all(out).map_err(io)?;
    let figures = write_figures(rows, out).map_err(io)?;
    let body = tables_markdown(rows);
    write_study(
        out,
        rows,
        &StudyReport::from_markdown(
            "On-demand GC with prioritized victims — ssdlab",
            TITLE,
            preamble,
            &body,
            figures,
        ),
    )
}

const TITLE: &str =
    "# On-demand GC with prioritized victims (Lee, Choi, Hong 2023), reproduced by ssdlab";

/// One SVG figure per metric (profiles × schemes, log scale) in `dir`.
fn write_figures(rows: &[GcRow], dir: &Path) -> std::io::Result<Vec<Figure>> {
    let mut figures = Vec::new();
    for (i, (title, f)) in metrics().iter().enumerate() {
        let cats: Vec<&str> = PROFILES.iter().map(|p| p.name).collect();
        let chart = BarChart {
            title,
            y_label: title,
            categories: cats.iter().map(|c| format!("{c}*")).collect(),
            series: SCHEMES.iter().map(|s| s.to_string()).collect(),
            values: cats
                .iter()
                .map(|c| {
                    SCHEMES
                        .iter()
                        .map(|s| {
                            rows.iter()
                                .find(|r| r.profile == *c && r.scheme == *s)
                                .map_or(0.0, f)
                        })
                        .collect()
                })
                .collect(),
        };
        let id = format!("fig-{}", FIGURE_NAMES[i]);
        let svg = dir.join(format!("{id}.svg"));
        std::fs::write(&svg, chart.to_svg())?;
        figures.push(Figure {
            id,
            svg,
            png: None,
            title: title.to_string(),
            legend: "Bars: one per GC scheme, log scale; * marks a synthetic stand-in profile."
                .into(),
        });
    }
    Ok(figures)
}

const FIGURE_NAMES: [&str; 7] = [
    "avg-read",
    "max-read",
    "avg-write",
    "max-write",
    "p999-read",
    "p999-write",
    "waf",
];

fn metrics() -> [Metric; 7] {
    [
        ("Average read latency (ms)", |r| r.avg_read_ms),
        ("Maximum read latency (ms)", |r| r.max_read_ms),
        ("Average write latency (ms)", |r| r.avg_write_ms),
        ("Maximum write latency (ms)", |r| r.max_write_ms),
        ("p99.9 read latency (ms)", |r| r.p999_read_ms),
        ("p99.9 write latency (ms)", |r| r.p999_write_ms),
        ("Write amplification", |r| r.waf),
    ]
}

/// A reported metric: its title and how to read it from a row.
type Metric = (&'static str, fn(&GcRow) -> f64);

/// report.md's tables: one per metric (profiles × schemes, with the
/// improvement ratio of on-demand over BBGC), then victim invalidity next to
/// the paper's.
fn tables_markdown(rows: &[GcRow]) -> String {
    let mut out = String::new();
    for (title, f) in metrics() {
        let _ = writeln!(out, "\n## {title}\n\n| profile (synthetic stand-in) | PBGC | BBGC | on-demand | BBGC / on-demand |\n|---|---|---|---|---|");
        for p in PROFILES {
            let get = |s: &str| {
                rows.iter()
                    .find(|r| r.profile == p.name && r.scheme == s)
                    .map(f)
            };
            let (Some(pb), Some(bb), Some(od)) = (get("PBGC"), get("BBGC"), get("on-demand"))
            else {
                continue;
            };
            let ratio = if od > 0.0 {
                format!("{:.2}×", bb / od)
            } else {
                "–".into()
            };
            let _ = writeln!(
                out,
                "| {} | {pb:.3} | {bb:.3} | {od:.3} | {ratio} |",
                p.name
            );
        }
    }
    out.push_str("\n## GC victims and their invalid pages\n\n| profile | scheme | GC invocations | ≥70% invalid | paper ≥70% | ≥90% invalid | paper ≥90% |\n|---|---|---|---|---|---|---|\n");
    for r in rows {
        let paper = PAPER_VICTIMS.iter().find(|(n, _, _)| *n == r.profile);
        let (p70, p90) = paper.map_or((0.0, 0.0), |&(_, a, b)| (a, b));
        let _ = writeln!(
            out,
            "| {} | {} | {} | {:.1}% | {p70:.1}% | {:.1}% | {p90:.1}% |",
            r.profile,
            r.scheme,
            r.gc_invocations,
            r.victims_ge70_invalid_pct,
            r.victims_ge90_invalid_pct
        );
    }
    out
}
