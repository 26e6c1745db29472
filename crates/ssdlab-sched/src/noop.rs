//! `noop`: the single-queue noop elevator of Linux 2.6.30
//! (block/noop-iosched.c), the usual choice for SATA SSDs of that era.
//! Requests leave in arrival order.
//!
//! Merging is the elevator core's alone (elevator_merge.rs): a bio
//! back-merges into any queued request it continues (the request hash), and
//! front-merges only into the one-hit cache `last_merge`. elv_merge asks the
//! elevator's own merge function only after those lookups, and noop has
//! none, so there are no other front merges.
//!
//! A flush or FUA request is a barrier, as 2.6.30 inserted one
//! (__elv_add_request turns a sorted insert of a barrier into
//! ELEVATOR_INSERT_BACK): the elevator is drained onto the dispatch list
//! first, then the flush follows; requests queued before it take no more
//! bios. The order stays FIFO; the kernel's drain passes the requests
//! through elv_dispatch_sort, which can sort a run of same-direction
//! requests by sector, and that is not modelled.
//!
//! Not modelled either: the request-to-request merge the kernel tries after
//! a bio merge (attempt_back_merge, attempt_front_merge), and the ordered
//! sequence that holds a barrier until the requests in flight are done.

use super::elevator_merge::ElevatorMerge;
use super::{MergeKind, Request, Scheduler, SchedulerEntry};
use ssdlab_protocol::Ns;
use std::collections::{BTreeMap, VecDeque};

pub const ENTRY: SchedulerEntry = SchedulerEntry {
    name: "noop",
    help:
        "Linux 2.6.30 noop elevator: FIFO with the elevator core's back (and cached front) merges",
    tunables: &[],
    make: |_| Box::new(Noop::default()),
};

#[derive(Default)]
pub struct Noop {
    /// noop's own list: ids of the requests in the elevator, oldest first.
    fifo: VecDeque<u64>,
    /// The requests in the elevator, by id.
    rqs: BTreeMap<u64, Request>,
    /// Requests out of the elevator waiting for the driver (the request
    /// queue's dispatch list): only a flush puts them here.
    dispatch_list: VecDeque<Request>,
    merges: ElevatorMerge,
}

impl Noop {
    /// Takes the oldest request out of the elevator.
    fn take_oldest(&mut self) -> Option<Request> {
        let id = self.fifo.pop_front()?;
        let rq = self.rqs.remove(&id).expect("listed request is queued");
        self.merges.dispatched(&rq);
        Some(rq)
    }
}

impl Scheduler for Noop {
    fn name(&self) -> &'static str {
        "noop"
    }

    fn insert(&mut self, rq: Request, _now: Ns) {
        if rq.flush || rq.fua {
            while let Some(old) = self.take_oldest() {
                self.dispatch_list.push_back(old);
            }
            self.dispatch_list.push_back(rq);
            return;
        }
        self.merges.inserted(&rq);
        self.fifo.push_back(rq.id);
        self.rqs.insert(rq.id, rq);
    }

    fn dispatch(&mut self, now: Ns) -> Option<Request> {
        let mut rq = match self.dispatch_list.pop_front() {
            Some(rq) => rq,
            None => self.take_oldest()?,
        };
        rq.dispatch_ns = now;
        Some(rq)
    }

    fn has_work(&self) -> bool {
        !self.dispatch_list.is_empty() || !self.fifo.is_empty()
    }

    fn completed(&mut self, _rq: &Request, _now: Ns) {}

    fn bio_merge(&mut self, bio: &Request, max_bytes: u32) -> Option<(u64, MergeKind)> {
        let rqs = &self.rqs;
        let (id, kind) = self.merges.find(bio, |id| &rqs[&id])?;
        let rq = self.rqs.get_mut(&id).expect("merge candidate is queued");
        self.merges
            .merge(rq, bio, kind, max_bytes)
            .then_some((id, kind))
    }

    fn queued(&self) -> usize {
        self.dispatch_list.len() + self.fifo.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bundle::tests::{built, drained_ids as ids, rq};
    use proptest::prelude::*;
    use ssdlab_protocol::Dir;

    fn write(id: u64, sector: u64) -> Request {
        rq(id, Dir::Write, sector, 4096, true, 0)
    }

    fn read(id: u64, sector: u64) -> Request {
        rq(id, Dir::Read, sector, 4096, true, 0)
    }

    #[test]
    fn requests_leave_in_arrival_order() {
        let mut s = built("noop");
        for (id, sector) in [(1, 800), (2, 0), (3, 400), (4, 8)] {
            s.insert(write(id, sector), 0);
        }
        s.insert(read(5, 16), 0);
        assert_eq!(s.queued(), 5);
        assert!(s.has_work());
        assert_eq!(ids(&mut *s, 0), vec![1, 2, 3, 4, 5]);
        assert!(!s.has_work());
        assert!(build_fails("noop:fifo_batch=1"), "noop has no tunables");
    }

    fn build_fails(spec: &str) -> bool {
        crate::build(spec).is_err()
    }

    #[test]
    fn a_bio_back_merges_into_any_queued_request_it_continues() {
        let mut s = built("noop");
        s.insert(write(1, 0), 0); // 0..8, the cached request
        s.insert(write(2, 100), 0); // 100..108
        s.insert(read(3, 108), 0);
        // Through the hash, not the cache; same direction only.
        assert_eq!(
            s.bio_merge(&write(0, 108), 1 << 20),
            Some((2, MergeKind::Back))
        );
        assert_eq!(
            s.bio_merge(&read(0, 124), 1 << 20),
            None,
            "read 3 ends at 116"
        );
        assert_eq!(
            s.bio_merge(&read(0, 116), 1 << 20),
            Some((3, MergeKind::Back))
        );
        let out: Vec<(u64, u64, u32)> = std::iter::from_fn(|| s.dispatch(0))
            .map(|r| (r.id, r.sector, r.bytes))
            .collect();
        assert_eq!(out, vec![(1, 0, 4096), (2, 100, 8192), (3, 108, 8192)]);
    }

    #[test]
    fn front_merges_only_into_the_cached_request() {
        let mut s = built("noop");
        s.insert(write(1, 100), 0); // cached: the first inserted
        s.insert(write(2, 200), 0);
        assert_eq!(
            s.bio_merge(&write(0, 192), 1 << 20),
            None,
            "no hash front merge"
        );
        assert_eq!(
            s.bio_merge(&write(0, 92), 1 << 20),
            Some((1, MergeKind::Front))
        );
        // A back merge into request 2 makes it the cached one...
        assert_eq!(
            s.bio_merge(&write(0, 208), 1 << 20),
            Some((2, MergeKind::Back))
        );
        // ...so now it takes a front merge and request 1 does not.
        assert_eq!(
            s.bio_merge(&write(0, 192), 1 << 20),
            Some((2, MergeKind::Front))
        );
        assert_eq!(s.bio_merge(&write(0, 84), 1 << 20), None);
        let r = s.dispatch(0).unwrap();
        assert_eq!((r.id, r.sector, r.bytes), (1, 92, 8192));
        let r = s.dispatch(0).unwrap();
        assert_eq!((r.id, r.sector, r.bytes), (2, 192, 12288));
    }

    #[test]
    fn the_first_candidate_decides_even_when_too_large() {
        let mut s = built("noop");
        s.insert(rq(1, Dir::Write, 0, 8192, true, 0), 0); // 0..16, cached
        s.insert(rq(2, Dir::Write, 12, 2048, true, 0), 0); // 12..16
                                                           // The cached request continues at 16 but would grow past 8 KiB: the
                                                           // kernel makes a new request rather than try request 2.
        assert_eq!(s.bio_merge(&write(0, 16), 8192), None);
        assert_eq!(
            s.bio_merge(&write(0, 16), 12288),
            Some((1, MergeKind::Back))
        );
    }

    #[test]
    fn a_dispatched_request_takes_no_bio() {
        let mut s = built("noop");
        s.insert(write(1, 0), 0);
        s.dispatch(0).unwrap();
        assert_eq!(s.bio_merge(&write(0, 8), 1 << 20), None);
    }

    #[test]
    fn a_flush_drains_the_elevator_and_nothing_merges_across_it() {
        let mut s = built("noop");
        s.insert(write(1, 0), 0);
        s.insert(write(2, 100), 0);
        let mut flush = rq(3, Dir::Write, 0, 0, true, 0);
        flush.flush = true;
        s.insert(flush, 0);
        assert_eq!(s.queued(), 3);
        // The requests before the flush are on the dispatch list now.
        assert_eq!(s.bio_merge(&write(0, 8), 1 << 20), None);
        assert_eq!(s.bio_merge(&write(0, 108), 1 << 20), None);
        let mut fua = write(4, 200);
        fua.fua = true;
        s.insert(fua, 0);
        assert_eq!(s.bio_merge(&write(0, 208), 1 << 20), None, "into FUA");
        s.insert(write(5, 300), 0);
        let mut flush_bio = write(0, 308);
        flush_bio.flush = true;
        assert_eq!(s.bio_merge(&flush_bio, 1 << 20), None, "a flush bio");
        assert_eq!(ids(&mut *s, 0), vec![1, 2, 3, 4, 5]);
    }

    proptest! {
        /// Driven as the host drives it (merges, four device slots, service
        /// times, flushes): `has_work` agrees with `dispatch`, every request
        /// leaves exactly once and nothing stays behind.
        #[test]
        fn host_driven_runs_conserve_requests(
            arrivals in prop::collection::vec((0u8..6, 0u64..64, 1u32..4, 0u64..400), 1..200),
        ) {
            let mut s = built("noop");
            let run = crate::bundle::tests::drive(&mut *s, &arrivals);
            prop_assert!(run.is_ok(), "{}", run.unwrap_err());
        }
    }
}
