//! The static cells: each operation × occupancy of the K2 study, the
//! static sweep (none, K2-1 … K2-64) and k2-adaptive for O1 and O2 at
//! α, β ∈ {25, 50, 75}; the oracle is the best static bound for the same
//! objective, read off the same sweep.

use super::{bound_at, static_schedulers, Plan, Row, PCTS};
use crate::k2::grid::{self, Point};
use crate::k2::results::OPS;
use crate::k2::runner::RunPoint;
use crate::point::PointFigures;
use serde::Serialize;

pub struct CellPoint {
    pub op: &'static str,
    pub occupancy: &'static str,
    pub runtime_s: u64,
    pub run: RunPoint,
}

/// One objective k2-adaptive runs for: O1 (RT p99.9 ≤ `pct` % of none's)
/// or O2 (bandwidth ≥ `pct` % of none's).
#[derive(Debug, Clone, Copy)]
pub struct Goal {
    pub o1: bool,
    pub pct: u32,
}

impl Goal {
    pub fn label(&self) -> String {
        match self.o1 {
            true => format!("O1 α={}", self.pct),
            false => format!("O2 β={}", self.pct),
        }
    }

    /// The k2-adaptive spec string that pursues it.
    pub fn scheduler(&self) -> String {
        match self.o1 {
            true => format!("k2-adaptive:objective=o1,alpha={}", self.pct),
            false => format!("k2-adaptive:objective=o2,beta={}", self.pct),
        }
    }
}

/// The objectives of the cells: O1 then O2 at each of `PCTS`.
pub fn objectives() -> Vec<Goal> {
    [true, false]
        .into_iter()
        .flat_map(|o1| PCTS.iter().map(move |&pct| Goal { o1, pct }))
        .collect()
}

pub fn points(plan: &Plan) -> Vec<CellPoint> {
    let mut out = Vec::new();
    for occupancy in plan.occupancies() {
        let runtime_s = if occupancy == "full" {
            plan.full_runtime_s
        } else {
            plan.partial_runtime_s
        };
        for op in OPS {
            let adaptive = objectives().into_iter().map(|g| g.scheduler());
            for scheduler in static_schedulers().into_iter().chain(adaptive) {
                let bound = scheduler
                    .strip_prefix("k2:max_inflight=")
                    .and_then(|b| b.parse().ok());
                let p = Point {
                    op: op.to_string(),
                    occupancy: occupancy.to_string(),
                    bound,
                    rep: 0,
                    runtime_s,
                };
                out.push(CellPoint {
                    op,
                    occupancy,
                    runtime_s,
                    run: RunPoint {
                        job_name: format!("examples/k2/{op}.fio"),
                        job_text: p.job_file(),
                        scheduler,
                        occupancy: p.occupancy_share(),
                        precondition: grid::PRECONDITION,
                        seed_offset: 0,
                        cost: p.cost(),
                    },
                });
            }
        }
    }
    out
}

pub fn rows(points: &[CellPoint], figures: &[PointFigures]) -> Vec<Row> {
    points
        .iter()
        .zip(figures)
        .map(|(p, f)| {
            let rt = f.job("rt").expect("the K2 job files have an rt job");
            Row {
                section: "cell".into(),
                workload: p.op.into(),
                occupancy: p.occupancy.into(),
                scheduler: p.run.scheduler.clone(),
                phase: "all".into(),
                rt_p999_us: rt.clat_p999_us,
                rt_mean_us: rt.clat_mean_us,
                bw_mbs: f.bw_mbs,
                final_bound: bound_at(f, p.runtime_s),
            }
        })
        .collect()
}

/// k2-adaptive against the oracle for one cell and objective.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Comparison {
    pub op: String,
    pub occupancy: String,
    pub objective: String,
    /// O1: the RT p99.9 limit (µs); O2: the bandwidth floor (MB/s).
    pub limit: f64,
    /// The best static bound, if any meets the constraint.
    pub oracle_bound: Option<u32>,
    pub oracle_rt_p999_us: f64,
    pub oracle_bw_mbs: f64,
    pub adaptive_rt_p999_us: f64,
    pub adaptive_bw_mbs: f64,
    pub adaptive_final_bound: u64,
    /// The constraint held within 10 % measurement slack.
    pub meets: bool,
    /// Objective value against the oracle's: bandwidth for O1, inverse
    /// p99.9 for O2 (1 = as good).
    pub value_ratio: f64,
}

/// The oracle and the adaptive run of every cell and objective.
pub fn compare(rows: &[Row]) -> Vec<Comparison> {
    let mut out = Vec::new();
    let cells: Vec<(&str, &str)> = {
        let mut c: Vec<(&str, &str)> = rows
            .iter()
            .map(|r| (r.workload.as_str(), r.occupancy.as_str()))
            .collect();
        c.dedup();
        c
    };
    for (op, occ) in cells {
        let of = |s: &str| {
            rows.iter()
                .find(|r| r.workload == op && r.occupancy == occ && r.scheduler == s)
        };
        let Some(none) = of("none") else { continue };
        let statics: Vec<(u32, &Row)> = super::BOUNDS
            .iter()
            .filter_map(|&b| of(&format!("k2:max_inflight={b}")).map(|r| (b, r)))
            .collect();
        for goal in objectives() {
            let Some(a) = of(&goal.scheduler()) else {
                continue;
            };
            out.push(one(op, occ, goal, none, &statics, a));
        }
    }
    out
}

fn one(
    op: &str,
    occ: &str,
    goal: Goal,
    none: &Row,
    statics: &[(u32, &Row)],
    a: &Row,
) -> Comparison {
    let (o1, pct) = (goal.o1, goal.pct as f64 / 100.0);
    let (limit, oracle) = if o1 {
        let limit = pct * none.rt_p999_us;
        let best = statics
            .iter()
            .filter(|(_, r)| r.rt_p999_us <= limit)
            .max_by(|x, y| x.1.bw_mbs.total_cmp(&y.1.bw_mbs).then(x.0.cmp(&y.0)));
        (limit, best)
    } else {
        let floor = pct * none.bw_mbs;
        let best = statics
            .iter()
            .filter(|(_, r)| r.bw_mbs >= floor)
            .min_by(|x, y| {
                x.1.rt_p999_us
                    .total_cmp(&y.1.rt_p999_us)
                    .then(x.0.cmp(&y.0))
            });
        (floor, best)
    };
    let meets = if o1 {
        a.rt_p999_us <= 1.1 * limit
    } else {
        a.bw_mbs * 1.1 >= limit
    };
    let value_ratio = match oracle {
        Some((_, r)) if o1 => a.bw_mbs / r.bw_mbs,
        Some((_, r)) => r.rt_p999_us / a.rt_p999_us,
        None => f64::NAN,
    };
    Comparison {
        op: op.into(),
        occupancy: occ.into(),
        objective: goal.label(),
        limit,
        oracle_bound: oracle.map(|(b, _)| *b),
        oracle_rt_p999_us: oracle.map_or(f64::NAN, |(_, r)| r.rt_p999_us),
        oracle_bw_mbs: oracle.map_or(f64::NAN, |(_, r)| r.bw_mbs),
        adaptive_rt_p999_us: a.rt_p999_us,
        adaptive_bw_mbs: a.bw_mbs,
        adaptive_final_bound: a.final_bound,
        meets,
        value_ratio,
    }
}
