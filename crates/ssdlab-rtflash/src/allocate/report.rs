//! The reported allocation: clusters with their chips, space, GC cost,
//! utilisation and server bandwidth; every task's demand, worst-case
//! latency (the cluster's synchronous busy period) split into own I/O,
//! other tasks' I/O, GC and blocking; and the verdict.

use super::{Group, Plan};
use crate::analysis::{check_cluster, streams, ClusterCheck};
use crate::demand::{ClusterSpace, JobDemand};
use crate::edf::{self, Stream};
use crate::taskset::{RtTask, TaskSet, TestKind};
use crate::tbs::{server_bandwidth_ppm, PPM};
use serde::Serialize;
use ssdlab_protocol::Ns;

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Allocation {
    pub approach: String,
    pub test: TestKind,
    pub schedulable: bool,
    /// Why not, naming the task and what failed.
    pub reason: Option<String>,
    pub note: Option<String>,
    pub clusters: Vec<ClusterReport>,
    /// In the order of the task-set file.
    pub tasks: Vec<TaskReport>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ClusterReport {
    pub chips: Vec<u32>,
    pub tasks: Vec<String>,
    /// A cluster of chips no RT task uses.
    pub nrt_only: bool,
    pub space: ClusterSpace,
    pub space_utilisation_ppm: u64,
    pub blocking_ns: Ns,
    /// `Σ c/T` per chip, ppm rounded up.
    pub rt_utilisation_ppm: u64,
    /// `Σ c/D + B/min D`, ppm rounded up (0 without tasks).
    pub density_ppm: u64,
    pub server_bandwidth_ppm: u64,
    pub busy_period_ns: Option<Ns>,
    pub schedulable: bool,
    pub reason: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TaskReport {
    pub name: String,
    /// Index into `clusters`; None for a task the approach could not place.
    pub cluster: Option<usize>,
    pub chips: Vec<u32>,
    pub period_ns: Ns,
    pub deadline_ns: Ns,
    /// Per-chip demand of one job.
    pub demand: Option<JobDemand>,
    /// The cluster's busy period; None when it does not end.
    pub worst_case_latency_ns: Option<Ns>,
    pub breakdown: Option<LatencyBreakdown>,
    /// The busy-period bound is at most the deadline (looser than EDF-NP).
    pub within_deadline: bool,
}

/// A worst-case latency in its parts; they add up to it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct LatencyBreakdown {
    pub own_io_ns: Ns,
    pub other_io_ns: Ns,
    pub gc_ns: Ns,
    pub blocking_ns: Ns,
}

pub(super) fn build(ts: &TaskSet, approach: &str, plan: &Plan) -> Allocation {
    let mut clusters = Vec::new();
    let mut tasks: Vec<TaskReport> = ts.tasks.iter().map(unplaced).collect();
    let mut next_chip = 0u32;
    for g in &plan.groups {
        let chips: Vec<u32> = (next_chip..next_chip + g.chips).collect();
        next_chip += g.chips;
        let check = check_cluster(ts, &g.tasks, g.chips);
        let s = streams(ts, &g.tasks, &check.demands);
        let bp = edf::busy_period(&s, check.blocking_ns);
        let view = View {
            index: clusters.len(),
            chips: &chips,
            check: &check,
            streams: &s,
            busy_period_ns: bp,
        };
        for (pos, &t) in g.tasks.iter().enumerate() {
            tasks[t] = view.task_report(&ts.tasks[t], pos);
        }
        clusters.push(cluster_report(ts, g, chips, &check, &s, bp));
    }
    if next_chip < ts.platform.chips {
        clusters.push(nrt_only(ts, next_chip));
    }
    Allocation {
        approach: approach.to_string(),
        test: ts.analysis.test,
        schedulable: plan.failure.is_none(),
        reason: plan.failure.clone(),
        note: plan.note.clone(),
        clusters,
        tasks,
    }
}

fn unplaced(t: &RtTask) -> TaskReport {
    TaskReport {
        name: t.name.clone(),
        cluster: None,
        chips: Vec::new(),
        period_ns: t.period_ns,
        deadline_ns: t.deadline_ns,
        demand: None,
        worst_case_latency_ns: None,
        breakdown: None,
        within_deadline: false,
    }
}

/// One analysed cluster, as its tasks' reports need it.
struct View<'a> {
    index: usize,
    chips: &'a [u32],
    check: &'a ClusterCheck,
    streams: &'a [Stream],
    busy_period_ns: Option<Ns>,
}

impl View<'_> {
    fn task_report(&self, task: &RtTask, pos: usize) -> TaskReport {
        let demand = self.check.demands.get(pos).copied();
        let bp = self.busy_period_ns.filter(|_| demand.is_some());
        let b = self.check.blocking_ns;
        TaskReport {
            cluster: Some(self.index),
            chips: self.chips.to_vec(),
            demand,
            worst_case_latency_ns: bp,
            breakdown: bp.map(|bp| breakdown(&self.check.demands, self.streams, pos, bp, b)),
            within_deadline: bp.is_some_and(|bp| bp <= task.deadline_ns),
            ..unplaced(task)
        }
    }
}

/// The busy period `bp` split for the task at `pos`: every job released in
/// it contributes its own I/O and its GC rounds.
fn breakdown(d: &[JobDemand], s: &[Stream], pos: usize, bp: Ns, b: Ns) -> LatencyBreakdown {
    let mut out = LatencyBreakdown {
        own_io_ns: 0,
        other_io_ns: 0,
        gc_ns: 0,
        blocking_ns: b,
    };
    for (k, (d, s)) in d.iter().zip(s).enumerate() {
        let jobs = edf::jobs_in(s, bp);
        let io = jobs.saturating_mul(d.io_ns());
        if k == pos {
            out.own_io_ns = io;
        } else {
            out.other_io_ns = out.other_io_ns.saturating_add(io);
        }
        out.gc_ns = out.gc_ns.saturating_add(jobs.saturating_mul(d.gc_ns));
    }
    out
}

fn cluster_report(
    ts: &TaskSet,
    g: &Group,
    chips: Vec<u32>,
    check: &ClusterCheck,
    s: &[Stream],
    bp: Option<Ns>,
) -> ClusterReport {
    let rt_utilisation_ppm = edf::utilisation_ppb(s).div_ceil(1_000);
    let density_ppm = match check.density_ppb {
        u128::MAX => u64::MAX,
        d => u64::try_from(d.div_ceil(1_000)).unwrap_or(u64::MAX),
    };
    ClusterReport {
        chips,
        tasks: g.tasks.iter().map(|&t| ts.tasks[t].name.clone()).collect(),
        nrt_only: false,
        space: check.space,
        space_utilisation_ppm: check.space.utilisation_ppm(),
        blocking_ns: check.blocking_ns,
        rt_utilisation_ppm: u64::try_from(rt_utilisation_ppm).unwrap_or(u64::MAX),
        density_ppm,
        server_bandwidth_ppm: if check.demands.is_empty() {
            0
        } else {
            server_bandwidth_ppm(s, check.blocking_ns)
        },
        busy_period_ns: bp.filter(|_| !check.demands.is_empty()),
        schedulable: check.schedulable(),
        reason: check.verdict.clone().err(),
    }
}

fn nrt_only(ts: &TaskSet, first_chip: u32) -> ClusterReport {
    let p = &ts.platform;
    let n = p.chips - first_chip;
    let space = ClusterSpace::new(p, n, 0, ts.nrt_footprint_pages());
    ClusterReport {
        chips: (first_chip..p.chips).collect(),
        tasks: Vec::new(),
        nrt_only: true,
        space,
        space_utilisation_ppm: space.utilisation_ppm(),
        blocking_ns: p.blocking_ns(),
        rt_utilisation_ppm: 0,
        density_ppm: 0,
        server_bandwidth_ppm: PPM,
        busy_period_ns: None,
        schedulable: true,
        reason: None,
    }
}
