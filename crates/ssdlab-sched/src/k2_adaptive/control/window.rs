//! The controller's once-a-second look at the workload: whether there is
//! RT load, whether the workload or the drive changed (its mix, its
//! bandwidth at the held bound), and the reference measured from the
//! background at saturated bounds.

use super::*;

/// A window of the workload's shape: read share and mean size.
#[derive(Debug, Default, Clone, Copy)]
pub(super) struct Mix {
    bytes: u64,
    read_bytes: u64,
    requests: u64,
}

impl Mix {
    pub(super) fn add(&mut self, dir: Dir, bytes: u32) {
        self.bytes += bytes as u64;
        self.requests += 1;
        if dir == Dir::Read {
            self.read_bytes += bytes as u64;
        }
    }

    /// Whether two windows differ in kind: read share by more than a
    /// quarter, or mean size by more than twice.
    fn differs(&self, o: &Mix) -> bool {
        if self.requests < 50 || o.requests < 50 {
            return false;
        }
        let share = |m: &Mix| m.read_bytes * 100 / m.bytes.max(1);
        let size = |m: &Mix| m.bytes / m.requests;
        share(self).abs_diff(share(o)) > 25 || size(self) > 2 * size(o) || size(o) > 2 * size(self)
    }
}

impl Controller {
    /// Once a second: no RT load means open; a held level whose bandwidth
    /// or mix moved means the workload or the drive changed, and the
    /// reference and the level are found again.
    pub(super) fn close_window(&mut self, now: Ns) {
        let span = now - self.window_start;
        let bw = (self.window_bytes as u128 * 1_000_000_000 / span.max(1) as u128) as u64;
        let (mix, rt) = (self.window_mix, self.window_rt);
        self.window_start = now;
        self.window_bytes = 0;
        self.window_rt = 0;
        self.window_mix = Mix::default();
        self.o2.last_window_bw = bw;
        if self.phase != Phase::Hold {
            return;
        }
        if rt == 0 && self.limit().is_some() {
            self.open(now);
            return;
        }
        // Saturated: as fast as the fastest second seen since the probe (a
        // probe's instant may understate a drive that starts slowly).
        self.best_bw = self.best_bw.max(bw).max(self.ref_bw);
        self.saturated = bw * 100 >= self.best_bw * SATURATED_PCT;
        self.update_reference(now);
        let changed = match (self.held_mix, self.held_bw) {
            (Some(m), Some(b)) => {
                let off = bw * 100 < b * (100 - CHANGE_FACTOR_PCT)
                    || bw * 100 > b * (100 + CHANGE_FACTOR_PCT);
                self.off_windows = if off { self.off_windows + 1 } else { 0 };
                mix.differs(&m) || self.off_windows >= 2
            }
            _ => {
                // The first whole window at this level sets its signature.
                if now.saturating_sub(self.since) >= CHANGE_WINDOW_NS {
                    self.held_mix = Some(mix);
                    self.held_bw = Some(bw);
                }
                false
            }
        };
        if changed {
            self.changed(now);
        }
    }

    /// The reference is the larger of the probe pool's p99.9 and the
    /// background's at saturated levels; a rise of a tenth or more over
    /// the one the held level was judged on makes a re-try due at once.
    pub(super) fn update_reference(&mut self, now: Ns) {
        if self.ref_p999.is_none() {
            return;
        }
        let bg = if self.bg_lat.len() >= BG_WINDOW / 10 {
            let mut v: Vec<Ns> = self.bg_lat.iter().copied().collect();
            p999(&mut v)
        } else {
            0
        };
        let new = self.probe.pool_p999.max(bg);
        self.ref_p999 = Some(new);
        // Against the reference the held level was judged on, not the
        // last one: the background's p99.9 wanders by a tenth from second
        // to second, and each upward step would otherwise force a re-try.
        let relative = matches!(self.p.objective, Objective::O1 { .. });
        if relative && new * 10 >= self.held_ref * 11 {
            self.held_ref = new;
            self.retry_gap = RETRY_BASE_NS;
            self.retry_at = now;
        }
    }

    pub(super) fn changed(&mut self, now: Ns) {
        self.counts.reprobes += 1;
        let recent = self
            .probe
            .last
            .is_some_and(|t| now.saturating_sub(t) < MIN_REPROBE_GAP_NS);
        self.search_again(now, self.needs_reference() && !recent);
    }
}
