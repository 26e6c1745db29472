//! One task set run end to end, as `rtflash run` and the Python package
//! give it: allocated by an approach, simulated on the chip model or on the
//! SSD model of its preset, each task's observed figures beside the
//! analysis' bound.

use super::{
    setup_from, simulate, simulate_on_device, ChipOrder, NrtOutcome, NrtPolicy, SimReport,
    SimSetup, TaskOutcome,
};
use crate::{allocate, ApproachChoice, TaskSet};
use serde::Serialize;
use ssdlab_protocol::Ns;
use ssdlab_sim::preset::Preset;

/// The device a task set is simulated on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Model {
    /// The analysis' platform: chips running one flash operation at a
    /// time, with the analysis' GC round.
    #[default]
    Chips,
    /// The full SSD model of the task set's preset, its clusters as chip
    /// clusters.
    Ssd,
}

/// A run's length given in seconds, as nanoseconds: at least a millisecond
/// (rates are per simulated second) and at most 100,000 s.
pub fn duration_ns(seconds: f64) -> Result<Ns, String> {
    if (0.001..=100_000.0).contains(&seconds) {
        Ok((seconds * 1e9).round() as Ns)
    } else {
        Err(format!("{seconds} s is outside [0.001, 100000]"))
    }
}

/// How a run is made.
#[derive(Debug, Clone, Copy)]
pub struct RunOptions {
    pub approach: ApproachChoice,
    pub nrt: NrtPolicy,
    pub order: ChipOrder,
    pub model: Model,
    pub duration_ns: Ns,
    pub seed: u64,
}

/// One task: what the simulation saw and the analysis' bound.
#[derive(Debug, Clone, Serialize)]
pub struct TaskRow {
    #[serde(flatten)]
    pub observed: TaskOutcome,
    pub deadline_ns: u64,
    /// The analysis' worst-case latency (None: unbounded).
    pub worst_case_latency_ns: Option<u64>,
}

/// A run's result (the JSON of `rtflash run --json`).
#[derive(Debug, Clone, Serialize)]
pub struct RunOutput {
    pub approach: String,
    pub nrt_service: NrtPolicy,
    pub chip_order: ChipOrder,
    pub model: Model,
    pub schedulable: bool,
    pub reason: Option<String>,
    pub duration_ns: u64,
    pub tasks: Vec<TaskRow>,
    pub nrt: Option<NrtOutcome>,
    pub gc_rounds: u64,
    pub gc_copied_pages: u64,
}

/// Runs `ts`. An error says why it cannot run: a task the allocation left
/// without chips, data that do not fit, or (on the SSD model) a platform
/// not given by a preset.
pub fn run_task_set(ts: &TaskSet, o: &RunOptions) -> Result<RunOutput, String> {
    let alloc = allocate(ts, o.approach);
    let mut setup = setup_from(ts, &alloc, o.nrt, o.duration_ns, o.seed)?;
    setup.order = o.order;
    let report = simulate_on(o.model, &setup, ts)?;
    let tasks = report
        .tasks
        .into_iter()
        .zip(&alloc.tasks)
        .map(|(observed, t)| TaskRow {
            observed,
            deadline_ns: t.deadline_ns,
            worst_case_latency_ns: t.worst_case_latency_ns,
        })
        .collect();
    Ok(RunOutput {
        approach: alloc.approach.clone(),
        nrt_service: o.nrt,
        chip_order: o.order,
        model: o.model,
        schedulable: alloc.schedulable,
        reason: alloc.reason.clone(),
        duration_ns: o.duration_ns,
        tasks,
        nrt: report.nrt,
        gc_rounds: report.gc_rounds,
        gc_copied_pages: report.gc_copied_pages,
    })
}

/// Simulates `setup` (made from `ts`) on `model`.
pub fn simulate_on(model: Model, setup: &SimSetup, ts: &TaskSet) -> Result<SimReport, String> {
    match model {
        Model::Chips => simulate(setup).map_err(|e| e.to_string()),
        Model::Ssd => simulate_on_device(setup, &ssd_model(ts)?),
    }
}

/// The SSD model of the task set's platform: its preset.
pub fn ssd_model(ts: &TaskSet) -> Result<ssdlab_sim::ssd::config::SsdConfig, String> {
    let Some(name) = &ts.platform.preset else {
        return Err(
            "--model ssd needs a platform given by a preset ([platform] preset = \"NAME\")".into(),
        );
    };
    Preset::load(name)
        .map(|p| p.device)
        .map_err(|e| e.to_string())
}
