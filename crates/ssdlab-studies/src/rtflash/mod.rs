//! `reproduce rt-flash`: the study of Kim et al., "Dynamic Chip Clustering
//! and Task Allocation for Real-time Flash" (DAC 2021), in four parts:
//!
//! 1. two case studies (4 chips, 4 RT tasks, 1 NRT load) simulated under
//!    Clustering-BFD+TBS, Global+BG, Full-Isolation+BG and the ablations
//!    Clustering-BFD+BG and Global+TBS, and the two baselines again on an
//!    ordinary SSD, on the analysis' chip model and again on the full SSD
//!    model of their preset (`case_study.rs`);
//! 2. the motivation figure: each case-study task's worst-case latency in
//!    its parts under the shared, fully isolated and clustered layouts;
//! 3. schedulability ratio against normalised demand for 4, 8 and 16 chips
//!    in three task-set families (`curves.rs`);
//! 4. the bandwidth study: accepted random sets simulated with a saturating
//!    NRT load, on the chip model and on the SSD model (`curves.rs`);
//! 5. the analysis checked against the SSD model: accepted random sets
//!    simulated on seed004's full SSD model (`ssd_check.rs`).
//!
//! Every point is cached under a hash of what decides it, so a repeated or
//! interrupted run recomputes only what is missing; points run in parallel.

mod case_study;
pub mod command;
mod curves;
pub mod findings;
mod points;
mod report;
mod ssd_check;

pub use case_study::{CaseStudy, Model, Variant, CASE_STUDIES, VARIANTS};
pub use curves::{Family, FAMILIES};
pub use points::run_config;
pub use report::write_report;

use crate::runner::{run_points, StudyPoint};
use serde::{Deserialize, Serialize};
use ssdlab_sim::error::InputError;
use std::path::PathBuf;

/// Bumped whenever the simulation's model changes what a point computes,
/// so that cached points of an older model are not reused (2: every chip
/// preconditioned to GC steady state; the ordinary-SSD device; 3: part 4
/// also runs Clustering-BFD with its leftover chips spread; 4: a random
/// task's footprint holds at least one job's pages).
pub(crate) const MODEL_REVISION: u32 = 4;

/// How much of the study to run.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Plan {
    /// Simulated seconds of each case-study run.
    pub case_seconds: u64,
    /// Random task sets per schedulability point.
    pub sets_per_point: usize,
    /// Demand levels `U/m`: 0.10, 0.10 + step, …, 1.00.
    pub demand_step: f64,
    /// Accepted sets simulated per bandwidth point, and their seconds.
    pub bandwidth_sets: usize,
    pub bandwidth_seconds: u64,
    /// Accepted sets per approach and demand level simulated on the SSD
    /// model (part 5), and their seconds.
    pub check_sets: usize,
    pub check_seconds: u64,
}

impl Plan {
    /// About a minute on two cores.
    pub const QUICK: Plan = Plan {
        case_seconds: 20,
        sets_per_point: 200,
        demand_step: 0.1,
        bandwidth_sets: 3,
        bandwidth_seconds: 10,
        check_sets: 8,
        check_seconds: 3,
    };
    /// The paper's scale: 1,000 sets per point, demand in steps of 0.05·m,
    /// a minute of simulated time per run.
    pub const PAPER: Plan = Plan {
        case_seconds: 60,
        sets_per_point: 1000,
        demand_step: 0.05,
        bandwidth_sets: 10,
        bandwidth_seconds: 60,
        check_sets: 40,
        check_seconds: 10,
    };

    /// The demand levels `U/m` of the curves.
    pub fn demand_levels(&self) -> Vec<f64> {
        let steps = (0.9 / self.demand_step).round() as usize;
        (0..=steps)
            .map(|i| ((0.1 + i as f64 * self.demand_step) * 1000.0).round() / 1000.0)
            .collect()
    }
}

pub struct StudyOptions {
    pub out: PathBuf,
    pub threads: usize,
    pub seed: u64,
    pub plan: Plan,
    /// Where the points not in the cache run instead of local threads.
    pub remote: Option<crate::runner::Remote>,
}

/// One figure of the study, in tidy form: which part, which approach (with
/// its NRT service), where (chips, task-set family, demand, task), what
/// (metric) and its value.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Row {
    pub part: String,
    pub approach: String,
    pub chips: u32,
    pub family: String,
    pub demand: f64,
    pub task: String,
    pub metric: String,
    pub value: f64,
}

impl Row {
    fn new(part: &str, approach: &str, metric: &str, value: f64) -> Row {
        Row {
            part: part.into(),
            approach: approach.into(),
            chips: 0,
            family: String::new(),
            demand: 0.0,
            task: String::new(),
            metric: metric.into(),
            value,
        }
    }
}

/// A unit of work: the configuration that decides it, its cost and what
/// it computes (from the configuration alone, `points.rs`).
pub(crate) type Point = StudyPoint<'static, Vec<Row>>;

/// The point of a configuration: run by [`run_config`] wherever it runs.
pub(crate) fn point(config: serde_json::Value, cost: u64) -> Point {
    Point {
        config: config.clone(),
        cost,
        compute: Box::new(move || run_config(&config)),
    }
}

/// Runs the study: every point not yet in `out/cache`. Returns the rows in
/// plan order and how many points were computed.
pub fn run(
    opts: &StudyOptions,
    progress: &(dyn Fn(usize, usize) + Sync),
) -> Result<(Vec<Row>, usize), InputError> {
    let mut points = case_study::points(opts)?;
    points.extend(curves::points(opts));
    points.extend(ssd_check::points(opts));
    let cache = opts.out.join("cache");
    let (rows, computed) = run_points(
        &points,
        &cache,
        opts.threads,
        opts.remote.as_ref(),
        progress,
    )?;
    Ok((rows.into_iter().flatten().collect(), computed))
}

/// The study's points for `ssdlab.sweep`: (labels, configuration), the
/// labels the configuration's part, approach, family, chips and demand.
pub(crate) fn grid(
    paper: bool,
    seed: u64,
    o: crate::study_config::GridOverrides,
) -> Result<Vec<(serde_json::Value, serde_json::Value)>, InputError> {
    let mut plan = if paper { Plan::PAPER } else { Plan::QUICK };
    plan.sets_per_point = o.sets.unwrap_or(plan.sets_per_point);
    plan.check_sets = o.check_sets.unwrap_or(plan.check_sets);
    if let Some(s) = o.seconds {
        (
            plan.case_seconds,
            plan.bandwidth_seconds,
            plan.check_seconds,
        ) = (s, s, s);
    }
    let opts = StudyOptions {
        out: PathBuf::new(),
        threads: 1,
        seed,
        plan,
        remote: None,
    };
    let mut points = case_study::points(&opts)?;
    points.extend(curves::points(&opts));
    points.extend(ssd_check::points(&opts));
    Ok(points
        .into_iter()
        .map(|p| {
            let mut labels = serde_json::Map::new();
            for k in ["part", "approach", "family", "chips", "demand"] {
                if let Some(v) = p.config.get(k) {
                    labels.insert(k.into(), v.clone());
                }
            }
            (serde_json::Value::Object(labels), p.config)
        })
        .collect())
}

/// Mixes a seed with the numbers that name a point.
pub(crate) fn point_seed(seed: u64, parts: &[u64]) -> u64 {
    parts.iter().fold(seed ^ 0x0005_EED0_FDAC_2021, |h, &p| {
        (h ^ p).wrapping_mul(0x9E37_79B9_7F4A_7C15).rotate_left(29)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn demand_levels_cover_a_tenth_to_one() {
        assert_eq!(Plan::QUICK.demand_levels().len(), 10);
        let paper = Plan::PAPER.demand_levels();
        assert_eq!(paper.len(), 19);
        assert_eq!((paper[0], paper[18]), (0.1, 1.0));
        assert_eq!(paper[1], 0.15);
    }
}
