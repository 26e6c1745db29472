//! The real-time flash study against Kim et al.'s findings (DAC 2021): no
//! missed deadline under Clustering-BFD+TBS, misses under both baselines,
//! the highest NRT bandwidth, and the highest schedulability ratio. The
//! paper's figures are not public, so none of these has a size.

use super::case_study::CASE_STUDIES;
use super::Row;
use crate::findings::{times, Finding};

const PROPOSED: &str = "Clustering-BFD+TBS";
const BASELINES: [&str; 2] = ["Global+BG", "Full-Isolation+BG"];

pub fn findings(rows: &[Row]) -> Vec<Finding> {
    let mut out = Vec::new();
    if CASE_STUDIES.iter().any(|c| has_part(rows, c.part)) {
        out.push(misses(rows, PROPOSED, false));
        out.extend(BASELINES.map(|b| misses(rows, b, true)));
        out.push(case_bandwidth(rows));
    }
    if has_part(rows, "schedulability") {
        out.push(schedulability(rows));
    }
    if has_part(rows, "bandwidth") {
        out.push(accepted_bandwidth(rows));
    }
    out
}

fn has_part(rows: &[Row], part: &str) -> bool {
    rows.iter().any(|r| r.part == part)
}

fn value(rows: &[Row], part: &str, approach: &str, metric: &str) -> Option<f64> {
    rows.iter()
        .find(|r| {
            r.part == part && r.approach == approach && r.task.is_empty() && r.metric == metric
        })
        .map(|r| r.value)
}

/// The share of RT requests missing their deadline in the worst case study,
/// over the approach and its "ordinary SSD" variant.
fn misses(rows: &[Row], approach: &str, baseline: bool) -> Finding {
    let ordinary = format!("{approach}, ordinary SSD");
    let mut worst = (0.0, "", "");
    for c in CASE_STUDIES {
        for a in [approach, ordinary.as_str()] {
            for m in ["rt_read_miss_pct", "rt_write_miss_pct"] {
                let v = value(rows, c.part, a, m).unwrap_or(0.0);
                if v > worst.0 {
                    worst = (v, c.part, a);
                }
            }
        }
    }
    let ssdlab = if worst.0 > 0.0 {
        format!(
            "up to {:.1} % of RT reads or writes ({} in {})",
            worst.0, worst.2, worst.1
        )
    } else {
        format!("none in {} case studies", CASE_STUDIES.len())
    };
    if baseline {
        Finding::new(
            format!("{approach} misses RT deadlines in the case study"),
            "a considerable share of RT reads and writes",
        )
        .measured(ssdlab, worst.0 > 0.0)
    } else {
        Finding::new(
            format!("{approach} misses no RT deadline in the case study"),
            "none",
        )
        .measured(ssdlab, worst.0 == 0.0)
    }
}

/// The proposed approach's NRT bandwidth over each baseline's, per case
/// study: the lowest ratio.
fn case_bandwidth(rows: &[Row]) -> Finding {
    let mut lowest = (f64::INFINITY, "", "");
    for c in CASE_STUDIES {
        let Some(p) = value(rows, c.part, PROPOSED, "nrt_mb_s") else {
            continue;
        };
        for b in BASELINES {
            let r = p / value(rows, c.part, b, "nrt_mb_s").unwrap_or(f64::NAN);
            if r < lowest.0 {
                lowest = (r, b, c.part);
            }
        }
    }
    Finding::new(
        format!("NRT bandwidth highest under {PROPOSED} in the case study"),
        "highest, by a wide margin",
    )
    .measured(
        format!(
            "{PROPOSED} / baseline at least {} ({} in {})",
            times(lowest.0),
            lowest.1,
            lowest.2
        ),
        lowest.0 > 1.0,
    )
}

/// Accepted shares: at least each baseline's at every point, more on
/// average.
fn schedulability(rows: &[Row]) -> Finding {
    let share = |a: &str| -> Vec<&Row> {
        rows.iter()
            .filter(|r| {
                r.part == "schedulability" && r.metric == "accepted_share" && r.approach == a
            })
            .collect()
    };
    let proposed = share(PROPOSED);
    let mut points = 0;
    let mut at_least = 0;
    let mean = |v: &[&Row]| v.iter().map(|r| r.value).sum::<f64>() / v.len().max(1) as f64;
    for b in BASELINES {
        for r in share(b) {
            let same = proposed
                .iter()
                .find(|p| p.family == r.family && p.chips == r.chips && p.demand == r.demand);
            if let Some(p) = same {
                points += 1;
                at_least += usize::from(p.value >= r.value);
            }
        }
    }
    let means: Vec<String> = BASELINES
        .iter()
        .map(|b| format!("{b} {:.2}", mean(&share(b))))
        .collect();
    let above = BASELINES.iter().all(|b| mean(&proposed) > mean(&share(b)));
    Finding::new(
        format!("{PROPOSED} accepts more task sets than both baselines"),
        "higher schedulability ratio",
    )
    .measured(
        format!(
            "at least as many at {at_least} of {points} points; mean accepted share {:.2} ({})",
            mean(&proposed),
            means.join(", ")
        ),
        points > 0 && at_least == points && above,
    )
}

/// Mean NRT bandwidth over the demand levels of the bandwidth study (the
/// analysis' chip model).
fn accepted_bandwidth(rows: &[Row]) -> Finding {
    let mean = |a: &str| {
        let v: Vec<f64> = rows
            .iter()
            .filter(|r| r.part == "bandwidth" && r.metric == "nrt_mb_s" && r.approach == a)
            .map(|r| r.value)
            .collect();
        v.iter().sum::<f64>() / v.len().max(1) as f64
    };
    let p = mean(PROPOSED);
    let ratios: Vec<(f64, &str)> = BASELINES.iter().map(|b| (p / mean(b), *b)).collect();
    Finding::new(
        format!("NRT bandwidth on accepted task sets higher under {PROPOSED}"),
        "higher than both baselines",
    )
    .measured(
        format!(
            "{p:.1} MB/s; {PROPOSED} / {} {}, / {} {}",
            ratios[0].1,
            times(ratios[0].0),
            ratios[1].1,
            times(ratios[1].0)
        ),
        ratios.iter().all(|r| r.0 > 1.0),
    )
}
