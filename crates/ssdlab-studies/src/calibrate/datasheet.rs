//! The data sheet's figures as built-in targets of `ssdlab calibrate`:
//! every row `ssdlab validate datasheet` checks, run as it runs them (a
//! fresh drive, the preset's own host, `none`), so that a fit to the K2
//! study's figures cannot move the drive off its vendor's figures — the
//! K2 host's limits stay in the K2 host.

use super::targets::{Target, TargetValue, PRESET_HOST};
use std::path::PathBuf;

/// Every data-sheet figure of `datasheet.rs` that is a fit target
/// (`datasheet::is_fit_target`), one target each.
pub fn datasheet_targets() -> Vec<Target> {
    crate::datasheet::figures()
        .iter()
        .filter(|f| crate::datasheet::is_fit_target(f.run))
        .map(|f| Target {
            job: PathBuf::from(format!("datasheet:{}", f.run)),
            host: Some(PRESET_HOST.into()),
            runtime_s: None,
            scheduler: crate::datasheet::SCHEDULER.into(),
            occupancy: crate::datasheet::OCCUPANCY * 100.0,
            precondition: crate::datasheet::PRECONDITION.to_string(),
            metric: f.metric,
            job_name: f.job_name.map(str::to_string),
            value: TargetValue::One(f.vendor),
            weight: 1.0,
            tolerance: None,
        })
        .collect()
}
