//! `reproduce stb`: selective time-out bundling (Kang, Park, Yoo, ICCE
//! 2011) and IRBW-FIFO / IRBW-FIFO-RP (Kim et al., EMSOFT 2009) against the
//! SATA-era elevators noop and deadline, under five concurrent Postmark
//! processes over the page cache, on the `mlc-sata-8g` device with its
//! hybrid log-block FTL and with the same flash behind page mapping.
//!
//! The bundling schedulers gather `lb_size=auto`: the logical-block size
//! measured on each device (write bandwidth against request size).

pub mod command;
pub mod findings;

use crate::report::bar_svg::BarChart;
use crate::report::{write_study, Figure, StudyReport};
use crate::runner::Remote;
use crate::runner::{run_points, StudyPoint};
use serde::{Deserialize, Serialize};
use ssdlab_sim::error::InputError;
use ssdlab_sim::experiment::lb_size::resolve_auto;
use ssdlab_sim::experiment::postmark_run::{measure_lb_size, run_postmark_on};
use ssdlab_sim::host::HostConfig;
use ssdlab_sim::host::PageCacheConfig;
use ssdlab_sim::preset::Preset;
use ssdlab_sim::ssd::config::Mapping;
use ssdlab_sim::ssd::config::SsdConfig;
use ssdlab_sim::workload::postmark::{PostmarkConfig, PostmarkFile};
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};

/// The schedulers, in the report's order.
pub const SCHEDULERS: [&str; 5] = ["noop", "deadline", "irbw-fifo", "irbw-rp", "stb"];
pub const FTLS: [&str; 2] = ["hybrid", "page"];

/// How big a run is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Plan {
    Quick,
    Paper,
}

pub struct StbStudyOptions {
    pub out: PathBuf,
    pub threads: usize,
    pub seed: u64,
    pub plan: Plan,
    /// Where the points not in the cache run instead of local threads.
    pub remote: Option<Remote>,
}

/// One (FTL, scheduler) point.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StbRow {
    pub ftl: String,
    pub scheduler: String,
    /// The logical-block size the bundling schedulers gathered (0: none).
    pub lb_size: u64,
    pub transactions_per_s: f64,
    pub read_mb_s: f64,
    pub write_mb_s: f64,
    pub elapsed_s: f64,
    pub sync_write_avg_ms: f64,
    pub sync_write_max_ms: f64,
    pub async_write_avg_ms: f64,
    pub async_write_max_ms: f64,
    pub read_avg_ms: f64,
    pub read_max_ms: f64,
    pub create_avg_ms: f64,
    pub create_max_ms: f64,
    pub delete_avg_ms: f64,
    pub delete_max_ms: f64,
    pub read_op_avg_ms: f64,
    pub read_op_max_ms: f64,
    pub append_avg_ms: f64,
    pub append_max_ms: f64,
    pub waf: f64,
    pub erases: u64,
    pub full_merges: u64,
    pub partial_merges: u64,
    pub switch_merges: u64,
}

/// The study's Postmark and page cache: five processes as in the paper;
/// files and transactions by plan. The page cache is the model's default
/// (256 MiB, Linux 2.6.30's `vm.dirty_*`): its dirty limits (25.6 and
/// 51.2 MiB) hold many logical blocks, as a 2009 machine's hundreds of
/// megabytes did. The data set (2,000 to 4,000 files of up to 10 KB per
/// process, rewritten by appends) outgrows what write-back can keep
/// absorbed, so the device works throughout the transactions.
pub fn workload(plan: Plan) -> PostmarkFile {
    let (files, transactions) = match plan {
        Plan::Quick => (2_000, 20_000),
        Plan::Paper => (4_000, 40_000),
    };
    PostmarkFile {
        postmark: PostmarkConfig {
            processes: 5,
            files,
            transactions,
            ..PostmarkConfig::default()
        },
        page_cache: PageCacheConfig::default(),
        seed: None,
    }
}

/// The device of an FTL: `mlc-sata-8g` as shipped (hybrid) or with page
/// mapping.
pub fn preset(ftl: &str) -> Preset {
    let mut p = Preset::load("mlc-sata-8g").expect("built-in preset");
    if ftl == "page" {
        p.device.ftl.mapping = Mapping::Page;
    }
    p
}

fn scheduler_spec(name: &str) -> String {
    match name {
        "irbw-fifo" | "irbw-rp" | "stb" => format!("{name}:lb_size=auto"),
        other => other.to_string(),
    }
}

/// Runs every point not yet in the cache (`out/cache`), on local threads
/// or on `opts.remote`; returns the rows in the report's order and how many
/// were computed.
pub fn run(
    opts: &StbStudyOptions,
    progress: &(dyn Fn(usize, usize) + Sync),
) -> Result<(Vec<StbRow>, usize), InputError> {
    let points: Vec<StudyPoint<'_, StbRow>> = FTLS
        .iter()
        .flat_map(|&ftl| SCHEDULERS.iter().map(move |&sched| (ftl, sched)))
        .map(|(ftl, sched)| {
            let config = point_config(ftl, sched, opts);
            StudyPoint {
                config: config.clone(),
                cost: 1,
                compute: Box::new(move || run_config(&config)),
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

/// The study's points for `ssdlab.sweep`: (labels, configuration).
pub(crate) fn grid(paper: bool, seed: u64) -> Vec<(serde_json::Value, serde_json::Value)> {
    let opts = StbStudyOptions {
        out: PathBuf::new(),
        threads: 1,
        seed,
        plan: if paper { Plan::Paper } else { Plan::Quick },
        remote: None,
    };
    FTLS.iter()
        .flat_map(|&ftl| SCHEDULERS.iter().map(move |&sched| (ftl, sched)))
        .map(|(ftl, sched)| {
            let labels = serde_json::json!({ "ftl": ftl, "scheduler": sched });
            (labels, point_config(ftl, sched, &opts))
        })
        .collect()
}

fn point_config(ftl: &str, sched: &str, opts: &StbStudyOptions) -> serde_json::Value {
    let p = preset(ftl);
    let w = workload(opts.plan);
    serde_json::json!({
        "study": "stb",
        "ssdlab": env!("CARGO_PKG_VERSION"),
        "ftl": ftl,
        "point": sched,
        "device": p.device,
        "host": p.host,
        "scheduler": scheduler_spec(sched),
        "postmark": w.postmark,
        "page_cache": w.page_cache,
        "seed": opts.seed,
    })
}

/// The fields of a point's configuration.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ConfigFields {
    ftl: String,
    point: String,
    device: SsdConfig,
    host: HostConfig,
    scheduler: String,
    postmark: PostmarkConfig,
    page_cache: PageCacheConfig,
    seed: u64,
}

/// One point from its configuration alone (on this machine or on a Dask
/// worker): the same row either way.
pub fn run_config(config: &serde_json::Value) -> Result<StbRow, InputError> {
    let c: ConfigFields = crate::study_config::fields(config, "stb")?;
    let w = PostmarkFile {
        postmark: c.postmark,
        page_cache: c.page_cache,
        seed: None,
    };
    let (spec, lb) = resolve_auto(&c.scheduler, || lb_size_of(&c.device, c.seed))?;
    let (device, host) = (&c.device, &c.host);
    let (ftl, sched, opts_seed) = (c.ftl.as_str(), c.point.as_str(), c.seed);
    let (res, dev, _) = run_postmark_on(device, host, &spec, &w, opts_seed, false)?;
    let r = &res.report;
    let ms = |us: f64| us / 1e3;
    let op = |name: &str| {
        r.ops
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, f)| (ms(f.mean_us), ms(f.max_us)))
            .unwrap_or_default()
    };
    let (create, delete, read_op, append) = (op("create"), op("delete"), op("read"), op("append"));
    Ok(StbRow {
        ftl: ftl.into(),
        scheduler: sched.into(),
        lb_size: lb.unwrap_or(0),
        transactions_per_s: r.transactions_per_s,
        read_mb_s: r.read_mb_s,
        write_mb_s: r.write_mb_s,
        elapsed_s: r.elapsed_s,
        sync_write_avg_ms: ms(r.sync_write.mean_us),
        sync_write_max_ms: ms(r.sync_write.max_us),
        async_write_avg_ms: ms(r.async_write.mean_us),
        async_write_max_ms: ms(r.async_write.max_us),
        read_avg_ms: ms(r.read.mean_us),
        read_max_ms: ms(r.read.max_us),
        create_avg_ms: create.0,
        create_max_ms: create.1,
        delete_avg_ms: delete.0,
        delete_max_ms: delete.1,
        read_op_avg_ms: read_op.0,
        read_op_max_ms: read_op.1,
        append_avg_ms: append.0,
        append_max_ms: append.1,
        waf: dev.waf,
        erases: dev.erases,
        full_merges: dev.full_merges,
        partial_merges: dev.partial_merges,
        switch_merges: dev.switch_merges,
    })
}

/// `lb_size=auto` of a device, measured once per process for each device
/// and seed (the bundling points of an FTL share it; the others wait).
fn lb_size_of(device: &SsdConfig, seed: u64) -> Result<u64, InputError> {
    type Measured = Arc<OnceLock<Result<u64, String>>>;
    static MEASURED: Mutex<BTreeMap<String, Measured>> = Mutex::new(BTreeMap::new());
    let key = format!(
        "{}:{seed}",
        serde_json::to_string(device).expect("a device serializes")
    );
    let cell = MEASURED
        .lock()
        .expect("no measurement panicked")
        .entry(key)
        .or_default()
        .clone();
    cell.get_or_init(|| measure_lb_size(device, seed).map_err(|e| e.to_string()))
        .clone()
        .map_err(|m| InputError::invalid("device", m))
}

fn find<'a>(rows: &'a [StbRow], ftl: &str, sched: &str) -> Option<&'a StbRow> {
    rows.iter().find(|r| r.ftl == ftl && r.scheduler == sched)
}

/// STB's throughput over the best of noop and deadline, per FTL.
pub fn stb_gain(rows: &[StbRow], ftl: &str) -> Option<f64> {
    let stb = find(rows, ftl, "stb")?.transactions_per_s;
    let base = ["noop", "deadline"]
        .iter()
        .filter_map(|s| find(rows, ftl, s))
        .map(|r| r.transactions_per_s)
        .fold(0.0, f64::max);
    (base > 0.0).then(|| stb / base - 1.0)
}

/// Writes results.csv, report.md, the figures and report.html into `out`.
pub fn write_report(
    rows: &[StbRow],
    preamble: &str,
    out: &Path,
) -> Result<Vec<PathBuf>, InputError> {
    let io = |e: std::io::Error| InputError::invalid(out.display().to_string(), e.to_string());
    std::fs::create_dir_all(out).map_err(io)?;
    let figures = write_figures(rows, out).map_err(io)?;
    let mut body = crate::findings::markdown(&findings::findings(rows));
    body.push_str(&tables_markdown(rows));
    write_study(
        out,
        rows,
        &StudyReport::from_markdown(
            "STB and IRBW under Postmark — ssdlab",
            TITLE,
            preamble,
            &body,
            figures,
        ),
    )
}

const TITLE: &str = "# Selective time-out bundling (Kang, Park, Yoo 2011), reproduced by ssdlab";

type Metric = (&'static str, &'static str, fn(&StbRow) -> f64);

fn figure_metrics() -> [Metric; 4] {
    [
        ("throughput", "Postmark transactions per second", |r| {
            r.transactions_per_s
        }),
        ("read-avg", "Average read response (ms)", |r| r.read_avg_ms),
        ("create-avg", "Average create response (ms)", |r| {
            r.create_avg_ms
        }),
        ("sync-max", "Worst synchronous write response (ms)", |r| {
            r.sync_write_max_ms
        }),
    ]
}

fn write_figures(rows: &[StbRow], dir: &Path) -> std::io::Result<Vec<Figure>> {
    let mut figures = Vec::new();
    for (name, title, f) in figure_metrics() {
        let chart = BarChart {
            title,
            y_label: title,
            categories: FTLS.iter().map(|f| format!("{f} FTL")).collect(),
            series: SCHEDULERS.iter().map(|s| s.to_string()).collect(),
            values: FTLS
                .iter()
                .map(|ftl| {
                    SCHEDULERS
                        .iter()
                        .map(|s| find(rows, ftl, s).map_or(0.0, f))
                        .collect()
                })
                .collect(),
        };
        figures.push(Figure::write_svg(
            dir,
            format!("fig-{name}"),
            &chart.to_svg(),
            title.to_string(),
            "Bars: one per I/O scheduler, log scale.",
        )?);
    }
    Ok(figures)
}

fn tables_markdown(rows: &[StbRow]) -> String {
    let mut out = String::new();
    for ftl in FTLS {
        let _ = writeln!(out, "\n## {ftl} FTL\n");
        if let Some(g) = stb_gain(rows, ftl) {
            let _ = writeln!(
                out,
                "STB's throughput is {:+.1} % against the better of noop and deadline.\n",
                100.0 * g
            );
        }
        let _ = writeln!(out, "| scheduler | lb_size | transactions/s | read MB/s | write MB/s | WAF | full / partial / switch merges |\n|---|---|---|---|---|---|---|");
        for s in SCHEDULERS {
            let Some(r) = find(rows, ftl, s) else {
                continue;
            };
            let lb = if r.lb_size > 0 {
                format!("{} KiB", r.lb_size >> 10)
            } else {
                "–".into()
            };
            let _ = writeln!(
                out,
                "| {s} | {lb} | {:.1} | {:.2} | {:.2} | {:.2} | {} / {} / {} |",
                r.transactions_per_s,
                r.read_mb_s,
                r.write_mb_s,
                r.waf,
                r.full_merges,
                r.partial_merges,
                r.switch_merges
            );
        }
        let _ = writeln!(out, "\nResponse times, average / worst (ms):\n\n| scheduler | sync write | async write | read | create | delete | read op | append |\n|---|---|---|---|---|---|---|---|");
        for s in SCHEDULERS {
            let Some(r) = find(rows, ftl, s) else {
                continue;
            };
            let _ = writeln!(
                out,
                "| {s} | {:.2} / {:.1} | {:.2} / {:.1} | {:.2} / {:.1} | {:.2} / {:.1} | {:.2} / {:.1} | {:.2} / {:.1} | {:.2} / {:.1} |",
                r.sync_write_avg_ms, r.sync_write_max_ms, r.async_write_avg_ms, r.async_write_max_ms,
                r.read_avg_ms, r.read_max_ms, r.create_avg_ms, r.create_max_ms,
                r.delete_avg_ms, r.delete_max_ms, r.read_op_avg_ms, r.read_op_max_ms,
                r.append_avg_ms, r.append_max_ms
            );
        }
    }
    if let (Some(h), Some(p)) = (stb_gain(rows, "hybrid"), stb_gain(rows, "page")) {
        let _ = writeln!(
            out,
            "\n## What bundling buys on each FTL\n\nSTB over the better elevator: {:+.1} % on the hybrid FTL, {:+.1} % on page mapping ({:+.1} points).",
            100.0 * h,
            100.0 * p,
            100.0 * (p - h)
        );
    }
    out
}
