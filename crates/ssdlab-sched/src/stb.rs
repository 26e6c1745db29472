//! `stb`: selective time-out bundling (Kang, Park, Yoo, "Performance
//! Enhancement of I/O Scheduler for Solid State Devices", IEEE ICCE 2011),
//! built on IRBW-FIFO-RP.
//!
//! Requests are split by their nature. Synchronous ones (reads, discards and
//! REQ_SYNC writes: a process or the file system waits for them) are queued
//! singly and dispatched first; only asynchronous writes (write-back) are
//! bundled up to `lb_size`. Every request gets a check-point when it arrives
//! (`t_sync` or `t_async` later); a bundle's is its earliest member's. The
//! earliest passed check-point is served before anything else, so no request
//! waits past it for its bundle to fill. A started bundle leaves back to back.
//!
//! A flush or FUA request (the paper has none) is synchronous whatever its
//! REQ_SYNC flag says, as the kernel's op_is_sync has it: someone waits for
//! its durability point. It closes the open bundle, so those writes need not
//! wait for their check-point, and joins the sync FIFO with the `t_sync`
//! check-point.

use super::bundle::Bundler;
use super::irbw::LB_SIZE;
use super::{MergeKind, Request, Scheduler, SchedulerEntry, Tunable, TunableKind, Tunables};
use ssdlab_protocol::Dir;
use ssdlab_protocol::Ns;
use std::cell::Cell;
use std::collections::VecDeque;

const MS: i64 = 1_000_000;
const S: i64 = 1_000_000_000;

const TUNABLES: &[Tunable] = &[
    LB_SIZE,
    Tunable {
        name: "t_sync",
        kind: TunableKind::Duration {
            min: 0,
            max: 3600 * S,
            unit_ns: MS,
        },
        default: 500 * MS,
        help: "check-point of a synchronous request after its arrival (bare number: ms)",
    },
    Tunable {
        name: "t_async",
        kind: TunableKind::Duration {
            min: 0,
            max: 3600 * S,
            unit_ns: MS,
        },
        default: 5 * S,
        help: "check-point of an asynchronous write after its arrival (bare number: ms)",
    },
    Tunable {
        name: "async_tag_share_pct",
        kind: TunableKind::Int { min: 1, max: 100 },
        default: 75,
        help: "share of the scheduler tags write-back may hold, so sync I/O always finds one",
    },
];

pub const ENTRY: SchedulerEntry = SchedulerEntry {
    name: "stb",
    help: "STB: sync requests at once, async writes in logical-block bundles, none past its check-point",
    tunables: TUNABLES,
    make: |t| Box::new(Stb::new(t)),
};

/// Where the next request comes from.
enum Pick {
    Sync,
    Closed,
    Open,
}

pub struct Stb {
    t_sync: Ns,
    t_async: Ns,
    /// Synchronous requests, flushes and FUA writes in arrival order
    /// (check-point = insert + t_sync).
    sync_fifo: VecDeque<Request>,
    bundles: Bundler,
    async_tag_share_pct: u32,
    /// The tag limit last handed to write-back (0 until one arrives): an
    /// open bundle holding that many requests cannot grow and is closed.
    async_tag_limit: Cell<u32>,
    /// Bundles closed short of `lb_size` because write-back ran out of tags.
    bundles_tag_limited: u64,
    /// Bundles started because their check-point had passed.
    bundles_expired: u64,
    /// Synchronous requests served because their check-point had passed.
    sync_expired: u64,
    /// The latest time any callback saw: `has_work` has no clock and must
    /// know whether the open bundle's check-point has passed.
    now_seen: Ns,
}

fn is_async_write(rq: &Request) -> bool {
    rq.dir == Dir::Write && !rq.sync
}

fn dispatched(mut rq: Request, now: Ns) -> Request {
    rq.dispatch_ns = now;
    rq
}

impl Stb {
    pub fn new(t: &Tunables) -> Self {
        Stb {
            t_sync: t.get("t_sync") as Ns,
            t_async: t.get("t_async") as Ns,
            sync_fifo: VecDeque::new(),
            bundles: Bundler::new(t.get("lb_size") as u64),
            now_seen: 0,
            async_tag_share_pct: t.get("async_tag_share_pct") as u32,
            async_tag_limit: Cell::new(0),
            bundles_tag_limited: 0,
            bundles_expired: 0,
            sync_expired: 0,
        }
    }

    /// The source with the earliest check-point at or before `now` (a tie
    /// goes to the synchronous request, then to the older bundle).
    fn expired(&self, now: Ns) -> Option<Pick> {
        let sync = self
            .sync_fifo
            .front()
            .map(|r| (r.insert_ns.saturating_add(self.t_sync), Pick::Sync));
        let closed = self
            .bundles
            .oldest_closed()
            .map(|b| (b.expire, Pick::Closed));
        let open = self.bundles.open().map(|b| (b.expire, Pick::Open));
        [sync, closed, open]
            .into_iter()
            .flatten()
            .filter(|(at, _)| *at <= now)
            .min_by_key(|(at, _)| *at)
            .map(|(_, pick)| pick)
    }

    /// An open bundle holding every tag write-back may have cannot grow.
    fn close_if_out_of_tags(&mut self) {
        let limit = self.async_tag_limit.get() as usize;
        let full = self
            .bundles
            .open()
            .is_some_and(|b| b.members.len() >= limit);
        if limit > 0 && full {
            self.bundles.close_open();
            self.bundles_tag_limited += 1;
        }
    }

    /// The next source, and whether a passed check-point chose it.
    fn pick(&self, now: Ns) -> Option<(Pick, bool)> {
        self.expired(now)
            .map(|p| (p, true))
            .or(if !self.sync_fifo.is_empty() {
                Some((Pick::Sync, false))
            } else if self.bundles.oldest_closed().is_some() {
                Some((Pick::Closed, false))
            } else {
                None
            })
    }
}

impl Scheduler for Stb {
    fn name(&self) -> &'static str {
        "stb"
    }

    fn insert(&mut self, mut rq: Request, now: Ns) {
        self.now_seen = self.now_seen.max(now);
        rq.insert_ns = now;
        if rq.flush || rq.fua {
            self.bundles.close_for_flush();
            self.sync_fifo.push_back(rq);
        } else if is_async_write(&rq) {
            self.bundles.add(rq, now.saturating_add(self.t_async));
            self.close_if_out_of_tags();
        } else {
            self.sync_fifo.push_back(rq);
        }
    }

    fn dispatch(&mut self, now: Ns) -> Option<Request> {
        self.now_seen = self.now_seen.max(now);
        if !self.bundles.in_progress() {
            let (pick, expired) = self.pick(now)?;
            match (&pick, expired) {
                (Pick::Sync, true) => self.sync_expired += 1,
                (Pick::Closed | Pick::Open, true) => self.bundles_expired += 1,
                (_, false) => {}
            }
            match pick {
                Pick::Sync => return self.sync_fifo.pop_front().map(|rq| dispatched(rq, now)),
                Pick::Closed => self.bundles.start_closed(),
                Pick::Open => self.bundles.start_open(),
            }
        }
        self.bundles.next_of_current().map(|rq| dispatched(rq, now))
    }

    fn has_work(&self) -> bool {
        self.bundles.in_progress() || self.pick(self.now_seen).is_some()
    }

    fn completed(&mut self, _rq: &Request, now: Ns) {
        self.now_seen = self.now_seen.max(now);
    }

    /// Write-back may hold `async_tag_share_pct` of the tags: the kernel STB was
    /// built on had separate sync and async request pools, so bundles
    /// waiting to fill never kept a reader from a request.
    fn limit_depth(&self, dir: Dir, sync: bool, nr_requests: u32) -> Option<u32> {
        if dir != Dir::Write || sync {
            return None;
        }
        let limit = super::tag_share(nr_requests, self.async_tag_share_pct);
        self.async_tag_limit.set(limit);
        Some(limit)
    }

    fn bio_merge(&mut self, bio: &Request, max_bytes: u32) -> Option<(u64, MergeKind)> {
        if is_async_write(bio) {
            self.bundles.merge(bio, max_bytes)
        } else {
            super::merge::merge_into_fifo(&mut self.sync_fifo, bio, max_bytes, 8)
        }
    }

    /// Wake up when the open bundle's check-point passes (closed bundles and
    /// synchronous requests are dispatchable already). A passed check-point
    /// asks for no timer: `has_work` reports it and the next queue run, or
    /// completion, serves it.
    fn next_timer(&self) -> Option<Ns> {
        self.bundles
            .open()
            .map(|b| b.expire)
            .filter(|&at| at > self.now_seen)
    }

    fn on_timer(&mut self, now: Ns) {
        self.now_seen = self.now_seen.max(now);
    }

    fn queued(&self) -> usize {
        self.sync_fifo.len() + self.bundles.queued()
    }

    fn counters(&self) -> Vec<(&'static str, u64)> {
        let mut c = self.bundles.counters.named().to_vec();
        c.push(("bundles_tag_limited", self.bundles_tag_limited));
        c.push(("bundles_expired", self.bundles_expired));
        c.push(("sync_expired", self.sync_expired));
        c
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bundle::tests::{built as stb, drained_ids as ids, rq};
    use proptest::prelude::*;

    #[test]
    fn sync_writes_are_not_bundled_async_writes_are() {
        let mut s = stb("stb:lb_size=8k");
        s.insert(rq(1, Dir::Write, 0, 4096, false, 0), 0);
        s.insert(rq(2, Dir::Write, 100, 4096, true, 0), 0);
        s.insert(rq(3, Dir::Read, 200, 4096, true, 0), 0);
        assert_eq!(
            ids(&mut *s, 0),
            vec![2, 3],
            "the async write waits for its bundle"
        );
        s.insert(rq(4, Dir::Write, 8, 4096, false, 0), 0);
        assert_eq!(ids(&mut *s, 0), vec![1, 4]);
    }

    #[test]
    fn a_partial_bundle_leaves_at_its_check_point_by_timer() {
        let mut s = stb("stb:t_async=100ms");
        s.insert(rq(1, Dir::Write, 0, 4096, false, 5), 5);
        s.insert(
            rq(2, Dir::Write, 80, 4096, false, 50 * MS as Ns),
            50 * MS as Ns,
        );
        assert!(!s.has_work());
        let at = 100 * MS as Ns + 5;
        assert_eq!(
            s.next_timer(),
            Some(at),
            "the earliest member's check-point"
        );
        assert!(s.dispatch(at - 1).is_none());
        s.on_timer(at);
        assert!(s.has_work());
        assert_eq!(s.next_timer(), None);
        assert_eq!(ids(&mut *s, at), vec![1, 2]);
        let c = s.counters();
        for want in [
            ("bundled_writes", 2),
            ("bundles_partial", 1),
            ("bundles_expired", 1),
        ] {
            assert!(c.contains(&want), "{c:?} lacks {want:?}");
        }
        assert!(c.contains(&("bundles_full", 0)) && c.contains(&("sync_expired", 0)));
    }

    #[test]
    fn a_passed_check_point_goes_before_younger_sync_requests() {
        let mut s = stb("stb:lb_size=8k,t_sync=10ms,t_async=20ms");
        s.insert(rq(1, Dir::Write, 0, 4096, false, 0), 0);
        s.insert(rq(2, Dir::Write, 80, 4096, false, 0), 0); // closes the bundle
        s.insert(
            rq(3, Dir::Read, 0, 4096, true, 15 * MS as Ns),
            15 * MS as Ns,
        );
        // At 16 ms nothing has expired: sync first.
        assert_eq!(s.dispatch(16 * MS as Ns).map(|r| r.id), Some(3));
        s.insert(
            rq(4, Dir::Read, 0, 4096, true, 18 * MS as Ns),
            18 * MS as Ns,
        );
        // At 21 ms the bundle's check-point (20 ms) has passed; read 4's (28 ms) not.
        assert_eq!(ids(&mut *s, 21 * MS as Ns), vec![1, 2, 4]);
    }

    #[test]
    fn a_passed_check_point_beats_an_earlier_arrival_whose_check_point_is_ahead() {
        let mut s = stb("stb:lb_size=8k,t_sync=10ms,t_async=2ms");
        s.insert(rq(1, Dir::Write, 0, 4096, false, 0), 0);
        s.insert(rq(2, Dir::Write, 80, 4096, false, 0), 0); // closed, check-point 2 ms
        s.insert(rq(3, Dir::Read, 0, 4096, true, 0), 0); // check-point 10 ms
        s.insert(rq(4, Dir::Read, 8, 4096, true, 0), 0);
        // At 1 ms nothing has passed: sync requests first.
        assert_eq!(s.dispatch(MS as Ns).map(|r| r.id), Some(3));
        // At 3 ms the bundle's check-point has passed and read 4's has not.
        assert_eq!(ids(&mut *s, 3 * MS as Ns), vec![1, 2, 4]);
        assert!(s.counters().contains(&("bundles_expired", 1)));
        assert!(s.counters().contains(&("sync_expired", 0)));
    }

    #[test]
    fn of_two_passed_check_points_the_earlier_goes_first() {
        let mut s = stb("stb:lb_size=8k,t_sync=5ms,t_async=2ms");
        s.insert(rq(1, Dir::Read, 0, 4096, true, 0), 0); // check-point 5 ms
        s.insert(rq(2, Dir::Write, 0, 4096, false, 0), 0);
        s.insert(rq(3, Dir::Write, 80, 4096, false, 0), 0); // check-point 2 ms
        s.insert(rq(4, Dir::Read, 8, 4096, true, 0), 0); // check-point 5 ms
        assert_eq!(ids(&mut *s, 6 * MS as Ns), vec![2, 3, 1, 4]);
        let c = s.counters();
        assert!(c.contains(&("bundles_expired", 1)) && c.contains(&("sync_expired", 2)));
    }

    #[test]
    fn write_back_holds_a_share_of_the_tags_and_a_bundle_at_it_closes() {
        let mut s = stb("stb:async_tag_share_pct=50");
        assert_eq!(s.limit_depth(Dir::Read, true, 8), None);
        assert_eq!(s.limit_depth(Dir::Write, true, 8), None);
        assert_eq!(s.limit_depth(Dir::Write, false, 8), Some(4));
        for i in 1..=3 {
            s.insert(rq(i, Dir::Write, i * 80, 4096, false, 0), 0);
        }
        assert!(
            !s.has_work(),
            "three of four tags: the bundle may still grow"
        );
        s.insert(rq(4, Dir::Write, 400, 4096, false, 0), 0);
        assert!(
            s.has_work(),
            "the bundle holds every tag write-back may have"
        );
        assert_eq!(ids(&mut *s, 0), vec![1, 2, 3, 4]);
        assert!(s.counters().contains(&("bundles_tag_limited", 1)));
        assert_eq!(
            stb("stb:async_tag_share_pct=1").limit_depth(Dir::Write, false, 8),
            Some(1)
        );
    }

    #[test]
    fn a_flush_closes_the_open_bundle_and_goes_with_the_sync_requests() {
        let mut s = stb("stb:t_sync=10ms,t_async=1s");
        s.insert(rq(1, Dir::Write, 80, 4096, false, 0), 0);
        s.insert(rq(2, Dir::Write, 8, 4096, false, 0), 0);
        assert!(!s.has_work(), "the bundle is open, its check-point ahead");
        let mut flush = rq(3, Dir::Write, 0, 0, false, MS as Ns);
        flush.flush = true;
        s.insert(flush, MS as Ns);
        assert_eq!(s.next_timer(), None, "no open bundle to wait for");
        assert_eq!(
            s.bio_merge(&rq(0, Dir::Write, 88, 4096, false, 0), 1 << 20),
            None,
            "the closed bundle takes no more writes"
        );
        // The flush is synchronous (sync FIFO first), then the bundle.
        assert_eq!(ids(&mut *s, MS as Ns), vec![3, 2, 1]);
        let c = s.counters();
        for want in [
            ("bundles_closed_by_flush", 1),
            ("bundles_partial", 0),
            ("bundles_expired", 0),
        ] {
            assert!(c.contains(&want), "{c:?} lacks {want:?}");
        }
    }

    #[test]
    fn a_fua_write_is_synchronous_without_req_sync() {
        let mut s = stb("stb:lb_size=8k,t_sync=5ms,t_async=20ms");
        let mut fua = rq(1, Dir::Write, 400, 4096, false, 0);
        fua.fua = true;
        s.insert(fua, 0); // check-point 5 ms, although not REQ_SYNC
        s.insert(rq(2, Dir::Write, 0, 4096, false, 0), 0);
        s.insert(rq(3, Dir::Write, 80, 4096, false, 0), 0); // full, 20 ms
        assert_eq!(ids(&mut *s, 6 * MS as Ns), vec![1, 2, 3]);
        let c = s.counters();
        assert!(c.contains(&("sync_expired", 1)), "{c:?}");
        assert!(c.contains(&("bundles_closed_by_flush", 0)), "{c:?}");
    }

    #[test]
    fn durations_and_sizes_are_validated() {
        assert!(crate::build("stb:t_sync=5 parsecs").is_err());
        assert!(crate::build("stb:t_async=-1ms").is_err());
        assert!(crate::build("stb:lb_size=1k").is_err());
        assert!(crate::build("stb:async_tag_share_pct=0").is_err());
        let (_, t) = crate::spec::parse("stb:t_sync=250,t_async=2s,lb_size=4m").unwrap();
        assert_eq!(t.get("t_sync"), 250 * MS, "a bare number is in ms");
        assert_eq!(t.get("t_async"), 2 * S);
        assert_eq!(t.get("lb_size"), 4 << 20);
        assert_eq!(t.get("async_tag_share_pct"), 75);
    }

    /// Check-point of a request under `stb:t_sync=1ms,t_async=4ms`.
    fn check_point(r: &Request) -> Ns {
        r.insert_ns
            + if is_async_write(r) {
                4_000_000
            } else {
                1_000_000
            }
    }

    proptest! {
        /// With a device that takes everything at once, every request leaves
        /// exactly once and none after its check-point; only the writes of
        /// an open bundle whose check-point is ahead ever wait.
        #[test]
        fn conserves_requests_and_honours_check_points(
            ops in prop::collection::vec((0u8..4, 0u64..64, 1u32..4, 0u64..3_000_000), 1..200),
        ) {
            let mut s = stb("stb:lb_size=32k,t_sync=1ms,t_async=4ms");
            let mut now: Ns = 0;
            let mut seen = std::collections::BTreeSet::new();
            let mut drain = |s: &mut Box<dyn Scheduler>, at: Ns| -> Result<(), TestCaseError> {
                while let Some(r) = s.dispatch(at) {
                    prop_assert!(at <= check_point(&r), "request {} left late", r.id);
                    prop_assert!(seen.insert(r.id));
                }
                Ok(())
            };
            for (i, (kind, sector, pages, gap)) in ops.iter().enumerate() {
                while let Some(t) = s.next_timer().filter(|&t| t <= now + gap) {
                    s.on_timer(t);
                    drain(&mut s, t)?;
                }
                now += gap;
                let (dir, sync) = match kind {
                    0 => (Dir::Read, true),
                    1 => (Dir::Write, true),
                    _ => (Dir::Write, false),
                };
                s.insert(rq(i as u64 + 1, dir, sector * 8, pages * 4096, sync, now), now);
                drain(&mut s, now)?;
                prop_assert!(!s.has_work());
            }
            while let Some(t) = s.next_timer() {
                s.on_timer(t);
                drain(&mut s, t)?;
            }
            prop_assert_eq!(seen.len(), ops.len());
            prop_assert_eq!(s.queued(), 0);
        }

        /// Driven as the host drives it (merges, four device slots, service
        /// times, the timer, flushes): `has_work` agrees with `dispatch`, every
        /// request leaves exactly once and nothing stays behind.
        #[test]
        fn host_driven_runs_conserve_requests(
            lb_pages in 1u32..16,
            t_async_us in 0u64..3000,
            arrivals in prop::collection::vec((0u8..6, 0u64..64, 1u32..4, 0u64..400), 1..200),
        ) {
            let mut s = stb(&format!("stb:lb_size={}k,t_sync=1ms,t_async={t_async_us}us", lb_pages * 4));
            let run = crate::bundle::tests::drive(&mut *s, &arrivals);
            prop_assert!(run.is_ok(), "{}", run.unwrap_err());
        }
    }
}
