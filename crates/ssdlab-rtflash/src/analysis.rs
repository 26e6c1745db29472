//! One cluster checked: its space and GC cost, each task's per-chip job
//! demand, and the chosen test's verdict with a reason that names the task
//! and what failed. The allocators ask this question many times; it does
//! no allocation beyond a few small vectors.

use super::demand::{job_demand, ClusterSpace, JobDemand};
use super::edf::{self, Miss, Stream};
use super::taskset::{TaskSet, TestKind};
use ssdlab_protocol::Ns;

/// A cluster of `chips` chips holding `tasks` (indices into the task set).
#[derive(Debug, Clone)]
pub struct ClusterCheck {
    pub space: ClusterSpace,
    /// Per-chip demand of one job of each task, in the order of `tasks`
    /// (empty when the space is infeasible).
    pub demands: Vec<JobDemand>,
    pub blocking_ns: Ns,
    /// `Σ c/D + B/min D` in ppb; `u128::MAX` when infeasible.
    pub density_ppb: u128,
    pub verdict: Result<(), String>,
}

impl ClusterCheck {
    pub fn schedulable(&self) -> bool {
        self.verdict.is_ok()
    }
}

/// The space of a cluster of `chips` chips holding `tasks` and its share of
/// the NRT region.
pub fn cluster_space(ts: &TaskSet, tasks: &[usize], chips: u32) -> ClusterSpace {
    let rt_pages = tasks
        .iter()
        .map(|&i| ts.tasks[i].footprint_pages)
        .fold(0u64, u64::saturating_add);
    ClusterSpace::new(&ts.platform, chips, rt_pages, ts.nrt_footprint_pages())
}

/// Checks `tasks` on a cluster of `chips` chips with the task set's test.
pub fn check_cluster(ts: &TaskSet, tasks: &[usize], chips: u32) -> ClusterCheck {
    let p = &ts.platform;
    let space = cluster_space(ts, tasks, chips);
    let blocking_ns = p.blocking_ns();
    let infeasible = |why: String| ClusterCheck {
        space,
        demands: Vec::new(),
        blocking_ns,
        density_ppb: u128::MAX,
        verdict: Err(why),
    };
    if chips == 0 {
        return infeasible("a cluster needs at least one chip".into());
    }
    if !space.feasible() && !tasks.is_empty() {
        return infeasible(too_full(ts, &space));
    }
    let demands: Option<Vec<JobDemand>> = tasks
        .iter()
        .map(|&i| {
            let t = &ts.tasks[i];
            job_demand(p, &space, t.read_pages, t.write_pages)
        })
        .collect();
    let Some(demands) = demands else {
        return infeasible(too_full(ts, &space));
    };
    let streams = streams(ts, tasks, &demands);
    let density_ppb = edf::density_ppb(&streams, blocking_ns);
    let verdict = run_test(ts, tasks, &streams, blocking_ns);
    ClusterCheck {
        space,
        demands,
        blocking_ns,
        density_ppb,
        verdict,
    }
}

/// The tasks' job streams on one chip of the cluster.
pub fn streams(ts: &TaskSet, tasks: &[usize], demands: &[JobDemand]) -> Vec<Stream> {
    tasks
        .iter()
        .zip(demands)
        .map(|(&i, d)| Stream {
            cost_ns: d.total_ns(),
            deadline_ns: ts.tasks[i].deadline_ns,
            period_ns: ts.tasks[i].period_ns,
        })
        .collect()
}

fn too_full(ts: &TaskSet, space: &ClusterSpace) -> String {
    format!(
        "{} chip(s) holding {} pages are {} full: above 1 − 1/{} a GC round may free no page",
        space.chips,
        space.used_pages,
        percent(space.utilisation_ppm()),
        ts.platform.pages_per_block
    )
}

fn run_test(ts: &TaskSet, tasks: &[usize], streams: &[Stream], b: Ns) -> Result<(), String> {
    let name = |k: usize| ts.tasks[tasks[k]].name.clone();
    match ts.analysis.test {
        TestKind::EdfNp => edf::edf_np_test(streams, b).map_err(|m| miss_reason(m, &name)),
        TestKind::Density => {
            let d = edf::density_ppb(streams, b);
            if d <= edf::PPB {
                Ok(())
            } else {
                Err(format!("density Σc/D + B/min D = {} exceeds 1", ppb(d)))
            }
        }
        TestKind::BusyPeriod => busy_period_verdict(streams, b, &name),
    }
}

fn busy_period_verdict(
    streams: &[Stream],
    b: Ns,
    name: &dyn Fn(usize) -> String,
) -> Result<(), String> {
    let Some(bp) = edf::busy_period(streams, b) else {
        return Err(format!(
            "utilisation {} reaches 1: the busy period never ends",
            ppb(edf::utilisation_ppb(streams))
        ));
    };
    match streams.iter().enumerate().find(|(_, s)| s.deadline_ns < bp) {
        None => Ok(()),
        Some((k, s)) => Err(format!(
            "task '{}': busy period {} exceeds its deadline {}",
            name(k),
            ms(bp),
            ms(s.deadline_ns)
        )),
    }
}

fn miss_reason(m: Miss, name: &dyn Fn(usize) -> String) -> String {
    match m {
        Miss::Overload { utilisation_ppb } => format!(
            "utilisation {} reaches 1: demand grows without bound",
            ppb(utilisation_ppb)
        ),
        Miss::Deadline {
            stream,
            at_ns,
            demand_ns,
        } => format!(
            "task '{}': the demand due by its deadline at {} is {} (blocking included)",
            name(stream),
            ms(at_ns),
            ms(u64::try_from(demand_ns).unwrap_or(u64::MAX))
        ),
        Miss::TooManyPoints => format!(
            "more than {} deadlines to test: utilisation too close to 1",
            edf::MAX_TEST_POINTS
        ),
    }
}

/// `12.345 ms`.
pub fn ms(ns: Ns) -> String {
    format!("{}.{:03} ms", ns / 1_000_000, (ns / 1_000) % 1_000)
}

/// A ppm fraction as `61.2%`.
pub fn percent(ppm: u64) -> String {
    format!("{}.{}%", ppm / 10_000, (ppm / 1_000) % 10)
}

fn ppb(x: u128) -> String {
    format!("{}.{:03}", x / edf::PPB, (x / 1_000_000) % 1_000)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::RtTask;

    fn task(name: &str, period_ms: u64, write_pages: u64, footprint: u64) -> RtTask {
        RtTask {
            name: name.into(),
            period_ns: period_ms * 1_000_000,
            deadline_ns: period_ms * 1_000_000,
            read_pages: 0,
            write_pages,
            footprint_pages: footprint,
            offset_ns: 0,
        }
    }

    fn set(tasks: Vec<RtTask>) -> TaskSet {
        TaskSet {
            platform: Default::default(),
            tasks,
            nrt: None,
            analysis: Default::default(),
        }
    }

    #[test]
    fn a_half_full_chip_and_its_verdicts() {
        // Half of one chip: u = 64, g = 18.3 ms; 16 pages: 3.84 ms + 1 round.
        let ts = set(vec![task("a", 30, 16, 130_944)]);
        let c = check_cluster(&ts, &[0], 1);
        assert_eq!(c.demands[0].total_ns(), 22_140_000);
        // (22.14 + 0.7) / 30.
        assert_eq!(c.density_ppb, 761_333_334);
        assert!(c.schedulable());
        let tight = set(vec![task("a", 22, 16, 130_944)]);
        let e = check_cluster(&tight, &[0], 1).verdict.unwrap_err();
        assert!(e.contains("utilisation 1.006"), "{e}");
    }

    #[test]
    fn a_full_chip_is_refused_with_its_reason() {
        let ts = set(vec![task("a", 30, 16, 261_000)]);
        let c = check_cluster(&ts, &[0], 1);
        let e = c.verdict.unwrap_err();
        assert!(e.contains("99.6% full"), "{e}");
        // Two chips halve it.
        assert!(check_cluster(&ts, &[0], 2).schedulable());
    }

    #[test]
    fn formats() {
        assert_eq!(ms(22_140_000), "22.140 ms");
        assert_eq!(percent(612_345), "61.2%");
    }
}
