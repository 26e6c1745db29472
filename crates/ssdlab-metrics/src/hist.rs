//! fio's log-linear latency histogram ("plat" buckets).
//!
//! Values are nanoseconds. Values below 128 are stored exactly; above,
//! each power of two is split into 64 buckets, so a bucket's midpoint is
//! within 1/128 of any value in it. 29 groups cover values below 2^34 ns
//! (~17.2 s); fio puts anything larger in the last bucket. ssdlab keeps
//! fio's 1856 buckets unchanged and continues the same scheme beyond them
//! in a sparse list ([`FioHistogram::beyond`]), so percentiles stay right
//! at any latency up to `u64::MAX` ns while memory grows only with the
//! buckets actually used.

use serde::{Deserialize, Serialize};

use crate::io_stat::IoStat;

/// Bits of a value kept as the index within a group (fio: 6).
pub const FIO_IO_U_PLAT_BITS: u32 = 6;
/// Buckets per group (64).
pub const FIO_IO_U_PLAT_VAL: usize = 1 << FIO_IO_U_PLAT_BITS;
/// Number of groups (29).
pub const FIO_IO_U_PLAT_GROUP_NR: usize = 29;
/// Total number of buckets (1856).
pub const FIO_IO_U_PLAT_NR: usize = FIO_IO_U_PLAT_GROUP_NR * FIO_IO_U_PLAT_VAL;
/// Longest percentile list fio accepts.
pub const FIO_IO_U_LIST_MAX_LEN: usize = 20;
/// fio's default `percentile_list`.
pub const DEFAULT_PERCENTILES: [f64; 17] = [
    1.0, 5.0, 10.0, 20.0, 30.0, 40.0, 50.0, 60.0, 70.0, 80.0, 90.0, 95.0, 99.0, 99.5, 99.9, 99.95,
    99.99,
];

/// Bucket index of a value (fio's `plat_val_to_idx`): the continued
/// scheme, clamped to fio's last bucket as fio clamps it.
pub fn plat_val_to_idx(val: u64) -> usize {
    plat_val_to_ext_idx(val).min(FIO_IO_U_PLAT_NR - 1)
}

/// Bucket index of a value in fio's scheme continued past its 29 groups
/// (equal to [`plat_val_to_idx`] below `2^34` ns; at most 3775).
pub fn plat_val_to_ext_idx(val: u64) -> usize {
    let msb = if val == 0 {
        0
    } else {
        63 - val.leading_zeros()
    };
    if msb <= FIO_IO_U_PLAT_BITS {
        return val as usize;
    }
    let error_bits = msb - FIO_IO_U_PLAT_BITS;
    let base = ((error_bits + 1) as usize) << FIO_IO_U_PLAT_BITS;
    base + (((val >> error_bits) as usize) & (FIO_IO_U_PLAT_VAL - 1))
}

/// Midpoint of a bucket of the continued scheme (equal to
/// [`plat_idx_to_val`] inside fio's range), saturating at `u64::MAX`.
pub fn plat_ext_idx_to_val(idx: usize) -> u64 {
    if idx < (FIO_IO_U_PLAT_VAL << 1) {
        return idx as u64;
    }
    let error_bits = (idx >> FIO_IO_U_PLAT_BITS) as u32 - 1;
    let base = 1u128 << (error_bits + FIO_IO_U_PLAT_BITS).min(127);
    let k = (idx % FIO_IO_U_PLAT_VAL) as u128;
    let v = base + ((2 * k + 1) << (error_bits - 1));
    u64::try_from(v).unwrap_or(u64::MAX)
}

/// Representative value of a bucket: its midpoint (fio's `plat_idx_to_val`).
///
/// # Panics
/// If `idx >= FIO_IO_U_PLAT_NR`.
pub fn plat_idx_to_val(idx: usize) -> u64 {
    assert!(idx < FIO_IO_U_PLAT_NR, "bucket index out of range");
    plat_ext_idx_to_val(idx)
}

/// fio's coarse latency distribution (`latency_ns` / `latency_us` /
/// `latency_ms`): counts per bucket, bucket upper bounds
/// ns/us: 2,4,10,20,50,100,250,500,750,1000; ms: the same plus 2000, >=2000.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct LatDist {
    pub ns: [u64; 10],
    pub us: [u64; 10],
    pub ms: [u64; 12],
}

impl LatDist {
    fn bucket10(v: u64) -> usize {
        match v {
            0..=1 => 0,
            2..=3 => 1,
            4..=9 => 2,
            10..=19 => 3,
            20..=49 => 4,
            50..=99 => 5,
            100..=249 => 6,
            250..=499 => 7,
            500..=749 => 8,
            750..=999 => 9,
            1000..=1999 => 10,
            _ => 11,
        }
    }

    /// Count one latency (fio's `io_u_mark_latency`).
    pub fn record(&mut self, nsec: u64) {
        if nsec < 1000 {
            self.ns[Self::bucket10(nsec)] += 1;
        } else if nsec < 1_000_000 {
            self.us[Self::bucket10(nsec / 1000)] += 1;
        } else {
            self.ms[Self::bucket10(nsec / 1_000_000)] += 1;
        }
    }

    pub fn merge(&mut self, other: &LatDist) {
        for (a, b) in self.ns.iter_mut().zip(other.ns.iter()) {
            *a += b;
        }
        for (a, b) in self.us.iter_mut().zip(other.us.iter()) {
            *a += b;
        }
        for (a, b) in self.ms.iter_mut().zip(other.ms.iter()) {
            *a += b;
        }
    }
}

/// fio's latency histogram plus exact and fio-style running statistics.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FioHistogram {
    /// fio's `FIO_IO_U_PLAT_NR` bucket counts for values below `2^34` ns;
    /// empty until the first value is recorded (an unused direction costs
    /// nothing).
    pub buckets: Vec<u64>,
    /// `(bucket, count)` for values of `2^34` ns and more, in the continued
    /// scheme of [`plat_val_to_ext_idx`], sorted by bucket.
    #[serde(default)]
    pub beyond: Vec<(u16, u64)>,
    /// fio's `io_stat`: min, max, online mean and sum of squared deviations.
    pub stat: IoStat,
    /// Exact sum of recorded values.
    pub sum: u128,
    /// Exact sum of squares (saturating at `u128::MAX`).
    pub sum_sq: u128,
    /// Coarse ns/us/ms distribution of the recorded values.
    pub lat_dist: LatDist,
}

impl Default for FioHistogram {
    fn default() -> Self {
        Self::new()
    }
}

impl FioHistogram {
    pub fn new() -> Self {
        FioHistogram {
            buckets: Vec::new(),
            beyond: Vec::new(),
            stat: IoStat::new(),
            sum: 0,
            sum_sq: 0,
            lat_dist: LatDist::default(),
        }
    }

    /// Record one latency in nanoseconds.
    pub fn record(&mut self, ns: u64) {
        let idx = plat_val_to_ext_idx(ns);
        if idx < FIO_IO_U_PLAT_NR {
            if self.buckets.is_empty() {
                self.buckets = vec![0; FIO_IO_U_PLAT_NR];
            }
            self.buckets[idx] += 1;
        } else {
            add_beyond(&mut self.beyond, idx as u16, 1);
        }
        self.stat.add(ns);
        self.sum += ns as u128;
        // A square of 64 bits fits in 128: one widening multiplication.
        let sq = u128::from(ns) * u128::from(ns);
        self.sum_sq = self.sum_sq.saturating_add(sq);
        self.lat_dist.record(ns);
    }

    /// Add another histogram's samples (fio's `sum_stat` + bucket sums).
    pub fn merge(&mut self, other: &FioHistogram) {
        if self.buckets.is_empty() && !other.buckets.is_empty() {
            self.buckets = vec![0; FIO_IO_U_PLAT_NR];
        }
        for (a, b) in self.buckets.iter_mut().zip(other.buckets.iter()) {
            *a += b;
        }
        for &(idx, c) in &other.beyond {
            add_beyond(&mut self.beyond, idx, c);
        }
        self.stat.merge(&other.stat);
        self.sum += other.sum;
        self.sum_sq = self.sum_sq.saturating_add(other.sum_sq);
        self.lat_dist.merge(&other.lat_dist);
    }

    /// Number of recorded samples.
    pub fn count(&self) -> u64 {
        self.stat.samples
    }

    pub fn is_empty(&self) -> bool {
        self.stat.samples == 0
    }

    /// Exact minimum (0 when empty).
    pub fn min(&self) -> u64 {
        if self.is_empty() {
            0
        } else {
            self.stat.min
        }
    }

    /// Exact maximum (0 when empty).
    pub fn max(&self) -> u64 {
        self.stat.max
    }

    /// fio's mean (online algorithm, as fio prints it).
    pub fn mean(&self) -> f64 {
        self.stat.mean
    }

    /// fio's standard deviation (n − 1 in the denominator).
    pub fn stddev(&self) -> f64 {
        self.stat.stddev()
    }

    /// Mean computed from the exact sum.
    pub fn exact_mean(&self) -> f64 {
        if self.is_empty() {
            0.0
        } else {
            self.sum as f64 / self.stat.samples as f64
        }
    }

    /// Percentiles exactly as fio's `calc_clat_percentiles`: the list is
    /// cut at the first 0.0 and at 20 entries, entries outside (0, 100]
    /// are dropped, the rest sorted; then the buckets are walked with a
    /// running count, and percentile p takes the representative value of
    /// the first bucket where `count >= p / 100 * N` (compared exactly,
    /// as fio's long-double comparison does). Empty histogram: empty list.
    pub fn percentiles(&self, list: &[f64]) -> Vec<(f64, u64)> {
        let plist = normalize_percentile_list(list);
        let nr = self.count();
        if plist.is_empty() || nr == 0 {
            return Vec::new();
        }
        let mut out = Vec::with_capacity(plist.len());
        let mut sum: u64 = 0;
        let mut j = 0;
        let fio_range = self.buckets.iter().copied().enumerate();
        let beyond = self.beyond.iter().map(|&(i, c)| (i as usize, c));
        'walk: for (i, c) in fio_range.chain(beyond) {
            sum += c;
            while reached(sum, plist[j], nr) {
                out.push((plist[j], plat_ext_idx_to_val(i)));
                j += 1;
                if j == plist.len() {
                    break 'walk;
                }
            }
        }
        out
    }

    /// fio's bucket counts (`FIO_IO_U_PLAT_NR` of them, values past fio's
    /// range in the last bucket, as fio keeps them): for a `json+` style
    /// dump that must match fio's layout.
    pub fn fio_buckets(&self) -> Vec<u64> {
        let mut b = if self.buckets.is_empty() {
            vec![0; FIO_IO_U_PLAT_NR]
        } else {
            self.buckets.clone()
        };
        b[FIO_IO_U_PLAT_NR - 1] += self.beyond.iter().map(|e| e.1).sum::<u64>();
        b
    }
}

/// Adds `count` to bucket `idx` of a sorted sparse list.
fn add_beyond(v: &mut Vec<(u16, u64)>, idx: u16, count: u64) {
    match v.binary_search_by_key(&idx, |e| e.0) {
        Ok(i) => v[i].1 += count,
        Err(i) => v.insert(i, (idx, count)),
    }
}

/// fio's handling of a percentile list: stop at the first 0.0, at most 20
/// entries, sorted ascending. Entries that are NaN, negative or above 100
/// are dropped.
pub fn normalize_percentile_list(list: &[f64]) -> Vec<f64> {
    let mut v: Vec<f64> = list
        .iter()
        .copied()
        .take(FIO_IO_U_LIST_MAX_LEN)
        .take_while(|&p| p != 0.0)
        .filter(|p| p.is_finite() && *p > 0.0 && *p <= 100.0)
        .collect();
    v.sort_by(|a, b| a.partial_cmp(b).unwrap_or(std::cmp::Ordering::Equal));
    v
}

/// Exact test of `sum >= p / 100 * nr` for a finite positive double `p`.
fn reached(sum: u64, p: f64, nr: u64) -> bool {
    let bits = p.to_bits();
    let e = ((bits >> 52) & 0x7ff) as i32;
    let frac = bits & ((1u64 << 52) - 1);
    let (mant, exp) = if e == 0 {
        (frac, -1074)
    } else {
        (frac | (1u64 << 52), e - 1075)
    };
    // p = mant * 2^exp; test sum * 100 >= mant * nr * 2^exp.
    let lhs = sum as u128 * 100;
    let rhs = mant as u128 * nr as u128;
    if exp >= 0 {
        let s = exp as u32;
        if rhs == 0 {
            return true;
        }
        if s >= rhs.leading_zeros() {
            return false; // rhs * 2^s >= 2^128 > lhs
        }
        lhs >= rhs << s
    } else {
        let s = (-exp) as u32;
        if lhs == 0 {
            return rhs == 0;
        }
        if s >= lhs.leading_zeros() {
            return true; // lhs * 2^s >= 2^128 > rhs
        }
        (lhs << s) >= rhs
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reached_matches_simple_cases() {
        assert!(reached(5000, 50.0, 10000));
        assert!(!reached(4999, 50.0, 10000));
        // 99.9 as a double is slightly above 99.9: 9990 is not enough.
        assert!(!reached(9990, 99.9, 10000));
        assert!(reached(9991, 99.9, 10000));
        // 99.99 as a double is slightly below 99.99: 9999 suffices.
        assert!(reached(9999, 99.99, 10000));
        assert!(reached(10, 100.0, 10));
        assert!(!reached(9, 100.0, 10));
    }

    #[test]
    fn group_edges() {
        assert_eq!(plat_val_to_idx(127), 127);
        assert_eq!(plat_val_to_idx(128), 128);
        assert_eq!(plat_idx_to_val(128), 129);
        assert_eq!(plat_val_to_idx(129), 128);
        assert_eq!(plat_val_to_idx(130), 129);
        assert_eq!(plat_val_to_idx((1u64 << 34) - 1), FIO_IO_U_PLAT_NR - 1);
        assert_eq!(plat_val_to_idx(1u64 << 40), FIO_IO_U_PLAT_NR - 1);
        assert_eq!(plat_val_to_idx(u64::MAX), FIO_IO_U_PLAT_NR - 1);
    }
}
