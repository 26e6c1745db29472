//! `k2-budget`: the latency-budget variant of K2 (grassnick/k2-scheduler,
//! branch release/0.2).
//!
//! Instead of counting requests, K2-budget sums the *estimated* device
//! latency of what is in flight and dispatches a request only while its
//! estimate fits into `max_inflight_latency − current_inflight_latency`; a
//! few requests (`inflight ≤ 2`) may always be outstanding so that the device
//! never idles on a bad estimate. Estimates come from a table by operation ×
//! access pattern × size and are scaled online, per operation, by how far
//! observed latencies were off. Queues are K2's (eight RT levels, one BE);
//! a queue left unserved for `starvation_timeout` is served first.

use super::{IoClass, IoPrio, Request, Scheduler, SchedulerEntry, Tunable, TunableKind, Tunables};

use ssdlab_protocol::Dir;
use ssdlab_protocol::Ns;
use std::collections::{BTreeMap, VecDeque};

const MS: i64 = 1_000_000;
const S: i64 = 1_000_000_000;

const TUNABLES: &[Tunable] = &[
    Tunable {
        name: "max_inflight_latency",
        kind: TunableKind::Duration {
            min: 1,
            max: 3600 * S,
            unit_ns: 1,
        },
        default: 2_184_000,
        help: "budget: sum of estimated latencies of the requests at the device",
    },
    Tunable {
        name: "starvation_timeout",
        kind: TunableKind::Duration {
            min: 1,
            max: 3600 * S,
            unit_ns: MS,
        },
        default: 5 * S,
        help: "a non-empty queue not served for this long is served first",
    },
    Tunable {
        name: "async_tag_share_pct",
        kind: TunableKind::Int { min: 1, max: 100 },
        default: 30,
        help: "share of scheduler tags async requests may hold (limit_depth)",
    },
];

pub const ENTRY: SchedulerEntry = SchedulerEntry {
    name: "k2-budget",
    help: "K2 with a budget of estimated in-flight latency instead of a request count (grassnick/k2-scheduler 0.2)",
    tunables: TUNABLES,
    make: |t| Box::new(K2Budget::new(t)),
};

/// Requests that may always be in flight whatever the budget says.
const ALWAYS_INFLIGHT: u32 = 2;
/// Within this distance of the last dispatched sector a request counts as
/// sequential (16 MiB in 512-byte sectors).
const SEQ_WINDOW_SECTORS: u64 = (16 << 20) / 512;
/// Ratios real/estimated kept per operation for the scaling factor.
const RATIO_WINDOW: usize = 100;
const RATIO_MIN: f64 = 0.01;
const RATIO_MAX: f64 = 100.0;
const RT_QUEUES: usize = 8;
const BE_QUEUE: usize = RT_QUEUES;

/// Table support points (bytes): 512 B, 4 KiB, 508 KiB, 2 MiB.
const SIZES: [f64; 4] = [512.0, 4096.0, 520_192.0, 2_097_152.0];
/// Estimated latency in µs at `SIZES`, indexed by [op][sequential].
const TABLE_US: [[[f64; 4]; 2]; 2] = [
    [
        [70.0, 72.0, 546.0, 1892.0], // random read
        [14.0, 15.0, 158.0, 599.0],  // sequential read
    ],
    [
        [15.0, 17.0, 167.0, 641.0], // random write
        [14.0, 16.0, 166.0, 643.0], // sequential write
    ],
];

/// Operation type of the table and of the scaling (discards count as writes).
fn op_index(dir: Dir) -> usize {
    match dir {
        Dir::Read => 0,
        Dir::Write | Dir::Trim => 1,
    }
}

/// Unscaled table estimate in ns: linear between support points, the 512 B
/// value below, the last segment's slope extended above 2 MiB.
pub(crate) fn table_estimate_ns(dir: Dir, sequential: bool, bytes: u32) -> f64 {
    let row = &TABLE_US[op_index(dir)][sequential as usize];
    let x = (bytes as f64).max(SIZES[0]);
    let seg = (0..SIZES.len() - 1)
        .find(|&i| x <= SIZES[i + 1])
        .unwrap_or(SIZES.len() - 2);
    let t = (x - SIZES[seg]) / (SIZES[seg + 1] - SIZES[seg]);
    (row[seg] + t * (row[seg + 1] - row[seg])) * 1e3
}

struct Outstanding {
    op: usize,
    /// Unscaled table estimate: the denominator of the ratio.
    base_ns: f64,
    /// Scaled estimate added to the in-flight latency at dispatch.
    charged_ns: Ns,
}

pub struct K2Budget {
    max_latency: Ns,
    starvation_timeout: Ns,
    async_share_pct: u32,
    inflight: u32,
    inflight_latency: Ns,
    /// RT levels 0..7, then BE (BE, IDLE, NONE).
    queues: Vec<VecDeque<Request>>,
    /// Per queue: when it was last served, or became non-empty if later.
    waiting_since: Vec<Ns>,
    /// End of the last dispatched request, for the sequential test.
    last_sector: Option<u64>,
    /// Last ratios real/estimated per operation.
    ratios: [VecDeque<f64>; 2],
    outstanding: BTreeMap<u64, Outstanding>,
}

impl K2Budget {
    pub fn new(t: &Tunables) -> Self {
        K2Budget {
            max_latency: t.get("max_inflight_latency") as Ns,
            starvation_timeout: t.get("starvation_timeout") as Ns,
            async_share_pct: t.get("async_tag_share_pct") as u32,
            inflight: 0,
            inflight_latency: 0,
            queues: (0..=RT_QUEUES).map(|_| VecDeque::new()).collect(),
            waiting_since: vec![0; RT_QUEUES + 1],
            last_sector: None,
            ratios: [VecDeque::new(), VecDeque::new()],
            outstanding: BTreeMap::new(),
        }
    }

    fn queue_of(prio: IoPrio) -> usize {
        match prio.class {
            IoClass::Rt if prio.level < 8 => prio.level as usize,
            IoClass::Rt => 4,
            IoClass::Be | IoClass::Idle | IoClass::None => BE_QUEUE,
        }
    }

    /// Mean of the recent ratios real/estimated for an operation (1 before
    /// any completion).
    pub fn scale(&self, dir: Dir) -> f64 {
        let r = &self.ratios[op_index(dir)];
        if r.is_empty() {
            return 1.0;
        }
        r.iter().sum::<f64>() / r.len() as f64
    }

    fn is_sequential(&self, rq: &Request) -> bool {
        self.last_sector
            .is_some_and(|last| rq.sector.abs_diff(last) <= SEQ_WINDOW_SECTORS)
    }

    /// (unscaled, scaled) estimate of a request if it were dispatched now.
    pub fn estimate(&self, rq: &Request) -> (f64, Ns) {
        let base = table_estimate_ns(rq.dir, self.is_sequential(rq), rq.bytes);
        (base, (base * self.scale(rq.dir)).round() as Ns)
    }

    fn fits(&self, estimate: Ns) -> bool {
        self.inflight <= ALWAYS_INFLIGHT
            || estimate <= self.max_latency.saturating_sub(self.inflight_latency)
    }

    /// Starved queues first (in priority order), else the best non-empty one.
    fn pick_queue(&self, now: Ns) -> Option<usize> {
        let non_empty = || (0..self.queues.len()).filter(|&q| !self.queues[q].is_empty());
        non_empty()
            .find(|&q| now.saturating_sub(self.waiting_since[q]) >= self.starvation_timeout)
            .or_else(|| non_empty().next())
    }

    #[cfg(test)]
    fn inflight_latency(&self) -> Ns {
        self.inflight_latency
    }

    fn record_ratio(&mut self, op: usize, real_ns: f64, base_ns: f64) {
        let ratio = (real_ns / base_ns.max(1.0)).clamp(RATIO_MIN, RATIO_MAX);
        let r = &mut self.ratios[op];
        if r.len() == RATIO_WINDOW {
            r.pop_front();
        }
        r.push_back(ratio);
    }
}

impl Scheduler for K2Budget {
    fn name(&self) -> &'static str {
        "k2-budget"
    }

    fn insert(&mut self, rq: Request, now: Ns) {
        let q = Self::queue_of(rq.prio);
        if self.queues[q].is_empty() {
            // Starvation counts from when the queue had something to serve.
            self.waiting_since[q] = now;
        }
        self.queues[q].push_back(rq);
    }

    fn dispatch(&mut self, now: Ns) -> Option<Request> {
        // Head-of-line: if the chosen queue's head does not fit, wait rather
        // than let lower-priority work take the budget the RT request needs.
        let q = self.pick_queue(now)?;
        let (base_ns, charged_ns) = self.estimate(&self.queues[q][0]);
        if !self.fits(charged_ns) {
            return None;
        }
        let mut rq = self.queues[q].pop_front()?;
        rq.dispatch_ns = now;
        self.waiting_since[q] = now;
        self.last_sector = Some(rq.end_sector());
        self.inflight += 1;
        self.inflight_latency += charged_ns;
        let op = op_index(rq.dir);
        self.outstanding.insert(
            rq.id,
            Outstanding {
                op,
                base_ns,
                charged_ns,
            },
        );
        Some(rq)
    }

    /// True if some queue head fits the budget. Which queue `dispatch` picks
    /// depends on `now` (starvation), so this may be true while `dispatch`
    /// returns None (head-of-line blocking); never the other way round.
    fn has_work(&self) -> bool {
        self.queues
            .iter()
            .filter_map(|q| q.front())
            .any(|rq| self.fits(self.estimate(rq).1))
    }

    fn completed(&mut self, rq: &Request, now: Ns) {
        self.inflight = self.inflight.saturating_sub(1);
        let Some(o) = self.outstanding.remove(&rq.id) else {
            return; // not dispatched by us: nothing to learn from
        };
        self.inflight_latency = self.inflight_latency.saturating_sub(o.charged_ns);
        let real_ns = now.saturating_sub(rq.dispatch_ns) as f64;
        self.record_ratio(o.op, real_ns, o.base_ns);
    }

    /// Async requests may hold only `async_tag_share_pct` of the tags (the
    /// host marks reads sync, as the kernel's op_is_sync does).
    fn limit_depth(&self, _dir: Dir, sync: bool, nr_requests: u32) -> Option<u32> {
        if sync {
            return None;
        }
        Some(super::tag_share(nr_requests, self.async_share_pct))
    }

    fn queued(&self) -> usize {
        self.queues.iter().map(VecDeque::len).sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sched(spec: &str) -> K2Budget {
        let (_, t) = crate::spec::parse(spec).unwrap();
        K2Budget::new(&t)
    }

    /// A 4 KiB random read (sectors far apart) of the given class.
    fn read(id: u64, class: IoClass) -> Request {
        Request {
            id,
            dir: Dir::Read,
            sector: id * 10_000_000,
            bytes: 4096,
            prio: IoPrio { class, level: 0 },
            sync: true,
            flush: false,
            fua: false,
            job: 0,
            submit_ns: 0,
            insert_ns: 0,
            dispatch_ns: 0,
        }
    }

    fn dispatch_all(s: &mut K2Budget, now: Ns) -> Vec<Request> {
        std::iter::from_fn(|| s.dispatch(now)).collect()
    }

    #[test]
    fn table_interpolates() {
        let rr = |b| table_estimate_ns(Dir::Read, false, b);
        assert_eq!(rr(512), 70_000.0);
        assert_eq!(rr(4096), 72_000.0);
        assert_eq!(rr(2 << 20), 1_892_000.0);
        assert_eq!(rr(100), 70_000.0);
        assert!((rr(2304) - 71_000.0).abs() < 1e-6); // half-way 512..4096
        assert_eq!(table_estimate_ns(Dir::Write, true, 520_192), 166_000.0);
        assert!(rr(4 << 20) > rr(2 << 20));
    }

    #[test]
    fn beyond_two_only_while_the_estimate_fits() {
        // 4 KiB random read = 72 µs. Three always go; the fourth needs 72 µs
        // of the 200 µs budget, of which 216 µs are already used.
        let mut s = sched("k2-budget:max_inflight_latency=200us");
        (0..10).for_each(|i| s.insert(read(i, IoClass::Be), 0));
        let out = dispatch_all(&mut s, 0);
        assert_eq!(out.len(), 3);
        assert_eq!(s.inflight_latency(), 216_000);
        assert!(!s.has_work());
        // 300 µs: 84 µs left after three, room for one more.
        let mut s = sched("k2-budget:max_inflight_latency=300us");
        (0..10).for_each(|i| s.insert(read(i, IoClass::Be), 0));
        let out = dispatch_all(&mut s, 0);
        assert_eq!(out.len(), 4);
        // A completion returns its estimate to the budget.
        s.completed(&out[0], 72_000);
        assert!(s.has_work());
        assert_eq!(s.dispatch(72_000).map(|r| r.id), Some(4));
        assert!(s.dispatch(72_000).is_none());
    }

    #[test]
    fn sequential_requests_get_the_sequential_estimate() {
        let mut s = sched("k2-budget");
        s.insert(read(1, IoClass::Be), 0);
        let r = s.dispatch(0).unwrap();
        let mut next = read(2, IoClass::Be);
        next.sector = r.end_sector();
        assert_eq!(s.estimate(&next).1, 15_000);
        next.sector = r.end_sector() + SEQ_WINDOW_SECTORS + 1;
        assert_eq!(s.estimate(&next).1, 72_000);
    }

    #[test]
    fn scaling_moves_the_estimate_towards_observed_latency() {
        let mut s = sched("k2-budget");
        let probe = read(1_000_000, IoClass::Be);
        assert_eq!(s.estimate(&probe).1, 72_000);
        // Reads take twice the table value.
        for i in 0..100 {
            s.insert(read(i, IoClass::Be), 0);
            let r = s.dispatch(i * 1_000_000).unwrap();
            s.completed(&r, r.dispatch_ns + 144_000);
        }
        assert_eq!(s.estimate(&probe).1, 144_000);
        assert_eq!(s.scale(Dir::Write), 1.0, "per operation");
        // Only the last 100 ratios count, each clamped to 100.
        for i in 100..200 {
            s.insert(read(i, IoClass::Be), 0);
            let r = s.dispatch(i * 1_000_000).unwrap();
            s.completed(&r, r.dispatch_ns + 1_000_000_000);
        }
        assert_eq!(s.estimate(&probe).1, 7_200_000);
    }

    #[test]
    fn starved_queue_is_served_first() {
        let mut s = sched("k2-budget:starvation_timeout=5s");
        s.insert(read(0, IoClass::Be), 0);
        let mut id = 1;
        let mut t = 0;
        // Continuous RT load: BE waits while it lasts, up to the timeout.
        while t < 5_000_000_000 {
            s.insert(read(id, IoClass::Rt), t);
            let r = s.dispatch(t).unwrap();
            assert_eq!(r.prio.class, IoClass::Rt, "at {t}");
            s.completed(&r, t);
            id += 1;
            t += 100_000_000;
        }
        s.insert(read(id, IoClass::Rt), t);
        assert_eq!(s.dispatch(t).unwrap().id, 0);
        assert_eq!(s.dispatch(t).unwrap().id, id);
    }

    #[test]
    fn async_writes_get_a_tag_share() {
        let s = sched("k2-budget");
        assert_eq!(s.limit_depth(Dir::Write, false, 64), Some(19));
        assert_eq!(s.limit_depth(Dir::Write, true, 64), None);
        assert_eq!(s.limit_depth(Dir::Read, true, 64), None);
        assert_eq!(s.limit_depth(Dir::Read, false, 64), Some(19));
        assert_eq!(s.limit_depth(Dir::Write, false, 2), Some(1));
    }
}
