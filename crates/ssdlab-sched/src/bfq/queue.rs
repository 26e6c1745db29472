//! One BFQ queue (a process's sync or async I/O, bfq_queue): its requests,
//! budget, think time and weight raising.

use super::wf2q::VTime;
use crate::{IoClass, IoPrio, Request};
use ssdlab_protocol::Ns;
use std::collections::VecDeque;

/// BFQ's three classes, served in this order.
pub const RT: usize = 0;
pub const BE: usize = 1;
pub const IDLE: usize = 2;

/// Weight raising multiplies the weight by this (bfq_wr_coeff).
pub const WR_COEFF: u32 = 30;

pub fn class_of(prio: IoPrio) -> usize {
    match prio.class {
        IoClass::Rt => RT,
        IoClass::Be | IoClass::None => BE,
        IoClass::Idle => IDLE,
    }
}

/// bfq_ioprio_to_weight: (8 − level) × 10; NONE is BE level 4.
pub fn weight_of(prio: IoPrio) -> u32 {
    let level = if prio.class == IoClass::None {
        4
    } else {
        prio.level.min(7)
    };
    (8 - level as u32) * 10
}

#[derive(Debug)]
pub struct Queue {
    pub sync: bool,
    pub class: usize,
    pub weight: u32,
    pub fifo: VecDeque<Request>,
    /// Requests at the device.
    pub dispatched: u32,
    /// The budget the next slot gets (sectors), fed back from the last.
    pub max_budget: u64,
    /// Finish time of the last slot in its class tree.
    pub finish: VTime,
    /// Think time: mean gap between a completion that left the queue empty
    /// and its next arrival (EWMA, 7/8 old), and whether one was seen.
    pub ttime_mean: Ns,
    pub ttime_seen: bool,
    pub last_completion: Ns,
    /// When the queue last became empty; an arrival long after it counts as
    /// interactive (bfq_wr_min_idle_time).
    pub idle_since: Option<Ns>,
    /// Weight raising: coefficient, and until when.
    pub wr_coeff: u32,
    pub wr_until: Ns,
    /// Soft real-time detection: when the queue became backlogged, the
    /// service it had since, and the earliest next arrival that still
    /// counts as soft real-time (soft_rt_next_start).
    pub backlogged_since: Ns,
    pub service_backlogged: u64,
    pub soft_rt_next_start: Ns,
}

impl Queue {
    pub fn new(rq: &Request, budget: u64) -> Queue {
        Queue {
            sync: rq.sync,
            class: class_of(rq.prio),
            weight: weight_of(rq.prio),
            fifo: VecDeque::new(),
            dispatched: 0,
            max_budget: budget,
            finish: 0,
            ttime_mean: 0,
            ttime_seen: false,
            last_completion: 0,
            // A new queue counts as having been idle for long.
            idle_since: Some(0),
            wr_coeff: 1,
            wr_until: 0,
            backlogged_since: 0,
            service_backlogged: 0,
            soft_rt_next_start: 0,
        }
    }

    pub fn weight_now(&self) -> u32 {
        self.weight * self.wr_coeff
    }

    /// Whether the queue's think time is short enough for idling to pay
    /// (bfq_bfqq_has_short_ttime): none measured yet counts as short.
    pub fn short_ttime(&self, slice_idle: Ns) -> bool {
        !self.ttime_seen || self.ttime_mean <= slice_idle
    }

    /// A request arrives at an empty queue: one think-time sample, capped
    /// at twice the idle slice as the kernel does.
    pub fn sample_ttime(&mut self, now: Ns, slice_idle: Ns) {
        if self.dispatched > 0 || self.last_completion == 0 {
            return;
        }
        let gap = now.saturating_sub(self.last_completion).min(2 * slice_idle);
        self.ttime_mean = if self.ttime_seen {
            (7 * self.ttime_mean + gap) / 8
        } else {
            gap
        };
        self.ttime_seen = true;
    }

    pub fn sectors(rq: &Request) -> u64 {
        (rq.bytes as u64).div_ceil(512).max(1)
    }
}
