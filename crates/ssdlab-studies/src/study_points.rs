//! Every study's point from its configuration alone: what a Dask worker
//! runs (`ssdlab._native.run_configs`) and what the GC, STB and real-time
//! flash studies run locally too, so that a point gives the same bytes
//! wherever it ran. A configuration names its study in `"study"`; the K2
//! studies' points (`PointSpec`) have none.

pub use crate::study_config::{fields, GridOverrides};
use ssdlab_sim::error::InputError;

/// The result (JSON) of the point `config_text` describes.
pub fn run_config_text(config_text: &str) -> Result<String, InputError> {
    let config: serde_json::Value = serde_json::from_str(config_text)
        .map_err(|e| InputError::invalid("point configuration", e.to_string()))?;
    let text = |r: Result<String, serde_json::Error>| r.expect("results serialize");
    Ok(match config.get("study").and_then(|s| s.as_str()) {
        None => text(serde_json::to_string(
            &crate::point::PointSpec::from_config(&config)?.run()?,
        )),
        Some("gc-ondemand") => text(serde_json::to_string(&crate::gc_study::run_config(
            &config,
        )?)),
        Some("stb") => text(serde_json::to_string(&crate::stb_study::run_config(
            &config,
        )?)),
        Some("rt-flash") => text(serde_json::to_string(&crate::rtflash::run_config(&config)?)),
        Some(other) => {
            return Err(InputError::invalid(
                "point configuration",
                format!(
                    "unknown study '{other}' (known: gc-ondemand, stb, rt-flash, or none for K2)"
                ),
            ))
        }
    })
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
    let pairs = match study {
        "stb" => crate::stb_study::grid(paper, seed),
        "gc-ondemand" => crate::gc_study::grid(paper, seed),
        "rt-flash" => crate::rtflash::grid(paper, seed, overrides)?,
        other => {
            return Err(InputError::invalid(
                "study",
                format!(
                    "unknown '{other}' (known: gc-ondemand, rt-flash, stb; K2: ssdlab.k2.grid)"
                ),
            ))
        }
    };
    Ok(pairs
        .into_iter()
        .map(|(labels, config)| GridPoint {
            key: crate::cache::Cache::key(&config),
            labels,
            config,
        })
        .collect())
}
