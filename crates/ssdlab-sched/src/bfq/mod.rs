//! `bfq`: Budget Fair Queueing (block/bfq-iosched.c, block/bfq-wf2q.c,
//! Documentation/block/bfq-iosched.rst), its essentials.
//!
//! Every process (fio job) has a sync and an async queue. Queues are served
//! one at a time: the queue in service dispatches until its budget (in
//! sectors) is spent, its time slot (`timeout_sync`) ends, or it empties.
//! The next queue comes from the highest non-empty class (RT, then BE, then
//! IDLE, which still gets a turn after 200 ms without one) by B-WF2Q+ on
//! weights `(8 − ioprio level) × 10`. When a sync queue in service empties
//! and its think time is short, BFQ idles (`slice_idle`) for its next
//! request rather than serve another queue, if idling is needed for its
//! guarantees: it is weight-raised, or the busy queues differ in class or
//! weight. With `low_latency`, a queue arriving after 2 s idle (or new) is
//! weight-raised ×30 for 3 s (interactive), and a sync queue whose arrival
//! rate stays under 7000 sectors/s ×30 for 300 ms at a time (soft
//! real-time). A new queue of a higher class or weight preempts the one in
//! service. Budgets feed back: doubled after a timeout, ×4 when exhausted,
//! cut to the service received when the queue emptied.
//!
//! Left out (docs/model.md, "bfq"): cgroups and their weights, I/O
//! injection while idling (Linux 5.2+), queue merging of cooperating
//! processes, burst detection, peak-rate estimation (`max_budget` stays at
//! the kernel's 16384-sector start value unless set), charging time rather
//! than service to slow queues, sector-sorted dispatch inside a queue (a
//! queue serves in arrival order: on flash the seek penalties do not
//! apply).

mod queue;
mod wf2q;

use super::{Request, Scheduler, SchedulerEntry, Tunable, TunableKind, Tunables};
use queue::{Queue, BE, IDLE, RT, WR_COEFF};
use ssdlab_protocol::{Dir, Ns};
use std::collections::BTreeMap;
use wf2q::Tree;

const MS: i64 = 1_000_000;
const TUNABLES: &[Tunable] = &[
    Tunable {
        name: "slice_idle",
        kind: TunableKind::Duration {
            min: 0,
            max: 1_000 * MS,
            unit_ns: MS,
        },
        default: 8 * MS,
        help: "how long an emptied sync queue in service waits for its next request (0: never idle)",
    },
    Tunable {
        name: "timeout_sync",
        kind: TunableKind::Duration {
            min: MS,
            max: 10_000 * MS,
            unit_ns: MS,
        },
        default: 125 * MS,
        help: "longest slot of a queue in service",
    },
    Tunable {
        name: "max_budget",
        kind: TunableKind::Int {
            min: 0,
            max: 1 << 24,
        },
        default: 0,
        help: "largest budget in sectors (0: automatic, the kernel's 16384-sector start value)",
    },
    Tunable {
        name: "low_latency",
        kind: TunableKind::Bool,
        default: 1,
        help: "weight-raise interactive and soft real-time queues",
    },
    Tunable {
        name: "strict_guarantees",
        kind: TunableKind::Bool,
        default: 0,
        help: "idle for every sync queue with a short think time, needed or not",
    },
    Tunable {
        name: "cpu_ns",
        kind: TunableKind::Duration {
            min: 0,
            max: 100_000,
            unit_ns: 1,
        },
        default: 1_900,
        help: "BFQ's own CPU time per request under its lock (insert + dispatch + completion; 1.9 µs per bfq-iosched.rst)",
    },
];

pub const ENTRY: SchedulerEntry = SchedulerEntry {
    name: "bfq",
    help: "BFQ: per-process queues served one at a time by B-WF2Q+ on sector budgets, idling for sync queues, weight raising",
    tunables: TUNABLES,
    make: |t| Box::new(Bfq::new(t)),
};

/// The kernel's default max budget before any peak-rate estimate.
const DEFAULT_MAX_BUDGET: u64 = 16 * 1024;
const IDLE_CLASS_TIMEOUT: Ns = 200_000_000;
const WR_MIN_IDLE: Ns = 2_000_000_000;
const WR_INTERACTIVE: Ns = 3_000_000_000;
const WR_SOFT_RT: Ns = 300_000_000;
/// bfq_wr_max_softrt_rate, sectors per second.
const SOFT_RT_RATE: u64 = 7_000;

/// Why a queue leaves service (bfqq_expiration).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Expire {
    TooIdle,
    BudgetTimeout,
    BudgetExhausted,
    NoMoreRequests,
    Preempted,
}

struct InService {
    queue: usize,
    /// The slot's virtual start in its class tree.
    start: wf2q::VTime,
    service: u64,
    budget: u64,
    /// Set at the slot's first dispatch.
    timeout_at: Option<Ns>,
    idle_until: Option<Ns>,
}

pub struct Bfq {
    slice_idle: Ns,
    timeout: Ns,
    max_budget: u64,
    low_latency: bool,
    strict: bool,
    cpu_ns: Ns,
    queues: Vec<Queue>,
    by_key: BTreeMap<(u32, bool), usize>,
    trees: [Tree; 3],
    in_service: Option<InService>,
    last_idle_class_service: Ns,
    queued: usize,
    counts: Counts,
}

#[derive(Default)]
struct Counts {
    expired: [u64; 5],
    idle_timeouts: u64,
    raised_interactive: u64,
    raised_soft_rt: u64,
}

impl Bfq {
    pub fn new(t: &Tunables) -> Self {
        let max_budget = match t.get("max_budget") as u64 {
            0 => DEFAULT_MAX_BUDGET,
            b => b,
        };
        Bfq {
            slice_idle: t.get("slice_idle") as Ns,
            timeout: t.get("timeout_sync") as Ns,
            max_budget,
            low_latency: t.get("low_latency") != 0,
            strict: t.get("strict_guarantees") != 0,
            cpu_ns: t.get("cpu_ns") as Ns,
            queues: Vec::new(),
            by_key: BTreeMap::new(),
            trees: Default::default(),
            in_service: None,
            last_idle_class_service: 0,
            queued: 0,
            counts: Counts::default(),
        }
    }

    fn min_budget(&self) -> u64 {
        (self.max_budget / 32).max(1)
    }

    fn queue_of(&mut self, rq: &Request) -> usize {
        let budget = 2 * self.max_budget / 3;
        let next = self.queues.len();
        let q = *self.by_key.entry((rq.job, rq.sync)).or_insert(next);
        if q == next {
            self.queues.push(Queue::new(rq, budget));
        }
        q
    }

    /// Queues with requests queued or at the device, and the one in
    /// service even while it is idled for (it stays busy until it expires).
    fn busy(&self) -> impl Iterator<Item = &Queue> {
        let in_service = self.in_service.as_ref().map(|s| s.queue);
        self.queues
            .iter()
            .enumerate()
            .filter(move |(i, q)| !q.fifo.is_empty() || q.dispatched > 0 || Some(*i) == in_service)
            .map(|(_, q)| q)
    }

    /// bfq_asymmetric_scenario: busy queues of more than one class or of
    /// differing weights.
    fn asymmetric(&self) -> bool {
        let mut busy = self.busy();
        let Some(first) = busy.next() else {
            return false;
        };
        let key = (first.class, first.weight_now());
        busy.any(|q| (q.class, q.weight_now()) != key)
    }

    /// bfq_better_to_idle: idling for `q` is worth it on flash only to keep
    /// its guarantees.
    fn better_to_idle(&self, q: usize) -> bool {
        let queue = &self.queues[q];
        self.slice_idle > 0
            && queue.sync
            && queue.class != IDLE
            && queue.short_ttime(self.slice_idle)
            && (self.strict || queue.wr_coeff > 1 || self.asymmetric())
    }

    /// A request reaches an empty queue: think time, weight raising, and a
    /// place in its class tree.
    fn activate(&mut self, q: usize, now: Ns) {
        let (slice_idle, low_latency) = (self.slice_idle, self.low_latency);
        let queue = &mut self.queues[q];
        queue.sample_ttime(now, slice_idle);
        if queue.wr_coeff > 1 && now >= queue.wr_until {
            queue.wr_coeff = 1;
        }
        if low_latency {
            let idle_long = queue
                .idle_since
                .is_some_and(|t| t == 0 || now.saturating_sub(t) >= WR_MIN_IDLE);
            if idle_long {
                queue.wr_coeff = WR_COEFF;
                queue.wr_until = now + WR_INTERACTIVE;
                self.counts.raised_interactive += 1;
            } else if queue.sync && queue.wr_coeff == 1 && now >= queue.soft_rt_next_start {
                queue.wr_coeff = WR_COEFF;
                queue.wr_until = now + WR_SOFT_RT;
                self.counts.raised_soft_rt += 1;
            }
        }
        queue.idle_since = None;
        queue.backlogged_since = now;
        queue.service_backlogged = 0;
        let (class, finish, budget, weight) = (
            queue.class,
            queue.finish,
            queue.max_budget,
            queue.weight_now(),
        );
        if self.in_service.as_ref().is_none_or(|s| s.queue != q) {
            self.trees[class].activate(q, finish, budget, weight);
        }
    }

    /// bfq_bfqq_higher_class_or_weight, and preemption of an in-service
    /// queue that need not be idled for.
    fn maybe_preempt(&mut self, q: usize, now: Ns) {
        let Some(s) = &self.in_service else {
            return;
        };
        if s.queue == q {
            return;
        }
        let (new, cur) = (&self.queues[q], &self.queues[s.queue]);
        let higher = new.class < cur.class
            || (new.class == cur.class && new.weight_now() > cur.weight_now());
        let idling = s.idle_until.is_some();
        if higher || (idling && new.wr_coeff >= cur.wr_coeff && new.class <= cur.class) {
            self.expire(Expire::Preempted, now);
        }
    }

    /// The queue in service leaves it: budget feedback, its finish time
    /// charged with the service it got, back in its tree if it has work.
    fn expire(&mut self, why: Expire, now: Ns) {
        let Some(s) = self.in_service.take() else {
            return;
        };
        self.counts.expired[why as usize] += 1;
        let (max_b, min_b) = (self.max_budget, self.min_budget());
        let queue = &mut self.queues[s.queue];
        queue.max_budget = if !queue.sync {
            max_b
        } else {
            match why {
                Expire::BudgetTimeout => (queue.max_budget * 2).min(max_b),
                Expire::BudgetExhausted => (queue.max_budget * 4).min(max_b),
                Expire::NoMoreRequests | Expire::TooIdle => s.service.max(min_b),
                Expire::Preempted => queue.max_budget,
            }
        };
        queue.finish = s.start + wf2q::delta(s.service, queue.weight_now());
        if !queue.fifo.is_empty() {
            let (class, finish, budget, weight) = (
                queue.class,
                queue.finish,
                queue.max_budget,
                queue.weight_now(),
            );
            self.trees[class].requeue(s.queue, finish, budget, weight);
        } else if queue.idle_since.is_none() {
            self.went_idle(s.queue, now);
        }
    }

    /// A queue has nothing queued any more: soft real-time bookkeeping.
    fn went_idle(&mut self, q: usize, now: Ns) {
        let slice_idle = self.slice_idle;
        let queue = &mut self.queues[q];
        queue.idle_since = Some(now);
        // bfq_bfqq_softrt_next_start: the queue stays soft real-time if it
        // asks for no more than SOFT_RT_RATE sectors per second.
        let rate_bound =
            queue.backlogged_since + queue.service_backlogged * 1_000_000_000 / SOFT_RT_RATE;
        queue.soft_rt_next_start = rate_bound.max(now + slice_idle + 4_000_000);
    }

    /// The next queue to serve: highest class first, IDLE after 200 ms
    /// without service even if others wait.
    fn select(&mut self, now: Ns) -> Option<usize> {
        let idle_due = !self.trees[IDLE].is_empty()
            && now.saturating_sub(self.last_idle_class_service) >= IDLE_CLASS_TIMEOUT;
        let order: &[usize] = if idle_due {
            &[IDLE, RT, BE]
        } else {
            &[RT, BE, IDLE]
        };
        let class = *order.iter().find(|&&c| !self.trees[c].is_empty())?;
        let e = self.trees[class].take_next()?;
        if class == IDLE {
            self.last_idle_class_service = now;
        }
        let budget = self.queues[e.queue].max_budget;
        self.in_service = Some(InService {
            queue: e.queue,
            start: e.start,
            service: 0,
            budget,
            timeout_at: None,
            idle_until: None,
        });
        Some(e.queue)
    }

    /// One step of bfq_dispatch_request: Ok(request), Err(true) to try
    /// again (a queue expired), Err(false) for nothing now.
    fn try_dispatch(&mut self, now: Ns) -> Result<Request, bool> {
        let q = match &self.in_service {
            Some(s) => s.queue,
            None => self.select(now).ok_or(false)?,
        };
        let s = self.in_service.as_ref().expect("in service");
        if s.timeout_at.is_some_and(|t| now >= t) {
            self.expire(Expire::BudgetTimeout, now);
            return Err(true);
        }
        let Some(head) = self.queues[q].fifo.front() else {
            return self.empty_in_service(q, now);
        };
        let sectors = Queue::sectors(head);
        if s.service > 0 && s.service + sectors > s.budget {
            self.expire(Expire::BudgetExhausted, now);
            return Err(true);
        }
        let s = self.in_service.as_mut().expect("in service");
        s.service += sectors;
        s.idle_until = None;
        s.timeout_at.get_or_insert(now + self.timeout);
        let queue = &mut self.queues[q];
        let mut rq = queue.fifo.pop_front().expect("head");
        queue.dispatched += 1;
        queue.service_backlogged += sectors;
        let (class, weight) = (queue.class, queue.weight_now());
        self.trees[class].served(sectors, weight);
        self.queued -= 1;
        rq.dispatch_ns = now;
        Ok(rq)
    }

    /// The queue in service has nothing queued: wait for it (idling, or its
    /// requests at the device when idling will follow), or let it go.
    fn empty_in_service(&mut self, q: usize, now: Ns) -> Result<Request, bool> {
        if self.queues[q].idle_since.is_none() {
            self.went_idle(q, now);
        }
        if self.better_to_idle(q) {
            let dispatched = self.queues[q].dispatched;
            let s = self.in_service.as_mut().expect("in service");
            if dispatched == 0 && s.idle_until.is_none() {
                s.idle_until = Some(now + self.slice_idle);
            }
            return Err(false);
        }
        self.expire(Expire::NoMoreRequests, now);
        Err(true)
    }
}

impl Scheduler for Bfq {
    fn name(&self) -> &'static str {
        "bfq"
    }

    fn insert(&mut self, rq: Request, now: Ns) {
        let q = self.queue_of(&rq);
        let was_empty = self.queues[q].fifo.is_empty();
        self.queues[q].fifo.push_back(rq);
        self.queued += 1;
        if was_empty {
            let in_service_idle = self.in_service.as_ref().is_some_and(|s| s.queue == q);
            if !in_service_idle || self.queues[q].idle_since.is_some() {
                self.activate(q, now);
            }
            self.maybe_preempt(q, now);
        }
    }

    fn dispatch(&mut self, now: Ns) -> Option<Request> {
        // Each expiry hands the slot on; a bounded number of hand-overs
        // (every queue once, plus one) ends the search.
        for _ in 0..=self.queues.len() + 1 {
            match self.try_dispatch(now) {
                Ok(rq) => return Some(rq),
                Err(false) => return None,
                Err(true) => {}
            }
        }
        None
    }

    fn has_work(&self) -> bool {
        match &self.in_service {
            Some(s) if s.idle_until.is_some() => !self.queues[s.queue].fifo.is_empty(),
            Some(s) if self.queues[s.queue].fifo.is_empty() && self.better_to_idle(s.queue) => {
                false
            }
            _ => self.queued > 0,
        }
    }

    fn completed(&mut self, rq: &Request, now: Ns) {
        let Some(&q) = self.by_key.get(&(rq.job, rq.sync)) else {
            return;
        };
        let queue = &mut self.queues[q];
        queue.dispatched = queue.dispatched.saturating_sub(1);
        queue.last_completion = now;
        let in_service = self.in_service.as_ref().is_some_and(|s| s.queue == q);
        if in_service && queue.fifo.is_empty() && queue.dispatched == 0 {
            if self.better_to_idle(q) {
                let s = self.in_service.as_mut().expect("in service");
                s.idle_until = Some(now + self.slice_idle);
            } else {
                self.expire(Expire::NoMoreRequests, now);
            }
        }
    }

    fn limit_depth(&self, dir: Dir, sync: bool, nr_requests: u32) -> Option<u32> {
        // bfq_limit_depth: sync reads unlimited; async I/O half the tags,
        // sync writes three quarters.
        match (sync, dir) {
            (true, Dir::Read) => None,
            (false, _) => Some((nr_requests / 2).max(1)),
            (true, _) => Some((nr_requests * 3 / 4).max(1)),
        }
    }

    /// Only the idle slice is a timer: a slot's timeout is checked at
    /// dispatch, as bfq_may_expire_for_budg_timeout does.
    fn next_timer(&self) -> Option<Ns> {
        self.in_service.as_ref()?.idle_until
    }

    fn on_timer(&mut self, now: Ns) {
        let idle_over = self
            .in_service
            .as_ref()
            .and_then(|s| s.idle_until)
            .is_some_and(|t| now >= t);
        if idle_over {
            self.counts.idle_timeouts += 1;
            self.expire(Expire::TooIdle, now);
        }
    }

    fn queued(&self) -> usize {
        self.queued
    }

    fn cpu_cost_ns(&self) -> Ns {
        self.cpu_ns
    }

    fn counters(&self) -> Vec<(&'static str, u64)> {
        let e = &self.counts.expired;
        vec![
            ("expired_too_idle", e[Expire::TooIdle as usize]),
            ("expired_budget_timeout", e[Expire::BudgetTimeout as usize]),
            (
                "expired_budget_exhausted",
                e[Expire::BudgetExhausted as usize],
            ),
            (
                "expired_no_more_requests",
                e[Expire::NoMoreRequests as usize],
            ),
            ("expired_preempted", e[Expire::Preempted as usize]),
            ("idle_timeouts", self.counts.idle_timeouts),
            ("raised_interactive", self.counts.raised_interactive),
            ("raised_soft_rt", self.counts.raised_soft_rt),
        ]
    }
}

#[cfg(test)]
mod tests;
