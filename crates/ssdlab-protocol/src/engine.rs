//! Discrete-event engine: an integer-nanosecond clock and a priority queue of
//! events. Simultaneous events are delivered in the order they were scheduled
//! (a sequence number breaks ties), so a run is fully deterministic.

mod calendar;

use calendar::Calendar;

pub use crate::{Ns, Timers, MAX_TIME_NS};

/// The event queue (a calendar queue: `calendar.rs`). `now` only moves
/// forward.
pub struct EventQueue<E> {
    pending: Calendar<E>,
    seq: u64,
    now: Ns,
}

impl<E: Copy> Default for EventQueue<E> {
    fn default() -> Self {
        Self::new()
    }
}

impl<E: Copy> EventQueue<E> {
    pub fn new() -> Self {
        EventQueue {
            pending: Calendar::new(),
            seq: 0,
            now: 0,
        }
    }

    /// A queue whose clock starts at `now` (continuing an earlier run).
    pub fn starting_at(now: Ns) -> Self {
        EventQueue { now, ..Self::new() }
    }

    pub fn now(&self) -> Ns {
        self.now
    }

    pub fn len(&self) -> usize {
        self.pending.len()
    }

    pub fn is_empty(&self) -> bool {
        self.pending.len() == 0
    }

    /// Schedules `event` at `at`; an event in the past is a logic error and is
    /// clamped to `now` in release builds (asserted in debug builds).
    #[inline]
    pub fn push(&mut self, at: Ns, event: E) {
        debug_assert!(at >= self.now, "event scheduled in the past");
        let time = at.max(self.now);
        self.seq += 1;
        self.pending.push(self.now, time, self.seq, event);
    }

    /// Removes the earliest event and advances the clock to its time.
    #[inline]
    pub fn pop(&mut self) -> Option<(Ns, E)> {
        let (time, event) = self.pending.pop(self.now)?;
        self.now = time;
        Some((time, event))
    }

    pub fn peek_time(&self) -> Option<Ns> {
        self.pending.peek_time(self.now)
    }
}

impl<E: Copy, D: Into<E>> Timers<D> for EventQueue<E> {
    fn schedule(&mut self, at: Ns, event: D) {
        self.push(at, event.into());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn earliest_first_and_fifo_among_equal_times() {
        let mut q = EventQueue::new();
        q.push(10, "b1");
        q.push(5, "a");
        q.push(10, "b2");
        q.push(7, "c");
        let order: Vec<_> = std::iter::from_fn(|| q.pop()).collect();
        assert_eq!(order, vec![(5, "a"), (7, "c"), (10, "b1"), (10, "b2")]);
        assert_eq!(q.now(), 10);
    }

    /// The calendar queue pops in exactly the order of a sorted reference
    /// (time, then scheduling order), over delays from zero to far beyond
    /// its horizon, equal times, and clocks that wrap the wheel many times.
    #[test]
    fn calendar_order_matches_a_reference_heap() {
        use rand::{Rng, SeedableRng};
        use std::cmp::Reverse;
        use std::collections::BinaryHeap;
        let horizon = calendar::HORIZON_NS;
        for seed in 0..20u64 {
            let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
            let start = if seed % 2 == 0 { 0 } else { MAX_TIME_NS / 2 };
            let mut q = EventQueue::starting_at(start);
            let mut reference = BinaryHeap::new();
            let mut seq = 0u64;
            for _ in 0..20_000 {
                if rng.gen_bool(0.55) || reference.is_empty() {
                    let delay = match rng.gen_range(0..6) {
                        0 => 0,
                        1 => rng.gen_range(0..300),
                        2 => rng.gen_range(0..horizon),
                        3 => rng.gen_range(horizon - 600..horizon + 600),
                        4 => rng.gen_range(0..20 * horizon),
                        _ => 256 * rng.gen_range(0..8u64),
                    };
                    let at = q.now() + delay;
                    seq += 1;
                    q.push(at, seq);
                    reference.push(Reverse((at, seq)));
                } else {
                    let Reverse((at, id)) = reference.pop().expect("non-empty");
                    assert_eq!(q.peek_time(), Some(at), "seed {seed}");
                    assert_eq!(q.pop(), Some((at, id)), "seed {seed}");
                }
                assert_eq!(q.len(), reference.len());
            }
            while let Some(Reverse((at, id))) = reference.pop() {
                assert_eq!(q.pop(), Some((at, id)), "seed {seed}");
            }
            assert!(q.is_empty());
            assert_eq!(q.pop(), None);
        }
    }
}
