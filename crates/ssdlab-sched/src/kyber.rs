//! `kyber` (block/kyber-iosched.c).
//!
//! Requests are split into scheduling domains (READ, WRITE, DISCARD, OTHER);
//! each request needs a token of its domain to be dispatched, and the number
//! of tokens (the domain's depth) is tuned from latency histograms: when the
//! device is congested (some domain's device-latency p90 over its target),
//! every domain's depth is scaled by its total-latency p99 relative to its
//! target; without congestion only domains whose own p99 is over target are
//! scaled (up). Domains are served round-robin in batches. Kyber ignores I/O
//! priority.

use super::{MergeKind, Request, Scheduler, SchedulerEntry, Tunable, TunableKind, Tunables};

use ssdlab_protocol::Dir;
use ssdlab_protocol::Ns;
use std::collections::VecDeque;

const MS: i64 = 1_000_000;
const S: i64 = 1_000_000_000;

const TUNABLES: &[Tunable] = &[
    Tunable {
        name: "read_lat_nsec",
        kind: TunableKind::Duration {
            min: 1,
            max: 3600 * S,
            unit_ns: 1,
        },
        default: 2 * MS,
        help: "read latency target (sysfs unit: ns)",
    },
    Tunable {
        name: "write_lat_nsec",
        kind: TunableKind::Duration {
            min: 1,
            max: 3600 * S,
            unit_ns: 1,
        },
        default: 10 * MS,
        help: "write latency target (sysfs unit: ns)",
    },
];

pub const ENTRY: SchedulerEntry = SchedulerEntry {
    name: "kyber",
    help: "Linux kyber: per-domain token limits tuned from read/write latency targets",
    tunables: TUNABLES,
    make: |t| Box::new(Kyber::new(t)),
};

const DOMAINS: usize = 4;
const READ: usize = 0;
const WRITE: usize = 1;
const DISCARD: usize = 2;
/// Domains with latency targets and histograms (OTHER has neither).
const MEASURED: usize = 3;
const INITIAL_DEPTH: [u32; DOMAINS] = [256, 128, 64, 16];
const BATCH: [u32; DOMAINS] = [16, 8, 1, 1];
const DISCARD_TARGET: Ns = 5_000_000_000;
/// Each histogram bucket is target >> SHIFT wide; buckets below
/// GOOD_BUCKETS are within the target.
const SHIFT: u32 = 2;
const BUCKETS: usize = 8;
const GOOD_BUCKETS: usize = 4;
const TOTAL: usize = 0;
const IO: usize = 1;
/// Timer delay after a completion (HZ / 10).
const TIMER_DELAY: Ns = 100_000_000;
/// A percentile is evaluated with this many samples or after this window.
const MIN_SAMPLES: u32 = 500;
const SAMPLE_WINDOW: Ns = 1_000_000_000;
/// The kernel's blk_bio_list_merge looks at this many queued requests.
const MERGE_CHECKS: usize = 8;
const ASYNC_PERCENT: u32 = 75;

fn domain_of(dir: Dir) -> usize {
    match dir {
        Dir::Read => READ,
        Dir::Write => WRITE,
        Dir::Trim => DISCARD,
    }
}

pub struct Kyber {
    targets: [Ns; MEASURED],
    queues: [VecDeque<Request>; DOMAINS],
    depth: [u32; DOMAINS],
    /// Tokens held by dispatched, not yet completed requests.
    in_use: [u32; DOMAINS],
    /// [domain][TOTAL | IO][bucket] sample counts.
    buckets: [[[u32; BUCKETS]; 2]; MEASURED],
    /// Per domain: the end of the current sampling window, once started.
    window_end: [Option<Ns>; MEASURED],
    /// Per domain: the last total-latency p99 bucket, kept for the next
    /// congested evaluation.
    last_p99: [Option<usize>; MEASURED],
    timer: Option<Ns>,
    cur_domain: usize,
    batching: u32,
}

impl Kyber {
    pub fn new(t: &Tunables) -> Self {
        Kyber {
            targets: [
                t.get("read_lat_nsec") as Ns,
                t.get("write_lat_nsec") as Ns,
                DISCARD_TARGET,
            ],
            queues: Default::default(),
            depth: INITIAL_DEPTH,
            in_use: [0; DOMAINS],
            buckets: [[[0; BUCKETS]; 2]; MEASURED],
            window_end: [None; MEASURED],
            last_p99: [None; MEASURED],
            timer: None,
            cur_domain: READ,
            batching: 0,
        }
    }

    /// Current token depth of the domain serving `dir`.
    #[cfg(test)]
    fn depth(&self, dir: Dir) -> u32 {
        self.depth[domain_of(dir)]
    }

    fn add_sample(&mut self, domain: usize, kind: usize, latency: Ns) {
        let width = (self.targets[domain] >> SHIFT).max(1);
        let bucket = ((latency.saturating_sub(1) / width) as usize).min(BUCKETS - 1);
        self.buckets[domain][kind][bucket] += 1;
    }

    /// calculate_percentile: the bucket holding the given percentile, once
    /// there are MIN_SAMPLES samples or the domain's window has passed; the
    /// histogram is cleared when used. The window is shared by both
    /// histograms of a domain, as in the kernel.
    fn percentile(&mut self, domain: usize, kind: usize, pct: u32, now: Ns) -> Option<usize> {
        let b = &mut self.buckets[domain][kind];
        let samples: u32 = b.iter().sum();
        if samples == 0 {
            return None;
        }
        let end = *self.window_end[domain].get_or_insert(now + SAMPLE_WINDOW);
        if samples < MIN_SAMPLES && end > now {
            return None;
        }
        self.window_end[domain] = None;
        let mut rank = (samples * pct).div_ceil(100);
        let mut bucket = 0;
        while bucket < BUCKETS - 1 && b[bucket] < rank {
            rank -= b[bucket];
            bucket += 1;
        }
        *b = [0; BUCKETS];
        Some(bucket)
    }

    /// kyber_timer_fn: detect congestion, then rescale domain depths.
    fn adjust_depths(&mut self, now: Ns) {
        // Every domain is evaluated (no short cut): evaluation clears data.
        let p90: Vec<_> = (0..MEASURED)
            .map(|d| self.percentile(d, IO, 90, now))
            .collect();
        let congested = p90.iter().any(|p| p.is_some_and(|b| b >= GOOD_BUCKETS));
        (0..MEASURED).for_each(|d| self.rescale(d, congested, now));
    }

    /// One domain's depth × (p99 bucket + 1) / 4: under congestion for every
    /// domain with data, otherwise only for domains over their target.
    fn rescale(&mut self, d: usize, congested: bool, now: Ns) {
        let mut p99 = self.percentile(d, TOTAL, 99, now);
        if congested {
            // Use a p99 remembered from an earlier window, but only once.
            p99 = p99.or(self.last_p99[d]);
            self.last_p99[d] = None;
        } else if p99.is_some() {
            self.last_p99[d] = p99;
        }
        let Some(p99) = p99 else { return };
        if congested || p99 >= GOOD_BUCKETS {
            let scaled = (self.depth[d] as u64 * (p99 as u64 + 1)) >> SHIFT;
            self.depth[d] = (scaled as u32).clamp(1, INITIAL_DEPTH[d]);
        }
    }

    /// A request of `domain` if it has one and a free token.
    fn take(&mut self, domain: usize, now: Ns) -> Option<Request> {
        if self.in_use[domain] >= self.depth[domain] {
            return None;
        }
        let mut rq = self.queues[domain].pop_front()?;
        self.in_use[domain] += 1;
        self.batching += 1;
        rq.dispatch_ns = now;
        Some(rq)
    }
}

impl Scheduler for Kyber {
    fn name(&self) -> &'static str {
        "kyber"
    }

    fn insert(&mut self, rq: Request, _now: Ns) {
        self.queues[domain_of(rq.dir)].push_back(rq);
    }

    fn dispatch(&mut self, now: Ns) -> Option<Request> {
        if self.batching < BATCH[self.cur_domain] {
            if let Some(rq) = self.take(self.cur_domain, now) {
                return Some(rq);
            }
        }
        // New batch: the next domain with work and a token, wrapping round to
        // the current one last.
        self.batching = 0;
        for _ in 0..DOMAINS {
            self.cur_domain = (self.cur_domain + 1) % DOMAINS;
            if let Some(rq) = self.take(self.cur_domain, now) {
                return Some(rq);
            }
        }
        None
    }

    fn has_work(&self) -> bool {
        (0..DOMAINS).any(|d| !self.queues[d].is_empty() && self.in_use[d] < self.depth[d])
    }

    fn completed(&mut self, rq: &Request, now: Ns) {
        let d = domain_of(rq.dir);
        self.in_use[d] = self.in_use[d].saturating_sub(1);
        if d >= MEASURED {
            return;
        }
        self.add_sample(d, TOTAL, now.saturating_sub(rq.submit_ns));
        self.add_sample(d, IO, now.saturating_sub(rq.dispatch_ns));
        // timer_reduce: fire within 100 ms, never later than already due.
        let at = now + TIMER_DELAY;
        self.timer = Some(self.timer.map_or(at, |t| t.min(at)));
    }

    /// Async requests may use 75% of the tags.
    fn limit_depth(&self, _dir: Dir, sync: bool, nr_requests: u32) -> Option<u32> {
        if sync {
            return None;
        }
        Some(super::tag_share(nr_requests, ASYNC_PERCENT))
    }

    fn bio_merge(&mut self, bio: &Request, max_bytes: u32) -> Option<(u64, MergeKind)> {
        let q = &mut self.queues[domain_of(bio.dir)];
        super::merge::merge_into_fifo(q, bio, max_bytes, MERGE_CHECKS)
    }

    fn next_timer(&self) -> Option<Ns> {
        self.timer
    }

    fn on_timer(&mut self, now: Ns) {
        self.timer = None;
        self.adjust_depths(now);
    }

    fn queued(&self) -> usize {
        self.queues.iter().map(VecDeque::len).sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{build, IoPrio, SpecError};

    const MS: Ns = 1_000_000;

    fn sched(spec: &str) -> Kyber {
        let (_, t) = crate::spec::parse(spec).unwrap();
        Kyber::new(&t)
    }

    fn rq(id: u64, dir: Dir) -> Request {
        Request {
            id,
            dir,
            sector: id * 64,
            bytes: 4096,
            prio: IoPrio::NONE,
            sync: true,
            flush: false,
            fua: false,
            job: 0,
            submit_ns: 0,
            insert_ns: 0,
            dispatch_ns: 0,
        }
    }

    /// `n` requests of `dir`, each submitted `total` and dispatched `io`
    /// before completing at `now`.
    fn complete_n(s: &mut Kyber, dir: Dir, n: u64, total: Ns, io: Ns, now: Ns) {
        for i in 0..n {
            let mut r = rq(1_000_000 + i, dir);
            r.submit_ns = now - total;
            s.insert(r, now - total);
            let r = s.dispatch(now - io).unwrap();
            s.completed(&r, now);
        }
    }

    /// How many of `n` queued requests of `dir` get a token.
    fn tokens(s: &mut Kyber, dir: Dir, n: u64) -> usize {
        (0..n).for_each(|i| s.insert(rq(i, dir), 0));
        let out: Vec<_> = std::iter::from_fn(|| s.dispatch(0)).collect();
        out.iter().for_each(|r| s.completed(r, 0));
        let left = s.queues[domain_of(dir)].drain(..).count();
        assert_eq!(out.len() + left, n as usize);
        out.len()
    }

    #[test]
    fn token_limits_hold() {
        let mut s = sched("kyber");
        (0..300).for_each(|i| s.insert(rq(i, Dir::Read), 0));
        (0..200).for_each(|i| s.insert(rq(1000 + i, Dir::Write), 0));
        (0..100).for_each(|i| s.insert(rq(2000 + i, Dir::Trim), 0));
        let out: Vec<_> = std::iter::from_fn(|| s.dispatch(0)).collect();
        let count = |d| out.iter().filter(|r| r.dir == d).count();
        assert_eq!(
            (count(Dir::Read), count(Dir::Write), count(Dir::Trim)),
            (256, 128, 64)
        );
        assert!(!s.has_work());
        s.completed(&out[0], MS);
        assert!(s.has_work());
        assert_eq!(s.dispatch(MS).unwrap().dir, out[0].dir);
    }

    #[test]
    fn domains_take_turns_in_batches() {
        let mut s = sched("kyber");
        (0..40).for_each(|i| s.insert(rq(i, Dir::Read), 0));
        (0..40).for_each(|i| s.insert(rq(100 + i, Dir::Write), 0));
        (0..2).for_each(|i| s.insert(rq(200 + i, Dir::Trim), 0));
        let dirs: Vec<Dir> = (0..27).map(|_| s.dispatch(0).unwrap().dir).collect();
        let mut want = vec![Dir::Read; 16];
        want.extend([Dir::Write; 8]);
        want.push(Dir::Trim);
        want.extend([Dir::Read; 2]);
        assert_eq!(dirs, want);
    }

    #[test]
    fn congestion_shrinks_good_domains() {
        let mut s = sched("kyber");
        // Writes see 20 ms at the device (target 10 ms): congestion. Reads
        // finish in 0.6 ms total (bucket 1 of 0.5 ms): depth × 2/4.
        complete_n(&mut s, Dir::Write, 500, 20 * MS, 20 * MS, 100 * MS);
        complete_n(&mut s, Dir::Read, 500, 600_000, 500_000, 100 * MS);
        assert_eq!(s.next_timer(), Some(200 * MS));
        s.on_timer(200 * MS);
        assert_eq!(s.next_timer(), None);
        assert_eq!(s.depth(Dir::Read), 128);
        assert_eq!(s.depth(Dir::Write), 128, "bad domain: scaled up, capped");
        assert_eq!(tokens(&mut s, Dir::Read, 300), 128);
    }

    #[test]
    fn no_congestion_no_throttling() {
        let mut s = sched("kyber");
        complete_n(&mut s, Dir::Write, 500, 2 * MS, 2 * MS, 100 * MS);
        complete_n(&mut s, Dir::Read, 500, 600_000, 500_000, 100 * MS);
        s.on_timer(200 * MS);
        assert_eq!(tokens(&mut s, Dir::Read, 300), 256);
    }

    #[test]
    fn depth_recovers_when_device_latency_is_low_but_total_is_high() {
        let mut s = sched("kyber");
        complete_n(&mut s, Dir::Write, 500, 20 * MS, 20 * MS, 100 * MS);
        complete_n(&mut s, Dir::Read, 500, 300_000, 300_000, 100 * MS);
        s.on_timer(200 * MS);
        assert_eq!(s.depth(Dir::Read), 64, "bucket 0: depth / 4");
        // Device fast (0.1 ms), but requests wait on the host: total 3 ms,
        // bucket 5 → depth × 6/4, twice more capped at 256.
        for (k, want) in [(1, 96), (2, 144), (3, 216), (4, 256)] {
            complete_n(&mut s, Dir::Read, 500, 3 * MS, 100_000, 1000 * MS * k);
            s.on_timer(1000 * MS * k + 1);
            assert_eq!(s.depth(Dir::Read), want);
        }
        assert_eq!(tokens(&mut s, Dir::Read, 300), 256);
    }

    #[test]
    fn few_samples_wait_for_the_window() {
        let mut s = sched("kyber");
        complete_n(&mut s, Dir::Write, 10, 20 * MS, 20 * MS, 100 * MS);
        complete_n(&mut s, Dir::Read, 10, 600_000, 500_000, 100 * MS);
        s.on_timer(200 * MS);
        assert_eq!(s.depth(Dir::Read), 256, "10 samples, window still open");
        // A second on, the device p90s are due (congestion), but evaluating
        // them closed the domains' shared windows: the read total waits for a
        // new window (the kernel behaves the same way).
        s.on_timer(1200 * MS);
        assert_eq!(s.depth(Dir::Read), 256);
        complete_n(&mut s, Dir::Write, 10, 20 * MS, 20 * MS, 2300 * MS);
        s.on_timer(2300 * MS);
        assert_eq!(s.depth(Dir::Read), 128);
    }

    #[test]
    fn timer_is_armed_at_most_100ms_after_completions() {
        let mut s = sched("kyber");
        assert_eq!(s.next_timer(), None);
        complete_n(&mut s, Dir::Read, 1, MS, MS, 50 * MS);
        complete_n(&mut s, Dir::Read, 1, MS, MS, 120 * MS);
        assert_eq!(s.next_timer(), Some(150 * MS));
    }

    #[test]
    fn async_limit_and_spec() {
        let s = sched("kyber");
        assert_eq!(s.limit_depth(Dir::Write, false, 64), Some(48));
        assert_eq!(s.limit_depth(Dir::Write, true, 64), None);
        assert!(matches!(
            build("kyber:read_lat_nsec=0"),
            Err(SpecError::BadValue { .. })
        ));
        let s = sched("kyber:read_lat_nsec=1ms,write_lat_nsec=5000000");
        assert_eq!(s.targets, [MS, 5 * MS, DISCARD_TARGET]);
    }
}
