//! `none`: no host reordering. Requests go to the driver in FIFO order as
//! tags allow (block/blk-mq-sched.c bypass path).

use super::{Request, Scheduler, SchedulerEntry};
use crate::engine::Ns;
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

    fn queued(&self) -> usize {
        self.fifo.len()
    }
}
