//! The points of the study and how each one runs.

use super::results::{BOUNDS, OCCUPANCIES, OPS};
use serde::Serialize;
use ssdlab_sim::ssd::precondition::PreconditionMode;

/// The K2-study job files (examples/k2/), by operation.
pub fn job_text(op: &str) -> &'static str {
    match op {
        "read" => include_str!("../../jobs/k2/read.fio"),
        "randread" => include_str!("../../jobs/k2/randread.fio"),
        "write" => include_str!("../../jobs/k2/write.fio"),
        "randwrite" => include_str!("../../jobs/k2/randwrite.fio"),
        _ => unreachable!("unknown op {op}"),
    }
}

/// How long and how often: the paper's plan or a quick one.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Plan {
    pub partial_runtime_s: u64,
    pub full_runtime_s: u64,
    pub reps: u32,
}

impl Plan {
    /// Park and Lee: 100 s partially occupied, 1000 s fully occupied, five
    /// repetitions.
    pub const PAPER: Plan = Plan {
        partial_runtime_s: 100,
        full_runtime_s: 1000,
        reps: 5,
    };
    /// The paper's run length on the partially occupied SSD (the RT task's
    /// p99.9 rests on about 30 samples), one repetition, and shorter runs on
    /// the full one that still pass the fall of random writes once the
    /// spare is written (about 30 s in) by two minutes (see
    /// docs/k2-study.md).
    pub const QUICK: Plan = Plan {
        partial_runtime_s: 100,
        full_runtime_s: 150,
        reps: 1,
    };

    pub fn runtime_s(&self, occupancy: &str) -> u64 {
        if occupancy == "full" {
            self.full_runtime_s
        } else {
            self.partial_runtime_s
        }
    }
}

/// One repetition of one point of the grid.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Point {
    pub op: String,
    pub occupancy: String,
    pub bound: Option<u32>,
    pub rep: u32,
    pub runtime_s: u64,
}

impl Point {
    /// Relative wall time of the point, to start the longest first: its
    /// simulated seconds × what a simulated second of its operation and
    /// device state costs × the share of `none`'s requests its bound lets
    /// through. Both tables are measured: the wall seconds per point of
    /// `reproduce k2 --paper` on two cores (2026-11-25, docs/performance.md),
    /// where a fully occupied read at `none` took 153–169 s and a fully
    /// occupied random write 25–45 s. Only the order of the runs depends on
    /// it, never a result.
    pub fn cost(&self) -> u64 {
        // Wall milliseconds per simulated second at `none`.
        let per_s: u64 = match (self.op.as_str(), self.occupancy == "full") {
            ("read", _) => 160,
            ("randread", _) => 120,
            ("write", true) => 85,
            ("write", false) => 60,
            ("randwrite", true) => 28,
            // The partially occupied drive's random writes (the grid's
            // four operations are the only ones).
            _ => 66,
        };
        self.runtime_s * per_s * self.bound_share_permille() / 1000
    }

    /// The share of `none`'s request rate a bound lets through, per mille:
    /// a tight bound throttles reads (K2-1 moves a tenth of `none`'s
    /// requests), while writes, slower per request, barely notice.
    fn bound_share_permille(&self) -> u64 {
        match self.bound {
            Some(b) if !self.op.contains("write") && b < 16 => match b {
                8.. => 570,
                4.. => 330,
                2.. => 190,
                _ => 110,
            },
            _ => 1000,
        }
    }

    pub fn scheduler_spec(&self) -> String {
        match self.bound {
            Some(b) => format!("k2:max_inflight={b}"),
            None => "none".to_string(),
        }
    }

    /// Share of the logical space holding data: about half the blocks for
    /// the partially occupied SSD, all of it for the fully occupied one.
    pub fn occupancy_share(&self) -> f64 {
        if self.occupancy == "full" {
            1.0
        } else {
            0.5
        }
    }

    /// The job file with the plan's runtime.
    pub fn job_file(&self) -> String {
        job_text(&self.op).replace("runtime=100s", &format!("runtime={}s", self.runtime_s))
    }
}

/// How every point's device is prepared by default. Both occupancies
/// start from data written in order: the fully occupied drive with its
/// spare free, as idle-time GC leaves a drive between runs
/// (docs/k2-study.md). `--full-precondition` changes the full drive's.
pub const PRECONDITION: PreconditionMode = PreconditionMode::Fill;

/// The preconditioning a point of `occupancy` ("partial" or "full") runs
/// with when the fully occupied drive's is `full`.
pub fn precondition_of(occupancy: &str, full: PreconditionMode) -> PreconditionMode {
    if occupancy == "full" {
        full
    } else {
        PRECONDITION
    }
}

/// Reads a `--full-precondition` value: a mode of `ssdlab run
/// --precondition` other than `auto`, which at full occupancy is `steady`
/// under another name (and another cache key).
pub fn parse_full_precondition(s: &str) -> Result<PreconditionMode, String> {
    match s.parse()? {
        PreconditionMode::Auto => Err(
            "'auto' is 'steady' on a full drive: name the mode (fill, steady, rested, aged[:N], pts, random)"
                .into(),
        ),
        mode => Ok(mode),
    }
}

/// Every point of the plan for the chosen operations and device states.
pub fn points(plan: &Plan, ops: &[String], occupancies: &[String]) -> Vec<Point> {
    let mut out = Vec::new();
    for op in OPS
        .iter()
        .filter(|o| ops.is_empty() || ops.iter().any(|x| x == *o))
    {
        for occ in OCCUPANCIES
            .iter()
            .filter(|o| occupancies.is_empty() || occupancies.iter().any(|x| x == *o))
        {
            let bounds = std::iter::once(None).chain(BOUNDS.iter().map(|&b| Some(b)));
            for bound in bounds {
                for rep in 0..plan.reps {
                    out.push(Point {
                        op: op.to_string(),
                        occupancy: occ.to_string(),
                        bound,
                        rep,
                        runtime_s: plan.runtime_s(occ),
                    });
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn point(op: &str, occupancy: &str, bound: Option<u32>, runtime_s: u64) -> Point {
        Point {
            op: op.to_string(),
            occupancy: occupancy.to_string(),
            bound,
            rep: 0,
            runtime_s,
        }
    }

    #[test]
    fn the_paper_plan_starts_with_full_drive_reads_and_ends_with_tight_partial_ones() {
        let full_read = point("read", "full", None, 1000).cost();
        let full_write = point("write", "full", Some(64), 1000).cost();
        let full_randwrite = point("randwrite", "full", None, 1000).cost();
        let partial_read = point("read", "partial", None, 100).cost();
        let tight_read = point("read", "partial", Some(1), 100).cost();
        assert!(full_read > full_write && full_write > full_randwrite);
        assert!(full_randwrite > partial_read && partial_read > tight_read);
        // Writes barely notice the bound; reads do.
        assert_eq!(full_write, point("write", "full", Some(1), 1000).cost());
        assert!(point("read", "full", Some(1), 1000).cost() < full_read / 5);
    }
}
