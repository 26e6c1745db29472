//! One chip of the real-time simulation: its ready flash operations, served
//! earliest deadline first (ties: the order they became ready), one at a
//! time and non-preemptively. Background work carries no deadline and goes
//! after every operation that has one.

use crate::engine::Ns;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// A flash operation's kind; its duration follows from the platform.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum OpKind {
    Read,
    Program,
    /// One valid page moved by GC (read, program, two transfers).
    GcCopy,
    GcErase,
}

/// A ready operation of a request.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct Op {
    pub kind: OpKind,
    /// The request it belongs to (its completion waits for it).
    pub request: u32,
    /// The logical page a read or program touches.
    pub lpn: u32,
    /// A program whose GC was already done (it must not collect again).
    pub room_made: bool,
}

/// The key EDF orders by: absolute deadline (None: background), then the
/// order of arrival.
type Key = (Ns, u64);

#[derive(Debug, Default)]
pub struct ChipQueue {
    ready: BinaryHeap<Reverse<(Key, Op)>>,
    seq: u64,
    /// The operation running.
    pub running: Option<Op>,
}

impl ChipQueue {
    /// Adds a ready operation; `deadline` None is background work.
    pub fn push(&mut self, deadline: Option<Ns>, op: Op) {
        self.seq += 1;
        let key = (deadline.unwrap_or(Ns::MAX), self.seq);
        self.ready.push(Reverse((key, op)));
    }

    /// The ready operation with the earliest deadline, and that deadline.
    pub fn pop(&mut self) -> Option<(Option<Ns>, Op)> {
        let Reverse(((deadline, _), op)) = self.ready.pop()?;
        Some(((deadline != Ns::MAX).then_some(deadline), op))
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
            room_made: false,
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
}
