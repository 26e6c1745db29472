//! The STB study against Kang, Park and Yoo's findings (2011), on the
//! hybrid log-block FTL their SSD had: STB has the highest throughput, up to
//! 30 % above the Linux schedulers of the time, and the lowest average
//! response time for reads and for file creation. The paper's times are
//! system calls; ssdlab's are Postmark operations, so only the ratios are
//! compared.

use super::{find, StbRow};
use crate::findings::{effect_agrees, times, Finding};

/// The era's Linux schedulers STB is measured against.
const LINUX: [&str; 2] = ["noop", "deadline"];

/// The paper's average response times (ns), noop / deadline / STB.
const PAPER_READ_NS: [f64; 3] = [211.3, 248.2, 159.0];
const PAPER_CREATE_NS: [f64; 3] = [850.9, 1344.0, 634.8];
/// "Up to 30 %" over the Linux schedulers.
const PAPER_GAIN: f64 = 1.30;

pub fn findings(rows: &[StbRow]) -> Vec<Finding> {
    let ftl = "hybrid";
    let Some(stb) = find(rows, ftl, "stb") else {
        return Vec::new();
    };
    let linux: Vec<&StbRow> = LINUX.iter().filter_map(|s| find(rows, ftl, s)).collect();
    if linux.is_empty() {
        return Vec::new();
    }
    let best = |get: fn(&StbRow) -> f64, higher: bool| {
        linux
            .iter()
            .map(|r| get(r))
            .fold(if higher { 0.0 } else { f64::INFINITY }, |a, b| {
                if higher {
                    a.max(b)
                } else {
                    a.min(b)
                }
            })
    };
    let fastest = rows
        .iter()
        .filter(|r| r.ftl == ftl)
        .all(|r| r.transactions_per_s <= stb.transactions_per_s);
    let gain = stb.transactions_per_s / best(|r| r.transactions_per_s, true);
    let mut out = vec![Finding::new(
        "STB has the highest throughput (hybrid FTL), up to 30 % above noop and deadline",
        format!("up to {}", times(PAPER_GAIN)),
    )
    .measured(
        format!(
            "{:.0} transactions/s, {} the better of noop and deadline{}",
            stb.transactions_per_s,
            times(gain),
            if fastest {
                "; the highest"
            } else {
                "; not the highest"
            }
        ),
        fastest && effect_agrees(PAPER_GAIN, gain),
    )];
    for (what, paper, get) in [
        (
            "reads",
            PAPER_READ_NS,
            (|r: &StbRow| r.read_op_avg_ms) as fn(&StbRow) -> f64,
        ),
        ("file creation", PAPER_CREATE_NS, |r: &StbRow| {
            r.create_avg_ms
        }),
    ] {
        let paper_ratio = paper[0].min(paper[1]) / paper[2];
        let ratio = best(get, false) / get(stb);
        out.push(
            Finding::new(
                format!("STB has the lowest average response time for {what} (hybrid FTL)"),
                format!(
                    "{:.0} ns against {:.0} ns ({})",
                    paper[2],
                    paper[0].min(paper[1]),
                    times(paper_ratio)
                ),
            )
            .measured(
                format!(
                    "{:.1} µs against {:.1} µs ({}; Postmark operations, not system calls)",
                    1e3 * get(stb),
                    1e3 * best(get, false),
                    times(ratio)
                ),
                effect_agrees(paper_ratio, ratio),
            ),
        );
    }
    out
}
