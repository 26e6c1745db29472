//! `k2`: the work-constraining K2 scheduler (Miemietz et al., RTSS 2019;
//! "K2: Work-Constraining Scheduling of NVMe-Attached Storage"; the code is
//! TUD-OS/k2-scheduler, k2.c, tag k2-rtss19).
//!
//! At most `max_inflight` requests are outstanding at the device, counted
//! device-wide. Everything else waits on the host in eight RT FIFO queues (one
//! per RT level, level 0 first) and one BE queue (BE, IDLE and unclassified),
//! served in strict priority order with no aging: a new RT request overtakes
//! all host-queued work and competes only with what is already inside.

use super::{
    IoClass, IoPrio, MergeKind, Request, Scheduler, SchedulerEntry, Tunable, TunableKind, Tunables,
};
use ssdlab_protocol::Ns;
use std::collections::VecDeque;

/// K2's staging-queue settings, shared with k2-adaptive.
pub(crate) const RT_LEVELS: Tunable = Tunable {
    name: "rt_levels",
    kind: TunableKind::Int { min: 1, max: 8 },
    default: 8,
    help: "RT staging queues; 8 = one per RT level (documented), 1 = one shared RT queue (as the original code runs)",
};
pub(crate) const MERGE: Tunable = Tunable {
    name: "merge",
    kind: TunableKind::Bool,
    default: 0,
    help: "merge contiguous same-direction bios into requests of the same queue (added after the paper)",
};

const TUNABLES: &[Tunable] = &[
    Tunable {
        name: "max_inflight",
        kind: TunableKind::Int { min: 1, max: 4096 },
        default: 32,
        help: "queue-length bound: requests dispatched and not yet completed, device-wide",
    },
    RT_LEVELS,
    MERGE,
];
pub const ENTRY: SchedulerEntry = SchedulerEntry {
    name: "k2",
    help: "K2 (RTSS'19): strict RT/BE priority queues on the host, at most max_inflight requests at the device",
    tunables: TUNABLES,
    make: |t| Box::new(K2::new(t)),
};

pub struct K2 {
    max_inflight: u32,
    rt_levels: usize,
    merge: bool,
    /// Requests dispatched and not yet completed (device-wide).
    inflight: u32,
    /// `rt_levels` RT queues, then the BE queue last.
    queues: Vec<VecDeque<Request>>,
}

impl K2 {
    pub fn new(t: &Tunables) -> Self {
        Self::with(
            t.get("max_inflight") as u32,
            t.get("rt_levels") as usize,
            t.get("merge") != 0,
        )
    }

    /// K2 with its three settings given directly (k2-adaptive builds one).
    pub(crate) fn with(max_inflight: u32, rt_levels: usize, merge: bool) -> Self {
        K2 {
            max_inflight,
            rt_levels,
            merge,
            inflight: 0,
            queues: (0..=rt_levels).map(|_| VecDeque::new()).collect(),
        }
    }

    /// A new bound, effective at the next dispatch (requests already out
    /// stay out).
    pub(crate) fn set_max_inflight(&mut self, bound: u32) {
        self.max_inflight = bound.max(1);
    }

    /// Staging queue of a priority. RT levels are spread evenly over the
    /// `rt_levels` queues keeping their order (identity for 8, all in one for
    /// 1); an out-of-range level counts as 4, as in k2.c. Everything that is
    /// not RT (BE, IDLE, NONE = BE level 4) shares the BE queue.
    fn queue_of(&self, prio: IoPrio) -> usize {
        match prio.class {
            IoClass::Rt => {
                let level = if prio.level < 8 { prio.level } else { 4 };
                level as usize * self.rt_levels / 8
            }
            IoClass::Be | IoClass::Idle | IoClass::None => self.rt_levels,
        }
    }

    /// Requests dispatched and not yet completed.
    pub(crate) fn inflight(&self) -> u32 {
        self.inflight
    }
}

impl Scheduler for K2 {
    fn name(&self) -> &'static str {
        "k2"
    }

    fn insert(&mut self, rq: Request, _now: Ns) {
        let q = self.queue_of(rq.prio);
        self.queues[q].push_back(rq);
    }

    fn dispatch(&mut self, now: Ns) -> Option<Request> {
        // The bound is re-read at every decision, so a changed bound takes
        // effect at the next dispatch, as in k2.c.
        if self.inflight >= self.max_inflight {
            return None;
        }
        // Strict priority: the first non-empty queue, RT 0..7 then BE.
        let mut rq = self.queues.iter_mut().find_map(|q| q.pop_front())?;
        rq.dispatch_ns = now;
        self.inflight += 1;
        Some(rq)
    }

    fn has_work(&self) -> bool {
        self.inflight < self.max_inflight && self.queues.iter().any(|q| !q.is_empty())
    }

    fn completed(&mut self, _rq: &Request, _now: Ns) {
        // Saturating: a request that bypassed the scheduler must not wrap it.
        self.inflight = self.inflight.saturating_sub(1);
    }

    fn bio_merge(&mut self, bio: &Request, max_bytes: u32) -> Option<(u64, MergeKind)> {
        if !self.merge {
            return None;
        }
        let q = self.queue_of(bio.prio);
        super::merge::merge_into_fifo(&mut self.queues[q], bio, max_bytes, usize::MAX)
    }

    fn queued(&self) -> usize {
        self.queues.iter().map(VecDeque::len).sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{build, SpecError};
    use proptest::prelude::*;
    use ssdlab_protocol::Dir;

    fn rq(id: u64, class: IoClass, level: u8) -> Request {
        Request {
            id,
            dir: Dir::Read,
            sector: id * 1000,
            bytes: 4096,
            prio: IoPrio { class, level },
            sync: true,
            flush: false,
            fua: false,
            job: 0,
            submit_ns: 0,
            insert_ns: 0,
            dispatch_ns: 0,
        }
    }

    fn k2(spec: &str) -> K2 {
        let (_, t) = crate::spec::parse(spec).unwrap();
        K2::new(&t)
    }

    fn drain(s: &mut K2) -> Vec<u64> {
        let mut out = vec![];
        while let Some(r) = s.dispatch(0) {
            out.push(r.id);
            s.completed(&r, 0);
        }
        out
    }

    #[test]
    fn rt_before_be_and_level0_before_level7() {
        let mut s = k2("k2");
        s.insert(rq(1, IoClass::Be, 0), 0);
        s.insert(rq(2, IoClass::None, 4), 0);
        s.insert(rq(3, IoClass::Rt, 7), 0);
        s.insert(rq(4, IoClass::Idle, 7), 0);
        s.insert(rq(5, IoClass::Rt, 0), 0);
        s.insert(rq(6, IoClass::Rt, 9), 0); // out of range: level 4
        assert_eq!(drain(&mut s), vec![5, 6, 3, 1, 2, 4]);
    }

    #[test]
    fn one_rt_level_is_fifo_across_levels() {
        let mut s = k2("k2:rt_levels=1");
        s.insert(rq(1, IoClass::Be, 0), 0);
        s.insert(rq(2, IoClass::Rt, 7), 0);
        s.insert(rq(3, IoClass::Rt, 0), 0);
        assert_eq!(drain(&mut s), vec![2, 3, 1]);
    }

    #[test]
    fn bound_blocks_until_completion() {
        let mut s = k2("k2:max_inflight=2");
        for i in 0..4 {
            s.insert(rq(i, IoClass::Be, 4), 0);
        }
        let a = s.dispatch(5).unwrap();
        assert_eq!(a.dispatch_ns, 5);
        let _b = s.dispatch(5).unwrap();
        assert!(!s.has_work());
        assert!(s.dispatch(5).is_none());
        s.completed(&a, 9);
        assert!(s.has_work());
        assert_eq!(s.dispatch(9).unwrap().id, 2);
        // Completions of unknown requests cannot drive the count below 0.
        for _ in 0..5 {
            s.completed(&a, 9);
        }
        assert_eq!(s.inflight(), 0);
    }

    #[test]
    fn spec_strings_are_validated() {
        for bad in [
            "k2:max_inflight=0",
            "k2:max_inflight=abc",
            "k2:max_inflight=4097",
        ] {
            assert!(
                matches!(build(bad), Err(SpecError::BadValue { .. })),
                "{bad}"
            );
        }
        assert!(matches!(
            build("k2:bogus=1"),
            Err(SpecError::UnknownTunable { .. })
        ));
        assert_eq!(build("k2:max_inflight=8,merge=1").unwrap().name(), "k2");
    }

    #[test]
    fn merge_only_when_enabled_same_queue_and_within_limit() {
        let mut off = k2("k2");
        off.insert(rq(1, IoClass::Be, 4), 0);
        let mut bio = rq(2, IoClass::Be, 4);
        bio.sector = 1008;
        assert_eq!(off.bio_merge(&bio, 1 << 20), None);

        let mut s = k2("k2:merge=1");
        s.insert(rq(1, IoClass::Be, 4), 0); // sectors 1000..1008
        assert_eq!(s.bio_merge(&bio, 8192), Some((1, MergeKind::Back)));
        let mut front = rq(3, IoClass::Be, 4);
        front.sector = 992;
        assert_eq!(s.bio_merge(&front, 8192), None, "max_bytes");
        assert_eq!(s.bio_merge(&front, 16384), Some((1, MergeKind::Front)));
        let mut rt = rq(4, IoClass::Rt, 0);
        rt.sector = 1016;
        assert_eq!(s.bio_merge(&rt, 1 << 20), None, "other queue");
        let r = s.dispatch(0).unwrap();
        assert_eq!((r.sector, r.bytes), (992, 12288));
    }

    #[derive(Debug, Clone)]
    enum Op {
        Insert(u8, u8),
        Dispatch,
        Complete(usize),
    }

    fn op() -> impl Strategy<Value = Op> {
        prop_oneof![
            (0u8..4, 0u8..10).prop_map(|(c, l)| Op::Insert(c, l)),
            Just(Op::Dispatch),
            (0usize..64).prop_map(Op::Complete),
        ]
    }

    proptest! {
        /// Never more than max_inflight outstanding; every dispatch takes the
        /// best queued priority; FIFO inside a queue.
        #[test]
        fn bound_and_strict_priority(max in 1u32..8, ops in prop::collection::vec(op(), 1..300)) {
            let mut s = k2(&format!("k2:max_inflight={max}"));
            let classes = [IoClass::Rt, IoClass::Be, IoClass::Idle, IoClass::None];
            let mut outstanding: Vec<Request> = vec![];
            let mut last_id_per_queue = [None; 9];
            for (id, o) in ops.into_iter().enumerate() {
                match o {
                    Op::Insert(c, l) => s.insert(rq(id as u64, classes[c as usize], l), 0),
                    Op::Dispatch => {
                        let best = s.queues.iter().position(|q| !q.is_empty());
                        if let Some(r) = s.dispatch(0) {
                            let q = s.queue_of(r.prio);
                            prop_assert_eq!(Some(q), best);
                            prop_assert!(last_id_per_queue[q] < Some(r.id));
                            last_id_per_queue[q] = Some(r.id);
                            outstanding.push(r);
                        } else {
                            prop_assert!(best.is_none() || outstanding.len() as u32 >= max);
                        }
                    }
                    Op::Complete(i) if !outstanding.is_empty() => {
                        let r = outstanding.remove(i % outstanding.len());
                        s.completed(&r, 0);
                    }
                    Op::Complete(_) => {}
                }
                prop_assert!(outstanding.len() as u32 <= max);
                prop_assert_eq!(s.inflight(), outstanding.len() as u32);
            }
        }
    }
}
