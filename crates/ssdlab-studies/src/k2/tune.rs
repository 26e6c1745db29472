//! Choosing K2's bound from a measured table (Park and Lee's objectives):
//!
//! - O1: maximise total bandwidth while the RT p99.9 is at most α% of the
//!   p99.9 under `none` → the largest feasible bound;
//! - O2: minimise the RT p99.9 while total bandwidth is at least β% of the
//!   bandwidth under `none` → the smallest feasible bound, except that for
//!   writes bound 1 is avoided where it costs bandwidth against bound 2 (the
//!   paper's care for writes; how much it may cost is not stated, so any
//!   loss counts; a choice of ours where the paper is silent).
//!
//! Where no bound qualifies the answer is "infeasible" with the closest bound.

use super::results::{cells_of, PointRow};
use serde::Serialize;

#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub enum Objective {
    /// α in percent of the p99.9 under none.
    O1 { alpha: f64 },
    /// β in percent of the bandwidth under none.
    O2 { beta: f64 },
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TuneResult {
    pub op: String,
    pub occupancy: String,
    pub objective: Objective,
    /// Bounds meeting the constraint, largest first.
    pub feasible: Vec<u32>,
    pub chosen: Option<u32>,
    /// Where nothing is feasible: the bound closest to the constraint.
    pub closest: Option<u32>,
    pub none_p999_us: f64,
    pub none_bw_mbs: f64,
}

/// Tunes one (operation, occupancy) cell: rows of that cell, `none` among
/// them. None when the cell has no `none` row or no K2 row.
pub fn tune_cell(rows: &[&PointRow], objective: Objective) -> Option<TuneResult> {
    let none = rows.iter().find(|r| r.bound.is_none())?;
    let mut k2: Vec<&PointRow> = rows.iter().copied().filter(|r| r.bound.is_some()).collect();
    if k2.is_empty() {
        return None;
    }
    k2.sort_by_key(|r| std::cmp::Reverse(r.bound));
    let ok = |r: &PointRow| match objective {
        Objective::O1 { alpha } => r.rt_p999_us <= alpha / 100.0 * none.rt_p999_us,
        Objective::O2 { beta } => r.total_bw_mbs >= beta / 100.0 * none.total_bw_mbs,
    };
    let feasible: Vec<u32> = k2
        .iter()
        .filter(|r| ok(r))
        .filter_map(|r| r.bound)
        .collect();
    let chosen = match objective {
        Objective::O1 { .. } => feasible.first().copied(),
        Objective::O2 { .. } => smallest_for_o2(&k2, &feasible, none.op.contains("write")),
    };
    let closest = if chosen.is_some() {
        None
    } else {
        closest_bound(&k2, objective)
    };
    Some(TuneResult {
        op: none.op.clone(),
        occupancy: none.occupancy.clone(),
        objective,
        feasible,
        chosen,
        closest,
        none_p999_us: none.rt_p999_us,
        none_bw_mbs: none.total_bw_mbs,
    })
}

fn smallest_for_o2(k2: &[&PointRow], feasible: &[u32], is_write: bool) -> Option<u32> {
    let smallest = feasible.last().copied()?;
    if !is_write || smallest != 1 {
        return Some(smallest);
    }
    let bw = |b: u32| {
        k2.iter()
            .find(|r| r.bound == Some(b))
            .map(|r| r.total_bw_mbs)
    };
    match (bw(1), bw(2)) {
        (Some(b1), Some(b2)) if feasible.contains(&2) && b1 < b2 => Some(2),
        _ => Some(1),
    }
}

/// The bound nearest to meeting the constraint: lowest p99.9 for O1,
/// highest bandwidth for O2.
fn closest_bound(k2: &[&PointRow], objective: Objective) -> Option<u32> {
    let key = |r: &&&PointRow| match objective {
        Objective::O1 { .. } => r.rt_p999_us,
        Objective::O2 { .. } => -r.total_bw_mbs,
    };
    k2.iter()
        .min_by(|a, b| key(a).total_cmp(&key(b)))
        .and_then(|r| r.bound)
}

/// Tunes every (operation, occupancy) cell present in `rows`.
pub fn tune_all(rows: &[PointRow], objective: Objective) -> Vec<TuneResult> {
    cells_of(rows)
        .into_iter()
        .filter_map(|(_, cell)| tune_cell(&cell, objective))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(op: &str, bound: Option<u32>, p999: f64, bw: f64) -> PointRow {
        PointRow {
            op: op.into(),
            occupancy: "partial".into(),
            scheduler: if bound.is_some() { "k2" } else { "none" }.into(),
            bound,
            rt_p999_us: p999,
            rt_p99_us: p999,
            rt_mean_us: p999,
            total_bw_mbs: bw,
            nrt_bw_mbs: bw,
            reps: 1,
            runtime_s: 1.0,
            waf: 1.0,
            gc_invocations: 0,
            gc_pages_moved: 0,
            erases: 0,
        }
    }

    /// A table shaped like the paper's random-read row.
    fn table(op: &str) -> Vec<PointRow> {
        vec![
            row(op, None, 3251.0, 566.0),
            row(op, Some(64), 2900.0, 560.0),
            row(op, Some(32), 2000.0, 540.0),
            row(op, Some(16), 1200.0, 480.0),
            row(op, Some(8), 700.0, 350.0),
            row(op, Some(4), 400.0, 200.0),
            row(op, Some(2), 197.0, 90.0),
            row(op, Some(1), 217.0, 44.0),
        ]
    }

    fn tune(rows: &[PointRow], o: Objective) -> TuneResult {
        tune_all(rows, o).remove(0)
    }

    #[test]
    fn o1_picks_the_largest_bound_under_the_latency_cap() {
        // 50% of 3251 = 1625.5: bounds 16, 8, 4, 2, 1 qualify.
        let t = tune(&table("randread"), Objective::O1 { alpha: 50.0 });
        assert_eq!(t.feasible, vec![16, 8, 4, 2, 1]);
        assert_eq!(t.chosen, Some(16));
        // 25% = 812.75: 8 is the largest.
        assert_eq!(
            tune(&table("randread"), Objective::O1 { alpha: 25.0 }).chosen,
            Some(8)
        );
    }

    #[test]
    fn o2_picks_the_smallest_bound_keeping_the_bandwidth() {
        // 75% of 566 = 424.5: bounds 64, 32, 16 qualify; 16 is the smallest.
        let t = tune(&table("randread"), Objective::O2 { beta: 75.0 });
        assert_eq!(t.feasible, vec![64, 32, 16]);
        assert_eq!(t.chosen, Some(16));
    }

    #[test]
    fn writes_avoid_bound_one_when_it_costs_bandwidth() {
        let mut rows = table("write");
        for r in &mut rows {
            r.total_bw_mbs = 430.0;
        }
        rows.last_mut().unwrap().total_bw_mbs = 303.0; // K2-1
        let k2_2 = rows.len() - 2;
        rows[k2_2].total_bw_mbs = 419.0; // K2-2
        let t = tune(&rows, Objective::O2 { beta: 50.0 });
        assert!(t.feasible.contains(&1));
        assert_eq!(t.chosen, Some(2));
        // Reads keep bound 1 when it is the smallest feasible.
        let t = tune(&table("randread"), Objective::O2 { beta: 5.0 });
        assert_eq!(t.chosen, Some(1));
    }

    #[test]
    fn infeasible_names_the_closest_bound() {
        let t = tune(&table("randread"), Objective::O1 { alpha: 1.0 });
        assert!(t.feasible.is_empty());
        assert_eq!(t.chosen, None);
        assert_eq!(t.closest, Some(2), "lowest p99.9");
        let t = tune(&table("randread"), Objective::O2 { beta: 100.0 });
        assert_eq!(t.chosen, None);
        assert_eq!(t.closest, Some(64), "highest bandwidth");
    }

    #[test]
    fn a_cell_without_none_is_skipped() {
        let rows: Vec<PointRow> = table("read")
            .into_iter()
            .filter(|r| r.bound.is_some())
            .collect();
        assert!(tune_all(&rows, Objective::O1 { alpha: 50.0 }).is_empty());
    }
}
