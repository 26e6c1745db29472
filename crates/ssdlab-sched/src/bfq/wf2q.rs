//! One class's B-WF2Q+ service tree (block/bfq-wf2q.c): every backlogged
//! queue has a virtual start and finish time; the tree serves, among the
//! eligible queues (start ≤ the tree's virtual time), the one that finishes
//! first, and its virtual time advances by the service given over the sum of
//! the backlogged weights. A list stands in for the kernel's augmented
//! red-black trees: a tree holds one entry per process, a handful here.

/// Virtual time, fixed point: service in sectors × 2^32 / weight.
pub type VTime = u128;

/// `service` sectors at `weight` in virtual time.
pub fn delta(service: u64, weight: u32) -> VTime {
    ((service as u128) << 32) / weight.max(1) as u128
}

#[derive(Debug, Clone, Copy)]
pub struct Entry {
    /// Queue key (index into the scheduler's queues).
    pub queue: usize,
    pub start: VTime,
    pub finish: VTime,
    pub weight: u32,
}

#[derive(Debug, Default)]
pub struct Tree {
    pub vtime: VTime,
    entries: Vec<Entry>,
}

impl Tree {
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    pub fn weight_sum(&self) -> u64 {
        self.entries.iter().map(|e| e.weight as u64).sum()
    }

    /// A queue becomes backlogged: it starts no earlier than the tree's
    /// virtual time nor before its own last finish (a queue cannot save
    /// service by going idle), and finishes its budget at its weight.
    pub fn activate(&mut self, queue: usize, last_finish: VTime, budget: u64, weight: u32) {
        let start = last_finish.max(self.vtime);
        self.entries.push(Entry {
            queue,
            start,
            finish: start + delta(budget, weight),
            weight,
        });
    }

    /// A served queue goes back in the tree after its slot: it starts where
    /// its charged service ended.
    pub fn requeue(&mut self, queue: usize, start: VTime, budget: u64, weight: u32) {
        self.entries.push(Entry {
            queue,
            start,
            finish: start + delta(budget, weight),
            weight,
        });
    }

    /// Takes the next queue to serve out of the tree: the eligible entry
    /// with the smallest finish (ties: the smallest start, then queue). If
    /// none is eligible the virtual time jumps to the smallest start.
    pub fn take_next(&mut self) -> Option<Entry> {
        let min_start = self.entries.iter().map(|e| e.start).min()?;
        self.vtime = self.vtime.max(min_start);
        let v = self.vtime;
        let i = self
            .entries
            .iter()
            .enumerate()
            .filter(|(_, e)| e.start <= v)
            .min_by_key(|(_, e)| (e.finish, e.start, e.queue))
            .map(|(i, _)| i)?;
        Some(self.entries.swap_remove(i))
    }

    /// Service given by the tree's queue in service: the virtual time
    /// advances by it over the weights backlogged (the one in service
    /// included, `in_service_weight`).
    pub fn served(&mut self, service: u64, in_service_weight: u32) {
        let wsum = self.weight_sum() + in_service_weight as u64;
        self.vtime += delta(service, wsum.min(u32::MAX as u64) as u32);
    }
}
