//! The probe's report: results.csv (one row per case), report.md and
//! report.html with the figures (QD-1 latency by block size, bandwidth
//! against queue depth, and the long writes second by second).

use super::{Measured, Measurements, Phase, JOB_NAME};
use crate::report::line_svg::LineChart;
use crate::report::{self, Figure, StudyReport};
use serde::Serialize;
use ssdlab_sim::error::InputError;
use std::path::{Path, PathBuf};

/// One row of results.csv.
#[derive(Debug, Serialize)]
struct Row {
    case: String,
    phase: Phase,
    rw: String,
    bs: u64,
    iodepth: u32,
    runtime_s: u64,
    iops: f64,
    bw_mbs: f64,
    clat_mean_us: f64,
    clat_p99_us: f64,
    clat_p999_us: f64,
}

fn row(m: &Measured) -> Row {
    let job = m.figures.job(JOB_NAME);
    let lat = |f: fn(&crate::point::JobFigures) -> f64| job.map_or(0.0, f);
    Row {
        case: m.name.clone(),
        phase: m.case.phase,
        rw: m.case.rw.clone(),
        bs: m.case.bs,
        iodepth: m.case.iodepth,
        runtime_s: m.case.runtime_s,
        iops: m.figures.iops,
        bw_mbs: m.figures.bw_mbs,
        clat_mean_us: lat(|j| j.clat_mean_us),
        clat_p99_us: lat(|j| j.clat_p99_us),
        clat_p999_us: lat(|j| j.clat_p999_us),
    }
}

/// Writes the report of `m` into `out`; returns its files.
pub fn write_report(m: &Measurements, out: &Path) -> Result<Vec<PathBuf>, InputError> {
    let io = |e: std::io::Error| InputError::invalid(out.display().to_string(), e.to_string());
    std::fs::create_dir_all(out).map_err(io)?;
    let rows: Vec<Row> = m.cases.iter().map(row).collect();
    let figures = figures(m, out).map_err(io)?;
    let preamble = preamble(m);
    let body = table(&rows);
    let page = StudyReport::from_markdown(
        "Probe — ssdlab",
        &format!("# Probe of {}", m.target.path),
        &preamble,
        &body,
        figures,
    );
    report::write_study(out, &rows, &page)
}

fn preamble(m: &Measurements) -> String {
    let t = &m.target;
    let sched = t
        .kernel_scheduler
        .as_deref()
        .map_or(String::new(), |s| format!(", the kernel's scheduler `{s}`"));
    format!(
        "{} `{}` ({} bytes, logical block {} bytes{sched}); every job over its first {} bytes \
         with fio's io_uring engine and direct I/O, {} s per case{}. `ssdlab calibrate \
         --measurements` fits a preset to these figures (docs/real-drive.md).\n\n",
        if t.kind == "file" {
            "File"
        } else {
            "Block device"
        },
        t.path,
        t.bytes,
        t.logical_block,
        m.region_bytes,
        m.settings.duration_s,
        if m.partial {
            "; **partial**: the probe was stopped before its plan's end"
        } else {
            ""
        },
    )
}

fn table(rows: &[Row]) -> String {
    let mut s = String::from(
        "## Measured\n\n| case | IOPS | MB/s | mean µs | p99 µs | p99.9 µs |\n|---|---|---|---|---|---|\n",
    );
    for r in rows {
        s.push_str(&format!(
            "| {} | {:.0} | {:.1} | {:.1} | {:.1} | {:.1} |\n",
            r.case, r.iops, r.bw_mbs, r.clat_mean_us, r.clat_p99_us, r.clat_p999_us
        ));
    }
    s
}

fn figures(m: &Measurements, out: &Path) -> std::io::Result<Vec<Figure>> {
    let of = |phase: Phase| m.cases.iter().filter(move |c| c.case.phase == phase);
    let series = |phase: Phase, x: fn(&Measured) -> f64, y: fn(&Measured) -> f64| {
        let mut by_rw: Vec<(String, Vec<(f64, f64)>)> = Vec::new();
        for c in of(phase) {
            // Latency: one line per operation over the sizes; depth: one
            // per operation and size over the depths.
            let label = match phase {
                Phase::Latency => c.case.rw.clone(),
                _ => format!("{} {}k", c.case.rw, c.case.bs >> 10),
            };
            match by_rw.iter_mut().find(|(l, _)| *l == label) {
                Some((_, pts)) => pts.push((x(c), y(c))),
                None => by_rw.push((label, vec![(x(c), y(c))])),
            }
        }
        by_rw
    };
    let mean_us = |c: &Measured| c.figures.job(JOB_NAME).map_or(0.0, |j| j.clat_mean_us);
    let mut figs = Vec::new();
    let latency = LineChart {
        title: "Mean completion latency at queue depth 1",
        x_label: "block size (KiB)",
        y_label: "mean clat (µs)",
        series: series(Phase::Latency, |c| (c.case.bs >> 10) as f64, mean_us),
        y_range: None,
    };
    figs.push(Figure::write_svg(
        out,
        "probe-latency".into(),
        &latency.to_svg(),
        "QD-1 latency by block size".into(),
        "",
    )?);
    let depth = LineChart {
        title: "Bandwidth against queue depth",
        x_label: "queue depth",
        y_label: "MB/s",
        series: series(
            Phase::Depth,
            |c| f64::from(c.case.iodepth),
            |c| c.figures.bw_mbs,
        ),
        y_range: None,
    };
    figs.push(Figure::write_svg(
        out,
        "probe-depth".into(),
        &depth.to_svg(),
        "Bandwidth against queue depth".into(),
        "128 KiB sequential and 4 KiB random",
    )?);
    for (phase, id, title) in [
        (
            Phase::Sustained,
            "probe-sustained",
            "Sustained sequential write, second by second",
        ),
        (
            Phase::SteadyState,
            "probe-steady-state",
            "Random write into the steady state, second by second",
        ),
    ] {
        let Some(c) = of(phase).next() else { continue };
        let pts = c
            .figures
            .per_second
            .iter()
            .map(|&(s, bytes, _)| (s as f64, bytes as f64 / 1e6))
            .collect();
        let chart = LineChart {
            title,
            x_label: "second",
            y_label: "MB/s",
            series: vec![(c.name.clone(), pts)],
            y_range: None,
        };
        figs.push(Figure::write_svg(
            out,
            id.into(),
            &chart.to_svg(),
            title.into(),
            "",
        )?);
    }
    Ok(figs)
}
