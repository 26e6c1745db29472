//! Properties every registered scheduler keeps, whatever the policy: each
//! inserted request is dispatched exactly once, nothing is dispatched that
//! was not inserted, `queued` counts what is inside, and with completions
//! and timers everything drains.

use proptest::prelude::*;
use ssdlab_protocol::{Dir, Ns};
use ssdlab_sched::{build, IoClass, IoPrio, Request, REGISTRY};
use std::collections::BTreeSet;

#[derive(Debug, Clone)]
enum Op {
    Insert {
        job: u32,
        class: u8,
        dir: u8,
        sync: bool,
    },
    Dispatch,
    Complete(usize),
    Wait(Ns),
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        4 => (0u32..4, 0u8..4, 0u8..3, any::<bool>())
            .prop_map(|(job, class, dir, sync)| Op::Insert { job, class, dir, sync }),
        3 => Just(Op::Dispatch),
        2 => (0usize..64).prop_map(Op::Complete),
        1 => (1u64..20_000_000).prop_map(Op::Wait),
    ]
}

fn request(id: u64, job: u32, class: u8, dir: u8, sync: bool, now: Ns) -> Request {
    Request {
        id,
        dir: [Dir::Read, Dir::Write, Dir::Trim][dir as usize],
        sector: id * 64,
        bytes: 4096,
        prio: IoPrio {
            class: [IoClass::Rt, IoClass::Be, IoClass::Idle, IoClass::None][class as usize],
            level: (id % 8) as u8,
        },
        sync,
        flush: false,
        fua: false,
        job,
        submit_ns: now,
        insert_ns: now,
        dispatch_ns: 0,
    }
}

struct Bench {
    now: Ns,
    queued: BTreeSet<u64>,
    flying: Vec<Request>,
    seen: BTreeSet<u64>,
}

impl Bench {
    fn fire_timers(&mut self, s: &mut dyn ssdlab_sched::Scheduler) {
        while let Some(t) = s.next_timer().filter(|&t| t <= self.now) {
            s.on_timer(self.now.max(t));
            if s.next_timer() == Some(t) {
                break;
            }
        }
    }

    fn dispatch(
        &mut self,
        s: &mut dyn ssdlab_sched::Scheduler,
        depth: usize,
    ) -> Result<(), TestCaseError> {
        while self.flying.len() < depth && s.has_work() {
            let Some(rq) = s.dispatch(self.now) else {
                break;
            };
            prop_assert!(
                self.queued.remove(&rq.id),
                "{}: {} not queued",
                s.name(),
                rq.id
            );
            prop_assert!(self.seen.insert(rq.id), "{}: {} twice", s.name(), rq.id);
            self.flying.push(rq);
        }
        prop_assert_eq!(s.queued(), self.queued.len(), "{} queued()", s.name());
        Ok(())
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn every_request_once_and_everything_drains(
        which in 0usize..64,
        ops in prop::collection::vec(op(), 1..200),
    ) {
        let entry = &REGISTRY[which % REGISTRY.len()];
        let mut s = build(entry.name).unwrap();
        let s = s.as_mut();
        let mut b = Bench { now: 1, queued: BTreeSet::new(), flying: vec![], seen: BTreeSet::new() };
        let depth = 8;
        for (id, o) in ops.into_iter().enumerate() {
            match o {
                Op::Insert { job, class, dir, sync } => {
                    let rq = request(id as u64 + 1, job, class, dir, sync, b.now);
                    b.queued.insert(rq.id);
                    s.insert(rq, b.now);
                }
                Op::Dispatch => b.dispatch(s, depth)?,
                Op::Complete(i) if !b.flying.is_empty() => {
                    let rq = b.flying.remove(i % b.flying.len());
                    s.completed(&rq, b.now);
                }
                Op::Complete(_) => {}
                Op::Wait(ns) => {
                    b.now += ns;
                    b.fire_timers(s);
                }
            }
        }
        // Drain: complete what flies, move time to the next timer (or a
        // second on), dispatch; a bounded number of rounds.
        for _ in 0..100_000 {
            if b.queued.is_empty() {
                break;
            }
            for rq in std::mem::take(&mut b.flying) {
                s.completed(&rq, b.now);
            }
            b.now = match s.next_timer() {
                Some(t) if t > b.now => t.min(b.now + 1_000_000_000),
                _ => b.now + 1_000_000,
            };
            b.fire_timers(s);
            b.dispatch(s, depth)?;
        }
        prop_assert!(b.queued.is_empty(), "{}: {} never dispatched", entry.name, b.queued.len());
    }
}
