//! Workloads whose phases change the best bound, so that no single static
//! bound is best: the operation switching mid-run, RT load that stops and
//! comes back, and a drive writing into garbage collection. Each phase has
//! its own jobs (the K2 set-up's three background jobs and the RT job,
//! started and stopped with `startdelay` and `runtime`), so each phase's RT
//! p99.9 and bandwidth are measured on their own.

use super::{bound_at, static_schedulers, Plan, Row};
use crate::k2::runner::RunPoint;
use crate::point::PointFigures;
use serde::Serialize;
use ssdlab_sim::ssd::precondition::PreconditionMode;
use std::fmt::Write as _;

/// The objective every phase workload is scored on: O1 at α = 50 %, per
/// phase against `none` in the same phase.
pub const ALPHA_PCT: u32 = 50;

pub fn adaptive_spec() -> String {
    format!("k2-adaptive:objective=o1,alpha={ALPHA_PCT}")
}

/// One phase: its background operation and whether the RT job runs.
#[derive(Debug, Clone, Copy)]
pub struct Phase {
    pub name: &'static str,
    pub op: &'static str,
    pub rt: bool,
    pub start_s: u64,
    pub dur_s: u64,
}

#[derive(Debug, Clone)]
pub struct Workload {
    pub name: &'static str,
    pub what: &'static str,
    pub occupancy: f64,
    pub phases: Vec<Phase>,
}

pub fn workloads(plan: &Plan) -> Vec<Workload> {
    let t = plan.phase_s;
    let seq = |specs: &[(&'static str, &'static str, bool, u64)]| {
        let mut start = 0;
        specs
            .iter()
            .map(|&(name, op, rt, dur_s)| {
                let p = Phase {
                    name,
                    op,
                    rt,
                    start_s: start,
                    dur_s,
                };
                start += dur_s;
                p
            })
            .collect::<Vec<_>>()
    };
    // Random writes on a drive written in order with its spare free run
    // into GC about 30 s in (docs/k2-study.md): phases long enough for one
    // on each side of it.
    let gc_phase = t.max(45);
    vec![
        Workload {
            name: "op-switch",
            what: "random reads, then random writes (partially occupied)",
            occupancy: 0.5,
            phases: seq(&[("read", "randread", true, t), ("write", "randwrite", true, t)]),
        },
        Workload {
            name: "rt-pause",
            what: "random reads throughout; the RT job stops for the middle third (partially occupied)",
            occupancy: 0.5,
            phases: seq(&[
                ("rt-on", "randread", true, t),
                ("rt-off", "randread", false, t),
                ("rt-back", "randread", true, t),
            ]),
        },
        Workload {
            name: "into-gc",
            what: "random writes on a fully written drive with its spare free, into garbage collection",
            occupancy: 1.0,
            phases: seq(&[
                ("before-gc", "randwrite", true, gc_phase),
                ("gc", "randwrite", true, gc_phase),
            ]),
        },
    ]
}

/// The job file: per phase, the three background jobs and (if on) the RT
/// job of the K2 set-up.
pub fn job_text(w: &Workload) -> String {
    let mut t = format!(
        "; k2-adaptive phase workload '{}': {}\n[global]\nioengine=libaio\ndirect=1\ncpumask=8\nbs=4k\ntime_based\n",
        w.name, w.what
    );
    for p in &w.phases {
        let timing = format!("startdelay={}s\nruntime={}s\n", p.start_s, p.dur_s);
        for (i, off) in ["0%", "15%", "30%"].iter().enumerate() {
            let _ = write!(
                t,
                "\n[bg{}-{}]\nrw={}\niodepth=32\nprioclass=2\noffset={off}\nsize=15%\n{timing}",
                i + 1,
                p.name,
                p.op
            );
        }
        if p.rt {
            let _ = write!(
                t,
                "\n[rt-{}]\nrw={}\nioengine=psync\nprioclass=1\nprio=0\nthinktime=2000\noffset=45%\nsize=5%\n{timing}",
                p.name, p.op
            );
        }
    }
    t
}

pub struct PhasePoint {
    pub workload: Workload,
    pub run: RunPoint,
}

pub fn points(plan: &Plan) -> Vec<PhasePoint> {
    let mut out = Vec::new();
    for w in workloads(plan) {
        let total_s: u64 = w.phases.iter().map(|p| p.dur_s).sum();
        for scheduler in static_schedulers().into_iter().chain([adaptive_spec()]) {
            out.push(PhasePoint {
                run: RunPoint {
                    job_name: format!("k2-adaptive phase workload {}", w.name),
                    job_text: job_text(&w),
                    scheduler,
                    occupancy: w.occupancy,
                    precondition: PreconditionMode::Fill,
                    seed_offset: 0,
                    // About what a K2-study second costs, for the order only.
                    cost: total_s * 100,
                },
                workload: w.clone(),
            });
        }
    }
    out
}

pub fn rows(runs: &[(&PhasePoint, &PointFigures)]) -> Vec<Row> {
    let mut out = Vec::new();
    for (p, f) in runs {
        let w = &p.workload;
        for ph in &w.phases {
            let suffix = format!("-{}", ph.name);
            let bw: f64 = f
                .jobs
                .iter()
                .filter(|j| j.name.ends_with(&suffix))
                .map(|j| j.bw_mbs)
                .sum();
            let rt = f.job(&format!("rt{suffix}"));
            out.push(Row {
                section: "phases".into(),
                workload: w.name.into(),
                occupancy: if w.occupancy >= 1.0 {
                    "full"
                } else {
                    "partial"
                }
                .into(),
                scheduler: p.run.scheduler.clone(),
                phase: ph.name.into(),
                rt_p999_us: rt.map_or(0.0, |j| j.clat_p999_us),
                rt_mean_us: rt.map_or(0.0, |j| j.clat_mean_us),
                bw_mbs: bw,
                final_bound: bound_at(f, ph.start_s + ph.dur_s),
            });
        }
    }
    out
}

/// A scheduler on a phase workload, on the combined objective.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Score {
    pub workload: String,
    pub scheduler: String,
    /// Every RT phase's p99.9 within α of none's in the same phase (10 %
    /// measurement slack).
    pub feasible: bool,
    /// The worst phase's RT p99.9 over its limit.
    pub worst_over_limit: f64,
    /// Mean bandwidth over the whole run (MB/s).
    pub bw_mbs: f64,
}

pub fn score(rows: &[Row]) -> Vec<Score> {
    let mut out: Vec<Score> = Vec::new();
    for r in rows {
        let none = rows
            .iter()
            .find(|n| n.workload == r.workload && n.phase == r.phase && n.scheduler == "none");
        let ratio = match none {
            Some(n) if n.rt_p999_us > 0.0 => {
                r.rt_p999_us / (n.rt_p999_us * ALPHA_PCT as f64 / 100.0)
            }
            _ => 0.0,
        };
        match out
            .iter_mut()
            .find(|s| s.workload == r.workload && s.scheduler == r.scheduler)
        {
            Some(s) => {
                s.worst_over_limit = s.worst_over_limit.max(ratio);
                s.bw_mbs += r.bw_mbs;
            }
            None => out.push(Score {
                workload: r.workload.clone(),
                scheduler: r.scheduler.clone(),
                feasible: true,
                worst_over_limit: ratio,
                bw_mbs: r.bw_mbs,
            }),
        }
    }
    // Phases of a workload are equally long except into-gc's, which are
    // equal to each other: the mean of the phases' bandwidths is the run's.
    for s in &mut out {
        let n = rows
            .iter()
            .filter(|r| r.workload == s.workload && r.scheduler == s.scheduler)
            .count();
        s.bw_mbs /= n.max(1) as f64;
        s.feasible = s.worst_over_limit <= 1.1;
    }
    out
}

/// Whether k2-adaptive beats every static bound on `workload`: it is
/// feasible and moves more data than every feasible static bound.
pub fn adaptive_wins(scores: &[Score], workload: &str) -> bool {
    let of = |s: &Score| s.workload == workload;
    let Some(a) = scores
        .iter()
        .find(|s| of(s) && s.scheduler.starts_with("k2-adaptive"))
    else {
        return false;
    };
    a.feasible
        && scores
            .iter()
            .filter(|s| of(s) && s.scheduler.starts_with("k2:"))
            .all(|s| !s.feasible || s.bw_mbs < a.bw_mbs)
}
