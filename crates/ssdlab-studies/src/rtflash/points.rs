//! A point of the study from its configuration alone: what a Dask worker
//! runs, and what every point runs on local threads too, so the two give
//! the same rows.

use super::case_study::{self, CASE_STUDIES, VARIANTS};
use super::curves::{self, FAMILIES};
use super::{ssd_check, Row, MODEL_REVISION};
use serde::Deserialize;
use ssdlab_rtflash::TaskSet;
use ssdlab_sim::error::InputError;

/// The fields a point's configuration may hold (which ones, by part).
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ConfigFields {
    part: String,
    model: u32,
    tasks: Option<String>,
    approach: Option<String>,
    family: Option<String>,
    chips: Option<u32>,
    demand: Option<f64>,
    sets: Option<usize>,
    seconds: Option<u64>,
    seed: Option<u64>,
    preset: Option<String>,
}

fn bad(m: String) -> InputError {
    InputError::invalid("rt-flash point configuration", m)
}

fn need<T>(v: Option<T>, field: &str) -> Result<T, InputError> {
    v.ok_or_else(|| bad(format!("no '{field}'")))
}

/// The rows of the point `config` describes.
pub fn run_config(config: &serde_json::Value) -> Result<Vec<Row>, InputError> {
    let c: ConfigFields = crate::study_config::fields(config, "rt-flash")?;
    if c.model != MODEL_REVISION {
        return Err(bad(format!(
            "model revision {} is not {MODEL_REVISION}",
            c.model
        )));
    }
    let variant = |c: &ConfigFields| {
        let label = need(c.approach.as_deref(), "approach")?;
        VARIANTS
            .iter()
            .find(|v| v.label == label)
            .copied()
            .ok_or_else(|| bad(format!("unknown approach '{label}'")))
    };
    let tasks = |c: &ConfigFields| TaskSet::from_toml(need(c.tasks.as_deref(), "tasks")?, &c.part);
    match c.part.as_str() {
        "wcl" => Ok(case_study::wcl_rows(&tasks(&c)?)),
        "schedulability" => {
            let name = need(c.family.as_deref(), "family")?;
            let family = FAMILIES
                .iter()
                .find(|f| format!("{f:?}") == name)
                .ok_or_else(|| bad(format!("unknown family '{name}'")))?;
            Ok(curves::ratio_rows(
                family,
                need(c.chips, "chips")?,
                need(c.demand, "demand")?,
                need(c.sets, "sets")?,
                need(c.seed, "seed")?,
            ))
        }
        "bandwidth" | "bandwidth-ssd" => {
            let model = if c.part == "bandwidth" {
                case_study::Model::Chips
            } else {
                check_preset(&c, curves::SSD_PRESET)?;
                case_study::Model::Ssd
            };
            Ok(curves::bandwidth_rows(
                (model, &c.part),
                need(c.demand, "demand")?,
                need(c.sets, "sets")?,
                need(c.seconds, "seconds")?,
                need(c.seed, "seed")?,
            ))
        }
        "ssd-check" => {
            check_preset(&c, curves::SSD_PRESET)?;
            Ok(ssd_check::check_rows(
                variant(&c)?,
                need(c.demand, "demand")?,
                need(c.sets, "sets")?,
                need(c.seconds, "seconds")?,
                need(c.seed, "seed")?,
            ))
        }
        part => {
            let case = CASE_STUDIES
                .iter()
                .find(|cs| cs.part == part)
                .ok_or_else(|| bad(format!("unknown part '{part}'")))?;
            case_study::case_rows(
                case,
                &tasks(&c)?,
                variant(&c)?,
                need(c.seconds, "seconds")?,
                need(c.seed, "seed")?,
            )
        }
    }
}

/// The preset a point names is the one this build runs it on.
fn check_preset(c: &ConfigFields, preset: &str) -> Result<(), InputError> {
    match c.preset.as_deref() {
        Some(p) if p == preset => Ok(()),
        other => Err(bad(format!("preset {other:?} is not '{preset}'"))),
    }
}
