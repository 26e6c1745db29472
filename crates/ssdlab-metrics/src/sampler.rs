//! Bandwidth and IOPS sampling over fixed windows, as fio's
//! `bw_avg_time` / `iops_avg_time` sampling does.
//!
//! Each completed I/O is added at its completion time and falls into the
//! half-open window `[start + k·w, start + (k+1)·w)`. At the end, every
//! full window yields one fio sample, except windows without data (fio
//! skips an interval with no new bytes / I/Os). The trailing partial
//! window is not sampled (fio never samples it either); its bytes are
//! reported in [`SampleSeries::tail_bytes`] so nothing is lost.

use crate::IoStat;
use serde::{Deserialize, Serialize};

/// fio's default `bw_avg_time` / `iops_avg_time`: 500 ms.
pub const FIO_DEFAULT_AVG_TIME_NS: u64 = 500_000_000;

const SECOND_NS: u64 = 1_000_000_000;

/// The most windows with data kept one by one: past it the older half is
/// folded into running statistics (a run of days at a low rate stays
/// bounded; below it, nothing is folded and every figure is as before).
pub const MAX_KEPT_WINDOWS: usize = 1 << 16;

/// The most seconds with data kept for the time series (about three days of
/// I/O every second): later seconds are counted in the figures but not in
/// the series, and [`Sampler::seconds_dropped`] says how many.
pub const MAX_KEPT_SECONDS: usize = 1 << 18;

/// Accumulates completed I/Os per window and per second.
///
/// Only windows and seconds that saw an I/O are stored, so memory grows
/// with the work done, never with the simulated span (a job that thinks
/// for a simulated year costs nothing here), and at most
/// [`MAX_KEPT_WINDOWS`] windows and [`MAX_KEPT_SECONDS`] seconds are kept
/// however long the run.
///
/// `Sampler { window_ns: 250_000_000, ..Default::default() }` works; the
/// default is fio's 500 ms window starting at time 0.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Sampler {
    /// Window length in ns (must be > 0).
    pub window_ns: u64,
    /// Time origin of the windows (e.g. the end of ramp time).
    pub start_ns: u64,
    /// `(window index, bytes, ios)` for every window with data, by index.
    pub windows: Vec<(u64, u64, u64)>,
    /// `(second, bytes, ios)` for every second with data, by second.
    pub seconds: Vec<(u64, u64, u64)>,
    /// Windows folded away (all full, all before `windows`): their samples
    /// in order, and their totals.
    #[serde(default)]
    pub folded: Folded,
    /// Seconds with data past [`MAX_KEPT_SECONDS`], left out of the series.
    #[serde(default)]
    pub seconds_dropped: u64,
}

/// The windows a long run has folded away.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Folded {
    /// Windows folded; every one below this index is folded.
    pub windows: u64,
    pub below_index: u64,
    pub bytes: u64,
    pub ios: u64,
    /// fio's samples of the folded windows, in order.
    pub bw: IoStat,
    pub iops: IoStat,
}

impl Default for Sampler {
    fn default() -> Self {
        Self::fio_default()
    }
}

/// One sample window.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SampleWindow {
    pub start_ns: u64,
    pub bytes: u64,
    pub ios: u64,
}

/// The result of [`Sampler::finish`].
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct SampleSeries {
    pub window_ns: u64,
    /// How many full windows the run spans (with data or not).
    pub full_windows: u64,
    /// Every full window with data, in time order (empty windows are left
    /// out: fio takes no sample for them).
    pub windows: Vec<SampleWindow>,
    /// fio's bandwidth samples, KiB/s (`bytes·1000/ms/1024`, truncated),
    /// one per full window with bytes.
    pub bw_kib_s: Vec<u64>,
    /// fio's IOPS samples, one per full window with I/Os.
    pub iops: Vec<u64>,
    /// Bytes and I/Os completed after the last full window (or at/after
    /// the end): not sampled.
    pub tail_bytes: u64,
    pub tail_ios: u64,
    /// The samples of windows folded away during a long run (they come
    /// before `bw_kib_s` and `iops`).
    pub folded_bw: IoStat,
    pub folded_iops: IoStat,
}

impl Sampler {
    /// Windows of `window_ns` starting at time 0.
    ///
    /// # Panics
    /// If `window_ns` is 0.
    pub fn new(window_ns: u64) -> Self {
        Self::starting_at(window_ns, 0)
    }

    /// Windows of `window_ns` starting at `start_ns`.
    pub fn starting_at(window_ns: u64, start_ns: u64) -> Self {
        assert!(window_ns > 0, "sample window must be positive");
        Sampler {
            window_ns,
            start_ns,
            windows: Vec::new(),
            seconds: Vec::new(),
            folded: Folded::default(),
            seconds_dropped: 0,
        }
    }

    /// fio's default 500 ms window.
    pub fn fio_default() -> Self {
        Self::new(FIO_DEFAULT_AVG_TIME_NS)
    }

    /// One I/O of `bytes` completed at `now_ns`.
    pub fn add(&mut self, now_ns: u64, bytes: u64) {
        self.add_ios(now_ns, bytes, 1);
    }

    /// `ios` I/Os totalling `bytes` completed at `now_ns`. Times before
    /// the start count in the first window.
    ///
    /// # Panics
    /// If `window_ns` is 0.
    pub fn add_ios(&mut self, now_ns: u64, bytes: u64, ios: u64) {
        assert!(self.window_ns > 0, "sample window must be positive");
        let rel = now_ns.saturating_sub(self.start_ns);
        // A completion older than the folded windows (never seen in time
        // order) counts in the oldest window kept.
        let window = index_of(&self.windows, rel, self.window_ns).max(self.folded.below_index);
        bump(&mut self.windows, window, bytes, ios);
        if self.windows.len() > MAX_KEPT_WINDOWS {
            self.fold(MAX_KEPT_WINDOWS / 2);
        }
        let second = index_of(&self.seconds, rel, SECOND_NS);
        if self.seconds.len() < MAX_KEPT_SECONDS
            || self.seconds.last().is_some_and(|l| l.0 >= second)
        {
            bump(&mut self.seconds, second, bytes, ios);
        } else if self.seconds.last().is_some_and(|l| l.0 < second) {
            self.seconds_dropped += 1;
        }
    }

    /// Folds the oldest `n` windows into running statistics. Every window
    /// but the newest is full, so each yields its fio sample here as
    /// `finish` would.
    fn fold(&mut self, n: usize) {
        for (k, bytes, ios) in self.windows.drain(..n) {
            let f = &mut self.folded;
            f.windows += 1;
            f.below_index = k + 1;
            f.bytes += bytes;
            f.ios += ios;
            if bytes > 0 {
                f.bw.add(bw_sample(bytes, self.window_ns));
            }
            if ios > 0 {
                f.iops.add(iops_sample(ios, self.window_ns));
            }
        }
    }

    /// Total bytes and I/Os added.
    pub fn totals(&self) -> (u64, u64) {
        self.windows.iter().fold(
            (self.folded.bytes, self.folded.ios),
            |(b, i), &(_, wb, wi)| (b + wb, i + wi),
        )
    }

    /// The per-window series for a run ending at `end_ns`.
    ///
    /// # Panics
    /// If `window_ns` is 0.
    pub fn finish(&self, end_ns: u64) -> SampleSeries {
        assert!(self.window_ns > 0, "sample window must be positive");
        let full = end_ns.saturating_sub(self.start_ns) / self.window_ns;
        let mut s = SampleSeries {
            window_ns: self.window_ns,
            full_windows: full,
            ..Default::default()
        };
        for &(k, bytes, ios) in &self.windows {
            if k >= full {
                s.tail_bytes += bytes;
                s.tail_ios += ios;
                continue;
            }
            s.windows.push(SampleWindow {
                start_ns: self.start_ns + k * self.window_ns,
                bytes,
                ios,
            });
            if bytes > 0 {
                s.bw_kib_s.push(bw_sample(bytes, self.window_ns));
            }
            if ios > 0 {
                s.iops.push(iops_sample(ios, self.window_ns));
            }
        }
        s.folded_bw = self.folded.bw;
        s.folded_iops = self.folded.iops;
        s
    }

    /// `(second, bytes, ios)` rows for a CSV time series, from the start
    /// to the last second with data. A stretch of seconds without I/O is
    /// written as its first and last second, both zero, so a plot drops to
    /// zero and stays there while the file stays proportional to the work.
    pub fn per_second_series(&self) -> Vec<(u64, u64, u64)> {
        let mut rows = Vec::with_capacity(self.seconds.len());
        let mut next = 0u64;
        for &(sec, b, i) in &self.seconds {
            if sec > next {
                rows.push((next, 0, 0));
                if sec - 1 > next {
                    rows.push((sec - 1, 0, 0));
                }
            }
            rows.push((sec, b, i));
            next = sec + 1;
        }
        rows
    }
}

/// fio's bandwidth sample of a window: KiB/s, truncated.
fn bw_sample(bytes: u64, window_ns: u64) -> u64 {
    (bytes as u128 * SECOND_NS as u128 / window_ns as u128 / 1024) as u64
}

/// fio's IOPS sample of a window, truncated.
fn iops_sample(ios: u64, window_ns: u64) -> u64 {
    (ios as u128 * SECOND_NS as u128 / window_ns as u128) as u64
}

/// The window of length `len` holding `rel`: nearly always the last one
/// with data (completions arrive in time order), which a comparison
/// confirms without a 64-bit division for every I/O.
#[inline]
fn index_of(v: &[(u64, u64, u64)], rel: u64, len: u64) -> u64 {
    if let Some(&(last, _, _)) = v.last() {
        if let Some(start) = last.checked_mul(len) {
            if rel >= start && rel - start < len {
                return last;
            }
        }
    }
    rel / len
}

/// Adds to the entry for `idx`, keeping `v` sorted by index. Completions
/// arrive in time order, so this is almost always a bump of the last entry
/// or a push.
fn bump(v: &mut Vec<(u64, u64, u64)>, idx: u64, bytes: u64, ios: u64) {
    let at = match v.last() {
        Some(&(last, _, _)) if last == idx => v.len() - 1,
        Some(&(last, _, _)) if last > idx => match v.binary_search_by_key(&idx, |e| e.0) {
            Ok(at) => at,
            Err(at) => {
                v.insert(at, (idx, 0, 0));
                at
            }
        },
        _ => {
            v.push((idx, 0, 0));
            v.len() - 1
        }
    };
    v[at].1 += bytes;
    v[at].2 += ios;
}
