//! The bound controller of `k2-adaptive`: a monotone search over a ladder
//! of bounds (1, 2, 4, … `max_bound`, unbounded), held with hysteresis,
//! re-tried upwards with exponential back-off, re-searched when the
//! workload or the drive changes. The reference it needs is measured by
//! probes (`probe.rs`: for O1 a pool of probes spread over the run); O2's
//! climb reads a saturated drive from the levels it passes
//! (`bandwidth.rs`); the tightest level, which has none below it, is
//! judged on its own terms (`tightest.rs`). docs/model.md ("k2-adaptive") gives the
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
/// The background requests' latencies kept for the reference (the last
/// this many at saturated held levels), and the share of the reference
/// bandwidth (per cent) a level must reach to count as saturated.
const BG_WINDOW: usize = 20_000;
const SATURATED_PCT: u64 = 75;
/// Upward re-tries of a held level: first after this, doubling on each
/// failure up to `RETRY_MAX_NS`.
const RETRY_BASE_NS: Ns = 10_000_000_000;
const RETRY_MAX_NS: Ns = 80_000_000_000;
/// A held level's RT samples judged over the last this many, and, for a
/// gross violation (a drive that changed), `FAST_OVER` over the limit in
/// the last `FAST_WINDOW`.
const HOLD_WINDOW: usize = 2000;
const FAST_WINDOW: usize = 300;
const FAST_OVER: usize = 4;
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
    pub sample_probes: u64,
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
    /// The probes' state (probe.rs).
    probe: probe::Probes,
    /// O2's measurements since the probe (bandwidth.rs).
    o2: bandwidth::Climb,
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
    /// The reference when the held level was taken (or its last re-try
    /// failed): only a rise above this makes a re-try due early.
    held_ref: Ns,
    /// The held level is the tightest and even it missed the limit.
    held_infeasible: bool,
    /// The running probe re-measures a reference no level met.
    suspect_probe: bool,
    /// Change detection.
    window_start: Ns,
    window_bytes: u64,
    window_rt: u64,
    window_mix: Mix,
    held_mix: Option<Mix>,
    held_bw: Option<u64>,
    off_windows: u32,
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
            probe: probe::Probes::default(),
            o2: bandwidth::Climb::default(),
            bg_lat: std::collections::VecDeque::new(),
            saturated: false,
            best_bw: 0,
            retry_at: 0,
            retry_gap: RETRY_BASE_NS,
            held_ref: 0,
            held_infeasible: false,
            suspect_probe: false,
            window_start: 0,
            window_bytes: 0,
            window_rt: 0,
            window_mix: Mix::default(),
            held_mix: None,
            held_bw: None,
            off_windows: 0,
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
            Phase::Probe if self.probe_window_open() => UNBOUNDED,
            Phase::Open => UNBOUNDED,
            _ => self.p.levels[self.level],
        }
    }

    /// The scheduler dispatched a request at `now`.
    pub fn on_dispatch(&mut self, now: Ns) {
        self.probe_dispatched(now);
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
        self.held_infeasible = false;
        if phase == Phase::Hold {
            self.held_mix = None;
            self.held_bw = None;
            self.off_windows = 0;
        }
    }

    fn hold(&mut self, level: usize, now: Ns) {
        self.home = level;
        self.enter(Phase::Hold, level, now);
        self.retry_at = now + self.retry_gap;
        self.held_ref = self.ref_p999.unwrap_or(0);
    }

    /// An RT request arrives: an open bound closes at once.
    pub fn on_rt_insert(&mut self, now: Ns) {
        if self.phase == Phase::Open {
            let home = self.home;
            self.hold(home, now);
            self.close_open(now);
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
        if rt {
            self.note_rt(now.saturating_sub(submit_ns));
        }
        match self.phase {
            Phase::Probe => return self.probe_sample(bytes, insert_ns, dispatch_ns, now),
            Phase::Open if !rt => self.open_sample(insert_ns, now),
            _ => {}
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
            Phase::Search if self.level == 0 => self.judge_tightest(limit, now),
            Phase::Search | Phase::Trial => {
                if self.rt_over(self.take_limit(limit)) > n / 1000 {
                    self.reject(now);
                } else if n >= self.p.dwell_samples {
                    self.accept(now);
                }
            }
            Phase::Hold => {
                let over = self.rt_over(limit);
                let recent = self.rt.iter().rev().take(FAST_WINDOW);
                let gross = recent.filter(|&&l| l > limit).count() >= FAST_OVER;
                if gross && self.level > 0 {
                    self.gross_violation(now);
                } else if n >= self.p.dwell_samples && over > held_allowance(n) {
                    self.step_down(now);
                }
            }
            Phase::Probe | Phase::Open => {}
        }
    }

    /// A level is taken only with its RT samples under this share of the
    /// limit (`margin`); held, it may reach the limit itself.
    fn take_limit(&self, limit: Ns) -> Ns {
        limit * self.p.margin_permille / 1000
    }

    /// The current level's RT samples over `latency`.
    fn rt_over(&self, latency: Ns) -> usize {
        self.rt.iter().filter(|&&l| l > latency).count()
    }

    /// The level being tried passed.
    fn accept(&mut self, now: Ns) {
        self.suspect_probe = false;
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
                if std::mem::take(&mut self.suspect_probe) {
                    // Measured again and still out of reach: wait longer.
                    self.retry_gap = (self.retry_gap * 2).min(RETRY_MAX_NS);
                }
                self.hold(0, now);
                self.held_infeasible = true;
            }
            _ => {
                let below = self.level - 1;
                self.hold(below, now);
            }
        }
    }

    /// The drive changed under the held level: climb from the bottom at
    /// once, rather than paying a violation per step down. No probe: a
    /// drive that slowed has a longer unbounded tail, so the reference
    /// as it stands is low and its limit strict (the safe side), while a
    /// probe now would expose the RT job to the drive at its worst; the
    /// sampling probes bring the reference up, and a reference no level
    /// meets is measured again (`reference_suspect`).
    fn gross_violation(&mut self, now: Ns) {
        self.counts.steps_down += 1;
        self.search_again(now, false);
    }

    /// The level is found again from the bottom, after a probe if `probe`.
    pub(super) fn search_again(&mut self, now: Ns, probe: bool) {
        self.retry_gap = RETRY_BASE_NS;
        self.suspect_probe = false;
        if probe {
            self.start_probe(now);
        } else {
            self.enter(Phase::Search, 0, now);
        }
    }

    /// O1 and O2 are relative to the unbounded drive; a target is not.
    fn needs_reference(&self) -> bool {
        !matches!(self.p.objective, Objective::Target { .. })
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
        if self.needs_reference()
            && self.ref_p999.is_none()
            && self.phase != Phase::Probe
            && self.window_bytes > 0
        {
            // The first probe saw no I/O (the jobs had not started).
            self.start_probe(now);
            return;
        }
        if self.phase == Phase::Probe {
            self.advance_probe(now);
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
            Phase::Hold if self.sample_probe_due(now) => self.start_sample_probe(now),
            Phase::Hold if now >= self.retry_at && self.reference_suspect() => {
                // Re-measured at the re-try times instead of a re-try up.
                self.counts.reprobes += 1;
                self.suspect_probe = true;
                self.start_probe(now);
            }
            Phase::Hold if now >= self.retry_at && self.level < self.top() => {
                self.counts.trials += 1;
                let up = self.level + 1;
                self.enter(Phase::Trial, up, now);
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

/// How many of a held level's last `n` RT samples may pass the limit
/// before it steps down: the p99.9's one per 1000 (λ) plus three standard
/// deviations of a Poisson count (3√λ). The test runs at every sample
/// over a sliding window, so at λ alone a level passing the limit at half
/// the rate a p99.9 allows would still step down within a minute nine
/// times in ten; with the margin, at the allowed rate three times in ten,
/// and at twice that rate always (docs/model.md, "k2-adaptive").
fn held_allowance(n: usize) -> usize {
    let lambda = n as f64 / 1000.0;
    (lambda + 3.0 * lambda.sqrt()) as usize
}

/// The 99.9th percentile of samples (nearest rank; sorts them).
pub fn p999(samples: &mut [Ns]) -> Ns {
    samples.sort_unstable();
    let rank = (samples.len() * 999).div_ceil(1000).max(1);
    samples[rank - 1]
}

mod bandwidth;
mod probe;
mod tightest;
mod window;

#[cfg(test)]
mod tests;
