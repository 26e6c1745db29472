//! What a calibration target measures ([`Metric`], read from a run's
//! figures) and what the drive gave ([`TargetValue`]: a value or a range).

use crate::point::PointFigures;
use serde::{Deserialize, Serialize};

/// A measured value, or a range of values the drive gave (a paper that
/// states "256–288 MB/s" for several points).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum TargetValue {
    One(f64),
    Range([f64; 2]),
}

impl TargetValue {
    pub fn low(self) -> f64 {
        match self {
            TargetValue::One(v) => v,
            TargetValue::Range([low, _]) => low,
        }
    }

    pub fn high(self) -> f64 {
        match self {
            TargetValue::One(v) => v,
            TargetValue::Range([_, high]) => high,
        }
    }

    /// The relative distance of `measured` from the value or the range
    /// (0 inside a range), as `reproduce k2`'s report measures its errors.
    pub fn relative_error(self, measured: f64) -> f64 {
        crate::k2::paper::range_error(self.low(), self.high(), measured)
    }

    pub(super) fn is_valid(self) -> bool {
        let (low, high) = (self.low(), self.high());
        low.is_finite() && high.is_finite() && low > 0.0 && low <= high
    }
}

impl std::fmt::Display for TargetValue {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        match self {
            TargetValue::One(v) => write!(f, "{v:.4}"),
            TargetValue::Range([low, high]) => write!(f, "{low:.4}–{high:.4}"),
        }
    }
}

/// What a target measures.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Metric {
    /// Bandwidth, MB/s: all jobs', or the jobs' called `job_name`.
    BwMbs,
    /// IOPS: all jobs', or the jobs' called `job_name`.
    Iops,
    /// Write amplification.
    Waf,
    /// A job's completion-latency p99.9, µs.
    P999Us,
    /// A job's mean completion latency, µs.
    MeanUs,
    /// The second at which the total bandwidth drops sharply and stays
    /// low (as `reproduce k2` reports it for the full drive's random
    /// writes); a run without such a drop counts as dropping at its end.
    DropS,
    /// A sustained write's bandwidth after its write cache: the mean of
    /// the run's last five whole seconds, MB/s (the data sheet's "after
    /// TurboWrite").
    AfterCacheMbs,
    /// The same run's IOPS over the same five seconds (the data sheet's
    /// random write "after TurboWrite").
    AfterCacheIops,
    /// The write cache as a sustained write sees it: the bytes written
    /// before the bandwidth falls halfway to its after-cache level, GB.
    CacheGb,
}

impl Metric {
    /// The name a targets file uses.
    pub fn name(self) -> &'static str {
        match self {
            Metric::BwMbs => "bw_mbs",
            Metric::Iops => "iops",
            Metric::Waf => "waf",
            Metric::P999Us => "p999_us",
            Metric::MeanUs => "mean_us",
            Metric::DropS => "drop_s",
            Metric::AfterCacheMbs => "after_cache_mbs",
            Metric::AfterCacheIops => "after_cache_iops",
            Metric::CacheGb => "cache_gb",
        }
    }

    /// Whether the metric needs a `job_name` (a latency), may take one
    /// (bandwidth and IOPS), or takes none.
    pub(super) fn job_name_rule(self) -> JobNameRule {
        match self {
            Metric::P999Us | Metric::MeanUs => JobNameRule::Needed,
            Metric::BwMbs | Metric::Iops => JobNameRule::Optional,
            _ => JobNameRule::None,
        }
    }

    /// The metric in `f`; None if `job` names no job of the run.
    pub fn read(self, f: &PointFigures, job: Option<&str>) -> Option<f64> {
        let j = || f.job(job?);
        // Bandwidth or IOPS of every job called `job` (fio's `numjobs`
        // clones share the name), or of all jobs.
        let sum = |all: f64, one: fn(&crate::point::JobFigures) -> f64| match job {
            None => Some(all),
            Some(name) => {
                let named: Vec<f64> = f.jobs.iter().filter(|j| j.name == name).map(one).collect();
                (!named.is_empty()).then(|| named.iter().sum())
            }
        };
        Some(match self {
            Metric::BwMbs => sum(f.bw_mbs, |j| j.bw_mbs)?,
            Metric::Iops => sum(f.iops, |j| j.iops)?,
            Metric::Waf => f.waf,
            Metric::P999Us => j()?.clat_p999_us,
            Metric::MeanUs => j()?.clat_mean_us,
            Metric::DropS => crate::k2::figures::timeseries::drop_second(&f.per_second)
                .map_or(f.sim_seconds, |s| s as f64),
            Metric::AfterCacheMbs => crate::datasheet::after_cache_mbs(&f.per_second),
            Metric::AfterCacheIops => crate::datasheet::after_cache_iops(&f.per_second),
            Metric::CacheGb => crate::datasheet::cache_gb(&f.per_second),
        })
    }
}

/// Whether a metric reads one job.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum JobNameRule {
    Needed,
    Optional,
    None,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_range_is_met_anywhere_inside_and_measured_from_its_nearer_end() {
        let r = TargetValue::Range([256.0, 288.0]);
        assert_eq!(r.relative_error(270.0), 0.0);
        assert!((r.relative_error(320.0) - 32.0 / 288.0).abs() < 1e-12);
        assert!((r.relative_error(128.0) + 0.5).abs() < 1e-12);
        assert_eq!(TargetValue::One(10.0).relative_error(12.0), 0.2);
        assert!(!TargetValue::Range([5.0, 4.0]).is_valid());
        assert!(!TargetValue::One(0.0).is_valid());
    }

    #[test]
    fn drop_s_is_the_second_of_the_sustained_fall_or_the_runs_end() {
        let figures = |series: Vec<(u64, u64, u64)>| PointFigures {
            jobs: vec![],
            bw_mbs: 1.0,
            iops: 1.0,
            waf: 1.0,
            gc_invocations: 0,
            gc_pages_moved: 0,
            erases: 0,
            sim_seconds: series.len() as f64,
            per_second: series,
            gauges: vec![],
        };
        let fall: Vec<_> = (0..60u64)
            .map(|s| (s, if s < 35 { 300 } else { 50 }, 1))
            .collect();
        assert_eq!(Metric::DropS.read(&figures(fall), None), Some(35.0));
        let flat: Vec<_> = (0..60u64).map(|s| (s, 300, 1)).collect();
        assert_eq!(Metric::DropS.read(&figures(flat), None), Some(60.0));
    }
}
