//! `iolatency`: blk-iolatency, the kernel's per-cgroup latency target
//! (block/blk-iolatency.c, Documentation/admin-guide/cgroup-v2.rst
//! "io.latency"), in front of `none`.
//!
//! Each fio job is a cgroup of its own, all siblings under the root. A job
//! whose requests are RT class has the latency target `rt_target`; every
//! other job has `be_target` (0: no target). A group's latency is a bio's
//! time from submission to completion. Per group the kernel keeps windows of
//! `clamp(16 × target, 100 ms, 1 s)`; on a non-rotational device a window
//! misses when at least 10 % of its I/Os took longer than the target
//! (rotational: when their mean did). A miss lowers the parent's scale
//! cookie; every sibling with a looser target or none, which did more than
//! 5 % of the samples, sees the cookie fall on its next submission and halves
//! its depth (floor 1). Once the missing group's windows are good again the
//! cookie rises by `nr_requests / 16` per window (no faster than every
//! 500 ms) and the siblings grow their depth by as much; back at the
//! default cookie they are unthrottled. A 1 s timer raises the cookie when
//! the group that lowered it has gone, and forgets that group after 5 s
//! without a scale event.
//!
//! Differences from the kernel, all documented in docs/model.md: the
//! throttle sits inside the scheduler (after tag allocation) rather than
//! before it (rq_qos_throttle); the depth counted is requests, merged bios
//! counting once; a group at depth 1 is not further delayed
//! (blkcg_use_delay charges the submitting task, not modelled).

use super::{IoClass, Request, Scheduler, SchedulerEntry, Tunable, TunableKind, Tunables};
use ssdlab_protocol::Ns;
use std::collections::{BTreeMap, VecDeque};

const MS: i64 = 1_000_000;
const TUNABLES: &[Tunable] = &[
    Tunable {
        name: "rt_target",
        kind: TunableKind::Duration {
            min: 0,
            max: 10_000 * MS,
            unit_ns: 1_000,
        },
        default: 2 * MS,
        help: "io.latency target of the jobs whose requests are RT class (0 = none; bare numbers in µs, as io.latency)",
    },
    Tunable {
        name: "be_target",
        kind: TunableKind::Duration {
            min: 0,
            max: 10_000 * MS,
            unit_ns: 1_000,
        },
        default: 0,
        help: "io.latency target of every other job (0 = none: throttled when a sibling misses)",
    },
    Tunable {
        name: "nr_requests",
        kind: TunableKind::Int { min: 1, max: 65_535 },
        default: 256,
        help: "the queue's nr_requests: the full depth and the step unit (up by a 16th, halving down)",
    },
    Tunable {
        name: "rotational",
        kind: TunableKind::Bool,
        default: 0,
        help: "judge windows by mean latency (rotational) instead of the 10 % rule (SSD)",
    },
];

pub const ENTRY: SchedulerEntry = SchedulerEntry {
    name: "iolatency",
    help: "blk-iolatency over none: a job that misses its latency target halves the depth of its looser siblings",
    tunables: TUNABLES,
    make: |t| Box::new(IoLatency::new(t)),
};

/// The parent's cookie when nobody is throttled (DEFAULT_SCALE_COOKIE).
const DEFAULT_COOKIE: i64 = 1_000_000;
const MIN_WINDOW_NS: Ns = 100_000_000;
const MAX_WINDOW_NS: Ns = 1_000_000_000;
/// No two scale events closer than this (BLKIOLATENCY_MIN_ADJUST_TIME).
const MIN_ADJUST_NS: Ns = 500_000_000;
/// Good windows need this many samples to scale up (MIN_GOOD_SAMPLES).
const MIN_GOOD_SAMPLES: u64 = 5;
const TIMER_NS: Ns = 1_000_000_000;
const FORGET_NS: Ns = 5_000_000_000;

/// A window's latency statistics: missed and total for an SSD, sum for a
/// rotational device.
#[derive(Default, Clone, Copy)]
struct Stat {
    total: u64,
    missed: u64,
    sum_ns: u128,
}

impl Stat {
    fn add(&mut self, o: &Stat) {
        self.total += o.total;
        self.missed += o.missed;
        self.sum_ns += o.sum_ns;
    }
}

struct Group {
    /// min_lat_nsec; 0 = no target.
    target_ns: Ns,
    window_ns: Ns,
    window_start: Ns,
    /// The open window's samples, and the samples since the last scale
    /// decision (cur_stat).
    stat: Stat,
    cur_stat: Stat,
    nr_samples: u64,
    /// The parent's cookie as this group last saw it.
    cookie: i64,
    /// Requests admitted (dispatched) and not completed; the depth bound.
    inflight: u32,
    max_depth: u32,
    waiting: VecDeque<Request>,
}

pub struct IoLatency {
    rt_target: Ns,
    be_target: Ns,
    nr_requests: u32,
    rotational: bool,
    groups: BTreeMap<u32, Group>,
    /// The parent's child_latency_info.
    cookie: i64,
    scale_lat: Ns,
    scale_grp: Option<u32>,
    last_scale_event: Ns,
    nr_samples: u64,
    next_timer: Option<Ns>,
    queued: usize,
    scale_downs: u64,
    scale_ups: u64,
    missed_windows: u64,
}

impl IoLatency {
    pub fn new(t: &Tunables) -> Self {
        IoLatency {
            rt_target: t.get("rt_target") as Ns,
            be_target: t.get("be_target") as Ns,
            nr_requests: t.get("nr_requests") as u32,
            rotational: t.get("rotational") != 0,
            groups: BTreeMap::new(),
            cookie: DEFAULT_COOKIE,
            scale_lat: 0,
            scale_grp: None,
            last_scale_event: 0,
            nr_samples: 0,
            next_timer: None,
            queued: 0,
            scale_downs: 0,
            scale_ups: 0,
            missed_windows: 0,
        }
    }

    fn group_for(&mut self, rq: &Request, now: Ns) -> &mut Group {
        let target_ns = match rq.prio.class {
            IoClass::Rt => self.rt_target,
            _ => self.be_target,
        };
        let cookie = self.cookie;
        self.groups.entry(rq.job).or_insert_with(|| Group {
            target_ns,
            window_ns: (target_ns << 4).clamp(MIN_WINDOW_NS, MAX_WINDOW_NS),
            window_start: now,
            stat: Stat::default(),
            cur_stat: Stat::default(),
            nr_samples: 0,
            cookie,
            inflight: 0,
            max_depth: u32::MAX,
            waiting: VecDeque::new(),
        })
    }

    fn window_ok(&self, s: &Stat, target_ns: Ns) -> bool {
        if self.rotational {
            s.total == 0 || s.sum_ns / s.total as u128 <= target_ns as u128
        } else {
            s.missed < (s.total / 10).max(1)
        }
    }

    /// scale_amount: a 16th of the depth up, a quarter down, at least 1.
    fn scale_amount(&self, up: bool) -> i64 {
        let qd = self.nr_requests as i64;
        (if up { qd >> 4 } else { qd >> 2 }).max(1)
    }

    /// scale_cookie_change: moves the parent's cookie, never digging more
    /// than twice the depth below the default.
    fn change_cookie(&mut self, up: bool) {
        let (qd, scale) = (self.nr_requests as i64, self.scale_amount(up));
        let diff = (DEFAULT_COOKIE - self.cookie).max(0);
        if up {
            self.scale_ups += 1;
            self.cookie = if scale + self.cookie > DEFAULT_COOKIE {
                DEFAULT_COOKIE
            } else if diff > qd {
                self.cookie + 1
            } else {
                self.cookie + scale
            };
        } else {
            self.scale_downs += 1;
            if diff > qd {
                if diff < qd << 1 {
                    self.cookie -= 1;
                }
            } else {
                self.cookie -= scale;
            }
        }
    }

    /// check_scale_change: a group follows the cookie on its submissions.
    fn follow_cookie(&mut self, job: u32) {
        let (cookie, scale_lat, parent_samples) = (self.cookie, self.scale_lat, self.nr_samples);
        let (up, down) = (self.scale_amount(true) as u32, self.nr_requests);
        let g = self.groups.get_mut(&job).expect("group exists");
        if g.cookie == cookie {
            return;
        }
        let falling = cookie < g.cookie;
        g.cookie = cookie;
        if falling && g.target_ns > 0 {
            // Groups at least as strict as the one that missed are spared,
            // and so is one that did 5 % of the samples or fewer.
            if scale_lat == 0 || g.target_ns <= scale_lat {
                return;
            }
            if g.nr_samples <= (parent_samples * 5 / 100).max(1) {
                return;
            }
        }
        if falling && g.max_depth == 1 {
            return;
        }
        if cookie == DEFAULT_COOKIE {
            g.max_depth = u32::MAX;
            return;
        }
        let qd = down;
        let old = g.max_depth.min(qd);
        g.max_depth = if falling {
            (old >> 1).max(1)
        } else {
            (old + up).min(qd)
        };
    }

    /// iolatency_check_latencies: a group's window has ended.
    fn check_latencies(&mut self, job: u32, now: Ns) {
        let g = self.groups.get_mut(&job).expect("group exists");
        let stat = std::mem::take(&mut g.stat);
        let target = g.target_ns;
        let ok_now = self.window_ok(&stat, target);
        if !ok_now {
            self.missed_windows += 1;
        }
        if ok_now && self.cookie == DEFAULT_COOKIE {
            return;
        }
        let g = self.groups.get_mut(&job).expect("group exists");
        g.cur_stat.add(&stat);
        self.nr_samples = self.nr_samples - g.nr_samples + g.cur_stat.total;
        g.nr_samples = g.cur_stat.total;
        let cur = g.cur_stat;
        if self.last_scale_event >= now || now - self.last_scale_event < MIN_ADJUST_NS {
            return;
        }
        if self.window_ok(&cur, target) && ok_now {
            if cur.total < MIN_GOOD_SAMPLES {
                return;
            }
            if self.scale_grp == Some(job) {
                self.last_scale_event = now;
                self.change_cookie(true);
            }
        } else if self.scale_lat == 0 || self.scale_lat >= target {
            self.last_scale_event = now;
            if self.scale_grp.is_none() || self.scale_lat > target {
                self.scale_lat = target;
                self.scale_grp = Some(job);
            }
            self.change_cookie(false);
        }
        self.groups.get_mut(&job).expect("group exists").cur_stat = Stat::default();
    }

    /// blkiolatency_timer_fn, once a second while throttled.
    fn timer(&mut self, now: Ns) {
        if self.cookie >= DEFAULT_COOKIE || self.last_scale_event >= now {
            return;
        }
        match self.scale_grp {
            None => self.change_cookie(true),
            Some(_) if now - self.last_scale_event >= FORGET_NS => self.scale_grp = None,
            Some(_) => {}
        }
    }

    /// The job whose oldest waiting request arrived first, among the jobs
    /// below their depth.
    fn next_group(&self) -> Option<u32> {
        self.groups
            .iter()
            .filter(|(_, g)| g.inflight < g.max_depth)
            .filter_map(|(job, g)| g.waiting.front().map(|rq| (rq.id, *job)))
            .min()
            .map(|(_, job)| job)
    }
}

impl Scheduler for IoLatency {
    fn name(&self) -> &'static str {
        "iolatency"
    }

    fn insert(&mut self, rq: Request, now: Ns) {
        let job = rq.job;
        self.group_for(&rq, now);
        self.follow_cookie(job);
        self.groups
            .get_mut(&job)
            .expect("group exists")
            .waiting
            .push_back(rq);
        self.queued += 1;
        if self.next_timer.is_none() {
            self.next_timer = Some(now + TIMER_NS);
        }
    }

    fn dispatch(&mut self, now: Ns) -> Option<Request> {
        let job = self.next_group()?;
        let g = self.groups.get_mut(&job).expect("group exists");
        let mut rq = g.waiting.pop_front().expect("a waiting request");
        g.inflight += 1;
        self.queued -= 1;
        rq.dispatch_ns = now;
        Some(rq)
    }

    fn has_work(&self) -> bool {
        self.next_group().is_some()
    }

    fn completed(&mut self, rq: &Request, now: Ns) {
        let Some(g) = self.groups.get_mut(&rq.job) else {
            return;
        };
        g.inflight = g.inflight.saturating_sub(1);
        if g.target_ns == 0 {
            return;
        }
        let lat = now.saturating_sub(rq.submit_ns);
        g.stat.total += 1;
        g.stat.missed += u64::from(lat >= g.target_ns);
        g.stat.sum_ns += lat as u128;
        if now > g.window_start && now - g.window_start >= g.window_ns {
            g.window_start = now;
            self.check_latencies(rq.job, now);
        }
    }

    fn next_timer(&self) -> Option<Ns> {
        self.next_timer
    }

    fn on_timer(&mut self, now: Ns) {
        self.timer(now);
        // Re-armed while anything is queued or throttled (mod_timer on
        // every throttle call in the kernel).
        let busy = self.queued > 0 || self.groups.values().any(|g| g.inflight > 0);
        self.next_timer = (busy || self.cookie < DEFAULT_COOKIE).then_some(now + TIMER_NS);
    }

    fn queued(&self) -> usize {
        self.queued
    }

    fn counters(&self) -> Vec<(&'static str, u64)> {
        let min_depth = self
            .groups
            .values()
            .map(|g| g.max_depth.min(self.nr_requests))
            .min()
            .unwrap_or(self.nr_requests);
        vec![
            ("scale_downs", self.scale_downs),
            ("scale_ups", self.scale_ups),
            ("missed_windows", self.missed_windows),
            ("min_depth", min_depth as u64),
        ]
    }

    fn gauges(&self) -> Vec<(&'static str, u64)> {
        // The tightest depth any throttled group has now.
        let depth = self
            .groups
            .values()
            .map(|g| g.max_depth.min(self.nr_requests))
            .min()
            .unwrap_or(self.nr_requests);
        vec![("iolatency_min_depth", depth as u64)]
    }
}

#[cfg(test)]
mod tests;
