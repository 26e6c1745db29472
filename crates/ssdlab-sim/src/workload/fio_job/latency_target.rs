//! fio's `latency_target` search (fio's target.c, modelled; docs/fio.md):
//! the job looks for the deepest queue whose I/O meets a latency target.
//! It starts at depth 1 with a window of `latency_window`; a window in which
//! at least `latency_percentile` per cent of the completed I/O took no
//! longer than the target is a success, and the depth doubles (or, once a
//! depth has failed, bisects towards it); a failure bisects down towards the
//! last success and waits for the outstanding I/O first. With the default
//! percentile of 100 a single late I/O fails the window at once. When a
//! success leaves the depth where it was, the job quiesces, resets its
//! statistics and runs one more window at that depth; the job ends when
//! that window succeeds too. A failure at depth 1 with the percentile at 100
//! ends the job with fio's error (ETIMEDOUT, "max latency exceeded").

use ssdlab_fio::JobSpec;
use ssdlab_protocol::Ns;

/// fio's errno for a job that fails its latency target at depth 1
/// (ETIMEDOUT).
pub const ETIMEDOUT: u32 = 110;

/// The search as a job runs it: the reads and writes it has completed, and
/// whether it has ended (found its depth, or failed at depth 1).
#[derive(Debug, Clone)]
pub struct LatencySearch {
    target: LatencyTarget,
    ios: u64,
    /// The final window waits for the outstanding I/O before the job's
    /// statistics restart.
    reset_pending: bool,
    pub ended: bool,
    pub failed: bool,
}

impl LatencySearch {
    /// The search of a job that sets `latency_target`, from `now`.
    pub fn of(spec: &JobSpec, now: Ns) -> Option<LatencySearch> {
        (spec.latency_target_ns > 0).then(|| LatencySearch {
            target: LatencyTarget::new(
                spec.latency_target_ns,
                spec.latency_window_ns,
                spec.latency_percentile,
                spec.effective_iodepth().max(1),
                now,
            ),
            ios: 0,
            reset_pending: false,
            ended: false,
            failed: false,
        })
    }

    /// The depth the job may issue to with `inflight` outstanding.
    pub fn depth(&self, iodepth: u32, inflight: u32) -> u32 {
        self.target.depth(inflight).min(iodepth)
    }

    /// The depth found (fio's `latency_depth`).
    pub fn depth_found(&self) -> u32 {
        self.target.depth_found()
    }

    /// A read or write completed after `lat_ns`, `inflight` still
    /// outstanding; true when the job's statistics restart now (the final
    /// window begins).
    pub fn completed(&mut self, lat_ns: Ns, now: Ns, inflight: u32) -> bool {
        self.ios += 1;
        if !self.ended {
            match self.target.completed(lat_ns, now, self.ios) {
                Step::Continue => {}
                Step::StartFinalRun => self.reset_pending = true,
                Step::Done => self.ended = true,
                Step::Fatal => (self.ended, self.failed) = (true, true),
            }
        }
        if inflight > 0 {
            return false;
        }
        self.target.drained();
        std::mem::take(&mut self.reset_pending)
    }
}

/// What the search asks of the job.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Step {
    Continue,
    /// Wait for the outstanding I/O, then reset the statistics: the final
    /// window at the depth found begins.
    StartFinalRun,
    /// The final window succeeded: the job is done.
    Done,
    /// A late I/O at depth 1 with the percentile at 100: the job fails.
    Fatal,
}

#[derive(Debug, Clone)]
struct LatencyTarget {
    target_ns: Ns,
    window_ns: Ns,
    percentile: f64,
    max_depth: u32,
    /// The depth the job may use now.
    depth: u32,
    low: u32,
    high: u32,
    window_start: Ns,
    ios_at_start: u64,
    late: u64,
    final_run: bool,
    /// Issue nothing until the outstanding I/O has completed (fio's
    /// `io_u_quiesce` after a step down and before the final run).
    quiesce: bool,
}

impl LatencyTarget {
    /// The search for a job of `max_depth` (its iodepth), from `now`.
    pub fn new(target_ns: Ns, window_ns: Ns, percentile: f64, max_depth: u32, now: Ns) -> Self {
        LatencyTarget {
            target_ns,
            window_ns,
            percentile,
            max_depth: max_depth.max(1),
            depth: 1,
            low: 1,
            high: max_depth.max(1),
            window_start: now,
            ios_at_start: 0,
            late: 0,
            final_run: false,
            quiesce: false,
        }
    }

    /// The depth the job may issue to now (0 while it quiesces with I/O
    /// outstanding).
    pub fn depth(&self, inflight: u32) -> u32 {
        if self.quiesce && inflight > 0 {
            0
        } else {
            self.depth
        }
    }

    /// The depth reached (fio's `latency_depth`).
    pub fn depth_found(&self) -> u32 {
        self.depth
    }

    /// Once the outstanding I/O has completed, a quiesce ends.
    pub fn drained(&mut self) {
        self.quiesce = false;
    }

    /// A read or write completed after `lat_ns` (fio compares its total
    /// latency); `ios` is the job's completed reads and writes so far.
    pub fn completed(&mut self, lat_ns: Ns, now: Ns, ios: u64) -> Step {
        if lat_ns > self.target_ns {
            if self.percentile >= 100.0 {
                return self.failed(now, ios);
            }
            self.late += 1;
        }
        self.check(now, ios)
    }

    /// At the end of a window: success or failure of the depth tried.
    pub fn check(&mut self, now: Ns, ios: u64) -> Step {
        if now.saturating_sub(self.window_start) < self.window_ns {
            return Step::Continue;
        }
        let done = ios - self.ios_at_start;
        // A window without a completion fails (fio divides by zero there,
        // and its comparison with the NaN fails).
        let on_time = if done == 0 {
            0.0
        } else {
            100.0 * (done - self.late.min(done)) as f64 / done as f64
        };
        if on_time >= self.percentile {
            self.succeeded(now, ios)
        } else {
            // Below 100, a failure at depth 1 leaves the depth at 1.
            match self.failed(now, ios) {
                Step::Fatal => {
                    self.new_window(now, ios);
                    Step::Continue
                }
                s => s,
            }
        }
    }

    fn succeeded(&mut self, now: Ns, ios: u64) -> Step {
        let before = self.depth;
        self.low = self.depth;
        // Double until a depth has failed; then bisect towards it.
        self.depth = if self.high != self.max_depth {
            (self.depth + self.high) / 2
        } else {
            self.depth.saturating_mul(2)
        }
        .min(self.max_depth);
        let step = if self.depth == before {
            if self.final_run {
                Step::Done
            } else {
                self.final_run = true;
                self.quiesce = true;
                Step::StartFinalRun
            }
        } else {
            Step::Continue
        };
        self.new_window(now, ios);
        step
    }

    fn failed(&mut self, now: Ns, ios: u64) -> Step {
        if self.depth == 1 {
            return Step::Fatal;
        }
        self.high = self.depth;
        if self.depth == self.low {
            self.low -= 1;
        }
        self.depth = (self.depth + self.low) / 2;
        self.quiesce = true;
        self.new_window(now, ios);
        Step::Continue
    }

    fn new_window(&mut self, now: Ns, ios: u64) {
        self.window_start = now;
        self.ios_at_start = ios;
        self.late = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: Ns = 1_000_000;

    /// A plant whose latency passes the target above `knee` outstanding:
    /// every window completes 100 I/Os, late when the depth is past the knee.
    fn search(knee: u32, max_depth: u32, percentile: f64) -> (Vec<u32>, Step) {
        let mut lt = LatencyTarget::new(MS, 10 * MS, percentile, max_depth, 0);
        let (mut now, mut ios, mut depths) = (0, 0, vec![]);
        for _ in 0..20_000 {
            let depth = lt.depth(0);
            if depths.last() != Some(&depth) {
                depths.push(depth);
            }
            now += MS / 10;
            ios += 1;
            let lat = if depth > knee { 2 * MS } else { MS / 2 };
            let step = lt.completed(lat, now, ios);
            lt.drained();
            if matches!(step, Step::Done | Step::Fatal) {
                return (depths, step);
            }
        }
        (depths, Step::Continue)
    }

    #[test]
    fn the_search_doubles_then_bisects_to_the_deepest_depth_on_time() {
        let (depths, end) = search(12, 128, 100.0);
        assert_eq!(end, Step::Done);
        assert_eq!(&depths[..5], &[1, 2, 4, 8, 16]);
        assert_eq!(*depths.last().unwrap(), 12, "{depths:?}");
    }

    #[test]
    fn the_depth_never_passes_iodepth() {
        let (depths, end) = search(1000, 32, 100.0);
        assert_eq!(end, Step::Done);
        assert!(depths.iter().all(|&d| d <= 32));
        assert_eq!(*depths.last().unwrap(), 32);
    }

    #[test]
    fn a_late_io_at_depth_one_is_fatal_only_at_the_100th_percentile() {
        assert_eq!(search(0, 64, 100.0).1, Step::Fatal);
        // Below 100 the job stays at depth 1 and goes on.
        let (depths, end) = search(0, 64, 99.0);
        assert_eq!(end, Step::Continue);
        assert!(depths.iter().all(|&d| d == 1));
    }

    #[test]
    fn a_lower_percentile_tolerates_a_few_late_ios() {
        let mut lt = LatencyTarget::new(MS, 20 * MS, 99.0, 8, 0);
        // One late I/O in a window of 200: 99.5 % on time, a success.
        let mut step = Step::Continue;
        for i in 1..=200u64 {
            let lat = if i == 7 { 5 * MS } else { MS / 2 };
            step = lt.completed(lat, i * MS / 10, i);
        }
        assert_eq!(step, Step::Continue);
        assert_eq!(lt.depth(0), 2);
    }

    #[test]
    fn a_step_down_waits_for_the_outstanding_io() {
        let mut lt = LatencyTarget::new(MS, 10 * MS, 100.0, 8, 0);
        lt.check(10 * MS, 10);
        assert_eq!(lt.depth(0), 2);
        lt.completed(2 * MS, 11 * MS, 11);
        assert_eq!(lt.depth(3), 0, "quiescing");
        assert_eq!(lt.depth(0), 1);
        lt.drained();
        assert_eq!(lt.depth(1), 1);
    }
}
