//! Host I/O schedulers. The `Scheduler` trait mirrors the kernel's
//! `struct elevator_mq_ops` (block/elevator.h) so that a kernel scheduler
//! ports almost line for line: `insert` ~ insert_requests, `dispatch` ~
//! dispatch_request, `has_work`, `completed` ~ completed_request/finish_request,
//! `limit_depth`, `bio_merge` ~ bio_merge/request_merge, and a timer hook for
//! policies that wait. Tunables are declared as data; `build` turns a spec
//! string such as `k2:max_inflight=8` into a scheduler. The single-queue
//! elevators of Linux 2.6.30 (`noop`, `deadline`) fit it as well: the request
//! queue's dispatch list, which `elv_next_request` served before asking the
//! elevator, lives inside them.
//!
//! One policy, one file; `REGISTRY` maps names to constructors.
//!
//! A scheduler sees requests and time, nothing of a device or of the host
//! path around it: this crate depends only on `ssdlab-protocol` (time,
//! direction) and `ssdlab-fio` (sizes in spec strings), so the compiler
//! keeps it that way.

mod bfq;
mod bundle;
mod deadline;
mod deadline_tunables;
mod elevator_merge;
mod iolatency;
mod irbw;
mod k2;
mod k2_adaptive;
mod k2_budget;
mod kyber;
mod merge;
mod mq_deadline;
mod none;
mod noop;
pub mod request;
pub mod spec;
mod stb;
#[cfg(test)]
mod testing;

pub use request::{IoClass, IoPrio, MergeKind, Request};
pub use spec::{build, SpecError, Tunable, TunableKind, Tunables};

use ssdlab_protocol::{Dir, Ns};

pub trait Scheduler: Send {
    fn name(&self) -> &'static str;

    /// A request enters the scheduler (after tag allocation).
    fn insert(&mut self, rq: Request, now: Ns);

    /// The driver has a free slot: the next request to send to the device, or
    /// None to leave the slot unused (work-constraining schedulers do that).
    fn dispatch(&mut self, now: Ns) -> Option<Request>;

    /// Whether `dispatch` would return a request now.
    fn has_work(&self) -> bool;

    /// A dispatched request completed at the device at `now`.
    fn completed(&mut self, rq: &Request, now: Ns);

    /// Tag depth this request may use out of `nr_requests` (kernel
    /// `limit_depth`, e.g. mq-deadline's async_depth). None: no limit.
    fn limit_depth(&self, _dir: Dir, _sync: bool, _nr_requests: u32) -> Option<u32> {
        None
    }

    /// Tries to merge `bio` into a queued request (kernel bio_merge). Returns
    /// the id of the request it joined and how, or None.
    fn bio_merge(&mut self, _bio: &Request, _max_bytes: u32) -> Option<(u64, MergeKind)> {
        None
    }

    /// The next time the scheduler wants `on_timer` called, if any.
    fn next_timer(&self) -> Option<Ns> {
        None
    }

    fn on_timer(&mut self, _now: Ns) {}

    /// Requests queued inside the scheduler (not yet dispatched).
    fn queued(&self) -> usize;

    /// The scheduler's own event counts (name, count) for the report, as
    /// the kernel's debugfs attributes show them. Names are stable.
    fn counters(&self) -> Vec<(&'static str, u64)> {
        Vec::new()
    }

    /// CPU time the scheduler's own hooks (insert, dispatch, completion)
    /// take per request beyond the host's base costs, serial under its
    /// lock: the simulated host charges it at dispatch. 0 for schedulers
    /// whose cost the base costs already cover.
    fn cpu_cost_ns(&self) -> Ns {
        0
    }

    /// The scheduler's state variables worth following over time (name,
    /// value now), such as an adaptive bound: the block layer samples them
    /// once per second into the time series. Names are stable.
    fn gauges(&self) -> Vec<(&'static str, u64)> {
        Vec::new()
    }
}

/// One registered scheduler: name, help, tunables and constructor.
pub struct SchedulerEntry {
    pub name: &'static str,
    pub help: &'static str,
    pub tunables: &'static [Tunable],
    pub make: fn(&Tunables) -> Box<dyn Scheduler>,
}

pub const REGISTRY: &[SchedulerEntry] = &[
    none::ENTRY,
    noop::ENTRY,
    deadline::ENTRY,
    mq_deadline::ENTRY,
    kyber::ENTRY,
    k2::ENTRY,
    k2_adaptive::ENTRY,
    k2_budget::ENTRY,
    irbw::FIFO_ENTRY,
    irbw::RP_ENTRY,
    stb::ENTRY,
    iolatency::ENTRY,
    bfq::ENTRY,
];

/// The tags out of `nr_requests` that a `pct` share allows (at least one):
/// the async depth limits of kyber, k2-budget and STB.
pub(crate) fn tag_share(nr_requests: u32, pct: u32) -> u32 {
    (nr_requests as u64 * pct as u64 / 100).max(1) as u32
}

pub fn entry(name: &str) -> Option<&'static SchedulerEntry> {
    REGISTRY.iter().find(|e| e.name == name)
}
