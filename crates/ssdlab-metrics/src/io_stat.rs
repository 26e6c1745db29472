//! fio's `io_stat`: the running summary of a latency series.

use serde::{Deserialize, Serialize};

/// fio's `io_stat`: running min/max and Welford mean / sum of squared
/// deviations, updated exactly as fio's `add_stat_sample` does.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct IoStat {
    pub samples: u64,
    /// `u64::MAX` while empty (as fio).
    pub min: u64,
    pub max: u64,
    pub mean: f64,
    /// Sum of squared deviations from the mean.
    pub s: f64,
}

impl Default for IoStat {
    fn default() -> Self {
        Self::new()
    }
}

impl IoStat {
    pub fn new() -> Self {
        IoStat {
            samples: 0,
            min: u64::MAX,
            max: 0,
            mean: 0.0,
            s: 0.0,
        }
    }

    /// Statistics of a series of samples, added in order.
    pub fn from_samples(samples: &[u64]) -> Self {
        let mut st = IoStat::new();
        for &v in samples {
            st.add(v);
        }
        st
    }

    /// `start` with `samples` added in order after it.
    pub fn continued(start: IoStat, samples: &[u64]) -> Self {
        let mut st = start;
        for &v in samples {
            st.add(v);
        }
        st
    }

    /// fio's `add_stat_sample`.
    pub fn add(&mut self, data: u64) {
        let val = data as f64;
        if data > self.max {
            self.max = data;
        }
        if data < self.min {
            self.min = data;
        }
        let delta = val - self.mean;
        if delta != 0.0 {
            self.mean += delta / (self.samples as f64 + 1.0);
            self.s += delta * (val - self.mean);
        }
        self.samples += 1;
    }

    /// Merge of two sample populations (fio's `sum_stat` with
    /// `pure_sum = false`: parallel mean/variance formula).
    pub fn merge(&mut self, src: &IoStat) {
        if src.samples == 0 {
            return;
        }
        let first = self.samples == 0;
        self.min = self.min.min(src.min);
        self.max = self.max.max(src.max);
        let (mean, s) = if first {
            (src.mean, src.s)
        } else {
            let (dn, sn) = (self.samples as f64, src.samples as f64);
            let delta = src.mean - self.mean;
            let mean = (src.mean * sn + self.mean * dn) / (dn + sn);
            let s = src.s + self.s + delta.powi(2) * (dn * sn) / (dn + sn);
            (mean, s)
        };
        self.samples += src.samples;
        self.mean = mean;
        self.s = s;
    }

    /// fio's `sum_stat` with `pure_sum = true`, used for bandwidth and
    /// IOPS under group_reporting: min, max, mean and S are added up.
    pub fn merge_pure_sum(&mut self, src: &IoStat) {
        if src.samples == 0 {
            return;
        }
        if self.samples == 0 {
            *self = *src;
        } else {
            self.min += src.min;
            self.max += src.max;
            self.samples += src.samples;
            self.mean += src.mean;
            self.s += src.s;
        }
    }

    /// Standard deviation with n − 1 (0 for fewer than two samples).
    pub fn stddev(&self) -> f64 {
        if self.samples > 1 {
            (self.s / (self.samples as f64 - 1.0)).sqrt()
        } else {
            0.0
        }
    }

    /// fio's `calc_lat`: `(min, max, mean, stddev)` when there are samples.
    pub fn calc(&self) -> Option<(u64, u64, f64, f64)> {
        if self.samples == 0 {
            None
        } else {
            Some((self.min, self.max, self.mean, self.stddev()))
        }
    }
}
