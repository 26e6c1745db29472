//! The calibration figures of Park and Lee ("Analysis of the K2 Scheduler
//! for a Real-Time System with an SSD", Electronics 10(7):865, 2021), for
//! the partially and the fully occupied SSD.

/// One stated figure: operation, point label, metric and value (or range).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Target {
    pub op: &'static str,
    pub label: &'static str,
    pub metric: Metric,
    pub low: f64,
    pub high: f64,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Metric {
    /// RT task p99.9 latency, µs.
    P999Us,
    /// Total bandwidth of the four jobs, MB/s.
    BwMbs,
}

const fn t(op: &'static str, label: &'static str, metric: Metric, low: f64, high: f64) -> Target {
    Target {
        op,
        label,
        metric,
        low,
        high,
    }
}

use Metric::{BwMbs, P999Us};

/// Every figure Park and Lee give for the partially occupied SSD. A range
/// (K2-2…K2-64) applies to each of those points.
pub const TARGETS: &[Target] = &[
    t("read", "none", P999Us, 1237.0, 1237.0),
    t("read", "none", BwMbs, 720.0, 720.0),
    t("read", "K2-1", P999Us, 370.0, 370.0),
    t("read", "K2-1", BwMbs, 70.0, 70.0),
    t("randread", "none", P999Us, 3251.0, 3251.0),
    t("randread", "none", BwMbs, 566.0, 566.0),
    t("randread", "K2-1", P999Us, 217.0, 217.0),
    t("randread", "K2-1", BwMbs, 44.0, 44.0),
    t("randread", "K2-2", P999Us, 197.0, 197.0),
    t("write", "none", P999Us, 3131.0, 3131.0),
    t("write", "none", BwMbs, 430.0, 430.0),
    t("write", "K2-1", P999Us, 471.0, 471.0),
    t("write", "K2-1", BwMbs, 303.0, 303.0),
    t("write", "K2-2", P999Us, 960.0, 960.0),
    t("write", "K2-2..K2-64", BwMbs, 419.0, 438.0),
    t("randwrite", "none", P999Us, 3848.0, 3848.0),
    t("randwrite", "none", BwMbs, 299.0, 299.0),
    t("randwrite", "K2-1", P999Us, 1732.0, 1732.0),
    t("randwrite", "K2-1", BwMbs, 277.0, 277.0),
    t("randwrite", "K2-64", P999Us, 3471.0, 3471.0),
    t("randwrite", "K2-2..K2-64", BwMbs, 297.0, 302.0),
];

/// Every figure Park and Lee give for the fully occupied SSD (1000 s runs,
/// GC active). Sequential writes of every bound, and `none`, lie in the
/// 256–288 MB/s band.
pub const FULL_TARGETS: &[Target] = &[
    t("write", "none", P999Us, 3247.0, 3247.0),
    t("write", "none", BwMbs, 256.0, 288.0),
    t("write", "K2-1", P999Us, 1485.0, 1485.0),
    t("write", "K2-1", BwMbs, 256.0, 288.0),
    t("write", "K2-2..K2-64", BwMbs, 256.0, 288.0),
    t("randwrite", "none", P999Us, 3259.0, 3259.0),
    t("randwrite", "K2-1", P999Us, 1689.0, 1689.0),
];

/// The paper's figures for one occupancy (`partial` or `full`).
pub fn targets(occupancy: &str) -> &'static [Target] {
    if occupancy == "full" {
        FULL_TARGETS
    } else {
        TARGETS
    }
}

/// Relative distance of `value` from the target's value or range, in %
/// (0 inside a range).
pub fn error_pct(target: &Target, value: f64) -> f64 {
    range_error(target.low, target.high, value) * 100.0
}

/// Relative distance of `value` from `[low, high]`, measured from the
/// nearer end (0 inside); also `calibrate`'s error, so that a fit and the
/// study's report agree.
pub fn range_error(low: f64, high: f64, value: f64) -> f64 {
    if value.is_nan() {
        // A figure that could not be measured is as far off as can be,
        // never a match.
        f64::INFINITY
    } else if value < low {
        (value - low) / low
    } else if value > high {
        (value - high) / high
    } else {
        0.0
    }
}

/// The labels a target covers ("K2-2..K2-64" expands to six points).
pub fn labels(target: &Target) -> Vec<String> {
    match target.label.split_once("..") {
        Some(_) => [2, 4, 8, 16, 32, 64]
            .iter()
            .map(|b| format!("K2-{b}"))
            .collect(),
        None => vec![target.label.to_string()],
    }
}
