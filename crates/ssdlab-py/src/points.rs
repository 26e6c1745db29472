//! The points of a sweep: resolved and keyed on the caller's side, run in
//! batches on a worker's, and the K2 study's grid as points.

use super::{bad_json, to_py};
use pyo3::prelude::*;
use ssdlab_studies::k2::grid::{points, Plan};
use ssdlab_studies::setup::PointParams;

/// Checks a point's parameters (JSON, the keys of `PointParams`) and
/// returns its key and its configuration (canonical JSON), as the CLI's
/// study cache keys it.
#[pyfunction]
pub fn resolve(py: Python<'_>, params_json: &str) -> PyResult<(String, String)> {
    let p: PointParams =
        serde_json::from_str(params_json).map_err(|e| bad_json("point parameters", e))?;
    let spec = py.detach(|| p.resolve()).map_err(to_py)?;
    let config = spec.config();
    Ok((spec.key(), config.to_string()))
}

/// `run_configs`' request: a batch of point configurations, each the
/// canonical JSON text `resolve` gave (kept as text, so that a
/// configuration reaches the worker byte for byte).
#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct ConfigsRequest {
    configs: Vec<String>,
}

/// Runs the points of the request's configurations one after another and
/// returns each one's result as JSON, in order: a K2 point's
/// `PointFigures`, or the rows of a GC, STB or real-time flash study point
/// (the configuration's `"study"`). The request is JSON, as for every
/// function of the module.
#[pyfunction]
pub fn run_configs(py: Python<'_>, request_json: &str) -> PyResult<Vec<String>> {
    let ConfigsRequest { configs } =
        serde_json::from_str(request_json).map_err(|e| bad_json("configs request", e))?;
    py.detach(|| {
        configs
            .iter()
            .map(|text| {
                ssdlab_studies::study_points::run_config_text(text).map_err(|e| e.to_string())
            })
            .collect::<Result<Vec<String>, String>>()
    })
    .map_err(super::SsdlabError::new_err)
}

/// `k2_points`' request: `reproduce k2`'s plan options.
#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct K2Request {
    #[serde(default)]
    paper: bool,
    #[serde(default)]
    partial_runtime: Option<u64>,
    #[serde(default)]
    full_runtime: Option<u64>,
    #[serde(default)]
    reps: Option<u32>,
    #[serde(default)]
    ops: Vec<String>,
    #[serde(default)]
    occupancies: Vec<String>,
    device: String,
    seed: u64,
    full_precondition: String,
}

/// The K2 study's grid as sweep points (JSON list): each with its labels
/// (`op`, `state`, `bound`, `rep`) and the parameters `reproduce k2` runs
/// it with, so a sweep of them shares the CLI's keys.
#[pyfunction]
pub fn k2_points(request_json: &str) -> PyResult<String> {
    let K2Request {
        paper,
        partial_runtime,
        full_runtime,
        reps,
        ops,
        occupancies,
        device,
        seed,
        full_precondition,
    } = serde_json::from_str(request_json).map_err(|e| super::bad_json("k2 request", e))?;
    let full_precondition = full_precondition.as_str();
    use ssdlab_studies::k2::results::{OCCUPANCIES, OPS};
    let unknown = |given: &[String], known: &[&str], what: &str| -> PyResult<()> {
        match given.iter().find(|g| !known.contains(&g.as_str())) {
            Some(g) => Err(super::SsdlabError::new_err(format!(
                "{what}: unknown '{g}' (known: {})",
                known.join(", ")
            ))),
            None => Ok(()),
        }
    };
    unknown(&ops, &OPS, "ops")?;
    unknown(&occupancies, &OCCUPANCIES, "states")?;
    // The CLI's ranges (`reproduce k2 --partial-runtime`, `--full-runtime`,
    // `--reps`): a grid of 10^6 repetitions would not fit in memory.
    use ssdlab_studies::k2::results::{MAX_REPS, MAX_RUNTIME_S};
    for (name, v, most) in [
        ("partial_runtime", partial_runtime, MAX_RUNTIME_S),
        ("full_runtime", full_runtime, MAX_RUNTIME_S),
        ("reps", reps.map(u64::from), u64::from(MAX_REPS)),
    ] {
        if let Some(v) = v.filter(|v| !(1..=most).contains(v)) {
            return Err(super::SsdlabError::new_err(format!(
                "{name}: {v} is outside 1..={most}"
            )));
        }
    }
    // `reproduce k2 --full-precondition`: the fully occupied drive's history.
    use ssdlab_studies::k2::grid::{parse_full_precondition, precondition_of};
    let full_pre = parse_full_precondition(full_precondition)
        .map_err(|e| super::SsdlabError::new_err(format!("full_precondition: {e}")))?;
    let mut plan = if paper { Plan::PAPER } else { Plan::QUICK };
    plan.partial_runtime_s = partial_runtime.unwrap_or(plan.partial_runtime_s);
    plan.full_runtime_s = full_runtime.unwrap_or(plan.full_runtime_s);
    plan.reps = reps.unwrap_or(plan.reps);
    let list: Vec<serde_json::Value> = points(&plan, &ops, &occupancies)
        .iter()
        .map(|p| {
            serde_json::json!({
                "labels": {
                    "op": p.op, "state": p.occupancy, "bound": p.bound, "rep": p.rep,
                },
                "job": p.job_file(),
                "job_name": format!("examples/k2/{}.fio", p.op),
                "device": device,
                "host": ssdlab_studies::setup::K2_HOST_NAME,
                "scheduler": p.scheduler_spec(),
                "occupancy": p.occupancy_share() * 100.0,
                "precondition": precondition_of(&p.occupancy, full_pre).to_string(),
                "seed": seed.wrapping_add(u64::from(p.rep)),
            })
        })
        .collect();
    Ok(serde_json::Value::Array(list).to_string())
}

/// `study_grid`'s request: a study, its plan and seed, and overrides.
#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct StudyGridRequest {
    study: String,
    plan: String,
    seed: u64,
    #[serde(default)]
    overrides: ssdlab_studies::study_points::GridOverrides,
}

/// A GC, STB or real-time flash study's grid as sweep points (JSON list):
/// each with its labels, its configuration (canonical JSON text) and its
/// key, as `reproduce STUDY` keys it.
#[pyfunction]
pub fn study_grid(request_json: &str) -> PyResult<String> {
    let r: StudyGridRequest =
        serde_json::from_str(request_json).map_err(|e| super::bad_json("study grid request", e))?;
    let points = ssdlab_studies::study_points::grid(&r.study, &r.plan, r.seed, r.overrides)
        .map_err(super::to_py)?;
    let list: Vec<serde_json::Value> = points
        .into_iter()
        .map(|p| {
            serde_json::json!({
                "labels": p.labels, "study_config": p.config.to_string(), "key": p.key,
            })
        })
        .collect();
    Ok(serde_json::Value::Array(list).to_string())
}
