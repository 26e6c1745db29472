//! What the build knows: its version, the device presets, the schedulers.

use pyo3::prelude::*;
use ssdlab_sched::{TunableKind, REGISTRY};
use ssdlab_sim::preset::{Preset, PRESETS};

/// The package's version (also the version every configuration key holds).
#[pyfunction]
pub fn version() -> &'static str {
    env!("CARGO_PKG_VERSION")
}

/// The built-in presets as (name, description) pairs.
#[pyfunction]
pub fn presets() -> PyResult<Vec<(String, String)>> {
    PRESETS
        .iter()
        .map(|p| {
            let preset = Preset::load(p.name).map_err(super::to_py)?;
            Ok((p.name.to_string(), preset.device.description))
        })
        .collect()
}

/// The I/O schedulers and their tunables, as JSON: a list of
/// `{name, help, tunables: [{name, kind, min, max, default, unit, help}]}`
/// (durations in ns, sizes in bytes).
#[pyfunction]
pub fn schedulers() -> String {
    let list: Vec<serde_json::Value> = REGISTRY
        .iter()
        .map(|e| {
            let tunables: Vec<serde_json::Value> = e
                .tunables
                .iter()
                .map(|t| {
                    let (kind, min, max, unit) = match t.kind {
                        TunableKind::Bool => ("bool", 0, 1, ""),
                        TunableKind::Int { min, max } => ("int", min, max, ""),
                        TunableKind::Duration { min, max, .. } => ("duration", min, max, "ns"),
                        TunableKind::Bytes { min, max } => ("size", min, max, "bytes"),
                        // The value is the index into `choices`.
                        TunableKind::Choice { names } => ("choice", 0, names.len() as i64 - 1, ""),
                    };
                    let choices: &[&str] = match t.kind {
                        TunableKind::Choice { names } => names,
                        _ => &[],
                    };
                    serde_json::json!({
                        "name": t.name, "kind": kind, "min": min, "max": max,
                        "default": t.default, "unit": unit, "help": t.help,
                        "choices": choices,
                    })
                })
                .collect();
            serde_json::json!({ "name": e.name, "help": e.help, "tunables": tunables })
        })
        .collect();
    serde_json::Value::Array(list).to_string()
}
