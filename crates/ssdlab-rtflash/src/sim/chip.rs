//! One chip of the real-time simulation: its ready flash operations, served
//! earliest deadline first (ties: the order they became ready), one at a
//! time and non-preemptively. Background work carries no deadline and goes
//! after every operation that has one.
//!
//! A chip also runs at most one GC round at a time. Its copies and its
//! erase are operations like the others, served under the earliest
//! deadline of the programs waiting for the room it makes (the writers'
//! context; background when only background writers wait), so a host read
//! with an earlier deadline can go between two copies.

use ssdlab_protocol::Ns;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// A host operation's kind; its duration follows from the platform.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum OpKind {
    Read,
    Program,
}

/// A ready host operation of a request.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct Op {
    pub kind: OpKind,
    /// The request it belongs to (its completion waits for it).
    pub request: u32,
    /// The logical page a read or program touches.
    pub lpn: u32,
}

/// What the chip is doing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Running {
    Host(Op),
    /// One valid page moved by GC (read, program, two transfers).
    GcCopy,
    GcErase,
}

/// The GC round in progress.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GcRound {
    pub copies_left: u64,
    /// The rank of the first-ranked program waiting (its deadline under
    /// EDF; `Ns::MAX`: only background writers wait).
    pub deadline: Ns,
}

/// How a chip orders the operations that have a deadline.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum ChipOrder {
    /// Earliest deadline first: the framework's device, which the analysis
    /// assumes.
    #[default]
    Edf,
    /// Arrival order, as an ordinary SSD serves its queue: it knows no
    /// deadlines and no background class, and a GC round (foreground GC,
    /// in the writer's context) runs to its end before the chip's other
    /// work. Background NRT service then lives in the host, which holds NRT
    /// requests back while RT I/O is outstanding (`Sim::issue_nrt`).
    Fifo,
}

/// The key a chip orders by: rank (the absolute deadline under EDF, 0 for
/// every deadline under FIFO; `Ns::MAX`: background), then the order of
/// arrival.
type Key = (Ns, u64);

#[derive(Debug, Default)]
pub struct ChipQueue {
    order: ChipOrder,
    /// Each with its deadline (None: background), which a program waiting
    /// for room hands to the GC round.
    ready: BinaryHeap<Reverse<(Key, Option<Ns>, Op)>>,
    seq: u64,
    pub running: Option<Running>,
    pub round: Option<GcRound>,
    /// Programs waiting for the round's room, with their deadlines.
    pub waiting: Vec<(Option<Ns>, Op)>,
}

impl ChipQueue {
    pub fn new(order: ChipOrder) -> Self {
        ChipQueue {
            order,
            ..ChipQueue::default()
        }
    }

    /// Where an operation with `deadline` ranks on this chip.
    fn rank(&self, deadline: Option<Ns>) -> Ns {
        match (self.order, deadline) {
            (ChipOrder::Fifo, _) => 0,
            (ChipOrder::Edf, None) => Ns::MAX,
            (ChipOrder::Edf, Some(d)) => d,
        }
    }

    /// Adds a ready operation; `deadline` None is background work.
    pub fn push(&mut self, deadline: Option<Ns>, op: Op) {
        self.seq += 1;
        let key = (self.rank(deadline), self.seq);
        self.ready.push(Reverse((key, deadline, op)));
    }

    /// The ready operation that ranks first, and its deadline.
    pub fn pop(&mut self) -> Option<(Option<Ns>, Op)> {
        let Reverse((_, deadline, op)) = self.ready.pop()?;
        Some((deadline, op))
    }

    /// Whether the round's next operation goes before every ready host
    /// operation (ties go to the round: its waiters are blocked on it).
    pub fn round_goes_first(&self) -> bool {
        let Some(round) = self.round else {
            return false;
        };
        match self.ready.peek() {
            None => true,
            Some(Reverse(((rank, _), _, _))) => round.deadline <= *rank,
        }
    }

    /// Parks a program until the round in progress ends; the round takes
    /// its deadline if earlier.
    pub fn wait_for_room(&mut self, deadline: Option<Ns>, op: Op) {
        let rank = self.rank(deadline);
        if let Some(round) = &mut self.round {
            round.deadline = round.deadline.min(rank);
        }
        self.waiting.push((deadline, op));
    }

    /// Ends the round: its waiters become ready again.
    pub fn end_round(&mut self) {
        self.round = None;
        for (deadline, op) in std::mem::take(&mut self.waiting) {
            self.push(deadline, op);
        }
    }

    /// Ready operations (not counting the running one).
    #[cfg(test)]
    pub fn ready_len(&self) -> usize {
        self.ready.len()
    }

    pub fn is_idle(&self) -> bool {
        self.running.is_none()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn op(request: u32) -> Op {
        Op {
            kind: OpKind::Read,
            request,
            lpn: 0,
        }
    }

    #[test]
    fn earliest_deadline_first_then_arrival_background_last() {
        let mut q = ChipQueue::default();
        q.push(None, op(1));
        q.push(Some(50), op(2));
        q.push(Some(10), op(3));
        q.push(Some(50), op(4));
        let order: Vec<u32> = std::iter::from_fn(|| q.pop().map(|(_, o)| o.request)).collect();
        assert_eq!(order, vec![3, 2, 4, 1]);
    }

    #[test]
    fn fifo_serves_everything_in_arrival_order_and_a_waited_round_first() {
        let mut q = ChipQueue::new(ChipOrder::Fifo);
        q.push(None, op(1));
        q.push(Some(50), op(2));
        q.push(Some(10), op(3));
        let order: Vec<u32> = std::iter::from_fn(|| q.pop().map(|(_, o)| o.request)).collect();
        assert_eq!(order, vec![1, 2, 3]);
        q.round = Some(GcRound {
            copies_left: 3,
            deadline: Ns::MAX,
        });
        q.push(Some(5), op(4));
        q.wait_for_room(Some(1_000), op(5));
        assert!(q.round_goes_first(), "a round a writer waits on goes first");
        assert_eq!(q.pop().map(|(d, o)| (d, o.request)), Some((Some(5), 4)));
    }

    #[test]
    fn a_round_runs_under_its_earliest_waiter() {
        let mut q = ChipQueue {
            round: Some(GcRound {
                copies_left: 3,
                deadline: Ns::MAX,
            }),
            ..ChipQueue::default()
        };
        q.push(Some(100), op(1));
        q.wait_for_room(None, op(2));
        assert!(!q.round_goes_first(), "background round after a deadline");
        q.wait_for_room(Some(40), op(3));
        assert!(q.round_goes_first(), "inherits the waiter's deadline 40");
        q.end_round();
        let order: Vec<u32> = std::iter::from_fn(|| q.pop().map(|(_, o)| o.request)).collect();
        assert_eq!(order, vec![3, 1, 2]);
    }
}
