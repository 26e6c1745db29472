//! Bandwidth and IOPS sampling over fixed windows, as fio's
//! `bw_avg_time` / `iops_avg_time` sampling does.
//!
//! Each completed I/O is added at its completion time and falls into the
//! half-open window `[start + k·w, start + (k+1)·w)`. At the end, every
//! full window yields one fio sample, except windows without data (fio
//! skips an interval with no new bytes / I/Os). The trailing partial
//! window is not sampled (fio never samples it either); its bytes are
//! reported in [`SampleSeries::tail_bytes`] so nothing is lost.

use serde::{Deserialize, Serialize};

/// fio's default `bw_avg_time` / `iops_avg_time`: 500 ms.
pub const FIO_DEFAULT_AVG_TIME_NS: u64 = 500_000_000;

const SECOND_NS: u64 = 1_000_000_000;

/// Accumulates completed I/Os per window and per second.
///
/// `Sampler { window_ns: 250_000_000, ..Default::default() }` works; the
/// default is fio's 500 ms window starting at time 0.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Sampler {
    /// Window length in ns (must be > 0).
    pub window_ns: u64,
    /// Time origin of the windows (e.g. the end of ramp time).
    pub start_ns: u64,
    /// `(bytes, ios)` per window since `start_ns`.
    pub windows: Vec<(u64, u64)>,
    /// `(bytes, ios)` per second since `start_ns`.
    pub seconds: Vec<(u64, u64)>,
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
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SampleSeries {
    pub window_ns: u64,
    /// Every full window, including empty ones.
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
        bump(
            &mut self.windows,
            (rel / self.window_ns) as usize,
            bytes,
            ios,
        );
        bump(&mut self.seconds, (rel / SECOND_NS) as usize, bytes, ios);
    }

    /// Total bytes and I/Os added.
    pub fn totals(&self) -> (u64, u64) {
        self.windows
            .iter()
            .fold((0, 0), |(b, i), &(wb, wi)| (b + wb, i + wi))
    }

    /// The per-window series for a run ending at `end_ns`.
    ///
    /// # Panics
    /// If `window_ns` is 0.
    pub fn finish(&self, end_ns: u64) -> SampleSeries {
        assert!(self.window_ns > 0, "sample window must be positive");
        let full = (end_ns.saturating_sub(self.start_ns) / self.window_ns) as usize;
        let mut s = SampleSeries {
            window_ns: self.window_ns,
            ..Default::default()
        };
        for k in 0..full {
            let (bytes, ios) = self.windows.get(k).copied().unwrap_or((0, 0));
            s.windows.push(SampleWindow {
                start_ns: self.start_ns + k as u64 * self.window_ns,
                bytes,
                ios,
            });
            if bytes > 0 {
                let bps = bytes as u128 * SECOND_NS as u128 / self.window_ns as u128;
                s.bw_kib_s.push((bps / 1024) as u64);
            }
            if ios > 0 {
                let iops = ios as u128 * SECOND_NS as u128 / self.window_ns as u128;
                s.iops.push(iops as u64);
            }
        }
        for &(b, i) in self.windows.iter().skip(full) {
            s.tail_bytes += b;
            s.tail_ios += i;
        }
        s
    }

    /// `(second, bytes, ios)` for every second from the start up to the
    /// last second with data, zeros included (for CSV time series).
    pub fn per_second_series(&self) -> Vec<(u64, u64, u64)> {
        self.seconds
            .iter()
            .enumerate()
            .map(|(s, &(b, i))| (s as u64, b, i))
            .collect()
    }
}

fn bump(v: &mut Vec<(u64, u64)>, idx: usize, bytes: u64, ios: u64) {
    if v.len() <= idx {
        v.resize(idx + 1, (0, 0));
    }
    v[idx].0 += bytes;
    v[idx].1 += ios;
}
