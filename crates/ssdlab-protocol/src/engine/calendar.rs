//! A calendar queue of events (Brown 1988, in its simplest form: a timing
//! wheel of fixed-width slots plus a binary heap for the far future).
//!
//! Nearly every event of a simulated SSD lies within a millisecond of the
//! present (command decode, array reads, channel transfers, completions),
//! and a run keeps a few dozen to a few hundred of them pending. A binary
//! heap pays a sift through all of them, with a mispredicted branch at each
//! level, for every event. Here an event of the next [`HORIZON_NS`] goes to
//! the slot of its time (a short sorted list, usually of one), and the next
//! event is the head of the first occupied slot at or after the present,
//! found in a two-level bitmap. Events further out (GC erases, timers,
//! think times) wait in a heap; a pop takes whichever of the two heads is
//! earlier, so nothing is ever moved between them.
//!
//! Order is exactly the heap's: earliest time first, and among equal times
//! the order of scheduling (a sequence number).

use super::Ns;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// A slot spans 2^8 = 256 ns.
const SLOT_SHIFT: u32 = 8;
/// Slots in the wheel (a power of two, at most 64 × 64).
const SLOTS: usize = 4096;
const WORDS: usize = SLOTS / 64;
/// How far ahead of the present an event may lie to go into the wheel
/// (give or take a slot).
#[cfg(test)]
pub const HORIZON_NS: Ns = (SLOTS as Ns) << SLOT_SHIFT;
/// No node.
const NIL: u32 = u32::MAX;

/// A pending event in the wheel; `next` links the slot's list (or the free
/// list).
#[derive(Clone, Copy)]
struct Node<E> {
    time: Ns,
    seq: u64,
    event: E,
    next: u32,
}

/// A pending event in the far-future heap, ordered by `(time, seq)` only.
struct Far<E> {
    time: Ns,
    seq: u64,
    event: E,
}

impl<E> PartialEq for Far<E> {
    fn eq(&self, other: &Self) -> bool {
        (self.time, self.seq) == (other.time, other.seq)
    }
}
impl<E> Eq for Far<E> {}
impl<E> PartialOrd for Far<E> {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}
impl<E> Ord for Far<E> {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        (self.time, self.seq).cmp(&(other.time, other.seq))
    }
}

/// Pending events, earliest first. `now` is the time of the last pop; an
/// event is never pushed before it.
pub struct Calendar<E> {
    /// Wheel nodes; unused ones are chained from `free`.
    nodes: Vec<Node<E>>,
    free: u32,
    /// Each slot's first (earliest) node.
    heads: Box<[u32; SLOTS]>,
    /// One bit per occupied slot, and one summary bit per word of them.
    bits: [u64; WORDS],
    summary: u64,
    far: BinaryHeap<Reverse<Far<E>>>,
    len: usize,
}

impl<E: Copy> Calendar<E> {
    pub fn new() -> Self {
        Calendar {
            nodes: Vec::with_capacity(1024),
            free: NIL,
            heads: Box::new([NIL; SLOTS]),
            bits: [0; WORDS],
            summary: 0,
            far: BinaryHeap::new(),
            len: 0,
        }
    }

    pub fn len(&self) -> usize {
        self.len
    }

    /// Adds an event at `time` (≥ `now`) with sequence number `seq`, which
    /// must exceed every earlier one.
    #[inline]
    pub fn push(&mut self, now: Ns, time: Ns, seq: u64, event: E) {
        self.len += 1;
        if (time >> SLOT_SHIFT) - (now >> SLOT_SHIFT) >= SLOTS as Ns {
            return self.push_far(time, seq, event);
        }
        let slot = slot_of(time);
        let at = self.alloc(Node {
            time,
            seq,
            event,
            next: NIL,
        });
        let head = self.heads[slot];
        if head != NIL && self.nodes[head as usize].time <= time {
            return self.insert_after_head(slot, at);
        }
        // The slot's new earliest event (the common case: a slot holds
        // one event or none).
        self.nodes[at as usize].next = head;
        self.heads[slot] = at;
        self.bits[slot / 64] |= 1 << (slot % 64);
        self.summary |= 1 << (slot / 64);
    }

    #[inline(never)]
    fn push_far(&mut self, time: Ns, seq: u64, event: E) {
        self.far.push(Reverse(Far { time, seq, event }));
    }

    /// Links node `at` into the occupied `slot`, after every node at or
    /// before its time: equal times keep their scheduling order (this one
    /// has the largest sequence number).
    #[inline(never)]
    fn insert_after_head(&mut self, slot: usize, at: u32) {
        let time = self.nodes[at as usize].time;
        let mut prev = self.heads[slot];
        let mut cur = self.nodes[prev as usize].next;
        while cur != NIL && self.nodes[cur as usize].time <= time {
            prev = cur;
            cur = self.nodes[cur as usize].next;
        }
        self.nodes[at as usize].next = cur;
        self.nodes[prev as usize].next = at;
    }

    /// Removes and returns the earliest event (`now` is the present).
    #[inline]
    pub fn pop(&mut self, now: Ns) -> Option<(Ns, E)> {
        match self.earliest(now)? {
            Head::Wheel(slot) => {
                let at = self.heads[slot];
                let node = self.nodes[at as usize];
                self.heads[slot] = node.next;
                if node.next == NIL {
                    self.bits[slot / 64] &= !(1 << (slot % 64));
                    if self.bits[slot / 64] == 0 {
                        self.summary &= !(1 << (slot / 64));
                    }
                }
                self.nodes[at as usize].next = self.free;
                self.free = at;
                self.len -= 1;
                Some((node.time, node.event))
            }
            Head::Far => {
                let Reverse(far) = self.far.pop().expect("the far heap has a head");
                self.len -= 1;
                Some((far.time, far.event))
            }
        }
    }

    /// The time of the earliest event.
    pub fn peek_time(&self, now: Ns) -> Option<Ns> {
        match self.earliest(now)? {
            Head::Wheel(slot) => Some(self.nodes[self.heads[slot] as usize].time),
            Head::Far => self.far.peek().map(|f| f.0.time),
        }
    }

    /// Where the earliest event is: the wheel's first occupied slot at or
    /// after the present, or the far heap, whichever head comes first.
    #[inline]
    fn earliest(&self, now: Ns) -> Option<Head> {
        let wheel = self.first_slot(slot_of(now));
        let far = self.far.peek().map(|f| (f.0.time, f.0.seq));
        match (wheel, far) {
            (None, None) => None,
            (Some(slot), None) => Some(Head::Wheel(slot)),
            (None, Some(_)) => Some(Head::Far),
            (Some(slot), Some(far)) => {
                let n = &self.nodes[self.heads[slot] as usize];
                Some(if (n.time, n.seq) < far {
                    Head::Wheel(slot)
                } else {
                    Head::Far
                })
            }
        }
    }

    /// The first occupied slot at or after `from`, going round the wheel:
    /// slots before `from` hold the latest times of the horizon.
    #[inline]
    fn first_slot(&self, from: usize) -> Option<usize> {
        if self.summary == 0 {
            return None;
        }
        let (word, bit) = (from / 64, from % 64);
        let here = self.bits[word] & (u64::MAX << bit);
        if here != 0 {
            return Some(word * 64 + here.trailing_zeros() as usize);
        }
        // Words after this one, then round from the first (this word's
        // bits below `from` are the wheel's far end).
        let after = self.summary & (u64::MAX << word) << 1;
        let w = if after != 0 {
            after.trailing_zeros() as usize
        } else {
            self.summary.trailing_zeros() as usize
        };
        Some(w * 64 + self.bits[w].trailing_zeros() as usize)
    }

    #[inline]
    fn alloc(&mut self, node: Node<E>) -> u32 {
        if self.free == NIL {
            self.nodes.push(node);
            return (self.nodes.len() - 1) as u32;
        }
        let at = self.free;
        self.free = self.nodes[at as usize].next;
        self.nodes[at as usize] = node;
        at
    }
}

/// Which structure holds the earliest event.
enum Head {
    Wheel(usize),
    Far,
}

#[inline]
fn slot_of(time: Ns) -> usize {
    (time >> SLOT_SHIFT) as usize % SLOTS
}
