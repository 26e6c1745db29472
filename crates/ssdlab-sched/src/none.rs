//! `none`: no host reordering. Requests go to the driver in FIFO order as
//! tags allow (block/blk-mq-sched.c bypass path).

use super::{MergeKind, Request, Scheduler, SchedulerEntry};
use ssdlab_protocol::Ns;
use std::collections::VecDeque;

pub const ENTRY: SchedulerEntry = SchedulerEntry {
    name: "none",
    help: "no reordering: FIFO to the device, limited only by tags",
    tunables: &[],
    make: |_| Box::new(NoneSched::default()),
};

#[derive(Default)]
pub struct NoneSched {
    fifo: VecDeque<Request>,
}

impl Scheduler for NoneSched {
    fn name(&self) -> &'static str {
        "none"
    }

    fn insert(&mut self, rq: Request, _now: Ns) {
        self.fifo.push_back(rq);
    }

    fn dispatch(&mut self, _now: Ns) -> Option<Request> {
        self.fifo.pop_front()
    }

    fn has_work(&self) -> bool {
        !self.fifo.is_empty()
    }

    fn completed(&mut self, _rq: &Request, _now: Ns) {}

    /// Requests wait here only while the hardware queue is full; a bio may
    /// join one of the last eight, as blk_bio_list_merge does on the
    /// software queue.
    fn bio_merge(&mut self, bio: &Request, max_bytes: u32) -> Option<(u64, MergeKind)> {
        super::merge::merge_into_fifo(&mut self.fifo, bio, max_bytes, 8)
    }

    fn queued(&self) -> usize {
        self.fifo.len()
    }
}
