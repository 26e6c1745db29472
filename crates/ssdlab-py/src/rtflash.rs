//! `ssdlab.rtflash_run`: a real-time task set allocated and simulated, as
//! `ssdlab rtflash run --json` gives it.

use super::{bad_json, to_py};
use pyo3::prelude::*;
use ssdlab_rtflash::sim::{duration_ns, run_task_set, ChipOrder, Model, NrtPolicy, RunOptions};
use ssdlab_rtflash::{ApproachChoice, TaskSet};
use ssdlab_sim::error::InputError;
use std::path::PathBuf;

/// One of `choices` by name, or the error naming the field and the choices.
fn choose<T: Copy>(field: &str, name: &str, choices: &[(&str, T)]) -> Result<T, InputError> {
    choices
        .iter()
        .find(|(n, _)| *n == name)
        .map(|&(_, v)| v)
        .ok_or_else(|| {
            let names: Vec<&str> = choices.iter().map(|(n, _)| *n).collect();
            InputError::invalid(
                field,
                format!("'{name}' is not one of {}", names.join(", ")),
            )
        })
}

/// `rtflash_run`'s request, as `ssdlab rtflash run`'s options.
#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct RtflashRequest {
    tasks: PathBuf,
    approach: String,
    nrt: String,
    chip_order: String,
    model: String,
    duration: f64,
    seed: u64,
}

/// Allocates the task set of the request's file `tasks` with `approach`
/// and simulates it for `duration` seconds; returns `rtflash run --json`'s
/// object. The request is JSON, as for every function of the module.
#[pyfunction]
pub fn rtflash_run(py: Python<'_>, request_json: &str) -> PyResult<String> {
    let RtflashRequest {
        tasks,
        approach,
        nrt,
        chip_order,
        model,
        duration,
        seed,
    } = serde_json::from_str(request_json).map_err(|e| bad_json("rtflash request", e))?;
    let (approach, nrt, chip_order, model) = (&*approach, &*nrt, &*chip_order, &*model);
    let options = || -> Result<RunOptions, InputError> {
        let duration_ns = duration_ns(duration).map_err(|m| InputError::invalid("duration", m))?;
        Ok(RunOptions {
            approach: ApproachChoice::parse(approach)
                .map_err(|m| InputError::invalid("approach", m))?,
            nrt: choose(
                "nrt",
                nrt,
                &[
                    ("tbs", NrtPolicy::Tbs),
                    ("background", NrtPolicy::Background),
                ],
            )?,
            order: choose(
                "chip_order",
                chip_order,
                &[("edf", ChipOrder::Edf), ("fifo", ChipOrder::Fifo)],
            )?,
            model: choose(
                "model",
                model,
                &[("chips", Model::Chips), ("ssd", Model::Ssd)],
            )?,
            duration_ns,
            seed,
        })
    };
    let options = options().map_err(to_py)?;
    py.detach(move || {
        let file = tasks.display().to_string();
        let ts = TaskSet::load(&file)?;
        let out = run_task_set(&ts, &options).map_err(|m| InputError::invalid(file, m))?;
        Ok(serde_json::to_string(&out).expect("the run serializes"))
    })
    .map_err(to_py)
}
