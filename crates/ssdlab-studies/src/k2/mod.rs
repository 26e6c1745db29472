//! The K2 queue-length-bound study (Park and Lee, Electronics 10(7):865,
//! 2021): the grid of operations × device states × schedulers, run in
//! parallel with a configuration-hash cache, and its derived observations,
//! figures and report.

pub mod figures;
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
use std::path::PathBuf;

/// What `reproduce k2` wrote.
pub struct StudyOutput {
    pub rows: Vec<PointRow>,
    pub computed: usize,
    pub cached: usize,
    pub files: Vec<PathBuf>,
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
    let figures = figures::write_figures(&run.rows, out).map_err(io)?;
    let files = write_study(
        out,
        &run.rows,
        &StudyReport {
            title: "K2 queue-length-bound study — ssdlab",
            markdown: report::markdown(&run.rows, &preamble),
            intro: &preamble,
            html_body: html_tables(&run.rows),
            figures,
        },
    )?;
    Ok(StudyOutput {
        rows: run.rows,
        computed: run.computed,
        cached: run.cached,
        files,
    })
}

/// Which host settings a report's runs used (always the preset's: a study
/// takes no `--host`), for its preamble.
pub fn host_description(host: &ssdlab_sim::host::HostConfig) -> &'static str {
    if *host == ssdlab_sim::host::HostConfig::default() {
        "host defaults (docs/model.md)"
    } else {
        "the preset's host settings"
    }
}

fn preamble(opts: &StudyOptions, run: &runner::StudyRun) -> String {
    let p = &opts.plan;
    let host = host_description(&opts.host);
    format!(
        "Device `{}`, {host}, K2 study job files (`examples/k2/`), seed {}. \
Runs of {} s (partially occupied, 50% of the logical space) and {} s (fully occupied, GC at steady state), \
{} repetition(s) per point, averaged. {} repetitions computed, {} taken from the cache.\n\n\
The partially occupied half is compared with the paper's figures below; the fully occupied half is a \
prediction of the model, reported as it comes out.\n",
        opts.device.name, opts.seed, p.partial_runtime_s, p.full_runtime_s, p.reps, run.computed, run.cached
    )
}

fn html_tables(rows: &[PointRow]) -> String {
    let mut tables =
        String::from("<h2>Calibration: partially occupied SSD against the paper</h2>\n");
    let (h, r) = report::calibration_table(rows);
    tables.push_str(&html::table_html(&h, &r));
    for (op, occ, cell) in report::cells(rows) {
        tables.push_str(&format!("<h3>{op} — {occ}</h3>\n"));
        let (h, r) = report::cell_table(&cell);
        tables.push_str(&html::table_html(&h, &r));
    }
    // observations_md starts with its own "## Observations" heading.
    tables.push_str(&html::markdown_html(&report::observations_md(rows)));
    tables
}
