//! Bios waiting for a driver tag on one hardware queue.
//!
//! A scheduler's depth limit depends only on a bio's direction and whether
//! it is synchronous (`Scheduler::limit_depth`), so waiters are kept in one
//! FIFO per such class, each entry stamped with its arrival order. Admission
//! looks only at the head of each class (at most six) and takes the oldest
//! head whose limit allows it: the same order as scanning every waiter in
//! arrival order, at O(1) per admission instead of O(waiters). Per-job
//! counts answer "is this job still waiting" in O(1), and jobs whose last
//! waiting bio got its tag are listed so the workload wakes only them.

use super::bio::Bio;
use rustc_hash::FxHashMap;
use ssdlab_protocol::Dir;
use std::collections::VecDeque;

/// The bios of one `(dir, sync)` class, each with its arrival number.
type ClassQueue = ((Dir, bool), VecDeque<(u64, Bio)>);

#[derive(Default)]
pub(crate) struct TagWaiters {
    /// Classes in first-seen order.
    classes: Vec<ClassQueue>,
    arrivals: u64,
    waiting_per_job: FxHashMap<u32, u32>,
    len: usize,
}

impl TagWaiters {
    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    pub fn push(&mut self, bio: Bio) {
        let key = (bio.dir, bio.sync);
        let at = match self.classes.iter().position(|(k, _)| *k == key) {
            Some(i) => i,
            None => {
                self.classes.push((key, VecDeque::new()));
                self.classes.len() - 1
            }
        };
        *self.waiting_per_job.entry(bio.job).or_insert(0) += 1;
        self.arrivals += 1;
        self.classes[at].1.push_back((self.arrivals, bio));
        self.len += 1;
    }

    /// Removes the oldest waiter whose class `admits`, if any. When it was
    /// its job's last waiting bio, the job is pushed on `unblocked`.
    pub fn pop_admitted(
        &mut self,
        mut admits: impl FnMut(Dir, bool) -> bool,
        unblocked: &mut Vec<u32>,
    ) -> Option<Bio> {
        let mut best: Option<(u64, usize)> = None;
        for (i, ((dir, sync), q)) in self.classes.iter().enumerate() {
            let Some(&(arrival, _)) = q.front() else {
                continue;
            };
            if best.is_none_or(|(b, _)| arrival < b) && admits(*dir, *sync) {
                best = Some((arrival, i));
            }
        }
        let (_, i) = best?;
        let (_, bio) = self.classes[i].1.pop_front().expect("a head was seen");
        self.len -= 1;
        let left = self
            .waiting_per_job
            .get_mut(&bio.job)
            .expect("a waiting bio is counted");
        *left -= 1;
        if *left == 0 {
            self.waiting_per_job.remove(&bio.job);
            unblocked.push(bio.job);
        }
        Some(bio)
    }

    pub fn is_waiting(&self, job: u32) -> bool {
        self.waiting_per_job.contains_key(&job)
    }
}
