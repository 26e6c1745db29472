//! The k2-adaptive study's report: the cell table against the oracle, the
//! phase workloads' scores, and per phase workload the bound over time, the
//! bandwidth over time and the RT p99.9 of each phase.

use super::cells::Comparison;
use super::phases::{self, PhasePoint, Score};
use super::{Options, Row};
use crate::point::PointFigures;
use crate::report::line_svg::LineChart;
use crate::report::{write_study, Figure, StudyReport};
use ssdlab_sim::error::InputError;
use std::fmt::Write as _;
use std::path::PathBuf;

/// The bound drawn for "unbounded" (K2's 4096) so the finite ones show.
const UNBOUNDED_DRAWN: f64 = 128.0;

pub fn write(
    opts: &Options,
    rows: &[Row],
    cells: &[Comparison],
    scores: &[Score],
    runs: &[(&PhasePoint, &PointFigures)],
) -> Result<Vec<PathBuf>, InputError> {
    let io = |e: std::io::Error| InputError::invalid(opts.out.display().to_string(), e.to_string());
    std::fs::create_dir_all(&opts.out).map_err(io)?;
    let figures = figures(opts, scores, runs).map_err(io)?;
    let preamble = preamble(opts);
    let body = format!("{}{}", cell_section(cells), phase_section(scores));
    let report = StudyReport::from_markdown(
        "k2-adaptive: K2 choosing its own bound — ssdlab",
        "# k2-adaptive against the oracle static bound",
        &preamble,
        &body,
        figures,
    );
    let mut files = write_study(&opts.out, rows, &report)?;
    let cmp = opts.out.join("comparison.csv");
    crate::report::write_rows_csv(cells, &cmp)
        .map_err(|e| InputError::invalid(cmp.display().to_string(), e.to_string()))?;
    files.push(cmp);
    Ok(files)
}

fn preamble(opts: &Options) -> String {
    let p = &opts.plan;
    format!(
        "The K2 study's set-up (three background libaio jobs at QD 32, one RT psync job with a 2 ms \
think time; consumer-tlc-250g; {}; seed {}). Each cell runs `none`, K2-1 … K2-64 and \
`k2-adaptive` for O1 (most bandwidth with RT p99.9 ≤ α % of `none`'s) and O2 (least RT p99.9 \
with bandwidth ≥ β % of `none`'s), α, β ∈ {{25, 50, 75}}; the oracle is the best static bound \
for the objective, read off the same sweep. k2-adaptive knows neither the sweep nor `none`'s \
figures: it measures its own reference (docs/model.md, \"k2-adaptive\"). Cells: {} s on the \
partially occupied drive{}; phase workloads: {} s per phase. The constraint counts as met \
within 10 % measurement slack.\n\n",
        crate::k2::host_description(&opts.host),
        opts.seed,
        p.partial_runtime_s,
        if p.full_runtime_s > 0 {
            format!(", {} s on the fully occupied one", p.full_runtime_s)
        } else {
            String::new()
        },
        p.phase_s,
    )
}

fn fmt(v: f64) -> String {
    if v.is_finite() {
        format!("{v:.0}")
    } else {
        "—".into()
    }
}

fn cell_section(cells: &[Comparison]) -> String {
    let mut s = String::from(
        "## Static cells\n\n| operation | occupancy | objective | limit | oracle | oracle p99.9 µs | oracle MB/s | adaptive p99.9 µs | adaptive MB/s | final bound | constraint | value / oracle |\n|---|---|---|---|---|---|---|---|---|---|---|---|\n",
    );
    for c in cells {
        let unit = if c.objective.starts_with("O1") {
            "µs"
        } else {
            "MB/s"
        };
        let _ = writeln!(
            s,
            "| {} | {} | {} | {} {unit} | {} | {} | {} | {} | {} | {} | {} | {} |",
            c.op,
            c.occupancy,
            c.objective,
            fmt(c.limit),
            c.oracle_bound
                .map_or("infeasible".into(), |b| format!("K2-{b}")),
            fmt(c.oracle_rt_p999_us),
            fmt(c.oracle_bw_mbs),
            fmt(c.adaptive_rt_p999_us),
            fmt(c.adaptive_bw_mbs),
            bound_label(c.adaptive_final_bound),
            if c.meets { "met" } else { "missed" },
            if c.value_ratio.is_finite() {
                format!("{:.2}", c.value_ratio)
            } else {
                "—".into()
            },
        );
    }
    let feasible: Vec<&Comparison> = cells.iter().filter(|c| c.oracle_bound.is_some()).collect();
    let met = feasible.iter().filter(|c| c.meets).count();
    let good = feasible
        .iter()
        .filter(|c| c.meets && c.value_ratio >= 0.9)
        .count();
    let _ = writeln!(
        s,
        "\nWhere the oracle has a feasible bound ({} of {} cells × objectives), k2-adaptive meets \
the constraint in {met} and reaches at least 90 % of the oracle's objective value while meeting \
it in {good}.\n",
        feasible.len(),
        cells.len()
    );
    s
}

fn bound_label(b: u64) -> String {
    match b {
        0 => "—".into(),
        b if b >= 4096 => "unbounded".into(),
        b => b.to_string(),
    }
}

fn phase_section(scores: &[Score]) -> String {
    let mut s = format!(
        "## Phase-changing workloads\n\nScored on O1 at α = {}: a scheduler is feasible when every \
RT phase's p99.9 stays within α % of `none`'s in the same phase (10 % slack); among feasible ones, \
more bandwidth over the whole run is better.\n\n",
        phases::ALPHA_PCT
    );
    let mut names: Vec<&str> = scores.iter().map(|s| s.workload.as_str()).collect();
    names.dedup();
    for w in names {
        let _ = writeln!(
            s,
            "### {w}\n\n| scheduler | feasible | worst phase p99.9 / limit | mean MB/s |\n|---|---|---|---|"
        );
        for sc in scores.iter().filter(|x| x.workload == w) {
            let _ = writeln!(
                s,
                "| {} | {} | {:.2} | {:.0} |",
                sc.scheduler,
                if sc.feasible { "yes" } else { "no" },
                sc.worst_over_limit,
                sc.bw_mbs
            );
        }
        let _ = writeln!(
            s,
            "\nk2-adaptive beats every static bound here: **{}**.\n",
            if phases::adaptive_wins(scores, w) {
                "yes"
            } else {
                "no"
            }
        );
    }
    s
}

/// The best feasible static scheduler of a workload (most bandwidth).
fn best_static<'a>(scores: &'a [Score], w: &str) -> Option<&'a Score> {
    scores
        .iter()
        .filter(|s| s.workload == w && s.scheduler.starts_with("k2:") && s.feasible)
        .max_by(|a, b| a.bw_mbs.total_cmp(&b.bw_mbs))
}

fn figures(
    opts: &Options,
    scores: &[Score],
    runs: &[(&PhasePoint, &PointFigures)],
) -> std::io::Result<Vec<Figure>> {
    let mut out = Vec::new();
    let mut save = |id: String, title: String, legend: &str, svg: String| {
        let path = opts.out.join(format!("{id}.svg"));
        std::fs::write(&path, svg)?;
        out.push(Figure {
            id,
            svg: path,
            png: None,
            title,
            legend: legend.into(),
        });
        Ok::<(), std::io::Error>(())
    };
    let mut names: Vec<&str> = runs.iter().map(|(p, _)| p.workload.name).collect();
    names.dedup();
    for w in names {
        let best = best_static(scores, w).map(|s| s.scheduler.clone());
        let shown = |sched: &str| {
            sched == "none" || sched.starts_with("k2-adaptive") || Some(sched) == best.as_deref()
        };
        let ours: Vec<&(&PhasePoint, &PointFigures)> = runs
            .iter()
            .filter(|(p, _)| p.workload.name == w && shown(&p.run.scheduler))
            .collect();
        let label = |s: &str| match s.strip_prefix("k2-adaptive:") {
            Some(_) => format!("k2-adaptive (O1 α={})", phases::ALPHA_PCT),
            None => s.replace("k2:max_inflight=", "K2-"),
        };
        let bound: Vec<(String, Vec<(f64, f64)>)> = ours
            .iter()
            .filter(|(p, _)| p.run.scheduler.starts_with("k2-adaptive"))
            .map(|(p, f)| {
                let series = f
                    .gauges
                    .iter()
                    .find(|(n, _)| n == "k2_bound")
                    .map(|(_, s)| {
                        s.iter()
                            .map(|&(t, b)| (t as f64, (b as f64).min(UNBOUNDED_DRAWN)))
                            .collect()
                    })
                    .unwrap_or_default();
                (label(&p.run.scheduler), series)
            })
            .collect();
        let title = format!("{w}: k2-adaptive's bound over time");
        let chart = LineChart {
            title: &title,
            x_label: "second",
            y_label: "bound (128 = unbounded)",
            series: bound,
            y_range: Some((0.0, UNBOUNDED_DRAWN)),
        };
        save(format!("fig-{w}-bound"), title.clone(), "The bound k2-adaptive held, sampled each second; unbounded (probes, no RT load) drawn at 128.", chart.to_svg())?;
        let bw = ours
            .iter()
            .map(|(p, f)| {
                let s = f
                    .per_second
                    .iter()
                    .map(|&(t, bytes, _)| (t as f64, bytes as f64 / 1e6))
                    .collect();
                (label(&p.run.scheduler), s)
            })
            .collect();
        let title = format!("{w}: bandwidth over time");
        let chart = LineChart {
            title: &title,
            x_label: "second",
            y_label: "MB/s, all jobs",
            series: bw,
            y_range: None,
        };
        save(
            format!("fig-{w}-bandwidth"),
            title.clone(),
            "none, k2-adaptive and the best feasible static bound.",
            chart.to_svg(),
        )?;
        let rt = ours
            .iter()
            .map(|(p, f)| {
                let mut s = Vec::new();
                for ph in p.workload.phases.iter().filter(|ph| ph.rt) {
                    if let Some(j) = f.job(&format!("rt-{}", ph.name)) {
                        s.push((ph.start_s as f64, j.clat_p999_us));
                        s.push(((ph.start_s + ph.dur_s) as f64, j.clat_p999_us));
                    }
                }
                (label(&p.run.scheduler), s)
            })
            .collect();
        let title = format!("{w}: RT p99.9 per phase");
        let chart = LineChart {
            title: &title,
            x_label: "second",
            y_label: "RT p99.9 (µs)",
            series: rt,
            y_range: None,
        };
        save(
            format!("fig-{w}-rt-p999"),
            title.clone(),
            "Each RT phase's p99.9 over the phase.",
            chart.to_svg(),
        )?;
    }
    Ok(out)
}
