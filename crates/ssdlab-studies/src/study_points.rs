//! Every study's point from its configuration alone: what a Dask worker
//! runs (`ssdlab._native.run_configs`) and what the GC, STB and real-time
//! flash studies run locally too, so that a point gives the same bytes
//! wherever it ran. A configuration names its study in `"study"`; the K2
//! studies' points (`PointSpec`) have none.

use crate::commands::{json, Points};
pub use crate::study_config::{fields, GridOverrides};
use serde_json::Value;
use ssdlab_sim::error::InputError;

/// The studies whose points run from their configuration alone: the
/// registry lines of `registry::STUDIES` with [`Points`] (the K2 studies'
/// points carry no `"study"`: `PointSpec`).
fn studies() -> impl Iterator<Item = (&'static str, &'static Points)> {
    crate::registry::STUDIES
        .iter()
        .filter_map(|s| Some((s.name, s.points.as_ref()?)))
}

fn known() -> String {
    studies()
        .map(|(name, _)| name)
        .collect::<Vec<_>>()
        .join(", ")
}

fn points_of(name: &str) -> Option<&'static Points> {
    studies().find(|(n, _)| *n == name).map(|(_, p)| p)
}

/// The result (JSON) of the point `config_text` describes.
pub fn run_config_text(config_text: &str) -> Result<String, InputError> {
    let config: Value = serde_json::from_str(config_text)
        .map_err(|e| InputError::invalid("point configuration", e.to_string()))?;
    let Some(name) = config.get("study").and_then(|s| s.as_str()) else {
        return Ok(json(&crate::point::PointSpec::from_config(&config)?.run()?));
    };
    let study = points_of(name).ok_or_else(|| {
        InputError::invalid(
            "point configuration",
            format!(
                "unknown study '{name}' (known: {}, or none for K2)",
                known()
            ),
        )
    })?;
    (study.run)(&config)
}

/// A point of a study's grid for `ssdlab.sweep`: the columns that name it,
/// its configuration and its key (the study cache's).
pub struct GridPoint {
    pub labels: serde_json::Value,
    pub config: serde_json::Value,
    pub key: String,
}

/// The points `reproduce STUDY` runs for `plan` (`quick` or `paper`), with
/// the command's defaults: for gc-ondemand the ladder of its load sweep
/// (every profile and scheme at every load of the ladder; the bisections
/// and the headline depend on results, so the CLI adds them).
pub fn grid(
    study: &str,
    plan: &str,
    seed: u64,
    overrides: GridOverrides,
) -> Result<Vec<GridPoint>, InputError> {
    let paper = match plan {
        "quick" => false,
        "paper" => true,
        other => {
            return Err(InputError::invalid(
                "plan",
                format!("'quick' or 'paper', not '{other}'"),
            ))
        }
    };
    let entry = points_of(study).ok_or_else(|| {
        InputError::invalid(
            "study",
            format!("unknown '{study}' (known: {}; K2: ssdlab.k2.grid)", known()),
        )
    })?;
    let pairs = (entry.grid)(paper, seed, overrides)?;
    Ok(pairs
        .into_iter()
        .map(|(labels, config)| GridPoint {
            key: crate::cache::Cache::key(&config),
            labels,
            config,
        })
        .collect())
}
