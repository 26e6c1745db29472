//! Discrete-event engine: an integer-nanosecond clock and a priority queue of
//! events. Simultaneous events are delivered in the order they were scheduled
//! (a sequence number breaks ties), so a run is fully deterministic.

use std::cmp::Ordering;
use std::collections::BinaryHeap;

/// Simulated time in nanoseconds.
pub type Ns = u64;

/// The longest simulated time (100 years). Job files and traces refuse
/// times beyond it, and a run whose clock would pass it stops with an error,
/// so sums of times never overflow the clock.
pub const MAX_TIME_NS: Ns = ssdlab_fio::MAX_TIME_NS;
const _: () = assert!(ssdlab_fio::MAX_TIME_NS == ssdlab_trace::MAX_TIME_NS);

struct Entry<E> {
    time: Ns,
    seq: u64,
    event: E,
}

impl<E> PartialEq for Entry<E> {
    fn eq(&self, other: &Self) -> bool {
        self.time == other.time && self.seq == other.seq
    }
}
impl<E> Eq for Entry<E> {}
impl<E> PartialOrd for Entry<E> {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl<E> Ord for Entry<E> {
    // Reversed: BinaryHeap is a max-heap and we want the earliest event first.
    fn cmp(&self, other: &Self) -> Ordering {
        (other.time, other.seq).cmp(&(self.time, self.seq))
    }
}

/// Anything that can schedule device events. The device never owns the clock:
/// it is handed `now` and a place to put future events.
pub trait Timers<E> {
    fn schedule(&mut self, at: Ns, event: E);
}

/// The event queue. `now` only moves forward.
pub struct EventQueue<E> {
    heap: BinaryHeap<Entry<E>>,
    seq: u64,
    now: Ns,
}

impl<E> Default for EventQueue<E> {
    fn default() -> Self {
        Self::new()
    }
}

impl<E> EventQueue<E> {
    pub fn new() -> Self {
        EventQueue {
            heap: BinaryHeap::with_capacity(1024),
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
        self.heap.len()
    }

    pub fn is_empty(&self) -> bool {
        self.heap.is_empty()
    }

    /// Schedules `event` at `at`; an event in the past is a logic error and is
    /// clamped to `now` in release builds (asserted in debug builds).
    pub fn push(&mut self, at: Ns, event: E) {
        debug_assert!(at >= self.now, "event scheduled in the past");
        let time = at.max(self.now);
        self.seq += 1;
        self.heap.push(Entry {
            time,
            seq: self.seq,
            event,
        });
    }

    /// Removes the earliest event and advances the clock to its time.
    pub fn pop(&mut self) -> Option<(Ns, E)> {
        let e = self.heap.pop()?;
        self.now = e.time;
        Some((e.time, e.event))
    }

    pub fn peek_time(&self) -> Option<Ns> {
        self.heap.peek().map(|e| e.time)
    }
}

impl<E, D: Into<E>> Timers<D> for EventQueue<E> {
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
}
