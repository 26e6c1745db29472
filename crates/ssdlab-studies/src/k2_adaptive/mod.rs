//! `reproduce k2-adaptive`: K2 that chooses its own bound
//! (`k2-adaptive`) against the oracle static bound, the best K2-x for the
//! same objective taken from the same sweep, on the K2 study's cells
//! (operation × occupancy, O1 and O2 at α, β ∈ {25, 50, 75}) and on
//! workloads whose phases change what the best bound is (docs/k2-study.md,
//! "An adaptive bound").

pub mod cells;
pub mod command;
pub mod phases;
pub mod report;

use crate::k2::runner::{execute_figures, RunEnv, RunPoint};
use crate::point::PointFigures;
use serde::Serialize;
use ssdlab_sim::error::InputError;
use std::path::PathBuf;

/// The static bounds of the sweep the oracle chooses from (the K2
/// study's), and `none`.
pub const BOUNDS: [u32; 7] = [1, 2, 4, 8, 16, 32, 64];
pub const PCTS: [u32; 3] = [25, 50, 75];

/// How long: the quick plan or the paper-length one.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Plan {
    /// Seconds per static cell on the partially occupied drive.
    pub partial_runtime_s: u64,
    /// Seconds per static cell on the fully occupied drive; 0 leaves the
    /// fully occupied cells out.
    pub full_runtime_s: u64,
    /// Seconds per phase of the phase-changing workloads.
    pub phase_s: u64,
}

impl Plan {
    /// The partially occupied cells at 60 s, phases of 30 s: about five
    /// minutes on two cores.
    pub const QUICK: Plan = Plan {
        partial_runtime_s: 60,
        full_runtime_s: 0,
        phase_s: 30,
    };
    /// The K2 study's 100 s on the partially occupied drive, 300 s on the
    /// full one, phases of 60 s.
    pub const PAPER: Plan = Plan {
        partial_runtime_s: 100,
        full_runtime_s: 300,
        phase_s: 60,
    };

    pub fn occupancies(&self) -> Vec<&'static str> {
        if self.full_runtime_s > 0 {
            vec!["partial", "full"]
        } else {
            vec!["partial"]
        }
    }
}

pub fn static_schedulers() -> Vec<String> {
    std::iter::once("none".to_string())
        .chain(BOUNDS.iter().map(|b| format!("k2:max_inflight={b}")))
        .collect()
}

/// One run's figures as a row of results.csv: a cell's whole run, or one
/// phase of a phase-changing workload.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Row {
    /// "cell" or "phases".
    pub section: String,
    /// The operation of a cell, or the phase workload's name.
    pub workload: String,
    pub occupancy: String,
    pub scheduler: String,
    /// "all" for a cell; the phase's name otherwise.
    pub phase: String,
    pub rt_p999_us: f64,
    pub rt_mean_us: f64,
    /// All jobs' bandwidth over the run (cells) or the phase (MB/s).
    pub bw_mbs: f64,
    /// k2-adaptive's bound at the end of the run or phase (0: a static
    /// scheduler).
    pub final_bound: u64,
}

pub struct Options {
    pub plan: Plan,
    pub out: PathBuf,
    pub threads: usize,
    pub seed: u64,
    pub device: ssdlab_sim::ssd::config::SsdConfig,
    pub host: ssdlab_sim::host::HostConfig,
    pub remote: Option<Box<dyn crate::k2::runner::RemoteRunner>>,
}

pub struct Output {
    pub cells: Vec<cells::Comparison>,
    pub phases: Vec<phases::Score>,
    pub computed: usize,
    pub total: usize,
    pub files: Vec<PathBuf>,
}

/// Runs every point (cached), compares, and writes the report.
pub fn reproduce(
    opts: &Options,
    progress: &(dyn Fn(usize, usize) + Sync),
) -> Result<Output, InputError> {
    let cell_points = cells::points(&opts.plan);
    let phase_points = phases::points(&opts.plan);
    let runs: Vec<RunPoint> = cell_points
        .iter()
        .map(|p| p.run.clone())
        .chain(phase_points.iter().map(|p| p.run.clone()))
        .collect();
    let env = RunEnv {
        out: &opts.out,
        threads: opts.threads,
        seed: opts.seed,
        device: &opts.device,
        host: &opts.host,
        remote: opts.remote.as_deref(),
    };
    let (figures, computed) = execute_figures(&runs, &env, progress)?;
    let (cell_figs, phase_figs) = figures.split_at(cell_points.len());
    let cell_rows = cells::rows(&cell_points, cell_figs);
    let comparisons = cells::compare(&cell_rows);
    let phase_runs: Vec<(&phases::PhasePoint, &PointFigures)> =
        phase_points.iter().zip(phase_figs).collect();
    let phase_rows = phases::rows(&phase_runs);
    let scores = phases::score(&phase_rows);
    let rows: Vec<Row> = cell_rows.into_iter().chain(phase_rows).collect();
    let files = report::write(opts, &rows, &comparisons, &scores, &phase_runs)?;
    Ok(Output {
        cells: comparisons,
        phases: scores,
        computed,
        total: runs.len(),
        files,
    })
}

/// The bound k2-adaptive held at the end of `[from_s, to_s)` (0 for a
/// static scheduler).
pub fn bound_at(f: &PointFigures, to_s: u64) -> u64 {
    f.gauges
        .iter()
        .find(|(name, _)| name == "k2_bound")
        .and_then(|(_, s)| s.iter().take_while(|(sec, _)| *sec < to_s).last())
        .map_or(0, |&(_, b)| b)
}

#[cfg(test)]
mod tests;
