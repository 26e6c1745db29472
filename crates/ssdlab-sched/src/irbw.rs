//! `irbw-fifo` and `irbw-rp`: Immediately Read, Bundled Write (Kim et al.,
//! "Disk Schedulers for Solid State Drives", EMSOFT 2009).
//!
//! Reads (and discards) are queued singly and dispatched at once; every write,
//! synchronous or not, joins the open bundle, which closes when it adds up to
//! `lb_size` bytes. A started bundle leaves back to back. IRBW-FIFO serves
//! the older of the read queue's head and the oldest closed bundle;
//! IRBW-FIFO-RP (read preference) serves reads first and has no starvation
//! guard. A partial bundle leaves only when nothing else is queued and the
//! device is idle (the paper has no timer; this is a choice of ours, see
//! docs/model.md).
//!
//! A flush or FUA request (the paper has none) closes the open bundle, so
//! its writes leave without waiting for the bundle to fill or the device to
//! idle, and is itself queued singly with the reads: IRBW-FIFO serves it
//! after that bundle, which is older, and IRBW-FIFO-RP before it, as any
//! read.

use super::bundle::Bundler;
use super::{MergeKind, Request, Scheduler, SchedulerEntry, Tunable, TunableKind, Tunables};
use ssdlab_protocol::Dir;
use ssdlab_protocol::Ns;
use std::collections::VecDeque;

pub(super) const LB_SIZE: Tunable = Tunable {
    name: "lb_size",
    kind: TunableKind::Bytes {
        min: 4096,
        max: 1 << 30,
    },
    default: 1 << 20,
    help: "bundle size: the FTL's logical block (a bundle closes at this many bytes)",
};

const TUNABLES: &[Tunable] = &[LB_SIZE];

pub const FIFO_ENTRY: SchedulerEntry = SchedulerEntry {
    name: "irbw-fifo",
    help:
        "IRBW-FIFO (EMSOFT'09): reads at once, writes in logical-block bundles, FIFO between them",
    tunables: TUNABLES,
    make: |t| Box::new(Irbw::new(t, false)),
};

pub const RP_ENTRY: SchedulerEntry = SchedulerEntry {
    name: "irbw-rp",
    help: "IRBW-FIFO-RP (EMSOFT'09): reads at once and before any bundle, writes in logical-block bundles",
    tunables: TUNABLES,
    make: |t| Box::new(Irbw::new(t, true)),
};

pub struct Irbw {
    read_preference: bool,
    /// Reads, discards, flushes and FUA writes, in arrival order: the
    /// requests dispatched singly and at once.
    reads: VecDeque<Request>,
    bundles: Bundler,
    /// Dispatched and not yet completed.
    inflight: u32,
}

impl Irbw {
    pub fn new(t: &Tunables, read_preference: bool) -> Self {
        Irbw {
            read_preference,
            reads: VecDeque::new(),
            bundles: Bundler::new(t.get("lb_size") as u64),
            inflight: 0,
        }
    }

    /// Whether the next pick is the read queue's head (else a bundle).
    fn read_goes_first(&self) -> bool {
        let Some(read) = self.reads.front() else {
            return false;
        };
        match self.bundles.oldest_closed() {
            None => true,
            Some(_) if self.read_preference => true,
            Some(b) => read.id < b.oldest_id,
        }
    }

    fn may_flush_open(&self) -> bool {
        self.inflight == 0 && self.reads.is_empty() && self.bundles.oldest_closed().is_none()
    }

    fn next(&mut self) -> Option<Request> {
        if self.bundles.in_progress() {
            return self.bundles.next_of_current();
        }
        if self.read_goes_first() {
            return self.reads.pop_front();
        }
        if self.bundles.oldest_closed().is_some() {
            self.bundles.start_closed();
        } else if self.bundles.open().is_some() && self.may_flush_open() {
            self.bundles.start_open();
        }
        self.bundles.next_of_current()
    }
}

impl Scheduler for Irbw {
    fn name(&self) -> &'static str {
        if self.read_preference {
            "irbw-rp"
        } else {
            "irbw-fifo"
        }
    }

    fn insert(&mut self, rq: Request, _now: Ns) {
        if rq.flush || rq.fua {
            self.bundles.close_for_flush();
            self.reads.push_back(rq);
            return;
        }
        match rq.dir {
            Dir::Write => self.bundles.add(rq, Ns::MAX),
            Dir::Read | Dir::Trim => self.reads.push_back(rq),
        }
    }

    fn dispatch(&mut self, now: Ns) -> Option<Request> {
        let mut rq = self.next()?;
        rq.dispatch_ns = now;
        self.inflight += 1;
        Some(rq)
    }

    fn has_work(&self) -> bool {
        self.bundles.in_progress()
            || !self.reads.is_empty()
            || self.bundles.oldest_closed().is_some()
            || (self.bundles.open().is_some() && self.may_flush_open())
    }

    fn completed(&mut self, _rq: &Request, _now: Ns) {
        self.inflight = self.inflight.saturating_sub(1);
    }

    fn bio_merge(&mut self, bio: &Request, max_bytes: u32) -> Option<(u64, MergeKind)> {
        match bio.dir {
            Dir::Write => self.bundles.merge(bio, max_bytes),
            Dir::Read | Dir::Trim => {
                super::merge::merge_into_fifo(&mut self.reads, bio, max_bytes, 8)
            }
        }
    }

    fn queued(&self) -> usize {
        self.reads.len() + self.bundles.queued()
    }

    fn counters(&self) -> Vec<(&'static str, u64)> {
        self.bundles.counters.named().to_vec()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bundle::tests::{built as irbw, drained_ids as ids, rq};
    use proptest::prelude::*;

    fn ids_n(s: &mut dyn Scheduler, n: usize) -> Vec<u64> {
        (0..n).filter_map(|_| s.dispatch(0)).map(|r| r.id).collect()
    }

    #[test]
    fn reads_pass_a_filling_bundle_and_a_full_one_leaves_back_to_back() {
        let mut s = irbw("irbw-fifo:lb_size=16k");
        s.insert(rq(1, Dir::Write, 64, 4096, true, 0), 0);
        s.insert(rq(2, Dir::Read, 0, 4096, true, 0), 0);
        assert_eq!(
            ids(&mut *s, 0),
            vec![2],
            "the partial bundle waits while a read is out"
        );
        for i in 3..=5 {
            s.insert(rq(i, Dir::Write, 64 - 8 * i, 4096, true, 0), 0);
        }
        s.insert(rq(6, Dir::Read, 0, 4096, true, 0), 0);
        // The bundle's oldest member (1) precedes read 6: FIFO serves the
        // bundle first, in sector order, then the read.
        assert_eq!(ids(&mut *s, 0), vec![5, 4, 3, 1, 6]);
    }

    #[test]
    fn read_preference_serves_reads_before_older_bundles() {
        let mut s = irbw("irbw-rp:lb_size=8k");
        s.insert(rq(1, Dir::Write, 0, 4096, true, 0), 0);
        s.insert(rq(2, Dir::Write, 80, 4096, true, 0), 0);
        s.insert(rq(3, Dir::Read, 0, 4096, true, 0), 0);
        s.insert(rq(4, Dir::Read, 8, 4096, true, 0), 0);
        assert_eq!(ids_n(&mut *s, 3), vec![3, 4, 1]);
        // A started bundle is not interrupted by a read.
        s.insert(rq(5, Dir::Read, 16, 4096, true, 0), 0);
        assert_eq!(ids(&mut *s, 0), vec![2, 5]);
    }

    #[test]
    fn a_partial_bundle_leaves_once_the_device_is_idle() {
        let mut s = irbw("irbw-rp");
        s.insert(rq(1, Dir::Read, 0, 4096, true, 0), 0);
        let read = s.dispatch(0).unwrap();
        s.insert(rq(2, Dir::Write, 8, 4096, false, 0), 0);
        assert!(!s.has_work(), "a read is still in flight");
        assert!(s.dispatch(1).is_none());
        s.completed(&read, 2);
        assert!(s.has_work());
        assert_eq!(s.dispatch(3).map(|r| r.id), Some(2));
        let c = s.counters();
        assert!(c.contains(&("bundles_partial", 1)) && c.contains(&("bundles_full", 0)));
    }

    #[test]
    fn contiguous_writes_merge_into_the_open_bundle() {
        let mut s = irbw("irbw-fifo:lb_size=8k");
        s.insert(rq(1, Dir::Write, 0, 4096, true, 0), 0);
        let hit = s.bio_merge(&rq(0, Dir::Write, 8, 4096, true, 0), 1 << 20);
        assert_eq!(hit, Some((1, MergeKind::Back)));
        assert_eq!(s.queued(), 1);
        let r = s.dispatch(0).unwrap();
        assert_eq!((r.id, r.bytes), (1, 8192));
    }

    fn flush(id: u64) -> Request {
        let mut r = rq(id, Dir::Write, 0, 0, true, 0);
        r.flush = true;
        r
    }

    #[test]
    fn a_flush_closes_the_open_bundle_and_leaves_alone() {
        // IRBW-FIFO: the bundle is older than the flush and goes first.
        let mut s = irbw("irbw-fifo");
        s.insert(rq(1, Dir::Write, 80, 4096, false, 0), 0);
        s.insert(rq(2, Dir::Write, 8, 4096, false, 0), 0);
        s.insert(rq(3, Dir::Read, 0, 4096, true, 0), 0);
        assert_eq!(ids(&mut *s, 0), vec![3], "the bundle is open");
        s.insert(flush(4), 0);
        assert_eq!(
            s.bio_merge(&rq(0, Dir::Write, 88, 4096, false, 0), 1 << 20),
            None
        );
        assert_eq!(ids(&mut *s, 0), vec![2, 1, 4]);
        let c = s.counters();
        for want in [
            ("bundles_closed_by_flush", 1),
            ("bundles_partial", 0),
            ("bundles_full", 0),
        ] {
            assert!(c.contains(&want), "{c:?} lacks {want:?}");
        }

        // IRBW-FIFO-RP: the flush is served as a read, before the bundle.
        let mut s = irbw("irbw-rp");
        s.insert(rq(1, Dir::Write, 80, 4096, false, 0), 0);
        let mut fua = rq(2, Dir::Write, 200, 4096, true, 0);
        fua.fua = true;
        s.insert(fua, 0);
        assert_eq!(ids(&mut *s, 0), vec![2, 1], "a FUA write is not bundled");
        assert!(s.counters().contains(&("bundles_closed_by_flush", 1)));

        // No open bundle: nothing to close.
        let mut s = irbw("irbw-fifo");
        s.insert(flush(1), 0);
        assert_eq!(ids(&mut *s, 0), vec![1]);
        assert!(s.counters().contains(&("bundles_closed_by_flush", 0)));
    }

    #[test]
    fn bad_lb_sizes_are_rejected() {
        assert!(crate::build("irbw-rp:lb_size=0").is_err());
        assert!(crate::build("irbw-rp:lb_size=2g").is_err());
        assert!(crate::build("irbw-rp:lb_size=lots").is_err());
        let (_, t) = crate::spec::parse("irbw-fifo:lb_size=512k").unwrap();
        assert_eq!(t.get("lb_size"), 512 << 10);
        let (_, t) = crate::spec::parse("irbw-fifo:lb_size=65536").unwrap();
        assert_eq!(t.get("lb_size"), 65536, "a bare number is in bytes");
    }

    proptest! {
        /// Driven as the host drives it (merges, four device slots, service
        /// times, flushes): `has_work` agrees with `dispatch`, every request
        /// leaves exactly once, and partial bundles do not stay behind.
        #[test]
        fn host_driven_runs_conserve_requests(
            rp in any::<bool>(),
            lb_pages in 1u32..16,
            arrivals in prop::collection::vec((0u8..6, 0u64..64, 1u32..4, 0u64..400), 1..200),
        ) {
            let name = if rp { "irbw-rp" } else { "irbw-fifo" };
            let mut s = irbw(&format!("{name}:lb_size={}k", lb_pages * 4));
            let run = crate::bundle::tests::drive(&mut *s, &arrivals);
            prop_assert!(run.is_ok(), "{}", run.unwrap_err());
        }
    }
}
