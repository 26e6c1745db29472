//! The K2 study's report.md and the tables of its report.html; reading a
//! results.csv back (for `ssdlab tune`).

use super::observations::{monotonicity, objective_choices, occupancy_effects};
use super::paper::{error_pct, labels, targets, Metric};
use super::results::{PointRow, OCCUPANCIES, OPS};
use std::fmt::Write as _;
use std::path::Path;

pub fn read_csv(path: &Path) -> Result<Vec<PointRow>, csv::Error> {
    let mut r = csv::Reader::from_path(path)?;
    r.deserialize().collect()
}

fn op_title(op: &str) -> &'static str {
    match op {
        "read" => "Sequential read",
        "randread" => "Random read",
        "write" => "Sequential write",
        _ => "Random write",
    }
}

fn occ_title(occ: &str) -> &'static str {
    if occ == "full" {
        "fully occupied SSD"
    } else {
        "partially occupied SSD"
    }
}

/// The cells of the table in the study's order.
pub fn cells(rows: &[PointRow]) -> Vec<(&'static str, &'static str, Vec<&PointRow>)> {
    let mut out = Vec::new();
    for op in OPS {
        for occ in OCCUPANCIES {
            let mut cell: Vec<&PointRow> = rows
                .iter()
                .filter(|r| r.op == op && r.occupancy == occ)
                .collect();
            if cell.is_empty() {
                continue;
            }
            cell.sort_by_key(|r| std::cmp::Reverse(r.bound.unwrap_or(u32::MAX)));
            out.push((op, occ, cell));
        }
    }
    out
}

/// Header and rows of one cell's table (for Markdown and HTML alike).
pub fn cell_table(cell: &[&PointRow]) -> (Vec<&'static str>, Vec<Vec<String>>) {
    let headers = vec![
        "point",
        "RT p99.9 µs",
        "RT p99 µs",
        "RT mean µs",
        "total MB/s",
        "non-RT MB/s",
        "WAF",
        "GC invocations",
    ];
    let rows = cell
        .iter()
        .map(|r| {
            vec![
                r.label(),
                format!("{:.0}", r.rt_p999_us),
                format!("{:.0}", r.rt_p99_us),
                format!("{:.0}", r.rt_mean_us),
                format!("{:.1}", r.total_bw_mbs),
                format!("{:.1}", r.nrt_bw_mbs),
                format!("{:.2}", r.waf),
                r.gc_invocations.to_string(),
            ]
        })
        .collect();
    (headers, rows)
}

/// The paper's figures for one occupancy next to the simulated ones.
pub fn calibration_table(
    rows: &[PointRow],
    occupancy: &str,
) -> (Vec<&'static str>, Vec<Vec<String>>) {
    let headers = vec!["operation", "point", "metric", "paper", "ssdlab", "error"];
    let mut out = Vec::new();
    for t in targets(occupancy) {
        for label in labels(t) {
            let Some(r) = rows
                .iter()
                .find(|r| r.op == t.op && r.occupancy == occupancy && r.label() == label)
            else {
                continue;
            };
            let (name, value) = match t.metric {
                Metric::P999Us => ("RT p99.9 µs", r.rt_p999_us),
                Metric::BwMbs => ("total MB/s", r.total_bw_mbs),
            };
            let paper = if t.low == t.high {
                format!("{:.0}", t.low)
            } else {
                format!("{:.0}–{:.0}", t.low, t.high)
            };
            out.push(vec![
                t.op.to_string(),
                label,
                name.to_string(),
                paper,
                format!("{value:.0}"),
                format!("{:+.0}%", error_pct(t, value)),
            ]);
        }
    }
    (headers, out)
}

fn md_table(out: &mut String, headers: &[&str], rows: &[Vec<String>]) {
    let _ = writeln!(out, "| {} |", headers.join(" | "));
    let _ = writeln!(out, "|{}", "---|".repeat(headers.len()));
    for r in rows {
        let _ = writeln!(out, "| {} |", r.join(" | "));
    }
    out.push('\n');
}

/// A calibration section: its heading, the table's headers and rows.
pub type CalibrationSection = (String, Vec<&'static str>, Vec<Vec<String>>);

/// One section per occupancy the paper gives figures for and the grid ran.
pub fn calibration_sections(rows: &[PointRow]) -> Vec<CalibrationSection> {
    [
        ("partial", "partially occupied SSD"),
        ("full", "fully occupied SSD"),
    ]
    .into_iter()
    .map(|(occupancy, title)| {
        let (h, r) = calibration_table(rows, occupancy);
        (format!("Calibration: {title} against the paper"), h, r)
    })
    .filter(|(_, _, r)| !r.is_empty())
    .collect()
}

/// The whole report.md.
pub fn markdown(rows: &[PointRow], preamble: &str) -> String {
    let mut out = String::from(
        "# K2 queue-length-bound study (Park and Lee, 2021), reproduced by ssdlab\n\n",
    );
    out.push_str(preamble);
    out.push_str(&crate::findings::markdown(&super::findings::findings(rows)));
    for (heading, h, r) in calibration_sections(rows) {
        let _ = write!(out, "\n## {heading}\n\n");
        md_table(&mut out, &h, &r);
    }
    out.push_str("## Tables\n\n");
    for (op, occ, cell) in cells(rows) {
        let _ = writeln!(out, "### {} — {}\n", op_title(op), occ_title(occ));
        let (h, r) = cell_table(&cell);
        md_table(&mut out, &h, &r);
    }
    out.push_str(&observations_md(rows));
    out
}

/// The derived observations, as Markdown.
pub fn observations_md(rows: &[PointRow]) -> String {
    let mut out = String::from("## Observations (derived from the tables)\n\n### Occupancy\n\n");
    for e in occupancy_effects(rows) {
        let _ = writeln!(
            out,
            "- {}: under `none`, full vs partial occupancy changes the RT p99.9 from {:.0} to {:.0} µs ({:+.0}%) and total bandwidth from {:.0} to {:.0} MB/s ({:+.0}%).",
            op_title(&e.op),
            e.partial_p999_us,
            e.full_p999_us,
            e.p999_change_pct(),
            e.partial_bw_mbs,
            e.full_bw_mbs,
            e.bw_change_pct()
        );
    }
    out.push_str("\n### Does lowering the bound lower bandwidth and latency?\n\n");
    for m in monotonicity(rows) {
        let describe = |rises: &[(String, String)]| {
            if rises.is_empty() {
                "falls monotonically".to_string()
            } else {
                let list: Vec<String> = rises.iter().map(|(a, b)| format!("{a} → {b}")).collect();
                format!("rises at {}", list.join(", "))
            }
        };
        let _ = writeln!(
            out,
            "- {}, {}: bandwidth {}; RT p99.9 {}.",
            op_title(&m.op),
            occ_title(&m.occupancy),
            describe(&m.bw_rises),
            describe(&m.p999_rises)
        );
    }
    out.push_str("\n### Bounds chosen for the objectives\n\n");
    out.push_str("O1: largest bound with RT p99.9 ≤ α% of `none`'s; O2: smallest bound with total bandwidth ≥ β% of `none`'s (bound 1 avoided for writes where it costs bandwidth).\n\n");
    let choices = objective_choices(rows);
    let mut table_rows = Vec::new();
    for (obj, op, occ, answer) in choices {
        table_rows.push(vec![obj, op, occ, answer]);
    }
    md_table(
        &mut out,
        &["objective", "operation", "occupancy", "bound"],
        &table_rows,
    );
    out
}
