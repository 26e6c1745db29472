//! The study's report: the headline table and figures at each profile's
//! headline load, where host pages waited there, each scheme's limit, and
//! the sweep's figures per profile.

use super::{GcRow, Sweep, PAPER_VICTIMS, SCHEMES};
use crate::report::bar_svg::BarChart;
use crate::report::line_svg::LineChart;
use crate::report::{write_study, Figure, StudyReport};
use ssdlab_sim::error::InputError;
use ssdlab_trace::Profile;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// Writes the study's report into `out`: results.csv (every run of the
/// sweep, the headline runs marked), report.md, the figures and
/// report.html. Returns every file written.
pub fn write_report(sweep: &Sweep, preamble: &str, out: &Path) -> Result<Vec<PathBuf>, InputError> {
    let io = |e: std::io::Error| InputError::invalid(out.display().to_string(), e.to_string());
    std::fs::create_dir_all(out).map_err(io)?;
    let headline = sweep.headline_rows();
    let mut figures = headline_figures(&headline, &sweep.profiles, out).map_err(io)?;
    figures.extend(sweep_figures(sweep, out).map_err(io)?);
    let mut body = crate::findings::markdown(&super::findings::findings(sweep));
    body.push_str(&limits_markdown(sweep));
    body.push_str("\n## At the headline load\n");
    body.push_str(&headline_tables(&headline, &sweep.profiles));
    body.push_str(&waits_markdown(&headline));
    write_study(
        out,
        &tidy_rows(sweep),
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

/// Every run, sorted by profile, scheme and load, the headline runs
/// marked.
fn tidy_rows(sweep: &Sweep) -> Vec<GcRow> {
    let headline = sweep.headline_rows();
    let order = |r: &GcRow| {
        let p = sweep.profiles.iter().position(|p| p.name == r.profile);
        let s = SCHEMES.iter().position(|&s| s == r.scheme);
        (p, s)
    };
    let mut rows: Vec<GcRow> = sweep
        .rows
        .iter()
        .map(|row| GcRow {
            headline: headline.iter().any(|h| std::ptr::eq(*h, row)),
            ..row.clone()
        })
        .collect();
    rows.sort_by(|a, b| {
        order(a)
            .cmp(&order(b))
            .then(a.load_mbs.total_cmp(&b.load_mbs))
    });
    rows
}

/// Each scheme's limit per profile, and the headline load the rule gives.
fn limits_markdown(sweep: &Sweep) -> String {
    let rule = match sweep.plan.headline {
        super::Headline::ShareOfSlowest(share) => format!(
            "The headline load is {:.0} % of the slowest scheme's bounded limit \
             (docs/gc-study.md).",
            100.0 * share
        ),
        super::Headline::Load(load) => format!("The headline load is {load} MB/s, as asked."),
    };
    let mut out = format!(
        "\n## Where each scheme's queue stops being bounded\n\n\
         MB/s offered: the highest load the scheme kept up with (served ≥ {:.0} % of \
         the offered bytes per second over the run) – the lowest it did not. {rule}\n\n\
         | profile | PBGC | BBGC | on-demand | headline load (MB/s) |\n|---|---|---|---|---|\n",
        100.0 * super::BOUNDED_SHARE,
    );
    let end = |v: Option<f64>| v.map_or("–".to_string(), |v| format!("{v:.1}"));
    for (p, limits) in sweep.profiles.iter().zip(&sweep.limits) {
        let _ = write!(out, "| {}* |", p.name);
        for l in limits {
            let _ = write!(out, " {} – {} |", end(l.bounded_mbs), end(l.unbounded_mbs));
        }
        let i = sweep
            .profiles
            .iter()
            .position(|q| q.name == p.name)
            .unwrap_or(0);
        let _ = writeln!(out, " {} |", end(sweep.headline_mbs[i]));
    }
    out
}

/// Where host pages waited at their die at the headline load.
fn waits_markdown(rows: &[&GcRow]) -> String {
    let mut out = String::from(
        "\n### Where host pages wait at the flash array\n\n\
         Mean wait of a host page queued at its die, µs, by what the die was doing \
         meanwhile: a GC job's page copies, its erase, other host I/O (reads and \
         programs), anything else (idle while pages gather).\n\n\
         | profile | scheme | read: GC copy | erase | host I/O | other | write: GC copy | erase | host I/O | other |\n\
         |---|---|---|---|---|---|---|---|---|---|\n",
    );
    for r in rows {
        let _ = writeln!(
            out,
            "| {} | {} | {:.1} | {:.1} | {:.1} | {:.1} | {:.1} | {:.1} | {:.1} | {:.1} |",
            r.profile,
            r.scheme,
            r.read_wait_gc_copy_us,
            r.read_wait_gc_erase_us,
            r.read_wait_host_us,
            r.read_wait_other_us,
            r.write_wait_gc_copy_us,
            r.write_wait_gc_erase_us,
            r.write_wait_host_us,
            r.write_wait_other_us,
        );
    }
    out
}

/// The sweep's figures, five per profile: latency, maximum latency, WAF and
/// GC invocations against load (bounded runs only), and on-demand's
/// improvement at the loads where every scheme kept up.
fn sweep_figures(sweep: &Sweep, dir: &Path) -> std::io::Result<Vec<Figure>> {
    let mut figures = Vec::new();
    for p in &sweep.profiles {
        let runs = |scheme: &str| -> Vec<&GcRow> {
            let mut v: Vec<&GcRow> = sweep
                .rows
                .iter()
                .filter(|r| r.profile == p.name && r.scheme == scheme && r.bounded)
                .collect();
            v.sort_by(|a, b| a.load_mbs.total_cmp(&b.load_mbs));
            v
        };
        let by_scheme = |label: &str, f: fn(&GcRow) -> f64| {
            SCHEMES
                .iter()
                .map(|s| {
                    let pts = runs(s).iter().map(|r| (r.load_mbs, f(r))).collect();
                    (format!("{s} {label}"), pts)
                })
                .collect::<Vec<_>>()
        };
        let charts: [(&str, &str, Vec<Series>); 5] = [
            ("latency", "average latency (ms)", {
                let mut s = by_scheme("read", |r| r.avg_read_ms);
                s.extend(by_scheme("write", |r| r.avg_write_ms));
                s
            }),
            ("max-latency", "maximum latency (ms)", {
                let mut s = by_scheme("read", |r| r.max_read_ms);
                s.extend(by_scheme("write", |r| r.max_write_ms));
                s
            }),
            ("waf", "write amplification", by_scheme("", |r| r.waf)),
            (
                "gc",
                "GC invocations",
                by_scheme("", |r| r.gc_invocations as f64),
            ),
            (
                "improvement",
                "improvement of on-demand (×)",
                improvement(sweep, p),
            ),
        ];
        for (name, y_label, series) in charts {
            // A profile without reads has nothing to draw for them.
            let series: Vec<_> = series
                .into_iter()
                .filter(|(_, pts)| pts.iter().any(|&(_, y)| y > 0.0))
                .collect();
            let title = format!("{}*: {y_label} against offered load", p.name);
            let chart = LineChart {
                title: &title,
                x_label: "offered load (MB/s)",
                y_label,
                series,
                y_range: None,
            };
            figures.push(Figure::write_svg(
                dir,
                format!("fig-sweep-{}-{name}", p.name),
                &chart.to_svg(),
                title,
                "Runs whose queue stayed bounded; * marks a synthetic stand-in profile.",
            )?);
        }
    }
    Ok(figures)
}

/// A named line of (load, value) points.
type Series = (String, Vec<(f64, f64)>);

/// On-demand's improvement (BBGC's and PBGC's average latency over its
/// own) at each load where all three schemes kept up.
fn improvement(sweep: &Sweep, p: &Profile) -> Vec<Series> {
    let find = |s: &str, load: f64| {
        sweep
            .rows
            .iter()
            .find(|r| r.profile == p.name && r.scheme == s && r.bounded && r.load_mbs == load)
    };
    let mut loads: Vec<f64> = sweep
        .rows
        .iter()
        .filter(|r| r.profile == p.name && r.scheme == "on-demand")
        .map(|r| r.load_mbs)
        .collect();
    loads.sort_by(f64::total_cmp);
    loads.dedup();
    let series = |base: &'static str, f: fn(&GcRow) -> f64| -> Vec<(f64, f64)> {
        loads
            .iter()
            .filter_map(|&l| {
                let (od, b) = (find("on-demand", l)?, find(base, l)?);
                let all = SCHEMES.iter().all(|s| find(s, l).is_some());
                (all && f(od) > 0.0).then(|| (l, f(b) / f(od)))
            })
            .collect()
    };
    vec![
        (
            "write: BBGC / on-demand".into(),
            series("BBGC", |r| r.avg_write_ms),
        ),
        (
            "write: PBGC / on-demand".into(),
            series("PBGC", |r| r.avg_write_ms),
        ),
        (
            "read: BBGC / on-demand".into(),
            series("BBGC", |r| r.avg_read_ms),
        ),
        (
            "read: PBGC / on-demand".into(),
            series("PBGC", |r| r.avg_read_ms),
        ),
    ]
}

/// One SVG figure per metric (profiles × schemes, log scale) in `dir`.
fn headline_figures(
    rows: &[&GcRow],
    profiles: &[Profile],
    dir: &Path,
) -> std::io::Result<Vec<Figure>> {
    let mut figures = Vec::new();
    for (i, (title, f)) in metrics().iter().enumerate() {
        let cats: Vec<&str> = profiles.iter().map(|p| p.name).collect();
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
                                .map_or(0.0, |r| f(r))
                        })
                        .collect()
                })
                .collect(),
        };
        figures.push(Figure::write_svg(
            dir,
            format!("fig-{}", FIGURE_NAMES[i]),
            &chart.to_svg(),
            title.to_string(),
            "Bars: one per GC scheme, log scale; * marks a synthetic stand-in profile.",
        )?);
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
fn headline_tables(rows: &[&GcRow], profiles: &[Profile]) -> String {
    let mut out = String::new();
    for (title, f) in metrics() {
        let _ = writeln!(out, "\n### {title}\n\n| profile (synthetic stand-in) | PBGC | BBGC | on-demand | BBGC / on-demand |\n|---|---|---|---|---|");
        for p in profiles {
            let get = |s: &str| {
                rows.iter()
                    .find(|r| r.profile == p.name && r.scheme == s)
                    .map(|r| f(r))
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
    out.push_str("\n### GC victims and their invalid pages\n\n| profile | scheme | GC invocations | ≥70% invalid | paper ≥70% | ≥90% invalid | paper ≥90% |\n|---|---|---|---|---|---|---|\n");
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
