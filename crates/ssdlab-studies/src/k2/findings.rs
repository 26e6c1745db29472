//! The K2 study against Park and Lee's findings: what K2-1 does to the RT
//! task's p99.9 and to total bandwidth, per operation and occupancy, from
//! the paper's own figures (`paper.rs`), and random reads' K2-2 below K2-1.

use super::paper::{targets, Metric, Target};
use super::results::PointRow;
use crate::findings::{effect_agrees, times, Finding};

/// Every finding the rows can answer (an occupancy or operation left out of
/// the run gives none).
pub fn findings(rows: &[PointRow]) -> Vec<Finding> {
    let mut out = Vec::new();
    for occupancy in ["partial", "full"] {
        for metric in [Metric::P999Us, Metric::BwMbs] {
            for op in ["read", "randread", "write", "randwrite"] {
                out.extend(none_to_k2_1(rows, occupancy, op, metric));
            }
        }
    }
    out.extend(randread_k2_2_below_k2_1(rows));
    out
}

fn value(
    rows: &[PointRow],
    op: &str,
    occupancy: &str,
    bound: Option<u32>,
    m: Metric,
) -> Option<f64> {
    let r = rows
        .iter()
        .find(|r| r.op == op && r.occupancy == occupancy && r.bound == bound)?;
    Some(match m {
        Metric::P999Us => r.rt_p999_us,
        Metric::BwMbs => r.total_bw_mbs,
    })
}

fn target(occupancy: &str, op: &str, label: &str, m: Metric) -> Option<&'static Target> {
    targets(occupancy)
        .iter()
        .find(|t| t.op == op && t.label == label && t.metric == m)
}

/// none against K2-1 for one cell: a ratio where the paper gives two
/// figures, a band where it gives one range for both.
fn none_to_k2_1(rows: &[PointRow], occupancy: &str, op: &str, m: Metric) -> Option<Finding> {
    let (tn, t1) = (
        target(occupancy, op, "none", m)?,
        target(occupancy, op, "K2-1", m)?,
    );
    let (vn, v1) = (
        value(rows, op, occupancy, None, m)?,
        value(rows, op, occupancy, Some(1), m)?,
    );
    let (what, unit) = match m {
        Metric::P999Us => ("RT p99.9", "µs"),
        Metric::BwMbs => ("total bandwidth", "MB/s"),
    };
    let state = if occupancy == "full" {
        "fully"
    } else {
        "partially"
    };
    let title = format!("{what}, none → K2-1: {op}, {state} occupied");
    if tn.low == tn.high && t1.low == t1.high {
        let (pr, sr) = (tn.low / t1.low, vn / v1);
        let paper = format!("{:.0} → {:.0} {unit} ({})", tn.low, t1.low, times(pr));
        let ssdlab = format!("{vn:.0} → {v1:.0} {unit} ({})", times(sr));
        Some(Finding::new(title, paper).measured(ssdlab, effect_agrees(pr, sr)))
    } else {
        let (lo, hi) = (tn.low.min(t1.low), tn.high.max(t1.high));
        let inside = |v: f64| (lo..=hi).contains(&v);
        let paper = format!("both in {lo:.0}–{hi:.0} {unit}");
        let ssdlab = format!("{vn:.0} and {v1:.0} {unit}");
        Some(Finding::new(title, paper).measured(ssdlab, inside(vn) && inside(v1)))
    }
}

/// At bound 1 the scheduler's own dispatch cost exceeds a read's device
/// time, so K2-2's p99.9 is lower than K2-1's (partially occupied).
fn randread_k2_2_below_k2_1(rows: &[PointRow]) -> Option<Finding> {
    let m = Metric::P999Us;
    let (t2, t1) = (
        target("partial", "randread", "K2-2", m)?,
        target("partial", "randread", "K2-1", m)?,
    );
    let v2 = value(rows, "randread", "partial", Some(2), m)?;
    let v1 = value(rows, "randread", "partial", Some(1), m)?;
    Some(
        Finding::new(
            "random read, partially occupied: K2-2's RT p99.9 below K2-1's",
            format!("{:.0} < {:.0} µs", t2.low, t1.low),
        )
        .measured(format!("{v2:.0} vs {v1:.0} µs"), v2 < v1),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(op: &str, occupancy: &str, bound: Option<u32>, p999: f64, bw: f64) -> PointRow {
        PointRow {
            op: op.into(),
            occupancy: occupancy.into(),
            scheduler: if bound.is_some() { "k2" } else { "none" }.into(),
            bound,
            rt_p999_us: p999,
            rt_p99_us: p999,
            rt_mean_us: p999,
            total_bw_mbs: bw,
            nrt_bw_mbs: bw,
            reps: 1,
            runtime_s: 1.0,
            waf: 1.0,
            gc_invocations: 0,
            gc_pages_moved: 0,
            erases: 0,
        }
    }

    #[test]
    fn the_papers_own_figures_agree_and_a_reversed_effect_does_not() {
        let rows = vec![
            row("randread", "partial", None, 3251.0, 566.0),
            row("randread", "partial", Some(1), 217.0, 44.0),
            row("randread", "partial", Some(2), 197.0, 60.0),
            row("write", "full", None, 3247.0, 270.0),
            row("write", "full", Some(1), 4000.0, 300.0),
        ];
        let f = findings(&rows);
        let find = |s: &str| f.iter().find(|x| x.finding.contains(s)).unwrap();
        assert!(find("RT p99.9, none → K2-1: randread").agrees);
        assert!(find("total bandwidth, none → K2-1: randread").agrees);
        assert!(find("K2-2's RT p99.9 below").agrees);
        // K2-1 raising the tail is the wrong direction.
        assert!(!find("RT p99.9, none → K2-1: write, full").agrees);
        // 300 MB/s lies outside the paper's 256–288 band.
        let band = find("total bandwidth, none → K2-1: write, full");
        assert!(!band.agrees && band.paper.contains("256–288"), "{band:?}");
        // Cells not run give no finding.
        assert_eq!(f.len(), 5, "{f:#?}");
    }
}
