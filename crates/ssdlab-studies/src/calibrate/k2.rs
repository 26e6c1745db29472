//! The built-in targets of `ssdlab calibrate`: every figure Park and Lee
//! give for both occupancies (`k2/paper.rs`), as the K2 study runs them
//! (its job files and host, 50 % of the logical space written in order, or
//! all of it with the spare free, for the quick plan's 150 s), and four
//! keys of `consumer-tlc-250g` that the write and read paths hang on,
//! starting from the preset's own values.

use super::targets::{Metric, Param, Target, TargetValue, TargetsFile};
use crate::k2::grid::Plan;
use crate::k2::paper::{self, Metric as PaperMetric};
use std::path::PathBuf;

/// Each tail figure weighs half a bandwidth: a p99.9 over 100 s of a 2 ms
/// task rests on about 45 samples.
const TAIL_WEIGHT: f64 = 0.5;

/// The keys the built-in set fits, with their ranges: the TLC program time
/// (write bandwidth), the firmware work per read command (sequential-read
/// bandwidth), the mapping-table cache (random-write bandwidth) and the
/// write buffer (write tails); docs/calibration.md, steps 4, 5 and 7.
const KEYS: &[(&str, f64, f64)] = &[
    ("timing.program_ns", 1_000_000.0, 3_000_000.0),
    ("controller.read_command_ns", 0.0, 10_000.0),
    ("ftl.map_journal.dirty_pages", 2_000.0, 60_000.0),
    ("buffer.capacity_bytes", 196_608.0, 4_194_304.0),
];

/// The K2 study's figures as a targets file.
pub fn k2_targets() -> TargetsFile {
    let mut targets = Vec::new();
    for occupancy in ["partial", "full"] {
        for t in paper::targets(occupancy) {
            for label in paper::labels(t) {
                targets.push(target(t, &label, occupancy));
            }
        }
    }
    // "Bandwidth and IOPS drop sharply about 50 s into the run" [paper]:
    // about, so 40–60 s.
    let drop = TargetValue::Range([40.0, 60.0]);
    targets.push(target_at("randwrite", "none", "full", Metric::DropS, drop));
    TargetsFile {
        device: "consumer-tlc-250g".into(),
        host: Some("k2-study".into()),
        seed: 1,
        // The acceptance band of the study's check: ±25 % of every figure.
        tolerance: Some(0.25),
        params: KEYS
            .iter()
            .map(|&(key, min, max)| Param {
                key: key.into(),
                min,
                max,
                start: None,
            })
            .collect(),
        targets,
    }
}

/// One paper figure at one point.
fn target(t: &paper::Target, label: &str, occupancy: &str) -> Target {
    let metric = match t.metric {
        PaperMetric::BwMbs => Metric::BwMbs,
        PaperMetric::P999Us => Metric::P999Us,
    };
    let value = if t.low == t.high {
        TargetValue::One(t.low)
    } else {
        TargetValue::Range([t.low, t.high])
    };
    target_at(t.op, label, occupancy, metric, value)
}

/// `metric` of the study's run of one point: its job, scheduler and drive
/// state. A latency is the RT task's, at half a bandwidth's weight.
fn target_at(op: &str, label: &str, occupancy: &str, metric: Metric, value: TargetValue) -> Target {
    let scheduler = match label.strip_prefix("K2-") {
        Some(bound) => format!("k2:max_inflight={bound}"),
        None => "none".into(),
    };
    let full = occupancy == "full";
    let latency = metric == Metric::P999Us;
    Target {
        job: PathBuf::from(format!("k2-study:{op}")),
        host: None,
        runtime_s: full.then_some(Plan::QUICK.full_runtime_s),
        scheduler,
        occupancy: if full { 100.0 } else { 50.0 },
        // Every logical page written in order, the spare free (the study's
        // full drive; `auto` would run it to GC's steady state).
        precondition: "fill".into(),
        metric,
        job_name: latency.then(|| "rt".to_string()),
        value,
        weight: if latency { TAIL_WEIGHT } else { 1.0 },
        tolerance: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::calibrate::Calibration;
    use std::path::Path;

    #[test]
    fn every_paper_figure_of_both_occupancies_is_a_target_and_the_set_checks() {
        let file = k2_targets();
        let partial = file.targets.iter().filter(|t| t.occupancy == 50.0).count();
        let full = file.targets.iter().filter(|t| t.occupancy == 100.0).count();
        // 19 single figures and two ranges over six bounds; 6 single
        // figures and one range over six bounds, and the drop.
        assert_eq!((partial, full), (31, 13));
        let band = file
            .targets
            .iter()
            .filter(|t| t.value == TargetValue::Range([256.0, 288.0]))
            .count();
        assert_eq!(band, 8);
        assert!(file.targets.iter().any(|t| t.metric == Metric::DropS));
        let cal = Calibration::new(file, Path::new("."), "k2").unwrap();
        assert_eq!(cal.start_point().len(), KEYS.len());
    }

    #[test]
    fn the_built_in_set_prints_as_a_targets_file_that_reads_back() {
        let text = toml::to_string(&k2_targets()).unwrap();
        assert!(text.contains("job = \"k2-study:randwrite\""), "{text}");
        let back: TargetsFile = toml::from_str(&text).unwrap();
        assert_eq!(back.targets.len(), k2_targets().targets.len());
        assert_eq!(back.targets[14].value, k2_targets().targets[14].value);
    }
}
