//! The tightest level (a bound of 1): it has no level below to fall back
//! to, so it is judged on its whole dwell, and under O1 a limit that even
//! it misses sends the controller to measure the reference again.

use super::*;

impl Controller {
    /// The tightest level has none below to fall back to: it is judged
    /// on its whole dwell, infeasible only if it misses the limit as a
    /// held level would (a rare slow sample says nothing against it), and
    /// climbed from only if it also passed the taking margin.
    pub(super) fn judge_tightest(&mut self, limit: Ns, now: Ns) {
        let n = self.rt.len();
        if n < self.p.dwell_samples {
            return;
        }
        if self.rt_over(limit) > held_allowance(n) {
            self.reject(now);
        } else if self.rt_over(self.take_limit(limit)) > n / 1000 {
            self.hold(0, now);
        } else {
            self.accept(now);
        }
    }

    /// A relative limit that even the tightest bound misses is more often
    /// a reference measured while the drive was faster than it is now (a
    /// probe at the start, while the SLC cache absorbed writes) than an
    /// objective out of reach; a level that missed it is no evidence, and
    /// the bandwidth at the tightest bound need not move when the drive
    /// slows, so no change would be seen.
    pub(super) fn reference_suspect(&self) -> bool {
        self.held_infeasible && matches!(self.p.objective, Objective::O1 { .. })
    }
}
