//! The K2 queue-length-bound study (Park and Lee, Electronics 10(7):865,
//! 2021): the grid of operations × device states × schedulers, run in
//! parallel with a configuration-hash cache, and its derived observations,
//! figures and report.

pub mod command;
pub mod figures;
pub mod findings;
pub mod grid;
pub mod observations;
pub mod paper;
pub mod report;
pub mod results;
pub mod rtss;
pub mod runner;
pub mod tune;

use crate::report::{html, write_study, StudyReport};
use results::PointRow;
use runner::{run_study, StudyOptions};
use ssdlab_sim::error::InputError;
use ssdlab_sim::ssd::precondition::PreconditionMode;
use std::path::PathBuf;

/// What `reproduce k2` wrote.
pub struct StudyOutput {
    pub rows: Vec<PointRow>,
    pub computed: usize,
    pub cached: usize,
    pub files: Vec<PathBuf>,
    /// Park and Lee's findings against these rows (also in report.md).
    pub findings: Vec<crate::findings::Finding>,
}

/// Runs (or resumes) the study and writes results.csv, report.md, the
/// figures and report.html into `opts.out`.
pub fn reproduce(
    opts: &StudyOptions,
    progress: &(dyn Fn(usize, usize) + Sync),
) -> Result<StudyOutput, InputError> {
    let run = run_study(opts, progress)?;
    let out = &opts.out;
    let io = |e: std::io::Error| InputError::invalid(out.display().to_string(), e.to_string());
    let preamble = preamble(opts, &run);
    let mut figures = figures::write_figures(&run.rows, out).map_err(io)?;
    let mut markdown = report::markdown(&run.rows, &preamble);
    let mut html_body = html_tables(&run.rows);
    if let Some(series) = run
        .randwrite_full_series
        .as_deref()
        .filter(|s| !s.is_empty())
    {
        figures.push(figures::timeseries::write_timeseries(series, out).map_err(io)?);
        let section = timeseries_md(series);
        markdown.push_str(&section);
        html_body.push_str(&html::markdown_html(&section));
    }
    let files = write_study(
        out,
        &run.rows,
        &StudyReport {
            title: "K2 queue-length-bound study — ssdlab",
            markdown,
            intro: &preamble,
            html_body,
            figures,
        },
    )?;
    Ok(StudyOutput {
        findings: findings::findings(&run.rows),
        rows: run.rows,
        computed: run.computed,
        cached: run.cached,
        files,
    })
}

pub use crate::setup::{k2_host, K2_HOST_FILE};

/// Which host settings a report's runs used, for its preamble.
pub fn host_description(host: &ssdlab_sim::host::HostConfig) -> String {
    if *host == k2_host() {
        format!("the K2 study's host (`{K2_HOST_FILE}`)")
    } else if *host == ssdlab_sim::host::HostConfig::default() {
        "host defaults (docs/model.md)".into()
    } else {
        "the host file given with --host".into()
    }
}

/// What the fully occupied drive's preconditioning makes, for the preamble.
fn full_state(mode: PreconditionMode) -> String {
    if mode == grid::PRECONDITION {
        format!(
            "every logical page written in order, preconditioning `{mode}`, the spare free \
as a drive leaves it after idle-time GC; GC starts once the run has written the spare"
        )
    } else {
        format!("every logical page written, preconditioning `{mode}` (`--full-precondition`)")
    }
}

fn preamble(opts: &StudyOptions, run: &runner::StudyRun) -> String {
    let p = &opts.plan;
    let host = host_description(&opts.host);
    let pre = grid::PRECONDITION;
    let full = full_state(opts.full_precondition);
    format!(
        "Device `{}`, {host}, K2 study job files (`examples/k2/`: the four jobs on one CPU, \
`cpumask=8`, as the K2 authors' benchmark pins them), seed {}. \
Runs of {} s (partially occupied: 50% of the logical space, preconditioning `{pre}`) and {} s \
(fully occupied: {full}), \
{} repetition(s) per point, averaged. {} repetitions computed, {} taken from the cache.\n\n\
Both halves are compared with the paper's figures below.\n",
        opts.device.name,
        opts.seed,
        p.partial_runtime_s,
        p.full_runtime_s,
        p.reps,
        run.computed,
        run.cached
    )
}

/// The time-series section of the report: when the fully occupied random
/// writes' bandwidth drops, and to what.
fn timeseries_md(series: &[(u64, u64, u64)]) -> String {
    let mbs = |rows: &[(u64, u64, u64)]| {
        rows.iter().map(|r| r.1 as f64).sum::<f64>() / rows.len().max(1) as f64 / 1e6
    };
    let mut out = String::from(
        "\n## Time series: fully occupied random writes under none\n\n\
         Figure `fig-randwrite-full-timeseries`: total bandwidth and IOPS per simulated second. \
         Park and Lee report that bandwidth and IOPS drop sharply about 50 s into their \
         1000 s run, to far below the partially occupied figures, and stay there.\n\n",
    );
    match figures::timeseries::drop_second(series) {
        Some(s) => {
            let at = series.iter().position(|r| r.0 == s).unwrap_or(0);
            out.push_str(&format!(
                "ssdlab: the bandwidth drops at **{s} s**, from {:.0} MB/s before to {:.0} MB/s after \
                 (mean of the seconds on each side).\n",
                mbs(&series[..at]),
                mbs(&series[at..])
            ));
        }
        None => out.push_str(&format!(
            "ssdlab: no drop (the bandwidth never falls below half its level of the 3 s before for 5 s); \
             {:.0} MB/s on average over {} s.\n",
            mbs(series),
            series.len()
        )),
    }
    out
}

fn html_tables(rows: &[PointRow]) -> String {
    let mut tables = html::markdown_html(&crate::findings::markdown(&findings::findings(rows)));
    for (heading, h, r) in report::calibration_sections(rows) {
        tables.push_str(&format!("<h2>{heading}</h2>\n"));
        tables.push_str(&html::table_html(&h, &r));
    }
    for (op, occ, cell) in report::cells(rows) {
        tables.push_str(&format!("<h3>{op} — {occ}</h3>\n"));
        let (h, r) = report::cell_table(&cell);
        tables.push_str(&html::table_html(&h, &r));
    }
    // observations_md starts with its own "## Observations" heading.
    tables.push_str(&html::markdown_html(&report::observations_md(rows)));
    tables
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_k2_host_file_is_the_authors_single_queue_host_with_its_idle_exit() {
        let host = k2_host();
        assert_eq!(host.hw_queues, 1);
        assert!(host.costs.idle_exit_ns > 0 && host.costs.idle_after_ns > 0);
        assert!(host_description(&host).contains(K2_HOST_FILE));
        assert!(!host_description(&Default::default()).contains(K2_HOST_FILE));
        // Built in by name where a host file is asked for.
        let named = std::path::Path::new(crate::setup::K2_HOST_NAME);
        let loaded = crate::setup::load_host(Some(named), Default::default()).unwrap();
        assert_eq!(loaded, host);
    }
}
