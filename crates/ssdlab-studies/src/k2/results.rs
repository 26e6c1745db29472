//! One row of the K2 queue-length-bound study: an (operation, occupancy,
//! scheduler, bound) point averaged over its repetitions.

use serde::{Deserialize, Serialize};
use ssdlab_sim::error::InputError;

/// Operation types of the study, in the paper's order.
pub const OPS: [&str; 4] = ["read", "randread", "write", "randwrite"];
/// Device states of the study.
pub const OCCUPANCIES: [&str; 2] = ["partial", "full"];
/// The longest run a plan may ask for, in simulated seconds (a day), and
/// the most repetitions: `reproduce k2` and `ssdlab.k2.grid` both hold to
/// them (a million repetitions would not fit in memory).
pub const MAX_RUNTIME_S: u64 = 86_400;
pub const MAX_REPS: u32 = 100;
/// K2 bounds of the study, largest first (the paper's x-axis after `none`).
pub const BOUNDS: [u32; 7] = [64, 32, 16, 8, 4, 2, 1];

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PointRow {
    /// read, randread, write, randwrite.
    pub op: String,
    /// partial, full.
    pub occupancy: String,
    /// none or k2.
    pub scheduler: String,
    /// K2's max_inflight; None for `none`.
    pub bound: Option<u32>,
    pub rt_p999_us: f64,
    pub rt_p99_us: f64,
    pub rt_mean_us: f64,
    /// All four jobs, MB/s (10^6 bytes).
    pub total_bw_mbs: f64,
    /// The three non-real-time jobs, MB/s.
    pub nrt_bw_mbs: f64,
    pub reps: u32,
    /// Simulated seconds per repetition.
    pub runtime_s: f64,
    pub waf: f64,
    pub gc_invocations: u64,
    pub gc_pages_moved: u64,
    pub erases: u64,
}

impl PointRow {
    /// "none" or "K2-`bound`", as the paper labels points.
    pub fn label(&self) -> String {
        match self.bound {
            Some(b) => format!("K2-{b}"),
            None => "none".to_string(),
        }
    }
}

/// The (operation, occupancy) cells present in `rows`, in order of first
/// appearance, each with its rows.
pub fn cells_of(rows: &[PointRow]) -> Vec<((String, String), Vec<&PointRow>)> {
    let mut cells: Vec<((String, String), Vec<&PointRow>)> = Vec::new();
    for r in rows {
        let key = (r.op.clone(), r.occupancy.clone());
        match cells.iter_mut().find(|(k, _)| *k == key) {
            Some((_, v)) => v.push(r),
            None => cells.push((key, vec![r])),
        }
    }
    cells
}

/// Every row as `reproduce k2` writes it: a known operation, occupancy
/// and scheduler, a bound with K2 only (at least 1), finite non-negative
/// figures, and one row per cell and bound. The error names the line.
pub fn check_rows(rows: &[PointRow], file: &str) -> Result<(), InputError> {
    let mut seen = std::collections::BTreeSet::new();
    for (i, r) in rows.iter().enumerate() {
        let at = |field: &str, message: String| InputError::At {
            file: file.to_string(),
            // Line 1 is the header.
            line: i + 2,
            field: field.to_string(),
            message,
        };
        if !OPS.contains(&r.op.as_str()) {
            return Err(at("op", format!("unknown operation '{}'", r.op)));
        }
        if !OCCUPANCIES.contains(&r.occupancy.as_str()) {
            let message = format!("unknown occupancy '{}'", r.occupancy);
            return Err(at("occupancy", message));
        }
        match (r.scheduler.as_str(), r.bound) {
            ("none", None) => {}
            ("k2", Some(b)) if b >= 1 => {}
            ("none", Some(_)) => return Err(at("bound", "none has no bound".into())),
            ("k2", _) => return Err(at("bound", "K2 needs a bound of at least 1".into())),
            (other, _) => return Err(at("scheduler", format!("unknown scheduler '{other}'"))),
        }
        for (field, v) in [
            ("rt_p999_us", r.rt_p999_us),
            ("total_bw_mbs", r.total_bw_mbs),
        ] {
            if !(v.is_finite() && v >= 0.0) {
                return Err(at(
                    field,
                    format!("{v} is not a finite non-negative figure"),
                ));
            }
        }
        let cell = (r.op.as_str(), r.occupancy.as_str(), r.bound);
        if !seen.insert(cell) {
            return Err(at(
                "bound",
                "a second row for this operation, occupancy and bound".into(),
            ));
        }
    }
    Ok(())
}
