//! The reference: the RT p99.9 (and, for O2, the bandwidth) the drive
//! gives unbounded, measured by lifting the bound briefly.
//!
//! One probe is an instant of the drive. The tail an RT job meets over a
//! run comes in episodes longer than a probe (random reads: the p99.9 of
//! 15 ms windows has a median of 2.1 ms where the run's is 3.0 ms), so for
//! O1 the reference is the p99.9 of a pool of probes spread over the run,
//! each a sample of a different moment, and of the spells without RT load
//! (unbounded anyway, and free). Every probe exposes the RT requests that
//! meet it to the unbounded tail, so sampling probes are taken only while
//! the RT samples they have pushed over the limit stay under a quarter of
//! what a p99.9 allows over the run so far. docs/model.md ("k2-adaptive")
//! has the reasoning and the figures.

use super::*;
use std::collections::VecDeque;

/// A probe samples the requests dispatched in its window: from
/// `PROBE_SETTLE_NS` after the bound opened until `PROBE_MAX_NS`, or
/// until `PROBE_SAMPLES` were dispatched. The bound then closes, and the
/// probe waits for every request of its window to complete (at most
/// `PROBE_TAIL_MAX_NS`): a probe that stopped at its window's end would
/// keep only the requests fast enough to finish inside it, and read the
/// tail low by about the share of the window the tail itself spans
/// (docs/model.md, "k2-adaptive").
const PROBE_SETTLE_NS: Ns = 3_000_000;
const PROBE_SAMPLES: usize = 20_000;
const PROBE_MAX_NS: Ns = 15_000_000;
const PROBE_TAIL_MAX_NS: Ns = 200_000_000;
/// The probes (and open spells) whose samples make the O1 reference.
const POOL_ENTRIES: usize = 8;
/// A sampling probe from a held level comes at least this long after the
/// last probe; once the pool is full, at least `SAMPLE_GAP_FULL_NS`. Each
/// gap is stretched by up to its own length by a golden-ratio sequence, so
/// the probes sample every phase of a periodic process rather than one.
const SAMPLE_GAP_NS: Ns = 2_000_000_000;
const SAMPLE_GAP_FULL_NS: Ns = 10_000_000_000;
/// A sampling probe is taken only while the RT samples over the limit,
/// from any cause, are under 1 / `TAIL_SHARE` of what a p99.9 allows
/// over (one per 1000 seen): probes spend the tail the held level leaves
/// unused.
const TAIL_SHARE: u64 = 2;
/// In an open spell every `OPEN_DECIMATE`-th background completion is a
/// sample, so a long spell's samples span it rather than its start.
const OPEN_DECIMATE: u64 = 16;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
enum Kind {
    /// The reference starts over (the start, a detected change); the
    /// climb follows.
    #[default]
    Fresh,
    /// One more sample for the pool from a held level, which resumes.
    Sample,
}

/// The probes' state.
#[derive(Debug, Default)]
pub(super) struct Probes {
    kind: Kind,
    /// When the last probe began.
    pub(super) last: Option<Ns>,
    lat: Vec<Ns>,
    bytes: u64,
    /// When the probe's dispatch window closed (None: still open).
    window_end: Option<Ns>,
    /// Requests dispatched in the window, and those of them completed.
    dispatched: u64,
    returned: u64,
    /// Earlier probes' and open spells' samples, newest last.
    pool: VecDeque<Vec<Ns>>,
    /// The pool's p99.9.
    pub(super) pool_p999: Ns,
    rt_seen: u64,
    rt_over: u64,
    open_lat: Vec<Ns>,
    open_seen: u64,
}

impl Probes {
    fn push(&mut self, entry: Vec<Ns>) {
        if self.pool.len() == POOL_ENTRIES {
            self.pool.pop_front();
        }
        self.pool.push_back(entry);
        let mut all: Vec<Ns> = self.pool.iter().flatten().copied().collect();
        self.pool_p999 = p999(&mut all);
    }
}

impl Controller {
    /// A fresh probe: the reference starts over, then the climb.
    pub(super) fn start_probe(&mut self, now: Ns) {
        self.probe.kind = Kind::Fresh;
        self.probe.pool.clear();
        self.bg_lat.clear();
        self.best_bw = 0;
        let level = self.level;
        self.enter(Phase::Probe, level, now);
        self.begin_probe(now);
    }

    /// A sampling probe from a held level, which it resumes after.
    pub(super) fn start_sample_probe(&mut self, now: Ns) {
        self.counts.sample_probes += 1;
        self.probe.kind = Kind::Sample;
        self.begin_probe(now);
        // Not `enter`: the held level keeps its window and signature.
        self.phase = Phase::Probe;
        self.since = now;
    }

    fn begin_probe(&mut self, now: Ns) {
        self.counts.probes += 1;
        self.probe.last = Some(now);
        self.probe.lat.clear();
        self.probe.bytes = 0;
        self.probe.window_end = None;
        self.probe.dispatched = 0;
        self.probe.returned = 0;
        // Nothing to drain under an open bound; `since` must stay where
        // the window was counted from, or requests counted into it would
        // fall out of it and never be waited for.
        self.draining = false;
    }

    /// Whether a probe holds the bound open (its dispatch window).
    pub(super) fn probe_window_open(&self) -> bool {
        self.phase == Phase::Probe && self.probe.window_end.is_none()
    }

    /// A request was dispatched: counted if it falls in the probe's window.
    pub(super) fn probe_dispatched(&mut self, now: Ns) {
        if self.probe_window_open() && now >= self.since + PROBE_SETTLE_NS {
            self.probe.dispatched += 1;
            if self.probe.dispatched >= PROBE_SAMPLES as u64 {
                self.probe.window_end = Some(now + 1);
            }
        }
    }

    /// Closes the window once it has run its length, and ends the probe
    /// once every request of the window is back (or waited for too long).
    pub(super) fn advance_probe(&mut self, now: Ns) {
        if self.probe.window_end.is_none() && now >= self.since + PROBE_MAX_NS {
            self.probe.window_end = Some(now + 1);
        }
        if let Some(end) = self.probe.window_end {
            let all_back = self.probe.returned >= self.probe.dispatched;
            if all_back || now >= end + PROBE_TAIL_MAX_NS {
                self.end_probe(now);
            }
        }
    }

    /// O1 only (O2 needs no latency reference, and its probes would cost
    /// the very tail it minimises): a held level, far enough from the last
    /// probe, with the tail budget not spent.
    pub(super) fn sample_probe_due(&self, now: Ns) -> bool {
        let o1 = matches!(self.p.objective, Objective::O1 { .. });
        let base = match self.probe.pool.len() < POOL_ENTRIES {
            true => SAMPLE_GAP_NS,
            false => SAMPLE_GAP_FULL_NS,
        };
        let phase = self.counts.sample_probes * 618_034 % 1_000_000;
        let gap = base + base / 1_000_000 * phase;
        let far = self.probe.last.is_none_or(|t| now >= t + gap);
        let budget = self.probe.rt_over * 1000 * TAIL_SHARE < self.probe.rt_seen;
        o1 && self.phase == Phase::Hold && far && budget
    }

    /// Every completion of a request dispatched in the probe's window is
    /// one sample of what an RT request would see unbounded: under no
    /// bound an RT request waits behind the same device queue.
    pub(super) fn probe_sample(&mut self, bytes: u32, insert_ns: Ns, dispatch_ns: Ns, now: Ns) {
        let start = self.since + PROBE_SETTLE_NS;
        let end = self.probe.window_end.unwrap_or(Ns::MAX);
        if (start..end).contains(&dispatch_ns) {
            self.probe.lat.push(now.saturating_sub(insert_ns));
            self.probe.bytes += bytes as u64;
            self.probe.returned += 1;
        }
        self.advance_probe(now);
    }

    fn end_probe(&mut self, now: Ns) {
        let end = self.probe.window_end.unwrap_or(now);
        let span = end.saturating_sub(self.since + PROBE_SETTLE_NS).max(1);
        let entry = std::mem::take(&mut self.probe.lat);
        match self.probe.kind {
            Kind::Fresh => {
                self.o2 = bandwidth::Climb::default();
                if !entry.is_empty() {
                    self.ref_bw = (self.probe.bytes as u128 * 1_000_000_000 / span as u128) as u64;
                    self.probe.push(entry);
                    self.ref_p999 = Some(self.probe.pool_p999);
                }
                self.enter(Phase::Search, 0, now);
            }
            Kind::Sample => {
                if !entry.is_empty() {
                    self.probe.push(entry);
                }
                self.resume_hold(now);
                self.update_reference(now);
            }
        }
    }

    /// Back to the held level after a sampling probe, its window, its
    /// signature and its re-try time kept.
    fn resume_hold(&mut self, now: Ns) {
        self.phase = Phase::Hold;
        self.level = self.home;
        self.since = now;
        self.draining = true;
    }

    /// An RT completion: counted, and whether it passed the limit.
    pub(super) fn note_rt(&mut self, latency: Ns) {
        self.probe.rt_seen += 1;
        if self.limit().is_some_and(|l| latency > l) {
            self.probe.rt_over += 1;
        }
    }

    /// A background completion while open: every `OPEN_DECIMATE`-th after
    /// the bound opened and settled is an unbounded sample, free of cost.
    pub(super) fn open_sample(&mut self, insert_ns: Ns, now: Ns) {
        if insert_ns < self.since + PROBE_SETTLE_NS || self.probe.open_lat.len() >= PROBE_SAMPLES {
            return;
        }
        self.probe.open_seen += 1;
        if self.probe.open_seen.is_multiple_of(OPEN_DECIMATE) {
            self.probe.open_lat.push(now.saturating_sub(insert_ns));
        }
    }

    /// An open spell ends: its samples join the pool.
    pub(super) fn close_open(&mut self, now: Ns) {
        let entry = std::mem::take(&mut self.probe.open_lat);
        self.probe.open_seen = 0;
        if entry.len() >= 100 && self.ref_p999.is_some() {
            self.probe.push(entry);
            self.update_reference(now);
        }
    }
}
