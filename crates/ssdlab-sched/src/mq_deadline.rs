//! `mq-deadline` (block/mq-deadline.c, current kernels).
//!
//! Three priority levels (RT, BE, IDLE; NONE counts as BE), each with a
//! sector-sorted structure and a FIFO per direction (discards travel with
//! writes, as `rq_data_dir` says). Dispatch serves levels in order and stops
//! at the first level with I/O queued *or in flight*, so lower levels wait
//! while RT I/O is outstanding; BE/IDLE requests older than
//! `prio_aging_expire` bypass that when two or more levels are busy. Within a
//! level: sector-ordered batches of up to `fifo_batch`, reads preferred until
//! writes were passed over `writes_starved` times, and the FIFO head when its
//! deadline (insert + read/write_expire) has passed.

use super::deadline_tunables::{FRONT_MERGES, READ_EXPIRE, WRITES_STARVED, WRITE_EXPIRE};
use super::merge::{fits, may_merge};
use super::request::{data_dir, READ, WRITE};
use super::{
    IoClass, IoPrio, MergeKind, Request, Scheduler, SchedulerEntry, Tunable, TunableKind, Tunables,
};
use ssdlab_protocol::Dir;
use ssdlab_protocol::Ns;
use std::collections::{BTreeMap, BTreeSet};

const MS: i64 = 1_000_000;
const S: i64 = 1_000_000_000;

const TUNABLES: &[Tunable] = &[
    READ_EXPIRE,
    WRITE_EXPIRE,
    WRITES_STARVED,
    Tunable {
        name: "fifo_batch",
        kind: TunableKind::Int {
            min: 1,
            max: 1 << 20,
        },
        default: 16,
        help: "requests per sector-ordered batch",
    },
    FRONT_MERGES,
    Tunable {
        name: "prio_aging_expire",
        kind: TunableKind::Duration {
            min: 0,
            max: 3600 * S,
            unit_ns: MS,
        },
        default: 10 * S,
        help: "BE/IDLE requests this old are served before higher levels (sysfs unit: ms)",
    },
    Tunable {
        name: "async_depth",
        kind: TunableKind::Int {
            min: 0,
            max: 1 << 16,
        },
        default: 0,
        help: "tags for writes and async reads; 0 = 3/4 of nr_requests",
    },
];

pub const ENTRY: SchedulerEntry = SchedulerEntry {
    name: "mq-deadline",
    help: "Linux mq-deadline: per-priority sector-sorted batches with read/write deadlines",
    tunables: TUNABLES,
    make: |t| Box::new(MqDeadline::new(t)),
};

const LEVELS: usize = 3;
const RT: usize = 0;
const BE: usize = 1;
const IDLE: usize = 2;

fn level_of(prio: IoPrio) -> usize {
    match prio.class {
        IoClass::Rt => RT,
        IoClass::Be | IoClass::None => BE,
        IoClass::Idle => IDLE,
    }
}

struct Queued {
    rq: Request,
    /// Insertion order, the FIFO key (deadlines are insert + a per-direction
    /// constant, so FIFO order is deadline order).
    seq: u64,
    inserted: Ns,
}

/// One priority level: per direction a sort tree, an end-sector index (the
/// kernel's merge hash) and a FIFO, all holding request ids.
#[derive(Default)]
struct PerPrio {
    sorted: [BTreeSet<(u64, u64)>; 2],
    by_end: [BTreeSet<(u64, u64)>; 2],
    fifo: [BTreeSet<(u64, u64)>; 2],
    /// Start sector of the last dispatched request per direction.
    latest_pos: [u64; 2],
    /// Dispatched and not yet completed.
    inflight: u64,
}

impl PerPrio {
    fn queued(&self) -> usize {
        self.fifo[READ].len() + self.fifo[WRITE].len()
    }

    /// The kernel's dd_queued: inserted and not completed.
    fn busy(&self) -> bool {
        self.queued() > 0 || self.inflight > 0
    }
}

pub struct MqDeadline {
    expire: [Ns; 2],
    writes_starved: u32,
    fifo_batch: u32,
    front_merges: bool,
    aging: Ns,
    async_depth: u32,
    rqs: BTreeMap<u64, Queued>,
    prio: [PerPrio; LEVELS],
    // Batch state is device-wide, as in struct deadline_data.
    last_dir: usize,
    batching: u32,
    starved: u32,
    seq: u64,
    /// Latest `now` seen, so `has_work` can judge aging without a clock.
    clock: Ns,
}

impl MqDeadline {
    pub fn new(t: &Tunables) -> Self {
        MqDeadline {
            expire: [t.get("read_expire") as Ns, t.get("write_expire") as Ns],
            writes_starved: t.get("writes_starved") as u32,
            fifo_batch: t.get("fifo_batch") as u32,
            front_merges: t.get("front_merges") != 0,
            aging: t.get("prio_aging_expire") as Ns,
            async_depth: t.get("async_depth") as u32,
            rqs: BTreeMap::new(),
            prio: Default::default(),
            last_dir: WRITE, // dd_init_sched
            batching: 0,
            starved: 0,
            seq: 0,
            clock: 0,
        }
    }

    fn key(&self, id: u64) -> (u64, u64) {
        (self.rqs[&id].rq.sector, id)
    }

    /// Lowest-sector request at or after the last dispatched position.
    fn next_in_sector_order(&self, level: usize, dir: usize) -> Option<u64> {
        let pp = &self.prio[level];
        pp.sorted[dir]
            .range((pp.latest_pos[dir], 0)..)
            .next()
            .map(|&(_, id)| id)
    }

    fn fifo_head(&self, level: usize, dir: usize) -> Option<u64> {
        self.prio[level].fifo[dir].first().map(|&(_, id)| id)
    }

    fn fifo_expired(&self, level: usize, dir: usize, now: Ns) -> bool {
        self.fifo_head(level, dir)
            .is_some_and(|id| self.rqs[&id].inserted + self.expire[dir] <= now)
    }

    /// Direction of a new batch: reads, unless writes are pending and have
    /// been passed over `writes_starved` times already.
    fn choose_dir(&mut self, level: usize) -> Option<usize> {
        let pp = &self.prio[level];
        let (reads, writes) = (!pp.fifo[READ].is_empty(), !pp.fifo[WRITE].is_empty());
        if reads {
            let starved = self.starved;
            if writes {
                self.starved += 1;
            }
            if !(writes && starved >= self.writes_starved) {
                return Some(READ);
            }
        } else if !writes {
            return None;
        }
        self.starved = 0;
        Some(WRITE)
    }

    /// __dd_dispatch_request: one request of `level`, refused (after the
    /// batch bookkeeping, as in the kernel) if inserted after `latest_start`.
    fn dispatch_level(&mut self, level: usize, now: Ns, latest_start: Ns) -> Option<Request> {
        if self.batching < self.fifo_batch {
            if let Some(id) = self.next_in_sector_order(level, self.last_dir) {
                return self.take_if_started(level, id, latest_start, now);
            }
        }
        let dir = self.choose_dir(level)?;
        let next = self.next_in_sector_order(level, dir);
        let id = match next {
            Some(id) if !self.fifo_expired(level, dir, now) => id,
            // Expired, or nothing further up: restart from the oldest.
            _ => self.fifo_head(level, dir)?,
        };
        self.last_dir = dir;
        self.batching = 0;
        self.take_if_started(level, id, latest_start, now)
    }

    fn take_if_started(
        &mut self,
        level: usize,
        id: u64,
        latest_start: Ns,
        now: Ns,
    ) -> Option<Request> {
        if self.rqs[&id].inserted > latest_start {
            return None;
        }
        self.batching += 1;
        let mut rq = self.remove(level, id);
        self.prio[level].latest_pos[data_dir(rq.dir)] = rq.sector;
        self.prio[level].inflight += 1;
        rq.dispatch_ns = now;
        Some(rq)
    }

    fn remove(&mut self, level: usize, id: u64) -> Request {
        let q = self.rqs.remove(&id).expect("indexed request exists");
        let (pp, d) = (&mut self.prio[level], data_dir(q.rq.dir));
        pp.sorted[d].remove(&(q.rq.sector, id));
        pp.by_end[d].remove(&(q.rq.end_sector(), id));
        pp.fifo[d].remove(&(q.seq, id));
        q.rq
    }

    /// dd_dispatch_prio_aged_requests: with two or more levels busy, BE then
    /// IDLE requests inserted at least `prio_aging_expire` ago go first.
    fn dispatch_aged(&mut self, now: Ns) -> Option<Request> {
        if self.prio.iter().filter(|p| p.busy()).count() < 2 {
            return None;
        }
        let latest_start = now.checked_sub(self.aging)?;
        (BE..=IDLE).find_map(|level| self.dispatch_level(level, now, latest_start))
    }

    /// A queued request of `level`/`dir` that `bio` can extend, and how.
    fn merge_target(&self, bio: &Request, max_bytes: u32) -> Option<(u64, MergeKind)> {
        let (pp, d) = (&self.prio[level_of(bio.prio)], data_dir(bio.dir));
        let mergeable = |id: &u64| {
            let rq = &self.rqs[id].rq;
            may_merge(rq, bio) && fits(rq, bio, max_bytes)
        };
        let at = |set: &BTreeSet<(u64, u64)>, s: u64| {
            set.range((s, 0)..=(s, u64::MAX))
                .map(|&(_, id)| id)
                .find(|id| mergeable(id))
        };
        if let Some(id) = at(&pp.by_end[d], bio.sector) {
            return Some((id, MergeKind::Back));
        }
        if self.front_merges {
            return at(&pp.sorted[d], bio.end_sector()).map(|id| (id, MergeKind::Front));
        }
        None
    }

    /// Whether a BE/IDLE FIFO head was inserted `prio_aging_expire` ago.
    fn aged_waiting(&self, now: Ns) -> bool {
        (BE..=IDLE).any(|level| {
            (0..2)
                .filter_map(|d| self.fifo_head(level, d))
                .any(|id| self.rqs[&id].inserted + self.aging <= now)
        })
    }

    fn async_limit(&self, nr_requests: u32) -> u32 {
        match self.async_depth {
            0 => (3 * nr_requests / 4).max(1),
            d => d.min(nr_requests),
        }
    }
}

impl Scheduler for MqDeadline {
    fn name(&self) -> &'static str {
        "mq-deadline"
    }

    fn insert(&mut self, rq: Request, now: Ns) {
        let (level, d, id) = (level_of(rq.prio), data_dir(rq.dir), rq.id);
        self.seq += 1;
        let pp = &mut self.prio[level];
        pp.sorted[d].insert((rq.sector, id));
        pp.by_end[d].insert((rq.end_sector(), id));
        pp.fifo[d].insert((self.seq, id));
        let seq = self.seq;
        self.rqs.insert(
            id,
            Queued {
                rq,
                seq,
                inserted: now,
            },
        );
        self.clock = self.clock.max(now);
    }

    fn dispatch(&mut self, now: Ns) -> Option<Request> {
        self.clock = self.clock.max(now);
        if let Some(rq) = self.dispatch_aged(now) {
            return Some(rq);
        }
        for level in 0..LEVELS {
            if let Some(rq) = self.dispatch_level(level, now, now) {
                return Some(rq);
            }
            if self.prio[level].busy() {
                break; // lower levels wait while this one has I/O in flight
            }
        }
        None
    }

    /// Exact for the level walk. Aging is judged at the latest time seen and
    /// on the oldest BE/IDLE requests; the kernel's batch bookkeeping may
    /// still pick a younger one, so this can be true while `dispatch` returns
    /// None (never the reverse at that time).
    fn has_work(&self) -> bool {
        for pp in &self.prio {
            if pp.queued() > 0 {
                return true;
            }
            if pp.busy() {
                break;
            }
        }
        let busy = self.prio.iter().filter(|p| p.busy()).count();
        busy >= 2 && self.aged_waiting(self.clock)
    }

    fn completed(&mut self, rq: &Request, now: Ns) {
        self.clock = self.clock.max(now);
        let pp = &mut self.prio[level_of(rq.prio)];
        pp.inflight = pp.inflight.saturating_sub(1);
    }

    /// Writes and async reads share `async_depth` tags; sync reads are free.
    fn limit_depth(&self, dir: Dir, sync: bool, nr_requests: u32) -> Option<u32> {
        if dir == Dir::Read && sync {
            return None;
        }
        Some(self.async_limit(nr_requests))
    }

    fn bio_merge(&mut self, bio: &Request, max_bytes: u32) -> Option<(u64, MergeKind)> {
        let (id, kind) = self.merge_target(bio, max_bytes)?;
        let (level, d) = (level_of(bio.prio), data_dir(bio.dir));
        let old = self.key(id);
        let old_end = self.rqs[&id].rq.end_sector();
        let q = self.rqs.get_mut(&id).expect("merge target is queued");
        q.rq.bytes += bio.bytes;
        if kind == MergeKind::Front {
            q.rq.sector = bio.sector;
        }
        let (sector, end) = (q.rq.sector, q.rq.end_sector());
        let pp = &mut self.prio[level];
        pp.sorted[d].remove(&old);
        pp.sorted[d].insert((sector, id));
        pp.by_end[d].remove(&(old_end, id));
        pp.by_end[d].insert((end, id));
        Some((id, kind))
    }

    fn queued(&self) -> usize {
        self.rqs.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: Ns = 1_000_000;

    fn sched(spec: &str) -> MqDeadline {
        let (_, t) = crate::spec::parse(spec).unwrap();
        MqDeadline::new(&t)
    }

    fn rq(id: u64, dir: Dir, sector: u64, class: IoClass) -> Request {
        Request {
            id,
            dir,
            sector,
            bytes: 4096,
            prio: IoPrio { class, level: 4 },
            sync: true,
            flush: false,
            fua: false,
            job: 0,
            submit_ns: 0,
            insert_ns: 0,
            dispatch_ns: 0,
        }
    }

    fn read(id: u64, sector: u64) -> Request {
        rq(id, Dir::Read, sector, IoClass::Be)
    }

    fn ids(s: &mut MqDeadline, now: Ns) -> Vec<u64> {
        std::iter::from_fn(|| s.dispatch(now))
            .map(|r| r.id)
            .collect()
    }

    #[test]
    fn sector_order_within_a_batch() {
        let mut s = sched("mq-deadline");
        for (id, sector) in [(1, 500), (2, 100), (3, 300)] {
            s.insert(read(id, sector), 0);
        }
        assert_eq!(ids(&mut s, MS), vec![2, 3, 1]);
    }

    /// id1 (sector 500) is oldest; id2/id3 follow in sector order after id2.
    fn expiry_setup() -> MqDeadline {
        let mut s = sched("mq-deadline:fifo_batch=1");
        s.insert(read(1, 500), 0);
        s.insert(read(2, 100), MS);
        s.insert(read(3, 200), MS);
        assert_eq!(s.dispatch(2 * MS).unwrap().id, 2);
        s
    }

    #[test]
    fn expired_fifo_head_goes_before_the_next_sector() {
        let mut s = expiry_setup();
        assert_eq!(s.dispatch(400 * MS).unwrap().id, 3, "not expired yet");
        let mut s = expiry_setup();
        assert_eq!(s.dispatch(500 * MS).unwrap().id, 1, "read_expire passed");
    }

    #[test]
    fn lower_levels_wait_while_rt_is_queued_or_in_flight() {
        let mut s = sched("mq-deadline");
        s.insert(rq(1, Dir::Read, 0, IoClass::Rt), 0);
        s.insert(rq(2, Dir::Read, 8, IoClass::Be), 0);
        s.insert(rq(3, Dir::Read, 16, IoClass::Idle), 0);
        let rt = s.dispatch(0).unwrap();
        assert_eq!(rt.id, 1);
        assert!(s.dispatch(MS).is_none(), "RT in flight holds BE");
        assert_eq!(s.queued(), 2);
        s.completed(&rt, 2 * MS);
        let be = s.dispatch(2 * MS).unwrap();
        assert_eq!(be.id, 2);
        assert!(s.dispatch(2 * MS).is_none(), "BE in flight holds IDLE");
        assert!(!s.has_work());
        s.completed(&be, 3 * MS);
        assert!(s.has_work());
        assert_eq!(s.dispatch(3 * MS).unwrap().id, 3);
    }

    #[test]
    fn aged_be_bypasses_busy_rt() {
        let mut s = sched("mq-deadline:prio_aging_expire=10s");
        s.insert(rq(1, Dir::Read, 0, IoClass::Rt), 0);
        s.insert(rq(2, Dir::Read, 8, IoClass::Be), 0);
        let _rt = s.dispatch(0).unwrap();
        assert!(s.dispatch(9_999 * MS).is_none());
        assert_eq!(s.dispatch(10_000 * MS).unwrap().id, 2);
        // Aging also beats queued RT work.
        s.insert(rq(3, Dir::Read, 16, IoClass::Idle), 0);
        s.insert(rq(4, Dir::Read, 24, IoClass::Rt), 10_000 * MS);
        assert_eq!(s.dispatch(10_000 * MS).unwrap().id, 3);
        assert_eq!(s.dispatch(10_000 * MS).unwrap().id, 4);
    }

    #[test]
    fn writes_starved_bounds_read_preference() {
        let mut s = sched("mq-deadline:fifo_batch=1,writes_starved=2");
        for i in 0..6 {
            s.insert(read(i, 1000 * i), 0);
            s.insert(rq(100 + i, Dir::Write, 1000 * i, IoClass::Be), 0);
        }
        let dirs: Vec<Dir> = std::iter::from_fn(|| s.dispatch(MS))
            .map(|r| r.dir)
            .take(7)
            .collect();
        use Dir::*;
        // A fresh instance starts as if after a write batch (last_dir =
        // WRITE in dd_init_sched), so the very first request is a write.
        assert_eq!(dirs, vec![Write, Read, Read, Write, Read, Read, Write]);
        // writes_starved=0: pending writes always win a new batch.
        let mut s = sched("mq-deadline:fifo_batch=1,writes_starved=0");
        for i in 0..3 {
            s.insert(read(i, 1000 * i), 0);
            s.insert(rq(100 + i, Dir::Write, 1000 * i, IoClass::Be), 0);
        }
        let dirs: Vec<Dir> = std::iter::from_fn(|| s.dispatch(MS))
            .map(|r| r.dir)
            .collect();
        assert_eq!(dirs, vec![Write, Write, Write, Read, Read, Read]);
    }

    #[test]
    fn limit_depth_applies_to_writes_and_async_reads() {
        let s = sched("mq-deadline");
        assert_eq!(s.limit_depth(Dir::Read, true, 64), None);
        assert_eq!(s.limit_depth(Dir::Read, false, 64), Some(48));
        assert_eq!(s.limit_depth(Dir::Write, true, 64), Some(48));
        assert_eq!(s.limit_depth(Dir::Trim, false, 1), Some(1));
        let s = sched("mq-deadline:async_depth=10");
        assert_eq!(s.limit_depth(Dir::Write, false, 64), Some(10));
        assert_eq!(s.limit_depth(Dir::Write, false, 8), Some(8));
    }

    #[test]
    fn merges_back_and_front_within_level_and_size() {
        let mut s = sched("mq-deadline");
        s.insert(read(1, 1000), 0); // 1000..1008
        assert_eq!(
            s.bio_merge(&read(2, 1008), 8192),
            Some((1, MergeKind::Back))
        );
        assert_eq!(s.bio_merge(&read(3, 992), 8192), None, "max_bytes");
        assert_eq!(
            s.bio_merge(&read(3, 992), 1 << 20),
            Some((1, MergeKind::Front))
        );
        let rt = rq(4, Dir::Read, 1016, IoClass::Rt);
        assert_eq!(s.bio_merge(&rt, 1 << 20), None, "other level");
        let w = rq(5, Dir::Write, 1016, IoClass::Be);
        assert_eq!(s.bio_merge(&w, 1 << 20), None, "other direction");
        // The indexes follow the grown request: back-merge again at its end.
        assert_eq!(
            s.bio_merge(&read(6, 1016), 1 << 20),
            Some((1, MergeKind::Back))
        );
        let r = s.dispatch(0).unwrap();
        assert_eq!((r.sector, r.bytes, s.queued()), (992, 16384, 0));

        let mut s = sched("mq-deadline:front_merges=0");
        s.insert(read(1, 1000), 0);
        assert_eq!(s.bio_merge(&read(3, 992), 1 << 20), None);
    }

    #[test]
    fn nothing_merges_into_a_flush_or_fua_request() {
        let mut s = sched("mq-deadline");
        let mut flush = rq(1, Dir::Write, 1000, IoClass::Be);
        flush.flush = true;
        s.insert(flush, 0);
        let mut fua = rq(2, Dir::Write, 2000, IoClass::Be);
        fua.fua = true;
        s.insert(fua, 0);
        for sector in [1008, 992, 2008, 1992] {
            let w = rq(3, Dir::Write, sector, IoClass::Be);
            assert_eq!(s.bio_merge(&w, 1 << 20), None, "sector {sector}");
        }
    }
}
