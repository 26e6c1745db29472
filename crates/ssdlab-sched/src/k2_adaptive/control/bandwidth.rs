//! O2: the smallest level whose bandwidth clears the floor (β % of the
//! unbounded bandwidth), tried downwards from a held level now and then.
//!
//! The floor rests on the probe's bandwidth, which a drive absorbing
//! writes into a cache states far above what it sustains (random writes:
//! 1.08 GB/s for a probe, 0.32 GB/s a few seconds later). Climbing the
//! ladder to the top to find that out costs the RT job seconds of the
//! unbounded tail, so the climb reads the drive from the levels it
//! passes: a level that buys less than a tenth more bandwidth than the one
//! below means the drive, not the bound, limits it, and its bandwidth is
//! then the reference. A held level whose own bandwidth falls by a fifth
//! is a drive that slowed, not a bound too tight: the reference is
//! measured again before any step up.

use super::*;

/// Shortest dwell for a bandwidth decision.
const BW_DWELL_NS: Ns = 300_000_000;
/// A level being tried clears the floor when its bandwidth is this share
/// (per cent) above it and misses when as far below; in between, one
/// dwell cannot tell the level's bandwidth from the second-to-second
/// wander of the drive's, so it is measured on for `BW_CLOSE_DWELL_NS`
/// and judged against the floor itself.
const BW_CLOSE_PCT: u64 = 5;
const BW_CLOSE_DWELL_NS: Ns = 1_500_000_000;
/// How long the top of the ladder is measured for the reference.
const TOP_MEASURE_NS: Ns = 1_000_000_000;
/// A level above another that gains less than this (per cent) is
/// saturated: the drive limits the bandwidth.
const GAIN_PCT: u64 = 110;
/// A held level whose window bandwidth falls under this share (per cent)
/// of its first second's means the drive slowed.
const SLOWED_PCT: u64 = 80;

/// What the O2 climb has measured since the reference was taken.
#[derive(Debug, Default, Clone)]
pub(super) struct Climb {
    /// Whether the top of the ladder has been measured.
    top_measured: bool,
    /// The level below the current one and its bandwidth, when the climb
    /// (or a step up from a held level) came from there.
    below: Option<(usize, u64)>,
    /// The last whole window's bandwidth (window.rs).
    pub(super) last_window_bw: u64,
}

impl Controller {
    pub(super) fn tick_bandwidth(&mut self, floor: u64, dwelt: Ns, now: Ns) {
        if dwelt < BW_DWELL_NS {
            return;
        }
        let bw = (self.bytes as u128 * 1_000_000_000 / dwelt as u128) as u64;
        if self.level == self.top() && dwelt >= TOP_MEASURE_NS && !self.o2.top_measured {
            // A second at the top is the unbounded bandwidth as it is now:
            // it replaces the probe's, and a lower floor is searched for
            // again from the bottom.
            self.o2.top_measured = true;
            let old = self.ref_bw;
            self.ref_bw = bw;
            if bw * 10 < old * 9 {
                self.enter(Phase::Search, 0, now);
                return;
            }
        }
        let verdict = floor_verdict(bw, floor, dwelt);
        if verdict.is_none() && matches!(self.phase, Phase::Search | Phase::Trial) {
            return;
        }
        let clears = verdict == Some(true);
        if !clears && self.saturated_below(bw, now) {
            return;
        }
        match self.phase {
            Phase::Search if clears => self.hold(self.level, now),
            Phase::Search if self.level == self.top() && dwelt >= TOP_MEASURE_NS => {
                self.hold(self.level, now)
            }
            Phase::Search if self.level == self.top() => {}
            Phase::Search => self.step_up(bw, Phase::Search, now),
            Phase::Trial => self.judge_trial(clears, now),
            Phase::Hold if bw < floor && self.slowed() => self.changed(now),
            Phase::Hold if bw < floor && self.level < self.top() => {
                self.counts.steps_down += 1;
                self.step_up(bw, Phase::Hold, now);
            }
            Phase::Hold if now >= self.retry_at && self.level > 0 => {
                self.counts.trials += 1;
                let down = self.level - 1;
                self.o2.below = None;
                self.enter(Phase::Trial, down, now);
            }
            _ => {}
        }
    }

    /// One level up, remembering what this one gave.
    fn step_up(&mut self, bw: u64, phase: Phase, now: Ns) {
        self.o2.below = Some((self.level, bw));
        let up = self.level + 1;
        match phase {
            Phase::Hold => self.hold(up, now),
            _ => self.enter(phase, up, now),
        }
    }

    /// A level that misses the floor and gains under a tenth on the one
    /// below it: the drive is saturated below the reference, which was
    /// overstated. Its bandwidth becomes the reference, and the floor is
    /// searched for again from the bottom.
    fn saturated_below(&mut self, bw: u64, now: Ns) -> bool {
        let Some((below, below_bw)) = self.o2.below else {
            return false;
        };
        let gains = bw * 100 >= below_bw * GAIN_PCT;
        let overstated = bw * 10 < self.ref_bw * 9;
        if below + 1 != self.level || gains || !overstated {
            return false;
        }
        // This level's, not the larger: the one below may have been
        // measured before the drive slowed (a held level's whole hold).
        self.ref_bw = bw;
        self.o2.below = None;
        self.enter(Phase::Search, 0, now);
        true
    }

    /// Whether the held level's bandwidth fell by a fifth from its first
    /// second's: the drive slowed under the same bound.
    fn slowed(&self) -> bool {
        self.held_bw
            .is_some_and(|b| self.o2.last_window_bw * 100 < b * SLOWED_PCT)
    }

    /// A re-try one level down: passing, it goes on down; failing, home.
    fn judge_trial(&mut self, clears: bool, now: Ns) {
        if clears && self.level > 0 {
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
}

/// Whether a level measured at `bw` over `dwelt` clears the floor: `None`
/// while too close to call.
fn floor_verdict(bw: u64, floor: u64, dwelt: Ns) -> Option<bool> {
    if bw * 100 >= floor * (100 + BW_CLOSE_PCT) {
        Some(true)
    } else if bw * 100 < floor * (100 - BW_CLOSE_PCT) {
        Some(false)
    } else if dwelt >= BW_CLOSE_DWELL_NS {
        Some(bw >= floor)
    } else {
        None
    }
}
