//! One row of the K2 queue-length-bound study: an (operation, occupancy,
//! scheduler, bound) point averaged over its repetitions.

use serde::{Deserialize, Serialize};

/// Operation types of the study, in the paper's order.
pub const OPS: [&str; 4] = ["read", "randread", "write", "randwrite"];
/// Device states of the study.
pub const OCCUPANCIES: [&str; 2] = ["partial", "full"];
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
