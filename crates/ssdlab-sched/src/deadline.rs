//! `deadline`: the single-queue deadline elevator of Linux 2.6.30
//! (block/deadline-iosched.c), the default of many distributions for SATA
//! SSDs. mq_deadline.rs models its blk-mq successor; this one has no
//! priority levels, no in-flight accounting and no depth limit.
//!
//! Per direction (a discard is a write) a tree of requests by start sector
//! and a FIFO by insertion; a request's deadline is its insertion plus
//! `read_expire` or `write_expire`, so FIFO order is deadline order.
//! Dispatch runs in batches of one direction:
//!
//! - a batch continues with `next_rq`, the request after the last
//!   dispatched one in sector order, until it has `fifo_batch` requests or
//!   the direction has nothing further up. Only that direction keeps a
//!   `next_rq`: the other one's is cleared, so a batch never switches;
//! - a new batch takes reads, unless writes are pending and reads have
//!   already been chosen over them `writes_starved` times. It starts at the
//!   direction's `next_rq`, or at the FIFO head if that head's deadline has
//!   passed (strictly: the kernel's time_after) or there is no `next_rq`.
//!   Expiry is looked at only there: a running batch is never cut short.
//!
//! Kernel details kept that mq-deadline lost or never had:
//!
//! - `next_rq` is fixed when a request leaves, so a request inserted
//!   between the last dispatched one and `next_rq` is passed over by the
//!   running batch (mq-deadline looks the position up afresh).
//! - The sort tree holds one request per start sector: inserting a second
//!   one pushes the queued one out to the dispatch list at once (the
//!   `__alias` loop of deadline_add_rq_rb).
//! - The state starts zeroed: the first batch is not taken as following a
//!   write batch, unlike mq-deadline's `last_dir = WRITE`.
//! - Merging is the elevator core's (elevator_merge.rs: the one-hit cache
//!   and the back-merge hash), then deadline's own front merge through the
//!   sort tree when `front_merges` is set. The cache front-merges even with
//!   `front_merges=0`, as in the kernel.
//! - A flush or FUA request is a barrier, as 2.6.30 inserted one
//!   (ELEVATOR_INSERT_BACK): the elevator is drained onto the dispatch list
//!   in its own order, then the flush follows and nothing queued later
//!   passes it.
//!
//! Not modelled: request-to-request merges after a bio merge (and with them
//! the FIFO-time adjustment of deadline_merged_requests), the ordered
//! sequence that holds a barrier until the requests in flight are done, and
//! jiffies: times are exact nanoseconds.

use super::deadline_tunables::{FRONT_MERGES, READ_EXPIRE, WRITES_STARVED, WRITE_EXPIRE};
use super::elevator_merge::ElevatorMerge;
use super::merge::may_merge;
use super::request::{data_dir, READ, WRITE};
use super::{MergeKind, Request, Scheduler, SchedulerEntry, Tunable, TunableKind, Tunables};
use ssdlab_protocol::Ns;
use std::collections::{BTreeMap, BTreeSet, VecDeque};

const TUNABLES: &[Tunable] = &[
    READ_EXPIRE,
    WRITE_EXPIRE,
    WRITES_STARVED,
    FRONT_MERGES,
    Tunable {
        name: "fifo_batch",
        kind: TunableKind::Int {
            min: 0,
            max: 1 << 20,
        },
        default: 16,
        help: "requests per sector-ordered batch (0: every request starts a batch)",
    },
];

pub const ENTRY: SchedulerEntry = SchedulerEntry {
    name: "deadline",
    help: "Linux 2.6.30 deadline elevator: sector-ordered batches with read/write deadlines",
    tunables: TUNABLES,
    make: |t| Box::new(Deadline::new(t)),
};

struct Queued {
    rq: Request,
    /// Insertion order, the FIFO key.
    seq: u64,
    inserted: Ns,
}

pub struct Deadline {
    expire: [Ns; 2],
    writes_starved: u32,
    front_merges: bool,
    fifo_batch: u32,
    /// The requests in the elevator, by id.
    rqs: BTreeMap<u64, Queued>,
    /// Per direction, start sector → id: the sort tree.
    sorted: [BTreeMap<u64, u64>; 2],
    /// Per direction, (seq, id) oldest first: the FIFO.
    fifo: [BTreeSet<(u64, u64)>; 2],
    /// Where a batch goes on; set for one direction at most.
    next_rq: [Option<u64>; 2],
    /// Requests of the running batch so far.
    batching: u32,
    /// Times reads were chosen while writes were pending, since the last
    /// write batch.
    starved: u32,
    seq: u64,
    /// Requests out of the elevator, waiting for the driver (the request
    /// queue's dispatch list): the one dispatch chose, or the ones a flush
    /// or a sector alias pushed out.
    dispatch_list: VecDeque<Request>,
    merges: ElevatorMerge,
}

impl Deadline {
    pub fn new(t: &Tunables) -> Self {
        Deadline {
            expire: [t.get("read_expire") as Ns, t.get("write_expire") as Ns],
            writes_starved: t.get("writes_starved") as u32,
            front_merges: t.get("front_merges") != 0,
            fifo_batch: t.get("fifo_batch") as u32,
            rqs: BTreeMap::new(),
            sorted: Default::default(),
            fifo: Default::default(),
            next_rq: [None, None],
            batching: 0,
            starved: 0,
            seq: 0,
            dispatch_list: VecDeque::new(),
            merges: ElevatorMerge::default(),
        }
    }

    /// The queued request after `sector` in direction `d`'s sort order.
    fn latter(&self, d: usize, sector: u64) -> Option<u64> {
        let after = sector.checked_add(1)?;
        self.sorted[d].range(after..).next().map(|(_, &id)| id)
    }

    fn fifo_head(&self, d: usize) -> Option<u64> {
        self.fifo[d].first().map(|&(_, id)| id)
    }

    fn fifo_expired(&self, d: usize, now: Ns) -> bool {
        self.fifo_head(d)
            .is_some_and(|id| now > self.rqs[&id].inserted.saturating_add(self.expire[d]))
    }

    /// deadline_move_request: `id` leaves the elevator for the dispatch
    /// list, and the request after it becomes where a batch goes on.
    fn move_to_dispatch(&mut self, id: u64) {
        let (d, sector) = {
            let rq = &self.rqs[&id].rq;
            (data_dir(rq.dir), rq.sector)
        };
        self.next_rq = [None, None];
        self.next_rq[d] = self.latter(d, sector);
        let q = self.rqs.remove(&id).expect("moved request is queued");
        self.sorted[d].remove(&sector);
        self.fifo[d].remove(&(q.seq, id));
        self.merges.dispatched(&q.rq);
        self.dispatch_list.push_back(q.rq);
    }

    /// deadline_add_rq_rb: a queued request already starting at `sector`
    /// leaves at once, so the tree keeps one request per start sector.
    fn add_sorted(&mut self, d: usize, sector: u64, id: u64) {
        while let Some(alias) = self.sorted[d].get(&sector).copied() {
            self.move_to_dispatch(alias);
        }
        self.sorted[d].insert(sector, id);
    }

    /// Direction of a new batch: reads, unless writes are pending and reads
    /// were already chosen over them `writes_starved` times.
    fn choose_dir(&mut self) -> Option<usize> {
        let (reads, writes) = (!self.fifo[READ].is_empty(), !self.fifo[WRITE].is_empty());
        if reads {
            if !writes {
                return Some(READ);
            }
            let passed_over = self.starved;
            self.starved += 1;
            if passed_over < self.writes_starved {
                return Some(READ);
            }
        } else if !writes {
            return None;
        }
        self.starved = 0;
        Some(WRITE)
    }

    /// deadline_dispatch_requests: moves one request to the dispatch list;
    /// false when the elevator is empty.
    fn dispatch_one(&mut self, now: Ns) -> bool {
        let batch_next = self.next_rq[WRITE].or(self.next_rq[READ]);
        if let Some(id) = batch_next.filter(|_| self.batching < self.fifo_batch) {
            self.batching += 1;
            self.move_to_dispatch(id);
            return true;
        }
        let Some(d) = self.choose_dir() else {
            return false;
        };
        let id = match self.next_rq[d] {
            Some(id) if !self.fifo_expired(d, now) => id,
            // Expired, a batch of the other direction last, or nothing
            // further up: start again from the oldest.
            _ => self
                .fifo_head(d)
                .expect("the chosen direction has requests"),
        };
        self.batching = 1;
        self.move_to_dispatch(id);
        true
    }

    /// deadline_merge: the queued request that starts where `bio` ends.
    fn front_merge_target(&self, bio: &Request) -> Option<(u64, MergeKind)> {
        if !self.front_merges {
            return None;
        }
        let id = *self.sorted[data_dir(bio.dir)].get(&bio.end_sector())?;
        may_merge(&self.rqs[&id].rq, bio).then_some((id, MergeKind::Front))
    }
}

impl Scheduler for Deadline {
    fn name(&self) -> &'static str {
        "deadline"
    }

    fn insert(&mut self, rq: Request, now: Ns) {
        if rq.flush || rq.fua {
            while self.dispatch_one(now) {}
            self.dispatch_list.push_back(rq);
            return;
        }
        let (d, sector, id) = (data_dir(rq.dir), rq.sector, rq.id);
        self.seq += 1;
        self.merges.inserted(&rq);
        self.rqs.insert(
            id,
            Queued {
                rq,
                seq: self.seq,
                inserted: now,
            },
        );
        self.add_sorted(d, sector, id);
        self.fifo[d].insert((self.seq, id));
    }

    fn dispatch(&mut self, now: Ns) -> Option<Request> {
        if self.dispatch_list.is_empty() {
            self.dispatch_one(now);
        }
        let mut rq = self.dispatch_list.pop_front()?;
        rq.dispatch_ns = now;
        Some(rq)
    }

    fn has_work(&self) -> bool {
        !self.dispatch_list.is_empty() || !self.rqs.is_empty()
    }

    fn completed(&mut self, _rq: &Request, _now: Ns) {}

    fn bio_merge(&mut self, bio: &Request, max_bytes: u32) -> Option<(u64, MergeKind)> {
        let rqs = &self.rqs;
        let (id, kind) = self
            .merges
            .find(bio, |id| &rqs[&id].rq)
            .or_else(|| self.front_merge_target(bio))?;
        let q = self.rqs.get_mut(&id).expect("merge candidate is queued");
        let old_sector = q.rq.sector;
        if !self.merges.merge(&mut q.rq, bio, kind, max_bytes) {
            return None;
        }
        if kind == MergeKind::Front {
            // deadline_merged_request: the request starts elsewhere now.
            let d = data_dir(bio.dir);
            self.sorted[d].remove(&old_sector);
            self.add_sorted(d, bio.sector, id);
        }
        Some((id, kind))
    }

    fn queued(&self) -> usize {
        self.dispatch_list.len() + self.rqs.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bundle::tests::{drained_ids as ids, rq};
    use proptest::prelude::*;
    use ssdlab_protocol::Dir;

    const MS: Ns = 1_000_000;
    const S: Ns = 1_000_000_000;

    fn sched(spec: &str) -> Box<dyn Scheduler> {
        crate::build(spec).unwrap()
    }

    fn read(id: u64, sector: u64) -> Request {
        rq(id, Dir::Read, sector, 4096, true, 0)
    }

    fn write(id: u64, sector: u64) -> Request {
        rq(id, Dir::Write, sector, 4096, false, 0)
    }

    fn dirs(s: &mut dyn Scheduler, now: Ns) -> Vec<Dir> {
        std::iter::from_fn(|| s.dispatch(now))
            .map(|r| r.dir)
            .collect()
    }

    /// Reads 1..=7 at sectors 0, 800, 8, 16, 24, 32, 40, all inserted at 0.
    fn seven_reads(spec: &str) -> Box<dyn Scheduler> {
        let mut s = sched(spec);
        for (id, sector) in [(1, 0), (2, 800), (3, 8), (4, 16), (5, 24), (6, 32), (7, 40)] {
            s.insert(read(id, sector), 0);
        }
        s
    }

    #[test]
    fn batches_of_fifo_batch_in_sector_order() {
        // Nothing expired: the first batch starts at the FIFO head, the next
        // goes on in sector order from where it stopped, and the oldest,
        // farthest request waits for the end of the sweep.
        let mut s = seven_reads("deadline:fifo_batch=3");
        assert_eq!(ids(&mut *s, 0), vec![1, 3, 4, 5, 6, 7, 2]);
        // All expired: the running batch still completes, but the next one
        // starts at the FIFO head.
        let mut s = seven_reads("deadline:fifo_batch=3");
        assert_eq!(ids(&mut *s, S), vec![1, 3, 4, 2, 5, 6, 7]);
        // Default fifo_batch=16: one sweep.
        let mut s = seven_reads("deadline");
        assert_eq!(ids(&mut *s, S), vec![1, 3, 4, 5, 6, 7, 2]);
    }

    /// Read 1 (sector 100) is dispatched at 2 ms; read 3 (200) is next in
    /// sector order, read 2 (500, inserted at 0) heads the FIFO.
    fn expiry_setup(spec: &str, dir: Dir) -> Box<dyn Scheduler> {
        let mut s = sched(spec);
        s.insert(rq(1, dir, 100, 4096, true, 0), 0);
        s.insert(rq(2, dir, 500, 4096, true, 0), 0);
        s.insert(rq(3, dir, 200, 4096, true, MS), MS);
        assert_eq!(s.dispatch(2 * MS).unwrap().id, 1);
        s
    }

    #[test]
    fn an_expired_read_is_served_when_the_next_batch_starts() {
        let spec = "deadline:fifo_batch=1";
        let mut s = expiry_setup(spec, Dir::Read);
        assert_eq!(s.dispatch(500 * MS).unwrap().id, 3, "due, not yet passed");
        let mut s = expiry_setup(spec, Dir::Read);
        assert_eq!(
            s.dispatch(500 * MS + 1).unwrap().id,
            2,
            "read_expire passed"
        );
        let mut s = expiry_setup("deadline:fifo_batch=1,read_expire=10", Dir::Read);
        assert_eq!(s.dispatch(11 * MS).unwrap().id, 2, "a bare number is ms");
    }

    #[test]
    fn writes_expire_after_write_expire() {
        let spec = "deadline:fifo_batch=1";
        let mut s = expiry_setup(spec, Dir::Write);
        assert_eq!(s.dispatch(S).unwrap().id, 3, "read_expire does not apply");
        let mut s = expiry_setup(spec, Dir::Write);
        assert_eq!(s.dispatch(5 * S).unwrap().id, 3);
        let mut s = expiry_setup(spec, Dir::Write);
        assert_eq!(s.dispatch(5 * S + 1).unwrap().id, 2, "write_expire passed");
        let mut s = expiry_setup("deadline:fifo_batch=1,write_expire=2s", Dir::Write);
        assert_eq!(s.dispatch(2 * S + 1).unwrap().id, 2);
    }

    #[test]
    fn writes_starved_bounds_read_preference() {
        use Dir::*;
        let mixed = |spec: &str, n: u64| {
            let mut s = sched(spec);
            for i in 0..n {
                s.insert(read(i, 1000 * i), 0);
                s.insert(write(100 + i, 1000 * i), 0);
            }
            s
        };
        // Unlike mq-deadline, the first batch is a read one.
        let mut s = mixed("deadline:fifo_batch=1,writes_starved=2", 6);
        let got = dirs(&mut *s, MS);
        assert_eq!(
            got[..9],
            [Read, Read, Write, Read, Read, Write, Read, Read, Write]
        );
        // writes_starved=0: pending writes always win a new batch.
        let mut s = mixed("deadline:fifo_batch=1,writes_starved=0", 3);
        assert_eq!(
            dirs(&mut *s, MS),
            vec![Write, Write, Write, Read, Read, Read]
        );
        // A batch does not switch direction: with fifo_batch=4 the reads go
        // four at a time, the writes whenever reads were chosen twice.
        let mut s = mixed("deadline:fifo_batch=4,writes_starved=1", 8);
        let got = dirs(&mut *s, MS);
        let runs: Vec<(Dir, usize)> = got
            .chunk_by(|a, b| a == b)
            .map(|c| (c[0], c.len()))
            .collect();
        assert_eq!(runs, vec![(Read, 4), (Write, 4), (Read, 4), (Write, 4)]);
    }

    #[test]
    fn a_request_inserted_behind_the_batch_position_waits() {
        let mut s = sched("deadline");
        s.insert(read(1, 100), 0);
        s.insert(read(2, 300), 0);
        assert_eq!(s.dispatch(0).unwrap().id, 1); // next_rq: read 2
        s.insert(read(3, 200), 0);
        assert_eq!(ids(&mut *s, 0), vec![2, 3]);
    }

    #[test]
    fn a_request_at_a_queued_start_sector_pushes_the_old_one_out() {
        let mut s = sched("deadline");
        s.insert(write(1, 100), 0);
        s.insert(write(2, 500), 0);
        s.insert(write(3, 100), 0);
        assert_eq!(s.queued(), 3);
        // 1 is on the dispatch list; the batch goes on after it, past 3.
        assert_eq!(ids(&mut *s, 0), vec![1, 2, 3]);
    }

    #[test]
    fn merges_through_the_cache_the_hash_and_the_sort_tree() {
        let mut s = sched("deadline");
        s.insert(read(1, 1000), 0); // 1000..1008, cached
        s.insert(read(2, 2000), 0); // 2000..2008
        assert_eq!(
            s.bio_merge(&read(0, 2008), 1 << 20),
            Some((2, MergeKind::Back)),
            "hash"
        );
        // The cache is request 2 now; request 1 takes a front merge through
        // the sort tree.
        assert_eq!(
            s.bio_merge(&read(0, 992), 1 << 20),
            Some((1, MergeKind::Front))
        );
        assert_eq!(s.bio_merge(&write(0, 984), 1 << 20), None, "direction");
        assert_eq!(s.bio_merge(&read(0, 984), 8192), None, "max_bytes");
        let r = s.dispatch(0).unwrap();
        assert_eq!((r.id, r.sector, r.bytes), (1, 992, 8192));

        let mut s = sched("deadline:front_merges=0");
        s.insert(read(1, 1000), 0); // cached
        s.insert(read(2, 2000), 0);
        assert_eq!(s.bio_merge(&read(0, 1992), 1 << 20), None);
        assert_eq!(
            s.bio_merge(&read(0, 992), 1 << 20),
            Some((1, MergeKind::Front)),
            "the cache front-merges whatever front_merges says"
        );
    }

    #[test]
    fn a_front_merge_onto_a_queued_start_sector_pushes_that_request_out() {
        let mut s = sched("deadline");
        s.insert(write(1, 96), 0); // 96..104, cached
        s.insert(write(2, 200), 0); // 200..208
        s.insert(write(3, 104), 0); // 104..112
        s.insert(rq(4, Dir::Write, 192, 2048, false, 0), 0); // 192..196
                                                             // A bio 192..200 front-merges into 2, which then starts at 192,
                                                             // where 4 starts: 4 leaves at once.
        assert_eq!(
            s.bio_merge(&write(0, 192), 1 << 20),
            Some((2, MergeKind::Front))
        );
        let out: Vec<(u64, u64)> = std::iter::from_fn(|| s.dispatch(0))
            .map(|r| (r.id, r.sector))
            .collect();
        assert_eq!(out, vec![(4, 192), (1, 96), (3, 104), (2, 192)]);
    }

    #[test]
    fn a_flush_drains_the_elevator_in_its_order_and_is_not_passed() {
        let mut s = sched("deadline:fifo_batch=2");
        s.insert(read(1, 500), 0);
        s.insert(write(2, 0), 0);
        s.insert(read(3, 100), 0);
        s.insert(read(4, 600), 0);
        let mut flush = rq(5, Dir::Write, 0, 0, true, 0);
        flush.flush = true;
        s.insert(flush, 0);
        assert_eq!(s.queued(), 5);
        assert_eq!(
            s.bio_merge(&read(0, 508), 1 << 20),
            None,
            "drained requests take no bios"
        );
        s.insert(read(6, 50), 0);
        let mut fua = write(7, 700);
        fua.fua = true;
        s.insert(fua, 0);
        assert_eq!(s.bio_merge(&write(0, 708), 1 << 20), None, "into FUA");
        // Reads in batches of two from the FIFO head (1, 4, then 3 from
        // the head again), the write, the flush, then the later read and
        // the FUA write behind it.
        assert_eq!(ids(&mut *s, 0), vec![1, 4, 3, 2, 5, 6, 7]);
    }

    proptest! {
        /// Driven as the host drives it (merges, four device slots, service
        /// times, flushes): `has_work` agrees with `dispatch`, every request
        /// leaves exactly once and nothing stays behind.
        #[test]
        fn host_driven_runs_conserve_requests(
            fifo_batch in 0u32..20,
            writes_starved in 0u32..4,
            expire_us in 0u64..3000,
            arrivals in prop::collection::vec((0u8..6, 0u64..64, 1u32..4, 0u64..400), 1..200),
        ) {
            let mut s = sched(&format!(
                "deadline:fifo_batch={fifo_batch},writes_starved={writes_starved},read_expire={expire_us}us,write_expire={}us",
                2 * expire_us
            ));
            let run = crate::bundle::tests::drive(&mut *s, &arrivals);
            prop_assert!(run.is_ok(), "{}", run.unwrap_err());
        }
    }
}
