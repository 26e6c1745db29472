//! The rt-flash study's report: results.csv (the tidy rows), report.md and
//! report.html with the case-study table, the worst-case latency
//! breakdown, the schedulability curves and the bandwidth study.

use super::case_study::{CaseStudy, Model, CASE_STUDIES, VARIANTS};
use super::curves::{BANDWIDTH_DEMANDS, CHIPS, CURVE_APPROACHES, FAMILIES};
use super::Row;
use crate::report::bar_svg::BarChart;
use crate::report::line_svg::LineChart;
use crate::report::{write_study, Figure, StudyReport};
use ssdlab_rtflash::sim::ChipOrder;
use ssdlab_sim::error::InputError;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

const TITLE: &str = "# Real-time flash: chip clustering, Clustering-BFD and TBS (Kim et al., DAC 2021), reproduced by ssdlab";

/// The value of the first row matching `part`, `approach`, `task` and
/// `metric` (and, for curve rows, `chips`, `family`, `demand`).
fn find(rows: &[Row], part: &str, approach: &str, task: &str, metric: &str) -> Option<f64> {
    rows.iter()
        .find(|r| r.part == part && r.approach == approach && r.task == task && r.metric == metric)
        .map(|r| r.value)
}

fn curve(
    rows: &[Row],
    part: &str,
    approach: &str,
    chips: u32,
    family: &str,
    metric: &str,
) -> Vec<(f64, f64)> {
    rows.iter()
        .filter(|r| {
            r.part == part
                && r.approach == approach
                && r.chips == chips
                && r.family == family
                && r.metric == metric
        })
        .map(|r| (r.demand, r.value))
        .collect()
}

/// Writes results.csv, report.md, the figures and report.html into `out`.
pub fn write_report(rows: &[Row], preamble: &str, out: &Path) -> Result<Vec<PathBuf>, InputError> {
    let io = |e: std::io::Error| InputError::invalid(out.display().to_string(), e.to_string());
    std::fs::create_dir_all(out).map_err(io)?;
    let figures = write_figures(rows, out).map_err(io)?;
    let mut body = crate::findings::markdown(&super::findings::findings(rows));
    for (i, case) in CASE_STUDIES.iter().enumerate() {
        case_study_md(rows, i + 1, case, &mut body);
    }
    wcl_md(rows, &mut body);
    curves_md(rows, &mut body);
    bandwidth_md(rows, &mut body);
    ssd_check_md(rows, &mut body);
    write_study(
        out,
        rows,
        &StudyReport::from_markdown(
            "Real-time flash (DAC 2021) — ssdlab",
            TITLE,
            preamble,
            &body,
            figures,
        ),
    )
}

fn case_study_md(rows: &[Row], number: usize, case: &CaseStudy, out: &mut String) {
    let part = case.part;
    let get = |a: &str, m: &str| find(rows, part, a, "", m).unwrap_or(0.0);
    let device = match case.model {
        Model::Chips => "the analysis' chip model. Approaches run on the framework's device (every chip serves flash operations earliest deadline first) unless marked \"ordinary SSD\" (arrival order, foreground GC, background NRT held in the host while RT I/O is open)",
        Model::Ssd => "the full SSD model of the task set's preset (seed004: controller, 4 dies of 4 planes, multi-plane operations, its FTL and GC thresholds; no write buffer), each cluster a chip cluster. Approaches run with dies that serve commands by deadline (the `edf` die scheduler) unless marked \"ordinary SSD\" (the preset's own die order; background NRT held in the host while RT I/O is open)",
    };
    let _ = write!(out, "\n## 1.{number} Case study: {}\n\n`{}`: 4 chips, 4 RT tasks, 1 NRT load, on {device}.\n\n| approach | analysis | RT read misses | RT write misses | NRT IOPS | NRT MB/s | NRT mean response (ms) | NRT MB/s: Clustering-BFD+TBS / this |\n|---|---|---|---|---|---|---|---|\n", case.title, case.file);
    let best = get(VARIANTS[0].label, "nrt_mb_s");
    for label in VARIANTS.map(|v| v.label) {
        let verdict = if get(label, "schedulable") > 0.0 {
            "schedulable"
        } else {
            "unschedulable"
        };
        let mbs = get(label, "nrt_mb_s");
        let _ = writeln!(
            out,
            "| {label} | {verdict} | {:.0} / {:.0} ({:.1} %) | {:.0} / {:.0} ({:.1} %) | {:.0} | {:.2} | {:.2} | {:.2}× |",
            get(label, "rt_read_misses"),
            get(label, "rt_read_requests"),
            get(label, "rt_read_miss_pct"),
            get(label, "rt_write_misses"),
            get(label, "rt_write_requests"),
            get(label, "rt_write_miss_pct"),
            get(label, "nrt_iops"),
            mbs,
            get(label, "nrt_mean_response_ms"),
            best / mbs.max(f64::MIN_POSITIVE),
        );
    }
    out.push_str("\nPer task: the longest job response observed against the analysis' busy-period bound (WCL) and the deadline.\n\n| approach | task | read misses | write misses | max response (ms) | p99.9 (ms) | WCL bound (ms) | deadline (ms) |\n|---|---|---|---|---|---|---|---|\n");
    for label in VARIANTS.map(|v| v.label) {
        let mut tasks: Vec<&str> = rows
            .iter()
            .filter(|r| r.part == part && r.approach == label && !r.task.is_empty())
            .map(|r| r.task.as_str())
            .collect();
        tasks.dedup();
        for t in tasks {
            let g = |m: &str| find(rows, part, label, t, m);
            let _ = writeln!(
                out,
                "| {label} | {t} | {:.0} | {:.0} | {:.2} | {:.2} | {} | {:.1} |",
                g("read_misses").unwrap_or(0.0),
                g("write_misses").unwrap_or(0.0),
                g("max_response_ms").unwrap_or(0.0),
                g("p999_response_ms").unwrap_or(0.0),
                g("wcl_bound_ms").map_or("unbounded".into(), |w| format!("{w:.2}")),
                g("deadline_ms").unwrap_or(0.0),
            );
        }
    }
}

fn wcl_md(rows: &[Row], out: &mut String) {
    out.push_str("\n## 2. Motivation: worst-case latency in its parts\n\nEach task's worst-case latency (the busy period of its cluster) under the shared layout (Global), one chip per task (Full-Isolation) and Clustering-BFD, in ms.\n\n| layout | task | chips | own I/O | other tasks' I/O | GC | blocking | worst case | deadline |\n|---|---|---|---|---|---|---|---|---|\n");
    for r in rows
        .iter()
        .filter(|r| r.part == "wcl" && r.metric == "wcl_ms")
    {
        let g = |m: &str| find(rows, "wcl", &r.approach, &r.task, m).unwrap_or(0.0);
        let over = if r.value > g("deadline_ms") {
            " **(misses)**"
        } else {
            ""
        };
        let _ = writeln!(
            out,
            "| {} | {} | {} | {:.1} | {:.1} | {:.1} | {:.1} | {:.1}{over} | {:.0} |",
            r.approach,
            r.task,
            r.chips,
            g("own_io_ms"),
            g("other_io_ms"),
            g("gc_ms"),
            g("blocking_ms"),
            r.value,
            g("deadline_ms")
        );
    }
}

/// The first demand at which `approach` accepts less than `share` of the
/// sets, if any.
fn first_below(rows: &[Row], approach: &str, chips: u32, family: &str, share: f64) -> Option<f64> {
    curve(
        rows,
        "schedulability",
        approach,
        chips,
        family,
        "accepted_share",
    )
    .into_iter()
    .find(|&(_, v)| v < share)
    .map(|(d, _)| d)
}

fn curves_md(rows: &[Row], out: &mut String) {
    out.push_str("\n## 3. Schedulability ratio against normalised demand\n\nThe share of random task sets each approach's analysis accepts, against `U/m` (total density over chips). Families:\n\n");
    for f in FAMILIES {
        let _ = writeln!(out, "- **{}**: {}.", f.name, f.describe);
    }
    out.push_str("\nPer family and chip count: the mean accepted share over the demand levels (the area under the curve), and the first `U/m` at which an approach accepts fewer than half the sets (– : never within the range). The analysis charges every writing job a whole GC round on every chip it writes, so a writer whose deadline is shorter than one round is infeasible in every layout: that caps the curves of the families with writes below 100 % even at low demand.\n\n| family | chips | Clustering-BFD+TBS | Global+BG | Full-Isolation+BG |\n|---|---|---|---|---|\n");
    let fmt = |d: Option<f64>| d.map_or("–".into(), |d| format!("{d:.2}"));
    let mean = |label: &str, m: u32, f: &str| {
        let c = curve(rows, "schedulability", label, m, f, "accepted_share");
        c.iter().map(|p| p.1).sum::<f64>() / c.len().max(1) as f64
    };
    let mut violations = 0;
    let mut points = 0;
    for f in FAMILIES {
        for m in CHIPS {
            let cells: Vec<String> = CURVE_APPROACHES
                .iter()
                .map(|(_, label)| {
                    format!(
                        "{:.2} (half at {})",
                        mean(label, m, f.name),
                        fmt(first_below(rows, label, m, f.name, 0.5))
                    )
                })
                .collect();
            let _ = writeln!(out, "| {} | {m} | {} |", f.name, cells.join(" | "));
            let proposed = curve(
                rows,
                "schedulability",
                CURVE_APPROACHES[0].1,
                m,
                f.name,
                "accepted_share",
            );
            for (_, label) in &CURVE_APPROACHES[1..] {
                let base = curve(rows, "schedulability", label, m, f.name, "accepted_share");
                for ((_, p), (_, b)) in proposed.iter().zip(&base) {
                    points += 1;
                    violations += usize::from(p < b);
                }
            }
        }
    }
    let _ = writeln!(
        out,
        "\nClustering-BFD accepts at least as many sets as each baseline at {} of {points} (family, chips, demand, baseline) points.\n",
        points - violations
    );
    out.push_str("Where each baseline fails first: the family in which its mean accepted share, relative to Clustering-BFD's on the same sets, is lowest (averaged over the chip counts at which Clustering-BFD accepts any set).\n\n");
    for (_, label) in &CURVE_APPROACHES[1..] {
        // Families where Clustering-BFD accepts nothing say nothing here.
        let mut by_family: Vec<(f64, &str)> = FAMILIES
            .iter()
            .filter_map(|f| {
                let ratios: Vec<f64> = CHIPS
                    .iter()
                    .filter(|&&m| mean(CURVE_APPROACHES[0].1, m, f.name) > 0.0)
                    .map(|&m| mean(label, m, f.name) / mean(CURVE_APPROACHES[0].1, m, f.name))
                    .collect();
                (!ratios.is_empty())
                    .then(|| (ratios.iter().sum::<f64>() / ratios.len() as f64, f.name))
            })
            .collect();
        if by_family.is_empty() {
            continue;
        }
        by_family.sort_by(|a, b| a.0.total_cmp(&b.0));
        let others: Vec<String> = by_family[1..]
            .iter()
            .map(|(r, n)| format!("{n}: {r:.2}"))
            .collect();
        let _ = writeln!(
            out,
            "- **{label}** fails first with the **{}** family: it accepts {:.2} of what Clustering-BFD accepts there ({}).",
            by_family[0].1,
            by_family[0].0,
            others.join(", ")
        );
    }
}

/// A bandwidth-study figure (0 when missing).
fn bandwidth_value(rows: &[Row], part: &str, label: &str, demand: f64, metric: &str) -> f64 {
    rows.iter()
        .find(|r| r.part == part && r.approach == label && r.demand == demand && r.metric == metric)
        .map_or(0.0, |r| r.value)
}

fn bandwidth_md(rows: &[Row], out: &mut String) {
    out.push_str("\n## 4. NRT bandwidth on accepted sets\n\nRandom sets of the base family on 4 chips (data filling 50 % of the space) that Clustering-BFD accepts, with a saturating NRT load (4–128 KiB, half reads, over 5 % of the space); every approach simulated on the same sets. `accepted` counts the sets the approach's own analysis accepts; the bound of `max response / bound` is the busy period with NRT in the background and the deadline with a TBS.\n\n`fullest cluster` is the space utilisation of the layout's fullest cluster (mean over the sets).\n");
    for (part, heading) in [
        ("bandwidth", "On the analysis' chip model"),
        ("bandwidth-ssd", "The same sets on seed004's SSD model (`edf` dies; the ordinary SSD: the preset's own die order)"),
    ] {
        let _ = write!(out, "\n### {heading}\n\n| U/m | approach | sets accepted / simulated | sets whose data do not fit the layout | fullest cluster | NRT MB/s | RT misses | max response / bound |\n|---|---|---|---|---|---|---|---|\n");
        for d in BANDWIDTH_DEMANDS {
            for label in VARIANTS.map(|v| v.label) {
                let g = |m: &str| bandwidth_value(rows, part, label, d, m);
                let _ = writeln!(
                    out,
                    "| {d:.1} | {label} | {:.0} / {:.0} | {:.0} | {:.0} % | {:.2} | {:.0} | {:.2} |",
                    g("sets_accepted"),
                    g("sets_simulated"),
                    g("sets_unfit"),
                    g("fullest_cluster_space_pct"),
                    g("nrt_mb_s"),
                    g("rt_misses"),
                    g("max_response_over_bound")
                );
            }
        }
    }
}

fn ssd_check_md(rows: &[Row], out: &mut String) {
    out.push_str("\n## 5. The analysis against the SSD model\n\nRandom sets of the base family on 4 chips (data filling 50 % of the space, the NRT load of part 4) that each approach's own analysis accepts, simulated on the full SSD model of seed004 (the die of the analysis' platform) with dies that serve commands by deadline. On the analysis' chip model no accepted set misses (a property test); here the device's FTL, its GC triggers and its multi-plane GC jobs decide what a job costs.\n\n| U/m | approach | sets simulated | sets whose data do not fit | runs with a miss | RT misses / jobs | max response / deadline |\n|---|---|---|---|---|---|---|\n");
    for d in BANDWIDTH_DEMANDS {
        for v in VARIANTS.iter().filter(|v| v.device == ChipOrder::Edf) {
            let g = |m: &str| {
                rows.iter()
                    .find(|r| {
                        r.part == "ssd-check"
                            && r.approach == v.label
                            && r.demand == d
                            && r.metric == m
                    })
                    .map_or(0.0, |r| r.value)
            };
            let _ = writeln!(
                out,
                "| {d:.1} | {} | {:.0} | {:.0} | {:.0} | {:.0} / {:.0} | {:.2} |",
                v.label,
                g("sets_simulated"),
                g("sets_unfit"),
                g("runs_with_misses"),
                g("rt_misses"),
                g("rt_jobs"),
                g("max_response_over_deadline"),
            );
        }
    }
}

fn write_figures(rows: &[Row], dir: &Path) -> std::io::Result<Vec<Figure>> {
    let mut figures = Vec::new();
    let mut save = |id: String, title: String, legend: &str, svg: String| -> std::io::Result<()> {
        let path = dir.join(format!("{id}.svg"));
        std::fs::write(&path, svg)?;
        figures.push(Figure {
            id,
            svg: path,
            png: None,
            title,
            legend: legend.into(),
        });
        Ok(())
    };
    let case: Vec<&str> = VARIANTS.iter().map(|v| v.label).collect();
    for study in CASE_STUDIES {
        // The first study keeps the figure names it always had.
        let id = |what: &str| match study.part {
            "case-study" => format!("fig-case-{what}"),
            part => format!("fig-{part}-{what}"),
        };
        let miss_chart = BarChart {
            title: "Case study: RT deadline misses (% of requests)",
            y_label: "% missed",
            categories: case.iter().map(|c| c.to_string()).collect(),
            series: vec!["reads".into(), "writes".into()],
            values: case
                .iter()
                .map(|c| {
                    ["rt_read_miss_pct", "rt_write_miss_pct"]
                        .iter()
                        .map(|m| find(rows, study.part, c, "", m).unwrap_or(0.0))
                        .collect()
                })
                .collect(),
        };
        save(
            id("misses"),
            format!("{} ({})", miss_chart.title, study.title),
            "Bars: share of RT read and write requests that missed their deadline (log scale; none drawn for 0).",
            miss_chart.to_svg(),
        )?;
        let nrt_chart = BarChart {
            title: "Case study: NRT bandwidth (MB/s)",
            y_label: "MB/s",
            categories: case.iter().map(|c| c.to_string()).collect(),
            series: vec!["NRT MB/s".into()],
            values: case
                .iter()
                .map(|c| vec![find(rows, study.part, c, "", "nrt_mb_s").unwrap_or(0.0)])
                .collect(),
        };
        save(
            id("nrt"),
            format!("{} ({})", nrt_chart.title, study.title),
            "Bars: the NRT load's average bandwidth (log scale).",
            nrt_chart.to_svg(),
        )?;
    }
    let parts = ["own_io_ms", "other_io_ms", "gc_ms", "blocking_ms"];
    let wcl: Vec<&Row> = rows
        .iter()
        .filter(|r| r.part == "wcl" && r.metric == "wcl_ms")
        .collect();
    let wcl_chart = BarChart {
        title: "Worst-case latency in its parts (ms)",
        y_label: "ms",
        categories: wcl
            .iter()
            .map(|r| format!("{} {}", r.task, short(&r.approach)))
            .collect(),
        series: vec![
            "own I/O".into(),
            "other tasks' I/O".into(),
            "GC".into(),
            "blocking".into(),
            "total".into(),
        ],
        values: wcl
            .iter()
            .map(|r| {
                parts
                    .iter()
                    .map(|m| find(rows, "wcl", &r.approach, &r.task, m).unwrap_or(0.0))
                    .chain([r.value])
                    .collect()
            })
            .collect(),
    };
    save("fig-wcl-breakdown".into(), wcl_chart.title.into(), "Per task and layout (G: global, FI: full isolation, C: Clustering-BFD): the parts of the worst-case latency and their total (log scale).", wcl_chart.to_svg())?;
    for f in FAMILIES {
        for m in CHIPS {
            let title = format!("Schedulability, {} family, {m} chips", f.name);
            let chart = LineChart {
                title: &title,
                x_label: "normalised demand U/m",
                y_label: "share of task sets accepted",
                series: CURVE_APPROACHES
                    .iter()
                    .map(|(_, label)| {
                        (
                            label.to_string(),
                            curve(rows, "schedulability", label, m, f.name, "accepted_share"),
                        )
                    })
                    .collect(),
                y_range: Some((0.0, 1.0)),
            };
            save(
                format!("fig-sched-{}-{m}", f.name),
                title.clone(),
                f.describe,
                chart.to_svg(),
            )?;
        }
    }
    for (part, id, title) in [
        (
            "bandwidth",
            "fig-bandwidth",
            "NRT bandwidth on accepted sets (MB/s), 4 chips",
        ),
        (
            "bandwidth-ssd",
            "fig-bandwidth-ssd",
            "NRT bandwidth on accepted sets (MB/s), seed004's SSD model",
        ),
    ] {
        let bw_chart = BarChart {
            title,
            y_label: "MB/s",
            categories: BANDWIDTH_DEMANDS
                .iter()
                .map(|d| format!("U/m = {d:.1}"))
                .collect(),
            series: VARIANTS.iter().map(|v| v.label.to_string()).collect(),
            values: BANDWIDTH_DEMANDS
                .iter()
                .map(|&d| {
                    VARIANTS
                        .iter()
                        .map(|v| bandwidth_value(rows, part, v.label, d, "nrt_mb_s"))
                        .collect()
                })
                .collect(),
        };
        save(
            id.into(),
            title.into(),
            "Bars: mean NRT bandwidth over the sets Clustering-BFD accepts, per approach (log scale).",
            bw_chart.to_svg(),
        )?;
    }
    Ok(figures)
}

fn short(layout: &str) -> &'static str {
    match layout {
        "global" => "(G)",
        "full-isolation" => "(FI)",
        _ => "(C)",
    }
}
