//! `k2-adaptive`: K2's staging queues and strict RT priority (`k2`), with
//! the queue-length bound chosen at run time for an objective instead of
//! fixed: the future work Park and Lee name ("Analysis of the K2 scheduler
//! for a real-time system with an SSD", 2021, Section 6). The control law
//! is in `control.rs`; docs/model.md ("k2-adaptive") gives it with its
//! parameters and its stability argument.

mod control;

use super::k2::{self, K2};
use super::{
    IoClass, MergeKind, Request, Scheduler, SchedulerEntry, Tunable, TunableKind, Tunables,
};
use control::{Controller, Done, Objective, Params};
use ssdlab_protocol::Ns;

const OBJECTIVES: &[&str] = &["o1", "o2", "target"];

const TUNABLES: &[Tunable] = &[
    Tunable {
        name: "objective",
        kind: TunableKind::Choice { names: OBJECTIVES },
        default: 0,
        help: "o1: most bandwidth with RT p99.9 ≤ alpha % of unbounded; o2: least RT p99.9 with bandwidth ≥ beta % of unbounded; target: most bandwidth with RT p99.9 ≤ target_p999",
    },
    Tunable {
        name: "alpha",
        kind: TunableKind::Int { min: 1, max: 100 },
        default: 50,
        help: "objective=o1 only: the RT p99.9 limit, % of the unbounded p99.9",
    },
    Tunable {
        name: "beta",
        kind: TunableKind::Int { min: 1, max: 100 },
        default: 50,
        help: "objective=o2 only: the bandwidth floor, % of the unbounded bandwidth",
    },
    Tunable {
        name: "target_p999",
        kind: TunableKind::Duration {
            min: 1_000,
            max: 10_000_000_000,
            unit_ns: 1_000,
        },
        default: 1_000_000,
        help: "objective=target only: the RT p99.9 limit (bare numbers in µs)",
    },
    Tunable {
        name: "max_bound",
        kind: TunableKind::Int { min: 1, max: 2048 },
        default: 64,
        help: "largest finite bound of the ladder 1, 2, 4, …; above it, unbounded",
    },
    Tunable {
        name: "samples",
        kind: TunableKind::Int { min: 50, max: 100_000 },
        default: 300,
        help: "RT completions a bound must pass before it is taken",
    },
    Tunable {
        name: "margin",
        kind: TunableKind::Int { min: 50, max: 100 },
        default: 90,
        help: "a bound is taken only if its RT latencies stay under this % of the limit",
    },
    k2::RT_LEVELS,
    k2::MERGE,
];

pub const ENTRY: SchedulerEntry = SchedulerEntry {
    name: "k2-adaptive",
    help: "K2 choosing its own bound at run time for an objective (O1, O2 or an absolute RT p99.9 target)",
    tunables: TUNABLES,
    make: |t| Box::new(K2Adaptive::new(t)),
};

pub struct K2Adaptive {
    k2: K2,
    ctl: Controller,
}

impl K2Adaptive {
    pub fn new(t: &Tunables) -> Self {
        let objective = match t.get("objective") {
            0 => Objective::O1 {
                alpha_pct: t.get("alpha") as u32,
            },
            1 => Objective::O2 {
                beta_pct: t.get("beta") as u32,
            },
            _ => Objective::Target {
                p999_ns: t.get("target_p999") as Ns,
            },
        };
        let params = Params::new(
            objective,
            t.get("max_bound") as u32,
            t.get("samples") as usize,
            t.get("margin") as u32,
        );
        let ctl = Controller::new(params);
        K2Adaptive {
            k2: K2::with(
                ctl.bound(),
                t.get("rt_levels") as usize,
                t.get("merge") != 0,
            ),
            ctl,
        }
    }
}

impl Scheduler for K2Adaptive {
    fn name(&self) -> &'static str {
        "k2-adaptive"
    }

    fn insert(&mut self, rq: Request, now: Ns) {
        if rq.prio.class == IoClass::Rt {
            self.ctl.on_rt_insert(now);
        }
        self.k2.insert(rq, now);
    }

    fn dispatch(&mut self, now: Ns) -> Option<Request> {
        self.k2.set_max_inflight(self.ctl.bound());
        let rq = self.k2.dispatch(now);
        if rq.is_some() {
            self.ctl.on_dispatch(now);
        }
        rq
    }

    fn has_work(&self) -> bool {
        self.k2.inflight() < self.ctl.bound() && self.k2.queued() > 0
    }

    fn completed(&mut self, rq: &Request, now: Ns) {
        self.k2.completed(rq, now);
        let done = Done {
            rt: rq.prio.class == IoClass::Rt,
            dir: rq.dir,
            bytes: rq.bytes,
            submit_ns: rq.submit_ns,
            insert_ns: rq.insert_ns,
            dispatch_ns: rq.dispatch_ns,
        };
        self.ctl.on_complete(&done, self.k2.inflight(), now);
    }

    fn bio_merge(&mut self, bio: &Request, max_bytes: u32) -> Option<(u64, MergeKind)> {
        self.k2.bio_merge(bio, max_bytes)
    }

    /// The control tick, while there is I/O to control (an idle
    /// scheduler asks for no timer, so a finished run ends).
    fn next_timer(&self) -> Option<Ns> {
        (self.k2.inflight() > 0 || self.k2.queued() > 0).then(|| self.ctl.next_tick())
    }

    fn on_timer(&mut self, now: Ns) {
        if now >= self.ctl.next_tick() {
            self.ctl.on_tick(now);
        }
    }

    fn queued(&self) -> usize {
        self.k2.queued()
    }

    fn counters(&self) -> Vec<(&'static str, u64)> {
        let c = &self.ctl.counts;
        let (ref_p999, ref_bw) = self.ctl.reference();
        vec![
            ("bound", self.ctl.bound() as u64),
            ("reference_p999_ns", ref_p999),
            ("reference_bw_bytes", ref_bw),
            ("probes", c.probes),
            ("level_changes", c.level_changes),
            ("steps_down", c.steps_down),
            ("trials", c.trials),
            ("trials_failed", c.trials_failed),
            ("reprobes", c.reprobes),
            ("sample_probes", c.sample_probes),
            ("infeasible", c.infeasible),
            ("opened", c.opened),
        ]
    }

    fn gauges(&self) -> Vec<(&'static str, u64)> {
        vec![("k2_bound", self.ctl.bound() as u64)]
    }
}
