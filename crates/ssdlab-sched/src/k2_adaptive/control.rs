//! The bound controller of `k2-adaptive`: a monotone search over a ladder
//! of bounds (1, 2, 4, … `max_bound`, unbounded), held with hysteresis,
//! re-tried upwards with exponential back-off, re-searched when the
//! workload or the drive changes. docs/model.md ("k2-adaptive") gives the
//! control law and why it settles and does not oscillate.
//!
//! What it observes is what a scheduler sees: each completion's request
//! (its class, size, direction, and its submission, insertion and dispatch
//! times) and the time. RT latency is submission to completion, as fio's
//! clat of the RT job.

use ssdlab_protocol::{Dir, Ns};
use window::Mix;

/// The bound meaning "no bound" (K2's own maximum).
pub const UNBOUNDED: u32 = 4096;

#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Objective {
    /// Most bandwidth with RT p99.9 ≤ `alpha_pct` % of the unbounded one.
    O1 { alpha_pct: u32 },
    /// Least RT p99.9 with bandwidth ≥ `beta_pct` % of the unbounded one.
    O2 { beta_pct: u32 },
    /// Most bandwidth with RT p99.9 ≤ an absolute limit.
    Target { p999_ns: Ns },
}

#[derive(Debug, Clone)]
pub struct Params {
    pub objective: Objective,
    /// The ladder of bounds; the last is `UNBOUNDED`.
    pub levels: Vec<u32>,
    /// RT samples a level must pass before it is taken.
    pub dwell_samples: usize,
    /// A level's RT p99.9 must stay under this share of the limit (per
    /// mille) to be taken; held, it may reach the limit itself.
    pub margin_permille: u64,
    /// Control tick.
    pub tick_ns: Ns,
}

impl Params {
    pub fn new(
        objective: Objective,
        max_bound: u32,
        dwell_samples: usize,
        margin_pct: u32,
    ) -> Self {
        let mut levels: Vec<u32> = (0..13)
            .map(|k| 1u32 << k)
            .take_while(|&b| b <= max_bound)
            .collect();
        levels.push(UNBOUNDED);
        Params {
            objective,
            levels,
            dwell_samples,
            margin_permille: margin_pct as u64 * 10,
            tick_ns: 100_000_000,
        }
    }
}

/// Longest a level is tried while waiting for RT samples; with fewer than
/// `MIN_RT_SAMPLES` by then there is no RT load to protect.
const DWELL_MAX_NS: Ns = 2_000_000_000;
const MIN_RT_SAMPLES: usize = 20;
/// Shortest dwell for a bandwidth decision.
const BW_DWELL_NS: Ns = 300_000_000;
/// How long the top of the ladder is measured for the O2 reference.
const TOP_MEASURE_NS: Ns = 1_000_000_000;
/// The reference probe: unbounded, measured after `PROBE_SETTLE_NS`, until
/// `PROBE_SAMPLES` completions or `PROBE_MAX_NS`.
const PROBE_SETTLE_NS: Ns = 3_000_000;
const PROBE_SAMPLES: usize = 20_000;
const PROBE_MAX_NS: Ns = 15_000_000;
/// The background requests' latencies kept for the reference (the last
/// this many at saturated held levels), and the share of the reference
/// bandwidth (per cent) a level must reach to count as saturated.
const BG_WINDOW: usize = 20_000;
const SATURATED_PCT: u64 = 75;
/// Upward re-tries of a held level: first after this, doubling on each
/// failure up to `RETRY_MAX_NS`.
const RETRY_BASE_NS: Ns = 10_000_000_000;
const RETRY_MAX_NS: Ns = 80_000_000_000;
/// A held level's RT samples judged over the last this many.
const HOLD_WINDOW: usize = 2000;
/// Change detection: per second, a bandwidth off the held level's by this
/// factor twice running, or a different mix of directions or sizes.
const CHANGE_WINDOW_NS: Ns = 1_000_000_000;
const CHANGE_FACTOR_PCT: u64 = 40;
const MIN_REPROBE_GAP_NS: Ns = 10_000_000_000;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Phase {
    /// Unbounded briefly, measuring the reference.
    Probe,
    /// Climbing the ladder from the bottom.
    Search,
    /// Settled.
    Hold,
    /// Trying the next level from a held one.
    Trial,
    /// No RT load: unbounded until RT requests come back.
    Open,
}

/// What the controller counts (the scheduler's counters).
#[derive(Debug, Default, Clone, Copy)]
pub struct Counts {
    pub probes: u64,
    pub level_changes: u64,
    pub steps_down: u64,
    pub trials: u64,
    pub trials_failed: u64,
    pub reprobes: u64,
    pub infeasible: u64,
    pub opened: u64,
}

/// What the controller learns of one completed request.
#[derive(Debug, Clone, Copy)]
pub struct Done {
    pub rt: bool,
    pub dir: Dir,
    pub bytes: u32,
    pub submit_ns: Ns,
    pub insert_ns: Ns,
    pub dispatch_ns: Ns,
}

pub struct Controller {
    p: Params,
    phase: Phase,
    level: usize,
    /// The level a trial falls back to, and the level Open resumes.
    home: usize,
    /// When the current level (or probe) began; samples of requests
    /// inserted before it do not count for it.
    since: Ns,
    /// A lowered bound holds once the device has drained to it: until then
    /// `since` moves with the clock.
    draining: bool,
    /// RT latencies at the current level since `since` (Hold: the last
    /// `HOLD_WINDOW`).
    rt: Vec<Ns>,
    bytes: u64,
    /// Reference (unbounded) RT p99.9 and bandwidth.
    ref_p999: Option<Ns>,
    ref_bw: u64,
    probe_lat: Vec<Ns>,
    probe_bytes: u64,
    probe_p999: Ns,
    /// Whether the top of the ladder has been measured since the probe.
    top_measured: bool,
    /// Background (non-RT) latencies at saturated held levels: a closed
    /// loop of background jobs keeps the same number of requests in the
    /// system under any bound, so where the bound does not cost
    /// bandwidth their tail is the tail an unbounded RT request meets,
    /// measured over the run rather than a probe's instant.
    bg_lat: std::collections::VecDeque<Ns>,
    saturated: bool,
    /// The most bandwidth of any second since the last probe.
    best_bw: u64,
    retry_at: Ns,
    retry_gap: Ns,
    /// Change detection.
    window_start: Ns,
    window_bytes: u64,
    window_rt: u64,
    window_mix: Mix,
    held_mix: Option<Mix>,
    held_bw: Option<u64>,
    off_windows: u32,
    last_probe: Option<Ns>,
    next_tick: Ns,
    pub counts: Counts,
}

impl Controller {
    pub fn new(p: Params) -> Self {
        let needs_ref = !matches!(p.objective, Objective::Target { .. });
        let tick = p.tick_ns;
        let mut c = Controller {
            p,
            phase: Phase::Search,
            level: 0,
            home: 0,
            since: 0,
            draining: false,
            rt: Vec::new(),
            bytes: 0,
            ref_p999: None,
            ref_bw: 0,
            probe_lat: Vec::new(),
            probe_bytes: 0,
            probe_p999: 0,
            top_measured: false,
            bg_lat: std::collections::VecDeque::new(),
            saturated: false,
            best_bw: 0,
            retry_at: 0,
            retry_gap: RETRY_BASE_NS,
            window_start: 0,
            window_bytes: 0,
            window_rt: 0,
            window_mix: Mix::default(),
            held_mix: None,
            held_bw: None,
            off_windows: 0,
            last_probe: None,
            next_tick: tick,
            counts: Counts::default(),
        };
        if needs_ref {
            c.start_probe(0);
        }
        c
    }

    pub fn bound(&self) -> u32 {
        match self.phase {
            Phase::Probe | Phase::Open => UNBOUNDED,
            _ => self.p.levels[self.level],
        }
    }

    /// The unbounded RT p99.9 and bandwidth (bytes/s) the last probe
    /// measured (0 before one).
    pub fn reference(&self) -> (Ns, u64) {
        (self.ref_p999.unwrap_or(0), self.ref_bw)
    }

    pub fn next_tick(&self) -> Ns {
        self.next_tick
    }

    /// The RT p99.9 limit (O1, Target) once known.
    fn limit(&self) -> Option<Ns> {
        match self.p.objective {
            Objective::O1 { alpha_pct } => self.ref_p999.map(|r| r * alpha_pct as Ns / 100),
            Objective::Target { p999_ns } => Some(p999_ns),
            Objective::O2 { .. } => None,
        }
    }

    fn bw_floor(&self) -> Option<u64> {
        match self.p.objective {
            Objective::O2 { beta_pct } => Some(self.ref_bw * beta_pct as u64 / 100),
            _ => None,
        }
    }

    fn top(&self) -> usize {
        self.p.levels.len() - 1
    }

    fn enter(&mut self, phase: Phase, level: usize, now: Ns) {
        if phase != Phase::Probe && level != self.level {
            self.counts.level_changes += 1;
        }
        self.phase = phase;
        self.level = level;
        self.since = now;
        self.draining = true;
        self.rt.clear();
        self.bytes = 0;
        if phase == Phase::Hold {
            self.held_mix = None;
            self.held_bw = None;
            self.off_windows = 0;
        }
    }

    /// A probe: the reference starts over, then the climb.
    fn start_probe(&mut self, now: Ns) {
        self.counts.probes += 1;
        self.last_probe = Some(now);
        self.bg_lat.clear();
        self.best_bw = 0;
        self.probe_lat.clear();
        self.probe_bytes = 0;
        let level = self.level;
        self.enter(Phase::Probe, level, now);
    }

    fn hold(&mut self, level: usize, now: Ns) {
        self.home = level;
        self.enter(Phase::Hold, level, now);
        self.retry_at = now + self.retry_gap;
    }

    /// An RT request arrives: an open bound closes at once.
    pub fn on_rt_insert(&mut self, now: Ns) {
        if self.phase == Phase::Open {
            let home = self.home;
            self.hold(home, now);
        }
    }

    /// A request completed at `now`, leaving `inflight` at the device.
    pub fn on_complete(&mut self, done: &Done, inflight: u32, now: Ns) {
        let Done {
            rt,
            dir,
            bytes,
            submit_ns,
            insert_ns,
            dispatch_ns,
        } = *done;
        if self.draining && inflight <= self.bound() {
            self.draining = false;
            self.since = now;
        }
        self.window_bytes += bytes as u64;
        self.window_mix.add(dir, bytes);
        self.window_rt += u64::from(rt);
        if self.phase == Phase::Probe {
            self.probe_sample(bytes, insert_ns, dispatch_ns, now);
            return;
        }
        if !rt && self.saturated && self.phase == Phase::Hold && insert_ns >= self.since {
            if self.bg_lat.len() == BG_WINDOW {
                self.bg_lat.pop_front();
            }
            self.bg_lat.push_back(now.saturating_sub(submit_ns));
        }
        if dispatch_ns >= self.since {
            self.bytes += bytes as u64;
        }
        if rt && insert_ns >= self.since {
            self.rt.push(now.saturating_sub(submit_ns));
            if self.phase == Phase::Hold && self.rt.len() > HOLD_WINDOW {
                self.rt.remove(0);
            }
            self.judge(now);
        }
    }

    /// Every completion of a request dispatched after the probe settled is
    /// one sample of what an RT request would see unbounded: under no
    /// bound an RT request waits behind the same device queue.
    fn probe_sample(&mut self, bytes: u32, insert_ns: Ns, dispatch_ns: Ns, now: Ns) {
        if now >= self.since + PROBE_MAX_NS {
            self.end_probe(now);
            return;
        }
        if dispatch_ns < self.since + PROBE_SETTLE_NS {
            return;
        }
        self.probe_lat.push(now.saturating_sub(insert_ns));
        self.probe_bytes += bytes as u64;
        if self.probe_lat.len() >= PROBE_SAMPLES {
            self.end_probe(now);
        }
    }

    fn end_probe(&mut self, now: Ns) {
        let span = now.saturating_sub(self.since + PROBE_SETTLE_NS).max(1);
        self.top_measured = false;
        if !self.probe_lat.is_empty() {
            self.probe_p999 = p999(&mut self.probe_lat);
            self.ref_p999 = Some(self.probe_p999);
            self.ref_bw = (self.probe_bytes as u128 * 1_000_000_000 / span as u128) as u64;
        }
        self.enter(Phase::Search, 0, now);
    }

    /// Judges the level on its RT samples so far: a level being tried is
    /// dropped at its first sample over the taking limit (past what a
    /// p99.9 allows); a held one steps down once its window's p99.9
    /// passes the limit.
    fn judge(&mut self, now: Ns) {
        let Some(limit) = self.limit() else {
            return;
        };
        let n = self.rt.len();
        match self.phase {
            Phase::Search | Phase::Trial => {
                let take = limit * self.p.margin_permille / 1000;
                let over = self.rt.iter().filter(|&&l| l > take).count();
                if over > n / 1000 {
                    self.reject(now);
                } else if n >= self.p.dwell_samples {
                    self.accept(now);
                }
            }
            Phase::Hold => {
                let over = self.rt.iter().filter(|&&l| l > limit).count();
                if n >= self.p.dwell_samples && over > n / 1000 {
                    self.step_down(now);
                }
            }
            Phase::Probe | Phase::Open => {}
        }
    }

    /// The level being tried passed.
    fn accept(&mut self, now: Ns) {
        match self.phase {
            Phase::Search if self.level < self.top() => {
                let next = self.level + 1;
                self.enter(Phase::Search, next, now);
            }
            Phase::Trial if self.level < self.top() => {
                // A re-try that passes resumes the climb from there.
                self.retry_gap = RETRY_BASE_NS;
                let next = self.level + 1;
                self.enter(Phase::Search, next, now);
            }
            _ => {
                let level = self.level;
                self.hold(level, now);
            }
        }
    }

    /// The level being tried failed: hold the one below (or, on a trial,
    /// go home and wait twice as long before the next).
    fn reject(&mut self, now: Ns) {
        match self.phase {
            Phase::Trial => {
                self.counts.trials_failed += 1;
                self.retry_gap = (self.retry_gap * 2).min(RETRY_MAX_NS);
                let home = self.home;
                self.hold(home, now);
            }
            _ if self.level == 0 => {
                // Even the tightest bound misses: the objective is
                // infeasible here; hold the tightest.
                self.counts.infeasible += 1;
                self.hold(0, now);
            }
            _ => {
                let below = self.level - 1;
                self.hold(below, now);
            }
        }
    }

    fn step_down(&mut self, now: Ns) {
        if self.level == 0 {
            return;
        }
        self.counts.steps_down += 1;
        self.retry_gap = (self.retry_gap * 2).min(RETRY_MAX_NS);
        let below = self.level - 1;
        self.hold(below, now);
    }

    /// The control tick: dwell limits, bandwidth decisions, re-tries,
    /// change detection.
    pub fn on_tick(&mut self, now: Ns) {
        self.next_tick = now + self.p.tick_ns;
        let needs_ref = !matches!(self.p.objective, Objective::Target { .. });
        if needs_ref
            && self.ref_p999.is_none()
            && self.phase != Phase::Probe
            && self.window_bytes > 0
        {
            // The first probe saw no I/O (the jobs had not started).
            self.start_probe(now);
            return;
        }
        if self.phase == Phase::Probe {
            if now >= self.since + PROBE_MAX_NS {
                self.end_probe(now);
            }
            return;
        }
        if now >= self.window_start + CHANGE_WINDOW_NS {
            self.close_window(now);
            if self.phase == Phase::Probe {
                return;
            }
        }
        let dwelt = now.saturating_sub(self.since);
        match self.bw_floor() {
            Some(floor) => self.tick_bandwidth(floor, dwelt, now),
            None => self.tick_latency(dwelt, now),
        }
    }

    /// O1 and Target: a level tried for `DWELL_MAX_NS` without enough RT
    /// samples is taken on what it has, or there is no RT load.
    fn tick_latency(&mut self, dwelt: Ns, now: Ns) {
        match self.phase {
            Phase::Search | Phase::Trial if dwelt >= DWELL_MAX_NS => {
                if self.rt.len() >= MIN_RT_SAMPLES {
                    self.accept(now);
                } else {
                    self.open(now);
                }
            }
            Phase::Hold if now >= self.retry_at && self.level < self.top() => {
                self.counts.trials += 1;
                let up = self.level + 1;
                self.enter(Phase::Trial, up, now);
            }
            _ => {}
        }
    }

    /// O2: the smallest level whose bandwidth clears the floor, tried
    /// downwards from a held level now and then.
    fn tick_bandwidth(&mut self, floor: u64, dwelt: Ns, now: Ns) {
        if dwelt < BW_DWELL_NS {
            return;
        }
        let bw = (self.bytes as u128 * 1_000_000_000 / dwelt as u128) as u64;
        if self.level == self.top() && dwelt >= TOP_MEASURE_NS && !self.top_measured {
            // A second at the top is the unbounded bandwidth as it is now,
            // which a probe's instant (a drive absorbing writes into its
            // SLC cache) may overstate: it replaces the probe's, and a
            // lower floor is searched for again from the bottom.
            self.top_measured = true;
            let old = self.ref_bw;
            self.ref_bw = bw;
            if bw * 10 < old * 9 {
                self.enter(Phase::Search, 0, now);
                return;
            }
        }
        let clears = bw * 100 >= floor * 105;
        match self.phase {
            Phase::Search if clears => self.hold(self.level, now),
            Phase::Search if self.level == self.top() && dwelt >= TOP_MEASURE_NS => {
                self.hold(self.level, now)
            }
            Phase::Search if self.level == self.top() => {}
            Phase::Search => {
                let up = self.level + 1;
                self.enter(Phase::Search, up, now);
            }
            Phase::Trial => {
                if clears && self.level > 0 {
                    // A passing re-try goes on down.
                    self.retry_gap = RETRY_BASE_NS;
                    self.home = self.level;
                    let down = self.level - 1;
                    self.enter(Phase::Trial, down, now);
                } else if clears {
                    self.retry_gap = RETRY_BASE_NS;
                    self.hold(self.level, now);
                } else {
                    self.counts.trials_failed += 1;
                    self.retry_gap = (self.retry_gap * 2).min(RETRY_MAX_NS);
                    let home = self.home;
                    self.hold(home, now);
                }
            }
            Phase::Hold if bw < floor && self.level < self.top() => {
                self.counts.steps_down += 1;
                let up = self.level + 1;
                self.hold(up, now);
            }
            Phase::Hold if now >= self.retry_at && self.level > 0 => {
                self.counts.trials += 1;
                let down = self.level - 1;
                self.enter(Phase::Trial, down, now);
            }
            _ => {}
        }
    }

    fn open(&mut self, now: Ns) {
        self.counts.opened += 1;
        let home = if self.phase == Phase::Hold {
            self.level
        } else {
            self.home
        };
        self.enter(Phase::Open, self.level, now);
        self.home = home;
    }
}

/// The 99.9th percentile of samples (nearest rank; sorts them).
pub fn p999(samples: &mut [Ns]) -> Ns {
    samples.sort_unstable();
    let rank = (samples.len() * 999).div_ceil(1000).max(1);
    samples[rank - 1]
}

mod window;

#[cfg(test)]
mod tests;
