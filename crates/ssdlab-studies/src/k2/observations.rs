//! Observations derived from the study's table — never written by hand.

use super::results::{cells_of, PointRow};
use super::tune::{tune_all, Objective};

/// How occupancy changes `none`'s p99.9 and bandwidth for one operation.
#[derive(Debug, Clone, PartialEq)]
pub struct OccupancyEffect {
    pub op: String,
    pub partial_p999_us: f64,
    pub full_p999_us: f64,
    pub partial_bw_mbs: f64,
    pub full_bw_mbs: f64,
}

impl OccupancyEffect {
    pub fn p999_change_pct(&self) -> f64 {
        (self.full_p999_us - self.partial_p999_us) / self.partial_p999_us * 100.0
    }
    pub fn bw_change_pct(&self) -> f64 {
        (self.full_bw_mbs - self.partial_bw_mbs) / self.partial_bw_mbs * 100.0
    }
}

pub fn occupancy_effects(rows: &[PointRow]) -> Vec<OccupancyEffect> {
    let find = |op: &str, occ: &str| {
        rows.iter()
            .find(|r| r.op == op && r.occupancy == occ && r.bound.is_none())
    };
    let mut ops: Vec<&str> = rows.iter().map(|r| r.op.as_str()).collect();
    ops.dedup();
    ops.iter()
        .filter_map(|op| {
            let (p, f) = (find(op, "partial")?, find(op, "full")?);
            Some(OccupancyEffect {
                op: op.to_string(),
                partial_p999_us: p.rt_p999_us,
                full_p999_us: f.rt_p999_us,
                partial_bw_mbs: p.total_bw_mbs,
                full_bw_mbs: f.total_bw_mbs,
            })
        })
        .collect()
}

/// Where bandwidth or p99.9 fails to fall as the bound falls (none, K2-64,
/// …, K2-1) in one cell: pairs of neighbouring labels where the value rises.
#[derive(Debug, Clone, PartialEq)]
pub struct Monotonicity {
    pub op: String,
    pub occupancy: String,
    pub bw_rises: Vec<(String, String)>,
    pub p999_rises: Vec<(String, String)>,
}

pub fn monotonicity(rows: &[PointRow]) -> Vec<Monotonicity> {
    cells_of(rows)
        .into_iter()
        .map(|((op, occ), mut cell)| {
            // none first, then bounds from the largest down.
            cell.sort_by_key(|r| std::cmp::Reverse(r.bound.unwrap_or(u32::MAX)));
            let rises = |f: &dyn Fn(&PointRow) -> f64| {
                cell.windows(2)
                    .filter(|w| f(w[1]) > f(w[0]))
                    .map(|w| (w[0].label(), w[1].label()))
                    .collect::<Vec<_>>()
            };
            Monotonicity {
                bw_rises: rises(&|r| r.total_bw_mbs),
                p999_rises: rises(&|r| r.rt_p999_us),
                op,
                occupancy: occ,
            }
        })
        .collect()
}

/// The O1 and O2 choices for α, β ∈ {25, 50, 75, 90}: (objective label,
/// op, occupancy, chosen or "infeasible (closest K2-x)").
pub fn objective_choices(rows: &[PointRow]) -> Vec<(String, String, String, String)> {
    let mut out = Vec::new();
    for pct in [25.0, 50.0, 75.0, 90.0] {
        for (name, obj) in [
            ("O1", Objective::O1 { alpha: pct }),
            ("O2", Objective::O2 { beta: pct }),
        ] {
            let sym = if name == "O1" { "α" } else { "β" };
            for t in tune_all(rows, obj) {
                let answer = match (t.chosen, t.closest) {
                    (Some(b), _) => format!("K2-{b}"),
                    (None, Some(c)) => format!("infeasible (closest K2-{c})"),
                    (None, None) => "infeasible".to_string(),
                };
                out.push((
                    format!("{name}, {sym} = {pct:.0}%"),
                    t.op,
                    t.occupancy,
                    answer,
                ));
            }
        }
    }
    out
}
