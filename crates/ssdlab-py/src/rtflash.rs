//! `ssdlab.rtflash_run`: a real-time task set allocated and simulated, as
//! `ssdlab rtflash run --json` gives it.

use super::to_py;
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

/// Allocates the task set of the file `tasks` with `approach` and simulates
/// it for `duration` seconds; returns `rtflash run --json`'s object.
#[pyfunction]
#[pyo3(signature = (tasks, approach="clustering", nrt="tbs", chip_order="edf", model="chips", duration=10.0, seed=1))]
#[allow(clippy::too_many_arguments)]
pub fn rtflash_run(
    py: Python<'_>,
    tasks: PathBuf,
    approach: &str,
    nrt: &str,
    chip_order: &str,
    model: &str,
    duration: f64,
    seed: u64,
) -> PyResult<String> {
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
