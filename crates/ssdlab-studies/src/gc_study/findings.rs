//! The GC study against Lee, Choi and Hong's findings, at each profile's
//! headline load: on-demand GC improves average and maximum latency and
//! write amplification against PBGC and BBGC (the paper's figures are not
//! public, so these findings have no size), and the victim table of its
//! trace analysis.

use super::{GcRow, Sweep, PAPER_VICTIMS};
use crate::findings::{times, Finding};

/// How close a victim share must come to the paper's table, in points.
pub const VICTIM_POINTS: f64 = 10.0;

pub fn findings(sweep: &Sweep) -> Vec<Finding> {
    let rows = sweep.headline_rows();
    let by = |profile: &str, scheme: &str| {
        rows.iter()
            .copied()
            .find(|r| r.profile == profile && r.scheme == scheme)
    };
    // (on-demand, PBGC, BBGC) per profile that has all three.
    let triples: Vec<[&GcRow; 3]> = sweep
        .profiles
        .iter()
        .filter_map(|p| {
            Some([
                by(p.name, "on-demand")?,
                by(p.name, "PBGC")?,
                by(p.name, "BBGC")?,
            ])
        })
        .collect();
    if triples.is_empty() {
        return Vec::new();
    }
    let mut out = vec![
        improves(&triples, "average write latency", |r| r.avg_write_ms),
        improves(&triples, "maximum write latency", |r| r.max_write_ms),
    ];
    let readers: Vec<[&GcRow; 3]> = triples
        .iter()
        .copied()
        .filter(|t| t.iter().all(|r| r.avg_read_ms > 0.0))
        .collect();
    if !readers.is_empty() {
        out.push(improves(&readers, "average read latency", |r| {
            r.avg_read_ms
        }));
        out.push(improves(&readers, "maximum read latency", |r| {
            r.max_read_ms
        }));
    }
    out.push(improves(&triples, "write amplification", |r| r.waf));
    out.extend(victims(&triples));
    out
}

/// On-demand's figure below both baselines' on every profile.
fn improves(triples: &[[&GcRow; 3]], what: &str, get: impl Fn(&GcRow) -> f64) -> Finding {
    let better = triples
        .iter()
        .filter(|[od, pb, bb]| get(od) < get(pb) && get(od) < get(bb))
        .count();
    let ratios = |base: usize| -> String {
        let r: Vec<f64> = triples.iter().map(|t| get(t[base]) / get(t[0])).collect();
        let lo = r.iter().copied().fold(f64::INFINITY, f64::min);
        let hi = r.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        format!("{}–{}", times(lo), times(hi))
    };
    Finding::new(
        format!("on-demand GC lowers {what} against PBGC and BBGC"),
        "improved (figures not public)",
    )
    .measured(
        format!(
            "lower on {better} of {} profiles; PBGC / on-demand {}, BBGC / on-demand {}",
            triples.len(),
            ratios(1),
            ratios(2)
        ),
        better == triples.len(),
    )
}

/// BBGC's victim shares against the trace analysis' table.
fn victims(triples: &[[&GcRow; 3]]) -> Option<Finding> {
    let errors: Vec<(&str, f64)> = triples
        .iter()
        .filter_map(|t| {
            let bb = t[2];
            let &(name, ge70, ge90) = PAPER_VICTIMS.iter().find(|v| v.0 == bb.profile)?;
            let e = (bb.victims_ge70_invalid_pct - ge70)
                .abs()
                .max((bb.victims_ge90_invalid_pct - ge90).abs());
            Some((name, e))
        })
        .collect();
    let worst = errors.iter().copied().max_by(|a, b| a.1.total_cmp(&b.1))?;
    let close = errors.iter().filter(|e| e.1 <= VICTIM_POINTS).count();
    Some(
        Finding::new(
            "shares of GC victims at least 70 % and 90 % invalid, per application (BBGC)",
            paper_ranges(),
        )
        .measured(
            format!(
                "within {VICTIM_POINTS:.0} points on {close} of {}; worst {} ({:.1} points)",
                errors.len(),
                worst.0,
                worst.1
            ),
            close == errors.len(),
        ),
    )
}

/// The table's ranges: "60–93 % and 42–84 %".
fn paper_ranges() -> String {
    let range = |get: fn(&(&str, f64, f64)) -> f64| {
        let v = PAPER_VICTIMS.iter().map(get);
        let lo = v.clone().fold(f64::INFINITY, f64::min);
        let hi = v.fold(f64::NEG_INFINITY, f64::max);
        format!("{lo:.0}–{hi:.0} %")
    };
    format!("{} and {}", range(|v| v.1), range(|v| v.2))
}
