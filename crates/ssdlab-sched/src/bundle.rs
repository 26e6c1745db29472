//! Write bundles, shared by IRBW-FIFO, IRBW-FIFO-RP and STB (Kim et al.,
//! EMSOFT 2009; Kang, Park, Yoo, ICCE 2011):
//! writes are gathered into one open bundle until they add up to a logical
//! block (`lb_size`), then wait as a closed bundle and, once started, leave
//! back to back in ascending sector order. A flush or FUA request closes the
//! open bundle short of `lb_size`: whoever issued it waits for a durability
//! point, and the bundle's writes should not wait for later ones to fill it.

use super::merge::merge_into_fifo;
use super::{MergeKind, Request};
use ssdlab_protocol::Ns;
use std::collections::VecDeque;

/// A bio may join one of the open bundle's last requests (contiguous writes
/// arrive in order, so the newest few are the candidates).
const MERGE_CHECKS: usize = 16;

#[derive(Debug)]
pub struct Bundle {
    pub members: VecDeque<Request>,
    pub bytes: u64,
    /// When the bundle must leave at the latest (STB: its earliest member's
    /// check-point; `Ns::MAX` for policies without one).
    pub expire: Ns,
    /// Request id of the oldest member: ids grow in insertion order, so this
    /// orders bundles against reads (IRBW-FIFO). Merges keep ids.
    pub oldest_id: u64,
}

impl Default for Bundle {
    fn default() -> Self {
        Bundle {
            members: VecDeque::new(),
            bytes: 0,
            expire: Ns::MAX,
            oldest_id: u64::MAX,
        }
    }
}

pub struct Bundler {
    lb_size: u64,
    open: Bundle,
    closed: VecDeque<Bundle>,
    /// Members of the bundle being dispatched, in the order they leave.
    current: VecDeque<Request>,
    /// Requests held in bundles (open, closed and under way).
    held: usize,
    pub counters: BundleCounters,
}

/// What the bundles did, for the report.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct BundleCounters {
    /// Write requests that joined a bundle (bios merged into them not counted).
    pub bundled_writes: u64,
    /// Bundles closed on reaching `lb_size`.
    pub bundles_full: u64,
    /// Bundles started short of `lb_size` (device idle, or check-point).
    pub bundles_partial: u64,
    /// Bundles closed short of `lb_size` because a flush or FUA request
    /// arrived (counted neither full nor partial).
    pub bundles_closed_by_flush: u64,
}

impl BundleCounters {
    pub fn named(&self) -> [(&'static str, u64); 4] {
        [
            ("bundled_writes", self.bundled_writes),
            ("bundles_full", self.bundles_full),
            ("bundles_partial", self.bundles_partial),
            ("bundles_closed_by_flush", self.bundles_closed_by_flush),
        ]
    }
}

impl Bundler {
    pub fn new(lb_size: u64) -> Self {
        Bundler {
            lb_size: lb_size.max(1),
            open: Bundle::default(),
            closed: VecDeque::new(),
            current: VecDeque::new(),
            held: 0,
            counters: BundleCounters::default(),
        }
    }

    /// Adds a write to the open bundle; `expire` is its own check-point.
    pub fn add(&mut self, rq: Request, expire: Ns) {
        self.open.bytes += rq.bytes as u64;
        self.open.expire = self.open.expire.min(expire);
        self.open.oldest_id = self.open.oldest_id.min(rq.id);
        self.open.members.push_back(rq);
        self.held += 1;
        self.counters.bundled_writes += 1;
        self.close_if_full();
    }

    /// Back or front merge of a write bio into the open bundle.
    pub fn merge(&mut self, bio: &Request, max_bytes: u32) -> Option<(u64, MergeKind)> {
        let hit = merge_into_fifo(&mut self.open.members, bio, max_bytes, MERGE_CHECKS)?;
        self.open.bytes += bio.bytes as u64;
        self.close_if_full();
        Some(hit)
    }

    fn close_if_full(&mut self) {
        if self.open.bytes >= self.lb_size {
            self.counters.bundles_full += 1;
            let full = self.take_open();
            self.closed.push_back(full);
        }
    }

    fn take_open(&mut self) -> Bundle {
        std::mem::take(&mut self.open)
    }

    /// The next member of the bundle being dispatched, if one is under way.
    pub fn next_of_current(&mut self) -> Option<Request> {
        let rq = self.current.pop_front()?;
        self.held -= 1;
        Some(rq)
    }

    pub fn in_progress(&self) -> bool {
        !self.current.is_empty()
    }

    pub fn oldest_closed(&self) -> Option<&Bundle> {
        self.closed.front()
    }

    pub fn open(&self) -> Option<&Bundle> {
        (!self.open.members.is_empty()).then_some(&self.open)
    }

    /// Starts dispatching the oldest closed bundle.
    pub fn start_closed(&mut self) {
        if let Some(b) = self.closed.pop_front() {
            self.start(b);
        }
    }

    /// Closes the open bundle short of a logical block; it waits as a
    /// closed one.
    pub fn close_open(&mut self) {
        let b = self.take_open();
        self.closed.push_back(b);
    }

    /// A flush or FUA request arrived: the open bundle, if any, closes short
    /// of a logical block and waits as a closed one, so its writes can leave
    /// without waiting for later ones.
    pub fn close_for_flush(&mut self) {
        if !self.open.members.is_empty() {
            self.counters.bundles_closed_by_flush += 1;
            self.close_open();
        }
    }

    /// Closes the open bundle short of a logical block and starts it.
    pub fn start_open(&mut self) {
        self.counters.bundles_partial += 1;
        let b = self.take_open();
        self.start(b);
    }

    /// A bundle carries no ordering constraint among its writes; they leave
    /// in sector order so a log-block FTL sees them as one sequential run.
    fn start(&mut self, b: Bundle) {
        let mut members = b.members;
        members.make_contiguous().sort_by_key(|r| (r.sector, r.id));
        self.current.extend(members);
    }

    /// Requests held in bundles (open, closed and under way).
    pub fn queued(&self) -> usize {
        self.held
    }
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;
    use crate::{IoPrio, Scheduler};
    use ssdlab_protocol::Dir;

    pub fn rq(id: u64, dir: Dir, sector: u64, bytes: u32, sync: bool, at: Ns) -> Request {
        Request {
            id,
            dir,
            sector,
            bytes,
            prio: IoPrio::NONE,
            sync,
            flush: false,
            fua: false,
            job: 0,
            submit_ns: at,
            insert_ns: at,
            dispatch_ns: 0,
        }
    }

    /// A scheduler from a spec string that must be valid.
    pub fn built(spec: &str) -> Box<dyn Scheduler> {
        crate::build(spec).unwrap()
    }

    /// Ids of everything `dispatch(now)` hands out until it says no.
    pub fn drained_ids(s: &mut dyn Scheduler, now: Ns) -> Vec<u64> {
        std::iter::from_fn(|| s.dispatch(now))
            .map(|r| r.id)
            .collect()
    }

    /// One arrival for [`drive`]: kind (0 read, 1 sync write, 2–3 write-back,
    /// 4 an empty flush, 5 a FUA write), sector/8, pages of 4 KiB, and the
    /// gap before it in µs.
    pub type Arrival = (u8, u64, u32, u64);

    /// Drives a scheduler as the host does, against a device with four
    /// slots and per-request service times: merges first, dispatch while a
    /// slot is free and `has_work` says so, timers when due. Checks that
    /// `has_work` agrees with `dispatch` every time, that every request
    /// leaves exactly once and that nothing stays behind.
    pub fn drive(s: &mut dyn Scheduler, arrivals: &[Arrival]) -> Result<(), String> {
        let mut dev = FakeDevice::default();
        let mut now: Ns = 0;
        let mut inserted = 0usize;
        for (i, &(kind, sector, pages, gap_us)) in arrivals.iter().enumerate() {
            now += gap_us * 1_000;
            dev.run_until(s, now)?;
            let (dir, sync) = match kind {
                0 => (Dir::Read, true),
                1 => (Dir::Write, true),
                _ => (Dir::Write, false),
            };
            let mut bio = rq(i as u64 + 1, dir, sector * 8, pages * 4096, sync, now);
            match kind {
                4 => (bio.flush, bio.sync, bio.bytes) = (true, true, 0),
                5 => (bio.fua, bio.sync) = (true, true),
                _ => {}
            }
            let merged = s.bio_merge(&bio, 64 * 1024);
            if merged.is_some() && (bio.flush || bio.fua) {
                return Err(format!("flush/FUA bio {} merged: {merged:?}", bio.id));
            }
            if merged.is_none() {
                s.insert(bio, now);
                inserted += 1;
            }
            dev.pump(s, now)?;
        }
        dev.run_until(s, Ns::MAX)?;
        if dev.left.len() != inserted || s.queued() != 0 {
            let (n, q) = (dev.left.len(), s.queued());
            return Err(format!("{n} of {inserted} left, {q} still queued"));
        }
        Ok(())
    }

    #[derive(Default)]
    struct FakeDevice {
        inflight: Vec<(Ns, Request)>,
        left: std::collections::BTreeSet<u64>,
    }

    impl FakeDevice {
        const SLOTS: usize = 4;

        fn pump(&mut self, s: &mut dyn Scheduler, now: Ns) -> Result<(), String> {
            while self.inflight.len() < Self::SLOTS {
                let hw = s.has_work();
                let r = s.dispatch(now);
                if hw != r.is_some() {
                    return Err(format!("at {now}: has_work {hw}, dispatch {r:?}"));
                }
                let Some(r) = r else { break };
                if !self.left.insert(r.id) {
                    return Err(format!("request {} left twice", r.id));
                }
                self.inflight
                    .push((now + 20_000 + r.id * 7919 % 900_000, r));
            }
            Ok(())
        }

        /// Completions and timers up to `until`, in time order.
        fn run_until(&mut self, s: &mut dyn Scheduler, until: Ns) -> Result<(), String> {
            loop {
                let done = self.inflight.iter().map(|(t, _)| *t).min();
                let next = done.into_iter().chain(s.next_timer()).min();
                let Some(t) = next.filter(|&t| t <= until) else {
                    return Ok(());
                };
                if done == Some(t) {
                    let i = self.inflight.iter().position(|(d, _)| *d == t).unwrap();
                    let (_, r) = self.inflight.swap_remove(i);
                    s.completed(&r, t);
                } else {
                    s.on_timer(t);
                }
                self.pump(s, t)?;
            }
        }
    }

    #[test]
    fn closes_at_lb_size_and_leaves_in_sector_order() {
        let mut b = Bundler::new(16384);
        for (i, sector) in [(1, 800), (2, 100), (3, 400)] {
            b.add(rq(i, Dir::Write, sector, 4096, false, 0), 50);
        }
        assert!(b.oldest_closed().is_none());
        assert_eq!(b.open().unwrap().expire, 50);
        b.add(rq(4, Dir::Write, 0, 4096, false, 0), 70);
        assert!(b.open().is_none());
        let closed = b.oldest_closed().unwrap();
        assert_eq!(
            (closed.bytes, closed.expire, closed.oldest_id),
            (16384, 50, 1)
        );
        b.start_closed();
        let order: Vec<u64> = std::iter::from_fn(|| b.next_of_current())
            .map(|r| r.sector)
            .collect();
        assert_eq!(order, vec![0, 100, 400, 800]);
        assert_eq!(b.queued(), 0);
    }

    #[test]
    fn merged_bytes_count_towards_the_bundle() {
        let mut b = Bundler::new(8192);
        b.add(rq(1, Dir::Write, 0, 4096, false, 0), 9);
        let hit = b.merge(&rq(0, Dir::Write, 8, 4096, false, 0), 1 << 20);
        assert_eq!(hit, Some((1, MergeKind::Back)));
        assert_eq!(b.queued(), 1);
        assert_eq!(b.oldest_closed().unwrap().bytes, 8192);
        assert!(b
            .merge(&rq(0, Dir::Write, 16, 4096, false, 0), 1 << 20)
            .is_none());
    }
}
